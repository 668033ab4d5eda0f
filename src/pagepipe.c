/* pagepipe.c: pages laid out on one thread, drawn on another.
 *
 * the layout driver (lay_drive) hands each finished page to a sink; with two threads the
 * sink is this pipe, which queues the page (at most PIPE_BOUND pages, so
 * memory stays flat) for a drawing thread that runs the real sink (pdf.c's
 * painter into cairo). The layout of the next pages and the drawing of the
 * last ones then overlap; the pages are drawn in the same order, by the
 * same code, so the PDF has the same bytes as with one thread.
 *
 * Thread safety. cairo is thread safe, and the drawing thread is the only
 * one that touches the PDF surface and the painter. pango's objects are
 * not, nor are cairo's fonts made from fontconfig patterns (pango's), which
 * only the holder of fontlock uses, around each call into them.
 * The drawing thread draws glyph runs with the fonts' drawing fonts
 * (fontlock_draw_font, on faces of octavo's own), made for every font of
 * a page, on the layout's thread, before the page is queued
 * (paint_font_ready, under fontlock), so the drawing thread only reads
 * pointers cached already. What pango draws itself (a hex box's mini
 * font) and librsvg (an SVG's text), the drawing thread draws holding
 * fontlock, which nobody holds while waiting (a full queue, the end). And
 * the pipe keeps a
 * reference to every such font until
 * the drawing is done, so that freeing a drawn page's items on the drawing
 * thread never drops a font's last reference (which would finalise it and
 * change the font map's cache while the layout reads it).
 *
 * Diagnostics: what the drawing thread reports (an image that cannot be
 * drawn) is kept apart and put back, when the pipe finishes, where a
 * one-thread run would have given it: after the layout's diagnostics made
 * before that page was handed over.
 *
 * The queue's lock is POSIX's, not GLib's (a futex of its own), so that
 * valgrind's helgrind and drd, and TSan, see what it orders. */
#include "pagepipe.h"

#include <pango/pangocairo.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "fontlock.h"
#include "paint.h"
#include "runplan.h"

/* Pages queued at most; the layout, stopped by a full queue, goes on when
 * half of it is drawn, and the drawing thread, idle, is woken when
 * PIPE_WAKE pages wait (or the last): a thread woken per page costs a
 * context switch per page, and on a busy machine a time slice. The bound
 * absorbs the bursts of a book with figures (a page with a photo takes
 * the drawing thread far longer than the layout takes to set the next
 * pages): on the 10 MB bench book at -j2, with 16 the drawing thread sat
 * idle 2.7 s and the layout stopped 3.4 s, 10.7-11.5 s wall; with 64,
 * idle 0.08 s, 9.0-9.5 s wall (0.76x -j1's), for about 2 MB more; 256
 * gained nothing more. */
enum { PIPE_BOUND = 64, PIPE_WAKE = 4 };

typedef struct {
  GArray *items; /* NULL: the end */
  char *label;
  guint diag_at; /* the layout's diagnostics given before this page */
} Job;

struct PagePipe {
  LaySink inner; /* run on the drawing thread */
  pthread_mutex_t lock;
  pthread_cond_t work; /* jobs queued for the idle drawing thread */
  pthread_cond_t room; /* room made for the stopped layout */
  bool draw_idle, lay_stopped;
  GQueue jobs; /* Job *, at most PIPE_BOUND */
  RunPlan *plan;
  RunThread *thread;
  GHashTable *fonts; /* PangoFont * -> itself: references held (layout thread) */
  PangoFont *last;   /* the last font made ready (layout thread) */
  GArray *ldiags;    /* the layout thread's diagnostics (its capture), or NULL */
  GArray *pdiags;    /* BookDiag: the drawing thread's */
  GArray *pat;       /* guint per pdiags entry: its page's diag_at */
  Book *book;
  bool verbose;            /* say at the end how the two threads spent their time */
  gint64 start_us;         /* the pipe's start (monotonic) */
  gint64 draw_cpu_us;      /* the drawing thread's CPU time, when it ends */
  gint64 idle_us, stop_us; /* waited: the drawing thread for pages, the layout for room */
  guint pages;
};

static gint64 thread_cpu_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64)ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gpointer drawing_thread(gpointer data)
{
  PagePipe *pp = data;
  book_diag_capture(pp->book, pp->pdiags);
  for (;;) {
    pthread_mutex_lock(&pp->lock);
    while (g_queue_is_empty(&pp->jobs)) {
      pp->draw_idle = true;
      gint64 t0 = g_get_monotonic_time();
      pthread_cond_wait(&pp->work, &pp->lock);
      pp->idle_us += g_get_monotonic_time() - t0;
    }
    Job *j = g_queue_pop_head(&pp->jobs);
    if (pp->lay_stopped && g_queue_get_length(&pp->jobs) <= PIPE_BOUND / 2) {
      pp->lay_stopped = false;
      pthread_cond_signal(&pp->room);
    }
    pthread_mutex_unlock(&pp->lock);
    if (!j->items) {
      g_free(j);
      break;
    }
    pp->inner.page(pp->inner.ud, j->items, j->label); /* frees the items */
    while (pp->pat->len < pp->pdiags->len)
      g_array_append_val(pp->pat, j->diag_at);
    g_free(j->label);
    g_free(j);
  }
  book_diag_capture(pp->book, NULL);
  pp->draw_cpu_us = thread_cpu_us();
  return NULL;
}

/* What the drawing thread will ask of font: made here, on the layout's
 * thread, and the font held until the drawing is done. */
static void font_ready(PagePipe *pp, PangoFont *font)
{
  if (font == pp->last || g_hash_table_contains(pp->fonts, font))
    return;
  pp->last = font;
  g_hash_table_add(pp->fonts, g_object_ref(font));
  paint_font_ready(font);
}

static void items_ready(PagePipe *pp, const GArray *items)
{
  fontlock_enter(); /* pango's fonts: cairo's faces */
  for (guint k = 0; k < items->len; k++) {
    const LayItem *it = &g_array_index(items, LayItem, k);
    if (it->kind != LAY_GLYPHS || !it->font || !it->glyphs)
      continue;
    font_ready(pp, it->font);
    for (int g = 0; g < it->glyphs->num_glyphs; g++) {
      PangoGlyph gl = it->glyphs->glyphs[g].glyph;
      if ((gl & PANGO_GLYPH_UNKNOWN_FLAG) && gl != PANGO_GLYPH_EMPTY) {
        /* pango draws a hex box: its mini font is made with the box's
         * extents (shape.c replaces such glyphs; the cover's title may
         * keep them) */
        PangoRectangle r;
        pango_font_get_glyph_extents(it->font, gl, NULL, &r);
      }
    }
  }
  fontlock_leave();
}

static void push(PagePipe *pp, GArray *items, const char *label)
{
  Job *j = g_new0(Job, 1);
  j->items = items;
  j->label = g_strdup(label);
  j->diag_at = pp->ldiags ? pp->ldiags->len : 0;
  pthread_mutex_lock(&pp->lock);
  while (g_queue_get_length(&pp->jobs) >= PIPE_BOUND) {
    pp->lay_stopped = true;
    gint64 t0 = g_get_monotonic_time();
    pthread_cond_wait(&pp->room, &pp->lock);
    pp->stop_us += g_get_monotonic_time() - t0;
  }
  pp->pages += items != NULL;
  g_queue_push_tail(&pp->jobs, j);
  if (pp->draw_idle && (!items || g_queue_get_length(&pp->jobs) >= PIPE_WAKE)) {
    pp->draw_idle = false;
    pthread_cond_signal(&pp->work);
  }
  pthread_mutex_unlock(&pp->lock);
}

static void pipe_page(void *ud, GArray *items, const char *label)
{
  PagePipe *pp = ud;
  items_ready(pp, items);
  push(pp, items, label);
}

PagePipe *page_pipe_start(RunPlan *plan, Book *book, const LaySink *inner, bool verbose)
{
  PagePipe *pp = g_new0(PagePipe, 1);
  pp->inner = *inner;
  pp->book = book;
  pp->verbose = verbose;
  pp->start_us = g_get_monotonic_time();
  pthread_mutex_init(&pp->lock, NULL);
  pthread_cond_init(&pp->work, NULL);
  pthread_cond_init(&pp->room, NULL);
  g_queue_init(&pp->jobs);
  pp->fonts = g_hash_table_new_full(NULL, NULL, g_object_unref, NULL);
  pp->ldiags = book_diag_capturing(book);
  pp->pdiags = g_array_new(FALSE, TRUE, sizeof(BookDiag));
  pp->pat = g_array_new(FALSE, FALSE, sizeof(guint));
  pp->plan = plan;
  pp->thread = runplan_spawn(plan, "octavo-draw", drawing_thread, pp);
  return pp;
}

LaySink page_pipe_sink(PagePipe *pp)
{
  return (LaySink){.page = pipe_page, .ud = pp};
}

/* The drawing thread's diagnostics put where one thread gives them. */
static void merge_diags(PagePipe *pp)
{
  if (!pp->pdiags->len)
    return;
  if (!pp->ldiags) {
    book_diag_take(pp->book, pp->pdiags);
    return;
  }
  GArray *all = g_array_sized_new(FALSE, TRUE, sizeof(BookDiag), pp->ldiags->len + pp->pdiags->len);
  guint k = 0;
  for (guint i = 0; i <= pp->ldiags->len; i++) {
    for (; k < pp->pdiags->len && g_array_index(pp->pat, guint, k) <= i; k++)
      g_array_append_val(all, g_array_index(pp->pdiags, BookDiag, k));
    if (i < pp->ldiags->len)
      g_array_append_val(all, g_array_index(pp->ldiags, BookDiag, i));
  }
  g_array_set_size(pp->ldiags, 0);
  g_array_append_vals(pp->ldiags, all->data, all->len);
  g_array_free(all, TRUE);
  g_array_set_size(pp->pdiags, 0);
}

void page_pipe_finish(PagePipe *pp)
{
  if (!pp)
    return;
  push(pp, NULL, NULL);
  runplan_join(pp->plan, pp->thread);
  if (pp->verbose) /* the wall time on two idle cores: the layout's CPU + its waits */
    fprintf(stderr,
            "octavo: %u pages drawn on a second thread in %.2f s: drawing %.2f s CPU, idle "
            "%.2f s; layout's thread %.2f s CPU since start-up, stopped %.2f s by a full "
            "queue\n",
            pp->pages, (g_get_monotonic_time() - pp->start_us) / 1e6, pp->draw_cpu_us / 1e6,
            pp->idle_us / 1e6, thread_cpu_us() / 1e6, pp->stop_us / 1e6);
  merge_diags(pp);
  g_hash_table_destroy(pp->fonts);
  g_array_free(pp->pdiags, TRUE);
  g_array_free(pp->pat, TRUE);
  pthread_mutex_destroy(&pp->lock);
  pthread_cond_destroy(&pp->work);
  pthread_cond_destroy(&pp->room);
  g_free(pp);
}
