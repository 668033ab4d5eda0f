/* layout/handout.c: the handout (--layout handout): one vertical list for
 * the whole book (the title block and the contents across the columns,
 * every chapter running on, the URL list and the colophon), broken into
 * pages with "page N of M" in the head of each.
 *
 * lay_drive's settings (handout_drive): laid out whole (handout_whole:
 * --dump-layout, --preview, several PDFs), counted (handout_plan: the
 * EPUB's page list), or streamed so that memory does not grow with the
 * pages (handout_plan, then handout_stream): the list is built a few
 * pages at a time and paginated as it grows (paginate.c's PageFeed), each page
 * handed over once placed. M must be known before the first page is drawn,
 * so a counting pass goes first: the same layout without glyphs (as the
 * page list's, lines.c) that keeps no page; it also finds the pages the
 * contents' entries land on, which the whole layout's first pass finds. */
#include "layout/internal.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* The vertical list, a part at a time                                      */

/* A part is about this many items of the list (lines, glue, penalties):
 * a few pages, so that a book of one long chapter streams too. */
#define HANDOUT_PART 400

typedef struct {
  Run *r;
  Build c;        /* the list so far (c.vl) and the builder's state between parts */
  guint ci;       /* the next chapter */
  Walk w;         /* the walk of the current chapter's blocks */
  bool walking;   /* in a chapter (w is open) */
  guint span_end; /* the items across the columns: the title block, the contents */
} Handout;

/* The title block (and the contents with --toc) across the text block.
 * folios: where the contents' entries landed (a previous pass), or NULL. */
static void handout_open(Handout *h, Run *r, GHashTable *folios)
{
  h->r = r;
  h->ci = 0;
  h->walking = false;
  Build *c = &h->c;
  build_init(c, &r->env, &r->shp, &r->store, r->env.text_w);
  open_tag(c, "Sect");
  title_block(c);
  if (r->env.opts->toc || r->env.st->contents_always) {
    GArray *shown = toc_shown(r, folios);
    contents_block(c, shown, folios);
    g_array_free(shown, TRUE);
    want_space(c, c->st->heading_before_pt * 1.5);
  }
  close_tag(c, "Sect");
  h->span_end = c->vl->len;
  c->measure = r->env.cols.w_pt;
}

/* The next part into h->c.vl: about HANDOUT_PART items of a chapter
 * (the chapters run on, each heading a section heading), or the end (the
 * URL list with --link-notes=end, the colophon). Returns false once the
 * end is in: the list is complete. The list is the same whatever the
 * parts: the walk stops between blocks, and the builder keeps its state. */
static bool handout_more(Handout *h)
{
  Build *c = &h->c;
  const Book *book = h->r->env.book;
  if (!h->walking && h->ci < book->chapters->len) {
    BookChapter *ch = book->chapters->pdata[h->ci++];
    open_tag(c, "Sect");
    emit_dest_pending(c, ch->id);
    if (ch->heading)
      do_heading(c, ch->heading, false);
    walk_begin(&h->w, c, ch->root, ch->heading);
    h->walking = true;
  }
  if (h->walking) {
    if (walk_step(&h->w, c, c->vl->len + HANDOUT_PART))
      return true;
    walk_end(&h->w, c);
    h->walking = false;
    close_tag(c, "Sect");
    return true;
  }
  if (h->r->env.url_end)
    url_notes_end(c);
  if (h->r->env.colophon)
    colophon_block(c);
  vl_end(c);
  return false;
}

/* ------------------------------------------------------------------------ */
/* Laid out whole                                                           */

/* One pass of the handout: no front matter; sections run on. folios: where
 * the destinations landed in a previous pass (for the contents' numbers),
 * or NULL. *landed (if not NULL) takes where they land in this one. */
static Layout *handout_pass(const LayDrive *d, const Book *book, const OctavoOptions *opts,
                            const Style *st, const Fonts *fonts, const Colophon *col,
                            const LaySink *sink, GHashTable *folios, GHashTable **landed)
{
  Run r;
  run_init(&r, book, opts, st, fonts, col, d, false, sink);
  Layout *lay = layout_new(book, st, fonts);
  layout_notes(&r.env, &r.shp, &r.store);
  Handout h;
  handout_open(&h, &r, folios);
  while (handout_more(&h))
    ;
  if (!r.env.url_end)
    url_notes_foot(&r.env, &r.shp, &r.store, 0);
  paginate(&r.env, &r.store, &r.env.cols, &r.body, h.c.vl, NULL, h.span_end);
  build_clear(&h.c);
  note_dest_folios(&r, 0);
  running_heads(&r.env, &r.shp, &r.body, 0, r.outline, lay->title, 0);
  lay->front_pages = 0;
  add_body(&r, lay);
  build_outline(&r, lay);
  drop_dead_links(lay);
  if (landed) {
    *landed = r.dest_folio;
    r.dest_folio = g_hash_table_new(g_str_hash, g_str_equal);
  }
  run_clear(&r);
  return lay;
}

/* The handout: with printed contents, a first pass finds the pages the
 * entries land on (the contents take the same room whatever the numbers). */
static Layout *handout_whole(const LayDrive *d, const Book *book, const OctavoOptions *opts,
                             const Style *st, const Fonts *fonts, const Colophon *col,
                             const LaySink *sink)
{
  if (!opts->toc && !st->contents_always)
    return handout_pass(d, book, opts, st, fonts, col, sink, NULL, NULL);
  GHashTable *folios = NULL;
  lay_free(handout_pass(d, book, opts, st, fonts, col, NULL, NULL, &folios));
  Layout *lay = handout_pass(d, book, opts, st, fonts, col, sink, folios, NULL);
  g_hash_table_destroy(folios);
  return lay;
}

/* ------------------------------------------------------------------------ */
/* Streamed                                                                 */

/* What is done with the pages a part of the list completed: body pages
 * `from` on, whose frames start at frame `frame`. */
typedef void (*PagesDone)(void *ud, Run *r, guint from, guint frame);

/* The handout built a part at a time, each part paginated as far as
 * it can be (PageFeed) and the pages it completes given to done, then the
 * list's head that no page to come reads freed. The URL notes at the page
 * foot are laid out as their part is built, before it is paginated. */
static void handout_flow(Run *r, GHashTable *folios, PagesDone done, void *ud)
{
  Handout h;
  handout_open(&h, r, folios);
  PageFeed f;
  feed_init(&f, &r->env, &r->store, &r->env.cols, &r->body, NULL, h.span_end);
  guint urls = 0; /* URL notes laid out */
  bool more;
  do {
    more = handout_more(&h);
    if (!r->env.url_end) {
      url_notes_foot(&r->env, &r->shp, &r->store, urls);
      urls = r->store.url_notes->len;
    }
    guint from = r->body.pages->len, frame = r->body.frames->len;
    if (feed_pages(&f, h.c.vl, !more))
      done(ud, r, from, frame);
    feed_trim(&f, h.c.vl);
  } while (more);
  feed_clear(&f);
  build_clear(&h.c);
}

typedef struct {
  const LayDrive *d; /* the drive's (its count_helpers, its Hyphenator) */
  const Book *book;
  const OctavoOptions *opts;
  const Style *st;
  const Fonts *fonts;
  const Colophon *colophon;
  GHashTable *folios; /* where the contents' entries land (--toc), or NULL (owned) */
  GHashTable *landed; /* every destination placed -> its folio (owned) */
  Layout *count;      /* the counting pass's layout: empty pages, the page marks */
} LayPlan;

struct LayAux {
  LayPlan *plan; /* the handout's counting pass, or NULL */
};

/* The counting pass's pages: where their destinations landed, their
 * labels and page marks kept, their items dropped. */
static void count_pages(void *ud, Run *r, guint from, guint frame)
{
  (void)frame;
  Layout *lay = ud;
  note_dest_folios(r, from);
  for (guint i = from; i < r->body.pages->len; i++) {
    LayPage *p = r->body.pages->pdata[i];
    add_body_page(r, lay, i);
    items_free(p->items);
    p->items = items_new();
  }
}

/* A counting pass with the contents' numbers from folios (or none): its
 * layout (pages empty); *landed takes where the destinations landed;
 * *same_toc whether the contents show the same entries with those
 * numbers as without (then its pages are those of a pass with them). */
static Layout *count_pass(const LayPlan *pl, GHashTable *folios, GHashTable **landed,
                          bool *same_toc)
{
  Run r;
  /* the page breaks without the glyphs */
  run_init(&r, pl->book, pl->opts, pl->st, pl->fonts, pl->colophon, pl->d, true, NULL);
  Layout *lay = layout_new(pl->book, pl->st, pl->fonts);
  layout_notes(&r.env, &r.shp, &r.store);
  handout_flow(&r, folios, count_pages, lay);
  GArray *all = toc_shown(&r, NULL), *shown = toc_shown(&r, r.dest_folio);
  *same_toc = all->len == shown->len;
  g_array_free(all, TRUE);
  g_array_free(shown, TRUE);
  *landed = r.dest_folio;
  r.dest_folio = g_hash_table_new(g_str_hash, g_str_equal);
  run_clear(&r);
  return lay;
}

/* The handout's counting pass (two with --toc when the contents lose
 * entries once their numbers are known): the handout laid out without
 * its glyphs (as the page list's layout) and without keeping its pages,
 * so that memory does not grow with them. It gives the page count that
 * the running heads print ("page N of M"), the pages the contents'
 * entries land on, every destination placed, the page marks: what the
 * drawn pass reads (TeX's .aux, in memory). Free with plan_free. */
static LayPlan *handout_plan(const LayDrive *d, const Book *book, const OctavoOptions *opts,
                             const Style *st, const Fonts *fonts, const Colophon *colophon)
{
  LayPlan *pl = g_new0(LayPlan, 1);
  *pl = (LayPlan){d, book, opts, st, fonts, colophon, NULL, NULL, NULL};
  bool same_toc;
  pl->count = count_pass(pl, NULL, &pl->landed, &same_toc);
  if (opts->toc || st->contents_always) {
    /* the contents' numbers are the first pass's, as handout_whole's */
    pl->folios = pl->landed;
    pl->landed = NULL;
    if (same_toc)
      pl->landed = g_hash_table_ref(pl->folios);
    else { /* fewer entries: other pages; counted again with them */
      lay_free(pl->count);
      pl->count = count_pass(pl, pl->folios, &pl->landed, &same_toc);
    }
  }
  pl->d = NULL; /* counted: the drive's settings are not read again */
  return pl;
}

/* The counting pass's layout (its pages empty), taken from the plan. */
static Layout *plan_take(LayPlan *plan)
{
  Layout *lay = plan->count;
  plan->count = NULL;
  return lay;
}

static void plan_free(LayPlan *plan)
{
  if (!plan)
    return;
  if (plan->folios)
    g_hash_table_unref(plan->folios);
  if (plan->landed)
    g_hash_table_unref(plan->landed);
  lay_free(plan->count);
  g_free(plan);
}

/* The streamed pass's state besides the run. */
typedef struct {
  const LayPlan *pl;
  Layout *lay; /* the pages handed over, emptied */
  const LaySink *sink;
} HandoutStream;

/* Hand page p over with its label, then empty it. Links to destinations
 * that the counting pass never placed are dropped, as drop_dead_links
 * does. */
static void handout_hand_over(HandoutStream *s, LayPage *p)
{
  for (guint k = 0; k < p->items->len;) {
    LayItem *it = &g_array_index(p->items, LayItem, k);
    if (it->kind == LAY_LINK && !it->uri &&
        (!it->dest || !g_hash_table_contains(s->pl->landed, it->dest))) {
      lay_item_clear(it);
      g_array_remove_index(p->items, k);
    } else
      k++;
  }
  GArray *items = p->items;
  p->items = figure_items(items);
  s->sink->page(s->sink->ud, items, p->label); /* the sink's to free */
}

/* The streamed pass's pages: their running heads ("page N of M", M the
 * counting pass's), destinations, labels and page marks, handed over. */
static void stream_pages(void *ud, Run *r, guint from, guint frame)
{
  HandoutStream *s = ud;
  running_heads(&r->env, &r->shp, &r->body, frame, r->outline, s->lay->title,
                (int)s->pl->count->pages->len);
  note_dest_folios(r, from);
  for (guint i = from; i < r->body.pages->len; i++) {
    add_body_page(r, s->lay, i);
    handout_hand_over(s, r->body.pages->pdata[i]);
  }
}

/* Are the page marks a and b (BookPageMark) the same? */
static bool same_marks(const GArray *a, const GArray *b)
{
  if (a->len != b->len)
    return false;
  for (guint i = 0; i < a->len; i++) {
    const BookPageMark *x = &g_array_index(a, BookPageMark, i);
    const BookPageMark *y = &g_array_index(b, BookPageMark, i);
    if (x->page != y->page || x->node != y->node || x->offset != y->offset ||
        strcmp(x->label, y->label))
      return false;
  }
  return true;
}

/* Do a and b hold the same keys? */
static bool same_keys(GHashTable *a, GHashTable *b)
{
  if (g_hash_table_size(a) != g_hash_table_size(b))
    return false;
  GHashTableIter hi;
  gpointer k;
  g_hash_table_iter_init(&hi, a);
  while (g_hash_table_iter_next(&hi, &k, NULL))
    if (!g_hash_table_contains(b, k))
      return false;
  return true;
}

/* The handout drawn as it is laid out with plan's page count and
 * contents' numbers, each page handed to sink, in order, as soon as no
 * later line can change it, then emptied. Returns the layout, its pages
 * emptied (but for their Figure and Note tags and images), its outline
 * and page marks; unresolved when its pages, destinations or page marks
 * are not the plan's (the counting pass lays out the same lines without
 * their glyphs: never, but for a bug). */
static Layout *handout_stream(const LayDrive *d, const LayPlan *plan, const LaySink *sink)
{
  Run r;
  run_init(&r, plan->book, plan->opts, plan->st, plan->fonts, plan->colophon, d, false, sink);
  Layout *lay = layout_new(plan->book, plan->st, plan->fonts);
  HandoutStream s = {plan, lay, sink};
  layout_notes(&r.env, &r.shp, &r.store);
  handout_flow(&r, plan->folios, stream_pages, &s);
  lay->front_pages = 0;
  build_outline(&r, lay);
  /* the counting pass's pages, destinations and page marks were the
   * drawn pass's */
  lay->unresolved = lay->pages->len != plan->count->pages->len ||
                    !same_keys(r.dest_folio, plan->landed) ||
                    !same_marks(lay->page_marks, plan->count->page_marks);
  run_clear(&r);
  return lay;
}

Layout *handout_drive(const LayDrive *d, const Book *book, const OctavoOptions *opts,
                      const Style *st, const Fonts *fonts, const Colophon *col, const LaySink *sink)
{
  bool stream = d->stream && sink->page && d->purpose == LAY_FOR_PRINT;
  if (d->purpose == LAY_FOR_PRINT && !stream) {
    Layout *lay = handout_whole(d, book, opts, st, fonts, col, sink);
    if (sink->marks)
      sink->marks(sink->ud, lay->page_marks);
    return lay;
  }
  /* the page list, or a handout drawn as it is laid out: counted first,
   * unless the caller's aux holds the count of a drive before (the same
   * book drawn again) */
  LayPlan *plan =
      stream && d->aux && d->aux->plan ? d->aux->plan : handout_plan(d, book, opts, st, fonts, col);
  if (sink->marks)
    sink->marks(sink->ud, plan->count->page_marks);
  Layout *lay = stream ? handout_stream(d, plan, sink) : plan_take(plan);
  if (stream && d->aux)
    d->aux->plan = plan; /* the aux's */
  else
    plan_free(plan);
  return lay;
}

LayAux *lay_aux_new(void)
{
  return g_new0(LayAux, 1);
}

void lay_aux_free(LayAux *aux)
{
  if (!aux)
    return;
  plan_free(aux->plan);
  g_free(aux);
}
