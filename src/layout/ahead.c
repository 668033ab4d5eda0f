/* layout/ahead.c: the body's paragraphs shaped ahead of the layout, on a
 * second core.
 *
 * Shaping (itemising, shaping, the break analysis) is most of a layout's
 * time, and a paragraph's shaping depends only on its text, its attributes,
 * its font and the language, not on where it lands. So with a core over
 * where the chapters are not set on threads of their own (pool.c: a
 * handout, whose sections run on, or a book of one chapter), a thread of
 * its own walks the paragraphs in the order the
 * layout sets them (the footnotes', laid out first, then the chapters'),
 * a little ahead of the layout, and shapes each; the layout takes
 * the result (paragraph_of, blocks.c) where its own Para is the same, and
 * shapes itself where the thread has not got that far or made a different
 * one (a URL note's letter the thread could not know, a dir attribute).
 * A paragraph is claimed by one side or the other, never shaped twice but
 * for such a difference.
 *
 * The thread shapes on a context of its own (shape_thread_context: its
 * own pango font map, each font readied before other threads see it):
 * the glyphs and advances are the same as the layout's, so the output is
 * the same bytes whatever the threads (t-threads compares them).
 *
 * What the thread allocates it also frees (the Paras it made, the shapings
 * the layout gives back): glibc's malloc frees a block on another thread's
 * heap only under that heap's lock. It runs at most AHEAD paragraphs
 * beyond the last the layout asked for, and once held there waits until
 * half of them are taken, so the two wake each other seldom. */
#include "layout/internal.h"

#include <stdio.h>
#include <string.h>

#include "runplan.h"
#include <pthread.h>

enum { AHEAD = 64 };

/* A paragraph's state: claimed by nobody, by the thread (being shaped,
 * then shaped), or by the layout. */
enum { FREE, SHAPING, SHAPED, LAYOUT };

typedef struct {
  BookNode *node;
  guint chapter; /* G_MAXUINT: a footnote's */
  int state;     /* under the mutex */
  Para para;     /* the thread's (para.shaped: its shaping, until taken) */
  bool has_para; /* para was made and is not freed yet */
} Slot;

struct Ahead {
  pthread_mutex_t mutex;
  pthread_cond_t room;  /* the layout asked for more, or stop: the thread may go on */
  pthread_cond_t ready; /* a slot was shaped: the layout may take it */
  Slot *slots;
  guint n;
  GHashTable *index; /* BookNode * -> 1 + its slot */
  guint asked;       /* 1 + the last slot the layout asked for (0: none) */
  guint at;          /* the slot the thread works on or waits at */
  bool thread_waits; /* for room */
  bool layout_waits; /* for a slot being shaped */
  GPtrArray *done;   /* Shaped * the layout gave back, for the thread to free */
  guint taken;       /* paragraphs the layout took shaped (under the mutex) */
  guint shaped;      /* paragraphs the thread shaped */
  gint64 waited_us;  /* the layout's time waiting for a paragraph being shaped */
  bool stop;
  RunThread *thread;
  /* the thread's own */
  const LayEnv *env;
  PangoContext *ctx;
  PangoLanguage *plang;
  PangoFontDescription *desc[2]; /* text_desc: the body's and the notes' */
  LayStore store;                /* its URL notes (their letters are a paragraph's text) */
  guint swept;                   /* slots before this one the thread has freed */
};

/* The thread's Para and shaping of slot s (NULL shaped: nothing to shape,
 * or the layout's to shape). */
static void shape_slot(Ahead *a, Slot *s, guint *chapter)
{
  /* a book's flow letters its URL notes from a, on through the chapters
   * that run on (layout.c's chapter_notes_take); a handout runs on
   * (handout.c) */
  if (s->chapter != *chapter && a->env->st->chapter_new_page && s->chapter != G_MAXUINT) {
    LayStore *st = &a->store;
    st->url_base =
        lay_runs_on(a->env, s->chapter) ? st->url_base + st->url_notes->len - st->url_first : 0;
    st->url_first = st->url_notes->len;
    *chapter = s->chapter;
  }
  bool note = s->chapter == G_MAXUINT;
  Build c;
  build_init(&c, a->env, NULL, &a->store, 0);
  c.note_mode = note;
  para_init(&s->para);
  s->has_para = true;
  para_inlines(&c, &s->para, s->node);
  build_clear(&c);
  if (s->para.text->len == 0)
    return;
  pango_context_set_font_description(a->ctx, a->desc[note]);
  s->para.shaped =
      shape_text(a->ctx, s->para.text->str, s->para.text->len, s->para.attrs, a->plang);
  a->shaped++;
}

/* Free what the layout is done with (under the mutex: the slots the
 * layout has passed, `asked` read; the given-back list taken). */
static GPtrArray *take_done(Ahead *a, guint *upto)
{
  GPtrArray *done = a->done->len ? a->done : NULL;
  if (done)
    a->done = g_ptr_array_new();
  *upto = a->asked > 0 ? a->asked - 1 : 0; /* the layout may still read the last */
  return done;
}

static void free_done(Ahead *a, GPtrArray *done, guint upto)
{
  for (guint i = 0; done && i < done->len; i++)
    shape_free(done->pdata[i]);
  if (done)
    g_ptr_array_free(done, TRUE);
  for (; a->swept < upto; a->swept++) {
    Slot *s = &a->slots[a->swept];
    if (s->state == LAYOUT && s->has_para) { /* LAYOUT is final: no lock needed */
      para_clear(&s->para);
      s->has_para = false;
    }
  }
}

static gpointer ahead_thread(gpointer data)
{
  Ahead *a = data;
  guint chapter = G_MAXUINT;
  for (guint i = 0; i < a->n; i++) {
    Slot *s = &a->slots[i];
    guint upto;
    pthread_mutex_lock(&a->mutex);
    a->at = i;
    if (i >= a->asked + AHEAD) {
      a->thread_waits = true;
      while (!a->stop && i >= a->asked + AHEAD / 2)
        pthread_cond_wait(&a->room, &a->mutex);
      a->thread_waits = false;
    }
    bool mine = !a->stop && s->state == FREE;
    if (mine)
      s->state = SHAPING;
    bool stop = a->stop;
    GPtrArray *done = take_done(a, &upto);
    pthread_mutex_unlock(&a->mutex);
    free_done(a, done, upto);
    if (stop)
      break;
    if (!mine)
      continue;
    shape_slot(a, s, &chapter);
    pthread_mutex_lock(&a->mutex);
    s->state = SHAPED;
    if (a->layout_waits)
      pthread_cond_signal(&a->ready);
    pthread_mutex_unlock(&a->mutex);
  }
  return NULL;
}

/* The paragraphs under root, in reading order. */
static void add_slots(GArray *slots, BookNode *root, guint chapter)
{
  BookIter it;
  book_iter_init(&it, root);
  while (book_iter_next(&it) != BOOK_ITER_DONE)
    if (it.ev == BOOK_ITER_ENTER && it.cur->type == BOOK_PARAGRAPH) {
      Slot s = {.node = it.cur, .chapter = chapter};
      g_array_append_val(slots, s);
    }
}

Ahead *ahead_start(const LayEnv *env, const Fonts *fonts, const char *lang, int helpers)
{
  const Book *book = env->book;
  if (helpers < 1 || !fonts || !env->opts->plan)
    return NULL;
  GArray *slots = g_array_new(FALSE, TRUE, sizeof(Slot));
  for (guint fi = 0; fi < book->footnotes->len; fi++) { /* as layout_notes takes them */
    BookFootnote *fn = book->footnotes->pdata[fi];
    if (fn->def && fn->nrefs > 0)
      add_slots(slots, fn->def, G_MAXUINT);
  }
  for (guint ci = 0; ci < book->chapters->len; ci++)
    add_slots(slots, ((BookChapter *)book->chapters->pdata[ci])->root, ci);
  if (slots->len < 2) { /* nothing to gain */
    g_array_free(slots, TRUE);
    return NULL;
  }
  Ahead *a = g_new0(Ahead, 1);
  pthread_mutex_init(&a->mutex, NULL);
  pthread_cond_init(&a->room, NULL);
  pthread_cond_init(&a->ready, NULL);
  a->n = slots->len;
  a->slots = (Slot *)g_array_free(slots, FALSE);
  a->index = g_hash_table_new(NULL, NULL);
  for (guint i = 0; i < a->n; i++)
    g_hash_table_insert(a->index, a->slots[i].node, GUINT_TO_POINTER(i + 1));
  a->done = g_ptr_array_new();
  a->env = env;
  a->ctx = shape_thread_context(fonts);
  a->plang = pango_language_from_string(lang);
  pango_context_set_language(a->ctx, a->plang);
  a->desc[0] = text_desc(env->st, false);
  a->desc[1] = text_desc(env->st, true);
  a->store.url_notes = g_ptr_array_new_with_free_func(url_note_free);
  a->store.url_index = g_hash_table_new(g_str_hash, g_str_equal);
  a->thread = runplan_spawn(env->opts->plan, "octavo-shape", ahead_thread, a);
  return a;
}

static bool same_para(const Para *x, const Para *y)
{
  return x->text->len == y->text->len && memcmp(x->text->str, y->text->str, x->text->len) == 0 &&
         pango_attr_list_equal(x->attrs, y->attrs);
}

Shaped *ahead_take(Ahead *a, const BookNode *node, const Para *p, const PangoFontDescription *d)
{
  if (!a)
    return NULL;
  guint k = GPOINTER_TO_UINT(g_hash_table_lookup(a->index, node));
  if (k == 0)
    return NULL;
  Slot *s = &a->slots[k - 1];
  Shaped *sh = NULL;
  pthread_mutex_lock(&a->mutex);
  if (k > a->asked) {
    a->asked = k;
    if (a->thread_waits && a->at < a->asked + AHEAD / 2)
      pthread_cond_signal(&a->room);
  }
  if (s->state == SHAPING) {
    gint64 t0 = g_get_monotonic_time();
    a->layout_waits = true;
    while (s->state == SHAPING)
      pthread_cond_wait(&a->ready, &a->mutex);
    a->layout_waits = false;
    a->waited_us += g_get_monotonic_time() - t0;
  }
  /* compared under the mutex: the thread frees the slots the layout has
   * passed, and the layout may come back to an earlier one */
  if (s->state == SHAPED && s->para.shaped && same_para(p, &s->para) &&
      pango_font_description_equal(d, a->desc[s->chapter == G_MAXUINT]))
    sh = g_steal_pointer(&s->para.shaped);
  a->taken += sh != NULL;
  s->state = LAYOUT;
  pthread_mutex_unlock(&a->mutex);
  return sh;
}

void ahead_done(Ahead *a, Shaped *sh)
{
  pthread_mutex_lock(&a->mutex);
  g_ptr_array_add(a->done, sh);
  pthread_mutex_unlock(&a->mutex);
}

void ahead_stop(Ahead *a)
{
  if (!a)
    return;
  pthread_mutex_lock(&a->mutex);
  a->stop = true;
  pthread_cond_signal(&a->room);
  pthread_mutex_unlock(&a->mutex);
  runplan_join(a->env->opts->plan, a->thread);
  if (a->env->opts->verbose)
    fprintf(stderr,
            "octavo: %u of %u paragraphs shaped on a second thread (%u shaped there), the "
            "layout waited %.2f s for them\n",
            a->taken, a->n, a->shaped, a->waited_us / 1e6);
  for (guint i = 0; i < a->done->len; i++)
    shape_free(a->done->pdata[i]);
  g_ptr_array_free(a->done, TRUE);
  for (guint i = 0; i < a->n; i++)
    if (a->slots[i].has_para)
      para_clear(&a->slots[i].para);
  g_free(a->slots);
  g_hash_table_destroy(a->index);
  g_ptr_array_free(a->store.url_notes, TRUE);
  g_hash_table_destroy(a->store.url_index);
  pango_font_description_free(a->desc[0]);
  pango_font_description_free(a->desc[1]);
  g_object_unref(a->ctx); /* its map and fonts are kept (shape_thread_context) */
  pthread_mutex_destroy(&a->mutex);
  pthread_cond_destroy(&a->room);
  pthread_cond_destroy(&a->ready);
  g_free(a);
}
