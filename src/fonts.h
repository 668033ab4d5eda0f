/* fonts.h: the font set of octavo, from the fonts/ directory of the data
 * directory, through a private fontconfig configuration, so that pages do
 * not depend on the fonts a machine has. Shared by the layout and the EPUB. */
#ifndef OCTAVO_FONTS_H
#define OCTAVO_FONTS_H

#include <glib.h>
#include <pango/pango.h>

typedef struct Fonts Fonts;

/* Load every font file in DATADIR/fonts into a private fontconfig
 * configuration whose cache lives in $XDG_CACHE_HOME/octavo (so a second
 * run does not rescan), and make a pango font map from it. Returns NULL
 * with *err set when the directory holds no usable font. Free with
 * fonts_free(). */
Fonts *fonts_load(const char *datadir, GError **err);
/* Free the font set. Accepts NULL. */
void fonts_free(Fonts *fonts);

/* The pango font map over the private fonts (owned by fonts). */
PangoFontMap *fonts_font_map(const Fonts *fonts);
/* A new pango context for print layout: 72 dpi (1 pango unit = 1/1024 pt),
 * glyph positions not rounded, metrics unhinted. Caller unrefs. */
PangoContext *fonts_context(const Fonts *fonts);
/* The font files loaded (char *, absolute paths, sorted; owned by fonts). */
const GPtrArray *fonts_files(const Fonts *fonts);

#endif
