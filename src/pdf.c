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
#include <math.h>
#include <pango/pangocairo.h>
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

/* How much structure render() writes. */
typedef enum {
  TAGS_ALL,   /* the layout's structure tags */
  TAGS_PAGES, /* Document > Part per page only: cairo 1.16 writes a damaged
               * cross-reference table (the Annots array names an object never
               * written) for links without structure tags around them, and for
               * links after a page with no tagged content, so the fallback
               * still wraps every page's content */
} TagMode;

/* Draw every page into a PDF at tmp with the structure of mode. Returns
 * cairo's status after finishing the surface. */
static cairo_status_t render(Book *book, const Layout *lay, const char *tmp, TagMode mode,
                             int *write_errno)
{
  PdfOut out = {fopen(tmp, "wb"), 0};
  if (!out.f) {
    *write_errno = errno;
    return CAIRO_STATUS_WRITE_ERROR;
  }
  cairo_surface_t *surf =
      cairo_pdf_surface_create_for_stream(out_write, &out, lay->page_w_pt, lay->page_h_pt);
  cairo_pdf_surface_restrict_to_version(surf, CAIRO_PDF_VERSION_1_5);
  const BookMeta *m = &book->meta;
  cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_TITLE, lay->title);
  char *authors = joined(m->authors, ", ");
  if (authors)
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_AUTHOR, authors);
  const char *subject = m->description ? m->description : m->subtitle;
  if (subject)
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_SUBJECT, subject);
  char *keywords = joined(m->subjects, ", ");
  if (keywords)
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_KEYWORDS, keywords);
  cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATOR, "octavo " OCTAVO_VERSION);
  char *date = pdf_date(util_build_time(m->date));
  cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATE_DATE, date);
  cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_MOD_DATE, date);

  cairo_t *cr = cairo_create(surf);
  Painter *painter = paint_new(cr, mode == TAGS_ALL ? PAINT_PDF_TAGS : PAINT_PDF, book);
  cairo_tag_begin(cr, "Document", "");
  for (guint i = 0; i < lay->pages->len; i++) {
    const LayPage *p = lay->pages->pdata[i];
    if (p->label)
      cairo_pdf_surface_set_page_label(surf, p->label);
    if (mode == TAGS_PAGES)
      cairo_tag_begin(cr, "Part", "");
    paint_items(painter, p->items);
    if (mode == TAGS_PAGES)
      cairo_tag_end(cr, "Part");
    cairo_show_page(cr);
  }
  cairo_tag_end(cr, "Document");
  int depth = paint_open_tags(painter);
  paint_free(painter);
  /* the outline: cairo ids for the layout's entries */
  int *ids = g_new0(int, lay->outline->len + 1);
  for (guint i = 0; i < lay->outline->len; i++) {
    const LayOutline *o = &g_array_index(lay->outline, LayOutline, i);
    GString *a = g_string_new("dest=");
    char *name = util_pdf_dest_name(o->dest);
    paint_attr_str(a, name);
    g_free(name);
    int parent = o->parent >= 0 ? ids[o->parent] : CAIRO_PDF_OUTLINE_ROOT;
    ids[i] = cairo_pdf_surface_add_outline(surf, parent, o->title, a->str, 0);
    g_string_free(a, TRUE);
  }
  g_free(ids);
  cairo_destroy(cr);
  cairo_surface_finish(surf);
  cairo_status_t st = cairo_surface_status(surf);
  cairo_surface_destroy(surf);
  if (fclose(out.f) != 0 && !out.err)
    out.err = errno ? errno : EIO;
  *write_errno = out.err;
  if (out.err)
    st = CAIRO_STATUS_WRITE_ERROR;
  g_free(authors);
  g_free(keywords);
  g_free(date);
  if (depth != 0 && st == CAIRO_STATUS_SUCCESS)
    st = CAIRO_STATUS_TAG_ERROR;
  return st;
}

bool pdf_write(Book *book, const Layout *lay, const OctavoOptions *opts, const char *path)
{
  if (!lay) {
    book_diag(book, BOOK_ERROR, NULL, "%s: no layout to write", path);
    return false;
  }
  GError *err = NULL;
  char *tmp = util_temp_beside(path, &err);
  if (!tmp) {
    book_diag(book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
    return false;
  }
  int werr = 0;
  cairo_status_t st = render(book, lay, tmp, TAGS_ALL, &werr);
  if (st == CAIRO_STATUS_TAG_ERROR) {
    /* cairo 1.16 refuses some tag trees it should take: a PDF with one
     * Part per page is better than none */
    book_diag(book, BOOK_WARNING, NULL,
              "%s: cairo refused the structure tags; written with one Part per page", path);
    st = render(book, lay, tmp, TAGS_PAGES, &werr);
  }
  if (werr) {
    book_diag(book, BOOK_ERROR, NULL, "cannot write %s: %s",
              strcmp(path, "-") == 0 ? "standard output" : path, g_strerror(werr));
    unlink(tmp);
    g_free(tmp);
    return false;
  }
  if (st != CAIRO_STATUS_SUCCESS) {
    book_diag(book, BOOK_ERROR, NULL, "%s: cairo could not write the PDF: %s", path,
              cairo_status_to_string(st));
    unlink(tmp);
    g_free(tmp);
    return false;
  }
  if (!archive_pdf(book, lay, opts, tmp, path)) { /* XMP, /Lang, /Alt, sources...: archive.c */
    unlink(tmp);
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
