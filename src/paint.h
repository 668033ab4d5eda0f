/* paint.h: the painter. Draws a laid-out page's items (LayItem: glyph runs,
 * rules, frames, images, links, destinations, structure tags) on any cairo_t:
 * the PDF's pages (pdf.c), the e-book's cover PNG (cover.c) and the preview
 * thumbnails (preview.c). The only code that turns layout items into cairo
 * calls. */
#ifndef OCTAVO_PAINT_H
#define OCTAVO_PAINT_H

#include <cairo.h>
#include <stdbool.h>

#include "book.h"
#include "layout.h"
#include "pngpass.h"

typedef struct Painter Painter;

typedef enum {
  PAINT_RASTER,   /* an image surface: no links, destinations or tags */
  PAINT_PDF,      /* cairo's PDF surface: links, destinations; glyphs corrected
                    * for the widths viewers read (see paint.c) */
  PAINT_PDF_TAGS, /* PAINT_PDF with the layout's structure tags */
} PaintTarget;

/* A painter drawing on cr (the caller's; not owned), one unit = one point
 * unless the caller scaled cr. book receives the warnings of images that
 * cannot be drawn (NULL: none). Free with paint_free(). */
Painter *paint_new(cairo_t *cr, PaintTarget target, Book *book);

/* The pixels per inch a PDF's raster images are drawn at, at most
 * (pdf.c sets the options' image_dpi, --image-dpi): an image with more
 * than 1.5 times the pixels its size on the page needs is decoded at fewer (a JPEG by
 * libjpeg's scaled decode, never at full size) and written so. <= 0, as a
 * new painter has it: every image at its own size. Raster targets draw at
 * their device's pixels whatever this says. */
void paint_set_image_dpi(Painter *p, double dpi);

/* On a PDF target, draw each PNG that needs every pixel and that
 * pngpass.c takes as it is as a placeholder recorded in pngs (the
 * caller's; it outlives the painter), which the archive pass replaces by
 * the PNG's own compressed data (archive_pdf); without it, or on a raster
 * target, every PNG is decoded. */
void paint_set_pngpass(Painter *p, PngPass *pngs);

/* Draw the items of one page (a GArray of LayItem) in order: one call per
 * page. Structure tags may open on one page and close on a later one. */
void paint_items(Painter *p, const GArray *items);

/* Make now, on the thread that lays out (holding fontlock), what painting
 * asks of font: its drawing font (fontlock_draw_font), so that items set
 * in it are painted on another thread without the lock. */
void paint_font_ready(PangoFont *font);

/* Structure tags opened and not yet closed (0 when the tree is whole). */
int paint_open_tags(const Painter *p);

/* Append s to out as a cairo attribute value: quoted, ' and \ escaped. */
void paint_attr_str(GString *out, const char *s);

/* Free a painter and its image cache. Accepts NULL. */
void paint_free(Painter *p);

#endif
