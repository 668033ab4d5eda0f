/* test_cover.c: the generated cover draws a deterministic PNG of the asked
 * size, with the book's title in it, for books with and without metadata;
 * a cover the book gives (Book.cover) is its image alone, fitted whole and
 * centred on the page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "cover.h"

#include <cairo.h>

static Fonts *fonts;

static int setup(void **state)
{
  (void)state;
  const char *top = g_getenv("TOP");
  fonts = fonts_load(top ? top : ".", NULL);
  return fonts ? 0 : -1;
}

static int teardown(void **state)
{
  (void)state;
  fonts_free(fonts);
  return 0;
}

static guint32 be32(const guint8 *p)
{
  return (guint32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void test_png(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("The 2023 LSFMM+BPF Summit");
  b->meta.subtitle = g_strdup("A report");
  g_ptr_array_add(b->meta.authors, g_strdup("Jonathan Corbet"));
  b->meta.date = g_strdup("2023-05-11");
  Style st;
  assert_true(style_load(&st, NULL, OCTAVO_PAPER_STYLE, 1, NULL));
  const CoverStyle cs = st.cover;
  GError *err = NULL;
  GBytes *png = cover_png(b, fonts, &cs, 600, 900, &err);
  assert_non_null(png);
  gsize len = 0;
  const guint8 *d = g_bytes_get_data(png, &len);
  assert_true(len > 1000);
  assert_memory_equal(d, "\x89PNG\r\n\x1a\n", 8);
  assert_int_equal(be32(d + 16), 600);
  assert_int_equal(be32(d + 20), 900);
  /* The same book gives the same bytes. */
  GBytes *again = cover_png(b, fonts, &cs, 600, 900, &err);
  assert_true(g_bytes_equal(png, again));
  /* Another title gives another picture. */
  g_free(b->meta.title);
  b->meta.title = g_strdup("Another book");
  GBytes *other = cover_png(b, fonts, &cs, 600, 900, &err);
  assert_false(g_bytes_equal(png, other));
  const char *keep = g_getenv("COVER_PNG");
  if (keep)
    g_file_set_contents(keep, (const char *)d, (gssize)len, NULL);
  g_bytes_unref(png);
  g_bytes_unref(again);
  g_bytes_unref(other);
  style_clear(&st);
  book_free(b);
}

typedef struct {
  const guint8 *d;
  gsize len, at;
} Reader;

static cairo_status_t read_png(void *closure, unsigned char *out, unsigned int n)
{
  Reader *r = closure;
  if (r->len - r->at < n)
    return CAIRO_STATUS_READ_ERROR;
  memcpy(out, r->d + r->at, n);
  r->at += n;
  return CAIRO_STATUS_SUCCESS;
}

/* The pixel at (x, y) of an RGB24/ARGB32 surface as 0xRRGGBB. */
static guint32 pixel(cairo_surface_t *s, int x, int y)
{
  const guint8 *row = cairo_image_surface_get_data(s) + y * cairo_image_surface_get_stride(s);
  return ((const guint32 *)row)[x] & 0xffffff;
}

/* Whether pixel p is colour c (cairo rounds to 8 bits its own way: one
 * step apart is the same colour). */
static bool is_colour(guint32 p, const double c[3])
{
  for (int k = 0; k < 3; k++)
    if (fabs((double)(p >> (16 - 8 * k) & 0xff) - c[k] * 255) > 1)
      return false;
  return true;
}

/* The cover is written as a palette PNG (colour type 3) that decodes to
 * the design's colours: the band at the head, the paper in the middle,
 * the ink of the title's letters somewhere on its line. */
static void test_palette(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("The 2023 LSFMM+BPF Summit");
  g_ptr_array_add(b->meta.authors, g_strdup("Jonathan Corbet"));
  Style st;
  assert_true(style_load(&st, NULL, OCTAVO_PAPER_STYLE, 1, NULL));
  GBytes *png = cover_png(b, fonts, &st.cover, 400, 600, NULL);
  assert_non_null(png);
  Reader r = {0};
  r.d = g_bytes_get_data(png, &r.len);
  assert_int_equal(r.d[25], 3); /* IHDR colour type: palette */
  cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_png, &r);
  assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
  assert_int_equal(cairo_image_surface_get_width(s), 400);
  assert_int_equal(cairo_image_surface_get_height(s), 600);
  assert_true(is_colour(pixel(s, 200, 10), st.cover.band));
  assert_true(is_colour(pixel(s, 10, 300), st.cover.background));
  bool inked = false; /* the title's line: 25% down, 8.2% of the width high */
  for (int y = 150; y < 190 && !inked; y++)
    for (int x = 0; x < 400 && !inked; x++)
      inked = is_colour(pixel(s, x, y), st.cover.ink);
  assert_true(inked);
  cairo_surface_destroy(s);
  g_bytes_unref(png);
  style_clear(&st);
  book_free(b);
}

static void test_no_metadata(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("T"); /* the parser's invariant (book.h) */
  Style st;
  assert_false(style_load(&st, "/nonexistent/style.ini", OCTAVO_PAPER_STYLE, 1, NULL));
  /* an unreadable style keeps the default cover */
  assert_float_equal(st.cover.background[0], 0.965, 1e-9);
  GBytes *png = cover_png(b, fonts, &st.cover, 100, 150, NULL);
  assert_non_null(png);
  g_bytes_unref(png);
  style_clear(&st);
  book_free(b);
}

static void test_style_colours(void **state)
{
  (void)state;
  char *path = NULL;
  int fd = g_file_open_tmp("cover-XXXXXX.ini", &path, NULL);
  assert_true(fd >= 0);
  close(fd);
  g_file_set_contents(path, "[cover]\nbackground = #ff0000\nface = DejaVu Sans Mono\n", -1, NULL);
  Style st;
  assert_true(style_load(&st, path, OCTAVO_PAPER_STYLE, 1, NULL));
  assert_float_equal(st.cover.background[0], 1.0, 1e-9);
  assert_float_equal(st.cover.background[1], 0.0, 1e-9);
  assert_string_equal(st.cover.face, "DejaVu Sans Mono");
  style_clear(&st);
  g_unlink(path);
  g_free(path);
}

static void test_given(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("T");
  BookResource *r = g_new0(BookResource, 1);
  r->src = g_strdup("cover.png");
  r->path = g_strdup("/nonexistent/cover.png");
  r->kind = BOOK_IMAGE_PNG;
  r->width_px = 320;
  r->height_px = 180;
  b->cover = r;
  Style st;
  assert_false(style_load(&st, "/nonexistent/style.ini", OCTAVO_PAPER_STYLE, 1, NULL));
  GArray *items = g_array_new(FALSE, TRUE, sizeof(LayItem));
  g_array_set_clear_func(items, (GDestroyNotify)lay_item_clear);
  PangoContext *ctx = fonts_context(fonts);
  cover_items(items, ctx, b, &st.cover, 400, 600);
  assert_int_equal(items->len, 1); /* the image and nothing drawn around it */
  const LayItem *it = &g_array_index(items, LayItem, 0);
  assert_int_equal(it->kind, LAY_IMAGE);
  assert_ptr_equal(it->res, r);
  /* as wide as the page, its height in proportion, centred */
  assert_float_equal(it->w_pt, 400, 1e-9);
  assert_float_equal(it->h_pt, 225, 1e-9);
  assert_float_equal(it->x_pt, 0, 1e-9);
  assert_float_equal(it->y_pt, (600 - 225) / 2.0, 1e-9);
  /* on a page wider than the image: as high as the page, centred across it */
  g_array_set_size(items, 0);
  cover_items(items, ctx, b, &st.cover, 1000, 100);
  it = &g_array_index(items, LayItem, 0);
  assert_float_equal(it->h_pt, 100, 1e-9);
  assert_float_equal(it->x_pt, (1000 - 100 * 320 / 180.0) / 2, 1e-9);
  g_object_unref(ctx);
  g_array_free(items, TRUE);
  style_clear(&st);
  book_free(b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_png),         cmocka_unit_test(test_palette),
      cmocka_unit_test(test_no_metadata), cmocka_unit_test(test_style_colours),
      cmocka_unit_test(test_given),
  };
  return cmocka_run_group_tests_name("cover", tests, setup, teardown);
}
