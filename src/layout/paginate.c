/* layout/paginate.c: a chapter's vertical list -> frames (columns of
 * pages): breaks only where a penalty or a glue allows, footnotes at the
 * page foot, table headers repeated, two columns balanced on a chapter's
 * last page. */
#include "layout/internal.h"
#include "progress.h"

/* What pagination reads: the text block's height, its columns, the notes. */
typedef struct {
  const Style *st;
  double text_h;
  const Columns *cols;
  LayStore *store;
} Pager;

void body_init(Body *b)
{
  b->pages = g_ptr_array_new();
  b->frames = g_array_new(FALSE, TRUE, sizeof(Frame));
  b->marks = g_array_new(FALSE, TRUE, sizeof(PageMark));
}

/* Frees the arrays, not the pages (they go to the layout). */
void body_clear(Body *b)
{
  g_ptr_array_free(b->pages, TRUE);
  g_array_free(b->frames, TRUE);
  g_array_free(b->marks, TRUE);
}

LayPage *page_new(void)
{
  LayPage *p = g_new0(LayPage, 1);
  p->items = items_new();
  return p;
}

void page_free(LayPage *p)
{
  if (!p)
    return;
  items_free(p->items);
  g_free(p->label);
  g_free(p);
}

/* Left edge of the text block of body page `folio` (odd = recto). */
double block_x(const Style *st, int folio)
{
  return folio % 2 ? st->margin_inner_pt : st->margin_outer_pt;
}

static Frame *frame_next(const Pager *c, Body *b, bool new_page, BookChapter *ch)
{
  Frame *last = b->frames->len ? &g_array_index(b->frames, Frame, b->frames->len - 1) : NULL;
  int col = 0;
  if (!new_page && last) {
    int lastcol = (int)((b->frames->len - 1) % (guint)c->cols->n);
    if (lastcol + 1 < c->cols->n)
      col = lastcol + 1;
  }
  if (col == 0) {
    /* pad the frames of a page left incomplete */
    while (b->frames->len % (guint)c->cols->n) {
      Frame f = *last;
      f.x += c->cols->w_pt + c->cols->gap_pt;
      g_array_append_val(b->frames, f);
      last = &g_array_index(b->frames, Frame, b->frames->len - 1);
    }
    LayPage *p = page_new();
    g_ptr_array_add(b->pages, p);
    g_array_set_size(b->marks, b->marks->len + 1);
    p->folio = (int)b->pages->len;
    progress_update(p->folio);
  }
  Frame f = {0};
  f.page = b->pages->pdata[b->pages->len - 1];
  f.x = block_x(c->st, f.page->folio) + col * (c->cols->w_pt + c->cols->gap_pt);
  f.y = c->st->margin_top_pt;
  f.w = c->cols->w_pt;
  f.h = c->text_h;
  f.chapter = ch;
  g_array_append_val(b->frames, f);
  return &g_array_index(b->frames, Frame, b->frames->len - 1);
}

static void frame_mark(Body *b, Frame *f, VItem *v)
{
  if (f->mark_set || !v->mark_node)
    return;
  PageMark *m = &g_array_index(b->marks, PageMark, f->page->folio - 1);
  if (!m->node) {
    m->node = v->mark_node;
    m->off = v->mark_off;
  }
  f->mark_set = true;
}

/* Break a chapter's vertical list into frames: a break only at a glue that
 * follows a line (unless nobreak) or a penalty below LB_INFINITY; the last
 * legal break before the frame overflows wins; with none, the frame breaks
 * at the overflow anyway. */
/* The first item at or after i that is a line (frames start on one). */
static guint next_line(const GArray *vl, guint i)
{
  while (i < vl->len && g_array_index(vl, VItem, i).kind != V_LINE)
    i++;
  return i;
}

/* Where a frame of height h that starts at line i ends: at the last legal
 * break before it overflows (lines, their footnotes and a repeated table
 * header counted), or at the overflow when there is none; at a forced
 * break; or at the end. Always past i. */
static guint frame_fill(const Pager *c, const GArray *vl, guint i, double h, GPtrArray *pnotes,
                        bool *clean)
{
  guint n = vl->len;
  int hdr = g_array_index(vl, VItem, i).header;
  double y = hdr >= 0 ? g_array_index(vl, VItem, hdr).h_pt : 0;
  g_ptr_array_set_size(pnotes, 0);
  guint j = i, best = 0;
  bool forced = false;
  while (j < n) {
    const VItem *v = &g_array_index(vl, VItem, j);
    if (v->kind == V_LINE) {
      double nh = add_notes(c->store, pnotes, v, false);
      if (j > i && y + v->h_pt + notes_height(c->store, pnotes) + nh > h)
        break;
      add_notes(c->store, pnotes, v, true);
      y += v->h_pt;
    } else if (v->kind == V_GLUE) {
      if (!v->nobreak && j > i && g_array_index(vl, VItem, j - 1).kind == V_LINE)
        best = j;
      y += v->h_pt;
    } else {
      if (v->penalty <= -LB_INFINITY && j > i) {
        best = j;
        forced = true;
        break;
      }
      if (v->penalty < LB_INFINITY && j > i)
        best = j;
    }
    j++;
  }
  guint end = j >= n ? n : (forced || best > i) ? best : j;
  if (clean) /* false: no legal break, the frame broke where it overflowed */
    *clean = j >= n || forced || best > i;
  return end <= i ? i + 1 : end;
}

typedef struct {
  guint start, end;
  double h;
  bool clean; /* ends at a legal break */
} Range;

/* The frames, from line i on, at height h (h_first for the first nfirst
 * of them); stops after max frames. */
static void fill_ranges(const Pager *c, const GArray *vl, guint i, double h, double h_first,
                        guint nfirst, guint max, GArray *out, GPtrArray *pnotes)
{
  for (i = next_line(vl, i); i < vl->len && out->len < max; i = next_line(vl, i)) {
    double fh = out->len < nfirst ? h_first : h;
    Range r = {i, 0, fh, true};
    r.end = frame_fill(c, vl, i, fh, pnotes, &r.clean);
    g_array_append_val(out, r);
    i = r.end;
  }
}

/* With two columns: how many items at the top of vl run across both (the
 * first span_end, the chapter's title, and the space after it, which a
 * column would discard at its top), and their height in *span_h. None with
 * one column, or when the title is too tall to span. */
static guint span_of(const Pager *c, const GArray *vl, guint span_end, double *span_h)
{
  *span_h = 0;
  if (c->cols->n < 2)
    return 0;
  for (guint k = 0; k < span_end && k < vl->len; k++) {
    const VItem *v = &g_array_index(vl, VItem, k);
    *span_h += v->kind == V_PENALTY ? 0 : v->h_pt;
  }
  while (span_end > 0 && span_end < vl->len && g_array_index(vl, VItem, span_end).kind != V_LINE) {
    const VItem *v = &g_array_index(vl, VItem, span_end);
    *span_h += v->kind == V_GLUE ? v->h_pt : 0;
    span_end++;
  }
  if (*span_h > c->text_h * 0.5) { /* a title too tall to span: it goes in the column */
    *span_h = 0;
    return 0;
  }
  return span_end;
}

/* Do ranges (at most 3) hold everything in two frames, each ending at a
 * legal break (no keep broken for balance)? */
static bool two_clean(const GArray *try)
{
  bool ok = try->len <= 2; /* fill_ranges stops after 3: two hold it all */
  for (guint k = 0; k < try->len; k++)
    ok = ok && g_array_index(try, Range, k).clean;
  return ok;
}

/* Two columns: the chapter's last page balanced, both columns at the least
 * height (found by bisection to 0.5 pt) that still holds what is left. */
static void balance_last(const Pager *c, const GArray *vl, GArray *ranges, double first_h,
                         GPtrArray *pnotes)
{
  guint last = (ranges->len - 1) & ~1u; /* a chapter starts a page: frame k is column k % 2 */
  guint s0 = g_array_index(ranges, Range, last).start;
  GArray *try = g_array_new(FALSE, FALSE, sizeof(Range));
  double lo = 0, hi = last == 0 ? first_h : c->text_h;
  for (int it = 0; it < 24 && hi - lo > 0.5; it++) {
    double mid = (lo + hi) / 2;
    g_array_set_size(try, 0);
    fill_ranges(c, vl, s0, mid, mid, 0, 3, try, pnotes);
    if (two_clean(try))
      hi = mid;
    else
      lo = mid;
  }
  g_array_set_size(try, 0);
  fill_ranges(c, vl, s0, hi, hi, 0, 3, try, pnotes);
  if (two_clean(try)) {
    g_array_set_size(ranges, last);
    g_array_append_vals(ranges, try->data, try->len);
  }
  g_array_free(try, TRUE);
}

/* Place the lines of range rg in frame f (a repeated table header first),
 * and the footnotes they call at its foot. */
static void place_range(const Pager *c, Body *b, Frame *f, GArray *vl, const Range *rg,
                        GPtrArray *pnotes)
{
  double y = f->y;
  int hdr = g_array_index(vl, VItem, rg->start).header;
  if (hdr >= 0) {
    const VItem *h = &g_array_index(vl, VItem, hdr);
    items_append(f->page->items, h->items, f->x, y, true);
    y += h->h_pt;
  }
  g_ptr_array_set_size(pnotes, 0);
  for (guint k = rg->start; k < rg->end; k++) {
    VItem *v = &g_array_index(vl, VItem, k);
    if (v->kind == V_LINE) {
      if (v->shared)
        items_append(f->page->items, v->items, f->x, y, false);
      else
        items_move(f->page->items, v->items, f->x, y); /* each line is placed once */
      frame_mark(b, f, v);
      add_notes(c->store, pnotes, v, true);
      y += v->h_pt;
    } else if (v->kind == V_GLUE)
      y += v->h_pt;
  }
  place_notes(c->store, f, pnotes);
}

/* Break a chapter's vertical list into frames (columns of pages) and place
 * its lines. With two columns, the first span_end items (the chapter's
 * title, set to the full width) run across both columns at the top of its
 * first page, and the chapter's last page is balanced. */
void paginate(const LayEnv *env, LayStore *store, const Columns *cols, Body *b, GArray *vl,
              BookChapter *ch, guint span_end)
{
  const Pager pg = {env->st, env->text_h, cols, store}, *c = &pg;
  GPtrArray *pnotes = g_ptr_array_new();
  GArray *ranges = g_array_new(FALSE, FALSE, sizeof(Range));
  double span_h;
  span_end = span_of(c, vl, span_end, &span_h);
  double first_h = c->text_h - span_h;
  fill_ranges(c, vl, span_end, c->text_h, first_h, 2, G_MAXUINT, ranges, pnotes);
  if (c->cols->n == 2 && ranges->len)
    balance_last(c, vl, ranges, first_h, pnotes);
  for (guint r = 0; r < ranges->len; r++) {
    Range *rg = &g_array_index(ranges, Range, r);
    Frame *f = frame_next(c, b, r == 0, ch);
    f->opening = r == 0;
    if (r == 0 && span_end > 0) {
      /* the title across the columns */
      double ty = f->y;
      for (guint k = 0; k < span_end; k++) {
        VItem *v = &g_array_index(vl, VItem, k);
        if (v->kind == V_LINE) {
          items_move(f->page->items, v->items, f->x, ty);
          frame_mark(b, f, v);
        }
        ty += v->kind == V_PENALTY ? 0 : v->h_pt;
      }
    }
    if (r < 2 && span_end > 0)
      f->y += span_h;
    f->h = rg->h;
    place_range(c, b, f, vl, rg, pnotes);
  }
  g_array_free(ranges, TRUE);
  g_ptr_array_free(pnotes, TRUE);
}
