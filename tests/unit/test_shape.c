/* test_shape.c: a paragraph shaped once (shape.c) answers the width of any
 * range as the sum of its parts, cuts slices that hold exactly the glyphs of
 * their range, keeps runs in logical order across scripts and fonts, and
 * shapes a hyphen in the font of the text it follows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "fonts.h"
#include "shape.h"

static Fonts *fonts;
static PangoContext *ctx;

static int setup(void **state)
{
  (void)state;
  const char *top = g_getenv("TOP");
  fonts = fonts_load(top ? top : ".", NULL);
  if (!fonts)
    return -1;
  ctx = fonts_context(fonts);
  return ctx ? 0 : -1;
}

static int teardown(void **state)
{
  (void)state;
  g_object_unref(ctx);
  fonts_free(fonts);
  return 0;
}

static Shaped *shape(const char *text, const char *family)
{
  PangoAttrList *attrs = pango_attr_list_new();
  PangoFontDescription *d = pango_font_description_from_string(family);
  pango_font_description_set_absolute_size(d, 10 * PANGO_SCALE);
  pango_attr_list_insert(attrs, pango_attr_font_desc_new(d));
  pango_font_description_free(d);
  Shaped *s = shape_text(ctx, text, strlen(text), attrs, pango_language_from_string("en"));
  pango_attr_list_unref(attrs);
  return s;
}

/* Widths add up: [0,n) = [0,k) + [k,n) at every character boundary, and
 * the whole equals the sum of the runs' logical widths. */
static void test_widths_add(void **state)
{
  (void)state;
  const char *text = "Affine office flow, naïve café: 12 345 — «done».";
  Shaped *s = shape(text, "Charis SIL");
  assert_int_equal(s->len, strlen(text));
  double whole = shape_width_pt(s, 0, s->len);
  assert_true(whole > 100 && whole < 400);
  for (int c = 0; c <= s->nchars; c++) {
    size_t k = (size_t)s->char_byte[c];
    if (!s->log[c].is_cursor_position)
      continue;
    double parts = shape_width_pt(s, 0, k) + shape_width_pt(s, k, s->len);
    assert_true(fabs(parts - whole) < 1e-6);
  }
  double runs = 0;
  for (guint i = 0; i < s->runs->len; i++) {
    const ShapeRun *r = &g_array_index(s->runs, ShapeRun, i);
    runs += pango_glyph_string_get_width(r->glyphs) / (double)PANGO_SCALE;
  }
  assert_true(fabs(runs - whole) < 0.01);
  shape_free(s);
}

/* Slices of [a, b) cover it exactly, in logical order, and their widths are
 * the range's width. */
static void test_slices(void **state)
{
  (void)state;
  const char *text = "Latin then Ελληνικά then עברית then code_x();";
  Shaped *s = shape(text, "Charis SIL");
  assert_true(s->runs->len >= 3); /* Greek and Hebrew are items of their own */
  size_t a = 6, b = s->len - 3;
  GArray *sl = g_array_new(FALSE, TRUE, sizeof(ShapeSlice));
  shape_slices(s, a, b, sl);
  assert_true(sl->len >= 3);
  size_t at = a;
  double w = 0;
  for (guint i = 0; i < sl->len; i++) {
    ShapeSlice *x = &g_array_index(sl, ShapeSlice, i);
    assert_int_equal(x->start, at);
    assert_true(x->end > x->start && x->glyphs->num_glyphs > 0 && x->font);
    at = x->end;
    w += x->width_pt;
    shape_slice_clear(x);
  }
  assert_int_equal(at, b);
  assert_true(fabs(w - shape_width_pt(s, a, b)) < 0.01);
  g_array_free(sl, TRUE);
  /* every byte belongs to the run that shape_run_at names */
  for (size_t i = 0; i < s->len; i++) {
    const ShapeRun *r = shape_run_at(s, i);
    assert_non_null(r);
    assert_true((size_t)r->item->offset <= i && i < (size_t)(r->item->offset + r->item->length));
  }
  assert_null(shape_run_at(s, s->len));
  shape_free(s);
}

/* A hyphen is shaped in the font of the run it follows: one glyph, not the
 * missing glyph, of a plausible width. */
static void test_extra(void **state)
{
  (void)state;
  Shaped *s = shape("hyphenation", "Charis SIL");
  PangoFont *font = NULL;
  PangoGlyphString *g = shape_extra(s, 5, "-", &font);
  assert_non_null(font);
  assert_int_equal(g->num_glyphs, 1);
  assert_false(g->glyphs[0].glyph & PANGO_GLYPH_UNKNOWN_FLAG);
  double w = pango_glyph_string_get_width(g) / (double)PANGO_SCALE;
  assert_true(w > 1 && w < 6);
  pango_glyph_string_free(g);
  g_object_unref(font);
  shape_free(s);
}

/* An empty paragraph is shaped to nothing and answers zero. */
static void test_empty(void **state)
{
  (void)state;
  Shaped *s = shape("", "Charis SIL");
  assert_int_equal(s->len, 0);
  assert_true(shape_width_pt(s, 0, 0) == 0);
  shape_free(s);
  shape_free(NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_widths_add),
      cmocka_unit_test(test_slices),
      cmocka_unit_test(test_extra),
      cmocka_unit_test(test_empty),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
