/* layout/shaper.c: font descriptions, baselines, short labels (folios,
 * list numbers, running heads) and the caches that make them cheap:
 * metrics per font, widths per label, hyphenation points per word, a
 * hyphen's advance per font. */
#include "layout/internal.h"

#include <math.h>
#include <string.h>

#include "fontlock.h"
#include "hyphenate.h"

void shaper_init(LayShaper *shp, PangoContext *ctx, struct Hyphenator *hyph, const char *lang)
{
  shp->pctx = ctx;
  shp->lang = lang;
  shp->plang = pango_language_from_string(lang);
  pango_context_set_language(shp->pctx, shp->plang);
  shp->desc_keys = g_hash_table_new_full((GHashFunc)pango_font_description_hash,
                                         (GEqualFunc)pango_font_description_equal,
                                         (GDestroyNotify)pango_font_description_free, g_free);
  shp->metrics = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  shp->hyph_cache = hyphen_cache_new(hyph, lang);
  shp->hyph_w = g_hash_table_new_full(NULL, NULL, g_object_unref, g_free);
  shp->labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)shape_free);
  shp->toc_lines =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
  shp->bufs = g_ptr_array_new();
  shp->key = g_string_sized_new(64);
  shp->label_slices = g_array_new(FALSE, TRUE, sizeof(ShapeSlice));
}

void shaper_clear(LayShaper *shp)
{
  g_hash_table_destroy(shp->desc_keys);
  g_hash_table_destroy(shp->metrics);
  hyphen_cache_free(shp->hyph_cache);
  g_hash_table_destroy(shp->hyph_w);
  g_hash_table_destroy(shp->labels);
  g_hash_table_destroy(shp->toc_lines);
  para_bufs_free(shp->bufs);
  g_string_free(shp->key, TRUE);
  g_array_free(shp->label_slices, TRUE);
  g_object_unref(shp->pctx);
}

PangoFontDescription *font_desc(const char *family, double size, PangoStyle style,
                                PangoWeight weight)
{
  PangoFontDescription *d = pango_font_description_new();
  pango_font_description_set_family(d, family);
  pango_font_description_set_size(d, (int)lround(size * PANGO_SCALE));
  pango_font_description_set_style(d, style);
  pango_font_description_set_weight(d, weight);
  return d;
}

PangoFontDescription *text_desc(const Style *st, bool note)
{
  return font_desc(st->body_face, note ? st->note_size_pt : st->body_size_pt, PANGO_STYLE_NORMAL,
                   PANGO_WEIGHT_NORMAL);
}

/* shp->key set to font description key dk, a separator and str: the
 * labels' and widths' lookup key (copied only when a new entry keeps it). */
static const char *label_key(LayShaper *shp, const char *dk, const char *str)
{
  g_string_assign(shp->key, dk);
  g_string_append_c(shp->key, '\x1f');
  g_string_append(shp->key, str);
  return shp->key->str;
}

/* The string of font description d, the caches' key (owned by shp):
 * pango_font_description_to_string is not cheap, and every paragraph asks
 * with a description of its own, equal to many before it. */
static const char *desc_key(LayShaper *shp, const PangoFontDescription *d)
{
  char *key = g_hash_table_lookup(shp->desc_keys, d);
  if (!key) {
    key = pango_font_description_to_string(d);
    g_hash_table_insert(shp->desc_keys, pango_font_description_copy(d), key);
  }
  return key;
}

/* Baseline position inside a line of `leading` for font desc. */
double baseline(LayShaper *shp, const PangoFontDescription *d, double leading)
{
  /* pango_context_get_metrics() is slow (it shapes sample text): cache by font */
  const char *dk = desc_key(shp, d);
  double *am = g_hash_table_lookup(shp->metrics, dk);
  if (!am) {
    char *key = g_strdup(dk);
    /* it measures sample text with cairo's fonts: under fontlock.c's lock
     * (held around the call only, by whichever thread makes it) */
    fontlock_enter();
    PangoFontMetrics *m = pango_context_get_metrics(shp->pctx, d, shp->plang);
    fontlock_leave();
    am = g_new(double, 2);
    am[0] = pango_font_metrics_get_ascent(m) / (double)PANGO_SCALE;
    am[1] = pango_font_metrics_get_descent(m) / (double)PANGO_SCALE;
    pango_font_metrics_unref(m);
    g_hash_table_insert(shp->metrics, key, am);
  }
  return (leading - (am[0] + am[1])) / 2 + am[0];
}

/* Glyph items of a short string in font d (labels, folios, headers):
 * shaped once on its own. Returns the width; appends at (x, y). */
double shape_label(LayShaper *shp, GArray *items, const PangoFontDescription *d, const char *str,
                   double x, double y, double gray)
{
  return shape_label_attrs(shp, items, d, str, NULL, x, y, gray);
}

double shape_label_attrs(LayShaper *shp, GArray *items, const PangoFontDescription *d,
                         const char *str, PangoAttrList *attrs, double x, double y, double gray)
{
  /* Labels repeat (running heads, numbers, leader dots) and are never
   * broken: those without attributes are shaped once, without a break
   * analysis. */
  Shaped *sh = NULL;
  if (!attrs)
    sh = g_hash_table_lookup(shp->labels, label_key(shp, desc_key(shp, d), str));
  if (!sh) {
    pango_context_set_font_description(shp->pctx, d);
    sh = shape_unbroken(shp->pctx, str, strlen(str), attrs, shp->plang);
    if (!attrs) /* shp->key is still this label's: shaping made no key */
      g_hash_table_insert(shp->labels, g_strdup(shp->key->str), sh);
  }
  GArray *sl = shp->label_slices;
  g_array_set_size(sl, 0);
  shape_slices(sh, 0, sh->len, sl);
  double x0 = x;
  for (guint i = 0; i < sl->len; i++) {
    ShapeSlice *s = &g_array_index(sl, ShapeSlice, i);
    if (items) {
      LayItem it = {.kind = LAY_GLYPHS,
                    .x_pt = x,
                    .y_pt = y - s->rise_pt,
                    .gray = gray,
                    .font = s->font,
                    .glyphs = s->glyphs,
                    .text = g_strndup(sh->text + s->start, s->end - s->start)};
      g_array_append_val(items, it);
      s->font = NULL;
      s->glyphs = NULL;
    }
    x += s->width_pt;
    shape_slice_clear(s);
  }
  g_array_set_size(sl, 0);
  if (attrs)
    shape_free(sh);
  return x - x0;
}

/* The width of a short string, cached (bullets, numbers, folios repeat). */
double label_width(LayShaper *shp, const PangoFontDescription *d, const char *str)
{
  const char *dk = desc_key(shp, d);
  double *w = g_hash_table_lookup(shp->metrics, label_key(shp, dk, str));
  if (w)
    return *w;
  w = g_new(double, 2);                           /* the table frees double[2] values */
  w[0] = shape_label(shp, NULL, d, str, 0, 0, 0); /* it sets shp->key: made again after */
  g_hash_table_insert(shp->metrics, g_strdup(label_key(shp, dk, str)), w);
  return w[0];
}

/* The hyphenation points of a word, from a cache: words repeat, and
 * libhyphen is not free. The array is the cache's (*n points), valid
 * until the next call: read, not copied. */
const size_t *word_points(LayShaper *shp, const char *w, size_t len, guint *n)
{
  return hyphen_cache_points(shp->hyph_cache, w, len, n);
}

/* The advance of a hyphen in the font at byte `at`, shaped once per font. */
double hyphen_width(LayShaper *shp, const Shaped *sh, size_t at)
{
  const ShapeRun *r = shape_run_at(sh, at);
  PangoFont *font = r ? r->item->analysis.font : NULL;
  double *w = font ? g_hash_table_lookup(shp->hyph_w, font) : NULL;
  if (w)
    return *w;
  PangoFont *f = NULL;
  PangoGlyphString *hg = shape_extra(sh, at, "-", &f);
  double hw = pango_glyph_string_get_width(hg) / (double)PANGO_SCALE;
  pango_glyph_string_free(hg);
  if (f)
    g_object_unref(f);
  if (font) {
    w = g_new(double, 1);
    *w = hw;
    g_hash_table_insert(shp->hyph_w, g_object_ref(font), w); /* the key keeps the font alive */
  }
  return hw;
}

bool text_rtl(LayShaper *shp, const char *text, size_t len)
{
  if (len > 256) /* at a character's start */
    len = (size_t)(g_utf8_find_prev_char(text, text + 257) - text);
  PangoAttrList *none = pango_attr_list_new();
  fontlock_enter(); /* itemising may load a font (cairo's faces) */
  GList *items = pango_itemize(shp->pctx, text, 0, (int)len, none, NULL);
  fontlock_leave();
  bool rtl = items != NULL; /* the paragraph's level is 1: no run is below it */
  for (GList *l = items; l; l = l->next)
    rtl &= ((PangoItem *)l->data)->analysis.level > 0;
  g_list_free_full(items, (GDestroyNotify)pango_item_free);
  pango_attr_list_unref(none);
  return rtl;
}
