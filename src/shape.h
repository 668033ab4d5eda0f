/* shape.h: shaping a paragraph once. The text is itemised with its
 * attributes (pango_itemize) and each item shaped (pango_shape_full); the
 * result answers widths of byte ranges and cuts glyph slices for lines
 * without ever shaping again. Knows nothing of the model or of pages. */
#ifndef OCTAVO_SHAPE_H
#define OCTAVO_SHAPE_H

#include <glib.h>
#include <pango/pango.h>
#include <stdbool.h>
#include <stddef.h>

#include "fonts.h"

typedef struct {
  PangoItem *item;          /* owned; offset and length in the paragraph's text */
  PangoGlyphString *glyphs; /* owned; log_clusters relative to item->offset */
  double rise_pt;           /* baseline shift from a PANGO_ATTR_RISE (superscripts) */
} ShapeRun;

typedef struct {
  char *text; /* owned copy of the paragraph's UTF-8 */
  size_t len;
  GArray *runs;      /* ShapeRun, in logical order */
  PangoLogAttr *log; /* nchars + 1 entries (NULL from shape_unbroken) */
  int nchars;
  int *char_byte; /* nchars + 1: byte offset of each character */
  gint64 *cum_pu; /* len + 1: advance of everything before byte i, pango units */
  bool locked;    /* shaped under fontlock (not on a shape_thread_context): so is shape_extra */
} Shaped;

/* A piece of one run for drawing: the glyphs of bytes [start, end). */
typedef struct {
  PangoFont *font;          /* a reference owned by the slice */
  PangoGlyphString *glyphs; /* owned; log_clusters relative to start */
  size_t start, end;        /* bytes in the paragraph text */
  double rise_pt;
  double width_pt;
} ShapeSlice;

/* Itemise and shape text[0..len) with attrs (may be NULL) on ctx, for
 * language lang (may be NULL). Never returns NULL. */
Shaped *shape_text(PangoContext *ctx, const char *text, size_t len, PangoAttrList *attrs,
                   PangoLanguage *lang);
/* As shape_text, for text that is never broken (labels, folios, running
 * heads): without the break analysis, so log is NULL. */
Shaped *shape_unbroken(PangoContext *ctx, const char *text, size_t len, PangoAttrList *attrs,
                       PangoLanguage *lang);
/* Free. Accepts NULL. */
void shape_free(Shaped *s);

/* A context to shape with on a thread other than the main one (ahead.c,
 * pool.c), on a pango font map of its own: pango's maps are not
 * thread-safe. The fonts shaped with on it give the same glyphs and
 * advances as fonts_context's. Other threads use those fonts (the layout
 * a shaping's, the drawing thread every glyph run's), and pango, the
 * first time it is asked for the box it draws for a glyph no face has,
 * loads a small font for the box's digits on the font's own map, through
 * cairo: so shape_text readies each new font of such a context before it
 * shapes with it (one such box, under fontlock.c's lock, which pango
 * keeps in the font). Those fonts and the map live until fonts_free (a
 * font's last reference dropped on another thread would edit its map).
 * Caller unrefs. */
PangoContext *shape_thread_context(const Fonts *fonts);

/* Width in points of bytes [a, b) (a and b at cluster boundaries). */
double shape_width_pt(const Shaped *s, size_t a, size_t b);
/* Append to out (ShapeSlice) the slices that draw bytes [a, b), one per run
 * it crosses, in logical order. Free them with shape_slice_clear(). */
void shape_slices(const Shaped *s, size_t a, size_t b, GArray *out);
void shape_slice_clear(ShapeSlice *sl);
/* The run holding byte at, or NULL. */
const ShapeRun *shape_run_at(const Shaped *s, size_t at);
/* Shape a short string (a hyphen, a continuation mark) with the font and
 * attributes of the run holding byte `at`: the only shaping outside
 * shape_text (pieces at a hyphen). Caller frees the glyph string; *font gets
 * a new reference. */
PangoGlyphString *shape_extra(const Shaped *s, size_t at, const char *str, PangoFont **font);
/* Whether the font of the run holding byte `at` (as shape_extra's) has a
 * glyph for ch: harfbuzz's answer from the font's character map, the one
 * pango_shape asks. Shaping a character the font lacks gives pango's
 * unknown glyph, and its advance makes pango load a font for the box's
 * digits (a fontconfig sort and two threads): ask this first when only
 * the glyph's presence matters. False when there is no run. */
bool shape_has_char(const Shaped *s, size_t at, gunichar ch);

#endif
