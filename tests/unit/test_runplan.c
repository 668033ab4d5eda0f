/* test_runplan.c: the run plan (runplan.c) for the main cases, and its
 * threads: started, joined, and what is kept until the run's end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "runplan.h"

/* A plan for outputs "epub", "pdf", "both" at threads, a book of
 * chapters. */
static RunPlan *plan_for(const char *outs, int threads, unsigned chapters)
{
  RunWant w = {0};
  w.epubs = strstr(outs, "epub") || strstr(outs, "both");
  w.pdfs = strstr(outs, "pdf") || strstr(outs, "both");
  w.page_list = true;
  w.attach_source = true;
  w.chapters = chapters;
  w.threads = threads;
  return runplan_decide(&w);
}

static void test_epub_only(void **state)
{
  (void)state;
  RunPlan *p = plan_for("epub", 1, 6);
  assert_int_equal(p->layout, RUN_LAY_PAGE_LIST); /* the page list's page breaks */
  assert_int_equal(p->passes, 1);
  assert_int_equal(p->helpers, 0);
  assert_false(p->marks);
  assert_false(p->epub_thread);
  assert_int_equal(p->chapter_threads, 0);
  assert_false(p->shape_ahead || p->hyphen_preload || p->cover_ahead || p->qpdf_preload);
  runplan_end(p);

  p = plan_for("epub", 4, 6);
  assert_int_equal(p->layout, RUN_LAY_PAGE_LIST);
  assert_false(p->epub_thread); /* nothing beside it: written on the main thread */
  assert_false(p->draw_thread);
  assert_int_equal(p->chapter_threads, 3); /* every core but the layout's */
  assert_int_equal(p->helpers, 3);
  assert_int_equal(p->passes, 1);
  assert_false(p->shape_ahead);
  assert_true(p->hyphen_preload && p->cover_ahead);
  assert_false(p->qpdf_preload || p->sources_thread);
  runplan_end(p);

  /* no page list: no layout at all */
  RunWant w = {.epubs = 1, .threads = 4, .chapters = 6};
  p = runplan_decide(&w);
  assert_int_equal(p->layout, RUN_LAY_NONE);
  assert_int_equal(p->passes, 0);
  assert_int_equal(p->chapter_threads, 0);
  assert_false(p->shape_ahead || p->hyphen_preload);
  assert_true(p->cover_ahead);
  runplan_end(p);

  /* the book gives its cover: nothing to draw ahead, the EPUB reads it */
  w.cover_given = true;
  p = runplan_decide(&w);
  assert_false(p->cover_ahead);
  runplan_end(p);
}

static void test_pdf_only(void **state)
{
  (void)state;
  RunPlan *p = plan_for("pdf", 1, 6);
  assert_int_equal(p->layout, RUN_LAY_STREAM);
  assert_int_equal(p->passes, 1); /* the contents drawn last: no counting pass */
  assert_int_equal(p->helpers, 0);
  assert_false(p->marks || p->counted || p->draw_thread || p->epub_thread);
  assert_int_equal(p->chapter_threads, 0);
  assert_false(p->qpdf_preload || p->sources_thread || p->cover_ahead);
  runplan_end(p);

  p = plan_for("pdf", 4, 6);
  assert_int_equal(p->layout, RUN_LAY_STREAM);
  assert_true(p->draw_thread);
  assert_false(p->epub_thread || p->marks);
  assert_int_equal(p->chapter_threads, 2); /* the layout's and the drawing's cores busy */
  assert_int_equal(p->helpers, 2);
  assert_int_equal(p->passes, 1);
  assert_true(p->qpdf_preload && p->sources_thread && p->hyphen_preload);
  assert_false(p->cover_ahead);
  runplan_end(p);

  /* two cores: the drawing takes the second; a book of one chapter is
   * shaped ahead only with a third */
  p = plan_for("pdf", 2, 6);
  assert_true(p->draw_thread);
  assert_int_equal(p->chapter_threads, 0);
  assert_false(p->shape_ahead);
  runplan_end(p);
  p = plan_for("pdf", 3, 1);
  assert_int_equal(p->chapter_threads, 0);
  assert_true(p->shape_ahead);
  runplan_end(p);
  /* never more chapter threads than chapters beside the layout's */
  p = plan_for("pdf", 16, 3);
  assert_int_equal(p->chapter_threads, 2);
  runplan_end(p);
}

static void test_both(void **state)
{
  (void)state;
  RunPlan *p = plan_for("both", 1, 6);
  assert_int_equal(p->layout, RUN_LAY_STREAM);
  assert_true(p->marks);          /* the EPUB's page list from the streamed PDF */
  assert_int_equal(p->passes, 1); /* one pass gives both */
  assert_false(p->epub_thread || p->draw_thread);
  runplan_end(p);

  p = plan_for("both", 4, 6);
  assert_true(p->marks && p->epub_thread && p->draw_thread);
  assert_int_equal(p->chapter_threads, 2);
  assert_true(p->hyphen_preload && p->qpdf_preload && p->cover_ahead && p->sources_thread);
  runplan_end(p);

  /* two PDFs: laid out whole, nothing streamed or drawn beside */
  RunWant w = {.epubs = 1, .pdfs = 2, .page_list = true, .threads = 4, .chapters = 6};
  p = runplan_decide(&w);
  assert_int_equal(p->layout, RUN_LAY_WHOLE);
  assert_int_equal(p->passes, 1); /* kept, drawn twice */
  assert_false(p->marks || p->draw_thread);
  assert_true(p->epub_thread);
  assert_int_equal(p->chapter_threads, 3);
  runplan_end(p);
}

static void test_handout(void **state)
{
  (void)state;
  RunWant w = {.pdfs = 1, .handout = true, .threads = 1, .chapters = 6};
  RunPlan *p = runplan_decide(&w);
  assert_int_equal(p->layout, RUN_LAY_STREAM);
  assert_true(p->counted); /* counted first, then streamed */
  assert_int_equal(p->passes, 2);
  assert_false(p->shape_ahead);
  runplan_end(p);

  w.threads = 4;
  p = runplan_decide(&w);
  assert_true(p->counted && p->draw_thread);
  assert_int_equal(p->chapter_threads, 0); /* its sections run on: no chapter pool */
  assert_true(p->shape_ahead);
  assert_int_equal(p->helpers, 2);       /* the drawn pass: beside the drawing */
  assert_int_equal(p->count_helpers, 3); /* the counting pass: nothing drawn meanwhile */
  assert_int_equal(p->passes, 2);
  runplan_end(p);

  w.threads = 2; /* the drawing takes the second core: nothing shaped ahead of the drawn pass */
  p = runplan_decide(&w);
  assert_true(p->draw_thread);
  assert_false(p->shape_ahead);
  assert_int_equal(p->helpers, 0);
  assert_int_equal(p->count_helpers, 1);
  runplan_end(p);

  /* its page list alone: the counting pass */
  RunWant e = {.epubs = 1, .page_list = true, .handout = true, .threads = 4, .chapters = 6};
  p = runplan_decide(&e);
  assert_int_equal(p->layout, RUN_LAY_PAGE_LIST);
  assert_true(p->counted);
  assert_int_equal(p->passes, 1);
  runplan_end(p);

  /* kept whole with its contents: a first pass for their numbers */
  RunWant k = {
      .pdfs = 1, .preview = true, .handout = true, .toc = true, .threads = 1, .chapters = 6};
  p = runplan_decide(&k);
  assert_int_equal(p->layout, RUN_LAY_WHOLE);
  assert_int_equal(p->passes, 2);
  runplan_end(p);
}

static void test_preview(void **state)
{
  (void)state;
  RunWant w = {.pdfs = 1, .preview = true, .threads = 4, .chapters = 6};
  RunPlan *p = runplan_decide(&w);
  assert_int_equal(p->layout, RUN_LAY_WHOLE); /* the previews want every page kept */
  assert_int_equal(p->passes, 1);
  assert_false(p->draw_thread);
  assert_int_equal(p->chapter_threads, 3);
  runplan_end(p);

  /* a preview alone is a PDF's pages: qpdf is not, the layout is */
  RunWant v = {.preview = true, .threads = 2, .chapters = 6};
  p = runplan_decide(&v);
  assert_int_equal(p->layout, RUN_LAY_WHOLE);
  assert_true(p->qpdf_preload); /* as before the plan: a preview counts as a PDF */
  assert_false(p->sources_thread);
  runplan_end(p);

  RunWant d = {.pdfs = 1, .dump_layout = true, .threads = 1, .chapters = 6};
  p = runplan_decide(&d);
  assert_int_equal(p->layout, RUN_LAY_WHOLE);
  runplan_end(p);
}

static void test_describe(void **state)
{
  (void)state;
  RunPlan *p = plan_for("both", 4, 6);
  char *s = runplan_describe(p);
  assert_non_null(strstr(s, "octavo: plan: outputs epub=1 pdf=1 other=0"));
  assert_non_null(strstr(s, "layout=stream handout=no counted=no marks=yes passes=1"));
  assert_non_null(strstr(s, "threads=4 epub-thread=yes draw-thread=yes chapter-threads=2"));
  assert_non_null(strstr(s, "preload hyphen=yes qpdf=yes cover=yes sources-thread=yes"));
  g_free(s);
  runplan_end(p);
}

/* No -j: the threads from the CPUs and the load others put on them. */
static void test_threads_from_load(void **state)
{
  (void)state;
  assert_int_equal(runplan_threads(2, 0.0), 2); /* two free cores: two threads */
  assert_int_equal(runplan_threads(2, 0.3), 2);
  assert_int_equal(runplan_threads(2, 0.5), 1); /* half a core busy counts as busy */
  assert_int_equal(runplan_threads(2, 1.3), 1);
  assert_int_equal(runplan_threads(2, 6.0), 1); /* never fewer than one */
  assert_int_equal(runplan_threads(4, 1.3), 3);
  assert_int_equal(runplan_threads(4, 2.6), 1);
  assert_int_equal(runplan_threads(1, 0.0), 1);
  assert_int_equal(runplan_threads(0, 0.0), 1);  /* the CPUs unknown */
  assert_int_equal(runplan_threads(8, -1.0), 8); /* no load read */
  assert_int_equal(runplan_threads(2, NAN), 2);

  /* the plan takes it when threads is 0, and says so */
  RunWant w = {.pdfs = 1, .epubs = 1, .page_list = true, .chapters = 6, .cpus = 2, .load = 0.1};
  RunPlan *p = runplan_decide(&w);
  assert_int_equal(p->want.threads, 2);
  assert_true(p->threads_chosen && p->draw_thread && p->epub_thread);
  char *s = runplan_describe(p);
  assert_non_null(strstr(s, "octavo: plan: cores=2 load=0.10 -> threads=2"));
  g_free(s);
  runplan_end(p);

  w.load = 1.3; /* one core busy: the plan of one thread, nothing beside the main one */
  p = runplan_decide(&w);
  assert_int_equal(p->want.threads, 1);
  assert_false(p->draw_thread || p->epub_thread || p->hyphen_preload || p->qpdf_preload);
  assert_int_equal(p->chapter_threads, 0);
  s = runplan_describe(p);
  assert_non_null(strstr(s, "cores=2 load=1.30 -> threads=1"));
  g_free(s);
  runplan_end(p);

  /* -j N means N whatever the load */
  w.threads = 2;
  w.load = 5;
  p = runplan_decide(&w);
  assert_int_equal(p->want.threads, 2);
  assert_false(p->threads_chosen);
  assert_true(p->draw_thread);
  s = runplan_describe(p);
  assert_non_null(strstr(s, "threads=2 as asked"));
  assert_null(strstr(s, "cores="));
  g_free(s);
  runplan_end(p);

  /* the probe reads this machine: at least one CPU, a load not negative */
  RunWant m = {0};
  runplan_probe(&m);
  assert_true(m.cpus >= 1);
  assert_true(m.load >= 0);
}

static gpointer add_one(gpointer data)
{
  g_atomic_int_inc((int *)data);
  return data;
}

/* In two steps: the threads before parsing (and with them the front end's
 * thread), the rest once the book is known, the threads kept as decided. */
static void test_begin_settle(void **state)
{
  (void)state;
  RunWant early = {.threads = 1};
  RunPlan *p = runplan_begin(&early);
  assert_false(p->front_thread); /* one thread: the main one parses alone */
  runplan_end(p);

  early = (RunWant){.cpus = 2, .load = 0.1}; /* no -j: from the machine */
  p = runplan_begin(&early);
  assert_int_equal(p->want.threads, 2);
  assert_true(p->front_thread && p->threads_chosen);
  int n = 0; /* threads may start before the plan is settled */
  RunThread *t = runplan_spawn(p, "octavo-front", add_one, &n);
  RunWant book = {.pdfs = 1, .epubs = 1, .page_list = true, .chapters = 6, .threads = 7,
                  .cpus = 8, .load = 0};
  runplan_settle(p, &book); /* its threads, cpus and load ignored: decided before */
  assert_ptr_equal(runplan_join(p, t), &n);
  assert_int_equal(p->want.threads, 2);
  assert_int_equal(p->want.cpus, 2);
  assert_true(p->draw_thread && p->epub_thread && p->marks);
  assert_int_equal(p->want.chapters, 6);
  char *s = runplan_describe(p);
  assert_non_null(strstr(s, "cores=2 load=0.10 -> threads=2"));
  assert_non_null(strstr(s, "octavo: plan: front-thread=yes identifier-thread=yes\n"));
  g_free(s);
  runplan_end(p);

  /* the same plan as runplan_decide's */
  book.threads = 2;
  RunPlan *d = runplan_decide(&book);
  assert_true(d->front_thread && d->draw_thread && d->epub_thread && d->identifier_thread);
  runplan_end(d);
  book.identifier_given = true; /* nothing to digest */
  d = runplan_decide(&book);
  assert_false(d->identifier_thread);
  runplan_end(d);
  RunWant epub = {.epubs = 1, .page_list = true, .threads = 2, .chapters = 6};
  d = runplan_decide(&epub); /* the page list's pages are not drawn: no colophon */
  assert_false(d->identifier_thread);
  runplan_end(d);
  book.identifier_given = false;
  book.threads = 1;
  d = runplan_decide(&book);
  s = runplan_describe(d);
  assert_non_null(strstr(s, "octavo: plan: front-thread=no identifier-thread=no\n"));
  g_free(s);
  runplan_end(d);
}

static int freed;
static void count_free(gpointer data)
{
  freed++;
  g_free(data);
}

static void test_threads(void **state)
{
  (void)state;
  int n = 0;
  RunPlan *p = plan_for("pdf", 4, 6);
  RunThread *t = runplan_spawn(p, "octavo-test", add_one, &n);
  assert_ptr_equal(runplan_join(p, t), &n);
  assert_int_equal(n, 1);
  runplan_spawn(p, "octavo-test", add_one, &n); /* never joined by the caller */
  runplan_spawn(p, "octavo-other", add_one, &n);
  assert_int_equal(runplan_started(p, "octavo-test"), 2);
  assert_int_equal(runplan_started(p, "octavo-other"), 1);
  assert_int_equal(runplan_started(p, "octavo-none"), 0);
  freed = 0;
  runplan_keep(p, "a", g_strdup("first"), count_free);
  runplan_keep(p, "a", g_strdup("second"), count_free); /* the first freed */
  assert_int_equal(freed, 1);
  runplan_keep(p, "b", g_strdup("taken"), count_free);
  char *b = runplan_take(p, "b");
  assert_string_equal(b, "taken");
  g_free(b);
  assert_null(runplan_take(p, "b"));
  runplan_keep(p, "c", g_strdup("left"), count_free);
  runplan_end(p); /* "a" and "c" freed, both threads joined */
  assert_int_equal(freed, 3);
  assert_int_equal(n, 3);
  runplan_end(NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_epub_only), cmocka_unit_test(test_pdf_only),
      cmocka_unit_test(test_both),      cmocka_unit_test(test_handout),
      cmocka_unit_test(test_preview),   cmocka_unit_test(test_describe),
      cmocka_unit_test(test_threads),   cmocka_unit_test(test_threads_from_load),
      cmocka_unit_test(test_begin_settle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
