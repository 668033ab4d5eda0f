/* layout/pool.c: a book's chapters set on several threads.
 *
 * A chapter's vertical list (its lines, glue and penalties: chapter_vlist,
 * most of the layout's time) depends on the book and the options, not on
 * the pages before it, but for two things the chapters before it leave in
 * the run's store: the destinations already emitted (a name is emitted
 * once in the book) and the URL notes. A chapter's notes are named from
 * its first, "url <chapter>-<n>", and lettered on from the notes of the
 * chapters before it in its flow (the chapter that opens a page and those
 * that run on after it, lay_runs_on), from a where a flow opens: so a
 * chapter makes the same notes alone once it knows how many the chapters
 * before it in its flow made. So with threads to spare, threads of their
 * own build the chapters' lists ahead of the layout, in order, each into a
 * store of its own: a flow's chapters one after the other (a chapter is
 * claimed once the one before it in its flow is set and its notes
 * counted), the flows side by side; the layout (the
 * caller of pool_take, which paginates the chapters in order) takes each
 * list in turn and adds its URL notes and destinations to the run's
 * store. A chapter that emitted a destination an earlier one (or a note)
 * had emitted first would be set again by the layout, as one thread sets
 * it (the book's ids are unique, and the layout's own names, a URL note's
 * or a reference's, hold a space no id holds: no book does it now; the
 * test keeps the bytes the same whatever the threads should that change,
 * and t-threads compares them).
 * While the chapter it wants is being built, the layout builds the next
 * one nobody has claimed, as the threads do: both cores stay busy.
 *
 * Each thread shapes on a context of its own (shape_thread_context: its
 * own pango font map, each font readied before another thread sees it),
 * and asks for font metrics under fontlock.c's lock (shaper.c). A thread
 * runs at most `ahead` chapters beyond the one the layout takes, and
 * starts none while the lists built and not taken hold ITEMS_AHEAD items
 * or more (long chapters: what a streamed PDF keeps stays bounded). */
#include "layout/internal.h"

#include <stdio.h>
#include <string.h>

#include "runplan.h"
#include <pthread.h>

/* A chapter's state: nobody's yet, being built (by a thread or by the
 * layout for a later turn), built, or the layout's (taken, or set by it
 * in its turn). */
enum { FREE, BUILDING, BUILT, TAKEN };

enum { ITEMS_AHEAD = 16384 }; /* a few thousand lines: about a hundred pages */

typedef struct {
  int state;  /* under the mutex */
  int notes;  /* the URL notes it made once set (under the mutex), or -1 */
  guint base; /* the notes of its flow before it: its letters go on from there */
  GArray *vl;
  guint span_end;
  LayStore store; /* its URL notes and destinations */
} Job;

typedef struct {
  struct Pool *pool;
  LayShaper shp;
  RunThread *thread;
} Worker;

struct Pool {
  pthread_mutex_t mutex;
  pthread_cond_t changed; /* a chapter was built, the layout took one, or stop */
  Run *r;
  Job *jobs;
  guint n;
  guint next;  /* the first chapter nobody has claimed */
  guint taken; /* chapters the layout has taken */
  guint ahead; /* how far beyond `taken` a thread may build */
  guint items; /* in the lists built and not taken */
  bool stop;
  Worker *workers;
  int nworkers;
  guint built;      /* chapters built beside the layout's turn (its own helping included) */
  guint again;      /* of those, set again by the layout (a destination emitted before) */
  gint64 waited_us; /* the layout's time waiting for a chapter being built */
};

static void store_local(LayStore *s)
{
  memset(s, 0, sizeof *s);
  s->url_notes = g_ptr_array_new_with_free_func(url_note_free);
  s->url_index = g_hash_table_new(g_str_hash, g_str_equal);
  s->dests = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

static void store_local_clear(LayStore *s)
{
  if (!s->url_notes)
    return;
  g_ptr_array_free(s->url_notes, TRUE);
  g_hash_table_destroy(s->url_index);
  g_hash_table_destroy(s->dests);
  s->url_notes = NULL;
}

/* Build chapter ci into its job's own store, with shaper shp. */
static void build(Pool *p, LayShaper *shp, guint ci)
{
  Job *j = &p->jobs[ci];
  store_local(&j->store);
  j->store.url_base = j->base;
  j->vl = chapter_vlist(&p->r->env, shp, &j->store, ci, &j->span_end);
}

/* Claim the first free chapter within reach of the layout whose letters
 * are known (it opens a flow, or the chapter before it is set) (under the
 * mutex): its index, or G_MAXUINT. */
static guint claim(Pool *p)
{
  while (p->next < p->n && p->jobs[p->next].state != FREE)
    p->next++;
  for (guint ci = p->next; ci < p->n && ci < p->taken + p->ahead; ci++) {
    if (ci > p->taken && p->items >= ITEMS_AHEAD)
      break;
    Job *j = &p->jobs[ci];
    if (j->state != FREE)
      continue;
    if (!lay_runs_on(&p->r->env, ci))
      j->base = 0;
    else if (j[-1].notes >= 0)
      j->base = j[-1].base + (guint)j[-1].notes;
    else
      continue;
    j->state = BUILDING;
    return ci;
  }
  return G_MAXUINT;
}

/* Chapter ci built (under the mutex). */
static void done(Pool *p, guint ci)
{
  Job *j = &p->jobs[ci];
  j->state = BUILT;
  j->notes = (int)j->store.url_notes->len;
  p->items += j->vl->len;
  p->built++;
}

static gpointer worker_thread(gpointer data)
{
  Worker *w = data;
  Pool *p = w->pool;
  pthread_mutex_lock(&p->mutex);
  while (!p->stop && p->next < p->n) {
    guint ci = claim(p);
    if (ci == G_MAXUINT) {
      pthread_cond_wait(&p->changed, &p->mutex);
      continue;
    }
    pthread_mutex_unlock(&p->mutex);
    build(p, &w->shp, ci);
    pthread_mutex_lock(&p->mutex);
    done(p, ci);
    pthread_cond_broadcast(&p->changed);
  }
  pthread_mutex_unlock(&p->mutex);
  return NULL;
}

Pool *pool_start(Run *r, const Fonts *fonts, int workers)
{
  guint n = r->env.book->chapters->len;
  RunPlan *plan = r->env.opts->plan;
  if (workers < 1 || n < 2 || !fonts || !plan)
    return NULL;
  if ((guint)workers > n - 1)
    workers = (int)n - 1;
  Pool *p = g_new0(Pool, 1);
  pthread_mutex_init(&p->mutex, NULL);
  pthread_cond_init(&p->changed, NULL);
  p->r = r;
  p->n = n;
  p->jobs = g_new0(Job, n);
  for (guint i = 0; i < n; i++)
    p->jobs[i].notes = -1;
  p->ahead = 4 * ((guint)workers + 1);
  p->nworkers = workers;
  p->workers = g_new0(Worker, workers);
  for (int i = 0; i < workers; i++) {
    Worker *w = &p->workers[i];
    w->pool = p;
    shaper_init(&w->shp, shape_thread_context(fonts), r->env.hyphenator, r->shp.lang);
  }
  for (int i = 0; i < workers; i++)
    p->workers[i].thread = runplan_spawn(plan, "octavo-chapter", worker_thread, &p->workers[i]);
  return p;
}

/* Job j's URL notes and destinations into the run's store, as if set
 * there; false (nothing moved) when it emitted a destination the store
 * has: set there, the chapter would not have. */
static bool merge(Run *r, Job *j)
{
  GHashTableIter hi;
  gpointer k;
  g_hash_table_iter_init(&hi, j->store.dests);
  while (g_hash_table_iter_next(&hi, &k, NULL))
    if (g_hash_table_contains(r->store.dests, k))
      return false;
  g_hash_table_iter_init(&hi, j->store.dests);
  while (g_hash_table_iter_next(&hi, &k, NULL)) {
    g_hash_table_iter_steal(&hi);
    g_hash_table_add(r->store.dests, k);
  }
  GPtrArray *all = r->store.url_notes;
  guint from = all->len;
  g_ptr_array_extend_and_steal(all, j->store.url_notes);
  j->store.url_notes = g_ptr_array_new(); /* for store_local_clear */
  for (guint i = from; i < all->len; i++)
    g_hash_table_insert(r->store.url_index, ((UrlNote *)all->pdata[i])->uri,
                        GUINT_TO_POINTER(i + 1));
  return true;
}

GArray *pool_take(Pool *p, guint ci, guint *span_end)
{
  Run *r = p->r;
  pthread_mutex_lock(&p->mutex);
  for (;;) {
    Job *j = &p->jobs[ci];
    if (j->state == FREE || j->state == BUILT)
      break;
    /* being built: build the next chapter meanwhile, or wait for it */
    guint other = claim(p);
    pthread_mutex_unlock(&p->mutex);
    if (other != G_MAXUINT) {
      build(p, &r->shp, other);
      pthread_mutex_lock(&p->mutex);
      done(p, other);
      pthread_cond_broadcast(&p->changed); /* the next in its flow may be claimed */
      continue;
    }
    gint64 t0 = g_get_monotonic_time();
    pthread_mutex_lock(&p->mutex);
    while (j->state == BUILDING)
      pthread_cond_wait(&p->changed, &p->mutex);
    p->waited_us += g_get_monotonic_time() - t0;
  }
  Job *j = &p->jobs[ci];
  bool built = j->state == BUILT;
  if (built)
    p->items -= j->vl->len;
  j->state = TAKEN;
  p->taken = ci + 1;
  pthread_cond_broadcast(&p->changed); /* room ahead */
  pthread_mutex_unlock(&p->mutex);
  GArray *vl = NULL;
  if (built && merge(r, j)) {
    vl = j->vl;
    *span_end = j->span_end;
  } else {
    if (built) {
      vlist_free(j->vl);
      p->again++;
    }
    /* set here, its letters on from r->store.url_base (layout.c) */
    guint from = r->store.url_notes->len;
    vl = chapter_vlist(&r->env, &r->shp, &r->store, ci, span_end);
    if (!built) { /* the next in its flow may be claimed now */
      pthread_mutex_lock(&p->mutex);
      j->base = r->store.url_base;
      j->notes = (int)(r->store.url_notes->len - from);
      pthread_cond_broadcast(&p->changed);
      pthread_mutex_unlock(&p->mutex);
    }
  }
  j->vl = NULL;
  store_local_clear(&j->store);
  return vl;
}

void pool_stop(Pool *p)
{
  if (!p)
    return;
  pthread_mutex_lock(&p->mutex);
  p->stop = true;
  pthread_cond_broadcast(&p->changed);
  pthread_mutex_unlock(&p->mutex);
  for (int i = 0; i < p->nworkers; i++)
    runplan_join(p->r->env.opts->plan, p->workers[i].thread);
  if (p->r->env.opts->verbose)
    fprintf(stderr,
            "octavo: %u of %u chapters set beside the layout's turn, on %d thread%s and the "
            "layout's (%u set again), the layout waited %.2f s for them\n",
            p->built - p->again, p->n, p->nworkers, p->nworkers == 1 ? "" : "s", p->again,
            p->waited_us / 1e6);
  for (guint i = 0; i < p->n; i++) { /* a layout that stopped early */
    if (p->jobs[i].vl)
      vlist_free(p->jobs[i].vl);
    store_local_clear(&p->jobs[i].store);
  }
  for (int i = 0; i < p->nworkers; i++)
    shaper_clear(&p->workers[i].shp);
  g_free(p->workers);
  g_free(p->jobs);
  pthread_mutex_destroy(&p->mutex);
  pthread_cond_destroy(&p->changed);
  g_free(p);
}
