/* fuzz_pdf.c: libFuzzer target for Markdown -> model -> layout -> PDF. An
 * input whose first byte is a control character other than tab, newline
 * or carriage return takes it as option bits instead: 1 --number-sections,
 * 2 --columns 2, 4 --paper a5, 8 --linebreak greedy, 16 --link-notes end
 * (1 to 31: a control byte; --smart is not among them: fuzz_epub has it). */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "fonts.h"
#include "colophon.h"
#include "layout.h"
#include "markdown.h"
#include "pdf.h"
#include "style.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char *datadir, *out;
  static Fonts *fonts; /* loaded once, as main.c does for a run */
  if (!datadir) {
    datadir = util_find_datadir(NULL);
    fonts = fonts_load(datadir, NULL);
    if (!fonts)
      abort();
    out = g_build_filename(g_get_tmp_dir(), "octavo-fuzz-pdf.pdf", NULL);
  }
  if (size > 64 * 1024) /* keep each run short: size is the markdown fuzzer's job */
    return 0;
  OctavoOptions opts;
  octavo_options_init(&opts);
  opts.datadir = datadir;
  if (size > 0 && data[0] < 0x20 && data[0] != '\t' && data[0] != '\n' && data[0] != '\r') {
    opts.number_sections = data[0] & 1;
    opts.columns = data[0] & 2 ? 2 : 1;
    opts.paper = data[0] & 4 ? OCTAVO_PAPER_A5 : OCTAVO_PAPER_A4;
    opts.linebreak = data[0] & 8 ? OCTAVO_BREAK_GREEDY : OCTAVO_BREAK_OPTIMAL;
    opts.link_notes = data[0] & 16 ? OCTAVO_NOTES_END : OCTAVO_NOTES_FOOT;
    data++;
    size--;
  }
  Book *book = book_new();
  MdSource src = {.name = "fuzz.md", .text = (const char *)data, .len = size};
  if (md_parse_sources(book, &src, 1, &opts)) {
    Style st = {0};
    char *style = g_build_filename(datadir, "styles", "print.ini", NULL);
    if (style_load(&st, style, opts.paper, opts.columns, NULL)) {
      Colophon *col = colophon_new(book, book->meta.lang, "urn:fuzz", 0, fonts);
      Layout *lay = lay_book(book, &opts, &st, fonts, col);
      colophon_free(col);
      if (lay)
        pdf_write(book, lay, &opts, out);
      lay_free(lay);
    }
    style_clear(&st);
    g_free(style);
  }
  book_free(book);
  return 0;
}
