/* fuzz_pdf.c: libFuzzer target for Markdown -> model -> layout -> PDF. */
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
  Book *book = book_new();
  MdSource src = {"fuzz.md", (const char *)data, size};
  if (md_parse_sources(book, &src, 1, &opts)) {
    Layout *lay = lay_book(book, &opts);
    if (lay)
      pdf_write(book, lay, &opts, out);
    lay_free(lay);
  }
  book_free(book);
  return 0;
}
