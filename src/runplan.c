/* runplan.c: the run decided once (runplan_decide), and the one place
 * threads are started and joined. See runplan.h.
 *
 * The decisions are the ones main.c, pdf.c, archive.c and layout/ made
 * each on its own before (the same conditions, gathered): a module still
 * reads opts->threads where its work depends on the book (a pool is not
 * started for a book of one chapter, nothing is shaped ahead of a
 * paragraph-less book), but it starts no thread itself. */
#include "runplan.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct RunThread {
  GThread *thread;
  char *name;
  bool joined;
};

typedef struct {
  gpointer data;
  GDestroyNotify free;
} Kept;

struct RunRegistry {
  pthread_mutex_t lock;
  GPtrArray *threads; /* RunThread *, in the order started */
  GHashTable *kept;   /* key -> Kept * */
};

int runplan_threads(int cpus, double load)
{
  if (cpus < 1)
    return 1;
  if (!(load > 0)) /* also NaN */
    load = 0;
  double busy = floor(load + 0.5);
  return busy >= cpus ? 1 : MAX(1, cpus - (int)busy);
}

/* How many of this process's threads are runnable now (state R in
 * /proc/self/task/N/stat): they are in /proc/loadavg's count too, and are
 * not other work (GLib's and pango's own threads may run at start-up).
 * At least 1, the caller. */
static int own_runnable(void)
{
  int n = 0;
  GDir *dir = g_dir_open("/proc/self/task", 0, NULL);
  for (const char *t; dir && (t = g_dir_read_name(dir));) {
    char *path = g_build_filename("/proc/self/task", t, "stat", NULL);
    char *stat = NULL;
    if (g_file_get_contents(path, &stat, NULL, NULL)) {
      const char *close = strrchr(stat, ')'); /* the name may hold spaces and parentheses */
      n += close && close[1] == ' ' && close[2] == 'R';
    }
    g_free(stat);
    g_free(path);
  }
  if (dir)
    g_dir_close(dir);
  return MAX(n, 1);
}

void runplan_probe(RunWant *want)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  want->cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  if (want->cpus < 1)
    want->cpus = (int)g_get_num_processors();
  double avg = 0;
  int running = 0, total = 0;
  FILE *f = fopen("/proc/loadavg", "r");
  bool both = f && fscanf(f, "%lf %*f %*f %d/%d", &avg, &running, &total) == 3;
  if (f)
    fclose(f);
  if (both)
    want->load = MIN(avg, (double)MAX(running - own_runnable(), 0));
  else
    want->load = getloadavg(&avg, 1) == 1 ? avg : 0;
}

RunPlan *runplan_begin(const RunWant *want)
{
  RunPlan *p = g_new0(RunPlan, 1);
  p->want = *want;
  p->threads_chosen = want->threads < 1;
  if (p->threads_chosen)
    p->want.threads = runplan_threads(want->cpus, want->load);
  /* the image checks and the highlighting beside the parsing, which the
   * main thread does alone (nothing else runs yet) */
  p->front_thread = p->want.threads > 1;
  p->reg = g_new0(struct RunRegistry, 1);
  pthread_mutex_init(&p->reg->lock, NULL);
  p->reg->threads = g_ptr_array_new();
  p->reg->kept = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  return p;
}

RunPlan *runplan_decide(const RunWant *want)
{
  RunPlan *p = runplan_begin(want);
  runplan_settle(p, want);
  return p;
}

void runplan_settle(RunPlan *p, const RunWant *want)
{
  RunWant decided = p->want;
  p->want = *want;
  p->want.threads = decided.threads;
  p->want.cpus = decided.cpus;
  p->want.load = decided.load;
  const RunWant *w = &p->want;
  int threads = w->threads;
  bool multi = threads > 1;
  bool pdf = w->pdfs > 0 || w->preview; /* the previews are the PDF's pages */
  bool marks = w->epubs > 0 && w->page_list;
  bool stream = w->pdfs == 1 && !w->preview && !w->dump_layout;
  if (pdf || w->dump_layout)
    p->layout = stream ? RUN_LAY_STREAM : RUN_LAY_WHOLE;
  else if (marks)
    p->layout = RUN_LAY_PAGE_LIST;
  p->marks = p->layout == RUN_LAY_STREAM && marks;
  p->counted = (p->layout == RUN_LAY_STREAM || p->layout == RUN_LAY_PAGE_LIST) && w->handout;
  /* one pass, but the handout's counting pass and its whole layout's
   * first pass for the contents' numbers */
  if (p->layout != RUN_LAY_NONE)
    p->passes = 1 + (p->layout == RUN_LAY_STREAM && p->counted) +
                (p->layout == RUN_LAY_WHOLE && w->handout && w->toc);

  unsigned outs = w->epubs + w->pdfs + w->others;
  p->epub_thread = multi && w->epubs > 0 && w->epubs < outs;
  p->draw_thread = multi && p->layout == RUN_LAY_STREAM;
  /* the cores beside the layout's, less the drawing's */
  p->helpers = p->layout == RUN_LAY_NONE ? 0 : threads - 1 - (p->draw_thread ? 1 : 0);
  p->count_helpers = p->counted ? threads - 1 : 0;
  if (!w->handout && w->chapters >= 2 && p->helpers >= 1)
    p->chapter_threads = MIN(p->helpers, (int)w->chapters - 1);
  p->shape_ahead = p->layout != RUN_LAY_NONE && p->chapter_threads == 0 && p->helpers >= 1;
  p->hyphen_preload = multi && p->layout != RUN_LAY_NONE;
  p->qpdf_preload = multi && pdf;
  p->cover_ahead = multi && w->epubs > 0 && !w->cover_given; /* a given one is only read */
  p->sources_thread = multi && w->pdfs > 0 && w->attach_source;
  /* the pages drawn (main.c's lay_out): their colophon names the identifier */
  p->identifier_thread =
      multi && (p->layout == RUN_LAY_STREAM || p->layout == RUN_LAY_WHOLE) && !w->identifier_given;
}

static const char *yes(bool b)
{
  return b ? "yes" : "no";
}

char *runplan_describe(const RunPlan *p)
{
  static const char *const layouts[] = {"none", "page-list", "whole", "stream"};
  const RunWant *w = &p->want;
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "octavo: plan: outputs epub=%u pdf=%u other=%u preview=%s dump=%s\n",
                         w->epubs, w->pdfs, w->others, yes(w->preview), yes(w->dump_layout));
  g_string_append_printf(s, "octavo: plan: layout=%s handout=%s counted=%s marks=%s passes=%d\n",
                         layouts[p->layout], yes(w->handout), yes(p->counted), yes(p->marks),
                         p->passes);
  if (p->threads_chosen)
    g_string_append_printf(s,
                           "octavo: plan: cores=%d load=%.2f -> threads=%d (no -j nor "
                           "OCTAVO_THREADS: a thread per core not busy)\n",
                           w->cpus, w->load, w->threads);
  else
    g_string_append_printf(s, "octavo: plan: threads=%d as asked (-j or OCTAVO_THREADS)\n",
                           w->threads);
  g_string_append_printf(s,
                         "octavo: plan: threads=%d epub-thread=%s draw-thread=%s "
                         "chapter-threads=%d shape-ahead=%s\n",
                         w->threads, yes(p->epub_thread), yes(p->draw_thread), p->chapter_threads,
                         yes(p->shape_ahead));
  g_string_append_printf(s, "octavo: plan: preload hyphen=%s qpdf=%s cover=%s sources-thread=%s\n",
                         yes(p->hyphen_preload), yes(p->qpdf_preload), yes(p->cover_ahead),
                         yes(p->sources_thread));
  g_string_append_printf(s, "octavo: plan: front-thread=%s identifier-thread=%s\n",
                         yes(p->front_thread), yes(p->identifier_thread));
  return g_string_free(s, FALSE);
}

RunThread *runplan_spawn(RunPlan *plan, const char *name, GThreadFunc fn, gpointer arg)
{
  RunThread *t = g_new0(RunThread, 1);
  t->name = g_strdup(name);
  pthread_mutex_lock(&plan->reg->lock);
  g_ptr_array_add(plan->reg->threads, t);
  t->thread = g_thread_new(name, fn, arg);
  pthread_mutex_unlock(&plan->reg->lock);
  return t;
}

gpointer runplan_join(RunPlan *plan, RunThread *t)
{
  pthread_mutex_lock(&plan->reg->lock);
  g_return_val_if_fail(!t->joined, (pthread_mutex_unlock(&plan->reg->lock), NULL));
  t->joined = true;
  GThread *th = t->thread;
  t->thread = NULL;
  pthread_mutex_unlock(&plan->reg->lock);
  return g_thread_join(th);
}

void runplan_keep(RunPlan *plan, const char *key, gpointer data, GDestroyNotify free)
{
  Kept *k = g_new(Kept, 1);
  *k = (Kept){data, free};
  pthread_mutex_lock(&plan->reg->lock);
  Kept *old = g_hash_table_lookup(plan->reg->kept, key);
  Kept was = old ? *old : (Kept){0};
  g_hash_table_insert(plan->reg->kept, g_strdup(key), k);
  pthread_mutex_unlock(&plan->reg->lock);
  if (was.free && was.data)
    was.free(was.data);
}

gpointer runplan_take(RunPlan *plan, const char *key)
{
  pthread_mutex_lock(&plan->reg->lock);
  Kept *k = g_hash_table_lookup(plan->reg->kept, key);
  gpointer data = k ? k->data : NULL;
  if (k)
    g_hash_table_remove(plan->reg->kept, key);
  pthread_mutex_unlock(&plan->reg->lock);
  return data;
}

void runplan_count_pass(RunPlan *plan)
{
  if (plan)
    g_atomic_int_inc(&plan->layout_passes);
}

int runplan_passes(const RunPlan *plan)
{
  return g_atomic_int_get(&plan->layout_passes);
}

unsigned runplan_started(const RunPlan *plan, const char *name)
{
  unsigned n = 0;
  pthread_mutex_lock(&plan->reg->lock);
  for (guint i = 0; i < plan->reg->threads->len; i++)
    n += strcmp(((RunThread *)plan->reg->threads->pdata[i])->name, name) == 0;
  pthread_mutex_unlock(&plan->reg->lock);
  return n;
}

void runplan_end(RunPlan *plan)
{
  if (!plan)
    return;
  /* what is kept first: freeing it may join its thread (a cover drawn ahead) */
  for (;;) {
    pthread_mutex_lock(&plan->reg->lock);
    GHashTableIter hi;
    gpointer key = NULL, v = NULL;
    g_hash_table_iter_init(&hi, plan->reg->kept);
    bool any = g_hash_table_iter_next(&hi, &key, &v);
    Kept k = any ? *(Kept *)v : (Kept){0};
    if (any)
      g_hash_table_iter_remove(&hi);
    pthread_mutex_unlock(&plan->reg->lock);
    if (!any)
      break;
    if (k.free && k.data)
      k.free(k.data);
  }
  for (guint i = 0; i < plan->reg->threads->len; i++) {
    RunThread *t = plan->reg->threads->pdata[i];
    if (!t->joined)
      runplan_join(plan, t);
  }
  for (guint i = 0; i < plan->reg->threads->len; i++) {
    RunThread *t = plan->reg->threads->pdata[i];
    g_free(t->name);
    g_free(t);
  }
  g_ptr_array_free(plan->reg->threads, TRUE);
  g_hash_table_destroy(plan->reg->kept);
  pthread_mutex_destroy(&plan->reg->lock);
  g_free(plan->reg);
  g_free(plan);
}
