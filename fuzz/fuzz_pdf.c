/* fuzz_pdf.c: libFuzzer target for Markdown -> model -> layout -> PDF. An
 * input whose first byte is a control character other than tab, newline
 * or carriage return takes it as option bits instead: 1 --number-sections,
 * 2 --columns 2, 4 --paper a5, 8 --linebreak greedy, 16 --link-notes end
 * (1 to 31: a control byte; --smart is not among them: fuzz_epub has it). */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "layout.h"
#include "markdown.h"
#include "pdf.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char *datadir, *out;
  if (!datadir) {
    datadir = util_find_datadir(NULL);
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
    opts.paper = data[0] & 4 ? "a5" : "a4";
    opts.linebreak = data[0] & 8 ? "greedy" : "optimal";
    opts.link_notes = data[0] & 16 ? "end" : "foot";
    data++;
    size--;
  }
  Book *book = book_new();
  MdSource src = {.name = "fuzz.md", .text = (const char *)data, .len = size};
  if (md_parse_sources(book, &src, 1, &opts)) {
    Layout *lay = lay_book(book, &opts);
    if (lay)
      pdf_write(book, lay, &opts, out);
    lay_free(lay);
  }
  book_free(book);
  return 0;
}
