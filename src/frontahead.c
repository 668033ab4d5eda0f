/* frontahead.c: image checks and code highlighting on a thread beside the
 * parsing (see frontahead.h).
 *
 * Two queues, the images' first (resolve.c asks for their answers before
 * hl_book asks for the tokens), each job pending, begun or done. The
 * thread takes the first pending job; the main thread, asking for a job's
 * answer, does it itself when it is still pending, else waits for it. At
 * the end (front_ahead_finish) the main thread takes pending jobs too, so
 * that the two share what is left, then joins the thread. One lock and one
 * condition (POSIX's: see src/README.md) guard the jobs' states and the
 * queues; a job's inputs are written before it is queued and its answer
 * before it is marked done, under the lock, and read after. */
#include "frontahead.h"

#include <pthread.h>
#include <string.h>

typedef enum { JOB_PENDING, JOB_BEGUN, JOB_DONE } JobState;

typedef struct {
  bool code; /* else an image */
  JobState state;
  /* an image: its real path and kind; the answer, ok or why not */
  char *path;
  BookImageKind kind;
  bool ok;
  char *why;
  /* a code block: the node (a key only, never read), copies of its info
   * string and text; the answer, and whether hl_book took it */
  const BookNode *node;
  char *info, *text;
  HlCode tokens;
  bool taken;
} Job;

struct FrontAhead {
  RunPlan *plan;
  RunThread *thread;
  pthread_mutex_t lock;
  pthread_cond_t cond; /* a job done, or a job queued, or the queue closed */
  GPtrArray *images, *codes; /* Job *, in the order queued (owned) */
  GPtrArray *seen;             /* Job *: images with nothing to check, never queued (owned) */
  guint next_image, next_code; /* the jobs before these are begun or done */
  bool closed;                 /* nothing more is queued: the thread ends when all are begun */
  bool finished;               /* joined */
  GHashTable *by_path;         /* real path -> its image Job */
  GHashTable *by_node;         /* code node -> its Job */
  HlQueries *queries;          /* shared by both threads' highlighters */
  Hl *main_hl;                 /* the main thread's */
};

static void job_free(gpointer p)
{
  Job *j = p;
  g_free(j->path);
  g_free(j->why);
  g_free(j->info);
  g_free(j->text);
  if (!j->taken)
    g_free(j->tokens.tokens);
  g_free(j);
}

static void run_job(Job *j, Hl *h)
{
  if (j->code)
    hl_code(h, j->info, j->text, &j->tokens);
  else
    j->ok = book_image_decodes(j->path, j->kind, &j->why);
}

/* The first pending job, images first, marked begun; NULL when none is.
 * Under the lock. */
static Job *next_job(FrontAhead *fa)
{
  GPtrArray *qs[2] = {fa->images, fa->codes};
  guint *next[2] = {&fa->next_image, &fa->next_code};
  for (int q = 0; q < 2; q++)
    for (; *next[q] < qs[q]->len; ++*next[q]) {
      Job *j = qs[q]->pdata[*next[q]];
      if (j->state == JOB_PENDING) {
        j->state = JOB_BEGUN;
        ++*next[q];
        return j;
      }
    }
  return NULL;
}

/* Run j (begun by this thread) with h and mark it done. Under the lock,
 * which it lets go meanwhile. */
static void do_job(FrontAhead *fa, Job *j, Hl *h)
{
  pthread_mutex_unlock(&fa->lock);
  run_job(j, h);
  pthread_mutex_lock(&fa->lock);
  j->state = JOB_DONE;
  pthread_cond_broadcast(&fa->cond);
}

static gpointer worker(gpointer data)
{
  FrontAhead *fa = data;
  Hl *h = hl_new(fa->queries);
  pthread_mutex_lock(&fa->lock);
  for (;;) {
    Job *j = next_job(fa);
    if (j)
      do_job(fa, j, h);
    else if (fa->closed)
      break;
    else
      pthread_cond_wait(&fa->cond, &fa->lock);
  }
  pthread_mutex_unlock(&fa->lock);
  hl_free(h);
  return NULL;
}

FrontAhead *front_ahead_start(RunPlan *plan)
{
  if (!plan || !plan->front_thread)
    return NULL;
  FrontAhead *fa = g_new0(FrontAhead, 1);
  fa->plan = plan;
  pthread_mutex_init(&fa->lock, NULL);
  pthread_cond_init(&fa->cond, NULL);
  fa->images = g_ptr_array_new_with_free_func(job_free);
  fa->codes = g_ptr_array_new_with_free_func(job_free);
  fa->seen = g_ptr_array_new_with_free_func(job_free);
  fa->by_path = g_hash_table_new(g_str_hash, g_str_equal);
  fa->by_node = g_hash_table_new(NULL, NULL);
  fa->queries = hl_queries_new();
  fa->main_hl = hl_new(fa->queries);
  fa->thread = runplan_spawn(plan, "octavo-front", worker, fa);
  return fa;
}

/* Queue j (its inputs set) and wake the thread. */
static void queue(FrontAhead *fa, GPtrArray *q, Job *j)
{
  pthread_mutex_lock(&fa->lock);
  g_ptr_array_add(q, j);
  pthread_cond_broadcast(&fa->cond);
  pthread_mutex_unlock(&fa->lock);
}

bool front_ahead_has_image(const FrontAhead *fa, const char *real)
{
  return fa && g_hash_table_contains(fa->by_path, real);
}

void front_ahead_image(FrontAhead *fa, const char *real, BookImageKind kind)
{
  if (!fa || fa->closed || front_ahead_has_image(fa, real))
    return;
  Job *j = g_new0(Job, 1);
  j->path = g_strdup(real);
  j->kind = kind;
  g_hash_table_insert(fa->by_path, j->path, j); /* the main thread's only */
  if (kind != BOOK_IMAGE_NONE) {
    queue(fa, fa->images, j);
  } else { /* looked at, nothing to check: not looked at again */
    j->state = JOB_DONE;
    g_ptr_array_add(fa->seen, j);
  }
}

void front_ahead_code(FrontAhead *fa, const BookNode *n)
{
  if (!fa || fa->closed || g_hash_table_contains(fa->by_node, n))
    return;
  Job *j = g_new0(Job, 1);
  j->code = true;
  j->node = n;
  j->info = g_strdup(n->as.code.info);
  j->text = g_strdup(n->text);
  g_hash_table_insert(fa->by_node, (gpointer)n, j);
  queue(fa, fa->codes, j);
}

/* j's answer there: done by this (the main) thread when still pending,
 * else waited for. */
static void wait_for(FrontAhead *fa, Job *j)
{
  pthread_mutex_lock(&fa->lock);
  if (j->state == JOB_PENDING) {
    j->state = JOB_BEGUN;
    do_job(fa, j, fa->main_hl);
  }
  while (j->state != JOB_DONE)
    pthread_cond_wait(&fa->cond, &fa->lock);
  pthread_mutex_unlock(&fa->lock);
}

bool front_ahead_decodes(FrontAhead *fa, const char *real, BookImageKind kind, char **why)
{
  Job *j = fa ? g_hash_table_lookup(fa->by_path, real) : NULL;
  if (!j || j->kind != kind) /* not queued (the cover, a kind not decoded), or the file changed */
    return book_image_decodes(real, kind, why);
  wait_for(fa, j);
  *why = g_strdup(j->why); /* asked again for each reference that fails */
  return j->ok;
}

void front_ahead_finish(FrontAhead *fa)
{
  if (!fa || fa->finished)
    return;
  pthread_mutex_lock(&fa->lock);
  fa->closed = true;
  pthread_cond_broadcast(&fa->cond);
  for (Job *j; (j = next_job(fa));)
    do_job(fa, j, fa->main_hl);
  pthread_mutex_unlock(&fa->lock);
  runplan_join(fa->plan, fa->thread); /* it ends once every job is begun: each is then done */
  fa->finished = true;
}

Hl *front_ahead_hl(FrontAhead *fa)
{
  return fa ? fa->main_hl : NULL;
}

bool front_ahead_tokens(void *ud, const BookNode *code, HlCode *out)
{
  FrontAhead *fa = ud;
  Job *j = fa ? g_hash_table_lookup(fa->by_node, code) : NULL;
  /* the block as it was queued (a node freed since, its address taken by
   * another, is not): else its tokens are found now */
  if (!j || j->taken || g_strcmp0(j->info, code->as.code.info) != 0 ||
      g_strcmp0(j->text, code->text) != 0)
    return false;
  wait_for(fa, j);
  *out = j->tokens;
  j->taken = true;
  return true;
}

void front_ahead_free(FrontAhead *fa)
{
  if (!fa)
    return;
  front_ahead_finish(fa);
  g_hash_table_destroy(fa->by_path);
  g_hash_table_destroy(fa->by_node);
  g_ptr_array_free(fa->images, TRUE);
  g_ptr_array_free(fa->codes, TRUE);
  g_ptr_array_free(fa->seen, TRUE);
  hl_free(fa->main_hl);
  hl_queries_free(fa->queries);
  pthread_cond_destroy(&fa->cond);
  pthread_mutex_destroy(&fa->lock);
  g_free(fa);
}
