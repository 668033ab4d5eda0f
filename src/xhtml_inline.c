/* xhtml_inline.c: the inline nodes of the XHTML writer: text, emphasis,
 * code, links, images, raw HTML elements and footnote references.
 *
 * Link policy: internal links point at "<chapter>.xhtml#id" (or "#id" in the
 * same document); external links are kept for http, https and mailto only;
 * anything else (unresolved relative links, other schemes) keeps its text
 * and loses the link, because an EPUB must not refer to files it does not
 * contain. Images without a resource show their alt text (remote ones as a
 * link to the URL). A link holds no link: a footnote reference inside one
 * closes the link (and the inline elements open in it) before its own
 * noteref link and opens them again after it. */
#include "xhtml_internal.h"

#include "sanitize.h"

/* The attributes of a cleaned raw HTML element (not img): href and src
 * follow the link policy; with_id false leaves out the id (an element
 * written a second time, see reopen_inline). */
static void html_attrs(XhtmlWriter *x, const BookNode *n, bool with_id)
{
  for (char **a = n->as.html.attrs; a && a[0] && a[1]; a += 2) {
    if (strcmp(a[0], "href") == 0 && !book_url_is_external(a[1]) && a[1][0] != '#')
      continue;
    if (strcmp(a[0], "src") == 0 && !book_url_is_external(a[1]))
      continue;
    if (!with_id && strcmp(a[0], "id") == 0)
      continue;
    attr(x, a[0], a[1]);
  }
}

/* The href of a link to (chapter, fragment) from the current document, or
 * NULL. Caller frees. */
char *xw_internal_href(XhtmlWriter *x, BookChapter *c, const char *frag)
{
  if (x->mode == MODE_SINGLE) {
    if (frag)
      return g_strconcat("#", frag, NULL);
    return c && c->id ? g_strconcat("#", c->id, NULL) : NULL;
  }
  if (!c)
    return frag ? g_strconcat("#", frag, NULL) : NULL;
  if (c == x->cur && frag)
    return g_strconcat("#", frag, NULL);
  char *file = xhtml_chapter_href(c);
  if (!frag)
    return file;
  char *h = g_strconcat(file, "#", frag, NULL);
  g_free(file);
  return h;
}

/* The href a BOOK_LINK gets, or NULL when it keeps only its text. */
static char *link_href(XhtmlWriter *x, const BookNode *n)
{
  if (n->as.link.internal) {
    /* A fragment no element of the book carries would be a broken link:
     * point at the chapter instead. */
    const char *frag = n->as.link.fragment;
    if (frag && !g_hash_table_contains(x->book->ids, frag))
      frag = NULL;
    return n->as.link.chapter ? xw_internal_href(x, n->as.link.chapter, frag) : NULL;
  }
  if (book_url_is_external(n->as.link.href))
    return g_strdup(n->as.link.href);
  return NULL;
}

static BookResource *resource_for_src(Book *b, const char *src)
{
  for (guint i = 0; src && i < b->resources->len; i++) {
    BookResource *r = b->resources->pdata[i];
    if (g_strcmp0(r->src, src) == 0)
      return r;
  }
  return NULL;
}

/* Where an image resource is referred to from a content document: its
 * place in the EPUB, or in the one-file XHTML a data: URL, so that the
 * document stands on its own wherever it is written. NULL when the file
 * cannot be read. Caller frees. */
static char *resource_href(XhtmlWriter *x, const BookResource *r)
{
  if (x->mode != MODE_SINGLE)
    return g_strdup(r->href);
  char *data = NULL;
  gsize len = 0;
  if (!sandbox_read_known(x->book->sandbox, r->path, &data, &len, NULL))
    return NULL;
  char *b64 = g_base64_encode((const guchar *)data, len);
  char *url = g_strdup_printf("data:%s;base64,%s", r->media_type, b64);
  g_free(b64);
  g_free(data);
  return url;
}

/* True when n opened an element that is still open (an inline ancestor
 * of the node being written); *link when that element is an <a>. */
static bool inline_open(const XhtmlWriter *x, const BookNode *n, bool *link)
{
  *link = false;
  switch (n->type) {
  case BOOK_EMPH:
  case BOOK_STRONG:
  case BOOK_STRIKE: return true;
  case BOOK_LINK:
    for (guint i = 0; i < x->links->len; i++)
      if (x->links->pdata[i] == n)
        return *link = true;
    return false; /* a link inside a link writes no element */
  case BOOK_HTML_INLINE: *link = g_strcmp0(n->as.html.tag, "a") == 0; return true;
  default: return false;
  }
}

/* Write again the element n opened (see inline_open), without its id. */
static void reopen_inline(XhtmlWriter *x, const BookNode *n)
{
  switch (n->type) {
  case BOOK_EMPH: start(x, "em"); break;
  case BOOK_STRONG: start(x, "strong"); break;
  case BOOK_STRIKE: start(x, "del"); break;
  case BOOK_LINK: {
    char *href = link_href(x, n);
    start(x, "a");
    attr(x, "href", href);
    attr(x, "title", n->as.link.title);
    g_free(href);
    break;
  }
  case BOOK_HTML_INLINE:
    start(x, n->as.html.tag ? n->as.html.tag : "span");
    html_attrs(x, n, false);
    break;
  default: break;
  }
}

/* Before the content that follows a footnote reference inside a link:
 * the elements closed for it open again. */
void xw_reopen_closed(XhtmlWriter *x)
{
  for (guint i = 0; i < x->closed->len; i++)
    reopen_inline(x, x->closed->pdata[i]);
  g_ptr_array_set_size(x->closed, 0);
}

/* A footnote reference n inside a link: close the open inline elements up
 * to and including the outermost <a>, innermost first, and keep them in
 * x->closed to reopen. False (nothing closed) when the link's <a> is not
 * reached through inline elements alone (raw HTML blocks around it). */
static bool close_for_noteref(XhtmlWriter *x, const BookNode *n)
{
  GPtrArray *chain = g_ptr_array_new();
  int links = 0;
  bool link;
  for (const BookNode *p = n->parent; p && links < x->in_link; p = p->parent) {
    if (inline_open(x, p, &link)) {
      g_ptr_array_add(chain, (gpointer)p);
      links += link;
    } else if (!book_node_is_inline(p->type)) {
      break;
    }
  }
  bool ok = links == x->in_link;
  if (ok) {
    for (guint i = 0; i < chain->len; i++) {
      end(x);
      g_ptr_array_insert(x->closed, 0, chain->pdata[i]);
    }
  }
  g_ptr_array_free(chain, TRUE);
  return ok;
}

static void write_footnote_ref(XhtmlWriter *x, const BookNode *n)
{
  BookFootnote *f = n->as.fnref.note;
  if (!f) /* an unresolved reference stays as its source text */
    return;
  /* No link in a link: a reference inside one closes it (and what is open
   * inside it) and opens it again after the reference. */
  bool linked = !x->in_link || x->closed->len || close_for_noteref(x, n);
  char *href = xw_internal_href(x, f->chapter, f->id);
  char id[48], num[16];
  xw_fnref_id(x, f->number, n->as.fnref.ref_index, id, sizeof id);
  g_snprintf(num, sizeof num, "%d", f->number);
  start(x, "sup");
  attr(x, "class", "footnote-ref");
  if (!linked) {
    attr(x, "id", id); /* no link inside a link, but a target for the backlink */
    text(x, num);
  } else {
    start(x, "a");
    attr(x, "epub:type", "noteref");
    attr(x, "role", "doc-noteref");
    attr(x, "id", id);
    attr(x, "href", href);
    text(x, num);
    end(x);
  }
  end(x);
  g_free(href);
}

static void append_length(GString *s, const char *prop, BookLength l)
{
  static const char *const units[] = {"", "px", "em", "%"};
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf(s, "%s%s: %s%s", s->len ? "; " : "", prop,
                         g_ascii_formatd(num, sizeof num, "%g", l.value), units[l.unit]);
}

/* The image's size (book.h) as an inline style, or NULL: the width (at
 * most max-width, and at most the column when it is absolute), else the
 * height; the image keeps its aspect ratio. Caller frees. */
static char *image_style(const BookNode *n)
{
  BookLength w = n->as.image.width, h = n->as.image.height, mw = n->as.image.max_width;
  GString *s = g_string_new(NULL);
  const BookResource *r = n->as.image.res;
  if (w.unit != BOOK_LEN_NONE)
    append_length(s, "width", w);
  else if (h.unit != BOOK_LEN_NONE && h.unit != BOOK_LEN_PERCENT)
    append_length(s, "height", h);
  else if (r && r->kind == BOOK_IMAGE_SVG && r->width_px > 0 && n->parent &&
           n->parent->type == BOOK_FIGURE) {
    /* a figure's SVG at its own size (96 px to the inch), as print sets it:
     * one whose root says width="100%" would fill the reader's column; its
     * text no larger than the body's (1em) when it is larger than 16 px */
    if (r->text_px > 16)
      append_length(s, "width", (BookLength){r->width_px / r->text_px, BOOK_LEN_EM});
    else
      append_length(s, "width", (BookLength){r->width_px, BOOK_LEN_PX});
  }
  if (mw.unit != BOOK_LEN_NONE)
    append_length(s, "max-width", mw);
  else if (w.unit == BOOK_LEN_PX || w.unit == BOOK_LEN_EM)
    append_length(s, "max-width", (BookLength){100, BOOK_LEN_PERCENT});
  return g_string_free(s, s->len == 0);
}

static void write_image(XhtmlWriter *x, BookNode *n)
{
  GString *alt = g_string_new(NULL);
  book_node_text(n, alt);
  BookResource *r = n->as.image.res;
  char *src = r ? resource_href(x, r) : NULL;
  if (src) {
    start(x, "img");
    attr(x, "src", src);
    attr(x, "alt", alt->str);
    /* in a figure without a caption of its own the title is the caption */
    if (n->as.image.title &&
        !(n->parent && n->parent->type == BOOK_FIGURE && !xw_figure_caption(n->parent)))
      attr(x, "title", n->as.image.title);
    char *style = image_style(n);
    attr(x, "style", style);
    g_free(style);
    end_void(x);
  } else {
    if (book_url_is_external(n->as.image.src) && !x->in_link) {
      start(x, "a");
      attr(x, "href", n->as.image.src);
      text(x, alt->len ? alt->str : n->as.image.src);
      end(x);
    } else {
      text(x, alt->str);
    }
  }
  g_free(src);
  g_string_free(alt, TRUE);
}

/* A cleaned raw HTML element. href and src follow the link policy. */
static void write_html_start(XhtmlWriter *x, BookNode *n)
{
  const char *tag = n->as.html.tag ? n->as.html.tag : "span";
  char **a = n->as.html.attrs;
  if (strcmp(tag, "img") == 0) {
    const char *src = NULL, *alt = "";
    for (; a && a[0] && a[1]; a += 2) {
      if (strcmp(a[0], "src") == 0)
        src = a[1];
      else if (strcmp(a[0], "alt") == 0)
        alt = a[1];
    }
    BookResource *r = resource_for_src(x->book, src);
    char *href = r ? resource_href(x, r) : NULL;
    if (!href) {
      text(x, alt);
      return;
    }
    start(x, "img");
    for (a = n->as.html.attrs; a && a[0] && a[1]; a += 2)
      if (strcmp(a[0], "src") != 0 && strcmp(a[0], "alt") != 0)
        attr(x, a[0], a[1]);
    attr(x, "src", href);
    attr(x, "alt", alt);
    end_void(x);
    g_free(href);
    return;
  }
  start(x, tag);
  html_attrs(x, n, true);
  if (strcmp(tag, "a") == 0)
    x->in_link++;
  if (san_element_is_void(tag))
    end_void(x);
}

void xw_html_end(XhtmlWriter *x, BookNode *n)
{
  const char *tag = n->as.html.tag ? n->as.html.tag : "span";
  if (strcmp(tag, "img") == 0 || san_element_is_void(tag))
    return;
  if (strcmp(tag, "a") == 0)
    x->in_link--;
  end(x);
}

void xw_html_enter(XhtmlWriter *x, BookIter *it)
{
  BookNode *n = it->cur;
  const char *tag = n->as.html.tag ? n->as.html.tag : "";
  xw_marks_at_start(x, n);
  write_html_start(x, n);
  if (strcmp(tag, "img") == 0 || san_element_is_void(tag))
    book_iter_skip_children(it);
}

static void enter_link(XhtmlWriter *x, BookNode *n)
{
  char *href = x->in_link ? NULL : link_href(x, n);
  if (href) {
    start(x, "a");
    attr(x, "href", href);
    attr(x, "title", n->as.link.title);
    x->in_link++;
    g_ptr_array_add(x->links, n);
    g_free(href);
  }
}

void xw_inline_enter(XhtmlWriter *x, BookIter *it)
{
  BookNode *n = it->cur;
  switch (n->type) {
  case BOOK_TEXT:
    xw_marks_at_start(x, n);
    xw_text_marked(x, n);
    break;
  case BOOK_EMPH: start(x, "em"); break;
  case BOOK_STRONG: start(x, "strong"); break;
  case BOOK_STRIKE: start(x, "del"); break;
  case BOOK_CODE:
    start(x, "code");
    xw_marks_at_start(x, n);
    xw_text_marked(x, n);
    end(x);
    break;
  case BOOK_LINK: enter_link(x, n); break;
  case BOOK_IMAGE:
    xw_marks_at_start(x, n);
    write_image(x, n);
    book_iter_skip_children(it);
    break;
  case BOOK_FOOTNOTE_REF:
    xw_marks_at_start(x, n); /* page breaks moved out of the note */
    write_footnote_ref(x, n);
    break;
  case BOOK_SOFTBREAK: nl(x); break;
  case BOOK_LINEBREAK:
    start(x, "br");
    end_void(x);
    nl(x);
    break;
  default: break;
  }
}

void xw_inline_leave(XhtmlWriter *x, BookNode *n)
{
  switch (n->type) {
  case BOOK_EMPH:
  case BOOK_STRONG:
  case BOOK_STRIKE: end(x); break;
  case BOOK_LINK:
    if (x->links->len && g_ptr_array_index(x->links, x->links->len - 1) == n) {
      g_ptr_array_remove_index(x->links, x->links->len - 1);
      x->in_link--;
      end(x);
    }
    break;
  default: break;
  }
}

bool xw_forget_closed(XhtmlWriter *x, BookNode *n)
{
  if (!x->closed->len || g_ptr_array_index(x->closed, x->closed->len - 1) != n)
    return false;
  g_ptr_array_remove_index(x->closed, x->closed->len - 1);
  if (n->type == BOOK_LINK && x->links->len &&
      g_ptr_array_index(x->links, x->links->len - 1) == n) {
    g_ptr_array_remove_index(x->links, x->links->len - 1);
    x->in_link--;
  } else if (n->type == BOOK_HTML_INLINE && g_strcmp0(n->as.html.tag, "a") == 0) {
    x->in_link--;
  }
  return true;
}
