/* cover.h: the generated cover. One typographic design (title, subtitle,
 * authors, date, publisher) drawn with cairo and pango; the EPUB carries it
 * as its cover image (a PNG) and the PDF uses it as its title page, so both
 * books open on the same face. Colours come from the [cover] group of the
 * print style (Style.cover, read by style_load). */
#ifndef OCTAVO_COVER_H
#define OCTAVO_COVER_H

#include <cairo.h>
#include <pango/pango.h>
#include <stdbool.h>

#include "book.h"
#include "fonts.h"
#include "style.h"

/* Draw the cover of book into the rectangle (0, 0, w_pt, h_pt) of cr, text
 * through pango (extractable in a PDF). ctx must be a pango context of the
 * private fonts (fonts_context). Changes no state of cr visible after. */
void cover_draw(cairo_t *cr, PangoContext *ctx, const Book *book, const CoverStyle *cs, double w_pt,
                double h_pt);

/* The cover as a PNG of w_px by h_px pixels. Returns the bytes (caller
 * g_bytes_unref), or NULL with *err set. Deterministic for the same book. */
GBytes *cover_png(const Book *book, const Fonts *fonts, const CoverStyle *cs, int w_px, int h_px,
                  GError **err);

#endif
