/* test_outline.c: the section tree (outline.h): which headings are
 * sections, their depth and nesting, the entries at --toc-depth, numbers
 * and code spans; on books that start at #, at ##, and that skip a level. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "markdown.h"
#include "options.h"
#include "outline.h"

static Book *book;

/* The outline of markdown text: "depth:title" lines, "*" before the
 * entries in the contents. Caller frees. */
static char *outline_of(const char *md, int split, int toc_depth, bool number, Outline **keep)
{
  OctavoOptions o;
  octavo_options_init(&o);
  o.split_level = split;
  o.toc_depth = toc_depth;
  o.number_sections = number;
  o.quiet = true;
  book_free(book);
  book = book_new();
  MdSource src = {.name = "t.md", .text = md, .len = strlen(md)};
  assert_true(md_parse_sources(book, &src, 1, &o));
  Outline *ol = outline_new(book, split, toc_depth, "Untitled section");
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < ol->entries->len; i++) {
    const OutlineEntry *e = outline_entry(ol, i);
    /* the parent is the nearest entry before of depth - 1 */
    if (e->parent >= 0)
      assert_int_equal(outline_entry(ol, (guint)e->parent)->depth, e->depth - 1);
    else
      assert_int_equal(e->depth, 1);
    g_string_append_printf(s, "%s%d:%s\n", e->in_toc ? "*" : "", e->depth, e->title);
  }
  if (keep)
    *keep = ol;
  else
    outline_free(ol);
  return g_string_free(s, FALSE);
}

#define CHECK(md, split, depth, want)                                                              \
  do {                                                                                             \
    char *got = outline_of(md, split, depth, false, NULL);                                         \
    assert_string_equal(got, want);                                                                \
    g_free(got);                                                                                   \
  } while (0)

/* The case: a skipped level does not use up a depth. */
static void test_skipped_level(void **state)
{
  (void)state;
  const char *md = "# Book\n\n## One\n\nText.\n\n#### Deep\n\nText.\n\n## Two\n\nText.\n";
  /* (the first # is the book's title, not a chapter) */
  CHECK(md, 2, 2, "*1:One\n*2:Deep\n*1:Two\n");
  CHECK(md, 2, 1, "*1:One\n2:Deep\n*1:Two\n");
  /* a deeper section under the skipped one */
  CHECK("## A\n\n#### B\n\n##### C\n\n### D\n", 2, 2, "*1:A\n*2:B\n3:C\n*2:D\n");
}

/* A book whose first heading is # (the title, then chapters at ##). */
static void test_starts_at_h1(void **state)
{
  (void)state;
  const char *md = "# The Title\n\nOpening.\n\n## Chapter\n\nText.\n\n### Section\n\nText.\n";
  CHECK(md, 2, 2, "*1:The Title\n*1:Chapter\n*2:Section\n");
  CHECK(md, 2, 3, "*1:The Title\n*1:Chapter\n*2:Section\n");
  /* # parts above ## chapters, after the title */
  CHECK("# T\n\nx\n\n# Part\n\n## Ch\n\n### S\n", 2, 2, "*1:T\n*1:Part\n*2:Ch\n3:S\n");
}

/* A book that starts at ## (no title heading): chapters at depth 1. */
static void test_starts_at_h2(void **state)
{
  (void)state;
  CHECK("## A\n\n### A1\n\n## B\n\n### B1\n\n#### B1a\n", 2, 2,
        "*1:A\n*2:A1\n*1:B\n*2:B1\n3:B1a\n");
  /* split level 3: ## headings are above the chapters and nest them */
  CHECK("## Part\n\n### Ch\n\n#### S\n", 3, 2, "*1:Part\n*2:Ch\n3:S\n");
}

/* Headings inside quotes and lists are not sections; an opening chapter
 * without a heading has an entry titled with the book's title. */
static void test_which_headings(void **state)
{
  (void)state;
  CHECK(
      "---\ntitle: Front\n---\nOpening text.\n\n## A\n\n> ### Quoted\n\n- ### Listed\n\n### Real\n",
      2, 3, "*1:Front\n*1:A\n*2:Real\n");
  Outline *o = NULL;
  char *s = outline_of("---\ntitle: Front\n---\nOpening.\n\n## A\n\nx\n\n### B\n", 2, 2, false, &o);
  const OutlineEntry *e0 = outline_entry(o, 0), *e1 = outline_entry(o, 1),
                     *e2 = outline_entry(o, 2);
  assert_true(e0->chapter_start && !e0->heading);
  assert_string_equal(e0->id, e0->chapter->id);
  assert_true(e1->chapter_start && e1->heading);
  assert_string_equal(e1->id, e1->heading->as.heading.id);
  assert_false(e2->chapter_start);
  assert_int_equal(e2->parent, 1);
  assert_ptr_equal(e2->chapter, e1->chapter);
  outline_free(o);
  g_free(s);
}

/* Numbers (-N) and code spans in titles. */
static void test_numbers_and_code(void **state)
{
  (void)state;
  Outline *o = NULL;
  char *s = outline_of("## The `foo()` call\n\n### Use `a` and `b`\n\n## Two\n", 2, 2, true, &o);
  const OutlineEntry *e = outline_entry(o, 0);
  assert_string_equal(e->number, "1");
  assert_string_equal(e->title, "1\u2002The foo() call");
  assert_int_equal(e->code->len, 1);
  OutlineSpan sp = g_array_index(e->code, OutlineSpan, 0);
  assert_int_equal(sp.end - sp.start, 5);
  assert_memory_equal(e->title + sp.start, "foo()", 5);
  e = outline_entry(o, 1);
  assert_string_equal(e->number, "1.1");
  assert_int_equal(e->code->len, 2);
  assert_string_equal(outline_entry(o, 2)->number, "2");
  outline_free(o);
  g_free(s);
  s = outline_of("## Plain\n", 2, 2, false, &o);
  assert_null(outline_entry(o, 0)->number);
  assert_int_equal(outline_entry(o, 0)->code->len, 0);
  outline_free(o);
  g_free(s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_skipped_level),    cmocka_unit_test(test_starts_at_h1),
      cmocka_unit_test(test_starts_at_h2),     cmocka_unit_test(test_which_headings),
      cmocka_unit_test(test_numbers_and_code),
  };
  int rc = cmocka_run_group_tests_name("outline", tests, NULL, NULL);
  book_free(book);
  return rc;
}
