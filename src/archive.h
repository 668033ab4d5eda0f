/* archive.h: the archival post-pass on a finished PDF (libqpdf). cairo 1.16
 * cannot write XMP, /Lang, an output intent, alternate text or attached
 * files; this step adds them to cairo's output, in place, before pdf.c
 * renames it into position. It changes no page content, link, outline,
 * page label or structure element: it only adds keys and objects, and
 * moves the pages and structure elements a streamed PDF drew out of
 * order (PdfMove). */
#ifndef OCTAVO_ARCHIVE_H
#define OCTAVO_ARCHIVE_H

#include <stdbool.h>

#include "book.h"
#include "layout.h"
#include "options.h"
#include "pngpass.h"

/* The standards a --pdf-standard value asks for. */
typedef struct {
  bool pdfa3u; /* "a-3u": XMP pdfaid, output intent, attached sources */
  bool pdfua1; /* "ua-1": XMP pdfuaid, /Alt, /Contents, /Tabs, DisplayDocTitle */
} ArchiveStandard;

/* Parse a --pdf-standard value: a comma-separated list of "a-3u" and
 * "ua-1", or "none" (NULL means the default, "a-3u,ua-1"). Returns false
 * for anything else, leaving *out cleared. */
bool archive_standard_parse(const char *spec, ArchiveStandard *out);

/* Pages drawn out of the book's order (pdf.c's streaming): the last
 * `pages` pages are the book's second to (pages + 1)-th, and the last
 * `moved_elements` structure elements under Document come after the
 * first `title_elements`. pages 0: nothing to move. */
typedef struct {
  int pages;
  int title_elements;
  int moved_elements;
} PdfMove;

/* Rewrite the PDF at *pdf (cairo's finished output, a temporary file) as
 * an archival PDF for opts->pdf_standard, attaching the book's Markdown
 * sources when opts->attach_source, each PNG of pngs (the painter's;
 * NULL: none) written in place of its placeholder (pngpass.h). `name` is
 * the path the user asked for, for messages. For "none" it only moves
 * (move), copies the PNGs and writes the file anew, compact. The result
 * depends only on the input bytes, the book and SOURCE_DATE_EPOCH (the
 * trailer /ID is a hash of the content). Returns false with a diagnostic in
 * book when the PDF cannot be read or written or the ICC profile is
 * missing; *pdf is then unchanged or removed by the caller. When the file
 * is written anew (pdfupdate_write), cairo's temporary file is discarded
 * and *pdf names the new one (util_temp_beside beside `name`), which the
 * caller commits. */
bool archive_pdf(Book *book, const Layout *lay, const OctavoOptions *opts, const PdfMove *move,
                 const PngPass *pngs, char **pdf, const char *name);

#endif
