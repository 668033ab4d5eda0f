/* print.c: the print run: lay_drive's sinks connected as the run plan
 * says. See print.h. */
#include "print.h"

#include <pthread.h>
#include <stdio.h>

#include "pagepipe.h"
#include "pdf.h"
#include "progress.h"

LayDrive print_drive(const RunPlan *plan, LayPurpose purpose)
{
  LayDrive d = {.purpose = purpose,
                .stream = plan && plan->layout == RUN_LAY_STREAM && purpose == LAY_FOR_PRINT};
  if (plan) {
    d.helpers = plan->helpers;
    d.count_helpers = plan->count_helpers;
    d.chapter_threads = plan->chapter_threads;
    d.hyphenator = plan->hyphenator;
  }
  return d;
}

struct PrintMarks {
  pthread_mutex_t lock; /* POSIX's, as pagepipe.c's: the race checkers see it */
  pthread_cond_t given;
  bool ready;
  GArray *marks; /* BookPageMark, labels owned; NULL: none */
};

PrintMarks *print_marks_new(void)
{
  PrintMarks *pm = g_new0(PrintMarks, 1);
  pthread_mutex_init(&pm->lock, NULL);
  pthread_cond_init(&pm->given, NULL);
  return pm;
}

/* Give pm a copy of the page marks `from` (BookPageMark; NULL: none), once. */
static void marks_give(PrintMarks *pm, const GArray *from)
{
  if (!pm)
    return;
  pthread_mutex_lock(&pm->lock);
  if (!pm->ready && from) {
    pm->marks = g_array_sized_new(FALSE, FALSE, sizeof(BookPageMark), from->len);
    g_array_append_vals(pm->marks, from->data, from->len);
    for (guint i = 0; i < pm->marks->len; i++) {
      BookPageMark *m = &g_array_index(pm->marks, BookPageMark, i);
      m->label = g_strdup(m->label);
    }
  }
  pm->ready = true;
  pthread_cond_broadcast(&pm->given);
  pthread_mutex_unlock(&pm->lock);
}

const GArray *print_marks_wait(PrintMarks *pm)
{
  pthread_mutex_lock(&pm->lock);
  while (!pm->ready)
    pthread_cond_wait(&pm->given, &pm->lock);
  pthread_mutex_unlock(&pm->lock);
  return pm->marks;
}

void print_marks_free(PrintMarks *pm)
{
  if (!pm)
    return;
  for (guint i = 0; pm->marks && i < pm->marks->len; i++)
    g_free(g_array_index(pm->marks, BookPageMark, i).label);
  if (pm->marks)
    g_array_free(pm->marks, TRUE);
  pthread_mutex_destroy(&pm->lock);
  pthread_cond_destroy(&pm->given);
  g_free(pm);
}

/* The sinks of one print run: the pages to `to` (the painter, or the
 * pipe in front of it), the marks to `marks`, the pages placed to the
 * progress line. */
typedef struct {
  LaySink to;
  PrintMarks *marks;
} Sinks;

static void sinks_page(void *ud, GArray *items, const char *label)
{
  Sinks *s = ud;
  s->to.page(s->to.ud, items, label);
}

static void sinks_marks(void *ud, const GArray *marks)
{
  marks_give(((Sinks *)ud)->marks, marks);
}

static void sinks_placed(void *ud, int pages)
{
  (void)ud;
  progress_update(pages);
}

static LaySink sinks(Sinks *s)
{
  return (LaySink){s->to.page ? sinks_page : NULL, sinks_marks, sinks_placed, s};
}

Layout *print_layout(const Book *book, const OctavoOptions *opts, const Style *st,
                     const Fonts *fonts, const Colophon *colophon)
{
  const RunPlan *plan = opts->plan;
  LayPurpose purpose =
      plan && plan->layout == RUN_LAY_PAGE_LIST ? LAY_FOR_PAGE_LIST : LAY_FOR_PRINT;
  LayDrive d = print_drive(plan, purpose);
  d.stream = false;
  Sinks s = {{0}, NULL};
  LaySink sink = sinks(&s);
  return lay_drive(&d, book, opts, st, fonts, colophon, &sink);
}

/* The layout's unresolved forward references said (never, but for a bug). */
static void say_unresolved(Book *book, const Layout *lay, const char *path)
{
  if (lay->unresolved)
    book_diag(book, BOOK_WARNING, NULL,
              "%s: %d of the forward references drawn (the contents, links, the page count) "
              "were not resolved by the layout: a bug in octavo, please report it",
              path, lay->unresolved);
}

/* One drawing of the PDF with tags: laid out and drawn. */
static PdfResult draw_once(Book *book, const OctavoOptions *opts, const Style *st,
                           const Fonts *fonts, const Colophon *colophon, const char *path,
                           PrintMarks *marks, PdfTags tags, LayAux *aux)
{
  PdfDrawing *pd = pdf_open(book, path, st->paper_w_pt, st->paper_h_pt, book->meta.title, tags,
                              opts->image_dpi);
  if (!pd)
    return PDF_FAILED;
  RunPlan *plan = opts->plan;
  LaySink draw = pdf_sink(pd);
  /* two threads: the pages drawn on the pipe's while the next are laid out */
  PagePipe *pipe =
      plan && plan->draw_thread ? page_pipe_start(plan, book, &draw, opts->verbose) : NULL;
  Sinks s = {pipe ? page_pipe_sink(pipe) : draw, marks};
  LaySink sink = sinks(&s);
  LayDrive d = print_drive(plan, LAY_FOR_PRINT);
  d.stream = true;
  d.aux = aux;
  Layout *lay = lay_drive(&d, book, opts, st, fonts, colophon, &sink);
  page_pipe_finish(pipe); /* every page drawn */
  say_unresolved(book, lay, path);
  PdfResult r = pdf_close(pd, lay, opts);
  lay_free(lay);
  return r;
}

bool print_pdf(Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts,
               const Colophon *colophon, const char *path, PrintMarks *marks)
{
  LayAux *aux = lay_aux_new(); /* a handout's count, made once */
  PdfResult r = draw_once(book, opts, st, fonts, colophon, path, marks, PDF_TAGS_ALL, aux);
  if (r == PDF_TAGS_REFUSED) {
    pdf_tags_refused(book, path);
    /* laid out again: its diagnostics were given already */
    GArray *outer = book_diag_capturing(book), *again = g_array_new(FALSE, TRUE, sizeof(BookDiag));
    book_diag_capture(book, again);
    r = draw_once(book, opts, st, fonts, colophon, path, marks, PDF_TAGS_PAGES, aux);
    book_diag_capture(book, outer);
    for (guint i = 0; i < again->len; i++)
      g_free(g_array_index(again, BookDiag, i).message);
    g_array_free(again, TRUE);
  }
  lay_aux_free(aux);
  marks_give(marks, NULL); /* none, if not given yet: whoever waits goes on */
  return r == PDF_WRITTEN;
}
