/* xhtml.c: the document model -> XHTML5 (XML syntax) with libxml2's
 * xmlTextWriter, which does all escaping.
 *
 * One tree walker (BookIter, no recursion) writes a chapter's body; the
 * three products wrap it: EPUB chapter documents (xhtml_chapter_document),
 * the whole book as one document (xhtml_write_file) and the bare bodies as
 * an HTML fragment (xhtml_fragment), which are byte for byte what stands
 * inside the chapter documents' <section>.
 *
 * This file holds the writer, the document shell and the walk over the
 * blocks; the inlines, links and raw HTML are in xhtml_inline.c, the
 * footnotes and page breaks in xhtml_notes.c, the title page, cover and
 * colophon in xhtml_front.c (see xhtml_internal.h).
 *
 * What this stage does not do: decide which raw HTML is allowed (the model
 * holds only cleaned, allow-listed elements), find images (the model's
 * resources), or package anything (epub.c). */
#include "xhtml_internal.h"

#include "labels.h"
#include "util.h"

/* ---- small helpers ---- */

static bool xml_char(gunichar c)
{
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

/* What each byte of text asks of the writer (xw_text_kind): an ASCII
 * character libxml2 escapes in text (xmlEncodeSpecialChars: < > & " and
 * CR), a C0 control XML 1.0 forbids, or (HIGH) the first byte of a
 * character to decode. */
enum { HIGH = 4 };
/* clang-format off */
static const guint8 byte_kind[256] = {
    [0x00 ... 0x08] = XW_DROP, /* tab and line feed: 0 */
    [0x0B ... 0x0C] = XW_DROP,
    ['\r'] = XW_ESCAPE,
    [0x0E ... 0x1F] = XW_DROP,
    ['<'] = XW_ESCAPE,
    ['>'] = XW_ESCAPE,
    ['&'] = XW_ESCAPE,
    ['"'] = XW_ESCAPE,
    [0x80 ... 0xFF] = HIGH,
};
/* clang-format on */

unsigned xw_text_kind(const char *s, size_t len)
{
  const guchar *p = (const guchar *)s, *e = p + len;
  unsigned kind = 0;
  while (p < e) {
    unsigned k = byte_kind[*p];
    if (k != HIGH) {
      kind |= k;
      p++;
      continue;
    }
    /* one pass: glib decodes (and validates) only the non-ASCII characters */
    gunichar c = g_utf8_get_char_validated((const char *)p, e - p);
    if (c == (gunichar)-1 || c == (gunichar)-2 || !xml_char(c))
      return kind | XW_DROP;
    p = (const guchar *)g_utf8_next_char(p);
  }
  return kind;
}

/* s (len bytes) as text XML can carry: escaping is libxml2's, but a
 * character XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF) cannot be
 * escaped at all, so it is dropped; invalid UTF-8 becomes U+FFFD. Returns
 * s itself when it is clean, else a new string in *tmp (caller frees). */
const char *xw_clean(const char *s, size_t len, char **tmp)
{
  *tmp = NULL;
  if (!(xw_text_kind(s, len) & XW_DROP))
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
  const char *c = xw_clean(s ? s : "", s ? strlen(s) : 0, &tmp);
  return tmp ? tmp : g_strdup(c);
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

/* ---- the block walk ---- */

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

/* A figure shows its image when the image has a local file; otherwise it
 * is a paragraph of the alt text (see write_image). */
static bool figure_has_image(const BookNode *fig)
{
  const BookNode *img = fig->first_child;
  return img && img->type == BOOK_IMAGE && img->as.image.res;
}

/* The figure's BOOK_FIGCAPTION, or NULL. */
BookNode *xw_figure_caption(const BookNode *fig)
{
  return fig->last_child && fig->last_child->type == BOOK_FIGCAPTION ? fig->last_child : NULL;
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

/* A block whose text reads against the book's direction (its first strong
 * character, as HTML's dir="auto" decides) gets a dir of its own, so that
 * a reading system without dir="auto" sets it on the right side. */
static void block_dir(XhtmlWriter *x, const BookNode *n)
{
  int d = book_node_dir(n);
  bool rtl = x->book->meta.rtl;
  if (d > 0 && !rtl)
    attr(x, "dir", "rtl");
  else if (d < 0 && rtl)
    attr(x, "dir", "ltr");
}

static void enter_heading(XhtmlWriter *x, BookNode *n)
{
  /* the e-book's headings never skip a level (Ace's heading order);
   * the HTML fragment keeps the source's levels */
  char tag[4];
  int level = x->mode == MODE_EPUB ? book_outline_level(&x->heads, n->as.heading.level)
                                   : CLAMP(n->as.heading.level, 1, 6);
  g_snprintf(tag, sizeof tag, "h%d", level);
  start(x, tag);
  attr(x, "id", n->as.heading.id);
  bool dir = false;
  for (char **a = n->as.heading.attrs; a && a[0] && a[1]; a += 2) {
    attr(x, a[0], a[1]); /* class, data-*: from the source's {.class key=value} */
    dir |= strcmp(a[0], "dir") == 0;
  }
  if (!dir)
    block_dir(x, n);
  xw_marks_at_start(x, n);
}

/* A definition list's term or definition: <dt>, <dd>. */
static void enter_def(XhtmlWriter *x, BookNode *n, const char *tag)
{
  start(x, tag);
  xw_marks_at_start(x, n);
  if (n->type == BOOK_DEFDESC)
    nl(x);
}

static void enter_paragraph(XhtmlWriter *x, BookNode *n)
{
  if (!in_tight_list(n)) {
    start(x, "p");
    block_dir(x, n);
  }
  xw_marks_at_start(x, n);
  if (box_in_paragraph(n))
    write_task_box(x, n->parent);
}

static void enter_list(XhtmlWriter *x, BookNode *n)
{
  xw_marks_at_start(x, n);
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
  bool tasks = false;
  for (BookNode *i = n->first_child; i && !tasks; i = i->next)
    tasks = i->type == BOOK_ITEM && i->as.item.task != BOOK_TASK_NONE;
  if (tasks)
    attr(x, "class", "task-list");
  nl(x);
}

static void enter_item(XhtmlWriter *x, BookNode *n)
{
  start(x, "li");
  if (n->as.item.task != BOOK_TASK_NONE)
    attr(x, "class", "task-list-item");
  if (n->first_child && n->first_child->type == BOOK_PARAGRAPH)
    block_dir(x, n->first_child); /* (a nested list's whole text is not read: linear) */
  xw_marks_at_start(x, n);
  if (n->as.item.task != BOOK_TASK_NONE && !box_in_paragraph(n->first_child))
    write_task_box(x, n);
}

/* A block that opens an element and a line: a quote, a table. */
static void enter_container(XhtmlWriter *x, BookNode *n, const char *tag)
{
  xw_marks_at_start(x, n);
  start(x, tag);
  nl(x);
}

/* Bytes [a, b) of code block n's text, its tokens as spans; *lo: the
 * first token that may reach past a. */
static void token_text(XhtmlWriter *x, const BookNode *n, size_t a, size_t b, guint *lo)
{
  const char *s = n->text;
  const BookToken *t = n->as.code.tokens;
  while (*lo < n->as.code.ntokens && (size_t)t[*lo].start + t[*lo].len <= a)
    ++*lo;
  size_t at = a;
  for (guint i = *lo; i < n->as.code.ntokens && t[i].start < b; i++) {
    size_t ts = MAX(t[i].start, at), te = MIN((size_t)t[i].start + t[i].len, b);
    text_len(x, s + at, ts - at);
    char cls[32] = "tok-";
    g_strlcat(cls, book_tok_name(t[i].cls), sizeof cls);
    start(x, "span");
    attr(x, "class", cls);
    text_len(x, s + ts, te - ts);
    end(x);
    at = te;
  }
  text_len(x, s + at, b - at);
}

void xw_code_text(XhtmlWriter *x, const BookNode *n, size_t a, size_t b)
{
  const BookToken *t = n->as.code.tokens;
  guint lo = 0, hi = n->as.code.ntokens;
  while (lo < hi) { /* the first token that ends after a */
    guint mid = lo + (hi - lo) / 2;
    if (t[mid].start + t[mid].len <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  while (a < b) {
    if (!x->code.open) {
      if (x->code.line == 0)
        x->code.line = 1;
      start(x, "span");
      attr(x, "class", book_code_marked(n, x->code.line, &x->code.mark_at) ? "line marked" : "line");
      x->code.open = true;
    }
    const char *nl = memchr(n->text + a, '\n', b - a);
    size_t e = nl ? (size_t)(nl - n->text) + 1 : b;
    token_text(x, n, a, e, &lo);
    a = e;
    if (nl) {
      end(x);
      x->code.open = false;
      x->code.line++;
    }
  }
}

/* <pre class="numbered"> for a listing whose lines the source numbers,
 * "unnumbered" for one it refuses them, neither for the style's default
 * (styles/book.css: pre.numbered); the first number as the code's
 * counter-reset. A listing wider than the reader's page scrolls
 * (styles/book.css: its lines are never wrapped, a drawing stays whole),
 * so it is focusable (tabindex 0): a keyboard scrolls it too (WCAG 2.1.1,
 * axe's scrollable-region-focusable). */
static void write_code_block(XhtmlWriter *x, BookNode *n)
{
  start(x, "pre");
  if (x->book->meta.rtl)
    attr(x, "dir", "ltr"); /* code reads left to right in any book */
  if (n->as.code.linenos != BOOK_LINENOS_DEFAULT)
    attr(x, "class", n->as.code.linenos == BOOK_LINENOS_ON ? "numbered" : "unnumbered");
  attr(x, "tabindex", "0");
  start(x, "code");
  if (n->as.code.info && *n->as.code.info) {
    char *cls = g_strconcat("language-", n->as.code.info, NULL);
    attr(x, "class", cls);
    g_free(cls);
  }
  if (n->as.code.line_offset) {
    char *css = g_strdup_printf("counter-reset: line %d", n->as.code.line_offset);
    attr(x, "style", css);
    g_free(css);
  }
  xw_marks_at_start(x, n);
  memset(&x->code, 0, sizeof x->code);
  xw_text_marked(x, n);
  if (x->code.open)
    end(x);
  memset(&x->code, 0, sizeof x->code);
  end(x);
  end(x);
  nl(x);
}

static void write_thematic_break(XhtmlWriter *x, BookNode *n)
{
  xw_marks_at_start(x, n);
  start(x, "hr");
  end_void(x);
  nl(x);
}

static void enter_row(XhtmlWriter *x, BookNode *n)
{
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
}

static void enter_cell(XhtmlWriter *x, BookNode *n)
{
  bool header = n->parent && n->parent->type == BOOK_TABLE_ROW && n->parent->as.row.header;
  start(x, header ? "th" : "td");
  if (header)
    attr(x, "scope", "col");
  attr(x, "class", align_class(n));
  if (!n->prev && n->parent)
    xw_marks_at_start(x, n->parent);
  xw_marks_at_start(x, n);
}

static void enter_figure(XhtmlWriter *x, BookNode *n)
{
  xw_marks_at_start(x, n);
  if (n->as.figure.listing) {
    /* caption first, then the file name, then the code */
    start(x, "figure");
    attr(x, "class", "listing");
    if (xw_figure_caption(n))
      write_subtree(x, xw_figure_caption(n));
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
}

static void enter_figcaption(XhtmlWriter *x, BookIter *it)
{
  BookNode *n = it->cur;
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
  xw_marks_at_start(x, n);
}

/* ENTER of any node: one function per kind of block; the inlines are
 * xhtml_inline.c's. */
static void enter(XhtmlWriter *x, BookIter *it)
{
  BookNode *n = it->cur;
  if (x->closed->len && n->type != BOOK_FOOTNOTE_REF)
    xw_reopen_closed(x);
  switch (n->type) {
  case BOOK_ROOT:
  case BOOK_FOOTNOTE_DEF: /* written by xw_notes */ break;
  case BOOK_HEADING: enter_heading(x, n); break;
  case BOOK_PARAGRAPH: enter_paragraph(x, n); break;
  case BOOK_LIST: enter_list(x, n); break;
  case BOOK_ITEM: enter_item(x, n); break;
  case BOOK_BLOCKQUOTE: enter_container(x, n, "blockquote"); break;
  case BOOK_DEFLIST: enter_container(x, n, "dl"); break;
  case BOOK_DEFTERM: enter_def(x, n, "dt"); break;
  case BOOK_DEFDESC: enter_def(x, n, "dd"); break;
  case BOOK_CODE_BLOCK: write_code_block(x, n); break;
  case BOOK_THEMATIC_BREAK: write_thematic_break(x, n); break;
  case BOOK_TABLE: enter_container(x, n, "table"); break;
  case BOOK_TABLE_ROW: enter_row(x, n); break;
  case BOOK_TABLE_CELL: enter_cell(x, n); break;
  case BOOK_FIGURE: enter_figure(x, n); break;
  case BOOK_FIGCAPTION: enter_figcaption(x, it); break;
  case BOOK_HTML_BLOCK:
  case BOOK_HTML_INLINE: xw_html_enter(x, it); break;
  default: xw_inline_enter(x, it); break;
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

static void leave_figure(XhtmlWriter *x, BookNode *n)
{
  BookNode *img = n->first_child;
  if (figure_has_image(n) && !xw_figure_caption(n) && img->as.image.title && *img->as.image.title) {
    start(x, "figcaption");
    text(x, img->as.image.title);
    end(x);
  }
  end(x);
  nl(x);
}

/* EXIT of any node. */
static void leave(XhtmlWriter *x, BookNode *n)
{
  if (xw_forget_closed(x, n))
    return;
  switch (n->type) {
  case BOOK_PARAGRAPH:
    if (!in_tight_list(n)) {
      end(x);
      nl(x);
    } else if (n->next) {
      nl(x);
    }
    break;
  case BOOK_TABLE:
    if (n->last_child) {
      end(x); /* thead or tbody */
      nl(x);
    }
    end(x);
    nl(x);
    break;
  case BOOK_HEADING:
  case BOOK_LIST:
  case BOOK_BLOCKQUOTE:
  case BOOK_ITEM:
  case BOOK_TABLE_CELL:
  case BOOK_DEFLIST:
  case BOOK_DEFTERM:
  case BOOK_DEFDESC:
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
  case BOOK_FIGCAPTION:
    if (!(n->parent && n->parent->type == BOOK_FIGURE && n->parent->as.figure.listing &&
          !x->in_caption))
      end(x);
    nl(x);
    break;
  case BOOK_FIGURE: leave_figure(x, n); break;
  case BOOK_HTML_BLOCK:
    xw_html_end(x, n);
    nl(x);
    break;
  case BOOK_HTML_INLINE: xw_html_end(x, n); break;
  default: xw_inline_leave(x, n); break;
  }
}

/* Walk a tree (a chapter's root, or a note's definition). For a note, the
 * backlinks go at the end of its last paragraph, or after its blocks. */
void xw_tree(XhtmlWriter *x, BookNode *root, const BookFootnote *note)
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
          xw_note_label(x, note);
          continue;
        }
        start(x, "p");
        xw_note_label(x, note);
        end(x);
        nl(x);
      }
      enter(x, &it);
    } else {
      if (note && n->type == BOOK_PARAGRAPH && n->parent == root && !n->next) {
        xw_backlinks(x, note);
        note = NULL;
      }
      if (n == root && is_note)
        continue;
      leave(x, n);
    }
  }
  if (is_note && !root->first_child) {
    start(x, "p");
    xw_note_label(x, note);
    end(x);
    nl(x);
  } else if (note && note->nrefs > 1) {
    start(x, "p");
    xw_backlinks(x, note);
    end(x);
    nl(x);
  }
}

static void write_chapter_body(XhtmlWriter *x, BookChapter *c)
{
  x->cur = c;
  x->heads = (BookOutlineLevels){0};
  x->in_link = 0;
  g_ptr_array_set_size(x->links, 0);
  g_ptr_array_set_size(x->closed, 0);
  if (x->mode == MODE_EPUB && c->index == 0 && !c->heading)
    xw_opening_heading(x, c);
  xw_tree(x, c->root, NULL);
  xw_notes(x, c);
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
  xw_index_marks(x);
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

/* libxml2's output callback: the bytes appended to the document's string
 * (as xmlNewTextWriterMemory appends them to an xmlBuffer, which would be
 * copied out again). */
static int append_out(void *out, const char *bytes, int len)
{
  g_string_append_len(out, bytes, len);
  return len;
}

GString *xw_open_buffer(XhtmlWriter *x)
{
  GString *out = g_string_sized_new(65536);
  x->w = xmlNewTextWriter(xmlOutputBufferCreateIO(append_out, NULL, out, NULL));
  return out;
}

char *xw_close_buffer(XhtmlWriter *x, GString *out)
{
  xmlTextWriterFlush(x->w);
  xmlFreeTextWriter(x->w); /* and its output buffer */
  x->w = NULL;
  return g_string_free(out, FALSE);
}

/* <?xml?>, <!DOCTYPE html>, <html>, <head> with title and stylesheet, <body>. */
void xw_doc_begin(XhtmlWriter *x, const char *title, const char *css_href, const char *inline_css,
                  const char *body_type)
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
  if (x->book->meta.rtl)
    attr(x, "dir", "rtl");
  else if (labels_rtl(lang)) /* dir metadata against the language's */
    attr(x, "dir", "ltr");
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

void xw_doc_end(XhtmlWriter *x)
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
  GString *buf = xw_open_buffer(x);
  xw_doc_begin(x, chapter_title(x->book, c), css_href, NULL, "bodymatter");
  write_chapter_section(x, c, c->id);
  xw_doc_end(x);
  return xw_close_buffer(x, buf);
}
void xhtml_fragment(Book *book, const OctavoOptions *opts, GString *out)
{
  XhtmlWriter *x = writer_new(book, opts, MODE_FRAGMENT);
  GString *buf = xw_open_buffer(x);
  for (guint i = 0; i < book->chapters->len; i++)
    write_chapter_body(x, book->chapters->pdata[i]);
  char *s = xw_close_buffer(x, buf);
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
  GString *buf = xw_open_buffer(x);
  xw_doc_begin(x, book->meta.title, NULL, css, "bodymatter");
  xw_title_block(x);
  for (guint i = 0; i < book->chapters->len; i++) {
    BookChapter *c = book->chapters->pdata[i];
    write_chapter_section(x, c, c->id);
  }
  xw_doc_end(x);
  char *s = xw_close_buffer(x, buf);
  bool ok = write_out(book, path, s);
  g_free(s);
  g_free(css);
  xhtml_writer_free(x);
  return ok;
}
