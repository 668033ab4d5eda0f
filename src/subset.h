/* subset.h: font subsetting for the EPUB (harfbuzz's hb-subset). */
#ifndef OCTAVO_SUBSET_H
#define OCTAVO_SUBSET_H

#include <glib.h>

/* The font file at path cut down to the glyphs of the code points in
 * `codepoints` (gunichar; any order), without hinting. Returns the new
 * font's bytes (caller g_bytes_unref), or NULL with *err set when the file
 * cannot be read or subset. Deterministic for the same input. */
GBytes *subset_font_file(const char *path, const GArray *codepoints, GError **err);
/* The same for face `index` of a font collection (.ttc): the result is a
 * single font (an OpenType/CFF face stays CFF). */
GBytes *subset_font_face(const char *path, int index, const GArray *codepoints, GError **err);

#endif
