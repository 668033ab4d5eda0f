/* shape.c: itemise and shape a paragraph once; widths of byte ranges from a
 * prefix sum of glyph advances by cluster; glyph slices for lines. */
#include "shape.h"

#include <hb.h>
#include <string.h>

#include "fontlock.h"

/* shape_thread_context's contexts: the fonts kept (and readied) */
G_DEFINE_QUARK(octavo - shape - thread - fonts, thread_fonts)

/* A glyph no face has (pango would draw a box of hex digits) becomes the
 * run's font's U+FFFD, with its width; its cluster keeps the character, so
 * the text layer still holds it. The warning is coverage.c's. */
static void replace_unknown(const PangoAnalysis *an, PangoGlyphString *gs)
{
  PangoGlyphInfo repl = {0};
  bool have = false;
  for (int g = 0; g < gs->num_glyphs; g++) {
    PangoGlyphInfo *gi = &gs->glyphs[g];
    if (!(gi->glyph & PANGO_GLYPH_UNKNOWN_FLAG) || gi->glyph == PANGO_GLYPH_EMPTY)
      continue;
    if (!have) {
      static const char fffd[] = "\xEF\xBF\xBD";
      PangoGlyphString *r = pango_glyph_string_new();
      pango_shape_full(fffd, 3, fffd, 3, an, r);
      if (r->num_glyphs == 1 && !(r->glyphs[0].glyph & PANGO_GLYPH_UNKNOWN_FLAG))
        repl = r->glyphs[0];
      else /* the font has no U+FFFD either: leave the space, draw nothing */
        repl.glyph = PANGO_GLYPH_EMPTY, repl.geometry.width = gi->geometry.width;
      pango_glyph_string_free(r);
      have = true;
    }
    gi->glyph = repl.glyph;
    gi->geometry.width = repl.geometry.width;
  }
}

/* shape_text and shape_unbroken: with or without the break analysis. */
/* A font about to be shaped with on a shape_thread_context: kept, and
 * readied the first time (shape.h). */
static void font_seen(GHashTable *kept, PangoFont *f)
{
  if (!f || g_hash_table_contains(kept, f))
    return;
  g_hash_table_add(kept, g_object_ref(f));
  PangoRectangle ink, logical;
  fontlock_enter();
  pango_font_get_glyph_extents(f, PANGO_GET_UNKNOWN_GLYPH(0xFFFD), &ink, &logical);
  fontlock_leave();
}

PangoContext *shape_thread_context(const Fonts *fonts)
{
  PangoContext *ctx = fonts_context_own_map(fonts);
  GHashTable *kept = g_hash_table_new_full(NULL, NULL, g_object_unref, NULL);
  g_object_set_qdata(G_OBJECT(ctx), thread_fonts_quark(), kept);
  /* destroyed in this order: the fonts, then the map */
  fonts_keep(fonts, kept, (GDestroyNotify)g_hash_table_unref);
  fonts_keep(fonts, g_object_ref(ctx), g_object_unref);
  return ctx;
}

/* Korean is broken between words, at its spaces, never inside one (CSS's
 * word-break: keep-all): pango's UAX 14 allows a break between any two
 * Hangul syllables, as between ideographs. Off here between two Hangul
 * characters; Korean then justifies by its word spaces (layout/items.c
 * spreads no glue in Hangul). */
static void keep_hangul(const char *text, PangoLogAttr *log, int nchars)
{
  bool prev = false;
  int i = 0;
  for (const char *p = text; i < nchars; p = g_utf8_next_char(p), i++) {
    bool hangul = (unsigned char)*p >= 0x80 && /* ASCII is not: most text asks nothing */
                  g_unichar_get_script(g_utf8_get_char(p)) == G_UNICODE_SCRIPT_HANGUL;
    if (hangul && prev)
      log[i].is_line_break = FALSE;
    prev = hangul;
  }
}

static Shaped *shape(PangoContext *ctx, const char *text, size_t len, PangoAttrList *attrs,
                     PangoLanguage *lang, bool breaks)
{
  Shaped *s = g_new0(Shaped, 1);
  s->text = g_strndup(text, len);
  s->len = len;
  s->runs = g_array_new(FALSE, TRUE, sizeof(ShapeRun));
  s->nchars = (int)g_utf8_strlen(s->text, (gssize)len);
  s->char_byte = g_new(int, s->nchars + 1);
  {
    const char *p = s->text;
    for (int i = 0; i < s->nchars; i++) {
      s->char_byte[i] = (int)(p - s->text);
      p = g_utf8_next_char(p);
    }
    s->char_byte[s->nchars] = (int)len;
  }
  if (breaks) {
    s->log = g_new0(PangoLogAttr, s->nchars + 1);
    pango_get_log_attrs(s->text, (int)len, -1, lang ? lang : pango_language_get_default(), s->log,
                        s->nchars + 1);
    if (attrs && len > 0) /* ranges whose breaks are off (pango_attr_allow_breaks_new) */
      pango_attr_break(s->text, (int)len, attrs, 0, s->log, s->nchars + 1);
    keep_hangul(s->text, s->log, s->nchars);
  }
  /* each glyph's advance at its cluster's byte + 1, then summed in place
   * (cum_pu[i]: the advances of bytes [0, i)): no array of its own */
  s->cum_pu = g_new0(gint64, len + 1);
  gint64 *adv = s->cum_pu + 1;
  if (len > 0) {
    /* on a thread's context its fonts are readied once (font_seen) and
     * shaped with unlocked; on another, under fontlock (cairo's faces) */
    GHashTable *kept = g_object_get_qdata(G_OBJECT(ctx), thread_fonts_quark());
    s->locked = !kept;
    if (s->locked)
      fontlock_enter();
    GList *items = pango_itemize(ctx, s->text, 0, (int)len, attrs, NULL);
    for (GList *l = items; kept && l; l = l->next)
      font_seen(kept, ((PangoItem *)l->data)->analysis.font);
    for (GList *l = items; l; l = l->next) {
      PangoItem *item = l->data;
      ShapeRun run = {item, pango_glyph_string_new(), 0};
      pango_shape_full(s->text + item->offset, item->length, s->text, (int)len, &item->analysis,
                       run.glyphs);
      replace_unknown(&item->analysis, run.glyphs);
      for (GSList *a = item->analysis.extra_attrs; a; a = a->next) {
        PangoAttribute *attr = a->data;
        if (attr->klass->type == PANGO_ATTR_RISE)
          run.rise_pt = ((PangoAttrInt *)attr)->value / (double)PANGO_SCALE;
      }
      for (int g = 0; g < run.glyphs->num_glyphs; g++)
        adv[item->offset + run.glyphs->log_clusters[g]] += run.glyphs->glyphs[g].geometry.width;
      g_array_append_val(s->runs, run);
    }
    g_list_free(items);
    if (s->locked)
      fontlock_leave();
  }
  for (size_t i = 0; i < len; i++)
    s->cum_pu[i + 1] += s->cum_pu[i];
  return s;
}

Shaped *shape_text(PangoContext *ctx, const char *text, size_t len, PangoAttrList *attrs,
                   PangoLanguage *lang)
{
  return shape(ctx, text, len, attrs, lang, true);
}

Shaped *shape_unbroken(PangoContext *ctx, const char *text, size_t len, PangoAttrList *attrs,
                       PangoLanguage *lang)
{
  return shape(ctx, text, len, attrs, lang, false);
}

void shape_free(Shaped *s)
{
  if (!s)
    return;
  for (guint i = 0; i < s->runs->len; i++) {
    ShapeRun *r = &g_array_index(s->runs, ShapeRun, i);
    pango_item_free(r->item);
    pango_glyph_string_free(r->glyphs);
  }
  g_array_free(s->runs, TRUE);
  g_free(s->log);
  g_free(s->char_byte);
  g_free(s->cum_pu);
  g_free(s->text);
  g_free(s);
}

double shape_width_pt(const Shaped *s, size_t a, size_t b)
{
  if (b > s->len)
    b = s->len;
  if (a >= b)
    return 0;
  return (double)(s->cum_pu[b] - s->cum_pu[a]) / PANGO_SCALE;
}

/* Index of the run holding byte at (binary search), or -1. */
static int run_index(const Shaped *s, size_t at)
{
  int lo = 0, hi = (int)s->runs->len - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const PangoItem *it = g_array_index(s->runs, ShapeRun, mid).item;
    if (at < (size_t)it->offset)
      hi = mid - 1;
    else if (at >= (size_t)(it->offset + it->length))
      lo = mid + 1;
    else
      return mid;
  }
  return -1;
}

const ShapeRun *shape_run_at(const Shaped *s, size_t at)
{
  int i = run_index(s, at);
  return i < 0 ? NULL : &g_array_index(s->runs, ShapeRun, i);
}

void shape_slices(const Shaped *s, size_t a, size_t b, GArray *out)
{
  if (b > s->len)
    b = s->len;
  int i = run_index(s, a);
  for (; i >= 0 && i < (int)s->runs->len && a < b; i++) {
    const ShapeRun *r = &g_array_index(s->runs, ShapeRun, i);
    size_t off = (size_t)r->item->offset, end = off + (size_t)r->item->length;
    size_t la = a > off ? a : off, lb = b < end ? b : end;
    if (la >= lb)
      continue;
    ShapeSlice sl = {
        g_object_ref(r->item->analysis.font), pango_glyph_string_new(), la, lb, r->rise_pt, 0};
    /* The glyphs of [la, lb): a contiguous range, found by binary search on
     * the clusters (ascending left to right, descending right to left), so
     * that cutting a long run into lines stays linear. */
    const PangoGlyphString *gs = r->glyphs;
    bool rtl = r->item->analysis.level % 2;
    int g0, g1;
    {
      int lo = 0, hi = gs->num_glyphs;
      while (lo < hi) { /* first glyph inside (LTR) or after (RTL) the range */
        int mid = (lo + hi) / 2;
        size_t c = off + (size_t)gs->log_clusters[mid];
        if (rtl ? c >= lb : c < la)
          lo = mid + 1;
        else
          hi = mid;
      }
      g0 = lo;
      hi = gs->num_glyphs;
      while (lo < hi) { /* first glyph past the range */
        int mid = (lo + hi) / 2;
        size_t c = off + (size_t)gs->log_clusters[mid];
        if (rtl ? c >= la : c < lb)
          lo = mid + 1;
        else
          hi = mid;
      }
      g1 = lo;
    }
    int n = g1 - g0;
    pango_glyph_string_set_size(sl.glyphs, n);
    int k = 0;
    gint64 w = 0;
    for (int g = g0; g < g1; g++) {
      size_t c = off + (size_t)r->glyphs->log_clusters[g];
      if (c >= la && c < lb) {
        sl.glyphs->glyphs[k] = r->glyphs->glyphs[g];
        sl.glyphs->log_clusters[k] = (int)(c - la);
        w += r->glyphs->glyphs[g].geometry.width;
        k++;
      }
    }
    pango_glyph_string_set_size(sl.glyphs, k);
    sl.width_pt = (double)w / PANGO_SCALE;
    g_array_append_val(out, sl);
    a = lb;
  }
}

void shape_slice_clear(ShapeSlice *sl)
{
  if (sl->font)
    g_object_unref(sl->font);
  if (sl->glyphs)
    pango_glyph_string_free(sl->glyphs);
  sl->font = NULL;
  sl->glyphs = NULL;
}

bool shape_has_char(const Shaped *s, size_t at, gunichar ch)
{
  const ShapeRun *r = shape_run_at(s, at);
  if (!r && s->runs->len)
    r = &g_array_index(s->runs, ShapeRun, s->runs->len - 1);
  if (!r || !r->item->analysis.font)
    return false;
  if (s->locked)
    fontlock_enter();
  hb_codepoint_t g;
  bool has = hb_font_get_nominal_glyph(pango_font_get_hb_font(r->item->analysis.font), ch, &g);
  if (s->locked)
    fontlock_leave();
  return has;
}

PangoGlyphString *shape_extra(const Shaped *s, size_t at, const char *str, PangoFont **font)
{
  const ShapeRun *r = shape_run_at(s, at);
  if (!r && s->runs->len)
    r = &g_array_index(s->runs, ShapeRun, s->runs->len - 1);
  PangoGlyphString *g = pango_glyph_string_new();
  if (!r) {
    *font = NULL;
    return g;
  }
  if (s->locked)
    fontlock_enter();
  pango_shape_full(str, (int)strlen(str), str, (int)strlen(str), &r->item->analysis, g);
  if (s->locked)
    fontlock_leave();
  *font = g_object_ref(r->item->analysis.font);
  return g;
}
