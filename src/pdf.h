/* pdf.h: pages from the layout -> a PDF (cairo). Draws only: the layout
 * driver (lay_drive) hands it the pages through a sink (pdf_sink), or
 * pdf_write draws a layout kept whole; it lays nothing out. */
#ifndef OCTAVO_PDF_H
#define OCTAVO_PDF_H

#include "book.h"
#include "layout.h"
#include "options.h"

/* How much structure a drawing writes. */
typedef enum {
  PDF_TAGS_ALL,   /* the layout's structure tags */
  PDF_TAGS_PAGES, /* Document > Part per page only, the fallback when cairo refuses the
                   * tags (cairo 1.16 writes a damaged cross-reference table for links
                   * without structure tags around them, and for links after a page with
                   * no tagged content, so the fallback still wraps every page's content) */
} PdfTags;

/* A PDF being drawn, page after page, into a temporary file beside path
 * ("-" = stdout), w_pt x h_pt points, with the book's metadata and title
 * as printed, its images at most image_dpi (--image-dpi). NULL with a diagnostic in book when the file cannot be
 * made. Close with pdf_close. */
typedef struct PdfDrawing PdfDrawing;
PdfDrawing *pdf_open(Book *book, const char *path, double w_pt, double h_pt, const char *title,
                     PdfTags tags, int image_dpi);

/* The sink that draws each page it is given as d's next page (and frees
 * its items): lay_drive's, or a page pipe's inner sink (pagepipe.h). */
LaySink pdf_sink(PdfDrawing *d);

typedef enum {
  PDF_WRITTEN,      /* the file is at its path */
  PDF_FAILED,       /* a diagnostic in book; no file left behind */
  PDF_TAGS_REFUSED, /* cairo refused the structure tags (PDF_TAGS_ALL): nothing written,
                     * no diagnostic yet (pdf_tags_refused); draw it again with
                     * PDF_TAGS_PAGES */
} PdfResult;

/* Close d, drawn from lay (the outline; the front matter drawn last, its
 * Layout.front_pages - 1 pages, moved after the title page): the surface
 * finished, the archive pass made (archive.c), the file renamed into place.
 * d is freed whatever the result. */
PdfResult pdf_close(PdfDrawing *d, const Layout *lay, const OctavoOptions *opts);

/* The warning that the PDF at path is drawn again with one Part per page. */
void pdf_tags_refused(Book *book, const char *path);

/* Draw the layout lay, kept whole (several PDFs, --preview,
 * --dump-layout), as a PDF to path: pdf_open, its pages in the order
 * lay_drive hands them over, pdf_close (again with PDF_TAGS_PAGES when
 * the tags are refused). Returns false with a diagnostic in book. */
bool pdf_write(Book *book, const Layout *lay, const OctavoOptions *opts, const char *path);

#endif
