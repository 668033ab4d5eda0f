/* epub.c: placeholder until this stage is written. */
#include "epub.h"

bool epub_write(Book *book, const OctavoOptions *opts, const char *path) {
  book_diag(book, BOOK_ERROR, NULL, "%s: EPUB output is not available yet", path);
  return false;
}
