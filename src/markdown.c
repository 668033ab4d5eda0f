/* markdown.c: placeholder until this stage is written. */
#include "markdown.h"

bool md_parse_sources(Book *book, const MdSource *srcs, int n, const OctavoOptions *opts) { return false; }
bool md_parse_files(Book *book, const char *const *files, int n, const OctavoOptions *opts) {
  book_diag(book, BOOK_ERROR, NULL, "Markdown input is not available yet");
  return false;
}
