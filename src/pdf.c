/* pdf.c: placeholder until this stage is written. */
#include "pdf.h"

bool pdf_write(Book *book, const Layout *lay, const OctavoOptions *opts, const char *path) {
  book_diag(book, BOOK_ERROR, NULL, "%s: PDF output is not available yet", path);
  return false;
}
