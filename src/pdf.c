/* pdf.c: the layout's pages -> a PDF through cairo. Draws only: every
 * position, link and tag comes from the layout. Adds what belongs to the
 * file: metadata, outline, page labels, the Document structure tag.
 *
 * cairo 1.16 pitfalls (DESIGN.md): links by named destination only; a tag
 * error shows only in cairo_surface_status() after cairo_surface_finish();
 * numbers are written with the C locale only if LC_NUMERIC is "C". */
#include "pdf.h"

#include <cairo-pdf.h>
#include <errno.h>
#include <cairo.h>
#include <hb.h>
#ifdef __GLIBC__
#endif
#include <math.h>
#include <pango/pangocairo.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "pagepipe.h"
#include "paint.h"
#include "util.h"

static char *pdf_date(gint64 t)
{
  GDateTime *dt = g_date_time_new_from_unix_utc(t);
  char *s = dt ? g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ") : g_strdup("1970-01-01T00:00:00Z");
  if (dt)
    g_date_time_unref(dt);
  return s;
}

static char *joined(const GPtrArray *a, const char *sep)
{
  if (!a || !a->len)
    return NULL;
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < a->len; i++) {
    if (i)
      g_string_append(s, sep);
    g_string_append(s, a->pdata[i]);
  }
  return g_string_free(s, FALSE);
}

/* The PDF file cairo writes through: cairo 1.16 drops write errors that
 * happen while it finishes the surface (fonts, outline, cross-reference
 * table), so the first failure is kept here. */
typedef struct {
  FILE *f;
  int err; /* errno of the first failed write, 0 if none */
} PdfOut;

static cairo_status_t out_write(void *closure, const unsigned char *data, unsigned int len)
{
  PdfOut *o = closure;
  if (!o->err && fwrite(data, 1, len, o->f) != len)
    o->err = errno ? errno : EIO;
  return o->err ? CAIRO_STATUS_WRITE_ERROR : CAIRO_STATUS_SUCCESS;
}

/* How much structure render() writes. */
typedef enum {
  TAGS_ALL,   /* the layout's structure tags */
  TAGS_PAGES, /* Document > Part per page only: cairo 1.16 writes a damaged
               * cross-reference table (the Annots array names an object never
               * written) for links without structure tags around them, and for
               * links after a page with no tagged content, so the fallback
               * still wraps every page's content */
} TagMode;

/* A PDF being drawn: cairo's surface on the file, the painter, and how
 * many structure elements each page opens under Document (the archive
 * pass moves the contents' after the title page's). */
typedef struct {
  PdfOut out;
  cairo_surface_t *surf;
  cairo_t *cr;
  Painter *painter;
  TagMode mode;
  char *authors, *keywords, *date;
  GArray *tops; /* int per page drawn: elements it opens under Document */
} Drawing;

/* Start a PDF at tmp of pages w x h points with the book's metadata.
 * False (errno in *write_errno) when tmp cannot be opened. */
static bool drawing_open(Drawing *d, Book *book, double w, double h, const char *title,
                         const char *tmp, TagMode mode, int image_dpi, int *write_errno)
{
  memset(d, 0, sizeof *d);
  d->out.f = fopen(tmp, "wb");
  if (!d->out.f) {
    *write_errno = errno;
    return false;
  }
  d->mode = mode;
  d->surf = cairo_pdf_surface_create_for_stream(out_write, &d->out, w, h);
  cairo_pdf_surface_restrict_to_version(d->surf, CAIRO_PDF_VERSION_1_5);
  const BookMeta *m = &book->meta;
  cairo_pdf_surface_set_metadata(d->surf, CAIRO_PDF_METADATA_TITLE, title);
  d->authors = joined(m->authors, ", ");
  if (d->authors)
    cairo_pdf_surface_set_metadata(d->surf, CAIRO_PDF_METADATA_AUTHOR, d->authors);
  const char *subject = m->description ? m->description : m->subtitle;
  if (subject)
    cairo_pdf_surface_set_metadata(d->surf, CAIRO_PDF_METADATA_SUBJECT, subject);
  d->keywords = joined(m->subjects, ", ");
  if (d->keywords)
    cairo_pdf_surface_set_metadata(d->surf, CAIRO_PDF_METADATA_KEYWORDS, d->keywords);
  cairo_pdf_surface_set_metadata(d->surf, CAIRO_PDF_METADATA_CREATOR, "octavo " OCTAVO_VERSION);
  d->date = pdf_date(util_build_time(m->date));
  cairo_pdf_surface_set_metadata(d->surf, CAIRO_PDF_METADATA_CREATE_DATE, d->date);
  cairo_pdf_surface_set_metadata(d->surf, CAIRO_PDF_METADATA_MOD_DATE, d->date);
  d->cr = cairo_create(d->surf);
  d->painter = paint_new(d->cr, mode == TAGS_ALL ? PAINT_PDF_TAGS : PAINT_PDF, book);
  paint_set_image_dpi(d->painter, image_dpi);
  d->tops = g_array_new(FALSE, FALSE, sizeof(int));
  cairo_tag_begin(d->cr, "Document", "");
  return true;
}

/* The structure elements items open under Document when depth tags are
 * open before them (as paint_items nests them). */
static int top_elements(const GArray *items, int depth)
{
  int n = 0;
  for (guint k = 0; k < items->len; k++) {
    const LayItem *it = &g_array_index(items, LayItem, k);
    if (it->kind == LAY_TAG_BEGIN)
      n += depth++ == 0;
    else if (it->kind == LAY_TAG_END && depth > 0)
      depth--;
  }
  return n;
}

/* Draw a page's items as the next page, labelled label. */
static void drawing_page(Drawing *d, const GArray *items, const char *label)
{
  int tops = d->mode == TAGS_PAGES ? 1 : top_elements(items, paint_open_tags(d->painter));
  g_array_append_val(d->tops, tops);
  if (label)
    cairo_pdf_surface_set_page_label(d->surf, label);
  if (d->mode == TAGS_PAGES)
    cairo_tag_begin(d->cr, "Part", "");
  paint_items(d->painter, items);
  if (d->mode == TAGS_PAGES)
    cairo_tag_end(d->cr, "Part");
  cairo_show_page(d->cr);
}

static void sink_page(void *ud, GArray *items, const char *label)
{
  drawing_page(ud, items, label);
  lay_items_free(items);
}

/* Close the structure, add lay's outline, finish the file. Returns
 * cairo's status after finishing the surface. */
static cairo_status_t drawing_close(Drawing *d, const Layout *lay, int *write_errno)
{
  cairo_tag_end(d->cr, "Document");
  int depth = paint_open_tags(d->painter);
  paint_free(d->painter);
  /* the outline: cairo ids for the layout's entries */
  guint n = lay ? lay->outline->len : 0;
  int *ids = g_new0(int, n + 1);
  for (guint i = 0; i < n; i++) {
    const LayOutline *o = &g_array_index(lay->outline, LayOutline, i);
    GString *a = g_string_new("dest=");
    char *name = util_pdf_dest_name(o->dest);
    paint_attr_str(a, name);
    g_free(name);
    int parent = o->parent >= 0 ? ids[o->parent] : CAIRO_PDF_OUTLINE_ROOT;
    ids[i] = cairo_pdf_surface_add_outline(d->surf, parent, o->title, a->str, 0);
    g_string_free(a, TRUE);
  }
  g_free(ids);
  cairo_destroy(d->cr);
  cairo_surface_finish(d->surf);
  cairo_status_t st = cairo_surface_status(d->surf);
  cairo_surface_destroy(d->surf);
  if (fclose(d->out.f) != 0 && !d->out.err)
    d->out.err = errno ? errno : EIO;
  *write_errno = d->out.err;
  if (d->out.err)
    st = CAIRO_STATUS_WRITE_ERROR;
  g_free(d->authors);
  g_free(d->keywords);
  g_free(d->date);
  g_array_free(d->tops, TRUE);
  if (depth != 0 && st == CAIRO_STATUS_SUCCESS)
    st = CAIRO_STATUS_TAG_ERROR;
  return st;
}

/* What the archive pass moves when the last `moved` of d's pages drawn
 * are the book's second to (moved + 1)-th. */
static PdfMove moved_pages(const Drawing *d, int moved)
{
  PdfMove m = {0};
  guint n = d->tops->len;
  if (moved <= 0 || n <= (guint)moved)
    return m;
  m.pages = moved;
  m.title_elements = g_array_index(d->tops, int, 0);
  for (guint i = n - (guint)moved; i < n; i++)
    m.moved_elements += g_array_index(d->tops, int, i);
  return m;
}

/* Draw every page of lay into a PDF at tmp with the structure of mode, in
 * the order lay_book_stream hands them over (the title page, the body and
 * the colophon, then the rest of the front matter: *move), so that a PDF
 * has the same bytes whether it was streamed or laid out whole. Returns
 * cairo's status after finishing the surface. */
static cairo_status_t render(Book *book, const Layout *lay, const char *tmp, TagMode mode,
                             int image_dpi, int *write_errno, PdfMove *move)
{
  Drawing d;
  *move = (PdfMove){0};
  if (!drawing_open(&d, book, lay->page_w_pt, lay->page_h_pt, lay->title, tmp, mode, image_dpi,
                    write_errno))
    return CAIRO_STATUS_WRITE_ERROR;
  guint n = lay->pages->len, front = lay->front_pages > 1 ? (guint)lay->front_pages : 1;
  if (front > n)
    front = 1;
  for (guint i = 0; i < n; i++) {
    /* drawn i-th: the page of the book's order */
    guint at = i == 0 ? 0 : i < 1 + n - front ? front + i - 1 : i - (n - front);
    const LayPage *here = lay->pages->pdata[i];
    drawing_page(&d, ((const LayPage *)lay->pages->pdata[at])->items, here->label);
  }
  *move = moved_pages(&d, (int)front - 1);
  return drawing_close(&d, lay, write_errno);
}

/* What the book to draw is made of (pdf_write_stream's arguments). */
typedef struct {
  const OctavoOptions *opts;
  const Style *st;
  const Fonts *fonts;
  const Colophon *colophon;
  const LayPlan *plan; /* the handout's counting pass (lay_handout_plan), or NULL: the book */
} PdfSource;

/* Lay the book out while drawing it into a PDF at tmp (lay_book_stream):
 * *lay takes the layout (pages emptied), *move what the archive pass moves.
 * *exact false: the drawing is not the book (draw it from lay_book). */
static cairo_status_t render_stream(Book *book, const PdfSource *src, const char *tmp, TagMode mode,
                                    int *write_errno, Layout **lay, PdfMove *move, bool *exact)
{
  Drawing d;
  *lay = NULL;
  *exact = false;
  if (!drawing_open(&d, book, src->st->paper_w_pt, src->st->paper_h_pt, book->meta.title, tmp, mode,
                    src->opts->image_dpi, write_errno))
    return CAIRO_STATUS_WRITE_ERROR;
  LaySink sink = {sink_page, &d};
  /* two threads: the pages drawn on the pipe's while the next are laid out */
  RunPlan *plan = src->opts->plan;
  PagePipe *pipe = plan && plan->draw_thread ? page_pipe_start(plan, book, &sink, src->opts->verbose)
                                             : NULL;
  LaySink to = pipe ? page_pipe_sink(pipe) : sink;
  *lay = src->plan
             ? lay_handout_stream(src->plan, &to, exact)
             : lay_book_stream(book, src->opts, src->st, src->fonts, src->colophon, &to, exact);
  page_pipe_finish(pipe); /* every page drawn */
  /* drawn: the title page, the body, the colophon, then the contents */
  *move = *exact && *lay ? moved_pages(&d, (*lay)->front_pages - 1) : (PdfMove){0};
  return drawing_close(&d, *lay, write_errno);
}

/* After cairo: the status checked, the archive pass (which moves the
 * pages of `move`), the file renamed into place. */
static bool pdf_finish(Book *book, const Layout *lay, const OctavoOptions *opts,
                       const PdfMove *move, cairo_status_t st, int werr, char *tmp,
                       const char *path)
{
  GError *err = NULL;
  if (werr) {
    book_diag(book, BOOK_ERROR, NULL, "cannot write %s: %s",
              strcmp(path, "-") == 0 ? "standard output" : path, g_strerror(werr));
    util_temp_discard(tmp);
    g_free(tmp);
    return false;
  }
  if (st != CAIRO_STATUS_SUCCESS) {
    book_diag(book, BOOK_ERROR, NULL, "%s: cairo could not write the PDF: %s", path,
              cairo_status_to_string(st));
    util_temp_discard(tmp);
    g_free(tmp);
    return false;
  }
  /* XMP, /Lang, /Alt, sources..., the contents' pages moved: archive.c */
  if (!archive_pdf(book, lay, opts, move, &tmp, path)) {
    util_temp_discard(tmp);
    g_free(tmp);
    return false;
  }
  bool ok = util_commit(tmp, path, &err);
  if (!ok) {
    book_diag(book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
  }
  g_free(tmp);
  return ok;
}

static char *temp_for(Book *book, const char *path)
{
  GError *err = NULL;
  char *tmp = util_temp_beside(path, &err);
  if (!tmp) {
    book_diag(book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
  }
  return tmp;
}

static void tags_refused(Book *book, const char *path)
{
  /* cairo 1.16 refuses some tag trees it should take: a PDF with one
   * Part per page is better than none */
  book_diag(book, BOOK_WARNING, NULL,
            "%s: cairo refused the structure tags; written with one Part per page", path);
}

bool pdf_write(Book *book, const Layout *lay, const OctavoOptions *opts, const char *path)
{
  if (!lay) {
    book_diag(book, BOOK_ERROR, NULL, "%s: no layout to write", path);
    return false;
  }
  char *tmp = temp_for(book, path);
  if (!tmp)
    return false;
  int werr = 0;
  PdfMove move;
  cairo_status_t st = render(book, lay, tmp, TAGS_ALL, opts->image_dpi, &werr, &move);
  if (st == CAIRO_STATUS_TAG_ERROR) {
    tags_refused(book, path);
    st = render(book, lay, tmp, TAGS_PAGES, opts->image_dpi, &werr, &move);
  }
  return pdf_finish(book, lay, opts, &move, st, werr, tmp, path);
}

/* Stream the book into tmp with mode; when the prediction fails, lay it
 * out whole and draw that (*move then empty). */
static cairo_status_t stream_or_whole(Book *book, const PdfSource *src, const char *tmp,
                                      TagMode mode, int *werr, Layout **lay, PdfMove *move)
{
  bool exact = false;
  /* the layout's diagnostics kept apart: a second layout gives them again */
  GArray *outer = book_diag_capturing(book), *diags = g_array_new(FALSE, TRUE, sizeof(BookDiag));
  book_diag_capture(book, diags);
  cairo_status_t st = render_stream(book, src, tmp, mode, werr, lay, move, &exact);
  book_diag_capture(book, outer);
  if (exact || *werr) {
    if (outer)
      g_array_append_vals(outer, diags->data, diags->len);
    else
      book_diag_take(book, diags);
    g_array_free(diags, TRUE);
    return st;
  }
  for (guint i = 0; i < diags->len; i++)
    g_free(g_array_index(diags, BookDiag, i).message);
  g_array_free(diags, TRUE);
  if (src->opts->verbose)
    fprintf(stderr, "octavo: the contents or links were not as predicted: laying out the "
                    "whole book again\n");
  lay_free(*lay);
  *lay = lay_book(book, src->opts, src->st, src->fonts, src->colophon);
  return render(book, *lay, tmp, mode, src->opts->image_dpi, werr, move);
}

struct PdfMarks {
  pthread_mutex_t lock; /* POSIX's, as pagepipe.c's: the race checkers see it */
  pthread_cond_t given;
  bool ready;
  GArray *marks; /* BookPageMark, labels owned; NULL: none */
};

PdfMarks *pdf_marks_new(void)
{
  PdfMarks *pm = g_new0(PdfMarks, 1);
  pthread_mutex_init(&pm->lock, NULL);
  pthread_cond_init(&pm->given, NULL);
  return pm;
}

/* Give pm a copy of the page marks `from` (BookPageMark; NULL: none), once. */
static void marks_give(PdfMarks *pm, const GArray *from)
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

const GArray *pdf_marks_wait(PdfMarks *pm)
{
  pthread_mutex_lock(&pm->lock);
  while (!pm->ready)
    pthread_cond_wait(&pm->given, &pm->lock);
  pthread_mutex_unlock(&pm->lock);
  return pm->marks;
}

void pdf_marks_free(PdfMarks *pm)
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

static bool write_stream(Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts,
                         const Colophon *colophon, const char *path, PdfMarks *marks,
                         Layout **lay_out);

bool pdf_write_stream(Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts,
                      const Colophon *colophon, const char *path, PdfMarks *marks, Layout **lay_out)
{
  bool ok = write_stream(book, opts, st, fonts, colophon, path, marks, lay_out);
  marks_give(marks, NULL); /* none, if not given yet: whoever waits goes on */
  return ok;
}

static bool write_stream(Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts,
                         const Colophon *colophon, const char *path, PdfMarks *marks,
                         Layout **lay_out)
{
  *lay_out = NULL;
  /* the handout: its pages counted first, which gives the page marks */
  LayPlan *plan = lay_handout_plan(book, opts, st, fonts, colophon);
  if (!st->chapter_new_page && !plan) { /* not streamed: laid out whole */
    *lay_out = lay_book(book, opts, st, fonts, colophon);
    marks_give(marks, (*lay_out)->page_marks);
    return pdf_write(book, *lay_out, opts, path);
  }
  if (plan)
    marks_give(marks, lay_plan_marks(plan));
  char *tmp = temp_for(book, path);
  if (!tmp) {
    lay_plan_free(plan);
    return false;
  }
  PdfSource src = {opts, st, fonts, colophon, plan};
  PdfMove move = {0};
  int werr = 0;
  Layout *lay = NULL;
  cairo_status_t cst = stream_or_whole(book, &src, tmp, TAGS_ALL, &werr, &lay, &move);
  marks_give(marks, lay ? lay->page_marks : NULL); /* final: a second layout below gives the same */
  if (cst == CAIRO_STATUS_TAG_ERROR) {
    tags_refused(book, path);
    lay_free(lay);
    /* laid out again: its diagnostics were given already */
    GArray *outer = book_diag_capturing(book), *again = g_array_new(FALSE, TRUE, sizeof(BookDiag));
    book_diag_capture(book, again);
    cst = stream_or_whole(book, &src, tmp, TAGS_PAGES, &werr, &lay, &move);
    book_diag_capture(book, outer);
    for (guint i = 0; i < again->len; i++)
      g_free(g_array_index(again, BookDiag, i).message);
    g_array_free(again, TRUE);
  }
  *lay_out = lay;
  lay_plan_free(plan);
  /* what cairo kept for the whole file (structure tree, annotations,
   * font subsets) is freed: give it back before the archive pass reads
   * the file */
  util_heap_release();
  return pdf_finish(book, lay, opts, &move, cst, werr, tmp, path);
}
