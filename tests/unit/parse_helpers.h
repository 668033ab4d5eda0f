/* parse_helpers.h: what the front-end unit tests share (test_markdown.c,
 * test_sanitize.c): parse strings with md_parse_sources(), find nodes and
 * diagnostics.  Static inline, so a test file may use any subset. */
#ifndef OCTAVO_TEST_PARSE_HELPERS_H
#define OCTAVO_TEST_PARSE_HELPERS_H

#include "book.h"
#include "markdown.h"
#include "options.h"

static inline Book *parse_n_opts(const OctavoOptions *opts, int n, const char *const *names, const char *const *texts) {
  MdSource *srcs = g_new0(MdSource, n);
  for (int i = 0; i < n; i++)
    srcs[i] = (MdSource){.name = names[i], .text = texts[i], .len = strlen(texts[i])};
  Book *b = book_new();
  md_parse_sources(b, srcs, n, opts);
  g_free(srcs);
  return b;
}

static inline Book *parse_opts(const char *text, const OctavoOptions *opts) {
  const char *names[] = {"t.md"};
  return parse_n_opts(opts, 1, names, &text);
}

static inline Book *parse(const char *text) {
  OctavoOptions o;
  octavo_options_init(&o);
  return parse_opts(text, &o);
}

static inline gchar *dump(const Book *b) {
  GString *s = g_string_new(NULL);
  book_dump(b, s);
  return g_string_free(s, FALSE);
}

/* The diagnostic whose message contains `sub`, or NULL. */
static inline const BookDiag *find_diag(const Book *b, BookDiagLevel level, const char *sub) {
  for (guint i = 0; i < b->diags->len; i++) {
    const BookDiag *d = &g_array_index(b->diags, BookDiag, i);
    if (d->level == level && strstr(d->message, sub))
      return d;
  }
  return NULL;
}

static inline void print_diags(const Book *b) { book_diag_print(b, 0, false, stderr); }

#define assert_diag_at(b, level, sub, l, c)                                                                        \
  do {                                                                                                             \
    const BookDiag *d_ = find_diag((b), (level), (sub));                                                           \
    if (!d_)                                                                                                       \
      print_diags(b);                                                                                              \
    assert_non_null(d_);                                                                                           \
    if ((l) > 0)                                                                                                   \
      assert_int_equal(d_->pos.line, (l));                                                                         \
    if ((c) > 0)                                                                                                   \
      assert_int_equal(d_->pos.col, (c));                                                                          \
  } while (0)

/* The n-th (0-based) node of `type` in document order over every chapter. */
static inline BookNode *nth_node(const Book *b, BookNodeType type, int nth) {
  for (guint i = 0; i < b->chapters->len; i++) {
    BookChapter *c = b->chapters->pdata[i];
    BookIter it;
    book_iter_init(&it, c->root);
    while (book_iter_next(&it) != BOOK_ITER_DONE)
      if (it.ev == BOOK_ITER_ENTER && it.cur->type == type && nth-- == 0)
        return it.cur;
  }
  return NULL;
}

static inline BookNode *html_node(const Book *b, const char *tag) {
  for (int t = BOOK_HTML_BLOCK; t <= BOOK_HTML_INLINE; t += BOOK_HTML_INLINE - BOOK_HTML_BLOCK)
    for (int i = 0;; i++) {
      BookNode *n = nth_node(b, (BookNodeType)t, i);
      if (!n)
        break;
      if (strcmp(n->as.html.tag, tag) == 0)
        return n;
    }
  return NULL;
}

static inline const char *attr(const BookNode *n, const char *name) {
  for (char **a = n->as.html.attrs; a && a[0]; a += 2)
    if (strcmp(a[0], name) == 0)
      return a[1];
  return NULL;
}

static inline char *chapter_text(const Book *b, guint i) {
  GString *s = g_string_new(NULL);
  book_node_text(((BookChapter *)b->chapters->pdata[i])->root, s);
  return g_string_free(s, FALSE);
}

#endif
