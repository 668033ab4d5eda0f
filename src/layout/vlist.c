/* layout/vlist.c: layout items (glyph runs, rules, tags, links,
 * destinations) and the vertical list: lines, glue and penalties, as in
 * TeX, built one block after another by a Build. */
#include "layout/internal.h"

#include <string.h>

void lay_item_clear(LayItem *it)
{
  if (it->font)
    g_object_unref(it->font);
  if (it->glyphs)
    pango_glyph_string_free(it->glyphs);
  g_free(it->text);
  if (it->kind == LAY_LINK || it->kind == LAY_DEST) {
    g_free(it->dest);
    g_free(it->uri);
  }
  memset(it, 0, sizeof *it);
}

void lay_item_copy(LayItem *dst, const LayItem *src)
{
  *dst = *src;
  if (src->font)
    dst->font = g_object_ref(src->font);
  if (src->glyphs)
    dst->glyphs = pango_glyph_string_copy(src->glyphs);
  dst->text = g_strdup(src->text);
  if (src->kind == LAY_LINK || src->kind == LAY_DEST) {
    dst->dest = g_strdup(src->dest);
    dst->uri = g_strdup(src->uri);
  }
}

void items_free(GArray *items)
{
  if (!items)
    return;
  for (guint i = 0; i < items->len; i++)
    lay_item_clear(&g_array_index(items, LayItem, i));
  g_array_free(items, TRUE);
}

void lay_items_free(GArray *items)
{
  items_free(items);
}

double items_right(const GArray *items, double from)
{
  double right = from;
  for (guint q = 0; q < items->len; q++) {
    const LayItem *g = &g_array_index(items, LayItem, q);
    if (g->kind == LAY_GLYPHS)
      right = MAX(right, g->x_pt + pango_glyph_string_get_width(g->glyphs) / (double)PANGO_SCALE);
  }
  return right;
}

/* The width of item g (a glyph run's advance; 0 for a tag or destination). */
static double item_width(const LayItem *g)
{
  if (g->kind == LAY_GLYPHS && g->glyphs)
    return pango_glyph_string_get_width(g->glyphs) / (double)PANGO_SCALE;
  return g->w_pt;
}

void items_mirror(GArray *items, double r)
{
  for (guint i = 0; i < items->len;) {
    LayItem *g = &g_array_index(items, LayItem, i);
    if (g->kind != LAY_GLYPHS) { /* a rule, frame, link or destination on its own */
      if (g->kind != LAY_TAG_BEGIN && g->kind != LAY_TAG_END)
        g->x_pt = r - g->x_pt - item_width(g);
      i++;
      continue;
    }
    guint j = i; /* a run of glyph items: one label, kept in its order */
    double x0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE;
    for (; j < items->len && g_array_index(items, LayItem, j).kind == LAY_GLYPHS; j++) {
      const LayItem *h = &g_array_index(items, LayItem, j);
      x0 = MIN(x0, h->x_pt);
      x1 = MAX(x1, h->x_pt + item_width(h));
    }
    for (; i < j; i++)
      g_array_index(items, LayItem, i).x_pt += r - x1 - x0;
  }
}

GArray *items_new(void)
{
  return g_array_new(FALSE, TRUE, sizeof(LayItem));
}

void add_tag(GArray *items, LayKind kind, const char *tag)
{
  LayItem it = {.kind = kind, .tag = tag};
  g_array_append_val(items, it);
}

void add_rule(GArray *items, LayKind kind, double x, double y, double w, double h, double gray)
{
  LayItem it = {.kind = kind, .x_pt = x, .y_pt = y, .w_pt = w, .h_pt = h, .gray = gray};
  g_array_append_val(items, it);
}

void add_dest(GArray *items, const char *name, double x, double y)
{
  LayItem it = {.kind = LAY_DEST, .x_pt = x, .y_pt = y, .dest = g_strdup(name)};
  g_array_append_val(items, it);
}

void add_link(GArray *items, double x, double y, double w, double h, const char *dest,
              const char *uri)
{
  LayItem it = {.kind = LAY_LINK,
                .x_pt = x,
                .y_pt = y,
                .w_pt = w,
                .h_pt = h,
                .dest = g_strdup(dest),
                .uri = g_strdup(uri)};
  g_array_append_val(items, it);
}

/* Append src's items to dst, moved by (dx, dy); with `plain`, only what is
 * drawn (no tags, links or destinations: a repeated table header). */
void items_append(GArray *dst, const GArray *src, double dx, double dy, bool plain)
{
  for (guint i = 0; i < src->len; i++) {
    const LayItem *s = &g_array_index(src, LayItem, i);
    if (plain && (s->kind == LAY_TAG_BEGIN || s->kind == LAY_TAG_END || s->kind == LAY_LINK ||
                  s->kind == LAY_DEST))
      continue;
    LayItem d;
    lay_item_copy(&d, s);
    d.x_pt += dx;
    d.y_pt += dy;
    g_array_append_val(dst, d);
  }
}

/* Move src's items to the end of dst, shifted by (dx, dy); src is left empty. */
void items_move(GArray *dst, GArray *src, double dx, double dy)
{
  for (guint i = 0; i < src->len; i++) {
    LayItem *s = &g_array_index(src, LayItem, i);
    s->x_pt += dx;
    s->y_pt += dy;
  }
  g_array_append_vals(dst, src->data, src->len);
  g_array_set_size(src, 0);
}

void vitems_clear(GArray *vl, guint n)
{
  for (guint i = 0; i < n; i++) {
    VItem *v = &g_array_index(vl, VItem, i);
    items_free(v->items);
    if (v->notes)
      g_ptr_array_free(v->notes, TRUE);
  }
}

void vlist_free(GArray *vl)
{
  if (!vl)
    return;
  vitems_clear(vl, vl->len);
  g_array_free(vl, TRUE);
}

static VItem *vl_last_line(GArray *vl)
{
  for (guint i = vl->len; i-- > 0;) {
    VItem *v = &g_array_index(vl, VItem, i);
    if (v->kind == V_LINE)
      return v;
  }
  return NULL;
}

static void vl_glue(Build *c, double h, bool nobreak)
{
  VItem v = {.kind = V_GLUE, .h_pt = h, .nobreak = nobreak, .header = -1};
  g_array_append_val(c->vl, v);
}

static void vl_penalty(Build *c, double pen)
{
  VItem v = {.kind = V_PENALTY, .penalty = pen, .header = -1};
  g_array_append_val(c->vl, v);
}

/* Append a line. `pen` is the cost of a page break just before it (when
 * nothing else between it and the last line says so). The pending items
 * (tags, list labels) go first in it. Takes ownership of items. */
/* The rules of the open block quotes, h high, into items (the innermost
 * few: deep nesting would otherwise draw thousands per line); with
 * started_only, only those of quotes that already have a line. */
static void quote_rules(Build *c, GArray *items, double h, bool started_only)
{
  guint nq = c->quote_x->len, q0 = nq > 6 ? nq - 6 : 0;
  for (guint q = q0; q < nq; q++) {
    QuoteRule *r = &g_array_index(c->quote_x, QuoteRule, q);
    if (!r->started && !started_only)
      r->rtl = c->rtl_line; /* the quote's first line sets its side */
    if (r->x < c->measure * 0.5 && (r->started || !started_only))
      add_rule(items, LAY_RULE, r->rtl ? c->measure - r->x - 1.2 : r->x, 0, 1.2, h, 0.55);
  }
}

/* The space before a line inside a block quote that already has lines: a
 * line of that height holding only the rules, so that the rule runs
 * unbroken between the quote's blocks; no page break before it (one may
 * follow it, so the rule reaches the foot of the page). Returns false when
 * no open quote has a line yet. */
static bool quote_space(Build *c)
{
  bool any = false;
  for (guint q = 0; q < c->quote_x->len; q++)
    any |= g_array_index(c->quote_x, QuoteRule, q).started;
  if (!any)
    return false;
  GArray *items = items_new();
  quote_rules(c, items, c->space, true);
  VItem v = {.kind = V_LINE, .h_pt = c->space, .items = items, .header = -1};
  g_array_append_val(c->vl, v);
  return true;
}

VItem *emit_line(Build *c, GArray *items, double h, double pen)
{
  bool keep = c->keep > 0;
  if (keep)
    c->keep--;
  if (!c->first_block) {
    if (c->space > 0 && quote_space(c))
      vl_penalty(c, keep || pen >= LB_INFINITY ? LB_INFINITY : pen);
    else if (c->space > 0)
      vl_glue(c, c->space, keep || pen >= LB_INFINITY);
    else
      vl_penalty(c, keep ? LB_INFINITY : pen);
  }
  c->space = 0;
  c->first_block = false;
  /* the line's items are the list's (no copy) unless items wait before
   * them: then both, into an array of their size */
  GArray *all = items;
  if (c->pending->len) {
    all = g_array_sized_new(FALSE, TRUE, sizeof(LayItem), c->pending->len + items->len);
    g_array_append_vals(all, c->pending->data, c->pending->len);
    g_array_set_size(c->pending, 0); /* moved, not copied */
    g_array_append_vals(all, items->data, items->len);
    g_array_free(items, TRUE);
  }
  quote_rules(c, all, h, false);
  for (guint q = 0; q < c->quote_x->len; q++)
    g_array_index(c->quote_x, QuoteRule, q).started = true;
  VItem v = {.kind = V_LINE, .h_pt = h, .items = all, .header = -1, .rtl = c->rtl_line};
  g_array_append_val(c->vl, v);
  return &g_array_index(c->vl, VItem, c->vl->len - 1);
}

void want_space(Build *c, double s)
{
  if (s > c->space)
    c->space = s;
}

void open_tag(Build *c, const char *tag)
{
  add_tag(c->pending, LAY_TAG_BEGIN, tag);
}

/* Close a tag: after the last line, or in the pending items when they
 * still hold what it would close. */
void close_tag(Build *c, const char *tag)
{
  VItem *last = vl_last_line(c->vl);
  if (c->pending->len || !last)
    add_tag(c->pending, LAY_TAG_END, tag);
  else
    add_tag(last->items, LAY_TAG_END, tag);
}

void emit_dest_pending(Build *c, const char *name)
{
  if (!name || g_hash_table_contains(c->store->dests, name))
    return;
  add_dest(c->pending, name, left_of(c), 0);
  g_hash_table_add(c->store->dests, g_strdup(name));
}

void build_init(Build *c, const LayEnv *env, LayShaper *shp, LayStore *store, double measure)
{
  memset(c, 0, sizeof *c);
  c->env = env;
  c->st = env->st;
  c->shp = shp;
  c->store = store;
  c->measure = measure;
  c->vl = g_array_new(FALSE, TRUE, sizeof(VItem));
  c->pending = items_new();
  c->quote_x = g_array_new(FALSE, FALSE, sizeof(QuoteRule));
  c->first_block = true;
}

/* The vertical list built so far (the caller owns it); c has none after. */
GArray *build_take(Build *c)
{
  GArray *vl = c->vl;
  c->vl = NULL;
  return vl;
}

void build_clear(Build *c)
{
  vlist_free(c->vl);
  items_free(c->pending);
  g_array_free(c->quote_x, TRUE);
  c->vl = c->pending = c->quote_x = NULL;
}

/* Flush pending items (closing tags) into the last line, or a line of its own. */
void vl_end(Build *c)
{
  if (!c->pending->len)
    return;
  VItem *last = vl_last_line(c->vl);
  if (last) {
    g_array_append_vals(last->items, c->pending->data, c->pending->len);
    g_array_set_size(c->pending, 0);
  } else
    emit_line(c, items_new(), 0, 0);
}

double vl_height(const GArray *vl)
{
  double h = 0;
  for (guint i = 0; i < vl->len; i++) {
    const VItem *v = &g_array_index(vl, VItem, i);
    if (v->kind != V_PENALTY)
      h += v->h_pt;
  }
  return h;
}
