/* test_layout.c: the print layout on hand-built models: the trace of lines
 * and page breaks against a golden file (fonts pinned in fonts/), page
 * labels and marks, margins, footnotes, table headers, determinism, paper
 * sizes, and a bad style file.
 *
 * OCTAVO_UPDATE_GOLDEN=1 rewrites tests/golden/layout-*.trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include <pango/pango.h>

#include "book.h"
#include "layout.h"
#include "markdown.h"
#include "options.h"
#include "style.h"

static const char *top(void)
{
  const char *t = g_getenv("TOP");
  return t && *t ? t : ".";
}

static void opts_init(OctavoOptions *o)
{
  octavo_options_init(o);
  o->paper = OCTAVO_PAPER_A4;
  o->datadir = top();
}

/* The fonts, loaded once for every test (as main.c does for a run). */
static Fonts *fonts;

/* As main.c: the style (o->style, else styles/print.ini) for o->paper and
 * o->columns, then the layout. NULL with an error in b when the style is
 * unreadable. */
static Layout *layout(Book *b, const OctavoOptions *o)
{
  Style st = {0};
  GError *err = NULL;
  char *path = o->style ? g_strdup(o->style) : g_build_filename(top(), "styles", "print.ini", NULL);
  bool ok = style_load(&st, path, o->paper, o->columns, &err);
  g_free(path);
  if (!ok) {
    book_diag(b, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
    style_clear(&st);
    return NULL;
  }
  if (!fonts)
    fonts = fonts_load(top(), NULL);
  assert_non_null(fonts);
  Layout *lay = lay_book(b, o, &st, fonts, NULL);
  style_clear(&st);
  return lay;
}

static BookNode *add(Book *b, BookNode *parent, BookNodeType t, const char *text)
{
  BookNode *n = book_node_new(b, t, NULL);
  if (text)
    n->text = g_strdup(text);
  book_node_append(parent, n);
  return n;
}

static BookNode *para(Book *b, BookNode *parent, const char *text)
{
  BookNode *p = add(b, parent, BOOK_PARAGRAPH, NULL);
  add(b, p, BOOK_TEXT, text);
  return p;
}

static const char *lorem =
    "Typesetting a paragraph well means choosing all of its line breaks at once, so that no "
    "line is much looser than its neighbours, and hyphenating words only where that helps. "
    "The printed page is read at arm's length, in a good light, and the eye moves along the "
    "lines without effort when the spaces between words are even.";

static BookChapter *chapter(Book *b, const char *title, const char *id)
{
  BookChapter *ch = book_chapter_add(b, "test.md");
  ch->id = g_strdup(id);
  if (title) {
    ch->title = g_strdup(title);
    BookNode *h = add(b, ch->root, BOOK_HEADING, NULL);
    h->as.heading.level = 2;
    h->as.heading.id = book_id_reserve(b, id);
    add(b, h, BOOK_TEXT, title);
    ch->heading = h;
  }
  return ch;
}

/* A small book: an opening chapter, a chapter with lists, code, a table
 * and a footnote, and a long chapter. */
static Book *sample(void)
{
  Book *b = book_new();
  b->meta.title = g_strdup("A Sample Book");
  g_ptr_array_add(b->meta.authors, g_strdup("Ada Lovelace"));
  b->meta.date = g_strdup("2024-02-29");
  b->meta.lang = g_strdup("en");
  BookChapter *c0 = chapter(b, NULL, "ch01");
  para(b, c0->root, lorem);
  BookChapter *c1 = chapter(b, "Blocks", "blocks");
  BookNode *p = para(b, c1->root, "A paragraph with ");
  BookNode *em = add(b, p, BOOK_EMPH, NULL);
  add(b, em, BOOK_TEXT, "emphasis");
  add(b, p, BOOK_TEXT, ", ");
  add(b, p, BOOK_CODE, "code");
  add(b, p, BOOK_TEXT, " and a note.");
  BookFootnote *fn = g_new0(BookFootnote, 1);
  fn->label = g_strdup("n");
  fn->number = 1;
  fn->id = g_strdup("fn-1");
  fn->nrefs = 1;
  fn->chapter = c1;
  fn->def = book_node_new(b, BOOK_FOOTNOTE_DEF, NULL);
  para(b, fn->def, "The note's text.");
  g_ptr_array_add(b->footnotes, fn);
  BookNode *ref = add(b, p, BOOK_FOOTNOTE_REF, NULL);
  ref->as.fnref.note = fn;
  ref->as.fnref.ref_index = 1;
  BookNode *list = add(b, c1->root, BOOK_LIST, NULL);
  list->as.list.tight = true;
  BookNode *inner = NULL;
  for (int i = 0; i < 3; i++) {
    BookNode *it = add(b, list, BOOK_ITEM, NULL);
    para(b, it, i == 1 ? lorem : "An item.");
    if (i == 0)
      inner = it;
  }
  BookNode *sub = add(b, inner, BOOK_LIST, NULL);
  sub->as.list.ordered = true;
  sub->as.list.start = 1;
  sub->as.list.delim = '.';
  para(b, add(b, sub, BOOK_ITEM, NULL), "A numbered sub-item.");
  BookNode *code = add(b, c1->root, BOOK_CODE_BLOCK,
                       "int main(void) {\n\treturn 0; /* a comment that is long enough to be "
                       "wrapped at the right edge of the measure, with a mark */\n}\n");
  (void)code;
  BookNode *tab = add(b, c1->root, BOOK_TABLE, NULL);
  tab->as.table.ncols = 2;
  tab->as.table.align = g_new0(BookAlign, 2);
  tab->as.table.align[1] = BOOK_ALIGN_RIGHT;
  for (int r = 0; r < 60; r++) {
    BookNode *row = add(b, tab, BOOK_TABLE_ROW, NULL);
    row->as.row.header = r == 0;
    char a[32], c[32];
    g_snprintf(a, sizeof a, r ? "row %d" : "Name", r);
    g_snprintf(c, sizeof c, r ? "%d" : "Value", r * 17);
    add(b, add(b, row, BOOK_TABLE_CELL, NULL), BOOK_TEXT, a);
    add(b, add(b, row, BOOK_TABLE_CELL, NULL), BOOK_TEXT, c);
  }
  BookChapter *c2 = chapter(b, "Long", "long");
  for (int i = 0; i < 12; i++)
    para(b, c2->root, lorem);
  return b;
}

static void check_golden(const char *name, const char *trace)
{
  char *path = g_strdup_printf("%s/tests/golden/layout-%s.trace", top(), name);
  if (g_getenv("OCTAVO_UPDATE_GOLDEN")) {
    assert_true(g_file_set_contents(path, trace, -1, NULL));
  } else {
    char *want = NULL;
    if (!g_file_get_contents(path, &want, NULL, NULL))
      fail_msg("no golden file %s (OCTAVO_UPDATE_GOLDEN=1 writes it)", path);
    if (strcmp(want, trace) != 0) {
      char *got = g_strdup_printf("%s.got", path);
      g_file_set_contents(got, trace, -1, NULL);
      fail_msg("layout trace differs from %s (see %s)", path, got);
    }
    g_free(want);
  }
  g_free(path);
}

static void test_trace_golden(void **state)
{
  (void)state;
  Book *b = sample();
  OctavoOptions o;
  opts_init(&o);
  Layout *lay = layout(b, &o);
  assert_non_null(lay);
  char *t = lay_trace(lay);
  check_golden("sample-a4", t);
  g_free(t);
  lay_free(lay);
  book_free(b);
}

/* The seed, parsed for real, in A4 and A5: its trace against golden files.
 * A change in parsing, hyphenation or line breaking shows here first; when
 * it is intended, OCTAVO_UPDATE_GOLDEN=1 rewrites the files. */
static void test_seed_golden(void **state)
{
  (void)state;
  const OctavoPaper papers[] = {OCTAVO_PAPER_A4, OCTAVO_PAPER_A5};
  for (size_t i = 0; i < G_N_ELEMENTS(papers); i++) {
    Book *b = book_new();
    OctavoOptions o;
    opts_init(&o);
    o.paper = papers[i];
    char *path = g_build_filename(top(), "content", "lsfmm-bpf-2023.md", NULL);
    const char *files[] = {path};
    assert_true(md_parse_files(b, files, 1, &o));
    Layout *lay = layout(b, &o);
    assert_non_null(lay);
    char *t = lay_trace(lay);
    char *name = g_strdup_printf("seed-%s", octavo_enum_name(OCTAVO_ENUM_PAPER, papers[i]));
    check_golden(name, t);
    g_free(name);
    g_free(t);
    g_free(path);
    lay_free(lay);
    book_free(b);
  }
}

static void test_pages_labels_marks(void **state)
{
  (void)state;
  Book *b = sample();
  OctavoOptions o;
  opts_init(&o);
  Layout *lay = layout(b, &o);
  assert_non_null(lay);
  assert_true(lay->front_pages >= 2 && lay->front_pages % 2 == 0);
  assert_true(lay->pages->len > (guint)lay->front_pages + 3);
  LayPage *p0 = lay->pages->pdata[0];
  assert_string_equal(p0->label, "i");
  assert_true(p0->front);
  LayPage *p1 = lay->pages->pdata[lay->front_pages];
  assert_string_equal(p1->label, "1");
  /* a mark for every body page, in order, on text */
  assert_int_equal(lay->page_marks->len, lay->pages->len - (guint)lay->front_pages);
  for (guint i = 0; i < lay->page_marks->len; i++) {
    BookPageMark *m = &g_array_index(lay->page_marks, BookPageMark, i);
    assert_int_equal(m->page, lay->front_pages + (int)i + 1);
    assert_non_null(m->node);
    char num[16];
    g_snprintf(num, sizeof num, "%u", i + 1);
    assert_string_equal(m->label, num);
    if (m->node->text)
      assert_true(m->offset <= strlen(m->node->text));
  }
  /* the long chapter starts on a new page and its later pages start mid-paragraph */
  bool mid = false;
  for (guint i = 0; i < lay->page_marks->len; i++) {
    BookPageMark *m = &g_array_index(lay->page_marks, BookPageMark, i);
    if (m->node->type == BOOK_TEXT && m->offset > 0)
      mid = true;
  }
  assert_true(mid);
  /* the outline: three chapters */
  int chapters = 0;
  for (guint i = 0; i < lay->outline->len; i++)
    chapters += g_array_index(lay->outline, LayOutline, i).level == 1;
  assert_int_equal(chapters, 3);
  lay_free(lay);
  book_free(b);
}

/* No glyph run past the right edge of the text block; every link lands on
 * a destination of the layout. */
static void test_margins_links(void **state)
{
  (void)state;
  const OctavoPaper papers[] = {OCTAVO_PAPER_A4, OCTAVO_PAPER_A5, OCTAVO_PAPER_LETTER};
  for (size_t pi = 0; pi < G_N_ELEMENTS(papers); pi++) {
    Book *b = sample();
    OctavoOptions o;
    opts_init(&o);
    o.paper = papers[pi];
    Layout *lay = layout(b, &o);
    assert_non_null(lay);
    GHashTable *dests = g_hash_table_new(g_str_hash, g_str_equal);
    double maxr = 0;
    for (guint i = 0; i < lay->pages->len; i++) {
      LayPage *p = lay->pages->pdata[i];
      for (guint k = 0; k < p->items->len; k++) {
        LayItem *it = &g_array_index(p->items, LayItem, k);
        if (it->kind == LAY_DEST)
          g_hash_table_add(dests, it->dest);
        if (it->kind == LAY_GLYPHS) {
          double r = it->x_pt + pango_glyph_string_get_width(it->glyphs) / (double)PANGO_SCALE;
          assert_true(it->x_pt >= 0 && r <= lay->page_w_pt);
          assert_true(it->y_pt > 0 && it->y_pt < lay->page_h_pt);
          if (r > maxr)
            maxr = r;
        }
      }
    }
    assert_true(maxr < lay->page_w_pt - 40); /* the outer margin stays clear */
    for (guint i = 0; i < lay->pages->len; i++) {
      LayPage *p = lay->pages->pdata[i];
      for (guint k = 0; k < p->items->len; k++) {
        LayItem *it = &g_array_index(p->items, LayItem, k);
        if (it->kind == LAY_LINK && !it->uri)
          assert_true(g_hash_table_contains(dests, it->dest));
      }
    }
    assert_true(g_hash_table_contains(dests, "fn-1"));
    assert_true(g_hash_table_contains(dests, "fn-1 ref 1"));
    assert_true(g_hash_table_contains(dests, "blocks"));
    g_hash_table_destroy(dests);
    lay_free(lay);
    book_free(b);
  }
}

/* The table's header row shows again at the top of the page it runs onto. */
static void test_table_header_repeats(void **state)
{
  (void)state;
  Book *b = sample();
  OctavoOptions o;
  opts_init(&o);
  Layout *lay = layout(b, &o);
  int pages_with_header = 0;
  for (guint i = 0; i < lay->pages->len; i++) {
    LayPage *p = lay->pages->pdata[i];
    bool name = false, value = false;
    for (guint k = 0; k < p->items->len; k++) {
      LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_GLYPHS && strcmp(it->text, "Name") == 0)
        name = true;
      if (it->kind == LAY_GLYPHS && strcmp(it->text, "Value") == 0)
        value = true;
    }
    pages_with_header += name && value;
  }
  assert_true(pages_with_header >= 2);
  lay_free(lay);
  book_free(b);
}

static void test_deterministic(void **state)
{
  (void)state;
  char *t[2];
  for (int i = 0; i < 2; i++) {
    Book *b = sample();
    OctavoOptions o;
    opts_init(&o);
    o.columns = 2;
    Layout *lay = layout(b, &o);
    t[i] = lay_trace(lay);
    lay_free(lay);
    book_free(b);
  }
  assert_string_equal(t[0], t[1]);
  g_free(t[0]);
  g_free(t[1]);
}

static void test_bad_style(void **state)
{
  (void)state;
  char *path = g_build_filename(g_get_tmp_dir(), "octavo-test-bad-style.ini", NULL);
  g_file_set_contents(path, "[body]\nsize = big\n", -1, NULL);
  Book *b = sample();
  OctavoOptions o;
  opts_init(&o);
  o.style = path;
  Layout *lay = layout(b, &o);
  assert_null(lay);
  assert_int_equal(book_diag_count(b, BOOK_ERROR), 1);
  book_free(b);
  g_unlink(path);
  g_free(path);
}

static void test_empty_book(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("Empty"); /* the parser's invariant (book.h) */
  chapter(b, NULL, "ch01");
  BookChapter *c = chapter(b, "Empty", "empty");
  add(b, c->root, BOOK_PARAGRAPH, NULL); /* no text at all */
  OctavoOptions o;
  opts_init(&o);
  Layout *lay = layout(b, &o);
  assert_non_null(lay);
  assert_true(lay->pages->len >= 3);
  lay_free(lay);
  book_free(b);
}

/* A table row taller than a page breaks across pages: no text below the
 * text block, every word placed. */
static void test_tall_row(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("Tall"); /* the parser's invariant (book.h) */
  BookChapter *c = chapter(b, "Tall", "tall");
  BookNode *tab = add(b, c->root, BOOK_TABLE, NULL);
  tab->as.table.ncols = 2;
  GString *big = g_string_new(NULL);
  for (int i = 0; i < 2500; i++)
    g_string_append_printf(big, "w%d ", i);
  for (int r = 0; r < 3; r++) {
    BookNode *row = add(b, tab, BOOK_TABLE_ROW, NULL);
    row->as.row.header = r == 0;
    add(b, add(b, row, BOOK_TABLE_CELL, NULL), BOOK_TEXT, r ? "cell" : "Head");
    add(b, add(b, row, BOOK_TABLE_CELL, NULL), BOOK_TEXT, r == 1 ? big->str : "x");
  }
  OctavoOptions o;
  opts_init(&o);
  Layout *lay = layout(b, &o);
  assert_non_null(lay);
  int words = 0;
  for (guint i = 0; i < lay->pages->len; i++) {
    LayPage *p = lay->pages->pdata[i];
    for (guint k = 0; k < p->items->len; k++) {
      LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_GLYPHS) {
        assert_true(it->y_pt < lay->page_h_pt - 30);
        for (const char *q = it->text; (q = strchr(q, 'w')); q++)
          words++;
      }
    }
  }
  assert_true(words >= 2500);
  assert_true(lay->pages->len > 5);
  lay_free(lay);
  book_free(b);
  g_string_free(big, TRUE);
}

/* Deep nesting does not recurse: 2000 nested lists and quotes. */
static void test_deep_nesting(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("Deep"); /* the parser's invariant (book.h) */
  BookChapter *c = chapter(b, "Deep", "deep");
  BookNode *parent = c->root;
  for (int i = 0; i < 2000; i++) {
    BookNode *n = add(b, parent, i % 2 ? BOOK_BLOCKQUOTE : BOOK_LIST, NULL);
    if (i % 2 == 0)
      n = add(b, n, BOOK_ITEM, NULL);
    parent = n;
  }
  para(b, parent, "At the bottom.");
  OctavoOptions o;
  opts_init(&o);
  Layout *lay = layout(b, &o);
  assert_non_null(lay);
  lay_free(lay);
  book_free(b);
}

/* ---- line setting (issues 13 and 16) ---------------------------------------------- */

/* Lay out Markdown text md on paper/columns; *bp gets the book (free it
 * after the layout). */
static Layout *lay_md(const char *md, OctavoPaper paper, int columns, Book **bp)
{
  Book *b = book_new();
  OctavoOptions o;
  opts_init(&o);
  o.paper = paper;
  o.columns = columns;
  MdSource src = {.name = "t.md", .text = md, .len = strlen(md)};
  assert_true(md_parse_sources(b, &src, 1, &o));
  Layout *lay = layout(b, &o);
  assert_non_null(lay);
  *bp = b;
  return lay;
}

static void lay_md_free(Layout *lay, Book *b)
{
  lay_free(lay);
  book_free(b);
}

/* One text line of a page: its glyph runs' text and its right end. */
typedef struct {
  double y, x0, x1;
  GString *text;
} TLine;

/* The text lines of a body page, top to bottom (runs grouped by y within 3
 * points, as lay_trace does). Free with tlines_free. */
static GArray *page_lines(const LayPage *p)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(TLine));
  for (guint k = 0; k < p->items->len; k++) {
    const LayItem *it = &g_array_index(p->items, LayItem, k);
    if (it->kind != LAY_GLYPHS)
      continue;
    double w = pango_glyph_string_get_width(it->glyphs) / (double)PANGO_SCALE;
    TLine *l = out->len ? &g_array_index(out, TLine, out->len - 1) : NULL;
    if (!l || fabs(l->y - it->y_pt) > 3) {
      TLine n = {it->y_pt, it->x_pt, it->x_pt + w, g_string_new(NULL)};
      g_array_append_val(out, n);
      l = &g_array_index(out, TLine, out->len - 1);
    }
    g_string_append(l->text, it->text);
    l->x1 = MAX(l->x1, it->x_pt + w);
  }
  return out;
}

static void tlines_free(GArray *ls)
{
  for (guint i = 0; i < ls->len; i++)
    g_string_free(g_array_index(ls, TLine, i).text, TRUE);
  g_array_free(ls, TRUE);
}

/* All the text of the body pages, one line per text line. */
static char *body_text(const Layout *lay)
{
  GString *s = g_string_new(NULL);
  for (guint i = (guint)lay->front_pages; i < lay->pages->len; i++) {
    GArray *ls = page_lines(lay->pages->pdata[i]);
    for (guint k = 0; k < ls->len; k++)
      g_string_append_printf(s, "%s\n", g_array_index(ls, TLine, k).text->str);
    tlines_free(ls);
  }
  return g_string_free(s, FALSE);
}

static int count_of(const char *hay, const char *needle)
{
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* Runs of spaces collapse to one in text, never inside code. */
static void test_spaces_collapse(void **state)
{
  (void)state;
  Book *b;
  Layout *lay = lay_md("# S\n\nOne.  Two.   Three\tfour; `a  b` stays.\n", OCTAVO_PAPER_A4, 1, &b);
  char *t = body_text(lay);
  assert_non_null(strstr(t, "One. Two. Three four; a  b stays."));
  g_free(t);
  lay_md_free(lay, b);
}

/* Inline code is never hyphenated nor broken at its own hyphens when it
 * fits on a line: each option is found whole. */
static void test_code_not_hyphenated(void **state)
{
  (void)state;
  GString *md = g_string_new("# C\n\n");
  for (int i = 0; i < 12; i++)
    g_string_append(md,
                    "The reader must see `--metadata-file` whole and also `--table-of-contents` "
                    "with its hyphens, since a break there reads as part of it. ");
  Book *b;
  Layout *lay = lay_md(md->str, OCTAVO_PAPER_A5, 2, &b);
  char *t = body_text(lay);
  assert_int_equal(count_of(t, "--metadata-file"), 12);
  assert_int_equal(count_of(t, "--table-of-contents"), 12);
  assert_int_equal(count_of(t, "\xE2\x86\xAA"), 0);
  g_free(t);
  g_string_free(md, TRUE);
  lay_md_free(lay, b);
}

/* A URL note's mark sits against its word; the same URL twice in a
 * chapter is one note; the note's URL breaks only after / . - ? & =, with
 * nothing added. */
static void test_note_marks_and_urls(void **state)
{
  (void)state;
  const char *md = "# N\n\nGet it from [crates.io](https://crates.io/) as usual; "
                   "[the registry](https://crates.io/) is the same. See "
                   "[the manual](https://www.example.org/docs/manual/latest/"
                   "configuration.html?section=printing&lang=en-GB) too.\n";
  Book *b;
  Layout *lay = lay_md(md, OCTAVO_PAPER_A5, 2, &b);
  const LayPage *p = lay->pages->pdata[lay->front_pages];
  int marks = 0;
  for (guint k = 1; k < p->items->len; k++) {
    const LayItem *it = &g_array_index(p->items, LayItem, k);
    const LayItem *prev = &g_array_index(p->items, LayItem, k - 1);
    if (it->kind == LAY_GLYPHS && prev->kind == LAY_GLYPHS &&
        strcmp(it->text, "\xE2\x80\x8B"
                         "a") == 0 &&
        it->y_pt < prev->y_pt - 1) { /* a raised letter */
      marks++;
      assert_false(g_str_has_suffix(prev->text, " "));
      assert_false(g_str_has_suffix(prev->text, "\xE2\x80\xAF")); /* no narrow space either */
    }
  }
  assert_int_equal(marks, 2);
  char *t = body_text(lay);
  assert_int_equal(count_of(t, "ahttps://crates.io/"), 1);
  assert_null(strstr(t, "bhttps://crates.io/"));
  /* the manual's URL, broken over lines of the note */
  const char *u = strstr(t, "bhttps://www.example.org/");
  assert_non_null(u);
  gchar **ls = g_strsplit(u, "\n", -1);
  int nl = 0;
  /* (the URL ends with "GB": on A5 in two columns the note's 6.5 pt may
   * break it after "en-", an allowed break) */
  for (int i = 0; ls[i] && !g_str_has_suffix(ls[i], "GB"); i++, nl++) {
    char last = ls[i][strlen(ls[i]) - 1];
    assert_non_null(strchr("/.-?&=", last));
  }
  assert_true(nl >= 1);
  g_strfreev(ls);
  assert_null(strstr(t, "\xC2\xAD"));
  g_free(t);
  lay_md_free(lay, b);
}

/* The vertical rules of page p at x (0: any), merged where they touch:
 * the number of separate pieces. */
static int rule_pieces(const LayPage *p)
{
  int pieces = 0;
  double y1 = -1e9, x = -1;
  for (guint k = 0; k < p->items->len; k++) {
    const LayItem *it = &g_array_index(p->items, LayItem, k);
    if (it->kind != LAY_RULE || it->w_pt >= 2 || it->h_pt <= it->w_pt)
      continue;
    if (fabs(it->x_pt - x) > 0.01 || fabs(it->y_pt - y1) > 0.01)
      pieces++;
    x = it->x_pt;
    y1 = it->y_pt + it->h_pt;
  }
  return pieces;
}

/* A block quote's rule runs unbroken through the blocks inside it and
 * continues on the next page. */
static void test_quote_rule(void **state)
{
  (void)state;
  GString *md = g_string_new("# Q\n\n");
  for (int i = 0; i < 14; i++) /* blocks with space between them */
    g_string_append_printf(md, "%s> %s\n>\n> ```\n> code in the quote\n> ```\n", i ? ">\n" : "",
                           lorem);
  g_string_append(md, "\nAfter.\n");
  Book *b;
  Layout *lay = lay_md(md->str, OCTAVO_PAPER_A5, 1, &b);
  guint first = (guint)lay->front_pages;
  assert_true(lay->pages->len >= first + 2);
  assert_int_equal(rule_pieces(lay->pages->pdata[first]), 1);
  assert_int_equal(rule_pieces(lay->pages->pdata[first + 1]), 1);
  g_string_free(md, TRUE);
  lay_md_free(lay, b);
}

/* The footnote separator: x of the short horizontal rule above a page's
 * notes (-1: none). */
static double note_rule_x(const LayPage *p)
{
  for (guint k = 0; k < p->items->len; k++) {
    const LayItem *it = &g_array_index(p->items, LayItem, k);
    if (it->kind == LAY_RULE && fabs(it->w_pt - 72) < 0.01 && it->h_pt < 1)
      return it->x_pt;
  }
  return -1;
}

/* The separator above the footnotes sits at the side where the first
 * note's lines start: the left for English, the right for Hebrew. */
static void test_note_rule_side(void **state)
{
  (void)state;
  const char *ltr = "# N\n\nText with a note.[^a]\n\n[^a]: The note.\n";
  const char *rtl =
      "# \xD7\x94\n\n\xD7\x98\xD7\xA7\xD7\xA1\xD7\x98 \xD7\xA2\xD7\x9D "
      "\xD7\x94\xD7\xA2\xD7\xA8\xD7\x94.[^a]\n\n[^a]: \xD7\x94\xD7\xA2\xD7\xA8\xD7\x94 "
      "\xD7\x91\xD7\xA2\xD7\x91\xD7\xA8\xD7\x99\xD7\xAA.\n";
  Book *b;
  Layout *lay = lay_md(ltr, OCTAVO_PAPER_A5, 1, &b);
  double left = note_rule_x(lay->pages->pdata[lay->front_pages]);
  lay_md_free(lay, b);
  lay = lay_md(rtl, OCTAVO_PAPER_A5, 1, &b);
  double right = note_rule_x(lay->pages->pdata[lay->front_pages]);
  assert_true(left > 0 && right > 0);
  assert_true(right > left + 100); /* A5's text block is about 300 pt wide */
  assert_true(right + 72 < lay->page_w_pt);
  lay_md_free(lay, b);
}

/* A code identifier wider than the column breaks at its separators or
 * between a lower-case and a capital letter, with the continuation mark,
 * and no line runs past the column. */
static void test_long_word(void **state)
{
  (void)state;
  const char *md = "# L\n\nThe error `PandocUnsupportedExtensionErrorHandlerFactory` and the "
                   "path `vegetables::asparagus::AsparagusWithButterSauce` are long.\n";
  Book *b;
  Layout *lay = lay_md(md, OCTAVO_PAPER_A5, 2, &b);
  GArray *ls = page_lines(lay->pages->pdata[lay->front_pages]);
  int marks = 0;
  double left = 1e9;
  for (guint k = 0; k < ls->len; k++)
    left = MIN(left, g_array_index(ls, TLine, k).x0);
  for (guint k = 0; k + 1 < ls->len; k++) {
    TLine *l = &g_array_index(ls, TLine, k), *n = &g_array_index(ls, TLine, k + 1);
    if (!g_str_has_suffix(l->text->str, "\xE2\x86\xAA"))
      continue;
    marks++;
    const char *end = l->text->str + l->text->len - 3; /* the mark */
    char before = end[-1], after = n->text->str[0];
    assert_true(strchr("/.:_-", before) || (g_ascii_islower(before) && g_ascii_isupper(after)));
  }
  assert_true(marks >= 2);
  for (guint k = 0; k < ls->len; k++) /* within a column of A5 in two (under half the page) */
    assert_true(g_array_index(ls, TLine, k).x1 - g_array_index(ls, TLine, k).x0 <
                lay->page_w_pt / 2);
  tlines_free(ls);
  lay_md_free(lay, b);
}

/* A line that could only be justified with word spaces over 2.0 times
 * their width is set ragged: it ends well short of the justified lines. */
static void __attribute__((unused)) test_ragged_line(void **state)
{
  (void)state;
  const char *md = "# R\n\n- FUSE passthrough for file I/O: optimizing Filesystem in Userspace "
                   "(FUSE) for \"passthrough\" filesystems.\n- Fanotify and hierarchical storage "
                   "management: fanotify can be used for HSM, but some additions would make it "
                   "better; meanwhile, there are some deadlocks and races.\n";
  Book *b;
  Layout *lay = lay_md(md, OCTAVO_PAPER_A4, 1, &b);
  GArray *ls = page_lines(lay->pages->pdata[lay->front_pages]);
  double fuse = -1, full = -1;
  for (guint k = 0; k < ls->len; k++) {
    TLine *l = &g_array_index(ls, TLine, k);
    if (strstr(l->text->str, "FUSE passthrough"))
      fuse = l->x1;
    if (strstr(l->text->str, "Fanotify"))
      full = l->x1;
  }
  assert_true(fuse > 0 && full > 0);
  assert_true(fuse < full - 10);
  tlines_free(ls);
  lay_md_free(lay, b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trace_golden),
      cmocka_unit_test(test_seed_golden),
      cmocka_unit_test(test_pages_labels_marks),
      cmocka_unit_test(test_margins_links),
      cmocka_unit_test(test_table_header_repeats),
      cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_bad_style),
      cmocka_unit_test(test_empty_book),
      cmocka_unit_test(test_deep_nesting),
      cmocka_unit_test(test_tall_row),
      cmocka_unit_test(test_spaces_collapse),
      cmocka_unit_test(test_code_not_hyphenated),
      cmocka_unit_test(test_note_marks_and_urls),
      cmocka_unit_test(test_quote_rule),
      cmocka_unit_test(test_long_word),
      cmocka_unit_test(test_note_rule_side),
      /* test_ragged_line's paragraph is loose only at the old 425 pt measure;
       * tests/layout/ragged-line.md covers the behaviour at today's measure */
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  fonts_free(fonts);
  return rc;
}
