/* pdf.h: pages from the layout -> a PDF (cairo). Draws only. */
#ifndef OCTAVO_PDF_H
#define OCTAVO_PDF_H

#include "book.h"
#include "colophon.h"
#include "fonts.h"
#include "layout.h"
#include "options.h"
#include "style.h"

/* Write the laid-out book as a PDF to path ("-" = stdout), under a
 * temporary name renamed at the end. Returns false with a diagnostic in
 * book on failure; no file is left behind then. */
bool pdf_write(Book *book, const Layout *lay, const OctavoOptions *opts, const char *path);

/* The page marks (BookPageMark) of a PDF being streamed, handed to another
 * thread (the EPUB's page list) as soon as its layout is final: before the
 * PDF's surface is finished and its archive pass made. */
typedef struct PdfMarks PdfMarks;
PdfMarks *pdf_marks_new(void);
/* Wait until pdf_write_stream has given the marks; they stay valid until
 * pdf_marks_free. NULL: none (the PDF failed before its layout was made). */
const GArray *pdf_marks_wait(PdfMarks *pm);
/* Free the marks. Accepts NULL. */
void pdf_marks_free(PdfMarks *pm);

/* Lay the book out for print (as lay_book) and write it as a PDF to path
 * as pdf_write does, each page drawn as soon as it is laid out and then
 * released (lay_book_stream), so that memory does not grow with the
 * pages; the contents, drawn last, are moved after the title page by the
 * archive pass. The handout is counted first (lay_handout_plan: its page
 * count, the contents' numbers, the page marks, given to marks then),
 * then streamed (lay_handout_stream). When what the contents'
 * placeholders or the count predicted does not hold, the book is laid out
 * whole and drawn as pdf_write does (the same pages). *lay takes the layout (its pages
 * emptied when streamed; its page marks and outline whole): the caller
 * frees it, also on failure. marks (NULL: none) is given a copy of the
 * layout's page marks once they are final, or NULL, before this returns,
 * whatever happens. Returns false with a diagnostic in book. */
bool pdf_write_stream(Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts,
                      const Colophon *colophon, const char *path, PdfMarks *marks, Layout **lay);

#endif
