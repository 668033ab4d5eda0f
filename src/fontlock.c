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

static pthread_once_t quark_once = PTHREAD_ONCE_INIT;
static GQuark quark;
static void make_quark(void)
{
  quark = g_quark_from_static_string("octavo-draw-font");
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
