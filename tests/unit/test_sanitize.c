/* test_sanitize.c: raw HTML from Markdown -> allow-listed model nodes
 * (sanitize.c) with cmocka: through the parser (the way cmark-gfm hands raw
 * HTML over) and through sanitize.h's own functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <glib.h>
#include <string.h>

#include "book.h"
#include "sanitize.h"

#include "parse_helpers.h"

static void test_raw_html(void **state)
{
  (void)state;
  Book *b = parse("# T\n\n"
                  "Text <span class=\"k\" onclick=\"evil()\" style=\"x\">kept *em*</span> "
                  "<script>alert(1)</script> <b><i>mis</b>nested</i> <foo>foo text</foo> "
                  "<a href=\"javascript:x()\">jslink</a> <!-- comment --> <em>unclosed\n\n"
                  "<div id=\"box\" onmouseover=\"x\">\n\n*Markdown* in a div.\n\n</div>\n\n"
                  "<table><tr><td colspan=\"2\" onclick=\"y\">cell</td></tr></table>\n\n"
                  "<style>p { color: red }</style>\n\n"
                  "<iframe src=\"https://evil\"></iframe>\n\n"
                  "<p>para <unknown>inner</unknown> <img src=\"x.png\" onerror=\"z\" alt=\"pic\"> "
                  "<a href=\"#box\">to box</a></p>\n\n"
                  "</section>\n");
  assert_int_equal(book_diag_count(b, BOOK_ERROR), 0);
  gchar *d = dump(b);
  /* Nothing dangerous anywhere in the model. */
  assert_null(strstr(d, "script"));
  assert_null(strstr(d, "alert"));
  assert_null(strstr(d, "onclick"));
  assert_null(strstr(d, "onmouseover"));
  assert_null(strstr(d, "onerror"));
  assert_null(strstr(d, "style"));
  assert_null(strstr(d, "color: red"));
  assert_null(strstr(d, "iframe"));
  assert_null(strstr(d, "javascript"));
  assert_null(strstr(d, "comment"));
  g_free(d);
  BookNode *span = html_node(b, "span");
  assert_non_null(span);
  assert_string_equal(attr(span, "class"), "k");
  assert_null(attr(span, "onclick"));
  assert_int_equal(span->first_child->type, BOOK_TEXT);
  assert_int_equal(span->last_child->type, BOOK_EMPH); /* Markdown inside inline HTML */
  assert_diag_at(b, BOOK_WARNING, "onclick", 3, 6);
  assert_diag_at(b, BOOK_WARNING, "<script>", 3, 0);
  /* Misnested <b><i></b></i>: i is closed with b; "nested" is outside. */
  BookNode *bn = html_node(b, "b");
  assert_non_null(bn);
  BookNode *in = html_node(b, "i");
  assert_ptr_equal(in->parent, bn);
  assert_string_equal(in->first_child->text, "mis");
  assert_string_equal(bn->next->text, "nested");
  assert_diag_at(b, BOOK_WARNING, "</i>", 3, 0);
  /* Unknown elements: dropped, text kept. */
  char *t = chapter_text(b, 0);
  assert_non_null(strstr(t, "foo text"));
  assert_non_null(strstr(t, "jslink"));
  assert_non_null(strstr(t, "inner"));
  assert_non_null(strstr(t, "cell"));
  g_free(t);
  /* An unclosed <em> closes at the end of its paragraph. */
  BookNode *em = html_node(b, "em");
  assert_int_equal(em->parent->type, BOOK_PARAGRAPH);
  /* A <div> block holds the Markdown that follows until </div>. */
  BookNode *div = html_node(b, "div");
  assert_int_equal(div->type, BOOK_HTML_BLOCK);
  assert_string_equal(attr(div, "id"), "box");
  assert_int_equal(div->first_child->type, BOOK_PARAGRAPH);
  assert_int_equal(div->first_child->first_child->type, BOOK_EMPH);
  assert_int_equal(div->parent->type, BOOK_ROOT);
  BookNode *td = html_node(b, "td");
  assert_string_equal(attr(td, "colspan"), "2");
  assert_null(attr(td, "onclick"));
  assert_ptr_equal(td->parent, html_node(b, "tr"));
  /* <img> and <a href> in HTML become model images and links. */
  BookNode *img = nth_node(b, BOOK_IMAGE, 0);
  assert_string_equal(img->as.image.src, "x.png");
  assert_string_equal(img->first_child->text, "pic");
  BookNode *link = nth_node(b, BOOK_LINK, 0);
  assert_string_equal(link->as.link.href, "#box");
  assert_true(link->as.link.internal);
  assert_string_equal(link->as.link.fragment, "box");
  assert_diag_at(b, BOOK_WARNING, "</section>", 0, 0);
  assert_diag_at(b, BOOK_WARNING, "onerror", 0, 0);
  /* Every HTML node is well formed: tag names from the allow-list only. */
  static const char *const allowed[] = {"span",  "b",  "i",  "em", "div",
                                        "table", "tr", "td", "p",  NULL};
  for (int ty = BOOK_HTML_BLOCK; ty <= BOOK_HTML_INLINE; ty += BOOK_HTML_INLINE - BOOK_HTML_BLOCK)
    for (int i = 0;; i++) {
      BookNode *n = nth_node(b, (BookNodeType)ty, i);
      if (!n)
        break;
      bool ok = false;
      for (const char *const *a = allowed; *a; a++)
        ok |= strcmp(*a, n->as.html.tag) == 0;
      if (!ok)
        fprintf(stderr, "unexpected tag %s\n", n->as.html.tag);
      assert_true(ok);
    }
  book_free(b);
}

static void test_html_containers(void **state)
{
  (void)state;
  /* An HTML block that leaves a container open takes the Markdown that
   * follows, up to its closing tag(s). */
  Book *b =
      parse("# T\n\n<details>\n<summary>Click</summary>\n\nHidden *md*.\n\n</details>\n\nAfter.\n\n"
            "<div class=\"a\"><div class=\"b\">\n\nInner.\n\n</div></div>\n\nOut.\n\n"
            "<section>\n\n## Chapter\n\nText.\n");
  BookNode *det = html_node(b, "details");
  assert_non_null(det);
  assert_string_equal(det->first_child->as.html.tag, "summary");
  assert_int_equal(det->last_child->type, BOOK_PARAGRAPH);
  assert_int_equal(det->next->type, BOOK_PARAGRAPH); /* After. */
  BookNode *inner = nth_node(b, BOOK_PARAGRAPH, 2);
  assert_string_equal(inner->first_child->text, "Inner.");
  assert_string_equal(inner->parent->as.html.tag, "div");
  assert_string_equal(attr(inner->parent, "class"), "b");
  assert_string_equal(attr(inner->parent->parent, "class"), "a");
  assert_int_equal(inner->parent->parent->parent->type, BOOK_ROOT);
  BookNode *out = nth_node(b, BOOK_PARAGRAPH, 3);
  assert_string_equal(out->first_child->text, "Out.");
  assert_int_equal(out->parent->type, BOOK_ROOT);
  /* A chapter heading closes what is left open: chapters stay top level. */
  assert_int_equal(b->chapters->len, 2);
  assert_int_equal(((BookChapter *)b->chapters->pdata[1])->heading->parent->type, BOOK_ROOT);
  assert_int_equal(book_diag_count(b, BOOK_WARNING), 0);
  book_free(b);

  /* Links never nest, even when raw HTML tries. */
  b = parse("# T\n\n[x <a href=\"https://a\">in</a> y](https://b) <a "
            "href=\"https://c\">[md](https://d)</a>\n");
  assert_string_equal(nth_node(b, BOOK_LINK, 0)->as.link.href, "https://b");
  assert_string_equal(nth_node(b, BOOK_LINK, 1)->as.link.href, "https://c");
  assert_null(nth_node(b, BOOK_LINK, 2));
  assert_diag_at(b, BOOK_WARNING, "inside a link", 3, 0);
  book_free(b);
}

static void test_content_models(void **state)
{
  (void)state;
  /* Raw HTML that is well formed but breaks HTML's content models is mended:
   * the misplaced element loses its tags, its text stays. */
  Book *b = parse("# T\n\n<li>stray item</li>\n\n<summary>stray summary</summary>\n\n"
                  "<details>no summary</details>\n\n<ul>loose text<li>a</li></ul>\n\n"
                  "<p>para <details><summary>s</summary>inner</details> end</p>\n\n"
                  "<td>cell</td>\n\n<details><summary>ok</summary>kept</details>\n");
  assert_null(html_node(b, "li"));
  assert_null(html_node(b, "ul"));
  assert_null(html_node(b, "td"));
  BookNode *det = html_node(b, "details");
  assert_non_null(det); /* only the valid one is left */
  assert_string_equal(det->first_child->as.html.tag, "summary");
  assert_string_equal(det->first_child->first_child->text, "ok");
  assert_null(det->next);
  char *t = chapter_text(b, 0);
  for (const char *w = "stray item|stray summary|no summary|loose text|inner|cell|kept"; *w;) {
    const char *e = strchr(w, '|');
    char *word = g_strndup(w, e ? (gsize)(e - w) : strlen(w));
    if (!strstr(t, word))
      fprintf(stderr, "lost: %s in %s\n", word, t);
    assert_non_null(strstr(t, word));
    g_free(word);
    w = e ? e + 1 : w + strlen(w);
  }
  g_free(t);
  /* No block element is left inside a paragraph-like parent. */
  for (int i = 0;; i++) {
    BookNode *n = nth_node(b, BOOK_HTML_BLOCK, i);
    if (!n)
      break;
    assert_false(n->parent->type == BOOK_PARAGRAPH);
    if (n->parent->type == BOOK_HTML_BLOCK)
      assert_string_not_equal(n->parent->as.html.tag, "p");
  }
  assert_diag_at(b, BOOK_WARNING, "<li> outside its proper parent", 3, 0);
  book_free(b);
}

static void test_url_allowed(void **state)
{
  (void)state;
  assert_true(san_url_allowed("https://x"));
  assert_true(san_url_allowed("HTTP://x"));
  assert_true(san_url_allowed("mailto:a@b"));
  assert_true(san_url_allowed("rel/path.html#x"));
  assert_true(san_url_allowed("#frag"));
  assert_false(san_url_allowed("javascript:alert(1)"));
  assert_false(san_url_allowed(" JaVa\tScRiPt:alert(1)"));
  assert_false(san_url_allowed("data:text/html,x"));
  assert_false(san_url_allowed("file:///etc/passwd"));
  assert_false(san_url_allowed("vbscript:x"));
}

/* The one element table: void elements, allowed elements and attributes. */
static void test_element_table(void **state)
{
  (void)state;
  static const char *const voids[] = {"br",   "hr",   "img",    "wbr",   "col", "input",
                                      "meta", "link", "source", "track", "area"};
  for (size_t i = 0; i < G_N_ELEMENTS(voids); i++)
    assert_true(san_element_is_void(voids[i]));
  assert_true(san_element_is_void("BR"));
  assert_false(san_element_is_void("p"));
  assert_false(san_element_is_void("a"));
  assert_false(san_element_is_void("blink"));
  assert_false(san_element_is_void(NULL));
  assert_true(san_element_is_allowed("div"));
  assert_true(san_element_is_allowed("span"));
  assert_true(san_element_is_allowed("img"));
  assert_false(san_element_is_allowed("script"));
  assert_false(san_element_is_allowed("input"));
  assert_false(san_element_is_allowed("html"));
  assert_false(san_element_is_allowed("blink"));
  assert_true(san_attr_is_allowed("td", "colspan"));
  assert_true(san_attr_is_allowed("span", "id"));
  assert_true(san_attr_is_allowed("a", "href"));
  assert_true(san_attr_is_allowed("img", "width"));
  assert_false(san_attr_is_allowed("span", "onclick"));
  assert_false(san_attr_is_allowed("span", "style"));
  assert_false(san_attr_is_allowed("p", "colspan"));
  assert_false(san_attr_is_allowed("script", "id"));
}

/* san_fragment and san_closing_tags on the pieces cmark-gfm hands over. */
static void test_fragments(void **state)
{
  (void)state;
  Book *b = book_new();
  BookPos pos = {book_intern(b, "t.md"), 1, 1};
  BookNode *n = NULL;
  char *name = NULL;
  assert_int_equal(san_fragment(b, "<span class=\"k\" onclick=\"x\">", false, &pos, &n, &name),
                   SAN_OPEN);
  assert_int_equal(n->type, BOOK_HTML_INLINE);
  assert_string_equal(n->as.html.tag, "span");
  assert_string_equal(n->as.html.attrs[0], "class");
  assert_null(n->as.html.attrs[2]);
  book_node_free(n);
  assert_int_equal(san_fragment(b, "</SPAN>", false, &pos, &n, &name), SAN_CLOSE);
  assert_string_equal(name, "span");
  g_free(name);
  assert_int_equal(san_fragment(b, "<br>", false, &pos, &n, &name), SAN_VOID);
  assert_int_equal(n->type, BOOK_LINEBREAK);
  book_node_free(n);
  assert_int_equal(san_fragment(b, "<script>", false, &pos, &n, &name), SAN_SUPPRESS);
  assert_true(san_is_marker(n));
  book_node_free(n);
  assert_int_equal(san_fragment(b, "<!-- c -->", false, &pos, &n, &name), SAN_DROP);
  assert_int_equal(san_fragment(b, "<div id=\"x\">", true, &pos, &n, &name), SAN_OPEN);
  assert_int_equal(n->type, BOOK_HTML_BLOCK);
  book_node_free(n);
  assert_int_equal(san_fragment(b, "<p>whole</p>", true, &pos, &n, &name), SAN_NONE);
  char **c = san_closing_tags("</div>\n </DIV>");
  assert_non_null(c);
  assert_string_equal(c[0], "div");
  assert_string_equal(c[1], "div");
  assert_null(c[2]);
  g_strfreev(c);
  assert_null(san_closing_tags("</div>text"));
  book_free(b);
}

/* <img> sizes: attributes, then style (which wins); only px, em and % within
 * bounds; the rest dropped with one warning. */
static void test_image_sizes(void **state)
{
  (void)state;
  static const struct {
    const char *html;
    BookLenUnit wu;
    double w;
    BookLenUnit hu;
    BookLenUnit mwu;
    bool warned;
  } cases[] = {
      {"<img src=\"x.png\" width=\"100\" height=\"50\">", BOOK_LEN_PX, 100, BOOK_LEN_PX,
       BOOK_LEN_NONE, false},
      {"<img src=\"x.png\" width=\"50%\">", BOOK_LEN_PERCENT, 50, BOOK_LEN_NONE, BOOK_LEN_NONE,
       false},
      {"<img src=\"x.png\" width=\"100\" style=\"width: 2.5em\">", BOOK_LEN_EM, 2.5, BOOK_LEN_NONE,
       BOOK_LEN_NONE, false},
      {"<img src=\"x.png\" style=\"max-width:100% ; height: auto\">", BOOK_LEN_NONE, 0,
       BOOK_LEN_NONE, BOOK_LEN_PERCENT, false},
      {"<img src=\"x.png\" style=\"WIDTH: 30px !important\">", BOOK_LEN_PX, 30, BOOK_LEN_NONE,
       BOOK_LEN_NONE, false},
      {"<img src=\"x.png\" width=\"0\" height=\"-4\">", BOOK_LEN_NONE, 0, BOOK_LEN_NONE,
       BOOK_LEN_NONE, true},
      {"<img src=\"x.png\" width=\"200%\" style=\"width: 1e9px\">", BOOK_LEN_NONE, 0, BOOK_LEN_NONE,
       BOOK_LEN_NONE, true},
      {"<img src=\"x.png\" style=\"width: calc(10px + 1em); color: red\">", BOOK_LEN_NONE, 0,
       BOOK_LEN_NONE, BOOK_LEN_NONE, true},
      {"<img src=\"x.png\" style=\"width: 3cm\">", BOOK_LEN_NONE, 0, BOOK_LEN_NONE, BOOK_LEN_NONE,
       true},
      {"<img src=\"x.png\" width=\"nan\" style=\"width: inf%\">", BOOK_LEN_NONE, 0, BOOK_LEN_NONE,
       BOOK_LEN_NONE, true},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    Book *b = parse(cases[i].html);
    BookNode *img = nth_node(b, BOOK_IMAGE, 0);
    assert_non_null(img);
    if (img->as.image.width.unit != cases[i].wu)
      print_error("case %zu: width unit %d\n", i, img->as.image.width.unit);
    assert_int_equal(img->as.image.width.unit, cases[i].wu);
    if (cases[i].wu != BOOK_LEN_NONE)
      assert_true(img->as.image.width.value == cases[i].w);
    assert_int_equal(img->as.image.height.unit, cases[i].hu);
    assert_int_equal(img->as.image.max_width.unit, cases[i].mwu);
    assert_int_equal(find_diag(b, BOOK_WARNING, "<img> size") != NULL, cases[i].warned);
    assert_null(find_diag(b, BOOK_WARNING,
                          "dropped attribute")); /* width, height, style are read, not dropped */
    book_free(b);
  }
}

/* san_svg_clean: what an SVG copied into the EPUB keeps and loses. */
static void test_svg_clean(void **state)
{
  (void)state;
  const char *svg =
      "<svg xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink' "
      "onload='x()'>"
      "<style>@import 'http://e/a.css'; .a{fill:url(http://e/g#g);stroke:url(#g)}</style>"
      "<style>@\\69mport 'x';</style>"
      "<rect style='fill:red;background:url(\"http://e/b.png\")' fill='url(#g)'/>"
      "<rect fill='url(http://e/f.svg#x)' mask='url( #m )'/>"
      "<use xlink:href='#g'/><use xlink:href='http://e/u.svg#x'/><image href='pic.png'/>"
      "<image href='data:image/png;base64,AAAA'/><image href=' JaVa\tScRiPt:x()'/>"
      "<a xlink:href='https://example.org/'><text>web</text></a><a href='javascript:y()'>js</a>"
      "<animate attributeName='xlink:href' to='https://e/'/>"
      "<set attributeName='fill' to='javascript:z'/><animate attributeName='fill' to='url(#g)'/>"
      "<foreignObject><div xmlns='http://www.w3.org/1999/xhtml'>kept<iframe src='http://e/'/>"
      "<img src='http://e/i.png'/><img src='data:image/png;base64,AAAA' alt=''/>"
      "<object data='x'/></div></foreignObject>"
      "<script>s()</script><handler>h()</handler><iframe xmlns='' src='x'/></svg>";
  GBytes *b = san_svg_clean(svg, strlen(svg));
  assert_non_null(b);
  gsize n;
  char *out = g_strndup(g_bytes_get_data(b, &n), g_bytes_get_size(b));
  static const char *const gone[] = {"onload",  "http://e/", "@import", "pic.png", "JaVa",
                                     "javascript", "<iframe", "<object", "<script", "<handler",
                                     "attributeName=\"xlink:href\"", "\\69"};
  for (size_t i = 0; i < G_N_ELEMENTS(gone); i++)
    if (strstr(out, gone[i]))
      fail_msg("%s is still in %s", gone[i], out);
  static const char *const kept[] = {"stroke:url(#g)", "fill=\"url(#g)\"", "mask=\"url( #m )\"",
                                     "xlink:href=\"#g\"", "data:image/png;base64,AAAA",
                                     "https://example.org/", "xlink:title=\"web\"", "kept",
                                     "<animate attributeName=\"fill\" to=\"url(#g)\"/>"};
  for (size_t i = 0; i < G_N_ELEMENTS(kept); i++)
    if (!strstr(out, kept[i]))
      fail_msg("%s is not in %s", kept[i], out);
  g_free(out);
  g_bytes_unref(b);
  assert_null(san_svg_clean("<html/>", 7));
  assert_null(san_svg_clean("<svg", 4));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_raw_html),       cmocka_unit_test(test_html_containers),
      cmocka_unit_test(test_content_models), cmocka_unit_test(test_url_allowed),
      cmocka_unit_test(test_element_table),  cmocka_unit_test(test_fragments),
      cmocka_unit_test(test_image_sizes),    cmocka_unit_test(test_svg_clean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
