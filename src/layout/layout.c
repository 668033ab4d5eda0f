/* layout/layout.c: the driver. lay_drive lays out the book (or hands the
 * handout to handout.c) with the settings the run plan chose (LayDrive:
 * for print or the page list; kept, or each page handed to a sink as it
 * is final), running the steps of the print layout in order, each a
 * function of its own file:
 *
 *  1. the footnotes, each as its own vertical list (notes.c);
 *  2. each top-level chapter from a new page, the chapters that run on
 *     after it (nested ones) in its flow: their blocks -> a vertical list
 *     (lines, glue and penalties, as in TeX: blocks.c, para.c, lines.c,
 *     table.c), broken into pages and columns with its notes at the page
 *     foot (paginate.c), each page handed on as it is placed;
 *  3. the running heads and folios, the title page and the contents with
 *     the page numbers step 2 found (front.c);
 *  4. page labels, the page marks for the EPUB, the colophon's page
 *     (back.c; the handout sets it after its text), the outline, and links
 *     to destinations never placed dropped.
 *
 * Streamed (book_stream), the front matter comes first but its contents
 * are reserved, drawn after the body from the pass's own destinations
 * (src/README.md, "The layout driver"). The handout (--layout handout: one
 * vertical list, sections running on) is laid out, whole, counted or
 * streamed, by handout.c.
 *
 * No cairo calls: pdf.c draws what this produces. The book, the style and
 * the fonts are only read. */
#include "layout/internal.h"

#include <string.h>

#include "fonts.h"
#include "hyphenate.h"
#include "outline.h"
#include "runplan.h"

static void ptr_array_free(gpointer a)
{
  g_ptr_array_free(a, TRUE);
}

/* ------------------------------------------------------------------------ */
/* Set-up                                                                   */

/* The ids a link may land on: notes, chapters, headings. */
static GHashTable *link_targets(const Book *book)
{
  GHashTable *t = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < book->footnotes->len; i++)
    g_hash_table_add(t, ((BookFootnote *)book->footnotes->pdata[i])->id);
  for (guint i = 0; i < book->chapters->len; i++) {
    BookChapter *ch = book->chapters->pdata[i];
    if (ch->id)
      g_hash_table_add(t, ch->id);
    BookIter it;
    book_iter_init(&it, ch->root);
    while (book_iter_next(&it) != BOOK_ITER_DONE)
      if (it.ev == BOOK_ITER_ENTER && it.cur->type == BOOK_HEADING && it.cur->as.heading.id)
        g_hash_table_add(t, it.cur->as.heading.id);
  }
  return t;
}

static void env_init(LayEnv *env, const Book *book, const OctavoOptions *opts, const Style *st,
                     const char *lang, const Colophon *colophon, Hyphenator *hyph)
{
  memset(env, 0, sizeof *env);
  env->book = book;
  env->opts = opts;
  env->st = st;
  env->hyphenator = hyph;
  env->hyph = hyphen_has_language(hyph, lang);
  lb_params_default(&env->lbp);
  env->lbp.emergency_stretch = st->body_size_pt * 1.5;
  env->lbp.max_hyphen_run = 2; /* no three hyphenated lines in a row */
  env->mode = opts->linebreak == OCTAVO_BREAK_GREEDY ? LB_GREEDY : LB_OPTIMAL;
  env->url_end = opts->link_notes == OCTAVO_NOTES_END;
  env->chapter_level = book->chapter_level;
  env->text_w = st->paper_w_pt - st->margin_inner_pt - st->margin_outer_pt;
  env->text_h = st->paper_h_pt - st->margin_top_pt - st->margin_bottom_pt;
  env->cols.n = opts->columns == 2 ? 2 : 1;
  env->cols.w_pt = (env->text_w - (env->cols.n - 1) * st->column_gap_pt) / env->cols.n;
  env->cols.gap_pt = st->column_gap_pt;
  env->body = font_desc(st->body_face, st->body_size_pt, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  env->targets = link_targets(book);
  env->colophon = colophon;
}

void run_init(Run *r, const Book *book, const OctavoOptions *opts, const Style *st,
              const Fonts *fonts, const Colophon *colophon, const LayDrive *d, bool counting,
              const LaySink *sink)
{
  memset(r, 0, sizeof *r);
  runplan_count_pass(opts->plan); /* a Run is one pass over the book */
  int helpers = counting ? d->count_helpers : d->helpers;
  Hyphenator *hyph = d->hyphenator;
  if (!hyph)
    hyph = r->own_hyph = hyphenator_new();
  const char *lang = book->meta.lang; /* always set (book.h) */
  shaper_init(&r->shp, fonts_context(fonts), hyph, lang);
  env_init(&r->env, book, opts, st, lang, colophon, hyph);
  r->env.marks_only = counting || d->purpose == LAY_FOR_PAGE_LIST;
  r->store.notes = g_hash_table_new(NULL, NULL);
  r->store.note_h = g_hash_table_new_full(NULL, NULL, NULL, g_free);
  r->store.kids = g_hash_table_new_full(NULL, NULL, NULL, ptr_array_free);
  r->store.once = g_hash_table_new(NULL, NULL);
  r->store.dests = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  r->store.url_notes = g_ptr_array_new_with_free_func(url_note_free);
  r->store.url_index = g_hash_table_new(g_str_hash, g_str_equal);
  body_init(&r->body);
  r->body.sink = sink;
  r->outline = outline_new(book, r->env.chapter_level, opts->toc_depth,
                           labels_get(lang, LABEL_UNTITLED_SECTION));
  r->dest_folio = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  /* the helpers the plan gives the pass: the chapters set on them when
   * the plan says so (a book of two flows or more), else the paragraphs
   * shaped on one */
  if (!counting && d->chapter_threads > 0 && st->chapter_new_page)
    r->pool = pool_start(r, fonts, MIN(helpers, d->chapter_threads));
  if (!r->pool)
    r->shp.ahead = ahead_start(&r->env, fonts, lang, helpers);
}

void run_clear(Run *r)
{
  pool_stop(r->pool);
  ahead_stop(r->shp.ahead);
  GHashTableIter hi;
  gpointer k, v;
  g_hash_table_iter_init(&hi, r->store.notes);
  while (g_hash_table_iter_next(&hi, &k, &v))
    vlist_free(v);
  g_hash_table_destroy(r->store.notes);
  g_hash_table_destroy(r->store.note_h);
  g_hash_table_destroy(r->store.kids);
  g_hash_table_destroy(r->store.once);
  g_hash_table_destroy(r->store.dests);
  g_hash_table_destroy(r->store.url_index);
  g_ptr_array_free(r->store.url_notes, TRUE);
  g_hash_table_destroy(r->env.targets);
  pango_font_description_free(r->env.body);
  shaper_clear(&r->shp);
  body_clear(&r->body);
  outline_free(r->outline);
  g_hash_table_destroy(r->dest_folio);
  hyphenator_free(r->own_hyph); /* after every shaper that read it */
}

/* An empty layout of the style's paper, with the book's title as printed. */
Layout *layout_new(const Book *book, const Style *st, const Fonts *fonts)
{
  Layout *lay = g_new0(Layout, 1);
  lay->page_w_pt = st->paper_w_pt;
  lay->page_h_pt = st->paper_h_pt;
  lay->pages = g_ptr_array_new_with_free_func((GDestroyNotify)page_free);
  lay->outline = g_array_new(FALSE, TRUE, sizeof(LayOutline));
  lay->page_marks = g_array_new(FALSE, TRUE, sizeof(BookPageMark));
  lay->title = g_strdup(book->meta.title); /* always set (book.h) */
  lay->fonts = fonts;
  return lay;
}

/* ------------------------------------------------------------------------ */
/* The chapters                                                             */

/* A chapter's vertical list: its opening (section tag, destination, the
 * drop, the title) set to the text block's width, so that with two columns
 * it spans them; then its blocks at a column's width, and with
 * --link-notes=end its URL list. *span_end: the items of the opening.
 * Its URL notes and the destinations it emits go to store (pool.c: a
 * store of its own on another thread). */
GArray *chapter_vlist(const LayEnv *env, LayShaper *shp, LayStore *store, guint ci, guint *span_end)
{
  BookChapter *ch = env->book->chapters->pdata[ci];
  store->url_chapter = ci + 1;
  Build cb, *c = &cb;
  build_init(c, env, shp, store, env->text_w);
  open_tag(c, "Sect");
  emit_dest_pending(c, ch->id);
  bool on = lay_runs_on(env, ci); /* no drop: it runs on after the one before (flow_chapters) */
  if (on) {
    *span_end = 0;
  } else {
    emit_line(c, items_new(), c->st->chapter_drop_pt * (ch->heading || ci == 0 ? 1 : 0.5), 0);
    c->keep = 3;
    c->first_block = true;
    if (ch->heading)
      do_heading(c, ch->heading, true);
    else if (ci == 0) {
      /* the opening chapter: the book's title heads its first page (a
       * level 1 heading without a node: no page mark, no destination) */
      Para p;
      para_init(&p);
      para_text(&p, NULL, env->book->meta.title, 0); /* always set (book.h) */
      set_heading(c, &p, 1, NULL, NULL, true);
      para_clear(&p);
    } else
      c->keep = 0;
    *span_end = c->vl->len;
  }
  c->measure = env->cols.w_pt; /* below the title: a column */
  walk_blocks(c, ch->root, on ? NULL : ch->heading);
  if (env->url_end)
    url_notes_end(c);
  close_tag(c, "Sect");
  vl_end(c);
  GArray *vl = build_take(c);
  build_clear(c);
  return vl;
}

/* Chapter ci's vertical list, its URL notes from r->store.url_first on,
 * lettered on from r->store.url_base:
 * set here, or taken from the threads that set chapters ahead. */
static GArray *chapter_take(Run *r, guint ci, guint *span_end)
{
  if (r->pool)
    return pool_take(r->pool, ci, span_end);
  return chapter_vlist(&r->env, &r->shp, &r->store, ci, span_end);
}

/* Does chapter ci of book run on after the one before it (no new page)?
 * The one rule: lay_runs_on and lay_flows read it. */
static bool chapter_runs_on(const Book *book, guint ci)
{
  const BookChapter *ch = book->chapters->pdata[ci];
  return ci > 0 && (book->article || !ch->heading ||
                    ch->heading->as.heading.level > book->chapter_level || ch->nest > 0);
}

bool lay_runs_on(const LayEnv *env, guint ci)
{
  return chapter_runs_on(env->book, ci);
}

unsigned lay_flows(const Book *book)
{
  unsigned n = 0;
  for (guint ci = 0; ci < book->chapters->len; ci++)
    n += !chapter_runs_on(book, ci);
  return n;
}

/* Chapter ci's vertical list, its URL notes at the page foot laid out
 * (with --link-notes=foot): lettered from a where a flow opens, else on
 * from the chapters before it in its flow (url_base). */
static GArray *chapter_notes_take(Run *r, guint ci, guint *span_end)
{
  LayStore *s = &r->store;
  if (!lay_runs_on(&r->env, ci))
    s->url_base = 0;
  GArray *vl = chapter_take(r, ci, span_end);
  if (!r->env.url_end)
    url_notes_foot(&r->env, &r->shp, s, s->url_first);
  s->url_base += s->url_notes->len - s->url_first;
  s->url_first = s->url_notes->len;
  return vl;
}

/* Chapter ci from a new page, and the chapters that run on after it
 * (lay_runs_on: an mdBook's nested chapters, files that open with no
 * chapter heading) in the same flow, joined by a heading's space where a
 * page may break: each chapter set in turn and fed to one PageFeed, which
 * hands each page to placed(ud, from, frame) as soon as it is placed (as
 * the handout does), and the list's head no page to come reads freed.
 * So a run of chapters is never held whole: one chapter's list, and the
 * pages the runt rule may still change (paginate.c: one). The first line
 * of each chapter that runs on carries it (VItem.chapter), so that each
 * page's head names the chapter current there (paginate.c's feed_place).
 * Returns the last chapter taken. */
static guint flow_chapters(Run *r, guint ci, void (*placed)(void *ud, guint from, guint frame),
                           void *ud)
{
  const Book *book = r->env.book;
  guint span_end;
  GArray *vl = chapter_notes_take(r, ci, &span_end);
  PageFeed f;
  feed_init(&f, &r->env, &r->store, &r->env.cols, &r->body, book->chapters->pdata[ci], span_end);
  f.placed_page = placed;
  f.ud = ud;
  for (;;) {
    bool last = ci + 1 >= book->chapters->len || !lay_runs_on(&r->env, ci + 1);
    feed_pages(&f, vl, last);
    if (last)
      break;
    feed_trim(&f, vl);
    guint se;
    GArray *more = chapter_notes_take(r, ++ci, &se);
    for (guint k = 0; k < more->len; k++) /* where the running heads change (paginate.c) */
      if (g_array_index(more, VItem, k).kind == V_LINE) {
        g_array_index(more, VItem, k).chapter = book->chapters->pdata[ci];
        break;
      }
    if (vl->len && g_array_index(vl, VItem, vl->len - 1).kind == V_LINE) {
      VItem g = {.kind = V_GLUE, .h_pt = r->env.st->heading_before_pt * 1.5, .header = -1};
      g_array_append_val(vl, g);
    }
    for (guint k = 0; k < more->len; k++) { /* a repeated table header's index moves */
      VItem *v = &g_array_index(more, VItem, k);
      if (v->header >= 0)
        v->header += (int)vl->len;
    }
    g_array_append_vals(vl, more->data, more->len);
    g_array_free(more, TRUE); /* its items moved, not copied */
  }
  feed_clear(&f);
  vlist_free(vl);
  return ci;
}

/* Without keep (the page list alone) each page is emptied as soon as it
 * is placed, where each destination landed noted first: only their folios
 * and page marks are wanted, so memory does not grow with the pages. */
static void count_page(void *ud, guint from, guint frame)
{
  (void)frame;
  Run *r = ud;
  note_dest_folios(r, from);
  for (guint i = from; i < r->body.pages->len; i++) {
    LayPage *p = r->body.pages->pdata[i];
    items_free(p->items);
    p->items = items_new();
  }
}

/* Each top-level chapter from a new page, the chapters that run on after
 * it in its flow (flow_chapters). */
static void lay_chapters(Run *r, bool keep)
{
  for (guint ci = 0; ci < r->env.book->chapters->len; ci++)
    ci = flow_chapters(r, ci, keep ? NULL : count_page, r);
}

/* Where every destination landed: the folio of its first body page
 * (pages from `from` on; earlier ones noted already). */
void note_dest_folios(Run *r, guint from)
{
  for (guint i = from; i < r->body.pages->len; i++) {
    LayPage *p = r->body.pages->pdata[i];
    for (guint k = 0; k < p->items->len; k++) {
      LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_DEST && !g_hash_table_contains(r->dest_folio, it->dest)) {
        int *f = g_new(int, 1);
        *f = p->folio;
        g_hash_table_insert(r->dest_folio, g_strdup(it->dest), f);
      }
    }
  }
}

static void find_dest_folios(Run *r)
{
  note_dest_folios(r, 0);
}

/* ------------------------------------------------------------------------ */
/* Front matter, pages, outline                                             */

static void front_labels(Layout *lay);

/* The title page and the contents (the outline's entries to --toc-depth
 * that landed on a page), padded to an even count so that the body starts on a recto; their
 * labels are roman. */
static void lay_front(Run *r, Layout *lay, bool print)
{
  if (print)
    title_page(&r->env, &r->shp, &r->store, lay, lay->title);
  else /* the page list counts it, never sees it */
    g_ptr_array_add(lay->pages, page_new());
  GArray *shown = g_array_new(FALSE, TRUE, sizeof(TocEntry));
  for (guint i = 0; i < r->outline->entries->len; i++) {
    const OutlineEntry *oe = outline_entry(r->outline, i);
    if (oe->in_toc && g_hash_table_contains(r->dest_folio, oe->id)) {
      TocEntry e = {oe->depth, oe->title, oe->id, oe->code};
      g_array_append_val(shown, e);
    }
  }
  contents(&r->env, &r->shp, &r->store, lay, shown, r->dest_folio);
  g_array_free(shown, TRUE);
  front_labels(lay);
}

/* The front matter's pages (lay's so far) padded to an even count, so
 * that the body starts on a recto, and labelled in roman. */
static void front_labels(Layout *lay)
{
  if (lay->pages->len % 2) /* the body starts on a recto */
    g_ptr_array_add(lay->pages, page_new());
  lay->front_pages = (int)lay->pages->len;
  for (int i = 0; i < lay->front_pages; i++) {
    LayPage *p = lay->pages->pdata[i];
    p->front = true;
    p->folio = i + 1;
    p->label = roman(i + 1);
  }
}

/* The body pages after the front matter, labelled by folio, and a page
 * mark for each that has a line from the source. */
void add_body(Run *r, Layout *lay)
{
  for (guint i = 0; i < r->body.pages->len; i++)
    add_body_page(r, lay, i);
}

void add_body_page(Run *r, Layout *lay, guint i)
{
  LayPage *p = r->body.pages->pdata[i];
  p->label = g_strdup_printf("%d", p->folio);
  g_ptr_array_add(lay->pages, p);
  add_page_mark(r, lay, i);
}

/* The page mark of body page i (at lay->front_pages + i), if a line from
 * the source starts it. */
void add_page_mark(Run *r, Layout *lay, guint i)
{
  LayPage *p = r->body.pages->pdata[i];
  PageMark *pm = &g_array_index(r->body.marks, PageMark, i);
  if (pm->node) {
    BookPageMark m = {lay->front_pages + (int)i + 1, g_strdup(p->label), pm->node, pm->off};
    g_array_append_val(lay->page_marks, m);
  }
}

/* The bookmarks: the outline's entries to --toc-depth that landed on a
 * page (the contents' entries), nested as the outline nests them; their
 * titles plain text. */
void build_outline(Run *r, Layout *lay)
{
  guint n = r->outline->entries->len;
  int *at = g_new(int, n); /* outline index -> bookmark index, or -1 */
  for (guint i = 0; i < n; i++) {
    const OutlineEntry *oe = outline_entry(r->outline, i);
    at[i] = -1;
    if (!oe->in_toc || !g_hash_table_contains(r->dest_folio, oe->id))
      continue;
    int parent = oe->parent;
    while (parent >= 0 && at[parent] < 0)
      parent = outline_entry(r->outline, (guint)parent)->parent;
    LayOutline o = {oe->depth, parent >= 0 ? at[parent] : -1, g_strdup(oe->title),
                    g_strdup(oe->id)};
    g_array_append_val(lay->outline, o);
    at[i] = (int)lay->outline->len - 1;
  }
  g_free(at);
}

/* The contents' entries: the outline's to --toc-depth (those that landed
 * on a page when `landed` is known). */
GArray *toc_shown(const Run *r, GHashTable *landed)
{
  GArray *shown = g_array_new(FALSE, TRUE, sizeof(TocEntry));
  for (guint i = 0; i < r->outline->entries->len; i++) {
    const OutlineEntry *oe = outline_entry(r->outline, i);
    if (oe->in_toc && (!landed || g_hash_table_contains(landed, oe->id))) {
      TocEntry e = {oe->depth, oe->title, oe->id, oe->code};
      g_array_append_val(shown, e);
    }
  }
  return shown;
}

/* Links to destinations that were never placed are dropped. */
void drop_dead_links(Layout *lay)
{
  GHashTable *all = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < lay->pages->len; i++) {
    LayPage *p = lay->pages->pdata[i];
    for (guint k = 0; k < p->items->len; k++) {
      LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_DEST)
        g_hash_table_add(all, it->dest);
    }
  }
  for (guint i = 0; i < lay->pages->len; i++) {
    LayPage *p = lay->pages->pdata[i];
    for (guint k = 0; k < p->items->len;) {
      LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_LINK && !it->uri &&
          (!it->dest || !g_hash_table_contains(all, it->dest))) {
        lay_item_clear(it);
        g_array_remove_index(p->items, k);
      } else
        k++;
    }
  }
  g_hash_table_destroy(all);
}

/* ------------------------------------------------------------------------ */
/* Streaming: each page handed over as soon as it is final                  */

/* One book_stream call's state besides the run. */
typedef struct {
  Run *r;
  Layout *lay; /* the pages in the book's order (emptied once drawn) */
  const LaySink *sink;
  guint drawn;         /* pages handed over so far */
  GHashTable *known;   /* destinations on the front and back pages (owned names) */
  GHashTable *forward; /* link destinations not placed yet when their page was
                         * drawn (owned): they must be placed by the end */
} Stream;

static bool dest_known(const Stream *s, const char *dest)
{
  return g_hash_table_contains(s->r->dest_folio, dest) || g_hash_table_contains(s->known, dest);
}

/* The destinations of a page outside the body. */
static void note_known(Stream *s, const LayPage *p)
{
  for (guint k = 0; k < p->items->len; k++) {
    const LayItem *it = &g_array_index(p->items, LayItem, k);
    if (it->kind == LAY_DEST)
      g_hash_table_add(s->known, g_strdup(it->dest));
  }
}

static bool keeps_figures(const LayItem *it)
{
  return it->kind == LAY_IMAGE || ((it->kind == LAY_TAG_BEGIN || it->kind == LAY_TAG_END) &&
                                   (!strcmp(it->tag, "Figure") || !strcmp(it->tag, "Note")));
}

/* What a drawn page keeps for the archive pass, which matches the
 * structure tree's figures with it (archive_fig.c): the Figure and Note
 * tags and the images of items, which own nothing (shallow copies). */
GArray *figure_items(const GArray *items)
{
  GArray *kept = g_array_new(FALSE, TRUE, sizeof(LayItem));
  for (guint i = 0; i < items->len; i++) {
    const LayItem *it = &g_array_index(items, LayItem, i);
    if (keeps_figures(it))
      g_array_append_vals(kept, it, 1);
  }
  return kept;
}

/* Hand page p over as the PDF's next page, with the label of the book's
 * page at that position, then empty it. Links to nowhere are dropped, as
 * drop_dead_links does; once every page that can hold a destination is
 * laid out (`all_placed`), so are links to destinations never placed;
 * before, such a link's destination is noted, to be checked at the end. */
static void hand_over(Stream *s, LayPage *p, bool all_placed)
{
  for (guint k = 0; k < p->items->len;) {
    LayItem *it = &g_array_index(p->items, LayItem, k);
    if (it->kind == LAY_LINK && !it->uri && (!it->dest || !dest_known(s, it->dest))) {
      if (it->dest && !all_placed) {
        g_hash_table_add(s->forward, g_strdup(it->dest));
        k++;
        continue;
      }
      lay_item_clear(it);
      g_array_remove_index(p->items, k);
    } else
      k++;
  }
  const LayPage *at = s->lay->pages->pdata[s->drawn++];
  GArray *items = p->items;
  p->items = figure_items(items);
  s->sink->page(s->sink->ud, items, at->label); /* the sink's to free */
}

/* A page of a chapter placed (flow_chapters: final, as nothing placed
 * later changes it): its running head, folio and page mark, where its
 * destinations landed; then it is handed over, so that a chapter's pages
 * are drawn and emptied as they are placed, never held all at once (a
 * chapter of 2,700 pages of footnotes held 430 MB of them). A link to a
 * destination later in the chapter is checked at the end (`forward`). */
static void stream_page(void *ud, guint from, guint frame)
{
  Stream *s = ud;
  Run *r = s->r;
  /* the page's first frame (a previous page's last may be padded first) */
  while (frame < r->body.frames->len &&
         g_array_index(r->body.frames, Frame, frame).page != r->body.pages->pdata[from])
    frame++;
  running_heads(&r->env, &r->shp, &r->body, frame, r->outline, s->lay->title, 0);
  note_dest_folios(r, from);
  for (guint i = from; i < r->body.pages->len; i++)
    add_body_page(r, s->lay, i);
  for (guint i = from; i < r->body.pages->len; i++)
    hand_over(s, r->body.pages->pdata[i], false);
}

/* Each top-level chapter from a new page, as lay_chapters does; each
 * page handed over as it is placed (stream_page). */
static void stream_chapters(Stream *s)
{
  for (guint ci = 0; ci < s->r->env.book->chapters->len; ci++)
    ci = flow_chapters(s->r, ci, stream_page, s);
}

/* The contents with their page numbers (the pass's own: every body page is
 * placed) in place of the pages reserved for them (lay's 1 .. 1 + n): an
 * entry's lines do not depend on its number, and every entry's heading is
 * placed (the outline's entries are chapters and their headings, each
 * laid out once). False when that did not hold (`shown` entries reserved
 * for): the contents drawn are the reserved pages, unresolved. */
static bool contents_final(Stream *s, guint shown_before, guint n)
{
  Run *r = s->r;
  GArray *shown = toc_shown(r, r->dest_folio);
  Layout *toc = layout_new(r->env.book, r->env.st, s->lay->fonts);
  g_ptr_array_add(toc->pages, page_new()); /* the title page's place: the parity */
  contents(&r->env, &r->shp, &r->store, toc, shown, r->dest_folio);
  bool same = shown->len == shown_before && toc->pages->len == 1 + n;
  for (guint i = 1; same && i <= n; i++) {
    LayPage *old = s->lay->pages->pdata[i], *p = toc->pages->pdata[i];
    p->front = old->front;
    p->folio = old->folio;
    p->label = old->label;
    old->label = NULL;
    s->lay->pages->pdata[i] = p;
    toc->pages->pdata[i] = old;
  }
  g_array_free(shown, TRUE);
  lay_free(toc);
  return same;
}

/* Whether every link drawn before its destination was placed found it. */
static bool forward_placed(const Stream *s)
{
  GHashTableIter hi;
  gpointer k;
  g_hash_table_iter_init(&hi, s->forward);
  while (g_hash_table_iter_next(&hi, &k, NULL))
    if (!dest_known(s, k))
      return false;
  return true;
}

/* The book drawn as it is laid out (lay_drive with a page sink and
 * d->stream): the title page, the contents reserved at their length (an
 * entry's lines do not depend on its number), which gives the front
 * matter's page count and so every body page's label and mark; the body,
 * chapter by chapter, each page handed over as it is placed; the
 * colophon's page; then the contents with their numbers, last (the
 * PDF's archive pass moves them after the title page). A link drawn
 * before its destination is placed is checked at the end. */
static Layout *book_stream(const LayDrive *d, const Book *book, const OctavoOptions *opts,
                           const Style *st, const Fonts *fonts, const Colophon *colophon,
                           const LaySink *sink)
{
  Run r;
  run_init(&r, book, opts, st, fonts, colophon, d, false, sink);
  Layout *lay = layout_new(book, st, fonts);
  Stream s = {&r,
              lay,
              sink,
              0,
              g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
              g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL)};
  layout_notes(&r.env, &r.shp, &r.store);
  title_page(&r.env, &r.shp, &r.store, lay, lay->title);
  /* the contents at their final length, numbers not known yet: an entry's
   * lines do not depend on its number (its room is reserved) */
  GArray *shown = toc_shown(&r, NULL);
  guint shown_before = shown->len;
  contents(&r.env, &r.shp, &r.store, lay, shown, NULL);
  g_array_free(shown, TRUE);
  guint ntoc = lay->pages->len - 1;
  front_labels(lay);
  for (guint i = 0; i < lay->pages->len; i++)
    note_known(&s, lay->pages->pdata[i]);
  hand_over(&s, lay->pages->pdata[0], false);
  stream_chapters(&s);
  if (colophon) {
    colophon_page(&r.env, &r.shp, &r.store, lay);
    note_known(&s, g_ptr_array_index(lay->pages, lay->pages->len - 1));
    hand_over(&s, g_ptr_array_index(lay->pages, lay->pages->len - 1), true);
  }
  bool same = contents_final(&s, shown_before, ntoc);
  /* the contents (and the padding page) last: the PDF moves them after
   * the title page */
  for (int i = 1; i < lay->front_pages; i++)
    hand_over(&s, lay->pages->pdata[i], true);
  lay->unresolved = !same + !forward_placed(&s);
  build_outline(&r, lay);
  g_hash_table_destroy(s.known);
  g_hash_table_destroy(s.forward);
  run_clear(&r);
  return lay;
}

/* ------------------------------------------------------------------------ */
/* The driver                                                               */

/* The book kept whole (for print: several PDFs, --preview, --dump-layout),
 * or only counted (the page list: each page emptied as it is placed):
 * the body first, then the front matter with the numbers it found. */
static Layout *book_whole(const LayDrive *d, const Book *book, const OctavoOptions *opts,
                          const Style *st, const Fonts *fonts, const Colophon *colophon,
                          const LaySink *sink)
{
  bool print = d->purpose == LAY_FOR_PRINT;
  Run r;
  run_init(&r, book, opts, st, fonts, colophon, d, false, sink);
  Layout *lay = layout_new(book, st, fonts);
  layout_notes(&r.env, &r.shp, &r.store);
  lay_chapters(&r, print);
  find_dest_folios(&r);
  if (print)
    running_heads(&r.env, &r.shp, &r.body, 0, r.outline, lay->title, 0);
  lay_front(&r, lay, print);
  add_body(&r, lay);
  if (colophon && print)
    colophon_page(&r.env, &r.shp, &r.store, lay);
  if (print) {
    build_outline(&r, lay);
    drop_dead_links(lay);
  }
  run_clear(&r);
  return lay;
}

Layout *lay_drive(const LayDrive *d, const Book *book, const OctavoOptions *opts, const Style *st,
                  const Fonts *fonts, const Colophon *colophon, const LaySink *sink)
{
  static const LaySink none = {0};
  if (!sink)
    sink = &none;
  if (!st->chapter_new_page) /* the handout: its sections run on */
    return handout_drive(d, book, opts, st, fonts, colophon, sink);
  bool stream = d->stream && sink->page && d->purpose == LAY_FOR_PRINT;
  Layout *lay = (stream ? book_stream : book_whole)(d, book, opts, st, fonts, colophon, sink);
  if (sink->marks)
    sink->marks(sink->ud, lay->page_marks);
  return lay;
}

Layout *lay_book(const Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts,
                 const Colophon *colophon)
{
  LayDrive d = {.purpose = LAY_FOR_PRINT}; /* no helpers: on this thread only */
  return lay_drive(&d, book, opts, st, fonts, colophon, NULL);
}

void lay_free(Layout *lay)
{
  if (!lay)
    return;
  g_ptr_array_free(lay->pages, TRUE);
  for (guint i = 0; i < lay->outline->len; i++) {
    LayOutline *o = &g_array_index(lay->outline, LayOutline, i);
    g_free(o->title);
    g_free(o->dest);
  }
  g_array_free(lay->outline, TRUE);
  g_free(lay->title);
  for (guint i = 0; i < lay->page_marks->len; i++)
    g_free(g_array_index(lay->page_marks, BookPageMark, i).label);
  g_array_free(lay->page_marks, TRUE);
  g_free(lay);
}
