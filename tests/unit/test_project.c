/* test_project.c: book projects — book.toml's [book] table, mdBook's include
 * lines (whole file, anchors, line ranges, missing files, files outside the
 * book), SUMMARY.md (title, prefix, parts, nested numbered chapters, drafts,
 * suffix) and folders of chapters with metadata.yaml. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <glib/gstdio.h>

#include "project.h"
#include "sandbox.h"

#include <unistd.h>

static char *dir; /* a fresh temporary folder per test */

static int setup(void **state)
{
  (void)state;
  dir = g_dir_make_tmp("octavo-project-XXXXXX", NULL);
  return dir ? 0 : -1;
}

static void rm_rf(const char *path)
{
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    GDir *d = g_dir_open(path, 0, NULL);
    const char *n;
    while (d && (n = g_dir_read_name(d))) {
      char *c = g_build_filename(path, n, NULL);
      rm_rf(c);
      g_free(c);
    }
    if (d)
      g_dir_close(d);
  }
  g_remove(path);
}

static int teardown(void **state)
{
  (void)state;
  rm_rf(dir);
  g_free(dir);
  return 0;
}

static void put(const char *name, const char *text)
{
  char *path = g_build_filename(dir, name, NULL);
  char *parent = g_path_get_dirname(path);
  g_mkdir_with_parents(parent, 0755);
  assert_true(g_file_set_contents(path, text, -1, NULL));
  g_free(parent);
  g_free(path);
}

static char *joined(GPtrArray *a)
{
  g_ptr_array_add(a, NULL);
  char *s = g_strjoinv("|", (char **)a->pdata);
  g_ptr_array_remove_index(a, a->len - 1);
  return s;
}

static void test_book_toml(void **state)
{
  (void)state;
  GPtrArray *m = g_ptr_array_new_with_free_func(g_free);
  const char *toml = "# a comment\n"
                     "[book]\n"
                     "title = \"The \\\"Quoted\\\" Book\"\n"
                     "authors = [\"Ada Lovelace\",\n  'Charles Babbage', ]\n"
                     "language = \"fr\"\n"
                     "multilingual = false\n"
                     "src = \"src\"\n"
                     "[output.html]\n"
                     "title = \"not the book's\"\n"
                     "additional-css = [\"x.css\"]\n"
                     "fold = { enable = true, level = 1 }\n";
  GError *err = NULL;
  assert_true(project_parse_book_toml(toml, "book.toml", m, &err));
  char *s = joined(m);
  assert_string_equal(
      s, "title=The \"Quoted\" Book|author=Ada Lovelace|author=Charles Babbage|lang=fr");
  g_free(s);
  g_ptr_array_set_size(m, 0);
  assert_false(project_parse_book_toml("[book]\ntitle = [\"a\"\n", "bad.toml", m, &err));
  assert_non_null(err);
  assert_non_null(strstr(err->message, "bad.toml:"));
  g_clear_error(&err);
  assert_false(project_parse_book_toml("[book]\ntitle \"x\"\n", "bad.toml", m, &err));
  g_clear_error(&err);
  g_ptr_array_free(m, TRUE);
}

static void test_includes(void **state)
{
  (void)state;
  put("src/listings/main.rs",
      "use std::io;\n// ANCHOR: here\nfn main() {\n    println!(\"hi\");\n}\n"
      "// ANCHOR_END: here\n// ANCHOR: other\nx\n// ANCHOR_END: other\n");
  put("secret.txt", "outside\n");
  char *src = g_build_filename(dir, "src", NULL);
  Sandbox *sb = sandbox_new(0);
  sandbox_add_root(sb, src);
  GArray *w = project_diags_new();
  const char *text = "```rust\n{{#include listings/main.rs:here}}\n```\n"
                     "```\n{{#include listings/main.rs:3:4}}\n```\n"
                     "```\n{{#rustdoc_include listings/main.rs:other}}\n```\n"
                     "A \\{{#include listings/main.rs}} stays.\n"
                     "{{#include listings/missing.rs}}\n"
                     "{{#include ../secret.txt}}\n";
  char *out = project_expand_includes(sb, text, strlen(text), "ch.md", src, w);
  assert_string_equal(out, "```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n"
                           "```\nfn main() {\n    println!(\"hi\");\n```\n"
                           "```\nx\n```\n"
                           "A {{#include listings/main.rs}} stays.\n"
                           "{{#include listings/missing.rs}}\n"
                           "{{#include ../secret.txt}}\n");
  assert_int_equal(w->len, 2);
  ProjectDiag *d0 = &g_array_index(w, ProjectDiag, 0), *d1 = &g_array_index(w, ProjectDiag, 1);
  assert_string_equal(d0->file, "ch.md");
  assert_int_equal(d0->line, 11);
  assert_int_equal(d0->col, 1);
  assert_false(d0->error);
  assert_non_null(strstr(d0->message, "include file listings/missing.rs does not exist"));
  assert_int_equal(d1->line, 12);
  assert_non_null(strstr(d1->message, "outside the book's folder"));
  g_free(out);
  /* The whole file, anchor lines left out. */
  text = "{{#include listings/main.rs}}";
  out = project_expand_includes(sb, text, strlen(text), "ch.md", src, w);
  assert_string_equal(out, "use std::io;\nfn main() {\n    println!(\"hi\");\n}\nx");
  g_free(out);
  /* A cycle is an error naming the chain; nothing is returned. */
  put("src/a.md", "A\n{{#include b.md}}\n");
  put("src/b.md", "B\n{{#include a.md}}\n");
  g_array_set_size(w, 0);
  text = "{{#include a.md}}";
  assert_null(project_expand_includes(sb, text, strlen(text), "ch.md", src, w));
  assert_int_equal(w->len, 1);
  assert_true(g_array_index(w, ProjectDiag, 0).error);
  assert_non_null(strstr(g_array_index(w, ProjectDiag, 0).message, "include cycle: "));
  assert_non_null(strstr(g_array_index(w, ProjectDiag, 0).message, "a.md includes "));
  /* Includes nest 10 deep below the chapter (the chapter itself is on
   * the include stack, for cycles, but is not an include). */
  for (int k = 1; k <= 12; k++) {
    char name[32], body[64];
    g_snprintf(name, sizeof name, "src/n%d.md", k);
    g_snprintf(body, sizeof body, "L%d\n{{#include n%d.md}}\n", k, k + 1);
    put(name, body);
  }
  put("src/chap.md", "{{#include n1.md}}\n");
  char *chap = g_build_filename(src, "chap.md", NULL);
  g_array_set_size(w, 0);
  text = "{{#include n1.md}}";
  out = project_expand_includes(sb, text, strlen(text), chap, src, w);
  assert_non_null(out);
  assert_non_null(strstr(out, "L10\n"));
  assert_null(strstr(out, "L11"));
  assert_non_null(strstr(out, "{{#include n11.md}}"));
  assert_int_equal(w->len, 1);
  assert_false(g_array_index(w, ProjectDiag, 0).error);
  assert_non_null(strstr(g_array_index(w, ProjectDiag, 0).message, "deeper than 10"));
  g_free(out);
  g_free(chap);
  /* Fan-out without a cycle stops at the text budget. */
  put("src/c.md", "{{#include d.md}}{{#include d.md}}{{#include d.md}}{{#include d.md}}\n");
  put("src/d.md", "{{#include e.md}}{{#include e.md}}{{#include e.md}}{{#include e.md}}\n");
  put("src/e.md", "0123456789012345678901234567890123456789012345678901234567890123456789\n");
  Sandbox *small = sandbox_new(500);
  sandbox_add_root(small, src);
  g_array_set_size(w, 0);
  text = "{{#include c.md}}";
  assert_null(project_expand_includes(small, text, strlen(text), "ch.md", src, w));
  assert_true(g_array_index(w, ProjectDiag, w->len - 1).error);
  assert_non_null(strstr(g_array_index(w, ProjectDiag, w->len - 1).message, "--max-text-size"));
  sandbox_free(small);
  g_array_free(w, TRUE);
  sandbox_free(sb);
  g_free(src);
}

static void test_summary(void **state)
{
  (void)state;
  put("book.toml", "[book]\ntitle = \"A Project\"\nauthors = [\"Ada\"]\n");
  put("src/SUMMARY.md",
      "# Summary\n\n[Foreword](foreword.md)\n\n# Part One\n\n"
      "- [First](one/first.md)\n  - [Nested](one/nested.md)\n- [Draft]()\n\n---\n\n"
      "# Part Two\n\n1. [Second](two.md)\n\n[Afterword](after%20word.md)\n");
  put("src/foreword.md", "# Foreword\n\nHello.\n");
  put("src/one/first.md", "# First\n\n{{#include ../snippet.txt}}\n");
  put("src/snippet.txt", "included text\n");
  put("src/one/nested.md", "# Nested\n");
  put("src/two.md", "# Second\n");
  put("src/after word.md", "# Afterword\n");
  Sandbox *sb = sandbox_new(0);
  GArray *dg = project_diags_new();
  Project *p = project_load(dir, sb, dg); /* the folder: finds src/SUMMARY.md */
  assert_non_null(p);
  assert_int_equal(p->sources->len, 7);
  /* with parts, prefix and suffix chapters stand beside them (nest -1);
   * mdBook's numbers count the draft and go on across parts */
  const char *want[][4] = {{"foreword.md", "-1", "", "Foreword"},
                           {"SUMMARY.md", "0", "", ""},
                           {"first.md", "0", "1.", "First"},
                           {"nested.md", "1", "1.1.", "Nested"},
                           {"SUMMARY.md", "0", "", ""},
                           {"two.md", "0", "3.", "Second"},
                           {"after word.md", "-1", "", "Afterword"}};
  for (guint i = 0; i < p->sources->len; i++) {
    ProjectSource *s = &g_array_index(p->sources, ProjectSource, i);
    assert_true(g_str_has_suffix(s->name, want[i][0]));
    assert_int_equal(s->heading_shift, 0);
    assert_int_equal(s->chapter, *want[i][3] != 0);
    assert_true(s->mdbook);
    if (s->chapter) {
      assert_int_equal(s->nest, atoi(want[i][1]));
      assert_string_equal(s->number ? s->number : "", want[i][2]);
      assert_string_equal(s->title, want[i][3]);
    }
  }
  assert_string_equal(g_array_index(p->sources, ProjectSource, 1).text, "# Part One\n");
  assert_int_equal(g_array_index(p->sources, ProjectSource, 1).line, 5);
  assert_string_equal(g_array_index(p->sources, ProjectSource, 2).text,
                      "# First\n\nincluded text\n");
  char *m = joined(p->metadata);
  assert_string_equal(m, "title=A Project|author=Ada");
  g_free(m);
  assert_int_equal(dg->len, 1); /* the draft */
  ProjectDiag *d = &g_array_index(dg, ProjectDiag, 0);
  assert_true(g_str_has_suffix(d->file, "SUMMARY.md"));
  assert_int_equal(d->line, 9);
  assert_int_equal(d->col, 3);
  assert_false(d->error);
  assert_non_null(strstr(d->message, "draft chapter 'Draft'"));
  g_array_set_size(dg, 0);
  project_free(p);
  /* Without parts, prefix chapters are chapters like the numbered ones. */
  put("src/SUMMARY.md", "[Foreword](foreword.md)\n\n- [Second *two*](two.md)\n");
  p = project_load(dir, sb, dg);
  assert_non_null(p);
  assert_int_equal(g_array_index(p->sources, ProjectSource, 0).nest, 0);
  assert_null(g_array_index(p->sources, ProjectSource, 0).number);
  assert_string_equal(g_array_index(p->sources, ProjectSource, 1).number, "1.");
  assert_string_equal(g_array_index(p->sources, ProjectSource, 1).title, "Second *two*");
  project_free(p);
  /* book.toml's [output.html] no-section-label turns mdBook's numbers off */
  put("book.toml", "[book]\ntitle = \"A Project\"\n[output.html]\nno-section-label = true\n");
  p = project_load(dir, sb, dg);
  assert_non_null(p);
  assert_null(g_array_index(p->sources, ProjectSource, 1).number);
  project_free(p);
  /* A missing chapter file is an error naming the summary's line. */
  put("src/SUMMARY.md", "- [Gone](gone.md)\n");
  char *summary = g_build_filename(dir, "src", "SUMMARY.md", NULL);
  assert_true(project_is_project(summary));
  g_array_set_size(dg, 0);
  assert_null(project_load(summary, sb, dg));
  assert_int_equal(dg->len, 1);
  d = &g_array_index(dg, ProjectDiag, 0);
  assert_true(d->error);
  assert_int_equal(d->line, 1);
  assert_int_equal(d->col, 3);
  assert_string_equal(d->message, "chapter gone.md does not exist");
  g_array_free(dg, TRUE);
  sandbox_free(sb);
  g_free(summary);
}

static void test_folder(void **state)
{
  (void)state;
  put("b.md", "# B\n");
  put("a.md", "# A\n");
  put("metadata.yaml", "title: Folder\n");
  put("notes.txt", "not a chapter\n");
  Sandbox *sb = sandbox_new(0);
  GArray *dg = project_diags_new();
  Project *p = project_load(dir, sb, dg);
  assert_non_null(p);
  assert_int_equal(p->sources->len, 2);
  assert_true(g_str_has_suffix(g_array_index(p->sources, ProjectSource, 0).name, "/a.md"));
  assert_true(g_str_has_suffix(g_array_index(p->sources, ProjectSource, 1).name, "/b.md"));
  assert_int_equal(g_array_index(p->sources, ProjectSource, 0).heading_shift, 0);
  assert_non_null(p->metadata_file);
  assert_true(g_str_has_suffix(p->metadata_file, "metadata.yaml"));
  project_free(p);
  char *empty = g_build_filename(dir, "empty", NULL);
  g_mkdir(empty, 0755);
  assert_null(project_load(empty, sb, dg));
  assert_true(g_array_index(dg, ProjectDiag, 0).error);
  assert_non_null(strstr(g_array_index(dg, ProjectDiag, 0).message, "no SUMMARY.md and no *.md"));
  /* A chapter that is a symbolic link out of the folder is an error. */
  char *outside = g_build_filename(g_get_tmp_dir(), "octavo-test-secret.md", NULL);
  g_file_set_contents(outside, "SECRET\n", -1, NULL);
  char *link = g_build_filename(dir, "c.md", NULL);
  assert_int_equal(symlink(outside, link), 0);
  g_array_set_size(dg, 0);
  Sandbox *sb2 = sandbox_new(0);
  assert_null(project_load(dir, sb2, dg));
  assert_true(g_array_index(dg, ProjectDiag, 0).error);
  assert_non_null(strstr(g_array_index(dg, ProjectDiag, 0).message, "outside the book's folder"));
  sandbox_free(sb2);
  g_unlink(link);
  g_unlink(outside);
  g_free(link);
  g_free(outside);
  g_array_free(dg, TRUE);
  sandbox_free(sb);
  g_free(empty);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_book_toml, setup, teardown),
      cmocka_unit_test_setup_teardown(test_includes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
      cmocka_unit_test_setup_teardown(test_folder, setup, teardown),
  };
  return cmocka_run_group_tests_name("project", tests, NULL, NULL);
}
