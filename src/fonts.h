/* fonts.h: the font set of octavo, from the fonts/ directory of the data
 * directory, through a private fontconfig configuration, so that pages do
 * not depend on the fonts a machine has. Shared by the layout and the EPUB. */
#ifndef OCTAVO_FONTS_H
#define OCTAVO_FONTS_H

#include <glib.h>
#include <pango/pango.h>
#include <stdbool.h>

typedef struct Fonts Fonts;

/* Load every font file in DATADIR/fonts into a private fontconfig
 * configuration, with the fallback faces DATADIR/fonts/fallback.conf names
 * (system font files, reached through that file only), whose cache lives
 * in $XDG_CACHE_HOME/octavo (so a second run does not rescan), and make a
 * pango font map from it. Returns NULL
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
/* The same on a font map of its own over the same fonts, for drawing on
 * another thread while fonts_context's are in use: pango's font maps are
 * not thread-safe. Slower to start (no font sorted yet). Caller unrefs. */
PangoContext *fonts_context_own_map(const Fonts *fonts);
/* Keep data until fonts_free, which calls destroy(data) (in the order
 * kept, before the fonts' own map): what pango objects made on another
 * thread's map must outlive (ahead.c). */
void fonts_keep(const Fonts *fonts, gpointer data, GDestroyNotify destroy);
/* The font files loaded (char *, absolute paths, sorted; owned by fonts). */
const GPtrArray *fonts_files(const Fonts *fonts);

/* One face of the set, as fontconfig reads it from the file. */
typedef struct {
  const char *path;   /* absolute (owned by fonts) */
  const char *family; /* the first family name: "Charis SIL" (owned by fonts) */
  int weight;         /* CSS/OpenType weight: 400 regular, 700 bold */
  bool italic;        /* italic or oblique */
  bool mono;          /* a monospace face */
  int index;          /* the face's index in its file (a .ttc collection holds several) */
  bool color;         /* colour glyphs (Noto Color Emoji's bitmaps) */
} FontsFace;

/* The faces loaded (FontsFace; owned by fonts), in the order proportional
 * before monospace, then by weight, then upright before italic, then by
 * path: a stable order for the EPUB's manifest and @font-face rules. */
const GArray *fonts_faces(const Fonts *fonts);

/* The face that draws ch in text set in family for language lang (may
 * be NULL): the family's own face when it has ch, else the first fallback
 * face of fonts/fallback.conf that has it, in the order pango takes them;
 * NULL when no face has it. A fallback's weight and style are not filled
 * (400, upright). Owned by fonts. */
const FontsFace *fonts_face_for(const Fonts *fonts, const char *family, const char *lang,
                                gunichar ch);
/* The characters of a text drawn by one fallback face. */
typedef struct {
  const FontsFace *face; /* owned by fonts */
  GArray *cps;           /* gunichar, in the order given; owned by the caller */
} FontsUse;
/* Split cps (gunichar) of text set in family for language lang by the face
 * that draws each (fonts_face_for): those of the book's own faces are
 * appended to own (gunichar); the others are returned as FontsUse, one per
 * fallback face, in the order the faces are tried. Characters no face has
 * are left out. The caller frees each use's cps and the array. */
GArray *fonts_split(const Fonts *fonts, const char *family, const char *lang, const GArray *cps,
                    GArray *own);
/* Whether face is one of the book's own faces (fonts/), not a fallback. */
bool fonts_is_own(const Fonts *fonts, const FontsFace *face);

#endif
