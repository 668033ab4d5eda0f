/* fontlock.h: cairo's fonts made from fontconfig patterns (pango's fonts,
 * librsvg's text) are used by one thread at a time; glyph runs are drawn,
 * on any thread, with faces of octavo's own. See fontlock.c for why. */
#ifndef OCTAVO_FONTLOCK_H
#define OCTAVO_FONTLOCK_H

#include <cairo.h>
#include <pango/pango.h>
#include <stdbool.h>

/* The lock is recursive for its holder. The main thread takes it with
 * fontlock_enter before any other thread starts, and keeps it: it lets the
 * threads that wait have it at fontlock_yield (between paragraphs and
 * pages), and gives it up around a wait for another thread
 * (fontlock_suspend ... fontlock_resume). Any other thread takes it around
 * what it does with pango, and with librsvg. */
void fontlock_enter(void);
void fontlock_leave(void);
/* The holder, not nested: the threads waiting for the lock have it in turn,
 * then the caller takes it back. Otherwise nothing (a test of one atomic
 * integer when no one waits). */
void fontlock_yield(void);
/* Give the lock up entirely, before waiting for a thread that may want it;
 * returns what fontlock_resume takes it back with (0: not held). */
int fontlock_suspend(void);
void fontlock_resume(int held);
/* Whether the calling thread holds the lock. */
bool fontlock_held(void);

/* The scaled font to draw font's glyphs with, on any thread: the same file,
 * face, matrices, options and synthetic emboldening as pango's scaled font,
 * on a FreeType face of octavo's own that cairo never closes. Made once per
 * font (under the lock: taken here when the caller does not hold it) and
 * kept as long as the font; NULL when font has no cairo font (the caller
 * falls back to pango). Borrowed. */
cairo_scaled_font_t *fontlock_draw_font(PangoFont *font);

#endif
