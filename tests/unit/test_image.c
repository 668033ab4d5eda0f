/* test_image.c: image kind and size from the first bytes (image.c) with
 * cmocka: every kind, broken headers, a JPEG whose size comes after 64 KiB,
 * SVG sizes from width/height and the viewBox. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "book.h"

static BookImageKind sniff(const void *d, gsize len, int *w, int *h)
{
  return book_image_sniff((const guchar *)d, len, w, h);
}

static BookImageKind sniff_str(const char *s, int *w, int *h)
{
  return sniff(s, strlen(s), w, h);
}

static void test_raster(void **state)
{
  (void)state;
  int w, h;
  static const guchar png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
                               'I',  'H', 'D', 'R', 0,    0,    0x01, 0x2c, 0, 0, 0, 200};
  assert_int_equal(sniff(png, sizeof png, &w, &h), BOOK_IMAGE_PNG);
  assert_int_equal(w, 300);
  assert_int_equal(h, 200);
  assert_int_equal(sniff(png, 20, &w, &h), BOOK_IMAGE_NONE); /* truncated header */
  static const guchar gif[] = {'G', 'I', 'F', '8', '9', 'a', 10, 0, 20, 0};
  assert_int_equal(sniff(gif, sizeof gif, &w, &h), BOOK_IMAGE_GIF);
  assert_int_equal(w, 10);
  assert_int_equal(h, 20);
  /* SOI, an APP0 segment, fill bytes, SOF0 with height 30, width 40 */
  static const guchar jpg[] = {0xFF, 0xD8, 0xFF, 0xE0, 0,  4, 'J', 'F', 0xFF, 0xFF, 0xC0,
                               0,    17,   8,    0,    30, 0, 40,  3,   0,    0,    0};
  assert_int_equal(sniff(jpg, sizeof jpg, &w, &h), BOOK_IMAGE_JPEG);
  assert_int_equal(w, 40);
  assert_int_equal(h, 30);
  assert_int_equal(sniff(jpg, 8, &w, &h), BOOK_IMAGE_JPEG); /* no frame yet: size unknown */
  assert_int_equal(w, 0);
  assert_int_equal(h, 0);
  guchar webp[30] = "RIFF\0\0\0\0WEBPVP8X";
  webp[24] = 0x1F; /* canvas 32 x 16, stored minus one */
  webp[27] = 0x0F;
  assert_int_equal(sniff(webp, sizeof webp, &w, &h), BOOK_IMAGE_WEBP);
  assert_int_equal(w, 32);
  assert_int_equal(h, 16);
  guchar vp8l[25] = "RIFF\0\0\0\0WEBPVP8L";
  vp8l[20] = 0x2F;
  guint32 bits = (99u) | (49u << 14); /* 100 x 50 */
  for (int i = 0; i < 4; i++)
    vp8l[21 + i] = (guchar)(bits >> (8 * i));
  assert_int_equal(sniff(vp8l, sizeof vp8l, &w, &h), BOOK_IMAGE_WEBP);
  assert_int_equal(w, 100);
  assert_int_equal(h, 50);
  assert_int_equal(sniff_str("this is text, not a PNG\n", &w, &h), BOOK_IMAGE_NONE);
  assert_int_equal(sniff("", 0, &w, &h), BOOK_IMAGE_NONE);
}

static void test_svg(void **state)
{
  (void)state;
  int w, h;
  assert_int_equal(
      sniff_str("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" "
                "height='80px'><rect/></svg>",
                &w, &h),
      BOOK_IMAGE_SVG);
  assert_int_equal(w, 120);
  assert_int_equal(h, 80);
  assert_int_equal(sniff_str("<svg viewBox=\"0 0 300 150\"></svg>", &w, &h), BOOK_IMAGE_SVG);
  assert_int_equal(w, 300);
  assert_int_equal(h, 150);
  sniff_str("<svg width=\"1in\" viewBox=\"0,0,200,100\"/>", &w,
            &h); /* height from the aspect ratio */
  assert_int_equal(w, 96);
  assert_int_equal(h, 48);
  sniff_str("<svg width=\"100%\" height=\"100%\" viewBox=\"0 0 64 32\">", &w, &h);
  assert_int_equal(w, 64);
  assert_int_equal(h, 32);
  sniff_str("<svg width=\"72pt\" height=\"2.54cm\">", &w, &h);
  assert_int_equal(w, 96);
  assert_int_equal(h, 96);
  assert_int_equal(sniff_str("\xEF\xBB\xBF  <svg>", &w, &h), BOOK_IMAGE_SVG); /* no size */
  assert_int_equal(w, 0);
  assert_int_equal(h, 0);
  sniff_str("<svg width=\"-5\" height=\"x\" viewBox=\"0 0 0 10\">", &w, &h);
  assert_int_equal(w, 0);
  assert_int_equal(h, 0);
  assert_int_equal(sniff_str("<html><body>no image</body></html>", &w, &h), BOOK_IMAGE_NONE);
}

static void test_probe(void **state)
{
  (void)state;
  int w, h;
  char *dir = g_dir_make_tmp("octavo-image-XXXXXX", NULL);
  assert_non_null(dir);
  /* A JPEG whose frame header comes after 70 KB of APP1 segments: the
   * first 64 KiB do not say its size; the probe seeks on. */
  GByteArray *a = g_byte_array_new();
  static const guchar soi[] = {0xFF, 0xD8};
  g_byte_array_append(a, soi, 2);
  guchar seg[60000];
  memset(seg, 'x', sizeof seg);
  for (int i = 0; i < 2; i++) {
    guchar hdr[4] = {0xFF, 0xE1, (guchar)((sizeof seg + 2) >> 8),
                     (guchar)((sizeof seg + 2) & 0xFF)};
    g_byte_array_append(a, hdr, 4);
    g_byte_array_append(a, seg, sizeof seg);
  }
  static const guchar sof[] = {0xFF, 0xC2, 0, 17, 8, 0x01, 0x00, 0x02, 0x00, 3, 0, 0, 0};
  g_byte_array_append(a, sof, sizeof sof);
  char *path = g_build_filename(dir, "late.jpg", NULL);
  assert_true(g_file_set_contents(path, (const char *)a->data, a->len, NULL));
  assert_int_equal(book_image_sniff(a->data, 65536, &w, &h), BOOK_IMAGE_JPEG);
  assert_int_equal(w, 0); /* not in the head */
  assert_int_equal(book_image_probe(path, &w, &h), BOOK_IMAGE_JPEG);
  assert_int_equal(w, 512);
  assert_int_equal(h, 256);
  g_unlink(path);
  g_free(path);
  g_byte_array_free(a, TRUE);
  path = g_build_filename(dir, "missing.png", NULL);
  assert_int_equal(book_image_probe(path, &w, &h), BOOK_IMAGE_NONE);
  assert_int_equal(book_image_probe(NULL, &w, &h), BOOK_IMAGE_NONE);
  g_free(path);
  g_rmdir(dir);
  g_free(dir);
}

static void test_names(void **state)
{
  (void)state;
  assert_string_equal(book_image_media_type(BOOK_IMAGE_PNG), "image/png");
  assert_string_equal(book_image_media_type(BOOK_IMAGE_JPEG), "image/jpeg");
  assert_string_equal(book_image_media_type(BOOK_IMAGE_GIF), "image/gif");
  assert_string_equal(book_image_media_type(BOOK_IMAGE_SVG), "image/svg+xml");
  assert_string_equal(book_image_media_type(BOOK_IMAGE_WEBP), "image/webp");
  assert_null(book_image_media_type(BOOK_IMAGE_NONE));
  assert_string_equal(book_image_ext(BOOK_IMAGE_JPEG), "jpg");
  assert_null(book_image_ext(BOOK_IMAGE_NONE));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_raster),
      cmocka_unit_test(test_svg),
      cmocka_unit_test(test_probe),
      cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
