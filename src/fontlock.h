/* fontlock.h: cairo's fonts made from fontconfig patterns (pango's fonts,
 * librsvg's text) are used by one thread at a time; glyph runs are drawn,
 * on any thread, with faces of octavo's own. See fontlock.c for why. */
#ifndef OCTAVO_FONTLOCK_H
#define OCTAVO_FONTLOCK_H

#include <cairo.h>
#include <pango/pango.h>
#include <stdbool.h>

/* The lock is recursive for its holder. Taken by whoever calls into
 * pango's cairo fonts, around that call only (see fontlock.c for who);
 * never held while waiting for another thread. */
void fontlock_enter(void);
void fontlock_leave(void);

/* The scaled font to draw font's glyphs with, on any thread: the same file,
 * face, matrices, options and synthetic emboldening as pango's scaled font,
 * on a FreeType face of octavo's own that cairo never closes. Made once per
 * font (under the lock: taken here when the caller does not hold it) and
 * kept as long as the font; NULL when font has no cairo font (the caller
 * falls back to pango). Borrowed. */
cairo_scaled_font_t *fontlock_draw_font(PangoFont *font);

/* ---- colour glyphs (Noto Color Emoji: PNG bitmaps in CBDT) ----
 * cairo 1.16 draws a colour font's glyphs on a PDF surface as images at
 * the bitmap's own size (136 pt for 10 pt type), away from their place,
 * and drops their text; so octavo draws them itself (paint.c): each glyph
 * an image placed and scaled here, its text carried by an empty glyph of
 * a font of its own (fontlock_carrier_font). */

/* Whether font's face has colour glyphs (then fontlock_color_glyph draws
 * them). Any thread. */
bool fontlock_is_color(PangoFont *font);

/* font's colour face: one per font file and face index for the whole
 * process, whichever thread's font map made font (the same address for
 * every PangoFont of that file), so a key for what is made of its glyphs;
 * NULL when it has no colour glyphs. Any thread. */
gconstpointer fontlock_color_face(PangoFont *font);

/* The size font's colour glyphs are drawn at, in user units per em (the
 * size pango laid them out at: its scaled font of a bitmap face is at the
 * bitmap's size); 0 when unknown. */
double fontlock_color_size(PangoFont *font);

/* Glyph glyph of font's colour face as an ARGB32 image of its bitmap
 * (caller destroys), and where it goes, in ems of the font's size, from
 * the glyph's origin on the baseline: left edge x_em, top edge y_em (up
 * is negative), pixel size px_em. NULL when the glyph has no colour
 * bitmap. Any thread. */
cairo_surface_t *fontlock_color_glyph(PangoFont *font, PangoGlyph glyph, double *x_em, double *y_em,
                                      double *px_em);

/* A font whose glyphs draw nothing, the advances of font's colour face,
 * at size user units per em (caller destroys): cairo_show_text_glyphs with it writes
 * a colour glyph's text into a PDF's text layer (a Type 3 font with its
 * ToUnicode map) where the image is drawn. NULL when font is not a colour
 * font. Any thread. */
cairo_scaled_font_t *fontlock_carrier_font(PangoFont *font, double size);

#endif
