/* layout/table.c: tables: column widths from the content, cells that
 * wrap, the header row repeated on a new page, rows taller than a page cut
 * into bands. One vertical-list line per row. */
#include "layout/internal.h"

#include <math.h>
#include <string.h>

/* A table being set: its fonts and measures. */
typedef struct {
  BookNode *node;
  int ncols;
  double pad, leading, base;
  PangoFontDescription *d, *db; /* cells, header cells */
  double *cw;                   /* column widths (owned) */
  double tw;                    /* the table's width */
  GHashTable *measured;         /* cell BookNode -> Measured: the cells' shaping, set_cell's */
  bool whole;                   /* every column as wide as its widest word between spaces */
} Tab;

/* A cell as column_widths shaped it, for set_cell to take when the cell's
 * text, attributes and font come out the same (a URL note's mark, added
 * only when the cell is set, makes them differ): shaped once, not twice. */
typedef struct {
  Shaped *sh;
  PangoAttrList *attrs;
  const PangoFontDescription *d;
} Measured;

static void measured_free(gpointer v)
{
  Measured *m = v;
  shape_free(m->sh);
  pango_attr_list_unref(m->attrs);
  g_free(m);
}

/* Column widths from the content, as browsers' automatic table layout
 * sets them: each column's preferred width (its widest cell unbroken) and
 * minimum (its widest word: between spaces, so that a path, a URL or a
 * compound is not broken at a slash or a hyphen while the table has room;
 * when those do not fit together, between the text's break opportunities);
 * preferred widths when they fit, else each column its minimum plus a
 * share of the rest in proportion to what it lacks of its preferred
 * width, so that no word is broken while another column has room. Only
 * when the minimums alone do not fit are long words (URLs, long
 * identifiers) counted at most a share of the measure, and broken. */
static void column_widths(Build *c, Tab *t)
{
  int ncols = t->ncols;
  double pad = t->pad;
  double *nat = g_new0(double, ncols), *minw = g_new0(double, ncols),
         *word = g_new0(double, ncols), *whole = g_new0(double, ncols);
  c->measuring = true;
  for (BookNode *r = t->node->first_child; r; r = r->next) {
    int k = 0;
    for (BookNode *cell = r->first_child; cell && k < ncols; cell = cell->next, k++) {
      Para p;
      para_init(&p);
      para_inlines(c, &p, cell);
      const PangoFontDescription *d = r->as.row.header ? t->db : t->d;
      pango_context_set_font_description(c->shp->pctx, d);
      Shaped *sh = shape_text(c->shp->pctx, p.text->str, p.text->len, p.attrs, c->shp->plang);
      double wn = shape_width_pt(sh, 0, sh->len), wm = 0, ww = 0;
      size_t ws = 0, wws = 0;
      for (int ch = 0; ch <= sh->nchars; ch++) {
        bool end = ch == sh->nchars || sh->log[ch].is_white;
        if (end || sh->log[ch].is_line_break) {
          size_t be = (size_t)sh->char_byte[ch];
          wm = MAX(wm, shape_width_pt(sh, ws, be));
          ws = be;
        }
        /* a space's break (or a forced one) ends a whole word */
        if (end || sh->log[ch].is_mandatory_break ||
            (sh->log[ch].is_line_break && ch > 0 && sh->log[ch - 1].is_white)) {
          size_t be = (size_t)sh->char_byte[ch];
          ww = MAX(ww, shape_width_pt(sh, wws, be));
          wws = be;
        }
      }
      nat[k] = MAX(nat[k], wn + 2 * pad);
      word[k] = MAX(word[k], wm + 2 * pad);
      whole[k] = MAX(whole[k], ww + 2 * pad);
      Measured *m = g_new(Measured, 1);
      *m = (Measured){sh, pango_attr_list_ref(p.attrs), d};
      g_hash_table_replace(t->measured, cell, m);
      para_clear(&p);
    }
  }
  c->measuring = false;
  double avail = c->measure - left_of(c), sn = 0, sm = 0, swhole = 0;
  for (int k = 0; k < ncols; k++)
    swhole += whole[k];
  t->whole = swhole <= avail;
  if (t->whole) /* every word whole: a minimum between spaces */
    memcpy(word, whole, sizeof *word * (size_t)ncols);
  for (int k = 0; k < ncols; k++)
    sm += word[k];
  /* the minimums too wide together: a long word counts at most the
   * larger of 60 pt and an even share of the measure */
  double cap = sm <= avail ? G_MAXDOUBLE : MAX(60.0 + 2 * pad, avail / ncols);
  sm = 0;
  for (int k = 0; k < ncols; k++) {
    minw[k] = MIN(word[k], cap);
    sn += nat[k];
    sm += minw[k];
  }
  for (int k = 0; k < ncols; k++) {
    if (sn <= avail)
      t->cw[k] = nat[k];
    else if (sm < avail)
      t->cw[k] = minw[k] + (avail - sm) * (nat[k] - minw[k]) / MAX(sn - sm, 1e-6);
    else
      t->cw[k] = avail * minw[k] / sm;
  }
  t->tw = 0;
  for (int k = 0; k < ncols; k++)
    t->tw += t->cw[k];
  g_free(nat);
  g_free(minw);
  g_free(word);
  g_free(whole);
}

/* Cell k of a row at x: its lines into items, aligned in the column; its
 * first source node in *mark.
 * Returns the cell's height. */
static double set_cell(Build *c, const Tab *t, BookNode *cell, int k, bool hdr, double x,
                       GArray *items, BookNode **mark)
{
  Para p;
  para_init(&p);
  para_inlines(c, &p, cell);
  Measured *m = g_hash_table_lookup(t->measured, cell);
  if (m && m->sh && m->d == (hdr ? t->db : t->d) && m->sh->len == p.text->len &&
      memcmp(m->sh->text, p.text->str, p.text->len) == 0 &&
      pango_attr_list_equal(m->attrs, p.attrs))
    p.shaped = g_steal_pointer(&m->sh);
  ParaStyle ps = para_style(c, hdr ? t->db : t->d, t->leading);
  ps.left_pt = 0;
  ps.width_pt = t->cw[k] - 2 * t->pad;
  ps.base_pt = t->base;
  ps.hyphenate = false;
  ps.whole_words = t->whole;
  GPtrArray *lines = g_ptr_array_new();
  SetInfo si = set_para(c, &p, &ps, true, NULL, cell, lines);
  const BookNode *n = t->node;
  BookAlign al =
      n->as.table.align && k < n->as.table.ncols ? n->as.table.align[k] : BOOK_ALIGN_NONE;
  const char *ctag = hdr ? "TH" : "TD";
  add_tag(items, LAY_TAG_BEGIN, ctag);
  for (guint li = 0; li < lines->len; li++) {
    GArray *ln = lines->pdata[li];
    double lw = items_right(ln, 0);
    double dx = x + t->pad;
    if (al == BOOK_ALIGN_RIGHT)
      dx += ps.width_pt - lw;
    else if (al == BOOK_ALIGN_CENTER)
      dx += (ps.width_pt - lw) / 2;
    items_append(items, ln, dx, t->pad + li * t->leading, false);
    items_free(ln);
  }
  add_tag(items, LAY_TAG_END, ctag);
  if (p.srcs->len && !*mark)
    *mark = g_array_index(p.srcs, Src, 0).node;
  g_ptr_array_free(lines, TRUE);
  para_clear(&p);
  return si.nlines * t->leading + 2 * t->pad;
}

/* A row taller than a page: cut into bands of one line each, so that it
 * can break across pages (structure tags stay in the first and last
 * bands, so that they still nest). Takes items; the row's notes go with
 * its first band. */
static void emit_bands(Build *c, const Tab *t, BookNode *row, GArray *items, double rowh,
                       double pen, BookNode *mark, int header_idx)
{
  double pad = t->pad, leading = t->leading;
  guint nb = (guint)MAX(1.0, ceil((rowh - 2 * pad) / leading - 1e-6));
  GPtrArray *bands = g_ptr_array_new();
  for (guint k = 0; k < nb; k++)
    g_ptr_array_add(bands, items_new());
  guint lastg = 0;
  for (guint q = 0; q < items->len; q++)
    if (g_array_index(items, LayItem, q).kind == LAY_GLYPHS)
      lastg = q;
  for (guint q = 0; q < items->len; q++) {
    LayItem it = g_array_index(items, LayItem, q);
    int k;
    if (it.kind == LAY_TAG_BEGIN || it.kind == LAY_TAG_END)
      k = q > lastg ? (int)nb - 1 : 0;
    else
      k = CLAMP((int)floor((it.y_pt - pad) / leading), 0, (int)nb - 1);
    it.y_pt -= k == 0 ? 0 : pad + k * leading;
    g_array_append_val(bands->pdata[k], it);
  }
  g_array_free(items, TRUE); /* its items moved into the bands */
  for (guint k = 0; k < nb; k++) {
    double bh = (k == 0 ? pad : 0) + leading + (k + 1 == nb ? pad : 0);
    double bpen = k == 0 ? pen : (k == 1 || k + 1 == nb) ? LB_INFINITY : 0;
    VItem *bv = emit_line(c, bands->pdata[k], bh, bpen);
    bv->mark_node = k == 0 && mark ? mark : row;
    bv->header = header_idx;
    if (k == 0 && c->cell_notes->len) {
      bv->notes = c->cell_notes;
      c->cell_notes = NULL;
    }
  }
  g_ptr_array_free(bands, TRUE);
  if (c->cell_notes)
    g_ptr_array_free(c->cell_notes, TRUE);
  c->cell_notes = NULL;
}

/* Row r: its cells side by side, its rules, one line of the vertical list
 * (or bands, when taller than a page). *header_idx: the vertical list's
 * index of the header row, set by the first one. */
static void set_row(Build *c, const Tab *t, BookNode *r, int *header_idx)
{
  bool hdr = r->as.row.header;
  double x0 = left_of(c);
  GArray *items = items_new();
  if (!r->prev)
    add_rule(items, LAY_RULE, x0, 0, t->tw, 0.8, 0);
  add_tag(items, LAY_TAG_BEGIN, "TR");
  double x = x0, rowh = 0;
  int k = 0;
  BookNode *mark = NULL;
  c->cell_notes = g_ptr_array_new();
  for (BookNode *cell = r->first_child; cell && k < t->ncols; cell = cell->next, k++) {
    double h = set_cell(c, t, cell, k, hdr, x, items, &mark); /* MAX evaluates twice */
    rowh = MAX(rowh, h);
    x += t->cw[k];
  }
  add_tag(items, LAY_TAG_END, "TR");
  if (hdr)
    add_rule(items, LAY_RULE, x0, rowh - 0.25, t->tw, 0.5, 0);
  else if (r->next)
    add_rule(items, LAY_RULE, x0, rowh - 0.15, t->tw, 0.3, 0.75);
  if (!r->next) {
    add_rule(items, LAY_RULE, x0, rowh - 0.4, t->tw, 0.8, 0);
    add_tag(items, LAY_TAG_END, "Table");
  }
  /* keep the header with two rows, and the last two rows together */
  double pen =
      (r->prev && (r->prev->as.row.header || !r->prev->prev || !r->next)) ? LB_INFINITY : 0;
  if (!hdr && rowh > c->env->text_h * 0.8) {
    emit_bands(c, t, r, items, rowh, pen, mark, *header_idx);
    return;
  }
  VItem *v = emit_line(c, items, rowh, pen);
  if (c->cell_notes->len)
    v->notes = c->cell_notes;
  else
    g_ptr_array_free(c->cell_notes, TRUE);
  c->cell_notes = NULL;
  v->mark_node = mark ? mark : r;
  if (hdr && *header_idx < 0) {
    *header_idx = (int)c->vl->len - 1;
    v->shared = true;
  } else if (!hdr)
    v->header = *header_idx;
}

void do_table(Build *c, BookNode *n)
{
  int ncols = n->as.table.ncols;
  if (ncols <= 0)
    for (BookNode *r = n->first_child; r; r = r->next) {
      int k = 0;
      for (BookNode *cell = r->first_child; cell; cell = cell->next)
        k++;
      ncols = MAX(ncols, k);
    }
  if (ncols <= 0)
    return;
  Tab t = {n,
           ncols,
           c->st->cell_pad_pt,
           c->st->table_leading_pt,
           0,
           NULL,
           NULL,
           NULL,
           0,
           g_hash_table_new_full(NULL, NULL, NULL, measured_free),
           false};
  double size = c->st->table_size_pt;
  t.d = font_desc(c->st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  t.db = font_desc(c->st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_BOLD);
  t.cw = g_new0(double, ncols);
  column_widths(c, &t);
  want_space(c, c->st->block_space_pt * 1.5);
  c->after_par = false;
  open_tag(c, "Table");
  int header_idx = -1;
  t.base = baseline(c->shp, t.d, t.leading);
  for (BookNode *r = n->first_child; r; r = r->next)
    set_row(c, &t, r, &header_idx);
  want_space(c, c->st->block_space_pt * 1.5);
  g_free(t.cw);
  g_hash_table_destroy(t.measured);
  pango_font_description_free(t.d);
  pango_font_description_free(t.db);
}
