/* archive_widths.h: each embedded TrueType font's widths made exact
 * (archive_widths.c), a part of the archival post-pass (archive.c). */
#ifndef OCTAVO_ARCHIVE_WIDTHS_H
#define OCTAVO_ARCHIVE_WIDTHS_H

#include <glib.h>

#include "book.h"
#include "pdfupdate.h"
#include "qpdflib.h"

/* Rewrite the widths of every TrueType font cairo embedded in the PDF
 * base[0..len) (which q has read and u updates): a simple /TrueType
 * font's /Widths and a CIDFontType2's /W, each the advance of the glyph
 * the code shows in the font's own program (/FontFile2), in thousandths
 * of an em to three decimals, where cairo 1.16 wrote whole thousandths
 * truncated (so that viewers place the glyphs where cairo meant). A font
 * whose widths do not match its program as cairo's truncation of them is
 * left as it is, with a warning on book naming the PDF (name); fonts that
 * are not cairo's TrueType subsets are left as they are. */
void archive_widths(qpdf_data q, PdfUpdate *u, const char *base, gsize len, Book *book,
                    const char *name);

#endif
