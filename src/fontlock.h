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

#endif
