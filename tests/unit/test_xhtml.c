/* test_xhtml.c: the XHTML writer on hand-built models
 * (no Markdown parser involved): every node type's element, link policy,
 * footnotes, page breaks, deep nesting without recursion, front and back
 * matter. The EPUB package's tests are in test_epub.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#include "book.h"
#include "epub.h"
#include "options.h"
#include "xhtml.h"

#include "sample_book.h"

static OctavoOptions opts;
static Style style;  /* the default print style (the cover's colours) */
static Fonts *fonts; /* octavo's fonts, loaded once as main.c does */

static void test_fragment_elements(void **state)
{
  (void)state;
  Book *b = sample_book();
  GString *s = g_string_new(NULL);
  xhtml_fragment(b, &opts, s);
  const char *want[] = {
      "<p>An opening paragraph with &lt;angle&gt; &amp; ampersand.</p>",
      "<h2 id=\"chapter-one\">Chapter One</h2>",
      "<em>emphasis</em><strong>strong</strong><del>gone</del><code>x &lt; y</code>\n",
      "<a href=\"https://lwn.net/\" title=\"LWN\">LWN</a><br/>\nno link",
      "<a href=\"c2.xhtml#section-two\">to two</a>",
      "<sup class=\"footnote-ref\"><a epub:type=\"noteref\" role=\"doc-noteref\" id=\"fnref-1\" "
      "href=\"#fn-1\">1</a></sup>",
      "<ol start=\"3\">\n<li>three</li>\n<li>four</li>\n</ol>",
      "<input type=\"checkbox\" disabled=\"disabled\" checked=\"checked\"",
      "<pre tabindex=\"0\"><code class=\"language-c\"><span class=\"line\">int main(void) { return 1 &lt; 2; }\n</span></code></pre>",
      "<hr/>",
      "<blockquote>\n<p>quoted</p>\n</blockquote>",
      "<thead>\n<tr>\n<th scope=\"col\">r0c0</th>\n<th scope=\"col\" "
      "class=\"align-right\">r0c1</th>\n</tr>\n</thead>\n<tbody>",
      "<figure><img src=\"images/img-1.png\" alt=\"diagram alt\"/><figcaption>A "
      "diagram</figcaption></figure>",
      "<img src=\"images/img-2.svg\" alt=\"logo\"/><a "
      "href=\"https://example.com/remote.png\">remote</a>",
      "<div class=\"note\"><p>in a div <span>span</span></p>",
      "<aside epub:type=\"footnote\" role=\"doc-footnote\" id=\"fn-1\">",
      "<p><a class=\"footnote-label\" role=\"doc-backlink\" href=\"#fnref-1\" aria-label=\"Back to "
      "reference 1\">1.</a> A note.</p>",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
    if (!strstr(s->str, want[i]))
      print_error("missing: %s\nin:\n%s\n", want[i], s->str);
    assert_non_null(strstr(s->str, want[i]));
  }
  assert_null(strstr(s->str, "javascript"));
  /* The notes end chapter one, before chapter two starts. */
  assert_true(strstr(s->str, "fn-1\">") < strstr(s->str, "Section Two"));
  g_string_free(s, TRUE);
  book_free(b);
}

static void test_chapter_document(void **state)
{
  (void)state;
  Book *b = sample_book();
  XhtmlWriter *x = xhtml_writer_new(b, &opts, NULL);
  char *doc = xhtml_chapter_document(x, b->chapters->pdata[1], "styles/book.css");
  assert_true(g_str_has_prefix(doc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>"));
  assert_non_null(
      strstr(doc, "xmlns:epub=\"http://www.idpf.org/2007/ops\" xml:lang=\"en\" lang=\"en\""));
  assert_non_null(strstr(doc, "<section id=\"c1\" epub:type=\"chapter\" role=\"doc-chapter\" "
                              "aria-labelledby=\"chapter-one\">"));
  /* The fragment is exactly what the section holds. */
  GString *frag = g_string_new(NULL);
  xhtml_fragment(b, &opts, frag);
  char *doc1 = strstr(doc, "aria-labelledby=\"chapter-one\">\n") +
               strlen("aria-labelledby=\"chapter-one\">\n");
  char *end = strstr(doc1, "</section>\n</body>");
  assert_non_null(end);
  char *body = g_strndup(doc1, (gsize)(end - doc1));
  assert_non_null(strstr(frag->str, body));
  g_free(body);
  g_string_free(frag, TRUE);
  g_free(doc);
  xhtml_writer_free(x);
  book_free(b);
}

static void test_page_marks(void **state)
{
  (void)state;
  Book *b = sample_book();
  BookChapter *c2 = b->chapters->pdata[2];
  BookNode *t = c2->root->last_child->first_child; /* "The end." */
  GArray *pm = g_array_new(FALSE, TRUE, sizeof(BookPageMark));
  BookPageMark m = {.page = 7, .label = "7", .node = t, .offset = 4};
  g_array_append_val(pm, m);
  BookPageMark m2 = {.page = 6, .label = "vi", .node = c2->heading, .offset = 0};
  g_array_append_val(pm, m2);
  XhtmlWriter *x = xhtml_writer_new(b, &opts, pm);
  char *doc = xhtml_chapter_document(x, c2, "styles/book.css");
  assert_non_null(
      strstr(doc, "<p>The <span epub:type=\"pagebreak\" role=\"doc-pagebreak\" id=\"page-7\" "
                  "aria-label=\"7\"></span>end.</p>"));
  assert_non_null(strstr(doc, "id=\"page-6\" aria-label=\"vi\""));
  assert_int_equal(xhtml_writer_pages(x)->len, 2);
  g_free(doc);
  xhtml_writer_free(x);
  g_array_free(pm, TRUE);
  book_free(b);
}

/* 100,000 nested block quotes and emphases: no recursion, no crash. */
static void test_deep_nesting(void **state)
{
  (void)state;
  Book *b = book_new();
  BookChapter *c = book_chapter_add(b, "deep.md");
  c->id = g_strdup("deep");
  BookNode *n = c->root;
  for (int i = 0; i < 100000; i++)
    n = node(b, BOOK_BLOCKQUOTE, n);
  BookNode *p = para(b, n, "bottom ");
  n = p;
  for (int i = 0; i < 100000; i++)
    n = node(b, BOOK_EMPH, n);
  textn(b, n, "deep");
  GString *s = g_string_new(NULL);
  xhtml_fragment(b, &opts, s);
  assert_non_null(strstr(s->str, "bottom <em><em>"));
  assert_true(g_str_has_suffix(s->str, "</blockquote>\n"));
  g_string_free(s, TRUE);
  book_free(b);
}

/* Characters XML cannot carry are dropped, not written. */
static void test_xml_chars(void **state)
{
  (void)state;
  Book *b = book_new();
  BookChapter *c = book_chapter_add(b, "ctl.md");
  c->id = g_strdup("ctl");
  BookNode *p = para(b, c->root, "a\001b\014c\xef\xbf\xbe\xef\xbf\xbd\xff.");
  BookNode *l = node(b, BOOK_LINK, p);
  l->as.link.href = g_strdup("https://example.com/");
  l->as.link.title = g_strdup("t\002");
  textn(b, l, "x");
  GString *s = g_string_new(NULL);
  xhtml_fragment(b, &opts, s);
  assert_string_equal(
      s->str,
      "<p>abc\xef\xbf\xbd\xef\xbf\xbd.<a href=\"https://example.com/\" title=\"t\">x</a></p>\n");
  g_string_free(s, TRUE);
  book_free(b);
  /* Each kind of text the writer tells apart (xw_text_kind): plain ASCII,
   * characters beyond it (written as they are), what libxml2 escapes, and
   * what is repaired: U+FFFF dropped, a surrogate's bytes, an overlong form
   * and a cut character each U+FFFD per byte; all of them mixed. */
  static const char *const text[][2] = {
      {"plain", "plain"},
      {"na\xc3\xafve \xe2\x80\x94 \xf0\x9f\x98\x80", "na\xc3\xafve \xe2\x80\x94 \xf0\x9f\x98\x80"},
      {"a<b>&\"c\"\r", "a&lt;b&gt;&amp;&quot;c&quot;&#13;"},
      {"\xc3\xa9<\xef\xbf\xbfx", "\xc3\xa9&lt;x"},
      {"s\xed\xa0\x80o\xc0\x80"
       "c\xe2\x80",
       "s\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdo\xef\xbf\xbd\xef\xbf\xbd"
       "c\xef\xbf\xbd\xef\xbf\xbd"},
      {"\xef\xbf\xbd\t&\x1f\xf4\x8f\xbf\xbf", "\xef\xbf\xbd\t&amp;\xf4\x8f\xbf\xbf"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(text); i++) {
    b = book_new();
    c = book_chapter_add(b, "t.md");
    c->id = g_strdup("t");
    para(b, c->root, text[i][0]);
    s = g_string_new(NULL);
    xhtml_fragment(b, &opts, s);
    char *want = g_strdup_printf("<p>%s</p>\n", text[i][1]);
    assert_string_equal(s->str, want);
    g_free(want);
    g_string_free(s, TRUE);
    book_free(b);
  }
}

/* Raw HTML elements: void tags, href/src policy, <img> only with a
 * resource; no link nested in a link. */
static void test_html_nodes(void **state)
{
  (void)state;
  Book *b = book_new();
  BookChapter *c = book_chapter_add(b, "h.md");
  c->id = book_id_reserve(b, "h");
  BookResource *png =
      resource(b, "images/diagram.png", "diagram.png", "image/png", "images/img-1.png");
  (void)png;
  BookNode *p = para(b, c->root, "x ");
  BookNode *a = node(b, BOOK_HTML_INLINE, p);
  a->as.html.tag = g_strdup("a");
  a->as.html.attrs = g_strsplit("href|javascript:x|title|t", "|", -1);
  textn(b, a, "bad");
  BookNode *a2 = node(b, BOOK_HTML_INLINE, p);
  a2->as.html.tag = g_strdup("a");
  a2->as.html.attrs = g_strsplit("href|https://ok.example/", "|", -1);
  BookNode *img = node(b, BOOK_IMAGE, a2); /* a remote image inside a link: no <a> in <a> */
  img->as.image.src = g_strdup("https://r.example/i.png");
  textn(b, img, "remote");
  BookNode *br = node(b, BOOK_HTML_INLINE, p);
  br->as.html.tag = g_strdup("wbr");
  BookNode *hi = node(b, BOOK_HTML_INLINE, p);
  hi->as.html.tag = g_strdup("img");
  hi->as.html.attrs = g_strsplit("src|images/diagram.png|alt|raw img", "|", -1);
  BookNode *hi2 = node(b, BOOK_HTML_INLINE, p);
  hi2->as.html.tag = g_strdup("img");
  hi2->as.html.attrs = g_strsplit("src|nowhere.png|alt|gone", "|", -1);
  GString *s = g_string_new(NULL);
  xhtml_fragment(b, &opts, s);
  assert_string_equal(s->str,
                      "<p>x <a title=\"t\">bad</a><a href=\"https://ok.example/\">remote</a><wbr/>"
                      "<img src=\"images/img-1.png\" alt=\"raw img\"/>gone</p>\n");
  g_string_free(s, TRUE);
  book_free(b);
}

/* A note for the tests below: number n, defined in chapter c. */
static BookFootnote *note(Book *b, BookChapter *c, int n, const char *text)
{
  BookFootnote *f = g_new0(BookFootnote, 1);
  f->label = g_strdup_printf("n%d", n);
  f->number = n;
  f->id = g_strdup_printf("fn-%d", n);
  f->chapter = c;
  f->def = book_node_new(b, BOOK_FOOTNOTE_DEF, NULL);
  para(b, f->def, text);
  g_ptr_array_add(b->footnotes, f);
  return f;
}

static BookNode *noteref(Book *b, BookNode *parent, BookFootnote *f)
{
  BookNode *r = node(b, BOOK_FOOTNOTE_REF, parent);
  r->as.fnref.note = f;
  r->as.fnref.ref_index = ++f->nrefs;
  return r;
}

/* A footnote reference inside a link gets its own noteref link: the link
 * (and the emphasis open in it) closes before it and opens again after,
 * without an empty element when nothing follows, and a raw HTML element
 * opened again loses its id (ids stay unique). */
static void test_noteref_in_link(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("Notes in links");
  BookChapter *c = chapter(b, "c1", NULL);
  BookFootnote *f1 = note(b, c, 1, "One."), *f2 = note(b, c, 2, "Two.");
  BookNode *p = para(b, c->root, "See ");
  BookNode *l = node(b, BOOK_LINK, p);
  l->as.link.href = g_strdup("https://example.com/");
  textn(b, l, "the ");
  BookNode *st = node(b, BOOK_STRONG, l);
  textn(b, st, "docs");
  noteref(b, st, f1);
  textn(b, st, " here");
  textn(b, l, " and more");
  noteref(b, l, f2);
  noteref(b, l, f1);
  textn(b, p, " now.");
  BookNode *p2 = para(b, c->root, "Raw ");
  BookNode *a = node(b, BOOK_HTML_INLINE, p2);
  a->as.html.tag = g_strdup("a");
  a->as.html.attrs = g_new0(char *, 3);
  a->as.html.attrs[0] = g_strdup("href");
  a->as.html.attrs[1] = g_strdup("https://x.org/");
  BookNode *sp = node(b, BOOK_HTML_INLINE, a);
  sp->as.html.tag = g_strdup("span");
  sp->as.html.attrs = g_new0(char *, 3);
  sp->as.html.attrs[0] = g_strdup("id");
  sp->as.html.attrs[1] = g_strdup("s1");
  textn(b, sp, "in");
  noteref(b, sp, f2);
  textn(b, sp, " span");
  GString *s = g_string_new(NULL);
  xhtml_fragment(b, &opts, s);
  const char *want = "<p>See <a href=\"https://example.com/\">the <strong>docs</strong></a>"
                     "<sup class=\"footnote-ref\"><a epub:type=\"noteref\" role=\"doc-noteref\" "
                     "id=\"fnref-1\" href=\"#fn-1\">1</a></sup>"
                     "<a href=\"https://example.com/\"><strong> here</strong> and more</a>"
                     "<sup class=\"footnote-ref\"><a epub:type=\"noteref\" role=\"doc-noteref\" "
                     "id=\"fnref-2\" href=\"#fn-2\">2</a></sup>"
                     "<sup class=\"footnote-ref\"><a epub:type=\"noteref\" role=\"doc-noteref\" "
                     "id=\"fnref-1-2\" href=\"#fn-1\">1</a></sup>"
                     " now.</p>\n"
                     "<p>Raw <a href=\"https://x.org/\"><span id=\"s1\">in</span></a>"
                     "<sup class=\"footnote-ref\"><a epub:type=\"noteref\" role=\"doc-noteref\" "
                     "id=\"fnref-2-2\" href=\"#fn-2\">2</a></sup>"
                     "<a href=\"https://x.org/\"><span> span</span></a></p>\n";
  if (!g_str_has_prefix(s->str, want))
    print_error("got:\n%s\n", s->str);
  assert_true(g_str_has_prefix(s->str, want));
  g_string_free(s, TRUE);
  book_free(b);
}

/* A page break inside a note moves to the note's first reference (the
 * note is written at the chapter's end); one that would then come out of
 * the pages' order is left out: the page list stays in reading order. */
static void test_page_marks_in_notes(void **state)
{
  (void)state;
  Book *b = book_new();
  b->meta.title = g_strdup("Pages in notes");
  BookChapter *c = chapter(b, "c1", NULL);
  BookFootnote *f1 = note(b, c, 1, "Note one."), *f2 = note(b, c, 2, "Note two.");
  BookNode *p1 = para(b, c->root, "First page ");
  noteref(b, p1, f1);
  BookNode *p2 = para(b, c->root, "Later text ");
  noteref(b, p2, f2);
  BookNode *p3 = para(b, c->root, "Last page.");
  BookPageMark marks[] = {{2, "2", p1->first_child, 0},
                          {3, "3", f1->def->first_child->first_child, 5},
                          {4, "4", p3->first_child, 0},
                          {1, "1", f2->def->first_child->first_child, 0}};
  GArray *pm = g_array_new(FALSE, TRUE, sizeof(BookPageMark));
  g_array_append_vals(pm, marks, 4);
  XhtmlWriter *x = xhtml_writer_new(b, &opts, pm);
  char *doc = xhtml_chapter_document(x, c, "styles/book.css");
  assert_non_null(
      strstr(doc, "First page <span epub:type=\"pagebreak\" role=\"doc-pagebreak\" id=\"page-3\" "
                  "aria-label=\"3\"></span><sup class=\"footnote-ref\">"));
  char *notes = strstr(doc, "<div class=\"footnotes\">");
  assert_non_null(notes);
  assert_null(strstr(notes, "pagebreak"));
  assert_null(strstr(doc, "id=\"page-1\""));
  const GArray *pages = xhtml_writer_pages(x);
  assert_int_equal(pages->len, 3);
  for (guint i = 0; i < pages->len; i++)
    assert_int_equal(g_array_index(pages, XhtmlPage, i).page, (int)i + 2);
  g_free(doc);
  xhtml_writer_free(x);
  g_array_free(pm, TRUE);
  book_free(b);
}

/* Figures with a BOOK_FIGCAPTION, image sizes as a sanitised style, a
 * listing with its caption and file name before the code, a placeholder
 * whose caption follows as a paragraph. */
static void test_figures(void **state)
{
  (void)state;
  Book *b = book_new();
  BookChapter *c = chapter(b, "c1", "Figures");
  BookResource *png =
      resource(b, "images/diagram.png", "diagram.png", "image/png", "images/img-1.png");
  BookNode *fig = node(b, BOOK_FIGURE, c->root);
  BookNode *img = node(b, BOOK_IMAGE, fig);
  img->as.image.src = g_strdup("images/diagram.png");
  img->as.image.title = g_strdup("T");
  img->as.image.res = png;
  img->as.image.width = (BookLength){100, BOOK_LEN_PX};
  textn(b, img, "alt");
  BookNode *cap = node(b, BOOK_FIGCAPTION, fig);
  textn(b, cap, "Cap ");
  textn(b, node(b, BOOK_EMPH, cap), "x");
  BookNode *fig2 = node(b, BOOK_FIGURE, c->root);
  BookNode *img2 = node(b, BOOK_IMAGE, fig2);
  img2->as.image.src = g_strdup("images/diagram.png");
  img2->as.image.res = png;
  img2->as.image.width = (BookLength){50, BOOK_LEN_PERCENT};
  img2->as.image.height = (BookLength){20, BOOK_LEN_PX};
  BookNode *lst = node(b, BOOK_FIGURE, c->root);
  lst->as.figure.listing = true;
  lst->as.figure.file_name = g_strdup("src/<main>.rs");
  BookNode *code = node(b, BOOK_CODE_BLOCK, lst);
  code->text = g_strdup("fn main() {}\n");
  textn(b, node(b, BOOK_FIGCAPTION, lst), "Listing 1: Main");
  BookNode *miss = node(b, BOOK_FIGURE, c->root);
  BookNode *img3 = node(b, BOOK_IMAGE, miss);
  img3->as.image.src = g_strdup("gone.png");
  textn(b, img3, "gone");
  textn(b, node(b, BOOK_FIGCAPTION, miss), "Its caption");
  GString *s = g_string_new(NULL);
  xhtml_fragment(b, &opts, s);
  const char *want[] = {
      "<figure><img src=\"images/img-1.png\" alt=\"alt\" title=\"T\" style=\"width: 100px; "
      "max-width: 100%\"/>"
      "<figcaption>Cap <em>x</em></figcaption>\n</figure>",
      "<img src=\"images/img-1.png\" alt=\"\" style=\"width: 50%\"/></figure>",
      "<figure class=\"listing\"><figcaption>Listing 1: Main</figcaption>\n<p "
      "class=\"file-name\"><code>src/&lt;main&gt;.rs</code></p>\n"
      "<pre tabindex=\"0\"><code><span class=\"line\">fn main() {}\n</span></code></pre>\n</figure>",
      "<p class=\"missing-image\">gone</p>\n<p class=\"caption\">Its caption</p>",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
    if (!strstr(s->str, want[i]))
      print_error("missing: %s\nin:\n%s\n", want[i], s->str);
    assert_non_null(strstr(s->str, want[i]));
  }
  g_string_free(s, TRUE);
  book_free(b);
}

/* The front and back of the e-book: the opening chapter headed by the
 * book's title (the HTML fragment keeps the source), the title page's
 * byline and date in the book's language, the cover in its SVG wrapper,
 * and the colophon. */
static void test_front_and_back(void **state)
{
  (void)state;
  Book *b = sample_book();
  XhtmlWriter *x = xhtml_writer_new(b, &opts, false);
  char *doc = xhtml_chapter_document(x, b->chapters->pdata[0], "styles/book.css");
  assert_non_null(strstr(doc, "aria-label=\"A Hand-Made Book\">\n<h1 class=\"opening\">A Hand-Made "
                              "Book</h1>\n<p>An opening"));
  g_free(doc);
  doc = xhtml_chapter_document(x, b->chapters->pdata[1], "styles/book.css");
  assert_null(strstr(doc, "class=\"opening\""));
  g_free(doc);
  GString *frag = g_string_new(NULL);
  xhtml_fragment(b, &opts, frag);
  assert_null(strstr(frag->str, "class=\"opening\""));
  g_string_free(frag, TRUE);

  doc = xhtml_title_document(x, "styles/book.css");
  assert_non_null(strstr(doc, "<p class=\"author\">By Ada Writer</p>"));
  assert_non_null(strstr(doc, "<p class=\"date\">11 May 2023</p>"));
  g_free(doc);

  doc = xhtml_cover_document(x, "styles/book.css", "cover.png", 1000, 1500);
  assert_non_null(strstr(
      doc, "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
           "version=\"1.1\" width=\"100%\" height=\"100%\" viewBox=\"0 0 1000 1500\" "
           "preserveAspectRatio=\"xMidYMid meet\" role=\"img\" "
           "aria-label=\"Cover: A Hand-Made Book. By Ada Writer\">"));
  assert_non_null(
      strstr(doc, "<image width=\"1000\" height=\"1500\" xlink:href=\"cover.png\"/></svg>"));
  assert_non_null(strstr(doc, "section.cover svg { display: block;"));
  assert_null(strstr(doc, "<img"));
  g_free(doc);
  doc = xhtml_cover_document(x, "styles/book.css", "cover.jpg", 0, 0);
  assert_non_null(
      strstr(doc, "<img src=\"cover.jpg\" alt=\"Cover: A Hand-Made Book. By Ada Writer\"/>"));
  assert_null(strstr(doc, "<svg"));
  g_free(doc);

  /* no SOURCE_DATE_EPOCH: the date is the text's (2023-05-11), labelled so */
  g_unsetenv("SOURCE_DATE_EPOCH");
  Colophon *col = colophon_new(b, "en", "urn:uuid:x", 1683763200, fonts);
  assert_int_equal(g_array_index(col->lines, ColophonLine, 1).label, LABEL_DATED);
  assert_int_equal(col->lines->len, 3);
  assert_int_equal(g_array_index(col->lines, ColophonLine, 0).label, LABEL_IDENTIFIER);
  assert_string_equal(g_array_index(col->lines, ColophonLine, 1).value, "11 May 2023");
  assert_string_equal(g_array_index(col->lines, ColophonLine, 2).value,
                      "Charis SIL and DejaVu Sans Mono");
  assert_string_equal(col->made_with, "Made with octavo " OCTAVO_VERSION);
  doc = xhtml_colophon_document(x, "styles/book.css", col);
  assert_non_null(strstr(
      doc,
      "<body epub:type=\"backmatter\">\n<section epub:type=\"colophon\" role=\"doc-colophon\""));
  assert_non_null(
      strstr(doc, "<dt>Identifier</dt>\n<dd>urn:uuid:x</dd>\n<dt>Dated</dt>\n<dd>11 May 2023</dd>\n"
                  "<dt>Typefaces</dt>\n<dd>Charis SIL and DejaVu Sans Mono</dd>"));
  assert_non_null(strstr(doc, "<p class=\"made-with\">Made with octavo "));
  g_free(doc);
  colophon_free(col);
  xhtml_writer_free(x);

  /* in French, with a source and no fonts */
  g_free(b->meta.lang);
  b->meta.lang = g_strdup("fr");
  b->meta.source = g_strdup("https://example.com/report");
  x = xhtml_writer_new(b, &opts, false);
  doc = xhtml_title_document(x, "styles/book.css");
  assert_non_null(strstr(doc, "<p class=\"author\">Par Ada Writer</p>"));
  assert_non_null(strstr(doc, "<p class=\"date\">11 mai 2023</p>"));
  g_free(doc);
  col = colophon_new(b, "fr", "urn:uuid:x", 1683763200, NULL);
  assert_int_equal(col->lines->len, 3);
  const ColophonLine *src = &g_array_index(col->lines, ColophonLine, 0);
  assert_int_equal(src->label, LABEL_SOURCE);
  assert_true(src->link);
  doc = xhtml_colophon_document(x, "styles/book.css", col);
  assert_non_null(strstr(doc, "<h1 id=\"colophon-title\">Colophon</h1>"));
  assert_non_null(
      strstr(doc, "<dt>Source</dt>\n<dd><a "
                  "href=\"https://example.com/report\">https://example.com/report</a></dd>"));
  assert_non_null(strstr(doc, "<dt>Daté du</dt>\n<dd>11 mai 2023</dd>"));
  assert_null(strstr(doc, "Polices"));
  assert_non_null(strstr(doc, "Réalisé avec octavo "));
  g_free(doc);
  colophon_free(col);
  xhtml_writer_free(x);
  book_free(b);
}

int main(void)
{
  octavo_options_init(&opts);
  char *datadir = g_strdup(top());
  opts.datadir = datadir;
  style_load(&style, NULL, opts.paper, 1, NULL);
  fonts = fonts_load(datadir, NULL);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_front_and_back),      cmocka_unit_test(test_fragment_elements),
      cmocka_unit_test(test_chapter_document),    cmocka_unit_test(test_page_marks),
      cmocka_unit_test(test_deep_nesting),        cmocka_unit_test(test_xml_chars),
      cmocka_unit_test(test_html_nodes),          cmocka_unit_test(test_noteref_in_link),
      cmocka_unit_test(test_page_marks_in_notes), cmocka_unit_test(test_figures),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  fonts_free(fonts);
  style_clear(&style);
  g_free(datadir);
  return rc;
}
