/* xhtml.c: the document model -> XHTML5 (XML syntax) with libxml2's
 * xmlTextWriter, which does all escaping.
 *
 * One tree walker (BookIter, no recursion) writes a chapter's body; the
 * three products wrap it: EPUB chapter documents (xhtml_chapter_document),
 * the whole book as one document (xhtml_write_file) and the bare bodies as
 * an HTML fragment (xhtml_fragment), which are byte for byte what stands
 * inside the chapter documents' <section>.
 *
 * What this stage does not do: decide which raw HTML is allowed (the model
 * holds only cleaned, allow-listed elements), find images (the model's
 * resources), or package anything (epub.c).
 *
 * Link policy: internal links point at "<chapter>.xhtml#id" (or "#id" in the
 * same document); external links are kept for http, https and mailto only;
 * anything else (unresolved relative links, other schemes) keeps its text
 * and loses the link, because an EPUB must not refer to files it does not
 * contain. Images without a resource show their alt text (remote ones as a
 * link to the URL). A link holds no link: a footnote reference inside one
 * closes the link (and the inline elements open in it) before its own
 * noteref link and opens them again after it.
 *
 * Footnotes are gathered per chapter, at the end of the chapter of their
 * first reference: the note lives in the same content document as its
 * reference, so reading systems that pop notes up find the <aside> without
 * loading another document, those that do not show it at the end of the
 * chapter being read, and every chapter document stands on its own (also in
 * the fragment output). */
#include "xhtml.h"

#include <libxml/xmlwriter.h>
#include <string.h>

#include "colophon.h"
#include "labels.h"
#include "sanitize.h"
#include "util.h"

typedef enum { MODE_EPUB, MODE_SINGLE, MODE_FRAGMENT } Mode;

struct XhtmlWriter {
  Book *book;
  const OctavoOptions *opts;
  Mode mode;
  const GArray *page_marks; /* BookPageMark, from the print layout (not owned), or NULL */
  GHashTable *marks;        /* BookNode * -> GArray of guint (indices into page_marks) */
  guint8 *mark_done;        /* per page mark: already written */
  guint8 *mark_moved;       /* per page mark: moved from inside a note to its reference */
  GHashTable *refs;         /* footnote reference id -> BookChapter *, see ref_chapter */
  GArray *pages;            /* XhtmlPage */
  BookChapter *cur;         /* the chapter being written */
  xmlTextWriterPtr w;
  GPtrArray *links; /* the BOOK_LINK nodes that opened an <a>, innermost last */
  int in_link;      /* open <a> elements (links and raw HTML) */
  int in_caption;   /* writing a listing's caption ahead of its code (write_subtree) */
  /* The inline elements around a footnote reference inside a link, closed
   * so that the reference gets a link of its own (no link in a link), and
   * not yet reopened, outermost first: they are reopened before the next
   * content, or dropped if their node ends first (see close_for_noteref). */
  GPtrArray *closed;
  BookOutlineLevels heads; /* EPUB: the document's headings (book_outline_level) */
};

#define NS_XHTML "http://www.w3.org/1999/xhtml"
#define NS_EPUB "http://www.idpf.org/2007/ops"

/* ---- small helpers ---- */

static bool xml_char(gunichar c)
{
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

/* s (len bytes) as text XML can carry: escaping is libxml2's, but a
 * character XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF) cannot be
 * escaped at all, so it is dropped; invalid UTF-8 becomes U+FFFD. Returns
 * s itself when it is clean, else a new string in *tmp (caller frees). */
static const char *xml_clean(const char *s, size_t len, char **tmp)
{
  *tmp = NULL;
  bool clean = g_utf8_validate(s, (gssize)len, NULL);
  for (size_t i = 0; clean && i < len; i++) {
    guchar b = (guchar)s[i];
    if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') ||
        (b == 0xEF && i + 2 < len && (guchar)s[i + 1] == 0xBF && (guchar)s[i + 2] >= 0xBE))
      clean = false;
  }
  if (clean)
    return s;
  GString *out = g_string_sized_new(len);
  const char *p = s, *e = s + len;
  while (p < e) {
    gunichar c = g_utf8_get_char_validated(p, e - p);
    if (c == (gunichar)-1 || c == (gunichar)-2) {
      g_string_append(out, "\xef\xbf\xbd");
      p++;
      continue;
    }
    if (xml_char(c))
      g_string_append_unichar(out, c);
    p = g_utf8_next_char(p);
  }
  *tmp = g_string_free(out, FALSE);
  return *tmp;
}

char *xhtml_xml_text(const char *s)
{
  char *tmp;
  const char *c = xml_clean(s ? s : "", s ? strlen(s) : 0, &tmp);
  return tmp ? tmp : g_strdup(c);
}

static void start(XhtmlWriter *x, const char *tag)
{
  xmlTextWriterStartElement(x->w, BAD_CAST tag);
}
static void end(XhtmlWriter *x)
{
  xmlTextWriterFullEndElement(x->w);
}
static void end_void(XhtmlWriter *x)
{
  xmlTextWriterEndElement(x->w);
}
static void attr(XhtmlWriter *x, const char *name, const char *value)
{
  if (!value)
    return;
  char *tmp;
  xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST xml_clean(value, strlen(value), &tmp));
  g_free(tmp);
}
static void text_len(XhtmlWriter *x, const char *s, size_t len)
{
  if (len == 0)
    return;
  char *t = g_strndup(s, len), *tmp;
  xmlTextWriterWriteString(x->w, BAD_CAST xml_clean(t, len, &tmp));
  g_free(tmp);
  g_free(t);
}
static void text(XhtmlWriter *x, const char *s)
{
  if (s && *s)
    text_len(x, s, strlen(s));
}
static void nl(XhtmlWriter *x)
{
  xmlTextWriterWriteString(x->w, BAD_CAST "\n");
}

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

char *xhtml_chapter_href(const BookChapter *c)
{
  if (c->id && *c->id)
    return g_strdup_printf("%s.xhtml", c->id);
  return g_strdup_printf("chapter-%d.xhtml", c->index + 1);
}

const char *xhtml_book_lang(const Book *book, const OctavoOptions *opts)
{
  if (book->meta.lang && *book->meta.lang)
    return book->meta.lang;
  if (opts && opts->lang && *opts->lang)
    return opts->lang;
  return "en";
}

/* The href of a link to (chapter, fragment) from the current document, or
 * NULL. Caller frees. */
static char *internal_href(XhtmlWriter *x, BookChapter *c, const char *frag)
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
    return n->as.link.chapter ? internal_href(x, n->as.link.chapter, frag) : NULL;
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
  if (!g_file_get_contents(r->path, &data, &len, NULL))
    return NULL;
  char *b64 = g_base64_encode((const guchar *)data, len);
  char *url = g_strdup_printf("data:%s;base64,%s", r->media_type, b64);
  g_free(b64);
  g_free(data);
  return url;
}

/* The writer's own ids (page breaks, note references) step aside when a
 * heading or note of the model has taken the same id: "-x" is appended
 * until it is free. Deterministic, and the book's id table is not changed. */
static void own_id(const XhtmlWriter *x, char *buf, size_t size)
{
  while (g_hash_table_contains(x->book->ids, buf) && strlen(buf) + 3 < size)
    g_strlcat(buf, "-x", size);
}

static void fnref_id(const XhtmlWriter *x, int number, int k, char *buf, size_t size)
{
  if (k > 1)
    g_snprintf(buf, size, "fnref-%d-%d", number, k);
  else
    g_snprintf(buf, size, "fnref-%d", number);
  own_id(x, buf, size);
}

/* ---- page breaks ---- */

static void write_pagebreak(XhtmlWriter *x, guint mark_index)
{
  /* Each page once, even if its node were written twice. */
  if (x->mark_done[mark_index])
    return;
  x->mark_done[mark_index] = 1;
  const BookPageMark *m = &g_array_index(x->page_marks, BookPageMark, mark_index);
  /* The page list follows the reading order: a page break that would come
   * after a later page's (in a note written at the chapter's end, say) is
   * left out rather than listed out of order. */
  if (x->pages->len && m->page <= g_array_index(x->pages, XhtmlPage, x->pages->len - 1).page)
    return;
  XhtmlPage p = {m->page, NULL, x->cur, {0}};
  g_snprintf(p.id, sizeof p.id, "page-%d", m->page);
  own_id(x, p.id, sizeof p.id);
  char num[16];
  g_snprintf(num, sizeof num, "%d", m->page);
  const char *label = m->label && *m->label ? m->label : num;
  start(x, "span");
  attr(x, "epub:type", "pagebreak");
  attr(x, "role", "doc-pagebreak");
  attr(x, "id", p.id);
  attr(x, "aria-label", label);
  end(x);
  p.label = label;
  g_array_append_val(x->pages, p);
}

static GArray *marks_of(XhtmlWriter *x, const BookNode *n)
{
  return x->marks ? g_hash_table_lookup(x->marks, n) : NULL;
}

/* Page breaks at the start of block or inline node n (offset 0). */
static void write_marks_at_start(XhtmlWriter *x, const BookNode *n)
{
  GArray *a = marks_of(x, n);
  for (guint i = 0; a && i < a->len; i++) {
    guint mi = g_array_index(a, guint, i);
    if (g_array_index(x->page_marks, BookPageMark, mi).offset == 0 || x->mark_moved[mi])
      write_pagebreak(x, mi);
  }
}

/* The text of n with its page breaks at their byte offsets (moved back to
 * a character boundary). */
static void write_text_marked(XhtmlWriter *x, const BookNode *n)
{
  const char *s = n->text ? n->text : "";
  size_t len = strlen(s), done = 0;
  GArray *a = marks_of(x, n);
  for (guint i = 0; a && i < a->len; i++) {
    guint mi = g_array_index(a, guint, i);
    size_t off = g_array_index(x->page_marks, BookPageMark, mi).offset;
    if (off == 0 || x->mark_moved[mi])
      continue; /* written by write_marks_at_start */
    if (off > len)
      off = len;
    while (off > done && (s[off] & 0xC0) == 0x80)
      off--;
    if (off < done)
      off = done;
    text_len(x, s + done, off - done);
    done = off;
    write_pagebreak(x, mi);
  }
  text_len(x, s + done, len - done);
}

static gint cmp_mark_offset(gconstpointer a, gconstpointer b, gpointer data)
{
  const GArray *marks = data;
  size_t oa = g_array_index(marks, BookPageMark, *(const guint *)a).offset;
  size_t ob = g_array_index(marks, BookPageMark, *(const guint *)b).offset;
  return oa < ob ? -1 : oa > ob;
}

static void free_array(gpointer p)
{
  g_array_free(p, TRUE);
}

/* ---- the tree walker ---- */

static bool in_tight_list(const BookNode *n)
{
  const BookNode *item = n->parent;
  return item && item->type == BOOK_ITEM && item->parent && item->parent->type == BOOK_LIST &&
         item->parent->as.list.tight;
}

static const char *align_class(const BookNode *cell)
{
  const BookNode *row = cell->parent;
  const BookNode *table = row ? row->parent : NULL;
  if (!table || table->type != BOOK_TABLE)
    return NULL;
  int col = 0;
  for (const BookNode *c = row->first_child; c && c != cell; c = c->next)
    col++;
  if (col >= table->as.table.ncols || !table->as.table.align)
    return NULL;
  switch (table->as.table.align[col]) {
  case BOOK_ALIGN_LEFT: return "align-left";
  case BOOK_ALIGN_CENTER: return "align-center";
  case BOOK_ALIGN_RIGHT: return "align-right";
  default: return NULL;
  }
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
static void reopen_closed(XhtmlWriter *x)
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
  char *href = internal_href(x, f->chapter, f->id);
  char id[48], num[16];
  fnref_id(x, f->number, n->as.fnref.ref_index, id, sizeof id);
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

/* The chapter holding the footnote reference with this id ("fnref-N" or
 * "fnref-N-K"), from one walk over the book made when first needed. */
static BookChapter *ref_chapter(XhtmlWriter *x, const char *id)
{
  if (!x->refs) {
    x->refs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    guint nc = x->book->chapters->len, nf = x->book->footnotes->len;
    for (guint i = 0; i < nc + nf; i++) {
      /* Chapters, then notes (a reference inside a note stands where the
       * note is written). */
      BookFootnote *f = i < nc ? NULL : x->book->footnotes->pdata[i - nc];
      BookChapter *c = f ? f->chapter : x->book->chapters->pdata[i];
      if (!c || (f && !f->def))
        continue;
      BookIter it;
      book_iter_init(&it, f ? f->def : c->root);
      while (book_iter_next(&it) != BOOK_ITER_DONE) {
        BookNode *n = it.cur;
        if (it.ev != BOOK_ITER_ENTER || n->type != BOOK_FOOTNOTE_REF || !n->as.fnref.note)
          continue;
        char kb[64];
        fnref_id(x, n->as.fnref.note->number, n->as.fnref.ref_index, kb, sizeof kb);
        char *k = g_strdup(kb);
        if (!g_hash_table_contains(x->refs, k))
          g_hash_table_insert(x->refs, k, c);
        else
          g_free(k);
      }
    }
  }
  return g_hash_table_lookup(x->refs, id);
}

/* The note's number, as the link back to its first reference. */
static void write_note_label(XhtmlWriter *x, const BookFootnote *f)
{
  char id[48], num[24], label[64];
  fnref_id(x, f->number, 1, id, sizeof id);
  g_snprintf(num, sizeof num, "%d.", f->number);
  g_snprintf(label, sizeof label, "%s %d",
             labels_get(xhtml_book_lang(x->book, x->opts), LABEL_BACK), f->number);
  BookChapter *c = ref_chapter(x, id);
  char *href = c ? internal_href(x, c, id) : NULL;
  if (href) {
    start(x, "a");
    attr(x, "class", "footnote-label");
    attr(x, "role", "doc-backlink");
    attr(x, "href", href);
    attr(x, "aria-label", label);
  } else {
    start(x, "span");
    attr(x, "class", "footnote-label");
  }
  text(x, num);
  end(x);
  text(x, " ");
  g_free(href);
}

/* The links back from note f to its second and later references (the
 * first is the note's number, write_note_label). */
static void write_backlinks(XhtmlWriter *x, const BookFootnote *f)
{
  for (int k = 2; k <= f->nrefs; k++) {
    char id[48], label[64];
    fnref_id(x, f->number, k, id, sizeof id);
    g_snprintf(label, sizeof label, "%s %d (%d)",
               labels_get(xhtml_book_lang(x->book, x->opts), LABEL_BACK), f->number, k);
    /* A reference may stand in another chapter than the note. */
    BookChapter *c = ref_chapter(x, id);
    if (!c)
      continue;
    char *frag = g_strdup(id);
    char *href = internal_href(x, c, frag);
    text(x, " ");
    start(x, "a");
    attr(x, "class", "footnote-back");
    attr(x, "role", "doc-backlink");
    attr(x, "href", href);
    attr(x, "aria-label", label);
    text(x, "\xe2\x86\x91"); /* U+2191: Charis SIL has it, it has no U+21A9 */
    if (k > 1) {
      char sup[16];
      g_snprintf(sup, sizeof sup, "%d", k);
      start(x, "sup");
      text(x, sup);
      end(x);
    }
    end(x);
    g_free(href);
    g_free(frag);
  }
}

/* A figure shows its image when the image has a local file; otherwise it
 * is a paragraph of the alt text (see write_image). */
static bool figure_has_image(const BookNode *fig)
{
  const BookNode *img = fig->first_child;
  return img && img->type == BOOK_IMAGE && img->as.image.res;
}

/* The figure's BOOK_FIGCAPTION, or NULL. */
static BookNode *figure_caption(const BookNode *fig)
{
  return fig->last_child && fig->last_child->type == BOOK_FIGCAPTION ? fig->last_child : NULL;
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
  if (w.unit != BOOK_LEN_NONE)
    append_length(s, "width", w);
  else if (h.unit != BOOK_LEN_NONE && h.unit != BOOK_LEN_PERCENT)
    append_length(s, "height", h);
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
        !(n->parent && n->parent->type == BOOK_FIGURE && !figure_caption(n->parent)))
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

static void write_html_end(XhtmlWriter *x, BookNode *n)
{
  const char *tag = n->as.html.tag ? n->as.html.tag : "span";
  if (strcmp(tag, "img") == 0 || san_element_is_void(tag))
    return;
  if (strcmp(tag, "a") == 0)
    x->in_link--;
  end(x);
}

/* A task item's box: a disabled checkbox (valid XHTML5; EPUBCheck accepts
 * it), before the item's text. In a loose item it goes inside the first
 * paragraph, so that it stands on the text's line. */
static void write_task_box(XhtmlWriter *x, const BookNode *item)
{
  bool done = item->as.item.task == BOOK_TASK_DONE;
  start(x, "input");
  attr(x, "type", "checkbox");
  attr(x, "disabled", "disabled");
  if (done)
    attr(x, "checked", "checked");
  attr(x, "aria-label", done ? "done" : "not done");
  end_void(x);
  text(x, " ");
}

/* True for the first paragraph of a loose task item (see write_task_box). */
static bool box_in_paragraph(const BookNode *n)
{
  return n && n->type == BOOK_PARAGRAPH && !n->prev && n->parent && n->parent->type == BOOK_ITEM &&
         n->parent->as.item.task != BOOK_TASK_NONE && !in_tight_list(n);
}

static void write_subtree(XhtmlWriter *x, BookNode *node);
static void leave(XhtmlWriter *x, BookNode *n);

static void enter(XhtmlWriter *x, BookIter *it)
{
  BookNode *n = it->cur;
  char tag[4];
  if (x->closed->len && n->type != BOOK_FOOTNOTE_REF)
    reopen_closed(x);
  switch (n->type) {
  case BOOK_ROOT: break;
  case BOOK_HEADING: {
    /* the e-book's headings never skip a level (Ace's heading order);
     * the HTML fragment keeps the source's levels */
    int level = x->mode == MODE_EPUB ? book_outline_level(&x->heads, n->as.heading.level)
                                     : CLAMP(n->as.heading.level, 1, 6);
    g_snprintf(tag, sizeof tag, "h%d", level);
    start(x, tag);
    attr(x, "id", n->as.heading.id);
    write_marks_at_start(x, n);
    break;
  }
  case BOOK_PARAGRAPH:
    if (!in_tight_list(n))
      start(x, "p");
    write_marks_at_start(x, n);
    if (box_in_paragraph(n))
      write_task_box(x, n->parent);
    break;
  case BOOK_LIST:
    write_marks_at_start(x, n);
    if (n->as.list.ordered) {
      start(x, "ol");
      if (n->as.list.start != 1) {
        char s[16];
        g_snprintf(s, sizeof s, "%d", n->as.list.start);
        attr(x, "start", s);
      }
    } else {
      start(x, "ul");
    }
    {
      bool tasks = false;
      for (BookNode *i = n->first_child; i && !tasks; i = i->next)
        tasks = i->type == BOOK_ITEM && i->as.item.task != BOOK_TASK_NONE;
      if (tasks)
        attr(x, "class", "task-list");
    }
    nl(x);
    break;
  case BOOK_ITEM:
    start(x, "li");
    if (n->as.item.task != BOOK_TASK_NONE)
      attr(x, "class", "task-list-item");
    write_marks_at_start(x, n);
    if (n->as.item.task != BOOK_TASK_NONE && !box_in_paragraph(n->first_child))
      write_task_box(x, n);
    break;
  case BOOK_BLOCKQUOTE:
    write_marks_at_start(x, n);
    start(x, "blockquote");
    nl(x);
    break;
  case BOOK_CODE_BLOCK:
    start(x, "pre");
    start(x, "code");
    if (n->as.code.info && *n->as.code.info) {
      char *cls = g_strconcat("language-", n->as.code.info, NULL);
      attr(x, "class", cls);
      g_free(cls);
    }
    write_marks_at_start(x, n);
    write_text_marked(x, n);
    end(x);
    end(x);
    nl(x);
    break;
  case BOOK_THEMATIC_BREAK:
    write_marks_at_start(x, n);
    start(x, "hr");
    end_void(x);
    nl(x);
    break;
  case BOOK_TABLE:
    write_marks_at_start(x, n);
    start(x, "table");
    nl(x);
    break;
  case BOOK_TABLE_ROW: {
    bool first_body = !n->as.row.header && (!n->prev || n->prev->as.row.header);
    if (n->as.row.header && !n->prev) {
      start(x, "thead");
      nl(x);
    }
    if (first_body) {
      start(x, "tbody");
      nl(x);
    }
    start(x, "tr");
    nl(x);
    break;
  }
  case BOOK_TABLE_CELL: {
    bool header = n->parent && n->parent->type == BOOK_TABLE_ROW && n->parent->as.row.header;
    start(x, header ? "th" : "td");
    if (header)
      attr(x, "scope", "col");
    attr(x, "class", align_class(n));
    if (!n->prev && n->parent)
      write_marks_at_start(x, n->parent);
    write_marks_at_start(x, n);
    break;
  }
  case BOOK_FOOTNOTE_DEF: break; /* written by write_notes */
  case BOOK_FIGURE:
    write_marks_at_start(x, n);
    if (n->as.figure.listing) {
      /* caption first, then the file name, then the code */
      start(x, "figure");
      attr(x, "class", "listing");
      if (figure_caption(n))
        write_subtree(x, figure_caption(n));
      if (n->as.figure.file_name) {
        start(x, "p");
        attr(x, "class", "file-name");
        start(x, "code");
        text(x, n->as.figure.file_name);
        end(x);
        end(x);
      }
      nl(x);
    } else if (figure_has_image(n)) {
      start(x, "figure");
    } else {
      start(x, "p");
      attr(x, "class", "missing-image");
    }
    break;
  case BOOK_FIGCAPTION:
    if (!n->parent || n->parent->type != BOOK_FIGURE) {
      start(x, "p");
    } else if (n->parent->as.figure.listing && !x->in_caption) {
      book_iter_skip_children(it); /* written first, by the figure */
    } else if (n->parent->as.figure.listing || figure_has_image(n->parent)) {
      start(x, "figcaption");
    } else { /* the placeholder paragraph ends; the caption is one of its own */
      end(x);
      nl(x);
      start(x, "p");
      attr(x, "class", "caption");
    }
    write_marks_at_start(x, n);
    break;
  case BOOK_HTML_BLOCK:
    write_marks_at_start(x, n);
    write_html_start(x, n);
    if (strcmp(n->as.html.tag ? n->as.html.tag : "", "img") == 0 ||
        san_element_is_void(n->as.html.tag ? n->as.html.tag : ""))
      book_iter_skip_children(it);
    break;
  case BOOK_HTML_INLINE:
    write_marks_at_start(x, n);
    write_html_start(x, n);
    if (strcmp(n->as.html.tag ? n->as.html.tag : "", "img") == 0 ||
        san_element_is_void(n->as.html.tag ? n->as.html.tag : ""))
      book_iter_skip_children(it);
    break;
  case BOOK_TEXT:
    write_marks_at_start(x, n);
    write_text_marked(x, n);
    break;
  case BOOK_EMPH: start(x, "em"); break;
  case BOOK_STRONG: start(x, "strong"); break;
  case BOOK_STRIKE: start(x, "del"); break;
  case BOOK_CODE:
    start(x, "code");
    write_marks_at_start(x, n);
    write_text_marked(x, n);
    end(x);
    break;
  case BOOK_LINK: {
    char *href = x->in_link ? NULL : link_href(x, n);
    if (href) {
      start(x, "a");
      attr(x, "href", href);
      attr(x, "title", n->as.link.title);
      x->in_link++;
      g_ptr_array_add(x->links, n);
      g_free(href);
    }
    break;
  }
  case BOOK_IMAGE:
    write_marks_at_start(x, n);
    write_image(x, n);
    book_iter_skip_children(it);
    break;
  case BOOK_FOOTNOTE_REF:
    write_marks_at_start(x, n); /* page breaks moved out of the note */
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

/* Write node and what it holds now (a listing's caption, written before
 * the code it follows in the model). */
static void write_subtree(XhtmlWriter *x, BookNode *node)
{
  BookIter it;
  book_iter_init(&it, node);
  BookIterEvent ev;
  x->in_caption++;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    if (ev == BOOK_ITER_ENTER)
      enter(x, &it);
    else
      leave(x, it.cur);
  }
  x->in_caption--;
}

static void leave(XhtmlWriter *x, BookNode *n)
{
  if (x->closed->len && g_ptr_array_index(x->closed, x->closed->len - 1) == n) {
    /* closed for a footnote reference and nothing came after it: it stays
     * closed; only the bookkeeping of open links is undone */
    g_ptr_array_remove_index(x->closed, x->closed->len - 1);
    if (n->type == BOOK_LINK && x->links->len &&
        g_ptr_array_index(x->links, x->links->len - 1) == n) {
      g_ptr_array_remove_index(x->links, x->links->len - 1);
      x->in_link--;
    } else if (n->type == BOOK_HTML_INLINE && g_strcmp0(n->as.html.tag, "a") == 0) {
      x->in_link--;
    }
    return;
  }
  switch (n->type) {
  case BOOK_HEADING:
    end(x);
    nl(x);
    break;
  case BOOK_PARAGRAPH:
    if (!in_tight_list(n)) {
      end(x);
      nl(x);
    } else if (n->next) {
      nl(x);
    }
    break;
  case BOOK_LIST:
  case BOOK_BLOCKQUOTE:
  case BOOK_TABLE:
    if (n->type == BOOK_TABLE && n->last_child) {
      end(x); /* thead or tbody */
      nl(x);
    }
    end(x);
    nl(x);
    break;
  case BOOK_ITEM:
    end(x);
    nl(x);
    break;
  case BOOK_TABLE_ROW:
    end(x);
    nl(x);
    if (n->as.row.header && (!n->next || !n->next->as.row.header) && n->next) {
      end(x); /* thead, followed by tbody */
      nl(x);
    }
    break;
  case BOOK_TABLE_CELL:
    end(x);
    nl(x);
    break;
  case BOOK_FIGCAPTION:
    if (!(n->parent && n->parent->type == BOOK_FIGURE && n->parent->as.figure.listing &&
          !x->in_caption))
      end(x);
    nl(x);
    break;
  case BOOK_FIGURE: {
    BookNode *img = n->first_child;
    if (figure_has_image(n) && !figure_caption(n) && img->as.image.title && *img->as.image.title) {
      start(x, "figcaption");
      text(x, img->as.image.title);
      end(x);
    }
    end(x);
    nl(x);
    break;
  }
  case BOOK_HTML_BLOCK:
    write_html_end(x, n);
    nl(x);
    break;
  case BOOK_HTML_INLINE: write_html_end(x, n); break;
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

/* Walk a tree (a chapter's root, or a note's definition). For a note, the
 * backlinks go at the end of its last paragraph, or after its blocks. */
static void write_tree(XhtmlWriter *x, BookNode *root, const BookFootnote *note)
{
  BookIter it;
  book_iter_init(&it, root);
  BookIterEvent ev;
  bool is_note = note != NULL;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (ev == BOOK_ITER_ENTER) {
      if (n == root && is_note)
        continue;
      if (is_note && n->parent == root && !n->prev) {
        /* The note's number opens it, linking back to its first reference. */
        if (n->type == BOOK_PARAGRAPH) {
          enter(x, &it);
          write_note_label(x, note);
          continue;
        }
        start(x, "p");
        write_note_label(x, note);
        end(x);
        nl(x);
      }
      enter(x, &it);
    } else {
      if (note && n->type == BOOK_PARAGRAPH && n->parent == root && !n->next) {
        write_backlinks(x, note);
        note = NULL;
      }
      if (n == root && is_note)
        continue;
      leave(x, n);
    }
  }
  if (is_note && !root->first_child) {
    start(x, "p");
    write_note_label(x, note);
    end(x);
    nl(x);
  } else if (note && note->nrefs > 1) {
    start(x, "p");
    write_backlinks(x, note);
    end(x);
    nl(x);
  }
}

/* The notes whose first reference is in chapter c, as EPUB 3 footnotes. */
static void write_notes(XhtmlWriter *x, BookChapter *c)
{
  bool any = false;
  for (guint i = 0; i < x->book->footnotes->len; i++) {
    BookFootnote *f = x->book->footnotes->pdata[i];
    if (f->chapter != c || f->nrefs == 0 || !f->def)
      continue;
    if (!any) {
      start(x, "div");
      attr(x, "class", "footnotes");
      nl(x);
      any = true;
    }
    start(x, "aside");
    attr(x, "epub:type", "footnote");
    attr(x, "role", "doc-footnote");
    attr(x, "id", f->id);
    nl(x);
    write_tree(x, f->def, f);
    end(x);
    nl(x);
  }
  if (any) {
    end(x);
    nl(x);
  }
}

/* The e-book's opening chapter, the text before the first chapter heading
 * (the `#` heading that became the book's title is not in it), is headed
 * by the book's title, as the PDF heads its first page (layout.c): so the
 * contents' first entry, which points to this chapter, lands on a heading
 * that reads as the entry does, and both books agree. (The alternative,
 * pointing that entry to the title page, would leave the opening text with
 * no entry and send the reader back before the contents.) The page breaks
 * at the chapter's very start go inside the heading, as in any heading. */
static void write_opening_heading(XhtmlWriter *x, BookChapter *c)
{
  char tag[4];
  g_snprintf(tag, sizeof tag, "h%d", book_outline_level(&x->heads, 1));
  start(x, tag);
  attr(x, "class", "opening");
  for (const BookNode *n = c->root; n; n = n->first_child)
    write_marks_at_start(x, n);
  text(x, x->book->meta.title);
  end(x);
  nl(x);
}

static void write_chapter_body(XhtmlWriter *x, BookChapter *c)
{
  x->cur = c;
  x->heads = (BookOutlineLevels){0};
  x->in_link = 0;
  g_ptr_array_set_size(x->links, 0);
  g_ptr_array_set_size(x->closed, 0);
  if (x->mode == MODE_EPUB && c->index == 0 && !c->heading)
    write_opening_heading(x, c);
  write_tree(x, c->root, NULL);
  write_notes(x, c);
}

/* ---- writers ---- */

static XhtmlWriter *writer_new(Book *book, const OctavoOptions *opts, Mode mode)
{
  XhtmlWriter *x = g_new0(XhtmlWriter, 1);
  x->book = book;
  x->opts = opts;
  x->mode = mode;
  x->pages = g_array_new(FALSE, TRUE, sizeof(XhtmlPage));
  x->links = g_ptr_array_new();
  x->closed = g_ptr_array_new();
  return x;
}

XhtmlWriter *xhtml_writer_new(Book *book, const OctavoOptions *opts, const GArray *page_marks)
{
  XhtmlWriter *x = writer_new(book, opts, MODE_EPUB);
  x->page_marks = page_marks;
  if (page_marks && page_marks->len) {
    x->marks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_array);
    x->mark_done = g_new0(guint8, page_marks->len);
    x->mark_moved = g_new0(guint8, page_marks->len);
    for (guint i = 0; i < page_marks->len; i++) {
      const BookPageMark *m = &g_array_index(page_marks, BookPageMark, i);
      if (!m->node)
        continue;
      GArray *a = g_hash_table_lookup(x->marks, m->node);
      if (!a) {
        a = g_array_new(FALSE, FALSE, sizeof(guint));
        g_hash_table_insert(x->marks, m->node, a);
      }
      g_array_append_val(a, i);
    }
    /* Keep only marks on nodes of this book's trees: a mark is a pointer
     * from another stage, and one that points elsewhere must not become
     * a page break (nor be dereferenced). */
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    GHashTable *first_ref =
        g_hash_table_new(g_direct_hash, g_direct_equal); /* note -> its reference 1 */
    for (guint pass = 0; pass < 2; pass++) {
      GPtrArray *list = pass == 0 ? book->chapters : book->footnotes;
      for (guint i = 0; i < list->len; i++) {
        BookNode *root = pass == 0 ? ((BookChapter *)list->pdata[i])->root
                                   : ((BookFootnote *)list->pdata[i])->def;
        BookIter it;
        book_iter_init(&it, root);
        while (root && book_iter_next(&it) != BOOK_ITER_DONE) {
          if (it.ev != BOOK_ITER_ENTER)
            continue;
          BookNode *n = it.cur;
          if (n->type == BOOK_FOOTNOTE_REF && n->as.fnref.note && n->as.fnref.ref_index == 1)
            g_hash_table_insert(first_ref, n->as.fnref.note, n);
          if (pass == 0 && g_hash_table_contains(x->marks, n))
            g_hash_table_add(seen, n);
        }
      }
    }
    /* A page break inside a note: the note is written at its chapter's end,
     * out of the pages' order, so the break moves to the note's first
     * reference (where the note's text begins on paper, or near it); if
     * that too would come out of order, write_pagebreak leaves it out. */
    for (guint i = 0; i < book->footnotes->len; i++) {
      BookFootnote *f = book->footnotes->pdata[i];
      BookNode *ref = g_hash_table_lookup(first_ref, f);
      if (!f->def || !ref)
        continue;
      BookIter it;
      book_iter_init(&it, f->def);
      while (book_iter_next(&it) != BOOK_ITER_DONE) {
        GArray *a = it.ev == BOOK_ITER_ENTER ? g_hash_table_lookup(x->marks, it.cur) : NULL;
        if (!a || g_hash_table_contains(seen, it.cur))
          continue;
        GArray *to = g_hash_table_lookup(x->marks, ref);
        if (!to) {
          to = g_array_new(FALSE, FALSE, sizeof(guint));
          g_hash_table_insert(x->marks, ref, to);
        }
        for (guint k = 0; k < a->len; k++) {
          guint mi = g_array_index(a, guint, k);
          x->mark_moved[mi] = 1;
          g_array_append_val(to, mi);
        }
        g_hash_table_add(seen, ref);
      }
    }
    g_hash_table_destroy(first_ref);
    GHashTableIter hi;
    gpointer k, v;
    g_hash_table_iter_init(&hi, x->marks);
    while (g_hash_table_iter_next(&hi, &k, &v)) {
      if (!g_hash_table_contains(seen, k))
        g_hash_table_iter_remove(&hi);
      else
        g_array_sort_with_data(v, cmp_mark_offset, (gpointer)page_marks);
    }
    g_hash_table_destroy(seen);
  }
  return x;
}

void xhtml_writer_free(XhtmlWriter *x)
{
  if (!x)
    return;
  if (x->marks)
    g_hash_table_destroy(x->marks);
  g_array_free(x->pages, TRUE);
  g_ptr_array_free(x->links, TRUE);
  g_ptr_array_free(x->closed, TRUE);
  g_free(x->mark_done);
  g_free(x->mark_moved);
  if (x->refs)
    g_hash_table_destroy(x->refs);
  g_free(x);
}

const GArray *xhtml_writer_pages(const XhtmlWriter *x)
{
  return x->pages;
}

static xmlBufferPtr open_buffer(XhtmlWriter *x)
{
  xmlBufferPtr buf = xmlBufferCreate();
  xmlBufferSetAllocationScheme(buf,
                               XML_BUFFER_ALLOC_DOUBLEIT); /* big chapters: no quadratic growth */
  x->w = xmlNewTextWriterMemory(buf, 0);
  return buf;
}

static char *close_buffer(XhtmlWriter *x, xmlBufferPtr buf)
{
  xmlTextWriterFlush(x->w);
  xmlFreeTextWriter(x->w);
  x->w = NULL;
  char *s = g_strndup((const char *)xmlBufferContent(buf), (gsize)xmlBufferLength(buf));
  xmlBufferFree(buf);
  return s;
}

/* <?xml?>, <!DOCTYPE html>, <html>, <head> with title and stylesheet, <body>. */
static void doc_begin(XhtmlWriter *x, const char *title, const char *css_href,
                      const char *inline_css, const char *body_type)
{
  const char *lang = xhtml_book_lang(x->book, x->opts);
  xmlTextWriterStartDocument(x->w, "1.0", "UTF-8", NULL);
  xmlTextWriterWriteDTD(x->w, BAD_CAST "html", NULL, NULL, NULL);
  nl(x);
  start(x, "html");
  attr(x, "xmlns", NS_XHTML);
  attr(x, "xmlns:epub", NS_EPUB);
  attr(x, "xml:lang", lang);
  attr(x, "lang", lang);
  nl(x);
  start(x, "head");
  nl(x);
  start(x, "meta");
  attr(x, "charset", "utf-8");
  end_void(x);
  nl(x);
  start(x, "title");
  text(x, title);
  end(x);
  nl(x);
  if (css_href) {
    start(x, "link");
    attr(x, "rel", "stylesheet");
    attr(x, "type", "text/css");
    attr(x, "href", css_href);
    end_void(x);
    nl(x);
  }
  if (inline_css) {
    start(x, "style");
    text(x, inline_css);
    end(x);
    nl(x);
  }
  end(x);
  nl(x);
  start(x, "body");
  attr(x, "epub:type", body_type);
  nl(x);
}

static void doc_end(XhtmlWriter *x)
{
  end(x); /* body */
  nl(x);
  end(x); /* html */
  nl(x);
  xmlTextWriterEndDocument(x->w);
}

static const char *chapter_title(const Book *b, const BookChapter *c)
{
  if (c->title && *c->title)
    return c->title;
  return b->meta.title;
}

static void write_chapter_section(XhtmlWriter *x, BookChapter *c, const char *id)
{
  start(x, "section");
  attr(x, "id", id);
  attr(x, "epub:type", "chapter");
  attr(x, "role", "doc-chapter");
  if (c->heading && c->heading->as.heading.id)
    attr(x, "aria-labelledby", c->heading->as.heading.id);
  else
    attr(x, "aria-label", chapter_title(x->book, c) ? chapter_title(x->book, c) : "Opening");
  nl(x);
  write_chapter_body(x, c);
  end(x);
  nl(x);
}

char *xhtml_chapter_document(XhtmlWriter *x, BookChapter *c, const char *css_href)
{
  xmlBufferPtr buf = open_buffer(x);
  doc_begin(x, chapter_title(x->book, c), css_href, NULL, "bodymatter");
  write_chapter_section(x, c, c->id);
  doc_end(x);
  return close_buffer(x, buf);
}

static void write_title_block(XhtmlWriter *x)
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
  xmlBufferPtr buf = open_buffer(x);
  doc_begin(x, x->book->meta.title, css_href, NULL, "frontmatter");
  write_title_block(x);
  doc_end(x);
  return close_buffer(x, buf);
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
  xmlBufferPtr buf = open_buffer(x);
  doc_begin(x, labels_get(lang, LABEL_COVER), css_href, svg ? COVER_CSS : NULL, "cover");
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
  doc_end(x);
  g_string_free(alt, TRUE);
  return close_buffer(x, buf);
}

char *xhtml_colophon_document(XhtmlWriter *x, const char *css_href, const Colophon *col)
{
  const char *lang = xhtml_book_lang(x->book, x->opts);
  const char *heading = labels_get(lang, LABEL_COLOPHON);
  xmlBufferPtr buf = open_buffer(x);
  doc_begin(x, heading, css_href, NULL, "backmatter");
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
  doc_end(x);
  return close_buffer(x, buf);
}

void xhtml_fragment(Book *book, const OctavoOptions *opts, GString *out)
{
  XhtmlWriter *x = writer_new(book, opts, MODE_FRAGMENT);
  xmlBufferPtr buf = open_buffer(x);
  for (guint i = 0; i < book->chapters->len; i++)
    write_chapter_body(x, book->chapters->pdata[i]);
  char *s = close_buffer(x, buf);
  g_string_append(out, s);
  g_free(s);
  xhtml_writer_free(x);
}

static bool write_out(Book *book, const char *path, const char *data)
{
  GError *err = NULL;
  if (!util_write_atomic(path, data, strlen(data), &err)) {
    book_diag(book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
    return false;
  }
  return true;
}

bool xhtml_write_fragment_file(Book *book, const OctavoOptions *opts, const char *path)
{
  GString *s = g_string_new(NULL);
  xhtml_fragment(book, opts, s);
  bool ok = write_out(book, path, s->str);
  g_string_free(s, TRUE);
  return ok;
}

bool xhtml_write_file(Book *book, const OctavoOptions *opts, const char *path)
{
  char *css_path =
      opts->css ? g_strdup(opts->css)
                : g_build_filename(opts->datadir ? opts->datadir : ".", "styles", "book.css", NULL);
  char *css = NULL;
  if (!g_file_get_contents(css_path, &css, NULL, NULL))
    css = NULL; /* the document stands without its stylesheet */
  g_free(css_path);
  XhtmlWriter *x = writer_new(book, opts, MODE_SINGLE);
  xmlBufferPtr buf = open_buffer(x);
  doc_begin(x, book->meta.title, NULL, css, "bodymatter");
  write_title_block(x);
  for (guint i = 0; i < book->chapters->len; i++) {
    BookChapter *c = book->chapters->pdata[i];
    write_chapter_section(x, c, c->id);
  }
  doc_end(x);
  char *s = close_buffer(x, buf);
  bool ok = write_out(book, path, s);
  g_free(s);
  g_free(css);
  xhtml_writer_free(x);
  return ok;
}
