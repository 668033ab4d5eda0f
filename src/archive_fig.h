/* archive_fig.h: /Alt on the Figure structure elements (archive_fig.c),
 * a part of the archival post-pass (archive.c). */
#ifndef OCTAVO_ARCHIVE_FIG_H
#define OCTAVO_ARCHIVE_FIG_H

#include "qpdflib.h"

#include "book.h"
#include "layout.h"
#include "pdfupdate.h"

/* Set /Alt on every Figure structure element of the PDF q has read (root:
 * its catalog): the alt text of the model's image drawn in the layout's
 * n-th Figure tag, else its title, else "Image FILE", else "Image". Each
 * element changed is named to u. Reads only the parent tree's entries of
 * the pages with figures when they account for every Figure tag. */
void archive_figure_alts(qpdf_data q, PdfUpdate *u, qpdf_oh root, const Book *book,
                         const Layout *lay);

#endif
