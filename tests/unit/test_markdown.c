/* test_markdown.c: Markdown -> model (input.c, meta.c, markdown.c, chapters.c,
 * resolve.c) with cmocka; raw HTML cleaning is in test_sanitize.c.
 * Sources are strings given to md_parse_sources(); images live in a
 * temporary directory made by the image tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <cairo.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "book.h"
#include "markdown.h"
#include "options.h"

#include "parse_helpers.h"

/* ---- the seed ---- */

static void test_seed(void **state)
{
  (void)state;
  const char *top = g_getenv("TOP") ? g_getenv("TOP") : ".";
  char *path = g_build_filename(top, "content", "lsfmm-bpf-2023.md", NULL);
  const char *files[] = {path};
  OctavoOptions o;
  octavo_options_init(&o);
  Book *b = book_new();
  assert_true(md_parse_files(b, files, 1, &o));
  assert_string_equal(b->meta.title, "The 2023 LSFMM+BPF Summit");
  assert_int_equal(b->meta.authors->len, 1);
  assert_string_equal(b->meta.authors->pdata[0], "Jonathan Corbet");
  assert_string_equal(b->meta.date, "2023-05-11");
  assert_string_equal(b->meta.lang, "en");
  static const char *const titles[] = {NULL,
                                       "Plenary sessions",
                                       "Combined storage and filesystem sessions",
                                       "Combined filesystem and BPF sessions",
                                       "Memory-management sessions",
                                       "Filesystem sessions"};
  assert_int_equal(b->chapters->len, 6);
  for (guint i = 0; i < 6; i++) {
    BookChapter *c = b->chapters->pdata[i];
    assert_int_equal(c->index, i);
    if (titles[i]) {
      assert_string_equal(c->title, titles[i]);
      assert_ptr_equal(c->heading, c->root->first_child);
      assert_int_equal(c->heading->as.heading.level, 2);
    } else {
      assert_null(c->title);
      assert_null(c->heading);
    }
  }
  /* The title and byline are not repeated in the body. */
  char *t0 = chapter_text(b, 0);
  assert_null(strstr(t0, "Jonathan Corbet"));
  assert_non_null(strstr(t0, "Vancouver"));
  g_free(t0);
  assert_int_equal(book_diag_count(b, BOOK_WARNING), 0);
  assert_int_equal(book_diag_count(b, BOOK_ERROR), 0);
  book_free(b);
  g_free(path);
}

/* ---- node types ---- */

static const char every_type[] =
    "# Title\n\n"
    "Intro *em* **strong** ~~strike~~ `code` [link](https://example.com \"T\")"
    " ![img](x.png \"IT\") note[^1] <span class=\"c\">span</span>  \n"
    "hard break\nsoft\n\n"
    "## Chapter\n\n"
    "- bullet\n- [x] done\n- [ ] open\n\n"
    "3. three\n4. four\n\n"
    "> quote\n\n"
    "```sh extra words\necho hi\n```\n\n"
    "---\n\n"
    "| a | b |\n|:-:|--:|\n| 1 | 2 |\n\n"
    "![alone](y.png)\n\n"
    "<figure>\n<img src=\"z.png\" alt=\"fig\">\n<figcaption>Cap</figcaption>\n</figure>\n\n"
    "<div class=\"box\">block html</div>\n\n"
    "Term\n: Definition\n\n"
    "[^1]: The note.\n";

static void test_every_node_type(void **state)
{
  (void)state;
  Book *b = parse(every_type);
  bool seen[BOOK_NODE_TYPE_COUNT] = {false};
  for (guint i = 0; i < b->chapters->len; i++) {
    BookIter it;
    book_iter_init(&it, ((BookChapter *)b->chapters->pdata[i])->root);
    while (book_iter_next(&it) != BOOK_ITER_DONE)
      seen[it.cur->type] = true;
  }
  for (guint i = 0; i < b->footnotes->len; i++) {
    BookIter it;
    book_iter_init(&it, ((BookFootnote *)b->footnotes->pdata[i])->def);
    while (book_iter_next(&it) != BOOK_ITER_DONE)
      seen[it.cur->type] = true;
  }
  for (int t = 0; t < BOOK_NODE_TYPE_COUNT; t++) {
    if (!seen[t])
      fprintf(stderr, "not seen: %s\n", book_node_type_name((BookNodeType)t));
    assert_true(seen[t]);
  }
  /* Details of each. */
  BookNode *h = nth_node(b, BOOK_HEADING, 0);
  assert_int_equal(h->as.heading.level, 2);
  assert_string_equal(h->as.heading.id, "chapter");
  BookNode *l = nth_node(b, BOOK_LIST, 0);
  assert_false(l->as.list.ordered);
  assert_true(l->as.list.tight);
  BookNode *ol = nth_node(b, BOOK_LIST, 1);
  assert_true(ol->as.list.ordered);
  assert_int_equal(ol->as.list.start, 3);
  assert_int_equal(ol->as.list.delim, '.');
  assert_int_equal(nth_node(b, BOOK_ITEM, 0)->as.item.task, BOOK_TASK_NONE);
  assert_int_equal(nth_node(b, BOOK_ITEM, 1)->as.item.task, BOOK_TASK_DONE);
  assert_int_equal(nth_node(b, BOOK_ITEM, 2)->as.item.task, BOOK_TASK_OPEN);
  BookNode *code = nth_node(b, BOOK_CODE_BLOCK, 0);
  assert_string_equal(code->as.code.info, "sh");
  assert_string_equal(code->text, "echo hi\n");
  BookNode *tbl = nth_node(b, BOOK_TABLE, 0);
  assert_int_equal(tbl->as.table.ncols, 2);
  assert_int_equal(tbl->as.table.align[0], BOOK_ALIGN_CENTER);
  assert_int_equal(tbl->as.table.align[1], BOOK_ALIGN_RIGHT);
  assert_true(tbl->first_child->as.row.header);
  assert_false(tbl->last_child->as.row.header);
  assert_int_equal(nth_node(b, BOOK_TABLE_CELL, 0)->first_child->type, BOOK_TEXT);
  BookNode *link = nth_node(b, BOOK_LINK, 0);
  assert_string_equal(link->as.link.href, "https://example.com");
  assert_string_equal(link->as.link.title, "T");
  assert_false(link->as.link.internal);
  BookNode *img = nth_node(b, BOOK_IMAGE, 0);
  assert_string_equal(img->as.image.src, "x.png");
  assert_string_equal(img->as.image.title, "IT");
  assert_string_equal(img->first_child->text, "img");
  assert_null(img->as.image.res); /* missing: warned */
  BookNode *fig = nth_node(b, BOOK_FIGURE, 0);
  assert_int_equal(fig->first_child->type, BOOK_IMAGE);
  assert_null(fig->first_child->next);
  BookNode *ref = nth_node(b, BOOK_FOOTNOTE_REF, 0);
  assert_non_null(ref->as.fnref.note);
  assert_int_equal(ref->as.fnref.note->number, 1);
  BookNode *span = html_node(b, "span");
  assert_int_equal(span->type, BOOK_HTML_INLINE);
  assert_string_equal(attr(span, "class"), "c");
  assert_string_equal(span->first_child->text, "span");
  BookNode *div = html_node(b, "div");
  assert_int_equal(div->type, BOOK_HTML_BLOCK);
  assert_string_equal(div->first_child->text, "block html");
  /* Positions: file, line, column; inline nodes too. */
  BookNode *em = nth_node(b, BOOK_EMPH, 0);
  assert_string_equal(em->pos.file, "t.md");
  assert_int_equal(em->pos.line, 3);
  assert_int_equal(em->pos.col, 7);
  assert_int_equal(h->pos.line, 7);
  assert_int_equal(h->pos.col, 1);
  for (int t = 0; t < BOOK_NODE_TYPE_COUNT; t++)
    for (int i = 0;; i++) {
      BookNode *n = nth_node(b, (BookNodeType)t, i);
      if (!n)
        break;
      assert_non_null(n->pos.file);
      assert_true(n->pos.line > 0);
    }
  book_free(b);
}

/* ---- chapters and ids ---- */

static void test_chapters_and_ids(void **state)
{
  (void)state;
  Book *b = parse("# Book\n\nOpening.\n\n## Intro\n\n### Intro\n\n## Intro\n\ntext\n\n## 1. "
                  "Numbers & Stuff!\n");
  assert_string_equal(b->meta.title, "Book");
  assert_int_equal(b->chapters->len, 4);
  BookChapter *c0 = b->chapters->pdata[0], *c1 = b->chapters->pdata[1], *c2 = b->chapters->pdata[2];
  assert_null(c0->title);
  assert_string_equal(c1->title, "Intro");
  assert_string_equal(c1->id, "ch02");
  assert_string_equal(nth_node(b, BOOK_HEADING, 0)->as.heading.id, "intro");
  assert_string_equal(nth_node(b, BOOK_HEADING, 1)->as.heading.id, "intro-2");
  assert_string_equal(nth_node(b, BOOK_HEADING, 2)->as.heading.id, "intro-3");
  assert_string_equal(c2->heading->as.heading.id, "intro-3");
  const char *id3 = nth_node(b, BOOK_HEADING, 3)->as.heading.id;
  assert_false(g_ascii_isdigit(id3[0]));
  assert_non_null(strstr(id3, "numbers--stuff"));
  /* ids are unique across chapter ids, heading ids and footnote ids. */
  assert_true(g_hash_table_contains(b->ids, "ch01"));
  book_free(b);

  /* --split-level 1: only # starts chapters, and the first # stays; with
   * several # none is the title (pandoc's books: the first is a chapter). */
  OctavoOptions o;
  octavo_options_init(&o);
  o.split_level = 1;
  b = parse_opts("# One\n\n## a\n\n# Two\n\n## b\n", &o);
  assert_int_equal(b->chapters->len, 2);
  assert_string_equal(((BookChapter *)b->chapters->pdata[0])->title, "One");
  assert_string_equal(b->meta.title, "t");
  assert_diag_at(b, BOOK_WARNING, "no title: its 2 # headings start chapters", 0, 0);
  book_free(b);
  /* The same by default (--split-level auto): several # make # the level. */
  octavo_options_init(&o);
  b = parse_opts("# One\n\n## a\n\n# Two\n\n## b\n", &o);
  assert_int_equal(b->chapter_level, 1);
  assert_int_equal(b->chapters->len, 2);
  book_free(b);
  /* With one # only: it is the title and ## are chapters. */
  b = parse_opts("# One\n\n## a\n\n## b\n", &o);
  assert_int_equal(b->chapter_level, 2);
  assert_int_equal(b->chapters->len, 2);
  assert_string_equal(b->meta.title, "One");
  book_free(b);

  /* Each file starts a chapter; ids are unique across files. */
  const char *names[] = {"a.md", "b.md"};
  const char *texts[] = {"# Book\n\n## Same\n\nx\n", "more\n\n## Same\n"};
  octavo_options_init(&o);
  b = parse_n_opts(&o, 2, names, texts);
  assert_int_equal(b->chapters->len, 3);
  assert_null(((BookChapter *)b->chapters->pdata[1])->title);
  assert_string_equal(((BookChapter *)b->chapters->pdata[1])->source, "b.md");
  assert_string_equal(nth_node(b, BOOK_HEADING, 1)->as.heading.id, "same-2");
  book_free(b);
}

/* ---- links ---- */

static void test_links(void **state)
{
  (void)state;
  const char *names[] = {"book/ch01.md", "book/ch02.md"};
  const char *texts[] = {"# Book\n\n## First\n\nSee [below](#second-part), [two](ch02.md), "
                         "[two html](ch02.html#deep), [frag](./ch02.md#first), [nowhere](#nope), "
                         "[gone](missing.md), [ext](https://example.org/x), [mail](mailto:a@b.c), "
                         "[js](javascript:alert(1)) [data](data:text/html,x) and [top](#).\n\n"
                         "## Second part\n",
                         "## Two\n\n### Deep\n\n### First\n\nBack [to one](ch01.md#first) "
                         "and [html](../book/ch01.html).\n"};
  OctavoOptions o;
  octavo_options_init(&o);
  Book *b = parse_n_opts(&o, 2, names, texts);
  BookChapter *first = b->chapters->pdata[0], *second = b->chapters->pdata[1],
              *two = b->chapters->pdata[2];
  BookNode *l;
  l = nth_node(b, BOOK_LINK, 0); /* #second-part */
  assert_true(l->as.link.internal);
  assert_ptr_equal(l->as.link.chapter, second);
  assert_string_equal(l->as.link.fragment, "second-part");
  l = nth_node(b, BOOK_LINK, 1); /* ch02.md */
  assert_true(l->as.link.internal);
  assert_ptr_equal(l->as.link.chapter, two);
  assert_null(l->as.link.fragment);
  l = nth_node(b, BOOK_LINK, 2); /* ch02.html#deep */
  assert_true(l->as.link.internal);
  assert_ptr_equal(l->as.link.chapter, two);
  assert_string_equal(l->as.link.fragment, "deep");
  l = nth_node(b, BOOK_LINK, 3); /* ./ch02.md#first: the "first" heading of ch02, id first-2 */
  assert_true(l->as.link.internal);
  assert_ptr_equal(l->as.link.chapter, two);
  assert_string_equal(l->as.link.fragment, "first-2");
  l = nth_node(b, BOOK_LINK, 4); /* #nope */
  assert_false(l->as.link.internal);
  assert_string_equal(l->as.link.href, "#nope");
  assert_diag_at(b, BOOK_WARNING, "#nope", 5, 0);
  l = nth_node(b, BOOK_LINK, 5); /* missing.md */
  assert_false(l->as.link.internal);
  assert_string_equal(l->as.link.href, "missing.md");
  assert_diag_at(b, BOOK_WARNING, "missing.md", 5, 0);
  l = nth_node(b, BOOK_LINK, 6);
  assert_string_equal(l->as.link.href, "https://example.org/x");
  assert_false(l->as.link.internal);
  l = nth_node(b, BOOK_LINK, 7);
  assert_string_equal(l->as.link.href, "mailto:a@b.c");
  l = nth_node(b, BOOK_LINK, 8); /* #: this chapter; javascript: and data: became text */
  assert_string_equal(l->as.link.href, "#");
  assert_ptr_equal(l->as.link.chapter, first);
  assert_diag_at(b, BOOK_WARNING, "javascript:", 5, 0);
  assert_diag_at(b, BOOK_WARNING, "data:", 5, 0);
  char *text = chapter_text(b, 0);
  assert_non_null(strstr(text, "js data"));
  g_free(text);
  l = nth_node(b, BOOK_LINK, 9); /* ch01.md#first from ch02 */
  assert_ptr_equal(l->as.link.chapter, first);
  assert_string_equal(l->as.link.fragment, "first");
  l = nth_node(b, BOOK_LINK, 10); /* ../book/ch01.html */
  assert_true(l->as.link.internal);
  assert_ptr_equal(l->as.link.chapter, first);
  assert_null(nth_node(b, BOOK_LINK, 11));
  book_free(b);
}

/* ---- metadata ---- */

static void test_byline(void **state)
{
  (void)state;
  Book *b = parse("# T\n\nBy Ann Smith and Bob Jones, 2021-02-03\n\nBody.\n");
  assert_string_equal(b->meta.title, "T");
  assert_int_equal(b->meta.authors->len, 2);
  assert_string_equal(b->meta.authors->pdata[0], "Ann Smith");
  assert_string_equal(b->meta.authors->pdata[1], "Bob Jones");
  assert_string_equal(b->meta.date, "2021-02-03");
  char *t = chapter_text(b, 0);
  assert_string_equal(t, "Body.");
  g_free(t);
  book_free(b);

  b = parse("# T\n\nBy A, B and C, 2021-02-03\n");
  assert_int_equal(b->meta.authors->len, 3);
  assert_string_equal(b->meta.authors->pdata[2], "C");
  book_free(b);

  /* Not a byline: stays in the body. */
  b = parse("# T\n\nBy the way, this is text.\n");
  assert_int_equal(b->meta.authors->len, 0);
  t = chapter_text(b, 0);
  assert_non_null(strstr(t, "By the way"));
  g_free(t);
  book_free(b);
}

static void test_front_matter(void **state)
{
  (void)state;
  Book *b = parse(
      "---\ntitle: Front\nsubtitle: Sub\nauthor:\n  - One\n  - Two\ndate: 2020-01-01\nlang: fr\n"
      "publisher: P\ndescription: D\nsubject: S\nkeywords: k1, k2\nrights: R\nidentifier: urn:x\n"
      "source: src\nbogus: 1\n---\n# Heading stays\n\nBy Z, 1999-09-09\n\ntext\n");
  assert_string_equal(b->meta.title, "Front");
  assert_string_equal(b->meta.subtitle, "Sub");
  assert_int_equal(b->meta.authors->len, 2);
  assert_string_equal(b->meta.authors->pdata[1], "Two");
  assert_string_equal(b->meta.date, "2020-01-01");
  assert_string_equal(b->meta.lang, "fr");
  assert_string_equal(b->meta.publisher, "P");
  assert_string_equal(b->meta.description, "D");
  assert_int_equal(b->meta.subjects->len, 3);
  assert_string_equal(b->meta.subjects->pdata[2], "k2");
  assert_string_equal(b->meta.rights, "R");
  assert_string_equal(b->meta.identifier, "urn:x");
  assert_string_equal(b->meta.source, "src");
  assert_diag_at(b, BOOK_WARNING, "bogus", 16, 1);
  /* A front-matter title keeps the first H1 as a chapter heading. */
  assert_string_equal(((BookChapter *)b->chapters->pdata[0])->title, "Heading stays");
  /* Line numbers after the front matter are the file's. */
  assert_int_equal(nth_node(b, BOOK_HEADING, 0)->pos.line, 18);
  book_free(b);

  b = parse("---\ntitle: ok\nauthor: [unclosed\n---\ntext\n");
  assert_true(book_diag_count(b, BOOK_ERROR) > 0);
  const BookDiag *d = find_diag(b, BOOK_ERROR, "YAML");
  assert_non_null(d);
  assert_string_equal(d->pos.file, "t.md");
  assert_true(d->pos.line >= 3 && d->pos.line <= 4);
  assert_true(d->pos.col >= 1);
  book_free(b);

  b = parse("---\ntitle: a\n  bad: indent\n---\n");
  d = find_diag(b, BOOK_ERROR, "YAML");
  assert_non_null(d);
  assert_int_equal(d->pos.line, 3);
  book_free(b);

  /* No closing line: not front matter. */
  b = parse("---\nnot yaml\n");
  assert_int_equal(book_diag_count(b, BOOK_ERROR), 0);
  book_free(b);
}

static void test_options_override(void **state)
{
  (void)state;
  OctavoOptions o;
  octavo_options_init(&o);
  o.lang = "de";
  o.metadata = g_ptr_array_new();
  g_ptr_array_add(o.metadata, "author=X");
  g_ptr_array_add(o.metadata, "author=Y");
  g_ptr_array_add(o.metadata, "subject=s");
  g_ptr_array_add(o.metadata, "date=2000-01-01");
  g_ptr_array_add(o.metadata, "publisher=Pub");
  g_ptr_array_add(o.metadata, "nonsense=1");
  Book *b = parse_opts("---\nauthor: Front\nlang: fr\n---\n# T\n\nBy Q, 2021-01-01\n\nx\n", &o);
  assert_int_equal(b->meta.authors->len, 2);
  assert_string_equal(b->meta.authors->pdata[0], "X");
  assert_string_equal(b->meta.authors->pdata[1], "Y");
  assert_string_equal(b->meta.lang, "de");
  assert_string_equal(b->meta.date, "2000-01-01");
  assert_string_equal(b->meta.publisher, "Pub");
  assert_string_equal(b->meta.subjects->pdata[0], "s");
  assert_string_equal(b->meta.title, "T");
  assert_diag_at(b, BOOK_WARNING, "nonsense", 0, 0);
  book_free(b);

  /* -M lang beats --lang; -M title keeps the H1 as a heading. */
  g_ptr_array_set_size(o.metadata, 0);
  g_ptr_array_add(o.metadata, "lang=it");
  g_ptr_array_add(o.metadata, "title=Given");
  b = parse_opts("# H1\n\ntext\n", &o);
  assert_string_equal(b->meta.lang, "it");
  assert_string_equal(b->meta.title, "Given");
  assert_string_equal(((BookChapter *)b->chapters->pdata[0])->title, "H1");
  book_free(b);
  g_ptr_array_free(o.metadata, TRUE);
}

static void test_no_title(void **state)
{
  (void)state;
  Book *b = parse("Just text.\n");
  assert_string_equal(b->meta.title, "t");
  assert_string_equal(b->meta.lang, "en");
  assert_diag_at(b, BOOK_WARNING, "no title", 0, 0);
  assert_int_equal(book_diag_count(b, BOOK_ERROR), 0);
  book_free(b);

  b = parse("");
  assert_int_equal(b->chapters->len, 1); /* writers get at least one chapter */
  book_free(b);

  /* The one # heading is the title even after text (a README's badges or
   * row of links, then "# Title"), with a warning that says so. */
  b = parse("Badges and a row of links.\n\n# Installation\n\nSteps.\n");
  assert_string_equal(b->meta.title, "Installation");
  assert_int_equal(b->chapters->len, 1);
  assert_diag_at(b, BOOK_WARNING,
                 "the book's title is 'Installation', its one # heading, after 1 block", 3, 1);
  book_free(b);
}

/* ---- footnotes ---- */

static void test_footnotes(void **state)
{
  (void)state;
  Book *b = parse("# T\n\n## One\n\nSecond[^b] first? No: [^a] again[^b] missing[^zz].\n\n"
                  "## Two\n\nThird[^c].\n\n[^a]: A.\n[^b]: B, see[^c].\n[^c]: C.\n[^unused]: U.\n");
  assert_int_equal(b->footnotes->len, 3);
  BookFootnote *fb = b->footnotes->pdata[0], *fa = b->footnotes->pdata[1],
               *fc = b->footnotes->pdata[2];
  assert_string_equal(fb->label, "b");
  assert_int_equal(fb->number, 1);
  assert_int_equal(fb->nrefs, 2);
  assert_string_equal(fa->label, "a");
  assert_int_equal(fa->number, 2);
  assert_string_equal(fc->label, "c");
  assert_int_equal(fc->number, 3);
  assert_int_equal(fc->nrefs, 2);
  assert_string_equal(fb->id, "fn-1");
  assert_ptr_equal(fb->chapter, b->chapters->pdata[0]);
  assert_ptr_equal(fc->chapter, b->chapters->pdata[1]); /* first referenced from the text of Two */
  assert_int_equal(fb->def->type, BOOK_FOOTNOTE_DEF);
  assert_null(fb->def->parent);
  assert_int_equal(nth_node(b, BOOK_FOOTNOTE_REF, 2)->as.fnref.ref_index, 2);
  /* Definitions are not in the chapter trees; a reference to nothing stays text. */
  char *t = chapter_text(b, 0);
  assert_null(strstr(t, "B, see"));
  assert_non_null(strstr(t, "[^zz]"));
  g_free(t);
  assert_diag_at(b, BOOK_WARNING, "unused", 14, 1);
  book_free(b);
}

static void test_url_checks(void **state)
{
  (void)state;
  /* Kept hrefs are valid URIs (cmark's autolinks may hold anything). */
  Book *b = parse("# T\n\nwww.example.com/a[^x]b [c](https://x.org/caf%C3%A9?q=1#f#g) "
                  "[d](<https://h/\xC3\xA9 x>) "
                  "[e](https://[::1]/[x]) [f](https://x/100%)\n");
  assert_string_equal(nth_node(b, BOOK_LINK, 0)->as.link.href,
                      "http://www.example.com/a%5B%5Ex%5Db");
  assert_string_equal(nth_node(b, BOOK_LINK, 1)->as.link.href, "https://x.org/caf%C3%A9?q=1#f%23g");
  assert_string_equal(nth_node(b, BOOK_LINK, 2)->as.link.href, "https://h/%C3%A9%20x");
  assert_string_equal(nth_node(b, BOOK_LINK, 3)->as.link.href, "https://[::1]/%5Bx%5D");
  assert_string_equal(nth_node(b, BOOK_LINK, 4)->as.link.href, "https://x/100%25");
  book_free(b);
  b = parse("# T\n\nwww.example.com.[^x]\n");
  assert_string_equal(nth_node(b, BOOK_LINK, 0)->as.link.href,
                      "http://www.example.com./%5B%5Ex%5D");
  book_free(b);
}

/* ---- bad input ---- */

static void test_invalid_utf8(void **state)
{
  (void)state;
  Book *b = parse("# Title\n\nok \xff bad\nand \xc3( more\xEF\xBB\n");
  assert_diag_at(b, BOOK_WARNING, "UTF-8", 3, 4);
  int n = 0;
  for (guint i = 0; i < b->diags->len; i++)
    if (strstr(g_array_index(b->diags, BookDiag, i).message, "UTF-8"))
      n++;
  assert_int_equal(n, 4); /* ff; c3 before '('; ef and bb before the newline */
  BookNode *t = nth_node(b, BOOK_TEXT, 0);
  assert_true(g_utf8_validate(t->text, -1, NULL));
  assert_non_null(strstr(t->text, "\xEF\xBF\xBD"));
  book_free(b);

  /* A BOM is dropped; NUL bytes become U+FFFD. */
  static const char with_nul[] = "\xEF\xBB\xBF# T\n\na\0b\n";
  MdSource src = {.name = "n.md", .text = with_nul, .len = sizeof with_nul - 1};
  b = book_new();
  assert_true(md_parse_sources(b, &src, 1, NULL));
  assert_string_equal(b->meta.title, "T");
  t = nth_node(b, BOOK_TEXT, 0);
  assert_string_equal(t->text, "a\xEF\xBF\xBD"
                               "b");
  book_free(b);

  /* UTF-16 with a BOM is converted. */
  static const char u16[] = "\xFF\xFE#\0 \0T\0\n\0\n\0x\0\n\0";
  MdSource src16 = {.name = "u16.md", .text = u16, .len = sizeof u16 - 1};
  b = book_new();
  assert_true(md_parse_sources(b, &src16, 1, NULL));
  assert_string_equal(b->meta.title, "T");
  assert_int_equal(book_diag_count(b, BOOK_WARNING), 0);
  book_free(b);
}

static void test_unreadable(void **state)
{
  (void)state;
  const char *files[] = {"/nonexistent/x.md"};
  Book *b = book_new();
  assert_false(md_parse_files(b, files, 1, NULL));
  const BookDiag *d = find_diag(b, BOOK_ERROR, "cannot read");
  assert_non_null(d);
  assert_string_equal(d->pos.file, "/nonexistent/x.md");
  book_free(b);
}

static void test_deep_nesting(void **state)
{
  (void)state;
  /* Deep input must not recurse: quotes, lists, emphasis, inline HTML. */
  GString *s = g_string_new("# T\n\n");
  for (int i = 0; i < 5000; i++)
    g_string_append_c(s, '>');
  g_string_append(s, " deep\n\n");
  for (int i = 0; i < 2000; i++)
    g_string_append(s, "<span>");
  g_string_append(s, "x\n\n");
  for (int i = 0; i < 3000; i++)
    g_string_append(s, "*a ");
  g_string_append(s, "\n\n");
  for (int i = 0; i < 500; i++) {
    for (int j = 0; j < i * 2; j++)
      g_string_append_c(s, ' ');
    g_string_append(s, "- item\n");
  }
  Book *b = parse(s->str);
  assert_int_equal(book_diag_count(b, BOOK_ERROR), 0);
  gchar *d = dump(b);
  assert_non_null(strstr(d, "deep"));
  g_free(d);
  book_free(b);
  g_string_free(s, TRUE);
}

/* ---- images ---- */

static char *tmpdir;

static void write_file(const char *dir, const char *name, const void *data, gsize len)
{
  char *p = g_build_filename(dir, name, NULL);
  assert_true(g_file_set_contents(p, data, (gssize)len, NULL));
  g_free(p);
}

/* A PNG of w x h pixels that decodes (cairo writes it). */
static void write_png(const char *dir, const char *name, int w, int h)
{
  char *p = g_build_filename(dir, name, NULL);
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  assert_int_equal(cairo_surface_write_to_png(s, p), CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy(s);
  g_free(p);
}

/* A JPEG of w x h pixels that decodes (gdk-pixbuf writes it). */
static void write_jpeg(const char *dir, const char *name, int w, int h)
{
  char *p = g_build_filename(dir, name, NULL);
  GdkPixbuf *pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, w, h);
  gdk_pixbuf_fill(pb, 0x336699ff);
  assert_true(gdk_pixbuf_save(pb, p, "jpeg", NULL, NULL));
  g_object_unref(pb);
  g_free(p);
}

static void test_images(void **state)
{
  (void)state;
  tmpdir = g_dir_make_tmp("octavo-md-XXXXXX", NULL);
  assert_non_null(tmpdir);
  char *book = g_build_filename(tmpdir, "book", NULL);
  char *imgs = g_build_filename(book, "img", NULL);
  char *res = g_build_filename(tmpdir, "res", NULL);
  g_mkdir_with_parents(imgs, 0755);
  g_mkdir_with_parents(res, 0755);
  static const unsigned char png[] = {0x89, 'P', 'N', 'G',  '\r', '\n', 0x1a, '\n', 0, 0,
                                      0,    13,  'I', 'H',  'D',  'R',  0,    0,    1, 0x2c,
                                      0,    0,   0,   0xc8, 8,    2,    0,    0,    0};
  /* a 10 x 20 screen holding one 1 x 1 frame: decodes */
  static const unsigned char gif[] = {'G', 'I', 'F', '8', '9', 'a', 10, 0,   20, 0, 0x80, 0,
                                      0,   255, 255, 255, 0,   0,   0,  ',', 0,  0, 0,    0,
                                      1,   0,   1,   0,   0,   2,   2,  'D', 1,  0, ';'};
  static const char svg[] = "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
  write_png(imgs, "a.png", 300, 200);
  write_file(imgs, "b.gif", gif, sizeof gif);
  write_jpeg(imgs, "c.jpeg", 40, 30);
  write_file(imgs, "header.png", png, sizeof png); /* a header and no pixels */
  write_file(imgs, "d.png", svg, strlen(svg));     /* an SVG named .png: content decides */
  write_file(imgs, "e.png", "text", 4);
  unsigned char bomb[sizeof png];
  memcpy(bomb, png, sizeof png);
  bomb[18] = bomb[22] = 0x75; /* 30000 x 30000 */
  bomb[19] = bomb[23] = 0x30;
  write_file(imgs, "bomb.png", bomb, sizeof bomb);
  write_png(tmpdir, "outside.png", 3, 2);
  write_png(res, "shared.png", 3, 2);
  char *link = g_build_filename(imgs, "link.png", NULL);
  char *target = g_build_filename(tmpdir, "outside.png", NULL);
  assert_int_equal(symlink(target, link), 0);
  char *md = g_build_filename(book, "book.md", NULL);
  const char *text =
      "# T\n\n![a](img/a.png) ![again](./img/a.png) ![b](img/b.gif) ![c](img/c.jpeg) "
      "![d](img/d.png) ![e](img/e.png) ![up](../outside.png) ![sym](img/link.png) "
      "![none](img/none.png) ![web](https://example.org/x.png) ![shared](shared.png) "
      "![abs](/etc/hostname) ![bomb](img/bomb.png) ![header](img/header.png)\n";
  const char *names[] = {md};
  OctavoOptions o;
  octavo_options_init(&o);
  o.resource_path = res;
  Book *b = parse_n_opts(&o, 1, names, &text);
  BookNode *im[12];
  for (int i = 0; i < 12; i++) {
    im[i] = nth_node(b, BOOK_IMAGE, i);
    assert_non_null(im[i]);
  }
  assert_non_null(im[0]->as.image.res);
  assert_string_equal(im[0]->as.image.res->media_type, "image/png");
  assert_string_equal(im[0]->as.image.res->href, "images/img-1.png");
  assert_int_equal(im[0]->as.image.res->width_px, 300);
  assert_int_equal(im[0]->as.image.res->height_px, 200);
  assert_int_equal(im[0]->as.image.res->kind, BOOK_IMAGE_PNG);
  assert_ptr_equal(im[1]->as.image.res, im[0]->as.image.res); /* deduplicated */
  assert_string_equal(im[2]->as.image.res->media_type, "image/gif");
  assert_int_equal(im[2]->as.image.res->width_px, 10);
  assert_int_equal(im[2]->as.image.res->height_px, 20);
  assert_string_equal(im[3]->as.image.res->media_type, "image/jpeg");
  assert_int_equal(im[3]->as.image.res->width_px, 40);
  assert_int_equal(im[3]->as.image.res->height_px, 30);
  assert_string_equal(im[4]->as.image.res->media_type, "image/svg+xml");
  assert_int_equal(im[4]->as.image.res->kind, BOOK_IMAGE_SVG);
  assert_int_equal(im[3]->as.image.res->kind, BOOK_IMAGE_JPEG);
  assert_int_equal(im[2]->as.image.res->kind, BOOK_IMAGE_GIF);
  assert_true(g_str_has_suffix(im[4]->as.image.res->href, ".svg"));
  assert_null(im[5]->as.image.res);
  assert_null(im[6]->as.image.res); /* ../ leaves the directory */
  assert_null(im[7]->as.image.res); /* symlink out */
  assert_null(im[8]->as.image.res);
  assert_null(im[9]->as.image.res);                       /* remote: never fetched */
  assert_non_null(im[10]->as.image.res);                  /* from --resource-path */
  assert_null(im[11]->as.image.res);                      /* absolute */
  assert_null(nth_node(b, BOOK_IMAGE, 12)->as.image.res); /* 30000 x 30000: too large */
  assert_null(nth_node(b, BOOK_IMAGE, 13)->as.image.res); /* its pixels do not decode */
  assert_diag_at(b, BOOK_WARNING, "too large", 3, 0);
  assert_diag_at(b, BOOK_WARNING, "cannot be decoded", 3, 0);
  assert_int_equal(b->resources->len, 5);
  assert_diag_at(b, BOOK_WARNING, "img/e.png", 3, 0);
  assert_diag_at(b, BOOK_WARNING, "../outside.png", 3, 0);
  assert_diag_at(b, BOOK_WARNING, "img/link.png", 3, 0);
  assert_diag_at(b, BOOK_WARNING, "img/none.png", 3, 0);
  assert_diag_at(b, BOOK_WARNING, "https://example.org/x.png", 3, 0);
  book_free(b);
  /* clean up */
  const char *files[] = {"a.png", "b.gif",    "c.jpeg",     "d.png",
                         "e.png", "bomb.png", "header.png", "link.png"};
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
    char *p = g_build_filename(imgs, files[i], NULL);
    g_unlink(p);
    g_free(p);
  }
  char *p = g_build_filename(res, "shared.png", NULL);
  g_unlink(p);
  g_free(p);
  g_unlink(target);
  g_rmdir(imgs);
  g_rmdir(res);
  g_rmdir(book);
  g_rmdir(tmpdir);
  g_free(md);
  g_free(link);
  g_free(target);
  g_free(imgs);
  g_free(res);
  g_free(book);
  g_free(tmpdir);
}

/* An image that is not in the book (remote here) keeps a text: its alt
 * text, else its title, else its address; a raw <img> without an alt
 * attribute is named by its title, as HTML names it. */
static void test_missing_image_text(void **state)
{
  (void)state;
  Book *b =
      parse("# T\n\n[![](https://e.org/b.png)](https://e.org) "
            "[![](https://e.org/c.png \"Its title\")](https://e.org) "
            "![Its alt](https://e.org/d.png) "
            "<a href=\"https://e.org\"><img src=\"https://e.org/e.svg\" title=\"Raw title\"></a> "
            "<img src=\"https://e.org/f.svg\" alt=\"Raw alt\" title=\"Not this\">\n");
  const char *want[] = {"https://e.org/b.png", "Its title", "Its alt", "Raw title", "Raw alt"};
  for (int i = 0; i < 5; i++) {
    BookNode *im = nth_node(b, BOOK_IMAGE, i);
    assert_non_null(im);
    assert_null(im->as.image.res);
    GString *t = g_string_new(NULL);
    book_node_text(im, t);
    assert_string_equal(t->str, want[i]);
    g_string_free(t, TRUE);
  }
  book_free(b);
}

/* ---- memory ---- */

static void test_build_and_free(void **state)
{
  (void)state;
  /* Every path that allocates, many times; ASan (make asan-check) and
   * valgrind report any leak at exit. */
  for (int i = 0; i < 20; i++) {
    Book *b = parse(every_type);
    book_free(b);
    b = parse("---\ntitle: [bad\n---\n# T\n\n<b><i>x</b></i> <script>y</script>[^u]\n\n[^u]: "
              "n\n[^v]: w\n");
    book_free(b);
  }
  book_free(NULL);
}

/* A leading --- block that is YAML but not a mapping is Markdown, not front
 * matter: nothing of it is dropped (GFM spec example 66). */
static void test_front_matter_not_mapping(void **state)
{
  (void)state;
  Book *b = parse("---\nFoo\n---\nBar\n");
  assert_non_null(nth_node(b, BOOK_THEMATIC_BREAK, 0));
  BookNode *h = nth_node(b, BOOK_HEADING, 0);
  assert_non_null(h);
  GString *t = g_string_new(NULL);
  book_node_text(h, t);
  assert_string_equal(t->str, "Foo");
  g_string_free(t, TRUE);
  assert_non_null(nth_node(b, BOOK_PARAGRAPH, 0));
  book_free(b);
}

/* ---- issue 16: raw-HTML images and figures, anchors, depth; listings ---- */

static bool is_anchor_first(const BookNode *h)
{
  const BookNode *a = h->first_child;
  return a && a->type == BOOK_HTML_INLINE && strcmp(a->as.html.tag, "a") == 0 &&
         strcmp(attr(a, "id"), "old-name") == 0;
}

static int max_depth(const BookNode *root)
{
  int m = 0;
  BookIter it;
  book_iter_init(&it, (BookNode *)root);
  while (book_iter_next(&it) != BOOK_ITER_DONE)
    m = MAX(m, book_node_depth(it.cur));
  return m;
}

static void test_html_figures(void **state)
{
  (void)state;
  Book *b = parse(
      "# T\n\n<img src=\"a.png\" alt=\"one\nline\" width=\"120\" style=\"max-width: 50%\">\n\n"
      "<figure>\n<img src=\"b.png\" alt=\"b\">\n<figcaption>Cap "
      "<em>x</em></figcaption>\n</figure>\n\n"
      "<Listing number=\"1-2\" file-name=\"src/main.rs\" caption=\"A `main`\">\n\n```rust\nfn "
      "main() {}\n```\n\n</Listing>\n");
  BookNode *f = nth_node(b, BOOK_FIGURE, 0);
  assert_non_null(f);
  assert_false(f->as.figure.listing);
  BookNode *img = f->first_child;
  assert_int_equal(img->type, BOOK_IMAGE);
  assert_int_equal(img->as.image.width.unit, BOOK_LEN_PX);
  assert_true(img->as.image.width.value == 120);
  assert_int_equal(img->as.image.max_width.unit, BOOK_LEN_PERCENT);
  assert_int_equal(img->as.image.height.unit, BOOK_LEN_NONE);
  assert_string_equal(img->first_child->text, "one line"); /* never a newline in alt text */
  BookNode *f2 = nth_node(b, BOOK_FIGURE, 1);
  assert_int_equal(f2->last_child->type, BOOK_FIGCAPTION);
  GString *cap = g_string_new(NULL);
  book_node_text(f2->last_child, cap);
  assert_string_equal(cap->str, "Cap x");
  g_string_free(cap, TRUE);
  BookNode *l = nth_node(b, BOOK_FIGURE, 2);
  assert_true(l->as.figure.listing);
  assert_string_equal(l->as.figure.file_name, "src/main.rs");
  assert_int_equal(l->first_child->type, BOOK_CODE_BLOCK);
  assert_int_equal(l->last_child->type, BOOK_FIGCAPTION);
  assert_string_equal(l->last_child->first_child->text, "Listing 1-2: ");
  cap = g_string_new(NULL);
  book_node_text(l->last_child, cap);
  assert_string_equal(cap->str, "Listing 1-2: A main");
  g_string_free(cap, TRUE);
  assert_int_equal(l->last_child->last_child->type, BOOK_CODE); /* the caption read as Markdown */
  assert_null(html_node(b, "listing"));
  assert_null(html_node(b, "figure"));
  book_free(b);
}

static void test_anchor_no_empty_chapter(void **state)
{
  (void)state;
  const char *names[] = {"a.md", "b.md"};
  const char *texts[] = {"<a id=\"old-name\"></a>\n\n## Title\n\ntext\n",
                         "# B\n\n[old](a.md#old-name) [o2](#old-name)\n"};
  OctavoOptions o;
  octavo_options_init(&o);
  Book *b = parse_n_opts(&o, 2, names, texts);
  BookChapter *c0 = b->chapters->pdata[0];
  assert_non_null(c0->heading); /* no opening chapter made of the anchor */
  assert_string_equal(c0->title, "Title");
  assert_true(is_anchor_first(c0->heading));
  BookNode *l = nth_node(b, BOOK_LINK, 0);
  assert_true(l->as.link.internal);
  assert_ptr_equal(l->as.link.chapter, c0);
  assert_string_equal(l->as.link.fragment, "old-name");
  assert_true(nth_node(b, BOOK_LINK, 1)->as.link.internal);
  book_free(b);
  /* An empty block before a chapter heading joins that chapter. */
  b = parse("<div class=\"x\"></div>\n\n## H\n\ntext\n");
  assert_int_equal(b->chapters->len, 1);
  book_free(b);
}

static void test_depth_limit(void **state)
{
  (void)state;
  GString *s = g_string_new("# T\n\n");
  for (int i = 0; i < 300; i++)
    g_string_append(s, "> ");
  g_string_append(s, "bottom\n\n");
  for (int i = 0; i < 200; i++)
    g_string_append(s, "- ");
  g_string_append(s, "item\n\n");
  for (int i = 0; i < 100; i++)
    g_string_append(s, "<div>\n\n");
  g_string_append(s, "in divs\n\n");
  for (int i = 0; i < 100; i++)
    g_string_append(s, "</div>\n\n");
  for (int i = 0; i < 100; i++)
    g_string_append(s, "<span>");
  g_string_append(s, "spans\n");
  Book *b = parse(s->str);
  for (guint i = 0; i < b->chapters->len; i++)
    assert_true(max_depth(((BookChapter *)b->chapters->pdata[i])->root) <= BOOK_MAX_DEPTH);
  gchar *d = dump(b);
  assert_non_null(strstr(d, "bottom"));
  assert_non_null(strstr(d, "item"));
  assert_non_null(strstr(d, "in divs"));
  assert_non_null(strstr(d, "spans"));
  g_free(d);
  const BookDiag *w = find_diag(b, BOOK_WARNING, "nesting deeper");
  assert_non_null(w);
  assert_int_equal(w->pos.line, 3);
  assert_true(w->pos.col > 1);
  int n = 0;
  for (guint i = 0; i < b->diags->len; i++)
    n += strstr(g_array_index(b->diags, BookDiag, i).message, "nesting deeper") != NULL;
  assert_int_equal(n, 4); /* one per deep block: quote, list, divs, spans */
  assert_null(find_diag(b, BOOK_WARNING, "closes nothing"));
  book_free(b);
  g_string_free(s, TRUE);
}

static void test_heading_shift(void **state)
{
  (void)state;
  const char *text = "# One\n\n## Two\n\n###### Six\n";
  MdSource src = {.name = "s.md", .text = text, .len = strlen(text), .heading_shift = 1};
  OctavoOptions o;
  octavo_options_init(&o);
  Book *b = book_new();
  assert_true(md_parse_sources(b, &src, 1, &o));
  /* "# One" became ##: a chapter heading, no longer the book's title. */
  assert_int_equal(nth_node(b, BOOK_HEADING, 0)->as.heading.level, 2);
  assert_int_equal(nth_node(b, BOOK_HEADING, 1)->as.heading.level, 3);
  /* ###### + 1 is past 6, and below a ### no level is skipped: #### */
  assert_int_equal(nth_node(b, BOOK_HEADING, 2)->as.heading.level, 4);
  assert_int_equal(b->chapters->len, 1);
  book_free(b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seed),
      cmocka_unit_test(test_every_node_type),
      cmocka_unit_test(test_chapters_and_ids),
      cmocka_unit_test(test_links),
      cmocka_unit_test(test_byline),
      cmocka_unit_test(test_front_matter),
      cmocka_unit_test(test_options_override),
      cmocka_unit_test(test_no_title),
      cmocka_unit_test(test_footnotes),
      cmocka_unit_test(test_url_checks),
      cmocka_unit_test(test_front_matter_not_mapping),
      cmocka_unit_test(test_invalid_utf8),
      cmocka_unit_test(test_unreadable),
      cmocka_unit_test(test_deep_nesting),
      cmocka_unit_test(test_images),
      cmocka_unit_test(test_missing_image_text),
      cmocka_unit_test(test_build_and_free),
      cmocka_unit_test(test_html_figures),
      cmocka_unit_test(test_anchor_no_empty_chapter),
      cmocka_unit_test(test_depth_limit),
      cmocka_unit_test(test_heading_shift),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
