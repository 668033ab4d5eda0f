/* pdf.h: pages from the layout -> a PDF (cairo). Draws only. */
#ifndef OCTAVO_PDF_H
#define OCTAVO_PDF_H

#include "book.h"
#include "layout.h"
#include "options.h"

/* Write the laid-out book as a PDF to path ("-" = stdout), under a
 * temporary name renamed at the end. Returns false with a diagnostic in
 * book on failure; no file is left behind then. */
bool pdf_write(Book *book, const Layout *lay, const OctavoOptions *opts, const char *path);

#endif
