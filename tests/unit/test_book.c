/* test_book.c: the document model on its own — nodes, iteration, ids,
 * slugs, diagnostics, freeing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "book.h"

static void test_slug(void **state)
{
  (void)state;
  struct {
    const char *in, *out;
  } cases[] = {
      {"Plenary sessions", "plenary-sessions"},
      {"Memory-management sessions", "memory-management-sessions"},
      {"The 2023 LSFMM+BPF Summit", "the-2023-lsfmmbpf-summit"},
      {"  Héllo, Wörld!  ", "héllo-wörld"},
      {"", "section"},
      {"!!!", "section"},
      {"2023 in review", "s-2023-in-review"},
      {"snake_case", "snake_case"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *s = book_slug(cases[i].in);
    assert_string_equal(s, cases[i].out);
    g_free(s);
  }
}

static void test_id_reserve(void **state)
{
  (void)state;
  Book *b = book_new();
  char *a = book_id_reserve(b, "intro");
  char *c = book_id_reserve(b, "intro");
  char *d = book_id_reserve(b, "intro");
  char *e = book_id_reserve(b, "intro-2");
  assert_string_equal(a, "intro");
  assert_string_equal(c, "intro-2");
  assert_string_equal(d, "intro-3");
  assert_string_equal(e, "intro-2-2");
  g_free(a), g_free(c), g_free(d), g_free(e);
  book_free(b);
}

/* A tree 100,000 deep is walked and freed without recursion. */
static void test_deep_tree(void **state)
{
  (void)state;
  Book *b = book_new();
  BookChapter *ch = book_chapter_add(b, "deep.md");
  BookNode *parent = ch->root;
  const int depth = 100000;
  for (int i = 0; i < depth; i++) {
    BookNode *q = book_node_new(b, BOOK_BLOCKQUOTE, NULL);
    book_node_append(parent, q);
    parent = q;
  }
  BookNode *t = book_node_new(b, BOOK_TEXT, NULL);
  t->text = g_strdup("bottom");
  book_node_append(parent, t);
  BookIter it;
  book_iter_init(&it, ch->root);
  int enters = 0, exits = 0, max = 0, cur = 0;
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    if (ev == BOOK_ITER_ENTER) {
      enters++;
      if (it.cur->type != BOOK_TEXT && ++cur > max)
        max = cur;
    } else {
      exits++;
      cur--;
    }
  }
  assert_int_equal(enters, depth + 2);
  assert_int_equal(exits, depth + 1); /* the text leaf has no EXIT */
  assert_int_equal(max, depth + 1);
  GString *s = g_string_new(NULL);
  book_node_text(ch->root, s);
  assert_string_equal(s->str, "bottom");
  g_string_free(s, TRUE);
  book_free(b);
}

static BookNode *text_node(Book *b, const char *s)
{
  BookNode *n = book_node_new(b, BOOK_TEXT, NULL);
  n->text = g_strdup(s);
  return n;
}

static void test_iter_order_and_skip(void **state)
{
  (void)state;
  Book *b = book_new();
  BookChapter *ch = book_chapter_add(b, "x.md");
  BookNode *p1 = book_node_new(b, BOOK_PARAGRAPH, NULL);
  BookNode *em = book_node_new(b, BOOK_EMPH, NULL);
  book_node_append(ch->root, p1);
  book_node_append(p1, text_node(b, "a"));
  book_node_append(p1, em);
  book_node_append(em, text_node(b, "b"));
  book_node_append(p1, book_node_new(b, BOOK_SOFTBREAK, NULL));
  book_node_append(p1, text_node(b, "c"));
  BookNode *p2 = book_node_new(b, BOOK_PARAGRAPH, NULL);
  book_node_append(ch->root, p2);
  book_node_append(p2, text_node(b, "d"));
  GString *s = g_string_new(NULL);
  book_node_text(ch->root, s);
  assert_string_equal(s->str, "ab cd");
  /* Skipping the emphasis drops "b". */
  g_string_truncate(s, 0);
  BookIter it;
  book_iter_init(&it, ch->root);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    if (ev == BOOK_ITER_ENTER && it.cur->type == BOOK_EMPH)
      book_iter_skip_children(&it);
    else if (ev == BOOK_ITER_ENTER && it.cur->type == BOOK_TEXT)
      g_string_append(s, it.cur->text);
  }
  assert_string_equal(s->str, "acd");
  /* Unlink and insert. */
  book_node_unlink(em);
  book_node_insert_before(p1->first_child, em);
  g_string_truncate(s, 0);
  book_node_text(p1, s);
  assert_string_equal(s->str, "ba c");
  g_string_free(s, TRUE);
  /* Iterating a leaf alone yields one ENTER. */
  BookNode *leaf = text_node(b, "z");
  book_iter_init(&it, leaf);
  assert_int_equal(book_iter_next(&it), BOOK_ITER_ENTER);
  assert_int_equal(book_iter_next(&it), BOOK_ITER_DONE);
  book_node_free(leaf);
  /* An empty container yields ENTER then EXIT. */
  BookNode *empty = book_node_new(b, BOOK_LIST, NULL);
  book_iter_init(&it, empty);
  assert_int_equal(book_iter_next(&it), BOOK_ITER_ENTER);
  assert_int_equal(book_iter_next(&it), BOOK_ITER_EXIT);
  assert_int_equal(book_iter_next(&it), BOOK_ITER_DONE);
  book_node_free(empty);
  book_node_free(NULL);
  book_free(b);
}

/* Unwrapping keeps the children, in order, where the node stood. */
static void test_unwrap(void **state)
{
  (void)state;
  Book *b = book_new();
  BookChapter *ch = book_chapter_add(b, "x.md");
  BookNode *p = book_node_new(b, BOOK_PARAGRAPH, NULL);
  book_node_append(ch->root, p);
  book_node_append(p, text_node(b, "a"));
  BookNode *em = book_node_new(b, BOOK_EMPH, NULL);
  book_node_append(p, em);
  book_node_append(em, text_node(b, "b"));
  book_node_append(em, text_node(b, "c"));
  book_node_append(p, text_node(b, "d"));
  book_node_unwrap(em);
  GString *s = g_string_new(NULL);
  for (BookNode *k = p->first_child; k; k = k->next) {
    assert_int_equal(k->type, BOOK_TEXT);
    assert_ptr_equal(k->parent, p);
    g_string_append(s, k->text);
  }
  assert_string_equal(s->str, "abcd");
  assert_string_equal(p->last_child->text, "d");
  g_string_free(s, TRUE);
  book_free(b);
}

/* A heading of `level` with text t (and an id) appended to root. */
static BookNode *heading(Book *b, BookNode *root, int level, const char *t)
{
  BookNode *h = book_node_new(b, BOOK_HEADING, NULL);
  h->as.heading.level = level;
  h->as.heading.id = book_slug(t);
  book_node_append(h, text_node(b, t));
  book_node_append(root, h);
  return h;
}

static char *heading_text(const BookNode *h)
{
  GString *s = g_string_new(NULL);
  book_node_text(h, s);
  return g_string_free(s, FALSE);
}

/* --number-sections: chapters count on across parts; sections restart in
 * each chapter; a skipped level counts 0; parts, the opening chapter and
 * sections outside a numbered chapter stay unnumbered; the chapter title
 * follows. */
static void test_number_headings(void **state)
{
  (void)state;
  Book *b = book_new();
  BookChapter *open = book_chapter_add(b, "a.md"); /* the opening: no heading */
  BookNode *o1 = heading(b, open->root, 3, "Before");
  BookChapter *c1 = book_chapter_add(b, "a.md");
  c1->heading = heading(b, c1->root, 2, "One");
  c1->title = g_strdup("One");
  BookNode *s11 = heading(b, c1->root, 3, "Sec");
  BookNode *s1101 = heading(b, c1->root, 5, "Deep");
  BookNode *quote = book_node_new(b, BOOK_BLOCKQUOTE, NULL);
  book_node_append(c1->root, quote);
  BookNode *quoted = heading(b, quote, 2, "Quoted"); /* not a chapter, not numbered */
  BookNode *s12 = heading(b, c1->root, 3, "Sec two");
  BookChapter *part = book_chapter_add(b, "b.md");
  part->heading = heading(b, part->root, 1, "Part");
  BookNode *ps = heading(b, part->root, 3, "Part section");
  BookChapter *c2 = book_chapter_add(b, "b.md");
  c2->heading = heading(b, c2->root, 2, "Two");
  BookNode *s21 = heading(b, c2->root, 3, "Again");
  BookNode *noid = heading(b, c2->root, 3, "No id");
  g_free(noid->as.heading.id);
  noid->as.heading.id = NULL;
  book_number_headings(b, 2, true);
  struct {
    BookNode *h;
    const char *want;
  } cases[] = {{o1, "Before"},
               {c1->heading, "1\u2002One"},
               {s11, "1.1\u2002Sec"},
               {s1101, "1.1.0.1\u2002Deep"},
               {quoted, "Quoted"},
               {s12, "1.2\u2002Sec two"},
               {part->heading, "Part"},
               {ps, "Part section"},
               {c2->heading, "2\u2002Two"},
               {s21, "2.1\u2002Again"},
               {noid, "No id"}};
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *t = heading_text(cases[i].h);
    assert_string_equal(t, cases[i].want);
    g_free(t);
  }
  assert_string_equal(c1->title, "1\u2002One");
  /* the number is a span of class secno, first in the heading */
  BookNode *span = c2->heading->first_child;
  assert_int_equal(span->type, BOOK_HTML_INLINE);
  assert_string_equal(span->as.html.tag, "span");
  assert_string_equal(span->as.html.attrs[1], "secno");
  book_free(b);
}

/* Outline levels never skip one: each heading at most one below the one
 * it belongs under; going back up pops what is deeper. */
static void test_outline_level(void **state)
{
  (void)state;
  const int src[] = {1, 3, 3, 5, 2, 6, 2, 1, 4, 0, 9};
  const int want[] = {1, 2, 2, 3, 2, 3, 2, 1, 2, 1, 2};
  BookOutlineLevels o = {0};
  for (size_t i = 0; i < G_N_ELEMENTS(src); i++)
    assert_int_equal(book_outline_level(&o, src[i]), want[i]);
  BookOutlineLevels o2 = {0}; /* a document may start below level 1 */
  assert_int_equal(book_outline_level(&o2, 2), 2);
  assert_int_equal(book_outline_level(&o2, 4), 3);
}

static void test_diag(void **state)
{
  (void)state;
  Book *b = book_new();
  BookPos pos = {book_intern(b, "a.md"), 3, 7};
  book_diag(b, BOOK_WARNING, &pos, "odd %s", "thing");
  book_diag(b, BOOK_ERROR, NULL, "bad");
  assert_int_equal(book_diag_count(b, BOOK_WARNING), 1);
  assert_int_equal(book_diag_count(b, BOOK_ERROR), 1);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  book_diag_print(b, 0, false, f);
  fclose(f);
  assert_string_equal(buf, "a.md:3:7: warning: odd thing\noctavo: error: bad\n");
  free(buf);
  f = open_memstream(&buf, &len);
  book_diag_print(b, 0, true, f);
  fclose(f);
  assert_string_equal(buf, "octavo: error: bad\n");
  free(buf);
  /* Interned names are shared. */
  assert_ptr_equal(book_intern(b, "a.md"), pos.file);
  book_free(b);
  book_free(NULL);
}

static void test_dump(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("T \"q\"");
  g_ptr_array_add(b->meta.authors, g_strdup("A"));
  BookChapter *ch = book_chapter_add(b, "x.md");
  ch->id = g_strdup("ch1");
  BookPos pos = {ch->source, 1, 1};
  BookNode *h = book_node_new(b, BOOK_HEADING, &pos);
  h->as.heading.level = 2;
  h->as.heading.id = book_id_reserve(b, "intro");
  book_node_append(ch->root, h);
  book_node_append(h, text_node(b, "Intro"));
  GString *s = g_string_new(NULL);
  book_dump(b, s);
  assert_string_equal(s->str, "book\n"
                              "  title: \"T \\\"q\\\"\"\n"
                              "  author: \"A\"\n"
                              "chapter 0 id=\"ch1\" title=(opening) source=\"x.md\"\n"
                              "  root\n"
                              "    heading level=2 id=\"intro\" @1:1\n"
                              "      text \"Intro\"\n");
  g_string_free(s, TRUE);
  book_free(b);
}

/* Noncharacters become U+FFFD in place; other characters (U+FFFD itself,
 * U+FDCF, U+FDF0, U+EFFFD, the last of the planes' characters) stay. */
static void test_nonchars(void **state)
{
  (void)state;
  char s[] = "a\xEF\xBF\xBE" "b\xEF\xB7\x90" "c\xEF\xB7\xAF" "d\xF0\x9F\xBF\xBF"
             "e\xF4\x8F\xBF\xBE" "f\xEF\xBF\xBD" "g\xEF\xB7\x8F" "h\xEF\xB7\xB0" "i"
             "\xF3\xAF\xBF\xBD";
  gunichar first = 0;
  gsize len = 0;
  assert_int_equal(book_utf8_fix_nonchars(s, -1, &len, &first), 5);
  assert_int_equal(first, 0xFFFE);
  assert_string_equal(s, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD" "d\xEF\xBF\xBD"
                         "e\xEF\xBF\xBD" "f\xEF\xBF\xBD" "g\xEF\xB7\x8F" "h\xEF\xB7\xB0" "i"
                         "\xF3\xAF\xBF\xBD");
  assert_int_equal(len, strlen(s));
  assert_true(g_utf8_validate(s, -1, NULL));
  char plain[] = "plain text";
  assert_int_equal(book_utf8_fix_nonchars(plain, -1, NULL, NULL), 0);
  assert_string_equal(plain, "plain text");
  /* a length: nothing past it is read or written */
  char part[] = "\xEF\xBF\xBFxy\xEF\xBF\xBF";
  assert_int_equal(book_utf8_fix_nonchars(part, 5, &len, NULL), 1);
  assert_int_equal(len, 5);
  assert_memory_equal(part, "\xEF\xBF\xBDxy\xEF\xBF\xBF", 8);
  /* long runs of ASCII (skipped eight bytes at a time): a noncharacter at
   * each offset after them, one cut by the length, one at the very end */
  for (int k = 0; k < 20; k++) {
    GString *t = g_string_new(NULL);
    for (int i = 0; i < k; i++)
      g_string_append_c(t, 'a' + i % 26);
    g_string_append(t, "\xEF\xBF\xBF" "0123456789abcdef" "\xF4\x8F\xBF\xBF");
    gsize n = t->len;
    assert_int_equal(book_utf8_fix_nonchars(t->str, (gssize)n - 1, &len, NULL), 1);
    assert_memory_equal(t->str + k, "\xEF\xBF\xBD", 3);
    assert_memory_equal(t->str + n - 4, "\xF4\x8F\xBF\xBF", 4); /* past the length: kept */
    assert_int_equal(book_utf8_fix_nonchars(t->str, -1, &len, NULL), 1);
    assert_int_equal(len, n - 1);
    assert_memory_equal(t->str + k + 19, "\xEF\xBF\xBD", 4); /* and its NUL */
    g_string_free(t, TRUE);
  }
}

/* A node's direction (book_node_dir) is that of its text (book_node_text),
 * read node by node: the first strong character decides, digits and
 * punctuation do not, invalid UTF-8 stops it at 0. */
static void test_node_dir(void **state)
{
  (void)state;
  Book *b = book_new();
  static const char *const cases[][3] = {
      {"12, ", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", "abc"},  /* Hebrew after digits: 1 */
      {"(1) ", "word", "\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a"}, /* a Latin word first: -1 */
      {"42", " - ", "7"},                                   /* none: 0 */
      {"", "\xff", "\xd7\xa9"},                             /* invalid first: 0 */
      {"\xd7", "\xa9", "x"},                                /* a character cut: 0 */
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    BookPos pos = {NULL, 1, 1};
    BookNode *p = book_node_new(b, BOOK_PARAGRAPH, &pos);
    book_node_append(p, text_node(b, cases[i][0]));
    book_node_append(p, book_node_new(b, BOOK_SOFTBREAK, &pos));
    BookNode *em = book_node_new(b, BOOK_EMPH, &pos);
    book_node_append(p, em);
    book_node_append(em, text_node(b, cases[i][1]));
    book_node_append(p, text_node(b, cases[i][2]));
    GString *t = g_string_new(NULL);
    book_node_text(p, t);
    assert_int_equal(book_node_dir(p), book_text_dir(t->str, t->len));
    g_string_free(t, TRUE);
    book_node_free(p);
  }
  BookPos pos = {NULL, 1, 1};
  BookNode *p = book_node_new(b, BOOK_PARAGRAPH, &pos);
  book_node_append(p, text_node(b, "3 \xd7\xa9"));
  assert_int_equal(book_node_dir(p), 1);
  book_node_free(p);
  book_free(b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slug),          cmocka_unit_test(test_id_reserve),
      cmocka_unit_test(test_deep_tree),     cmocka_unit_test(test_iter_order_and_skip),
      cmocka_unit_test(test_unwrap),        cmocka_unit_test(test_number_headings),
      cmocka_unit_test(test_outline_level), cmocka_unit_test(test_diag),
      cmocka_unit_test(test_dump),          cmocka_unit_test(test_nonchars),
      cmocka_unit_test(test_node_dir),
  };
  return cmocka_run_group_tests_name("book", tests, NULL, NULL);
}
