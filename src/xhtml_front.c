/* xhtml_front.c: the XHTML writer's front and back matter: the opening
 * chapter's heading, the title page, the cover page and the colophon
 * page, in octavo's own words for the book's language (labels.c). */
#include "xhtml_internal.h"

#include "colophon.h"
#include "labels.h"

/* The e-book's opening chapter, the text before the first chapter heading
 * (the `#` heading that became the book's title is not in it), is headed
 * by the book's title, as the PDF heads its first page (layout.c): so the
 * contents' first entry, which points to this chapter, lands on a heading
 * that reads as the entry does, and both books agree. (The alternative,
 * pointing that entry to the title page, would leave the opening text with
 * no entry and send the reader back before the contents.) The page breaks
 * at the chapter's very start go inside the heading, as in any heading. */
void xw_opening_heading(XhtmlWriter *x, BookChapter *c)
{
  char tag[4];
  g_snprintf(tag, sizeof tag, "h%d", book_outline_level(&x->heads, 1));
  start(x, tag);
  attr(x, "class", "opening");
  for (const BookNode *n = c->root; n; n = n->first_child)
    xw_marks_at_start(x, n);
  text(x, x->book->meta.title);
  end(x);
  nl(x);
}

void xw_title_block(XhtmlWriter *x)
{
  const BookMeta *m = &x->book->meta;
  start(x, "section");
  attr(x, "epub:type", "titlepage");
  attr(x, "class", "titlepage");
  attr(x, "aria-label", labels_get(xhtml_book_lang(x->book, x->opts), LABEL_TITLEPAGE));
  nl(x);
  start(x, "h1");
  attr(x, "class", "title");
  text(x, m->title);
  end(x);
  nl(x);
  if (m->subtitle && *m->subtitle) {
    start(x, "p");
    attr(x, "class", "subtitle");
    text(x, m->subtitle);
    end(x);
    nl(x);
  }
  if (m->authors->len) {
    char *by = labels_byline(xhtml_book_lang(x->book, x->opts), m->authors);
    start(x, "p");
    attr(x, "class", "author");
    text(x, by);
    end(x);
    nl(x);
    g_free(by);
  }
  /* the date as the language writes it (labels_date, as the PDF's title
   * page and cover do): "11 May 2023", "11 mai 2023" */
  char *date = labels_date(xhtml_book_lang(x->book, x->opts), m->date);
  const char *rest[][2] = {{"date", date}, {"publisher", m->publisher}, {"source", m->source}};
  for (size_t i = 0; i < G_N_ELEMENTS(rest); i++) {
    if (!rest[i][1] || !*rest[i][1])
      continue;
    start(x, "p");
    attr(x, "class", rest[i][0]);
    if (i == 2 && book_url_is_external(rest[i][1])) {
      start(x, "a");
      attr(x, "href", rest[i][1]);
      text(x, rest[i][1]);
      end(x);
    } else {
      text(x, rest[i][1]);
    }
    end(x);
    nl(x);
  }
  g_free(date);
  end(x);
  nl(x);
}

char *xhtml_title_document(XhtmlWriter *x, const char *css_href)
{
  GString *buf = xw_open_buffer(x);
  xw_doc_begin(x, x->book->meta.title, css_href, NULL, "frontmatter");
  xw_title_block(x);
  xw_doc_end(x);
  return xw_close_buffer(x, buf);
}

/* The cover fills the reader's screen: an SVG as high and as wide as the
 * page, whose viewBox is the image's own size and preserveAspectRatio
 * "xMidYMid meet", holds the image, so every reading system scales it to
 * the largest size that fits, centred, as publishers' covers do (an <img>
 * is laid out as text: epub.js 0.4 and foliate-js drew it at half the
 * screen's height). The page's own style (not book.css, which chapters
 * share) gives html, body and the section the page's full height, and
 * makes the SVG a block so no line box below it spills onto a second,
 * blank page; its max-width and max-height outrank epub.js 0.4's rule for
 * every svg (60% of the page's height, !important, on `svg` alone), which
 * is meant for figures in the text. foliate-js caps every image at its
 * page's height less its margins (an inline !important style): there the
 * cover fills that height. Without a known size, a plain <img>. */
static const char COVER_CSS[] =
    "html, body { margin: 0; padding: 0; height: 100%; }\n"
    "section.cover { margin: 0; padding: 0; height: 100%; text-align: center; }\n"
    "section.cover svg { display: block; width: 100%; height: 100%;"
    " max-width: 100% !important; max-height: 100% !important; }\n";

char *xhtml_cover_document(XhtmlWriter *x, const char *css_href, const char *img_href, int width,
                           int height)
{
  const BookMeta *m = &x->book->meta;
  const char *lang = xhtml_book_lang(x->book, x->opts);
  GString *alt = g_string_new(labels_get(lang, LABEL_COVER));
  g_string_append(alt, ": ");
  g_string_append(alt, m->title);
  char *by = labels_byline(lang, m->authors);
  if (by)
    g_string_append_printf(alt, ". %s", by);
  g_free(by);
  bool svg = width > 0 && height > 0;
  GString *buf = xw_open_buffer(x);
  xw_doc_begin(x, labels_get(lang, LABEL_COVER), css_href, svg ? COVER_CSS : NULL, "cover");
  start(x, "section");
  attr(x, "epub:type", "cover");
  attr(x, "class", "cover");
  attr(x, "aria-label", labels_get(lang, LABEL_COVER));
  nl(x);
  if (svg) {
    char box[64], w[16], h[16];
    g_snprintf(box, sizeof box, "0 0 %d %d", width, height);
    g_snprintf(w, sizeof w, "%d", width);
    g_snprintf(h, sizeof h, "%d", height);
    start(x, "svg");
    attr(x, "xmlns", "http://www.w3.org/2000/svg");
    attr(x, "xmlns:xlink", "http://www.w3.org/1999/xlink");
    attr(x, "version", "1.1");
    attr(x, "width", "100%");
    attr(x, "height", "100%");
    attr(x, "viewBox", box);
    attr(x, "preserveAspectRatio", "xMidYMid meet");
    attr(x, "role", "img");
    attr(x, "aria-label", alt->str);
    start(x, "title");
    text(x, alt->str);
    end(x);
    start(x, "image");
    attr(x, "width", w);
    attr(x, "height", h);
    attr(x, "xlink:href", img_href);
    end_void(x);
    end(x);
  } else {
    start(x, "img");
    attr(x, "src", img_href);
    attr(x, "alt", alt->str);
    end_void(x);
  }
  nl(x);
  end(x);
  nl(x);
  xw_doc_end(x);
  g_string_free(alt, TRUE);
  return xw_close_buffer(x, buf);
}

char *xhtml_colophon_document(XhtmlWriter *x, const char *css_href, const Colophon *col)
{
  const char *lang = xhtml_book_lang(x->book, x->opts);
  const char *heading = labels_get(lang, LABEL_COLOPHON);
  GString *buf = xw_open_buffer(x);
  xw_doc_begin(x, heading, css_href, NULL, "backmatter");
  start(x, "section");
  attr(x, "epub:type", "colophon");
  attr(x, "role", "doc-colophon");
  attr(x, "class", "colophon");
  attr(x, "aria-labelledby", "colophon-title");
  nl(x);
  start(x, "h1");
  attr(x, "id", "colophon-title");
  text(x, heading);
  end(x);
  nl(x);
  if (col->lines->len) {
    start(x, "dl");
    nl(x);
    for (guint i = 0; i < col->lines->len; i++) {
      const ColophonLine *l = &g_array_index(col->lines, ColophonLine, i);
      start(x, "dt");
      text(x, labels_get(lang, l->label));
      end(x);
      nl(x);
      start(x, "dd");
      if (l->link) {
        start(x, "a");
        attr(x, "href", l->value);
        text(x, l->value);
        end(x);
      } else {
        text(x, l->value);
      }
      end(x);
      nl(x);
    }
    end(x);
    nl(x);
  }
  start(x, "p");
  attr(x, "class", "made-with");
  text(x, col->made_with);
  end(x);
  nl(x);
  end(x);
  nl(x);
  xw_doc_end(x);
  return xw_close_buffer(x, buf);
}
