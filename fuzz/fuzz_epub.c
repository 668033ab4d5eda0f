/* fuzz_epub.c: libFuzzer target for Markdown -> model -> XHTML fragment and
 * EPUB. The input is one Markdown file; every stage must survive it. An
 * input whose first byte is a control character other than tab, newline
 * or carriage return takes it as option bits instead: 1 --number-sections,
 * 2 the print page list (the layout runs, and the EPUB gets its markers,
 * page-list nav and NCX pageList), 4 --smart. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "epub.h"
#include "fonts.h"
#include "colophon.h"
#include "layout.h"
#include "markdown.h"
#include "style.h"
#include "util.h"
#include "xhtml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char *datadir, *out;
  static Fonts *fonts; /* loaded once, as main.c does for a run */
  if (!datadir) {
    datadir = util_find_datadir(NULL);
    fonts = fonts_load(datadir, NULL);
    if (!fonts)
      abort();
    out = g_build_filename(g_get_tmp_dir(), "octavo-fuzz-epub.epub", NULL);
  }
  OctavoOptions opts;
  octavo_options_init(&opts);
  opts.datadir = datadir;
  opts.page_list = false;
  /* Subsetting five fonts and drawing a 1000 x 1500 cover would be most of
   * each run's time, and neither depends on the input: a tiny given cover
   * (run from the repository's top) and no fonts. */
  opts.embed_fonts = false;
  static GPtrArray *meta;
  if (!meta) {
    meta = g_ptr_array_new();
    g_ptr_array_add(meta, "cover=fuzz/tiny-cover.png");
  }
  opts.metadata = meta;
  if (size > 0 && data[0] < 0x20 && data[0] != '\t' && data[0] != '\n' && data[0] != '\r') {
    opts.number_sections = data[0] & 1;
    opts.page_list = data[0] & 2;
    opts.smart = data[0] & 4;
    data++;
    size--;
  }
  if (opts.page_list && size > 16 * 1024)
    return 0; /* the layout's size limits are fuzz_pdf's */
  Book *book = book_new();
  MdSource src = {.name = "fuzz.md", .text = (const char *)data, .len = size};
  if (md_parse_sources(book, &src, 1, &opts)) {
    GString *html = g_string_new(NULL);
    xhtml_fragment(book, &opts, html);
    g_string_free(html, TRUE);
    Layout *lay = NULL;
    Style st = {0};
    char *style = g_build_filename(datadir, "styles", "print.ini", NULL);
    if (style_load(&st, style, opts.paper, opts.columns, NULL)) {
      if (opts.page_list) {
        Colophon *col = colophon_new(book, book->meta.lang, "urn:fuzz", 0, fonts);
        lay = lay_book(book, &opts, &st, fonts, col);
        colophon_free(col);
      }
    } else {
      style_clear(&st);
      style_load(&st, NULL, opts.paper, opts.columns, NULL); /* the defaults */
    }
    epub_write(book, &st, NULL, &opts, lay ? lay->page_marks : NULL, out); /* no fonts: see above */
    lay_free(lay);
    style_clear(&st);
    g_free(style);
  }
  book_free(book);
  return 0;
}
