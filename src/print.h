/* print.h: the print run as the run plan decided it (runplan.h): the one
 * layout driver (lay_drive) with the plan's settings, feeding the sinks
 * the run wants: the PDF painter (pdf.c), on the drawing thread through a
 * page pipe when the plan has one (pagepipe.c), the page marks for the
 * EPUB's page list (PrintMarks), the progress line from the pages placed
 * (progress.c). The layout lays out, pdf.c draws; this connects them. */
#ifndef OCTAVO_PRINT_H
#define OCTAVO_PRINT_H

#include "book.h"
#include "colophon.h"
#include "fonts.h"
#include "layout.h"
#include "options.h"
#include "runplan.h"
#include "style.h"

/* The driver's settings for purpose, as plan says (its layout: streamed
 * or kept; its helper threads). */
LayDrive print_drive(const RunPlan *plan, LayPurpose purpose);

/* The page marks (BookPageMark) of a PDF being streamed, handed to another
 * thread (the EPUB's page list) as soon as the driver has them: after the
 * handout's counting pass, at the book's layout's end; before the PDF is
 * finished and its archive pass made. */
typedef struct PrintMarks PrintMarks;
PrintMarks *print_marks_new(void);
/* Wait until print_pdf has given the marks; they stay valid until
 * print_marks_free. NULL: none (the PDF failed before its layout was made). */
const GArray *print_marks_wait(PrintMarks *pm);
/* Free the marks. Accepts NULL. */
void print_marks_free(PrintMarks *pm);

/* The book laid out kept whole as opts->plan says (its layout: whole, for
 * print: several PDFs, --preview, --dump-layout; page-list: the EPUB's
 * page list alone, counted), the progress line told each page placed.
 * Never NULL; free with lay_free. */
Layout *print_layout(const Book *book, const OctavoOptions *opts, const Style *st,
                     const Fonts *fonts, const Colophon *colophon);

/* The book laid out as it is drawn into a PDF at path (lay_drive
 * streamed into pdf_sink, through a page pipe when opts->plan has a
 * drawing thread), so that memory does not grow with the pages; drawn
 * again with one Part per page when cairo refuses the structure tags (the
 * one case a book is laid out twice). marks (NULL: none) is given the page
 * marks as soon as they are final, or NULL, before this returns, whatever
 * happens. Returns false with a diagnostic in book. */
bool print_pdf(Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts,
               const Colophon *colophon, const char *path, PrintMarks *marks);

#endif
