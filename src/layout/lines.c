/* layout/lines.c: setting a paragraph: shaped once (shape.c), cut into
 * boxes, glue and penalties (items.c), broken by lb_break() (linebreak.c),
 * and set line by line from slices of the same glyphs, in visual order,
 * justified with word and letter spacing, inline images drawn in their
 * boxes. */
#include "layout/internal.h"

#include <math.h>
#include <string.h>


/* Does a URL note's letter start at byte at? */
static bool letter_mark_at(const guint8 *flags, size_t flen, size_t at)
{
  return at > 0 && (flag_at(flags, flen, at) & F_LETTER_MARK) &&
         !(flag_at(flags, flen, at - 1) & F_LETTER_MARK);
}

typedef struct {
  size_t byte;
  double x, w; /* the glyph's left edge and advance, as set */
} XPos;

static double x_at(const GArray *xs, size_t byte)
{
  for (guint i = 0; i < xs->len; i++)
    if (g_array_index(xs, XPos, i).byte >= byte)
      return g_array_index(xs, XPos, i).x;
  return xs->len ? g_array_index(xs, XPos, xs->len - 1).x : 0;
}

/* The horizontal extent [*x0, *x1) of the glyphs of bytes [a, b) of a line
 * in visual order (with right-to-left runs, bytes do not grow with x).
 * xs ends with the line's end position. */
static void x_range(const GArray *xs, size_t a, size_t b, bool bidi, double *x0, double *x1)
{
  if (!bidi) {
    *x0 = x_at(xs, a);
    *x1 = x_at(xs, b);
    return;
  }
  *x0 = G_MAXDOUBLE;
  *x1 = -G_MAXDOUBLE;
  for (guint i = 0; i + 1 < xs->len; i++) {
    const XPos *p = &g_array_index(xs, XPos, i);
    if (p->byte >= a && p->byte < b) {
      *x0 = MIN(*x0, p->x);
      *x1 = MAX(*x1, p->x + p->w);
    }
  }
  if (*x0 > *x1)
    *x0 = *x1 = x_at(xs, b);
}

/* The item of the line [s, e) that holds the glyph at `byte`: the first
 * whose end is past it (items' byte ranges grow with their index), or e. */
static size_t item_at(const GArray *meta, size_t s, size_t e, size_t byte)
{
  size_t lo = s, hi = e;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g_array_index(meta, Meta, mid).b <= byte)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Does the glyph at `byte` belong to a glue item (a word space) of the line
 * [s, e)? *gk gets the item that holds it. Glyphs may come in any order
 * (right-to-left runs). */
static inline bool glyph_in_glue(const GArray *meta, size_t s, size_t *gk, size_t e, size_t byte)
{
  /* *gk on entry: the item of the glyph before, where the next one mostly
   * is (left to right), or in the item after it; else a binary search */
  size_t h = *gk;
  if (h >= s && h < e && g_array_index(meta, Meta, h).b <= byte && h + 1 < e)
    h++;
  if (h >= s && h < e && g_array_index(meta, Meta, h).b > byte &&
      (h == s || g_array_index(meta, Meta, h - 1).b <= byte))
    *gk = h;
  else
    *gk = item_at(meta, s, e, byte);
  return *gk < e && g_array_index(meta, Meta, *gk).kind == M_GLUE &&
         byte >= g_array_index(meta, Meta, *gk).a;
}

/* Is there a gap between letters after glyph gi of slice k: the glyph ends a
 * cluster, is not code, and the next glyph of the line starts another
 * cluster of the same word (not a word space, not the end of the line)?
 * [s, e): the line's items; *gk: glyph_in_glue's hint, moved to the next
 * glyph's item. */
static bool letter_gap_after(const GArray *slices, guint k, int gi, const GArray *meta, size_t s,
                             size_t e, const guint8 *flags, size_t flen, size_t *gk)
{
  const ShapeSlice *sl = &g_array_index(slices, ShapeSlice, k);
  const PangoGlyphString *g = sl->glyphs;
  size_t byte = sl->start + (size_t)g->log_clusters[gi];
  if (byte >= flen || (flags[byte] & F_CODE))
    return false;
  size_t next;
  if (gi + 1 < g->num_glyphs)
    next = sl->start + (size_t)g->log_clusters[gi + 1];
  else if (k + 1 < slices->len) {
    const ShapeSlice *n = &g_array_index(slices, ShapeSlice, k + 1);
    if (n->glyphs->num_glyphs == 0)
      return false;
    next = n->start + (size_t)n->glyphs->log_clusters[0];
  } else
    return false;
  if (next <= byte || next >= flen || (flags[next] & F_CODE) ||
      ((flags[byte] | flags[next]) & F_IMAGE))
    return false; /* the same cluster (a mark), or right to left, or an image */
  return !glyph_in_glue(meta, s, gk, e, next);
}

/* The letter spacing of a justified line stretched by `ratio`: the part of
 * its stretch beyond what brings the word spaces to st.track_from times
 * their width goes between letters, up to st.track_max_em per gap (style.h).
 * Returns the glue ratio that remains, and the spacing per gap in *track. */
static double line_tracking(const Build *c, const ParaStyle *ps, const GArray *items,
                            const GArray *meta, size_t s, size_t e, const GArray *slices,
                            const guint8 *flags, size_t flen, double ratio, double *track)
{
  *track = 0;
  if (c->st->track_max_em <= 0 || c->st->track_from < 1) /* style.c: 0 (off) or >= 1 */
    return ratio;
  double nat = 0, str = 0;
  for (size_t i = s; i < e; i++) {
    const LbItem *it = &g_array_index(items, LbItem, i);
    if (it->type == LB_GLUE && it->stretch < LB_FIL) {
      nat += it->width;
      str += it->stretch;
    }
  }
  double slack = ratio * str, keep = (c->st->track_from - 1) * nat;
  if (str <= 0 || slack <= keep)
    return ratio;
  size_t gaps = 0, gk = s;
  for (guint k = 0; k < slices->len; k++) {
    const ShapeSlice *sl = &g_array_index(slices, ShapeSlice, k);
    for (int gi = 0; gi < sl->glyphs->num_glyphs; gi++) {
      size_t byte = sl->start + (size_t)sl->glyphs->log_clusters[gi];
      if (!glyph_in_glue(meta, s, &gk, e, byte) &&
          letter_gap_after(slices, k, gi, meta, s, e, flags, flen, &gk))
        gaps++;
    }
  }
  if (gaps == 0)
    return ratio;
  double letters = MIN(slack - keep, gaps * c->st->track_max_em * ps->size_pt);
  *track = letters / gaps;
  return (slack - letters) / str;
}

/* The widest a justified line's word spaces may be, in natural spaces
 * (issue 13's maximum): a line that would need more is set ragged. */
#define MAX_SPACE 2.0

/* Would the word spaces of items [s, e) stretched by ratio exceed
 * MAX_SPACE times their natural width? (Spaces inside code do not
 * stretch and are not counted.) */
static bool too_loose(const GArray *items, size_t s, size_t e, double ratio)
{
  double nat = 0, str = 0;
  bool cjk = false;
  for (size_t i = s; i < e; i++) {
    const LbItem *it = &g_array_index(items, LbItem, i);
    if (it->type == LB_GLUE && it->width > 0 && it->stretch > 0 && it->stretch < LB_FIL) {
      nat += it->width; /* word spaces (not CJK's glue between characters) */
      str += it->stretch;
    }
    cjk |= it->type == LB_GLUE && it->width == 0 && it->stretch > 0 && it->stretch < LB_FIL;
  }
  /* CJK: at most CJK_MAX_GAP_EM between two characters */
  if (cjk && ratio * CJK_STRETCH_EM > CJK_MAX_GAP_EM)
    return true;
  return nat > 0 && nat + ratio * str > MAX_SPACE * nat + 1e-6;
}

/* An inline image set on the current line, its left edge at x. */
typedef struct {
  double x;
  const ImgBox *box;
} Placed;

/* set_para's arrays, kept by the shaper (LayShaper.bufs) from paragraph to
 * paragraph with their room: a paragraph allocates none of them anew nor
 * grows them from empty (a set of them per set_para running: a table
 * cell's paragraph may be set while another is). */
typedef struct ParaBufs {
  GArray *items, *meta; /* LbItem, Meta */
  GByteArray *flags;    /* span_flags */
  GArray *imgs;         /* ImgBox */
  GArray *lines;        /* LbLine */
  GArray *slices;       /* ShapeSlice (emptied: none owns a font or glyphs) */
  GArray *xs;           /* XPos */
  GArray *placed;       /* Placed */
  GArray *vis;          /* guint: a line's slices in visual order */
  GByteArray *levels;   /* visual_order's embedding levels */
  GArray *points;       /* build_items' (made there) */
} ParaBufs;

static ParaBufs *bufs_take(LayShaper *shp)
{
  if (shp->bufs->len)
    return g_ptr_array_steal_index_fast(shp->bufs, shp->bufs->len - 1);
  ParaBufs *b = g_new0(ParaBufs, 1);
  b->items = g_array_new(FALSE, TRUE, sizeof(LbItem));
  b->meta = g_array_new(FALSE, TRUE, sizeof(Meta));
  b->flags = g_byte_array_new();
  b->imgs = g_array_new(FALSE, FALSE, sizeof(ImgBox));
  b->lines = g_array_new(FALSE, TRUE, sizeof(LbLine));
  b->slices = g_array_new(FALSE, TRUE, sizeof(ShapeSlice));
  b->xs = g_array_new(FALSE, FALSE, sizeof(XPos));
  b->placed = g_array_new(FALSE, FALSE, sizeof(Placed));
  b->vis = g_array_new(FALSE, FALSE, sizeof(guint));
  b->levels = g_byte_array_new();
  return b;
}

/* b given back to shp, emptied (its room kept). */
static void bufs_give(LayShaper *shp, ParaBufs *b)
{
  for (guint k = 0; k < b->slices->len; k++)
    shape_slice_clear(&g_array_index(b->slices, ShapeSlice, k));
  g_array_set_size(b->slices, 0);
  g_array_set_size(b->items, 0);
  g_array_set_size(b->meta, 0);
  g_array_set_size(b->imgs, 0);
  g_array_set_size(b->lines, 0);
  g_array_set_size(b->xs, 0);
  g_array_set_size(b->placed, 0);
  g_ptr_array_add(shp->bufs, b);
}

void para_bufs_free(GPtrArray *bufs)
{
  for (guint i = 0; i < bufs->len; i++) {
    ParaBufs *b = bufs->pdata[i];
    g_array_free(b->items, TRUE);
    g_array_free(b->meta, TRUE);
    g_byte_array_free(b->flags, TRUE);
    g_array_free(b->imgs, TRUE);
    g_array_free(b->lines, TRUE);
    g_array_free(b->slices, TRUE);
    g_array_free(b->xs, TRUE);
    g_array_free(b->placed, TRUE);
    g_array_free(b->vis, TRUE);
    g_byte_array_free(b->levels, TRUE);
    if (b->points)
      g_array_free(b->points, TRUE);
    g_free(b);
  }
  g_ptr_array_free(bufs, TRUE);
}

/* A paragraph being set: shaped once, its break items, and per line the
 * slices of its glyphs and where each byte landed. */
typedef struct {
  ParaBufs *bufs;
  Para *p;
  const ParaStyle *ps;
  bool ragged;
  Shaped *sh;
  GArray *items;  /* LbItem */
  GArray *meta;   /* Meta, one per item */
  guint8 *flags;  /* span_flags(p) */
  GArray *slices; /* ShapeSlice: the current line's glyphs */
  GArray *xs;     /* XPos: the current line's glyph positions */
  bool bidi;      /* the current line has right-to-left slices */
  bool rtl;       /* the paragraph's direction is right to left */
  GArray *imgs;   /* ImgBox: the inline images, by byte */
  GArray *placed; /* Placed: the current line's images */
  bool cjk;       /* a justified paragraph with CJK glue (cjk_glue_at has some to find) */
} Setting;

/* A URL note's letter set against its word extracts as a word of its own:
 * its text starts with a zero-width space (which the first glyph's
 * cluster covers), so that "site" + "a" is not read as "sitea". */
static void mark_text(LayItem *it)
{
  char *t = g_strconcat("\xE2\x80\x8B", it->text, NULL);
  g_free(it->text);
  it->text = t;
  for (int gi = 0; gi < it->glyphs->num_glyphs; gi++)
    if (it->glyphs->log_clusters[gi] > 0)
      it->glyphs->log_clusters[gi] += 3;
}

/* The visual order of a line's slices (UAX #9, rule L2): vis[i] is the
 * slice drawn i-th from the left. From the highest embedding level down to
 * the lowest odd one, every run of slices at that level or higher is
 * reversed (the glyphs of a right-to-left slice are already in visual
 * order). Returns whether any slice is right to left. */
static bool visual_order(const Shaped *sh, const GArray *slices, guint *vis, GByteArray *levels)
{
  guint n = slices->len;
  g_byte_array_set_size(levels, n + 1);
  guint8 *lv = levels->data, hi = 0, lo_odd = G_MAXUINT8;
  for (guint i = 0; i < n; i++) {
    const ShapeRun *r = shape_run_at(sh, g_array_index(slices, ShapeSlice, i).start);
    lv[i] = r ? r->item->analysis.level : 0;
    vis[i] = i;
    hi = MAX(hi, lv[i]);
    if (lv[i] % 2)
      lo_odd = MIN(lo_odd, lv[i]);
  }
  for (int level = hi; level >= lo_odd && level > 0; level--)
    for (guint i = 0; i < n;) {
      guint j = i;
      while (j < n && lv[vis[j]] >= level)
        j++;
      for (guint l = i, r = j; r > l + 1; l++, r--) { /* reverse [i, j) */
        guint t = vis[l];
        vis[l] = vis[r - 1];
        vis[r - 1] = t;
      }
      i = j > i ? j : i + 1;
    }
  return lo_odd != G_MAXUINT8;
}

/* Is the item a CJK glue (items.c: no width, between two characters)? */
static bool is_cjk_glue(const Meta *m, const LbItem *it)
{
  return m->kind == M_GLUE && it->width == 0 && it->stretch > 0 && it->stretch < LB_FIL;
}

/* Has the paragraph any CJK glue? (When not, none is looked for glyph by
 * glyph.) */
static bool any_cjk_glue(const GArray *items, const GArray *meta)
{
  for (guint i = 0; i < items->len; i++)
    if (is_cjk_glue(&g_array_index(meta, Meta, i), &g_array_index(items, LbItem, i)))
      return true;
  return false;
}

/* The stretch of a CJK glue of the line [s, e) at byte `at`, or 0. */
static double cjk_glue_at(const GArray *items, const GArray *meta, size_t s, size_t e, size_t at)
{
  size_t lo = s, hi = e; /* the first item ending at or after `at` */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g_array_index(meta, Meta, mid).b < at)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < e && g_array_index(meta, Meta, lo).b == at; lo++) {
    const Meta *m = &g_array_index(meta, Meta, lo);
    const LbItem *it = &g_array_index(items, LbItem, lo);
    if (m->a == at && is_cjk_glue(m, it))
      return it->stretch;
  }
  return 0;
}

/* The glyphs of slice k of the line [s, e) set from x: its glue stretched or
 * shrunk by ratio, its letters spaced by track; each glyph's position into
 * S->xs. Its item into *it; returns the x after it. */
static double set_slice(Setting *S, guint k, size_t s, size_t e, double ratio, double track,
                        double x, LayItem *out)
{
  ShapeSlice *sl = &g_array_index(S->slices, ShapeSlice, k);
  PangoGlyphString *g = sl->glyphs;
  size_t flen = S->p->text->len, gk = s;
  double x0 = x;
  /* every glyph's position: the array sized once, not grown glyph by glyph */
  guint x_first = S->xs->len;
  g_array_set_size(S->xs, x_first + (guint)g->num_glyphs);
  XPos *xpos = &g_array_index(S->xs, XPos, x_first);
  for (int gi = 0; gi < g->num_glyphs; gi++) {
    size_t byte = sl->start + (size_t)g->log_clusters[gi];
    bool glue = glyph_in_glue(S->meta, s, &gk, e, byte);
    double w = g->glyphs[gi].geometry.width / (double)PANGO_SCALE;
    if (flag_at(S->flags, flen, byte) & F_IMAGE) {
      /* no glyph: the image's room, the image drawn there (set_glyphs) */
      const ImgBox *ib = image_at(S->imgs, byte);
      bool first = gi == 0 || g->log_clusters[gi - 1] != g->log_clusters[gi];
      w = ib && first ? ib->w : 0;
      g->glyphs[gi].glyph = PANGO_GLYPH_EMPTY;
      g->glyphs[gi].geometry.width = (int)lround(w * PANGO_SCALE);
      w = g->glyphs[gi].geometry.width / (double)PANGO_SCALE;
      if (ib && first) {
        Placed pl = {x, ib};
        g_array_append_val(S->placed, pl);
      }
    } else if (glue) {
      if (ratio != 0) {
        const LbItem *gl = &g_array_index(S->items, LbItem, gk);
        double delta = ratio > 0 ? ratio * gl->stretch : ratio * gl->shrink;
        if (gl->width > 0)
          w += delta * (w / gl->width);
        g->glyphs[gi].geometry.width = (int)lround(w * PANGO_SCALE);
        w = g->glyphs[gi].geometry.width / (double)PANGO_SCALE;
      }
    } else if (track > 0 &&
               letter_gap_after(S->slices, k, gi, S->meta, s, e, S->flags, flen, &gk)) {
      w += track;
      g->glyphs[gi].geometry.width = (int)lround(w * PANGO_SCALE);
      w = g->glyphs[gi].geometry.width / (double)PANGO_SCALE;
    }
    /* CJK: the glue after the cluster spread after its last glyph */
    if (ratio > 0 && !glue && S->cjk) {
      size_t next = gi + 1 < g->num_glyphs ? sl->start + (size_t)g->log_clusters[gi + 1] : sl->end;
      double st = next > byte ? cjk_glue_at(S->items, S->meta, s, e, next) : 0;
      if (st > 0) {
        w += ratio * st;
        g->glyphs[gi].geometry.width = (int)lround(w * PANGO_SCALE);
        w = g->glyphs[gi].geometry.width / (double)PANGO_SCALE;
      }
    }
    xpos[gi] = (XPos){byte, x, w};
    x += w;
  }
  LayItem it = {.kind = LAY_GLYPHS,
                .x_pt = x0,
                .y_pt = S->ps->base_pt - sl->rise_pt,
                .font = sl->font,
                .glyphs = g,
                .text = g_strndup(S->sh->text + sl->start, sl->end - sl->start)};
  if (letter_mark_at(S->flags, flen, sl->start))
    mark_text(&it);
  *out = it; /* the glyphs and the font move to the item when the line is set */
  return x;
}

/* The images placed on the current line into li_items, each a Figure
 * standing on the baseline (the PDF's Figure tags; archive_fig.c gives
 * them their alt text). */
static void images_items(const Setting *S, GArray *li_items)
{
  for (guint k = 0; k < S->placed->len; k++) {
    const Placed *pl = &g_array_index(S->placed, Placed, k);
    add_tag(li_items, LAY_TAG_BEGIN, "Figure");
    LayItem it = {.kind = LAY_IMAGE,
                  .x_pt = pl->x,
                  .y_pt = S->ps->base_pt - pl->box->h,
                  .w_pt = pl->box->w,
                  .h_pt = pl->box->h,
                  .res = pl->box->node->as.image.res,
                  .pos = pl->box->node->pos};
    g_array_append_val(li_items, it);
    add_tag(li_items, LAY_TAG_END, "Figure");
  }
}

/* The room the current line's images need above the line's top (they
 * stand on the baseline), or 0. */
static double images_above(const Setting *S)
{
  double up = 0;
  for (guint k = 0; k < S->placed->len; k++)
    up = MAX(up, g_array_index(S->placed, Placed, k).box->h - S->ps->base_pt);
  return up;
}

/* Where a line's end mark goes, w wide, making room for it: after the
 * glyphs of the line's last character (the last slice, items[first..] in
 * logical order), in its direction. In a line with right-to-left slices
 * that is not the line's right end: what lies right of it moves right. */
static double end_mark_x(Setting *S, GArray *li_items, guint first, double x_end, double w)
{
  guint n = S->slices->len;
  if (!S->bidi || n == 0)
    return x_end;
  const ShapeRun *r = shape_run_at(S->sh, g_array_index(S->slices, ShapeSlice, n - 1).start);
  const LayItem *last = &g_array_index(li_items, LayItem, first + n - 1);
  double at = last->x_pt;
  if (!r || r->item->analysis.level % 2 == 0)
    at += pango_glyph_string_get_width(last->glyphs) / (double)PANGO_SCALE;
  for (guint i = first; i < li_items->len; i++)
    if (g_array_index(li_items, LayItem, i).x_pt >= at - 1e-6)
      g_array_index(li_items, LayItem, i).x_pt += w;
  for (guint i = 0; i < S->xs->len; i++)
    if (g_array_index(S->xs, XPos, i).x >= at - 1e-6)
      g_array_index(S->xs, XPos, i).x += w;
  return at;
}

/* A hyphen at a hyphenation point, or the continuation mark of a code span
 * or URL broken at its last resort, at the end of the line of items [s, e)
 * and bytes [.., b) (its slices' items from `first`): the only re-shaping.
 * *x: the line's right end, moved by the mark's width. */
static void end_mark(Setting *S, size_t e, size_t b, guint first, double *x, GArray *li_items)
{
  guint8 mk = e < S->meta->len ? g_array_index(S->meta, Meta, e).mark : MK_NONE;
  if (mk == MK_NONE || b == 0)
    return;
  PangoFont *f = NULL;
  PangoGlyphString *hg = shape_extra(S->sh, b - 1, mk == MK_CONT ? CONT_MARK : "-", &f);
  if (!f) {
    pango_glyph_string_free(hg);
    return;
  }
  for (int gi = 0; gi < hg->num_glyphs; gi++)
    hg->log_clusters[gi] = 0;
  double w = pango_glyph_string_get_width(hg) / (double)PANGO_SCALE;
  LayItem it = {.kind = LAY_GLYPHS,
                .x_pt = end_mark_x(S, li_items, first, *x, w),
                .y_pt = S->ps->base_pt,
                .font = f,
                .glyphs = hg,
                .gray = mk == MK_CONT ? 0.45 : 0,
                .text = g_strdup(mk == MK_CONT ? CONT_MARK : "\xC2\xAD")};
  g_array_append_val(li_items, it);
  *x += w;
}

/* The glyphs of line ln (items [s, e), bytes [a, b)) into li_items from x,
 * in visual order, its glue stretched or shrunk by ratio and its letters
 * spaced when justified, a hyphen at an automatic hyphenation point.
 * Returns the x after the line. */
static double set_glyphs(Build *c, Setting *S, const LbLine *ln, size_t s, size_t e, size_t a,
                         size_t b, double x, GArray *li_items)
{
  const ParaStyle *ps = S->ps;
  GArray *slices = S->slices, *meta = S->meta;
  double ratio = (!S->ragged && ps->justify) ? ln->ratio : 0;
  if (ratio < -1)
    ratio = -1;
  g_array_set_size(slices, 0);
  g_array_set_size(S->xs, 0);
  g_array_set_size(S->placed, 0);
  if (a < b)
    shape_slices(S->sh, a, b, slices);
  double track = 0; /* letter spacing of this line, points per gap */
  size_t flen = S->p->text->len;
  /* a line the breaker took as ragged (past its max_ratio, weighed as
   * ragged) is set ragged, not rescued by letter spacing */
  if (ratio > 0 && too_loose(S->items, s, e, ratio))
    ratio = 0;
  if (ratio > 0)
    ratio = line_tracking(c, ps, S->items, meta, s, e, slices, S->flags, flen, ratio, &track);
  if (ratio > 0 && too_loose(S->items, s, e, ratio)) {
    ratio = 0; /* set ragged rather than spread (issue 16) */
    track = 0;
  }
  /* set left to right in visual order; the items in logical order, so
   * that the text extracts in reading order */
  guint n = slices->len;
  g_array_set_size(S->bufs->vis, n + 1);
  guint *vis = (guint *)(void *)S->bufs->vis->data;
  S->bidi = visual_order(S->sh, slices, vis, S->bufs->levels);
  guint first = li_items->len;
  g_array_set_size(li_items, first + n);
  for (guint k = 0; k < n; k++)
    x = set_slice(S, vis[k], s, e, ratio, track, x,
                  &g_array_index(li_items, LayItem, first + vis[k]));
  for (guint k = 0; k < n; k++) { /* now owned by the items */
    g_array_index(slices, ShapeSlice, k).font = NULL;
    g_array_index(slices, ShapeSlice, k).glyphs = NULL;
  }
  images_items(S, li_items);
  XPos xend = {b, x, 0};
  g_array_append_val(S->xs, xend);
  end_mark(S, e, b, first, &x, li_items);
  return x;
}

/* Is the paragraph's direction right to left? pango's itemising takes it
 * from its first strong character (the context's direction is weak): the
 * paragraph's embedding level is then 1, so no run is below it. */
static bool rtl_paragraph(const Shaped *sh)
{
  for (guint i = 0; i < sh->runs->len; i++)
    if (g_array_index(sh->runs, ShapeRun, i).item->analysis.level == 0)
      return false;
  return sh->runs->len > 0;
}

/* Move every item of a line dx to the right and dy down. */
static void items_shift(GArray *items, double dx, double dy)
{
  for (guint i = 0; i < items->len; i++) {
    g_array_index(items, LayItem, i).x_pt += dx;
    g_array_index(items, LayItem, i).y_pt += dy;
  }
}

static void note_add(GPtrArray **notes, gpointer note)
{
  if (!*notes)
    *notes = g_ptr_array_new();
  g_ptr_array_add(*notes, note);
}

/* The links, strike-outs and footnote references of the line of bytes
 * [a, b) into li_items (*span0: the first span that may reach it; spans are
 * sorted by start). Returns the notes first referenced on it, or NULL. */
static GPtrArray *line_spans(Build *c, Setting *S, size_t a, size_t b, guint *span0,
                             GArray *li_items)
{
  const ParaStyle *ps = S->ps;
  GArray *spans = S->p->spans;
  GPtrArray *notes = NULL;
  while (*span0 < spans->len && g_array_index(spans, Span, *span0).b <= a)
    (*span0)++;
  for (guint k = *span0; k < spans->len; k++) {
    Span *sp = &g_array_index(spans, Span, k);
    if (sp->a >= b)
      break;
    if (sp->b <= a)
      continue;
    double x0, x1;
    x_range(S->xs, MAX(sp->a, a), MIN(sp->b, b), S->bidi, &x0, &x1);
    switch (sp->kind) {
    case SPAN_LINK:
      if (sp->dest || sp->href)
        add_link(li_items, x0, 0, x1 - x0, ps->leading_pt, sp->dest, sp->href);
      break;
    case SPAN_STRIKE:
      add_rule(li_items, LAY_RULE, x0, ps->base_pt - ps->size_pt * 0.27, x1 - x0, 0.5, 0);
      break;
    case SPAN_IMGALT: /* an image that cannot be drawn: a frame around its alt text */
      add_rule(li_items, LAY_FRAME, x0 - 1, ps->base_pt - ps->size_pt * 0.85, x1 - x0 + 2,
               ps->size_pt * 1.1, 0.45);
      break;
    case SPAN_URLNOTE:
      add_link(li_items, x0, 0, x1 - x0, ps->leading_pt, sp->dest, NULL);
      if (!c->env->url_end && !c->note_mode)
        note_add(&notes, sp->key);
      break;
    case SPAN_FNREF:
      add_link(li_items, x0, 0, x1 - x0, ps->leading_pt, sp->dest, NULL);
      if (!g_hash_table_contains(c->store->dests, sp->self)) {
        add_dest(li_items, sp->self, x0, 0);
        g_hash_table_add(c->store->dests, g_strdup(sp->self));
      }
      if (sp->node->as.fnref.ref_index == 1 && !c->note_mode)
        note_add(&notes, sp->node->as.fnref.note);
      else if (sp->node->as.fnref.ref_index == 1 && c->note_kids) {
        /* a note first referenced inside a note: it goes to the same
         * foot, after the note that calls it */
        g_ptr_array_add(c->note_kids, sp->node->as.fnref.note);
      }
      break;
    default: break;
    }
  }
  return notes;
}

/* Does line ln end inside a word (a hyphen or a continuation mark)? */
static bool ends_broken(const Setting *S, const LbLine *ln)
{
  return ln->hyphen ||
         (ln->end < S->meta->len && g_array_index(S->meta, Meta, ln->end).mark != MK_NONE);
}

/* Does line li of lines end the paragraph or at a hard line break (li < 0: no)? */
static bool ends_hard(const Setting *S, const GArray *lines, int li)
{
  if (li < 0)
    return false;
  if (li + 1 >= (int)lines->len)
    return true;
  size_t e = g_array_index(lines, LbLine, li).end;
  if (e >= S->items->len)
    return true;
  const LbItem *it = &g_array_index(S->items, LbItem, e);
  return it->type == LB_PENALTY && it->penalty <= -LB_INFINITY;
}

/* The paragraph's inline images (its SPAN_IMAGE spans) with the size each
 * is drawn at, by byte. A line of a vertical list grows to hold a tall
 * image; a line set for its caller (out: a table cell) cannot, and its
 * images stay within its room above the baseline. */
static GArray *image_boxes(Build *c, const Para *p, const ParaStyle *ps, bool out, GArray *imgs)
{
  double max_h = out ? MAX(ps->base_pt, ps->size_pt * 0.75) : c->env->text_h * 0.6;
  for (guint i = 0; i < p->spans->len; i++) {
    const Span *sp = &g_array_index(p->spans, Span, i);
    if (sp->kind != SPAN_IMAGE)
      continue;
    ImgBox b = {sp->a, 0, 0, sp->node};
    /* sized against the first line's room, or the full measure when a
     * space before it lets it go to a later line ("width=100%") */
    double room = ps->width_pt - ps->indent_pt;
    if (sp->a > 0 && p->text->str[sp->a - 1] == ' ')
      room = ps->width_pt;
    inline_image_size(c, sp->node, ps->size_pt, room, max_h, &b.w, &b.h);
    g_array_append_val(imgs, b);
  }
  return imgs; /* in order: a SPAN_IMAGE is added as its character is */
}

/* S's items broken into lines (S's array of LbLine). */
static GArray *break_lines(Build *c, Setting *S, LbParams *lp)
{
  const ParaStyle *ps = S->ps;
  double widths[2] = {ps->width_pt - ps->indent_pt, ps->width_pt};
  GArray *lines = S->bufs->lines;
  *lp = c->env->lbp;
  /* a line looser than MAX_SPACE (the glue stretches by half a space per
   * unit of ratio) is set ragged (set_glyphs): from the emergency pass on
   * the breaker weighs it as one flawed line (badness: the style's [body] ragged-cost,
   * about one line with word spaces of 1.7), not by its glue, so that a
   * paragraph whose unbreakable code leaves one line short sets that line
   * ragged rather than spread the shortfall over three loose lines; in a
   * paragraph with last-resort breaks (code, URLs, long words) such a
   * break can beat it in the last pass. A last line under four
   * characters costs extra. */
  if (lp->max_ratio <= 0 && !S->ragged && S->ps->justify) {
    lp->max_ratio = (MAX_SPACE - 1) / 0.5;
    if (lp->ragged_badness <= 0)
      lp->ragged_badness = c->env->st->ragged_cost;
  }
  if (lp->short_last_width <= 0)
    lp->short_last_width = 2 * ps->size_pt;
  lb_break((const LbItem *)S->items->data, S->items->len, widths, 2, lp,
           S->ragged ? LB_GREEDY : c->env->mode, lines);
  return lines;
}

/* A set line: where it starts in the text, its items, the notes first
 * referenced on it, the room its images need above its top. */
typedef struct {
  size_t a, b;
  GArray *items;
  GPtrArray *notes;
  double grow;
} SetLine;

/* Line li of lines set: its glyphs, images and spans. */
static SetLine set_line(Build *c, Setting *S, const GArray *lines, int li, guint *span0,
                        SetInfo *info)
{
  const ParaStyle *ps = S->ps;
  const LbLine *ln = &g_array_index(lines, LbLine, li);
  size_t s = ln->start, e = ln->end;
  while (s < e && g_array_index(S->meta, Meta, s).kind != M_BOX)
    s++;
  size_t last = e;
  while (last > s && g_array_index(S->meta, Meta, last - 1).kind != M_BOX)
    last--;
  SetLine L = {0};
  L.a = s < e ? g_array_index(S->meta, Meta, s).a : 0;
  L.b = last > s ? g_array_index(S->meta, Meta, last - 1).b : L.a;
  L.items = items_new();
  double x0 = ps->left_pt + (li == 0 ? ps->indent_pt : 0), x1 = x0;
  /* the page list's layout wants where the lines start and how tall they
   * are, not their glyphs: set only a line that may hold an inline image
   * (its room makes the line taller) */
  if (!c->env->marks_only || S->imgs->len > 0) {
    x1 = set_glyphs(c, S, ln, s, e, L.a, L.b, x0, L.items);
    double lw = x1 - ps->left_pt;
    if (lw > info->max_w)
      info->max_w = lw;
    info->last_w = lw;
  }
  L.notes = line_spans(c, S, L.a, L.b, span0, L.items);
  if (S->rtl) /* mirrored: flush right, the indents (block and first line) at the right */
    items_shift(L.items, ps->left_pt + ps->width_pt - x0 - x1, 0);
  L.grow = images_above(S);
  return L;
}

/* Shape p once, break it, and either emit its lines into c->vl (out ==
 * NULL) or append them to `out` (cells: items relative to the cell, one
 * GArray of items per line). `tag` wraps the lines (NULL: none). */
SetInfo set_para(Build *c, Para *p, const ParaStyle *ps, bool ragged, const char *tag,
                 BookNode *block, GPtrArray *out)
{
  SetInfo info = {0};
  Setting S = {.p = p, .ps = ps, .ragged = ragged};
  pango_context_set_font_description(c->shp->pctx, ps->desc);
  if (c->dir && !out) /* a block's dir attribute: the paragraph's direction */
    pango_context_set_base_dir(c->shp->pctx,
                               c->dir > 0 ? PANGO_DIRECTION_RTL : PANGO_DIRECTION_LTR);
  S.sh = p->shaped ? p->shaped
                   : shape_text(c->shp->pctx, p->text->str, p->text->len, p->attrs, c->shp->plang);
  bool ahead = p->shaped && p->ahead;
  p->shaped = NULL;
  pango_context_set_base_dir(c->shp->pctx, PANGO_DIRECTION_WEAK_LTR);
  S.rtl = !out && (ps->mirror || (ps->rtl_right && rtl_paragraph(S.sh)));
  /* the shaper's arrays, emptied, with the room the paragraphs before
   * made (GArray grows by doubling and keeps it: after the first long
   * paragraph none grows) */
  ParaBufs *B = S.bufs = bufs_take(c->shp);
  S.items = B->items;
  S.meta = B->meta;
  S.flags = span_flags(p, B->flags); /* for the items and the letter spacing */
  S.imgs = image_boxes(c, p, ps, out != NULL, B->imgs);
  build_items(c, p, S.sh, ps, ragged, S.flags, S.imgs, S.items, S.meta, &B->points);
  S.cjk = !ragged && ps->justify && any_cjk_glue(S.items, S.meta);
  LbParams lp;
  GArray *lines = break_lines(c, &S, &lp);
  if (tag && !out)
    open_tag(c, tag);
  S.slices = B->slices;
  S.xs = B->xs;
  S.placed = B->placed;
  int nl = (int)lines->len;
  info.nlines = nl;
  if (S.rtl) /* the labels before the first line (list marks, task boxes) go to its right */
    items_mirror(c->pending, ps->left_pt + ps->width_pt);
  g_array_sort(p->spans, cmp_span); /* by start: each line looks at its own */
  guint span0 = 0;
  for (int li = 0; li < nl; li++) {
    SetLine L = set_line(c, &S, lines, li, &span0, &info);
    if (out) {
      g_ptr_array_add(out, L.items);
      for (guint k = 0; L.notes && c->cell_notes && k < L.notes->len; k++)
        g_ptr_array_add(c->cell_notes, L.notes->pdata[k]);
      if (L.notes)
        g_ptr_array_free(L.notes, TRUE);
      continue;
    }
    if (li == nl - 1 && tag)
      add_tag(L.items, LAY_TAG_END, tag);
    /* orphans and widows: no page break after the first or before the last
     * line, of the paragraph or of a part of it that a hard line break ends
     * (a line that ends a sentence alone at a page's head reads as a widow) */
    double pen = 0;
    if (li > 0 && (li == 1 || li == nl - 1 ||
                   (!ends_hard(&S, lines, li - 1) &&
                    (ends_hard(&S, lines, li) || ends_hard(&S, lines, li - 2)))))
      pen = LB_INFINITY;
    else if (li > 0 && ends_broken(&S, &g_array_index(lines, LbLine, li - 1)))
      pen = lp.broken_penalty; /* TeX's \brokenpenalty: a page after a hyphen */
    if (L.grow > 0)            /* a tall image: the line grows, its baseline moves down */
      items_shift(L.items, 0, L.grow);
    c->rtl_line = S.rtl;
    VItem *v = emit_line(c, L.items, ps->leading_pt + L.grow, pen);
    c->rtl_line = false;
    v->notes = L.notes;
    if (L.a < L.b)
      para_mark(p, L.a, &v->mark_node, &v->mark_off);
    if (!v->mark_node)
      v->mark_node = block;
  }
  if (nl == 0 && tag && !out)
    g_array_set_size(c->pending, c->pending->len - 1); /* nothing to tag */
  bufs_give(c->shp, B);
  if (ahead)
    ahead_done(c->shp->ahead, S.sh);
  else
    shape_free(S.sh);
  return info;
}
