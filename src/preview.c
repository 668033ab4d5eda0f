/* preview.c: thumbnails and a contact sheet of the laid-out pages. Every
 * page is drawn by paint.c, as for the PDF, on a white page scaled to the
 * thumbnail; only the drawing surface differs (no links or tags). */
#include "preview.h"

#include <cairo.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "paint.h"
#include "util.h"

bool *preview_pages(const char *spec, int n_pages, GError **err)
{
  bool *on = g_new0(bool, n_pages > 0 ? n_pages : 1);
  if (!spec) {
    for (int i = 0; i < n_pages; i++)
      on[i] = true;
    return on;
  }
  char **parts = g_strsplit(spec, ",", -1);
  bool ok = parts[0] != NULL;
  for (char **p = parts; ok && *p; p++) {
    char *s = g_strstrip(*p), *end = NULL;
    long a = strtol(s, &end, 10), b = a;
    if (end == s) {
      ok = false;
      break;
    }
    if (*end == '-') {
      char *e2 = NULL;
      b = end[1] ? strtol(end + 1, &e2, 10) : n_pages;
      if (end[1] && (e2 == end + 1 || *e2))
        ok = false;
    } else if (*end) {
      ok = false;
    }
    if (!ok || a < 1 || b < a || b > n_pages) {
      ok = false;
      break;
    }
    for (long i = a; i <= b; i++)
      on[i - 1] = true;
  }
  g_strfreev(parts);
  if (!ok) {
    g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--pages '%s': want page numbers or ranges between 1 and %d, e.g. 1-3,7", spec,
                n_pages);
    g_free(on);
    return NULL;
  }
  return on;
}

/* Page p drawn at scale into cr at (x, y): a white sheet, then its items. */
static void draw_page(cairo_t *cr, Painter *pt, const Layout *lay, const LayPage *p, double x,
                      double y, double scale)
{
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_scale(cr, scale, scale);
  cairo_rectangle(cr, 0, 0, lay->page_w_pt, lay->page_h_pt);
  cairo_clip(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  paint_items(pt, p->items);
  cairo_restore(cr);
}

static bool write_png(Book *book, cairo_surface_t *s, const char *path)
{
  GError *err = NULL;
  char *tmp = util_temp_beside(path, &err);
  cairo_status_t st = tmp ? cairo_surface_write_to_png(s, tmp) : CAIRO_STATUS_WRITE_ERROR;
  bool ok = tmp && st == CAIRO_STATUS_SUCCESS && util_commit(tmp, path, &err);
  if (!ok) {
    book_diag(book, BOOK_ERROR, NULL, "cannot write %s: %s", path,
              err ? err->message : cairo_status_to_string(st));
    if (tmp && st != CAIRO_STATUS_SUCCESS)
      util_temp_discard(tmp);
  }
  if (err)
    g_error_free(err);
  g_free(tmp);
  return ok;
}

static bool write_thumb(Book *book, const Layout *lay, guint i, const char *dir)
{
  double scale = PREVIEW_THUMB_W / lay->page_w_pt;
  int h = (int)ceil(lay->page_h_pt * scale);
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, PREVIEW_THUMB_W, h);
  cairo_t *cr = cairo_create(s);
  Painter *pt = paint_new(cr, PAINT_RASTER, NULL); /* the PDF warns about images */
  draw_page(cr, pt, lay, lay->pages->pdata[i], 0, 0, scale);
  paint_free(pt);
  cairo_destroy(cr);
  char name[32];
  g_snprintf(name, sizeof name, "page-%03u.png", i + 1);
  char *path = g_build_filename(dir, name, NULL);
  bool ok = write_png(book, s, path);
  g_free(path);
  cairo_surface_destroy(s);
  return ok;
}

/* Every page in rows of PREVIEW_SHEET_COLS on a grey ground. */
static bool write_sheet(Book *book, const Layout *lay, const char *dir)
{
  const int gap = 12;
  double scale = PREVIEW_SHEET_W / lay->page_w_pt;
  int th = (int)ceil(lay->page_h_pt * scale);
  int n = (int)lay->pages->len, cols = MIN(n, PREVIEW_SHEET_COLS), rows = (n + cols - 1) / cols;
  int w = cols * (PREVIEW_SHEET_W + gap) + gap, h = rows * (th + gap) + gap;
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create(s);
  cairo_set_source_rgb(cr, 0.8, 0.8, 0.8);
  cairo_paint(cr);
  Painter *pt = paint_new(cr, PAINT_RASTER, NULL);
  for (int i = 0; i < n; i++)
    draw_page(cr, pt, lay, lay->pages->pdata[i], gap + (i % cols) * (PREVIEW_SHEET_W + gap),
              gap + (i / cols) * (th + gap), scale);
  paint_free(pt);
  cairo_destroy(cr);
  char *path = g_build_filename(dir, "contact.png", NULL);
  bool ok = write_png(book, s, path);
  g_free(path);
  cairo_surface_destroy(s);
  return ok;
}

bool preview_write(Book *book, const Layout *lay, const bool *chosen, const char *dir)
{
  if (!lay || !lay->pages->len) {
    book_diag(book, BOOK_ERROR, NULL, "%s: no pages to preview", dir);
    return false;
  }
  if (g_mkdir_with_parents(dir, 0777) != 0) {
    book_diag(book, BOOK_ERROR, NULL, "cannot create %s: %s", dir, g_strerror(errno));
    return false;
  }
  for (guint i = 0; i < lay->pages->len; i++)
    if (chosen[i] && !write_thumb(book, lay, i, dir))
      return false;
  return write_sheet(book, lay, dir);
}
