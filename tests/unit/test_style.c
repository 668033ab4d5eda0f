/* test_style.c: the print style (style.c): built-in defaults, the paper
 * chosen by the file or the command line, the override groups per paper,
 * columns and layout, and the refusals of a broken style. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "style.h"

/* Write text to a fresh style file; the caller frees the path (and unlinks). */
static char *style_file(const char *text)
{
  char *path = NULL;
  int fd = g_file_open_tmp("octavo-style-XXXXXX.ini", &path, NULL);
  assert_true(fd >= 0);
  close(fd);
  assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static bool load(Style *st, const char *text, OctavoPaper paper, int columns, OctavoLayout layout,
                 GError **err)
{
  char *path = style_file(text);
  bool ok = style_load_layout(st, path, paper, columns, layout, err);
  g_unlink(path);
  g_free(path);
  return ok;
}

static void test_defaults(void **state)
{
  (void)state;
  Style st;
  assert_true(style_load(&st, NULL, OCTAVO_PAPER_STYLE, 1, NULL));
  assert_int_equal(st.paper, OCTAVO_PAPER_DEFAULT);
  assert_true(fabs(st.paper_w_pt - 595.28) < 0.1 && fabs(st.paper_h_pt - 841.89) < 0.1);
  assert_true(st.body_size_pt >= 4 && st.leading_pt >= st.body_size_pt);
  assert_non_null(st.body_face);
  assert_true(st.chapter_new_page);
  style_clear(&st);
}

/* The file's [page] paper decides when the command line names none, and
 * only then (a style with paper = letter once still gave A4). */
static void test_paper_from_file(void **state)
{
  (void)state;
  Style st;
  assert_true(
      load(&st, "[page]\npaper = letter\n", OCTAVO_PAPER_STYLE, 1, OCTAVO_LAYOUT_BOOK, NULL));
  assert_int_equal(st.paper, OCTAVO_PAPER_LETTER);
  assert_true(fabs(st.paper_w_pt - 612) < 0.1 && fabs(st.paper_h_pt - 792) < 0.1);
  style_clear(&st);
  assert_true(load(&st, "[page]\npaper = letter\n", OCTAVO_PAPER_A5, 1, OCTAVO_LAYOUT_BOOK, NULL));
  assert_int_equal(st.paper, OCTAVO_PAPER_A5);
  style_clear(&st);
}

/* [G.PAPER] overrides [G]; [G.columns] overrides both with two columns. */
static void test_override_groups(void **state)
{
  (void)state;
  const char *ini = "[page]\nmargin-top = 70\n[page.a5]\nmargin-top = 50\n"
                    "[body]\nsize = 11\nleading = 14\n[body.columns]\nsize = 9\nleading = 11\n";
  Style st;
  assert_true(load(&st, ini, OCTAVO_PAPER_A4, 1, OCTAVO_LAYOUT_BOOK, NULL));
  assert_true(st.margin_top_pt == 70 && st.body_size_pt == 11);
  style_clear(&st);
  assert_true(load(&st, ini, OCTAVO_PAPER_A5, 1, OCTAVO_LAYOUT_BOOK, NULL));
  assert_true(st.margin_top_pt == 50 && st.body_size_pt == 11);
  style_clear(&st);
  assert_true(load(&st, ini, OCTAVO_PAPER_A5, 2, OCTAVO_LAYOUT_BOOK, NULL));
  assert_true(st.margin_top_pt == 50 && st.body_size_pt == 9 && st.leading_pt == 11);
  style_clear(&st);
}

/* [G.handout] applies to the handout only. */
static void test_layout_groups(void **state)
{
  (void)state;
  const char *ini =
      "[layout]\nchapter-new-page = true\n[layout.handout]\nchapter-new-page = false\n"
      "[body]\nsize = 11\nleading = 14\n[body.handout]\nsize = 10\nleading = 12.5\n";
  Style st;
  assert_true(load(&st, ini, OCTAVO_PAPER_A4, 1, OCTAVO_LAYOUT_BOOK, NULL));
  assert_true(st.chapter_new_page && st.body_size_pt == 11);
  style_clear(&st);
  assert_true(load(&st, ini, OCTAVO_PAPER_A4, 1, OCTAVO_LAYOUT_HANDOUT, NULL));
  assert_true(!st.chapter_new_page && st.body_size_pt == 10 && st.leading_pt == 12.5);
  assert_int_equal(st.layout, OCTAVO_LAYOUT_HANDOUT);
  style_clear(&st);
}

/* Each broken style is refused with a message naming what is wrong. */
static void test_refusals(void **state)
{
  (void)state;
  static const struct {
    const char *ini, *says;
  } bad[] = {
      {"[page]\npaper = b5\n", "unknown paper"},
      {"[body]\nletter-spacing-from = 0.5\n", "letter-spacing-from"},
      {"[body]\nletter-spacing-max = 0.5\n", "letter-spacing-max"},
      {"[body]\nsize = 2\n", "too small"},
      {"[body]\nsize = 12\nleading = 6\n", "leading below"},
      {"[page]\nmargin-inner = 300\nmargin-outer = 280\n", "too small a text block"},
      {"[page]\nmargin-top = many\n", "margin-top"},
      {"this is not a key file\n", ""},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    Style st;
    GError *err = NULL;
    bool ok = load(&st, bad[i].ini, OCTAVO_PAPER_STYLE, 1, OCTAVO_LAYOUT_BOOK, &err);
    if (ok || !err || !strstr(err->message, bad[i].says))
      fail_msg("style %zu (%s): %s", i, bad[i].ini, err ? err->message : "accepted");
    g_clear_error(&err);
    style_clear(&st);
  }
  Style st;
  GError *err = NULL;
  assert_false(style_load(&st, "/nonexistent/print.ini", OCTAVO_PAPER_STYLE, 1, &err));
  assert_non_null(err);
  g_clear_error(&err);
  style_clear(&st);
}

static void test_paper_sizes(void **state)
{
  (void)state;
  double w, h;
  assert_true(style_paper_size(OCTAVO_PAPER_A5, &w, &h));
  assert_true(fabs(w - 419.53) < 0.1 && fabs(h - 595.28) < 0.1);
  assert_false(style_paper_size(OCTAVO_PAPER_STYLE, &w, &h));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),        cmocka_unit_test(test_paper_from_file),
      cmocka_unit_test(test_override_groups), cmocka_unit_test(test_layout_groups),
      cmocka_unit_test(test_refusals),        cmocka_unit_test(test_paper_sizes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
