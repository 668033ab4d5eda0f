/* layout/paginate.c: a chapter's vertical list -> frames (columns of
 * pages): breaks only where a penalty or a glue allows, footnotes at the
 * page foot, table headers repeated, two columns balanced on a chapter's
 * last page. */
#include "layout/internal.h"

#include <math.h>
#include <string.h>

/* What pagination reads: the text block's height, its columns, the notes. */
typedef struct {
  const Style *st;
  double text_h;
  const Columns *cols;
  LayStore *store;
  bool rtl; /* the book reads right to left: BookMeta.rtl */
} Pager;

void body_init(Body *b)
{
  b->pages = g_ptr_array_new();
  b->frames = g_array_new(FALSE, TRUE, sizeof(Frame));
  b->marks = g_array_new(FALSE, TRUE, sizeof(PageMark));
  b->sink = NULL;
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

/* Left edge of the text block of body page `folio` (odd = recto). A book
 * read right to left is bound on the right: its rectos are left-hand
 * pages, their inner margin at the right. */
double block_x(const Style *st, bool rtl, int folio)
{
  return (folio % 2 == 1) != rtl ? st->margin_inner_pt : st->margin_outer_pt;
}

/* Left edge of column col (0 first in reading order: the rightmost in a
 * book read right to left) of body page `folio`. */
static double column_x(const Pager *c, int folio, int col)
{
  int slot = c->rtl ? c->cols->n - 1 - col : col;
  return block_x(c->st, c->rtl, folio) + slot * (c->cols->w_pt + c->cols->gap_pt);
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
      f.x = column_x(c, f.page->folio, (int)(b->frames->len % (guint)c->cols->n));
      g_array_append_val(b->frames, f);
      last = &g_array_index(b->frames, Frame, b->frames->len - 1);
    }
    LayPage *p = page_new();
    g_ptr_array_add(b->pages, p);
    g_array_set_size(b->marks, b->marks->len + 1);
    p->folio = (int)b->pages->len;
    if (b->sink && b->sink->placed)
      b->sink->placed(b->sink->ud, p->folio);
  }
  Frame f = {0};
  f.page = b->pages->pdata[b->pages->len - 1];
  f.x = column_x(c, f.page->folio, col);
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

/* The first item at or after i that is a line (frames start on one). */
static guint next_line(const GArray *vl, guint i)
{
  while (i < vl->len && g_array_index(vl, VItem, i).kind != V_LINE)
    i++;
  return i;
}

/* The page's bottom is ragged (TeX's \raggedbottom): a frame may fall
 * short of its height by about this many body lines at the badness a
 * justified line has with its spaces stretched fully (100), as \topskip's
 * 60 pt of stretch at 12 pt baselines does in plain TeX. */
#define PAGE_STRETCH_LINES 5.0
#define DEPLORABLE 100000.0 /* tex.web §974: a page that cannot be better than awful */

/* TeX's page cost (tex.web §1005) of ending a frame of height h at a legal
 * break with penalty pi, when lines and glue fill `used` points of it and
 * the notes they call take notes_h at its foot (the notes' heights come off
 * the goal, as TeX's insertions do; a note is never split or held over, so
 * TeX's insert_penalties stay 0): the badness of the frame's shortfall
 * against its ragged-bottom stretch, plus pi; DEPLORABLE for a frame too
 * empty to have a badness. A forced break costs pi (it always wins). */
static double page_cost(const Pager *c, double h, double used, double notes_h, double pi)
{
  if (pi <= -LB_INFINITY)
    return pi;
  double shortfall = h - used - notes_h;
  double b = lb_badness(shortfall, PAGE_STRETCH_LINES * c->st->leading_pt);
  return b < 10000 ? b + pi : DEPLORABLE;
}

/* Where a frame of height h that starts at line i ends: at the legal break
 * (a glue that follows a line, unless nobreak, or a penalty below
 * LB_INFINITY) of least page cost before the frame overflows (lines, their
 * footnotes and a repeated table header counted; the later one of equal
 * cost, as TeX's page builder), or at the overflow when there is none; at
 * a forced break; or at the end. Always past i. */
static guint frame_fill(const Pager *c, const GArray *vl, guint i, double h, GPtrArray *pnotes,
                        bool *clean)
{
  guint n = vl->len;
  int hdr = g_array_index(vl, VItem, i).header;
  double y = hdr >= 0 ? g_array_index(vl, VItem, hdr).h_pt : 0;
  g_ptr_array_set_size(pnotes, 0);
  guint j = i, best = 0;
  double least = DEPLORABLE * 10, notes_h = 0;
  bool forced = false;
  while (j < n) {
    const VItem *v = &g_array_index(vl, VItem, j);
    double pi = LB_INFINITY; /* not a legal break */
    if (v->kind == V_LINE) {
      double nh = add_notes(c->store, pnotes, v, false);
      if (j > i && y + v->h_pt + notes_h + nh > h)
        break;
      add_notes(c->store, pnotes, v, true);
      notes_h = notes_height(c->store, pnotes);
    } else if (v->kind == V_GLUE) {
      if (!v->nobreak && j > i && g_array_index(vl, VItem, j - 1).kind == V_LINE)
        pi = 0;
    } else if (j > i)
      pi = v->penalty;
    if (pi < LB_INFINITY) {
      double cost = page_cost(c, h, y, notes_h, pi);
      if (cost <= least) {
        least = cost;
        best = j;
      }
      if (pi <= -LB_INFINITY) {
        forced = true;
        break;
      }
    }
    if (v->kind != V_PENALTY)
      y += v->h_pt;
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

/* The height a column holding the lines from i on takes, at each legal
 * break k after i (or the end, k = n): the bottom of its last line, plus a
 * repeated table header and the notes its lines call; heights[k] < 0 where
 * k is no legal break. Stops at a forced break (heights after it stay < 0). */
static void column_heights(const Pager *c, const GArray *vl, guint i, double *heights,
                           GPtrArray *pnotes)
{
  guint n = vl->len;
  for (guint k = i; k <= n; k++)
    heights[k] = -1;
  int hdr = i < n ? g_array_index(vl, VItem, i).header : -1;
  double y = hdr >= 0 ? g_array_index(vl, VItem, hdr).h_pt : 0, bottom = y, notes_h = 0;
  g_ptr_array_set_size(pnotes, 0);
  for (guint j = i; j < n; j++) {
    const VItem *v = &g_array_index(vl, VItem, j);
    bool legal =
        j > i &&
        ((v->kind == V_GLUE && !v->nobreak && g_array_index(vl, VItem, j - 1).kind == V_LINE) ||
         (v->kind == V_PENALTY && v->penalty < LB_INFINITY));
    if (legal)
      heights[j] = bottom + notes_h;
    if (v->kind == V_PENALTY && v->penalty <= -LB_INFINITY && j > i)
      return;
    if (v->kind == V_LINE) {
      add_notes(c->store, pnotes, v, true);
      notes_h = notes_height(c->store, pnotes);
    }
    if (v->kind != V_PENALTY)
      y += v->h_pt;
    if (v->kind == V_LINE)
      bottom = y;
  }
  heights[n] = bottom + notes_h;
}

/* Balancing the last page: the columns' difference in height has the
 * badness of a page short by it with this stretch: one body line 6.4, two
 * 51, three 173; so a page break after a hyphen (\brokenpenalty, 100) is
 * worth a difference of two lines, not of three. */
#define BALANCE_STRETCH_LINES 2.5

/* Two columns: the chapter's last page balanced. The first column ends at
 * the legal break k of least cost (its penalty plus the badness of the
 * columns' difference in height, BALANCE_STRETCH_LINES), both columns no
 * taller than the frame (h_first on the chapter's first page) and the
 * second holding the rest; of equal costs, the lower page, then the
 * longer first column. Both frames get the taller column's height.
 * ranges: the frames not placed yet, `placed` frames before them. */
static void balance_last(const Pager *c, const GArray *vl, GArray *ranges, guint placed,
                         double first_h, GPtrArray *pnotes)
{
  /* a chapter starts a page, and pages are placed whole: frame k of
   * ranges is column k % 2 */
  guint last = (ranges->len - 1) & ~1u;
  guint s0 = g_array_index(ranges, Range, last).start, n = vl->len;
  double hmax = placed + last == 0 ? first_h : c->text_h;
  double *h1 = g_new(double, n + 1), *h2 = g_new(double, n + 1);
  column_heights(c, vl, s0, h1, pnotes);
  double stretch = BALANCE_STRETCH_LINES * c->st->leading_pt;
  double least = 0, best_h = 0;
  guint best = 0;
  for (guint k = s0 + 1; k <= n; k++) {
    if (h1[k] < 0 || h1[k] > hmax)
      continue;
    /* the second column alone: its height when it holds the rest, unbroken
     * (none when the first holds everything) */
    guint k2 = next_line(vl, k);
    double other = 0;
    if (k2 < n) {
      column_heights(c, vl, k2, h2, pnotes);
      other = h2[n];
      if (other < 0 || other > hmax)
        continue;
    }
    const VItem *v = k < n ? &g_array_index(vl, VItem, k) : NULL;
    double pi = v && v->kind == V_PENALTY ? v->penalty : 0;
    double cost = pi + lb_badness(fabs(h1[k] - other), stretch);
    double top = MAX(h1[k], other);
    if (!best || cost < least ||
        (cost == least && (top < best_h || (top == best_h && h1[k] >= other)))) {
      least = cost;
      best = k;
      best_h = top;
    }
  }
  if (best) {
    g_array_set_size(ranges, last);
    Range r1 = {s0, best, best_h, true}, r2 = {next_line(vl, best), n, best_h, true};
    g_array_append_val(ranges, r1);
    if (r2.start < n)
      g_array_append_val(ranges, r2);
  }
  g_free(h1);
  g_free(h2);
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

/* The frames from f->next on that no later item can change: a frame
 * whose frame_fill stopped before the end of vl (it overflowed) is final;
 * one that reached the end takes more lines when more come (unless done). */
static void feed_fill(const Pager *c, PageFeed *f, const GArray *vl, bool done)
{
  for (guint i = next_line(vl, f->next); i < vl->len; i = next_line(vl, f->next)) {
    guint r = f->placed + f->ranges->len;
    double fh = r < 2 ? f->first_h : c->text_h; /* the first page's below the span */
    Range rg = {i, 0, fh, true};
    rg.end = frame_fill(c, vl, i, fh, f->pnotes, &rg.clean);
    if (!done && rg.end >= vl->len)
      break;
    g_array_append_val(f->ranges, rg);
    f->next = rg.end;
  }
}

/* Place range rg as the next frame: on the first page, below the items
 * across the columns (placed with its first frame). */
static void feed_place(const Pager *c, PageFeed *f, GArray *vl, const Range *rg)
{
  guint r = f->placed++;
  Frame *fr = frame_next(c, f->b, r == 0, f->ch);
  fr->opening = r == 0;
  if (r == 0 && f->span_end > 0) {
    /* the title across the columns (from the text block's left edge) */
    double ty = fr->y, tx = block_x(c->st, c->rtl, fr->page->folio);
    for (guint k = 0; k < f->span_end; k++) {
      VItem *v = &g_array_index(vl, VItem, k);
      if (v->kind == V_LINE) {
        items_move(fr->page->items, v->items, tx, ty);
        frame_mark(f->b, fr, v);
      }
      ty += v->kind == V_PENALTY ? 0 : v->h_pt;
    }
  }
  if (r < 2 && f->span_end > 0)
    fr->y += f->span_h;
  fr->h = rg->h;
  place_range(c, f->b, fr, vl, rg, f->pnotes);
  /* The chapter the page's head names, by LaTeX's \rightmark: the first
   * chapter that begins on the page (in any of its columns), else the one
   * current at its top, carried over from the page before (f->ch, which
   * frame_next gave each frame). */
  for (guint k = rg->start; k < rg->end; k++) {
    const VItem *v = &g_array_index(vl, VItem, k);
    if (v->kind != V_LINE || !v->chapter)
      continue;
    guint col = (f->b->frames->len - 1) % (guint)c->cols->n;
    Frame *first = &g_array_index(f->b->frames, Frame, f->b->frames->len - 1 - col);
    if (f->head_folio != first->page->folio) {
      first->chapter = v->chapter;
      f->head_folio = first->page->folio;
    }
    f->ch = v->chapter;
  }
}

/* The height of the items from i to end (glue and lines). */
static double range_height(const GArray *vl, guint i, guint end)
{
  double h = 0;
  for (guint k = i; k < end && k < vl->len; k++) {
    const VItem *v = &g_array_index(vl, VItem, k);
    h += v->kind == V_PENALTY ? 0 : v->h_pt;
  }
  return h;
}

/* One column: a chapter's last page holding less than the style's
 * last-page-lines: the page before breaks up to PAGE_STRETCH_LINES + 1
 * body lines higher (a short page, a line past its ragged bottom: six, as
 * a code listing's lines are shorter than the body's, a runt of two code
 * lines needs seven, and a wide listing set smaller (blocks.c) can leave
 * two body lines behind a paragraph and a short listing that, moved
 * together, are more than five lines high) when the last page then holds
 * enough and the rest still fits it. (A page made longer,
 * as LaTeX's \enlargethispage, would set lines below the text block.) */
static void fix_runt(const Pager *c, const GArray *vl, GArray *ranges, double first_h,
                     guint placed, GPtrArray *pnotes)
{
  guint len = ranges->len, n = vl->len;
  double lead = c->st->leading_pt, want = c->st->last_page_lines * lead;
  if (len < 2)
    return;
  Range *last = &g_array_index(ranges, Range, len - 1), *prev = last - 1;
  if (last->end < n || range_height(vl, last->start, n) >= want - 0.5)
    return;
  double h0 = placed + len - 2 == 0 ? first_h : c->text_h;
  for (int k = 1; k <= (int)PAGE_STRETCH_LINES + 1; k++) {
    bool clean = false;
    guint e = frame_fill(c, vl, prev->start, h0 - k * lead, pnotes, &clean);
    if (!clean || e <= prev->start)
      continue;
    guint s2 = next_line(vl, e);
    if (s2 >= n)
      continue;
    bool clean2 = false;
    guint e2 = frame_fill(c, vl, s2, c->text_h, pnotes, &clean2);
    if (e2 < n)
      return; /* the rest no longer fits one page */
    if (range_height(vl, s2, n) >= want - 0.5) {
      prev->end = e;
      prev->clean = clean;
      last->start = s2;
      last->clean = clean2;
      return;
    }
  }
}

void feed_init(PageFeed *f, const LayEnv *env, LayStore *store, const Columns *cols, Body *b,
               BookChapter *ch, guint span_end)
{
  memset(f, 0, sizeof *f);
  f->env = env;
  f->store = store;
  f->cols = cols;
  f->b = b;
  f->ch = ch;
  f->span_end = span_end;
  f->ranges = g_array_new(FALSE, FALSE, sizeof(Range));
  f->pnotes = g_ptr_array_new();
}

void feed_clear(PageFeed *f)
{
  g_array_free(f->ranges, TRUE);
  g_ptr_array_free(f->pnotes, TRUE);
}

guint feed_pages(PageFeed *f, GArray *vl, bool done)
{
  const Pager pg = {f->env->st, f->env->text_h, f->cols, f->store, f->env->book->meta.rtl},
              *c = &pg;
  guint n = (guint)f->cols->n, before = f->b->pages->len;
  if (!f->started) {
    /* span_of reads the glue after the span, up to the next line */
    if (!done && next_line(vl, f->span_end) >= vl->len)
      return 0;
    f->span_end = span_of(c, vl, f->span_end, &f->span_h);
    f->first_h = c->text_h - f->span_h;
    f->next = f->span_end;
    f->started = true;
  }
  feed_fill(c, f, vl, done);
  if (done && n == 2 && f->ranges->len)
    balance_last(c, vl, f->ranges, f->placed, f->first_h, f->pnotes);
  bool runt = n == 1 && f->env->st->chapter_new_page && f->env->st->last_page_lines > 0;
  if (done && runt)
    fix_runt(c, vl, f->ranges, f->first_h, f->placed, f->pnotes);
  /* a page is placed once a line follows its frames: then it is not the
   * last page (which balance_last may change) and its last line is not
   * vl's (to which the builder may still add closing tags); with the runt
   * rule, once a whole page follows it (fix_runt may shorten the page
   * before the last): one page held, never more */
  guint r = 0, len = f->ranges->len;
  while (done   ? r < len
         : runt ? len - r > n
                : len - r > n || (len - r == n && next_line(vl, f->next) < vl->len)) {
    guint page = f->b->pages->len, frame = f->b->frames->len;
    for (guint end = MIN(r + n, len); r < end; r++)
      feed_place(c, f, vl, &g_array_index(f->ranges, Range, r));
    if (f->placed_page && f->b->pages->len > page)
      f->placed_page(f->ud, page, frame);
  }
  g_array_remove_range(f->ranges, 0, r);
  return f->b->pages->len - before;
}

void feed_trim(PageFeed *f, GArray *vl)
{
  if (!f->placed) /* the span is placed with the first frame */
    return;
  guint keep = f->ranges->len ? g_array_index(f->ranges, Range, 0).start : f->next;
  for (guint k = keep; k < vl->len; k++) { /* a table's header repeated later */
    int h = g_array_index(vl, VItem, k).header;
    if (h >= 0 && (guint)h < keep)
      keep = (guint)h;
  }
  if (!keep)
    return;
  vitems_clear(vl, keep);
  g_array_remove_range(vl, 0, keep);
  for (guint k = 0; k < vl->len; k++) {
    VItem *v = &g_array_index(vl, VItem, k);
    if (v->header >= 0)
      v->header -= (int)keep;
  }
  for (guint r = 0; r < f->ranges->len; r++) {
    Range *rg = &g_array_index(f->ranges, Range, r);
    rg->start -= keep;
    rg->end -= keep;
  }
  f->next -= keep;
  f->span_end = 0;
}

/* Break a chapter's vertical list into frames (columns of pages) and place
 * its lines. With two columns, the first span_end items (the chapter's
 * title, set to the full width) run across both columns at the top of its
 * first page, and the chapter's last page is balanced. */
void paginate(const LayEnv *env, LayStore *store, const Columns *cols, Body *b, GArray *vl,
              BookChapter *ch, guint span_end)
{
  PageFeed f;
  feed_init(&f, env, store, cols, b, ch, span_end);
  feed_pages(&f, vl, true);
  feed_clear(&f);
}
