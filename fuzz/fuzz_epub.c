/* fuzz_epub.c: libFuzzer target for Markdown -> model -> XHTML fragment and
 * EPUB. The input is one Markdown file; every stage must survive it. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "epub.h"
#include "markdown.h"
#include "util.h"
#include "xhtml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char *datadir, *out;
  if (!datadir) {
    datadir = util_find_datadir(NULL);
    out = g_build_filename(g_get_tmp_dir(), "octavo-fuzz-epub.epub", NULL);
  }
  OctavoOptions opts;
  octavo_options_init(&opts);
  opts.datadir = datadir;
  opts.page_list = false;
  Book *book = book_new();
  MdSource src = {"fuzz.md", (const char *)data, size};
  if (md_parse_sources(book, &src, 1, &opts)) {
    GString *html = g_string_new(NULL);
    xhtml_fragment(book, &opts, html);
    g_string_free(html, TRUE);
    epub_write(book, &opts, out);
  }
  book_free(book);
  return 0;
}
