/* xhtml_internal.h: what the files of the XHTML writer share, and nothing
 * outside them includes (the public API is xhtml.h).
 *
 *   xhtml.c        the writer, the document shell and the block walk
 *   xhtml_inline.c inline nodes: links and their policy, images, raw HTML,
 *                  footnote references (and the no-link-in-a-link rule)
 *   xhtml_notes.c  footnotes at a chapter's end, print page breaks
 *   xhtml_front.c  the opening heading, title page, cover, colophon
 *
 * Functions shared between these files carry the prefix xw_; each file's
 * own helpers are static. */
#ifndef OCTAVO_XHTML_INTERNAL_H
#define OCTAVO_XHTML_INTERNAL_H

#include <libxml/xmlwriter.h>
#include <string.h>

#include "xhtml.h"

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
  /* The code block being written (xw_code_text): its line (1-based),
   * whether that line's <span class="line"> is open, the cursor into its
   * marked lines (book_code_marked). */
  struct {
    guint line, mark_at;
    bool open;
  } code;
};

#define NS_XHTML "http://www.w3.org/1999/xhtml"
#define NS_EPUB "http://www.idpf.org/2007/ops"

/* ---- xhtml.c: text XML can carry, the document shell ---- */

/* What text s (len bytes) needs before XML carries it, as flags:
 * XW_ESCAPE: libxml2's escaping (< > & " or CR); XW_DROP: xw_clean's
 * repair (a C0 control, U+FFFE, U+FFFF, invalid UTF-8). 0: it goes out as
 * it is. One pass over the bytes (glib decodes the non-ASCII characters). */
enum { XW_ESCAPE = 1, XW_DROP = 2 };
unsigned xw_text_kind(const char *s, size_t len);

/* s (len bytes) as text XML can carry: escaping is libxml2's, but a
 * character XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF) cannot be
 * escaped at all, so it is dropped; invalid UTF-8 becomes U+FFFD. Returns
 * s itself when it is clean, else a new string in *tmp (caller frees). */
const char *xw_clean(const char *s, size_t len, char **tmp);

/* The writer's output goes to a new memory buffer until xw_close_buffer,
 * which returns what was written (caller frees) and frees the buffer. */
GString *xw_open_buffer(XhtmlWriter *x);
char *xw_close_buffer(XhtmlWriter *x, GString *buf);

/* <?xml?>, <!DOCTYPE html>, <html>, <head> with title and stylesheet
 * (css_href and/or inline_css, each may be NULL), <body epub:type>;
 * xw_doc_end closes them. */
void xw_doc_begin(XhtmlWriter *x, const char *title, const char *css_href, const char *inline_css,
                  const char *body_type);
void xw_doc_end(XhtmlWriter *x);

/* Walk a tree (a chapter's root, or note's definition with its note). */
void xw_tree(XhtmlWriter *x, BookNode *root, const BookFootnote *note);

/* The figure's BOOK_FIGCAPTION, or NULL. */
BookNode *xw_figure_caption(const BookNode *fig);

/* ---- the elements (libxml2 escapes; xw_clean drops what XML cannot carry) ---- */

static inline void start(XhtmlWriter *x, const char *tag)
{
  xmlTextWriterStartElement(x->w, BAD_CAST tag);
}
static inline void end(XhtmlWriter *x)
{
  xmlTextWriterFullEndElement(x->w);
}
static inline void end_void(XhtmlWriter *x)
{
  xmlTextWriterEndElement(x->w);
}
static inline void attr(XhtmlWriter *x, const char *name, const char *value)
{
  if (!value)
    return;
  char *tmp;
  xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST xw_clean(value, strlen(value), &tmp));
  g_free(tmp);
}
static inline void text_len(XhtmlWriter *x, const char *s, size_t len)
{
  if (len == 0)
    return;
  /* Text that needs neither libxml2's escaping nor xw_clean's repair goes
   * out as it is, without a copy: the bytes xmlTextWriterWriteString
   * would write. */
  unsigned kind = xw_text_kind(s, len);
  if (!kind) {
    xmlTextWriterWriteRawLen(x->w, BAD_CAST s, (int)len);
    return;
  }
  char *tmp = NULL;
  char *t = g_strndup(s, len);
  xmlTextWriterWriteString(x->w, BAD_CAST(kind & XW_DROP ? xw_clean(t, len, &tmp) : t));
  g_free(tmp);
  g_free(t);
}
static inline void text(XhtmlWriter *x, const char *s)
{
  if (s && *s)
    text_len(x, s, strlen(s));
}
static inline void nl(XhtmlWriter *x)
{
  /* what xmlTextWriterWriteString writes for it, without its escaping
   * pass (a copy allocated and freed per line) */
  xmlTextWriterWriteRawLen(x->w, BAD_CAST "\n", 1);
}

/* ---- xhtml_inline.c ---- */

/* The href of a link to (chapter, fragment) from the current document, or
 * NULL. Caller frees. */
char *xw_internal_href(XhtmlWriter *x, BookChapter *c, const char *frag);

/* ENTER of an inline node (text, emphasis, code, link, image, footnote
 * reference, breaks); EXIT of emphasis and links. */
void xw_inline_enter(XhtmlWriter *x, BookIter *it);
void xw_inline_leave(XhtmlWriter *x, BookNode *n);

/* A cleaned raw HTML element (block or inline), ENTER and EXIT. href and
 * src follow the link policy; a void element's children are skipped. */
void xw_html_enter(XhtmlWriter *x, BookIter *it);
void xw_html_end(XhtmlWriter *x, BookNode *n);

/* Before the content that follows a footnote reference inside a link:
 * the elements closed for it open again. */
void xw_reopen_closed(XhtmlWriter *x);

/* EXIT of n that was closed for a footnote reference and not reopened
 * (nothing came after it): it stays closed, only the bookkeeping of open
 * links is undone. False when n is not such a node. */
bool xw_forget_closed(XhtmlWriter *x, BookNode *n);

/* ---- xhtml_notes.c ---- */

/* The id of the k-th reference to note number (k 1: "fnref-N"), stepped
 * aside from the book's own ids. */
void xw_fnref_id(const XhtmlWriter *x, int number, int k, char *buf, size_t size);

/* The note's number, as the link back to its first reference; the links
 * back to its later references. */
void xw_note_label(XhtmlWriter *x, const BookFootnote *f);
void xw_backlinks(XhtmlWriter *x, const BookFootnote *f);

/* The notes whose first reference is in chapter c, as EPUB 3 footnotes. */
void xw_notes(XhtmlWriter *x, BookChapter *c);

/* Index x->page_marks by node (x->marks, x->mark_done, x->mark_moved). */
void xw_index_marks(XhtmlWriter *x);

/* Page breaks at the start of block or inline node n (offset 0). */
void xw_marks_at_start(XhtmlWriter *x, const BookNode *n);

/* The text of n with its page breaks at their byte offsets; a code
 * block's tokens as spans (xw_code_text). */
void xw_text_marked(XhtmlWriter *x, const BookNode *n);
/* Bytes [a, b) of code block n's text, each line of it in a <span
 * class="line"> (class "line marked" for a marked line; its newline
 * inside), its tokens in them as <span class="tok-CLASS"> (a token that
 * runs past a line's end, a or b is cut there). Calls for one block come
 * in order, from x->code zeroed; write_code_block closes the last line. */
void xw_code_text(XhtmlWriter *x, const BookNode *n, size_t a, size_t b);

/* ---- xhtml_front.c ---- */

/* The book's title as the heading of an opening chapter without one. */
void xw_opening_heading(XhtmlWriter *x, BookChapter *c);

/* The title page's <section>. */
void xw_title_block(XhtmlWriter *x);

#endif
