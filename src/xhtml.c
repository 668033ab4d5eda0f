/* xhtml.c: placeholder until this stage is written. */
#include "xhtml.h"

void xhtml_fragment(Book *book, const OctavoOptions *opts, GString *out) {}
bool xhtml_write_file(Book *book, const OctavoOptions *opts, const char *path) {
  book_diag(book, BOOK_ERROR, NULL, "%s: XHTML output is not available yet", path);
  return false;
}
bool xhtml_write_fragment_file(Book *book, const OctavoOptions *opts, const char *path) {
  book_diag(book, BOOK_ERROR, NULL, "%s: HTML output is not available yet", path);
  return false;
}
