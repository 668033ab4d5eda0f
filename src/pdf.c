/* pdf.c: the layout's pages -> a PDF through cairo. Draws only: every
 * position, link and tag comes from the layout, whose driver (lay_drive)
 * hands it the pages (a page sink: pdf_sink), or which it is given kept
 * whole (pdf_write); it lays nothing out. Adds what belongs to the file:
 * metadata, outline, page labels, the Document structure tag; then the
 * archive pass (archive.c) and the file renamed into place.
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

/* A PDF being drawn: cairo's surface on the file, the painter, and how
 * many structure elements each page opens under Document (the archive
 * pass moves the contents' after the title page's). */
struct PdfDrawing {
  Book *book;
  char *path, *tmp; /* the file's, and the temporary one written */
  PdfOut out;
  cairo_surface_t *surf;
  cairo_t *cr;
  Painter *painter;
  PngPass *pngs; /* the PNGs the painter drew as placeholders, for the archive pass */
  PdfTags mode;
  char *authors, *keywords, *date;
  GArray *tops; /* int per page drawn: elements it opens under Document */
};
typedef PdfDrawing Drawing;

/* Start a PDF at tmp of pages w x h points with the book's metadata.
 * False (errno in *write_errno) when tmp cannot be opened. */
static bool drawing_open(Drawing *d, Book *book, double w, double h, const char *title,
                         const char *tmp, PdfTags mode, int image_dpi, int *write_errno)
{
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
  d->painter = paint_new(d->cr, mode == PDF_TAGS_ALL ? PAINT_PDF_TAGS : PAINT_PDF, book);
  paint_set_image_dpi(d->painter, image_dpi);
  d->pngs = pngpass_new();
  paint_set_pngpass(d->painter, d->pngs);
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
  int tops = d->mode == PDF_TAGS_PAGES ? 1 : top_elements(items, paint_open_tags(d->painter));
  g_array_append_val(d->tops, tops);
  if (label)
    cairo_pdf_surface_set_page_label(d->surf, label);
  if (d->mode == PDF_TAGS_PAGES)
    cairo_tag_begin(d->cr, "Part", "");
  paint_items(d->painter, items);
  if (d->mode == PDF_TAGS_PAGES)
    cairo_tag_end(d->cr, "Part");
  cairo_show_page(d->cr);
}

static void sink_page(void *ud, GArray *items, const char *label)
{
  drawing_page(ud, items, label);
  lay_items_free(items);
}

LaySink pdf_sink(PdfDrawing *d)
{
  return (LaySink){.page = sink_page, .ud = d};
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

/* After cairo: the status checked, the archive pass (which moves the
 * pages of `move`), the file renamed into place. */
static bool pdf_finish(Book *book, const Layout *lay, const OctavoOptions *opts,
                       const PdfMove *move, const PngPass *pngs, cairo_status_t st, int werr,
                       char *tmp, const char *path)
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
  if (!archive_pdf(book, lay, opts, move, pngs, &tmp, path)) {
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

PdfDrawing *pdf_open(Book *book, const char *path, double w_pt, double h_pt, const char *title,
                     PdfTags tags, int image_dpi)
{
  char *tmp = temp_for(book, path);
  if (!tmp)
    return NULL;
  PdfDrawing *d = g_new0(PdfDrawing, 1);
  int werr = 0;
  if (!drawing_open(d, book, w_pt, h_pt, title, tmp, tags, image_dpi, &werr)) {
    book_diag(book, BOOK_ERROR, NULL, "cannot write %s: %s",
              strcmp(path, "-") == 0 ? "standard output" : path, g_strerror(werr));
    util_temp_discard(tmp);
    g_free(tmp);
    g_free(d);
    return NULL;
  }
  d->book = book;
  d->tmp = tmp;
  d->path = g_strdup(path);
  return d;
}

PdfResult pdf_close(PdfDrawing *d, const Layout *lay, const OctavoOptions *opts)
{
  /* drawn: the title page, the body, the colophon, then the contents */
  PdfMove move = moved_pages(d, lay ? lay->front_pages - 1 : 0);
  int werr = 0;
  cairo_status_t st = drawing_close(d, lay, &werr);
  /* the tests' way to the fallback cairo 1.16 takes on some books only
   * (t-stream: OCTAVO_TEST_REFUSE_TAGS=1 refuses every first drawing) */
  if (st == CAIRO_STATUS_SUCCESS && d->mode == PDF_TAGS_ALL && g_getenv("OCTAVO_TEST_REFUSE_TAGS"))
    st = CAIRO_STATUS_TAG_ERROR;
  Book *book = d->book;
  char *tmp = d->tmp, *path = d->path;
  bool all = d->mode == PDF_TAGS_ALL;
  PngPass *pngs = d->pngs;
  g_free(d);
  PdfResult r;
  if (st == CAIRO_STATUS_TAG_ERROR && !werr && all) {
    /* cairo 1.16 refuses some tag trees it should take: a PDF with one
     * Part per page is better than none */
    util_temp_discard(tmp);
    g_free(tmp);
    r = PDF_TAGS_REFUSED;
  } else {
    /* what cairo kept for the whole file (structure tree, annotations,
     * font subsets) is freed: give it back before the archive pass reads
     * the file */
    util_heap_release();
    r = pdf_finish(book, lay, opts, &move, pngs, st, werr, tmp, path) ? PDF_WRITTEN : PDF_FAILED;
  }
  pngpass_free(pngs);
  g_free(path);
  return r;
}

void pdf_tags_refused(Book *book, const char *path)
{
  book_diag(book, BOOK_WARNING, NULL,
            "%s: cairo refused the structure tags; written with one Part per page", path);
}

/* Draw every page of lay, in the order lay_drive hands them over (the
 * title page, the body and the colophon, then the rest of the front
 * matter, which the archive pass moves after the title page), so that a
 * PDF has the same bytes whether it was streamed or laid out whole. */
static void draw_kept(PdfDrawing *d, const Layout *lay)
{
  guint n = lay->pages->len, front = lay->front_pages > 1 ? (guint)lay->front_pages : 1;
  if (front > n)
    front = 1;
  for (guint i = 0; i < n; i++) {
    /* drawn i-th: the page of the book's order */
    guint at = i == 0 ? 0 : i < 1 + n - front ? front + i - 1 : i - (n - front);
    const LayPage *here = lay->pages->pdata[i];
    drawing_page(d, ((const LayPage *)lay->pages->pdata[at])->items, here->label);
  }
}

bool pdf_write(Book *book, const Layout *lay, const OctavoOptions *opts, const char *path)
{
  if (!lay) {
    book_diag(book, BOOK_ERROR, NULL, "%s: no layout to write", path);
    return false;
  }
  for (PdfTags tags = PDF_TAGS_ALL;; tags = PDF_TAGS_PAGES) {
    PdfDrawing *d = pdf_open(book, path, lay->page_w_pt, lay->page_h_pt, lay->title, tags,
                             opts->image_dpi);
    if (!d)
      return false;
    draw_kept(d, lay);
    PdfResult r = pdf_close(d, lay, opts);
    if (r != PDF_TAGS_REFUSED || tags == PDF_TAGS_PAGES)
      return r == PDF_WRITTEN;
    pdf_tags_refused(book, path);
  }
}
