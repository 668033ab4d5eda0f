/* cover.h: the generated cover. One typographic design (title, subtitle,
 * authors, date, publisher) laid out as layout items and drawn by paint.c; the EPUB carries it
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
#include "layout.h"
#include "style.h"

/* Append the cover of book, designed for a page of w_pt by h_pt, to items
 * (a GArray of LayItem, clear func lay_item_clear): coloured rules and
 * glyph runs shaped with ctx (a context of the private fonts,
 * fonts_context). paint.c draws them. */
void cover_items(GArray *items, PangoContext *ctx, const Book *book, const CoverStyle *cs,
                 double w_pt, double h_pt);

/* The cover as a PNG of w_px by h_px pixels. Returns the bytes (caller
 * g_bytes_unref), or NULL with *err set. Deterministic for the same book. */
GBytes *cover_png(const Book *book, const Fonts *fonts, const CoverStyle *cs, int w_px, int h_px,
                  GError **err);

#endif
