/* fontlock.c: one thread at a time for cairo's pattern fonts; faces of
 * octavo's own to draw glyphs with.
 *
 * Why. cairo 1.16 keeps at most ten FreeType faces of the fonts it makes
 * from fontconfig patterns (pango's fonts are such fonts; so are librsvg's
 * for an SVG's text) open at once: to open an eleventh it closes one whose
 * lock count it reads as 0 (cairo-ft-font.c, _has_unlocked_face), without
 * that font's lock. Another thread may just have locked that face and be
 * loading a glyph from it: it then reads a freed face (a crash in
 * cairo_show_text_glyphs, or cairo's assertion in _cairo_array_index_const
 * on a book of many scripts, whose fallback fonts are many). So:
 *
 * - those fonts are used by one thread at a time, the holder of this lock,
 *   taken by whoever calls into them and only around that call: shape.c
 *   (itemising and shaping on the main font map; a thread's own map has
 *   its fonts readied once under it, then shapes unlocked), shaper.c
 *   (metrics), paint.c (a font readied for drawing, pango's fallback
 *   drawing), pagepipe.c (the fonts of a page readied for the drawing
 *   thread), cover.c and imagelibs.c (an SVG's text). Nobody holds it by
 *   default, and no holder waits for another thread, so no wait has to
 *   give it back;
 * - the glyph runs of the pages are drawn with fontlock_draw_font's fonts:
 *   made from FT_Faces octavo opens itself (a FreeType library of its own),
 *   which cairo never closes (it only closes the faces it opened), so the
 *   drawing thread draws without the lock while the layout goes on.
 *
 * The lock's mutex is POSIX's, as pagepipe.c's (valgrind's helgrind and drd,
 * and TSan, see what it orders). */
#include "fontlock.h"

#include <cairo-ft.h>
#include <freetype/ftadvanc.h>
#include <freetype/tttables.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-font.h>
#include <pthread.h>

static struct {
  pthread_mutex_t mutex;
  pthread_cond_t changed; /* held changed */
  bool held;
} lock = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};

static _Thread_local int depth; /* this thread's nesting: > 0 while it holds the lock */

void fontlock_enter(void)
{
  if (depth++ > 0)
    return;
  pthread_mutex_lock(&lock.mutex);
  while (lock.held)
    pthread_cond_wait(&lock.changed, &lock.mutex);
  lock.held = true;
  pthread_mutex_unlock(&lock.mutex);
}

void fontlock_leave(void)
{
  g_return_if_fail(depth > 0);
  if (--depth > 0)
    return;
  pthread_mutex_lock(&lock.mutex);
  lock.held = false;
  pthread_cond_broadcast(&lock.changed);
  pthread_mutex_unlock(&lock.mutex);
}

/* ---- the drawing fonts ---- */

static pthread_mutex_t faces_mutex = PTHREAD_MUTEX_INITIALIZER;
static FT_Library library;
/* "file\x1findex\x1femboldened" -> cairo_font_face_t * (a reference; kept
 * until the process ends, as the FT_Face its user data closes) */
static GHashTable *faces;
static const cairo_user_data_key_t ft_face_key;

static void done_face(void *face)
{
  FT_Done_Face(face);
}

/* The font face for pattern's file and face (under faces_mutex). */
static cairo_font_face_t *face_for(FcPattern *pattern)
{
  FcChar8 *file = NULL;
  int index = 0;
  FcBool embolden = FcFalse;
  if (FcPatternGetString(pattern, FC_FILE, 0, &file) != FcResultMatch)
    return NULL;
  FcPatternGetInteger(pattern, FC_INDEX, 0, &index);
  FcPatternGetBool(pattern, FC_EMBOLDEN, 0, &embolden);
  char *key = g_strdup_printf("%s\x1f%d\x1f%d", (const char *)file, index, embolden ? 1 : 0);
  if (!faces)
    faces = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                  (GDestroyNotify)cairo_font_face_destroy);
  cairo_font_face_t *ff = g_hash_table_lookup(faces, key);
  if (ff) {
    g_free(key);
    return ff;
  }
  FT_Face ft = NULL;
  if ((!library && FT_Init_FreeType(&library) != 0) ||
      FT_New_Face(library, (const char *)file, index, &ft) != 0) {
    g_free(key);
    return NULL;
  }
  ff = cairo_ft_font_face_create_for_ft_face(ft, 0);
  if (cairo_font_face_set_user_data(ff, &ft_face_key, ft, done_face) != CAIRO_STATUS_SUCCESS) {
    cairo_font_face_destroy(ff);
    FT_Done_Face(ft);
    g_free(key);
    return NULL;
  }
  if (embolden)
    cairo_ft_font_face_set_synthesize(ff, CAIRO_FT_SYNTHESIZE_BOLD);
  g_hash_table_insert(faces, key, ff);
  return ff;
}

static cairo_scaled_font_t *make_draw_font(PangoFont *font)
{
  if (!PANGO_IS_CAIRO_FONT(font) || !PANGO_IS_FC_FONT(font))
    return NULL;
  cairo_scaled_font_t *ps = pango_cairo_font_get_scaled_font(PANGO_CAIRO_FONT(font));
  if (!ps || cairo_scaled_font_status(ps) != CAIRO_STATUS_SUCCESS)
    return NULL;
  pthread_mutex_lock(&faces_mutex);
  cairo_font_face_t *ff = face_for(pango_fc_font_get_pattern(PANGO_FC_FONT(font)));
  pthread_mutex_unlock(&faces_mutex);
  if (!ff)
    return NULL;
  cairo_matrix_t fm, ctm;
  cairo_scaled_font_get_font_matrix(ps, &fm);
  cairo_scaled_font_get_ctm(ps, &ctm);
  cairo_font_options_t *fo = cairo_font_options_create();
  cairo_scaled_font_get_font_options(ps, fo);
  cairo_scaled_font_t *df = cairo_scaled_font_create(ff, &fm, &ctm, fo);
  cairo_font_options_destroy(fo);
  if (cairo_scaled_font_status(df) != CAIRO_STATUS_SUCCESS) {
    cairo_scaled_font_destroy(df);
    return NULL;
  }
  return df;
}

/* The qdata keys on pango's fonts: a font's face to draw with, its colour
 * face. pthread_once, not GOnce: a race checker sees what POSIX's once
 * orders. */
static pthread_once_t quark_once = PTHREAD_ONCE_INIT;
static GQuark quark, color_quark;
static void make_quark(void)
{
  quark = g_quark_from_static_string("octavo-draw-font");
  color_quark = g_quark_from_static_string("octavo-color-face");
}

cairo_scaled_font_t *fontlock_draw_font(PangoFont *font)
{
  if (!font)
    return NULL;
  pthread_once(&quark_once, make_quark);
  cairo_scaled_font_t *df = g_object_get_qdata(G_OBJECT(font), quark);
  if (df)
    return df;
  fontlock_enter();
  df = g_object_get_qdata(G_OBJECT(font), quark); /* another thread's, made meanwhile */
  if (!df && (df = make_draw_font(font)))
    g_object_set_qdata_full(G_OBJECT(font), quark, df, (GDestroyNotify)cairo_scaled_font_destroy);
  fontlock_leave();
  return df;
}

/* ---- colour glyphs ---- */

/* A colour face, opened a second time (its FT_Face of the drawing font is
 * cairo's to size): the bitmaps are read from this one, at its first
 * strike, under faces_mutex. */
typedef struct {
  FT_Face ft;
  double ppem;                /* the strike's pixels per em */
  double upem;                /* font units per em (a bitmap-only face's FT_Face has none) */
  double max_advance;         /* the widest glyph's advance, font units */
  cairo_font_face_t *carrier; /* the user font of fontlock_carrier_font */
} ColorFace;

static GHashTable *color_faces; /* "file\x1findex" -> ColorFace * (NULL: not a colour face) */
static const cairo_user_data_key_t color_face_key;

/* An empty glyph with the colour glyph's advance. */
static cairo_status_t carrier_glyph(cairo_scaled_font_t *sf, unsigned long glyph, cairo_t *cr,
                                    cairo_text_extents_t *extents)
{
  ColorFace *cf =
      cairo_font_face_get_user_data(cairo_scaled_font_get_font_face(sf), &color_face_key);
  FT_Fixed adv = 0;
  pthread_mutex_lock(&faces_mutex);
  if (FT_Get_Advance(cf->ft, (FT_UInt)glyph, FT_LOAD_NO_SCALE, &adv) != 0)
    adv = 0;
  pthread_mutex_unlock(&faces_mutex);
  /* Half an em for the widest glyph: poppler takes a Type 3 font's size
   * to be its nominal size times its first glyph's width over 0.5 em (it
   * cannot know the font's units), and sets words of another size on
   * lines of their own; fontlock_carrier_font stretches the font back to
   * the face's widths. Ink extents of the emoji's box, though nothing is
   * drawn: cairo 1.16 writes a Type 3 font of inkless glyphs with NaN
   * widths. */
  extents->x_advance = 0.5 * (double)adv / cf->max_advance;
  extents->x_bearing = 0;
  extents->y_bearing = -0.8;
  extents->width = extents->x_advance > 0 ? extents->x_advance : 0.5;
  extents->height = 1;
  return CAIRO_STATUS_SUCCESS;
}

/* The colour face of font's file, opened once (NULL: none). */
static ColorFace *color_face_of_file(PangoFont *font)
{
  if (!PANGO_IS_FC_FONT(font))
    return NULL;
  FcPattern *pattern = pango_fc_font_get_pattern(PANGO_FC_FONT(font));
  FcChar8 *file = NULL;
  int index = 0;
  if (FcPatternGetString(pattern, FC_FILE, 0, &file) != FcResultMatch)
    return NULL;
  FcPatternGetInteger(pattern, FC_INDEX, 0, &index);
  char *key = g_strdup_printf("%s\x1f%d", (const char *)file, index);
  pthread_mutex_lock(&faces_mutex);
  if (!color_faces)
    color_faces = g_hash_table_new(g_str_hash, g_str_equal); /* kept until the process ends */
  gpointer v = NULL;
  if (g_hash_table_lookup_extended(color_faces, key, NULL, &v)) {
    pthread_mutex_unlock(&faces_mutex);
    g_free(key);
    return v;
  }
  ColorFace *cf = NULL;
  FT_Face ft = NULL;
  if ((library || FT_Init_FreeType(&library) == 0) &&
      FT_New_Face(library, (const char *)file, index, &ft) == 0) {
    if (FT_HAS_COLOR(ft) && ft->num_fixed_sizes > 0 && FT_Select_Size(ft, 0) == 0 &&
        ft->size->metrics.y_ppem > 0) {
      cf = g_new0(ColorFace, 1);
      cf->ft = ft;
      cf->ppem = ft->size->metrics.y_ppem;
      TT_Header *head = FT_Get_Sfnt_Table(ft, FT_SFNT_HEAD);
      cf->upem = head && head->Units_Per_EM ? head->Units_Per_EM : 2048;
      TT_HoriHeader *hhea = FT_Get_Sfnt_Table(ft, FT_SFNT_HHEA);
      cf->max_advance = hhea && hhea->advance_Width_Max ? hhea->advance_Width_Max : cf->upem;
      cf->carrier = cairo_user_font_face_create();
      cairo_user_font_face_set_render_glyph_func(cf->carrier, carrier_glyph);
      cairo_font_face_set_user_data(cf->carrier, &color_face_key, cf, NULL);
    } else {
      FT_Done_Face(ft);
    }
  }
  g_hash_table_insert(color_faces, key, cf);
  pthread_mutex_unlock(&faces_mutex);
  return cf;
}

/* color_face_of_file, remembered on the font (every glyph run asks). */
static ColorFace *color_face(PangoFont *font)
{
  static ColorFace none; /* "not a colour face": its address only, never written */
  pthread_once(&quark_once, make_quark);
  ColorFace *cf = g_object_get_qdata(G_OBJECT(font), color_quark);
  if (!cf) {
    cf = color_face_of_file(font);
    g_object_set_qdata(G_OBJECT(font), color_quark, cf ? cf : &none);
  }
  return cf == &none ? NULL : cf;
}

bool fontlock_is_color(PangoFont *font)
{
  return font && color_face(font) != NULL;
}

gconstpointer fontlock_color_face(PangoFont *font)
{
  return font ? color_face(font) : NULL;
}

cairo_surface_t *fontlock_color_glyph(PangoFont *font, PangoGlyph glyph, double *x_em, double *y_em,
                                      double *px_em)
{
  ColorFace *cf = font ? color_face(font) : NULL;
  if (!cf)
    return NULL;
  cairo_surface_t *s = NULL;
  pthread_mutex_lock(&faces_mutex);
  FT_GlyphSlot slot = cf->ft->glyph;
  if (FT_Load_Glyph(cf->ft, glyph, FT_LOAD_COLOR) == 0 && slot->format == FT_GLYPH_FORMAT_BITMAP &&
      slot->bitmap.pixel_mode == FT_PIXEL_MODE_BGRA && slot->bitmap.width > 0 &&
      slot->bitmap.rows > 0) {
    /* FreeType's BGRA is premultiplied, cairo's ARGB32 in native order:
     * the same bytes on a little-endian machine, the same words on any */
    int w = (int)slot->bitmap.width, h = (int)slot->bitmap.rows;
    s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    unsigned char *dst = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int y = 0; y < h; y++) {
      const unsigned char *src = slot->bitmap.buffer + (ptrdiff_t)y * slot->bitmap.pitch;
      guint32 *row = (guint32 *)(void *)(dst + (ptrdiff_t)y * stride);
      for (int x = 0; x < w; x++) {
        const unsigned char *px = src + 4 * x;
        row[x] = (guint32)px[3] << 24 | (guint32)px[2] << 16 | (guint32)px[1] << 8 | px[0];
      }
    }
    cairo_surface_mark_dirty(s);
    *x_em = slot->bitmap_left / cf->ppem;
    *y_em = -slot->bitmap_top / cf->ppem;
    *px_em = 1.0 / cf->ppem;
  }
  pthread_mutex_unlock(&faces_mutex);
  return s;
}

double fontlock_color_size(PangoFont *font)
{
  cairo_scaled_font_t *df = fontlock_draw_font(font);
  if (!df)
    return 0;
  cairo_matrix_t m;
  cairo_scaled_font_get_scale_matrix(df, &m);
  return m.yy;
}

cairo_scaled_font_t *fontlock_carrier_font(PangoFont *font, double size)
{
  ColorFace *cf = font ? color_face(font) : NULL;
  if (!cf || size <= 0)
    return NULL;
  cairo_matrix_t fm, ctm;
  cairo_matrix_init_scale(&fm, size * cf->max_advance / cf->upem / 0.5, size);
  cairo_matrix_init_identity(&ctm);
  cairo_font_options_t *fo = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  cairo_scaled_font_t *sf = cairo_scaled_font_create(cf->carrier, &fm, &ctm, fo);
  cairo_font_options_destroy(fo);
  if (cairo_scaled_font_status(sf) != CAIRO_STATUS_SUCCESS) {
    cairo_scaled_font_destroy(sf);
    return NULL;
  }
  return sf;
}
