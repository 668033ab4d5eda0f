/* tidy.c: one input's converted tree made regular, before its chapters are
 * split.
 *
 * What it does: turns the ways raw HTML places images into the model's own
 * figures (a paragraph, <p> or HTML block holding only an image; a
 * <figure> with one image and an optional <figcaption>, either alone in a
 * <p> or not, stray <br> and empty <p> around them), turns mdBook's
 * <Listing number file-name caption> around a code block into a captioned
 * listing figure (the caption read as Markdown), drops the lines mdBook
 * hides in an mdBook's Rust code blocks, and moves anchor-only raw HTML (<a id="x"></a>, <a
 * name="x"></a>, alone in its paragraph) into the next block that holds
 * text, so that links to #x land on that block and the anchor makes no
 * block (or chapter) of its own.  What it does not do: resolve the images
 * (resolve.c) or reserve the ids (chapters.c); raw HTML it does not
 * recognise stays as it is.
 */
#include "front.h"

#include <string.h>

static bool is_html(const BookNode *n, const char *tag)
{
  return n && (n->type == BOOK_HTML_BLOCK || n->type == BOOK_HTML_INLINE) && n->as.html.tag &&
         strcmp(n->as.html.tag, tag) == 0;
}

static const char *html_attr(const BookNode *n, const char *name)
{
  for (char **a = n->as.html.attrs; a && a[0] && a[1]; a += 2)
    if (strcmp(a[0], name) == 0)
      return a[1];
  return NULL;
}

/* The one image among n's children when all the others are blank, else
 * NULL. */
static BookNode *only_image(const BookNode *n)
{
  BookNode *img = NULL;
  for (BookNode *k = n->first_child; k; k = k->next) {
    if (k->type == BOOK_IMAGE && !img)
      img = k;
    else if (!book_inline_blank(k))
      return NULL;
  }
  return img;
}

/* A new node of type t in old's place, holding old's children; old is
 * freed. */
static BookNode *replace(Book *b, BookNode *old, BookNodeType t)
{
  BookNode *n = book_node_new(b, t, &old->pos);
  book_node_insert_before(old, n);
  BookNode *k;
  while ((k = old->first_child)) {
    book_node_unlink(k);
    book_node_append(n, k);
  }
  book_node_unlink(old);
  book_node_free(old);
  return n;
}

/* Free n's blank children. */
static void drop_blanks(BookNode *n)
{
  BookNode *k = n->first_child;
  while (k) {
    BookNode *next = k->next;
    if (book_inline_blank(k)) {
      book_node_unlink(k);
      book_node_free(k);
    }
    k = next;
  }
}

/* Raw-HTML blocks whose content is phrasing only (or that are figures
 * already): no figure goes inside them. */
static bool phrasing_only(const char *tag)
{
  static const char *const tags[] = {"p",       "h1",     "h2",         "h3",      "h4",     "h5",
                                     "h6",      "pre",    "summary",    "dt",      "th",     "td",
                                     "caption", "figure", "figcaption", "listing", "address"};
  for (size_t i = 0; i < G_N_ELEMENTS(tags); i++)
    if (strcmp(tag, tags[i]) == 0)
      return true;
  return false;
}

/* A block holding only an image: a Markdown paragraph (raw-HTML images
 * are not made figures by markdown.c), a raw <p>, or a raw container such
 * as <div align="center"> (the figure goes inside it). */
static void image_block(Book *b, BookNode *n)
{
  if (!only_image(n))
    return;
  if (n->type == BOOK_PARAGRAPH || (is_html(n, "p") && !html_attr(n, "id"))) {
    BookNode *fig = replace(b, n, BOOK_FIGURE);
    drop_blanks(fig);
  } else if (n->type == BOOK_HTML_BLOCK && !phrasing_only(n->as.html.tag)) {
    BookNode *img = only_image(n);
    drop_blanks(n);
    BookNode *fig = book_node_new(b, BOOK_FIGURE, &img->pos);
    book_node_insert_before(img, fig);
    book_node_unlink(img);
    book_node_append(fig, img);
  }
}

/* Nothing a figure shows: blank text, a stray <br>, a <p> or paragraph
 * of those. */
static bool stray(const BookNode *n)
{
  if (book_inline_blank(n) || n->type == BOOK_LINEBREAK)
    return true;
  if (n->type != BOOK_PARAGRAPH && !(is_html(n, "p") && !html_attr(n, "id")))
    return false;
  for (const BookNode *k = n->first_child; k; k = k->next)
    if (!stray(k))
      return false;
  return true;
}

/* The one child of n (a <p> or paragraph) that is not stray, or NULL. */
static BookNode *only_child(const BookNode *n)
{
  if (n->type != BOOK_PARAGRAPH && !(is_html(n, "p") && !html_attr(n, "id")))
    return NULL;
  BookNode *one = NULL;
  for (BookNode *k = n->first_child; k; k = k->next) {
    if (stray(k))
      continue;
    if (one)
      return NULL;
    one = k;
  }
  return one;
}

/* Move the content of a raw <figcaption> (inlines, or paragraphs of
 * them) into a new BOOK_FIGCAPTION; NULL, and nothing moved, when it holds
 * anything else. */
static BookNode *caption_from(Book *b, BookNode *fc)
{
  for (BookNode *k = fc->first_child; k; k = k->next)
    if (!book_node_is_inline(k->type) && k->type != BOOK_PARAGRAPH)
      return NULL;
  BookNode *cap = book_node_new(b, BOOK_FIGCAPTION, &fc->pos);
  BookNode *k;
  while ((k = fc->first_child)) {
    book_node_unlink(k);
    if (k->type == BOOK_PARAGRAPH) {
      if (cap->last_child)
        book_node_append(cap, book_node_new(b, BOOK_SOFTBREAK, &k->pos));
      BookNode *m;
      while ((m = k->first_child)) {
        book_node_unlink(m);
        book_node_append(cap, m);
      }
      book_node_free(k);
    } else {
      book_node_append(cap, k);
    }
  }
  /* blank text (and a stray <br>) at either end is the HTML source's layout */
  while (cap->first_child && stray(cap->first_child)) {
    BookNode *f = cap->first_child;
    book_node_unlink(f);
    book_node_free(f);
  }
  while (cap->last_child && stray(cap->last_child)) {
    BookNode *l = cap->last_child;
    book_node_unlink(l);
    book_node_free(l);
  }
  return cap;
}

/* <figure> holding one image (bare, as a figure already, or alone in a
 * <p>) and at most one <figcaption> (bare or alone in a <p>), before or
 * after it, stray <br> and empty <p> apart (HTML authors' spacing, which
 * HTML's content model does not allow there): the model's figure with a
 * caption. Anything else stays raw HTML. */
static void html_figure(Book *b, BookNode *n)
{
  BookNode *img = NULL, *fc = NULL;
  if (html_attr(n, "id"))
    return;
  for (BookNode *k = n->first_child; k; k = k->next) {
    if (stray(k))
      continue;
    BookNode *in = only_child(k);
    BookNode *c = in ? in : k;
    if (!img && c->type == BOOK_IMAGE)
      img = c;
    else if (!img && c->type == BOOK_FIGURE && !c->as.figure.listing &&
             c->first_child == c->last_child)
      img = c->first_child;
    else if (!fc && is_html(c, "figcaption") && !html_attr(c, "id"))
      fc = c;
    else
      return;
  }
  if (!img)
    return;
  BookNode *cap = fc ? caption_from(b, fc) : NULL;
  if (fc && !cap)
    return;
  BookNode *fig = book_node_new(b, BOOK_FIGURE, &n->pos);
  book_node_insert_before(n, fig);
  book_node_unlink(img);
  book_node_append(fig, img);
  if (cap)
    book_node_append(fig, cap);
  book_node_unlink(n);
  book_node_free(n);
}

/* mdBook's <Listing number="N" file-name="F" caption="C">: a listing
 * figure of its blocks with the caption "Listing N: C" (inlines at its top
 * level become a paragraph). */
static void listing(Ctx *c, BookNode *n)
{
  Book *b = c->book;
  const char *number = html_attr(n, "number"), *file = html_attr(n, "file-name"),
             *caption = html_attr(n, "caption");
  char *num = number ? g_strstrip(g_strdup(number)) : NULL;
  char *fname = file ? g_strstrip(g_strdup(file)) : NULL;
  char *cap = caption ? g_strstrip(g_strdup(caption)) : NULL;
  drop_blanks(n);
  BookNode *fig = replace(b, n, BOOK_FIGURE);
  fig->as.figure.listing = true;
  fig->as.figure.file_name = fname && *fname ? g_strdup(fname) : NULL;
  /* runs of inlines at the top become paragraphs */
  BookNode *run = NULL;
  for (BookNode *k = fig->first_child, *next; k; k = next) {
    next = k->next;
    if (!book_node_is_inline(k->type)) {
      run = NULL;
      continue;
    }
    if (!run) {
      run = book_node_new(b, BOOK_PARAGRAPH, &k->pos);
      book_node_insert_before(k, run);
    }
    book_node_unlink(k);
    book_node_append(run, k);
  }
  if ((num && *num) || (cap && *cap)) {
    BookNode *fc = book_node_new(b, BOOK_FIGCAPTION, &fig->pos);
    if (num && *num) {
      BookNode *t = book_node_new(b, BOOK_TEXT, &fig->pos);
      t->text = g_strdup_printf("Listing %s%s", num, cap && *cap ? ": " : "");
      book_node_append(fc, t);
    }
    if (cap && *cap) { /* mdBook reads the caption as Markdown */
      BookNode *p = md_parse_inlines(c, cap, &fig->pos);
      for (BookNode *k; (k = p->first_child);) {
        book_node_unlink(k);
        book_node_append(fc, k);
      }
      book_node_free(p);
    }
    if (fig->first_child) {
      book_node_append(fig, fc);
    } else { /* no code: the caption alone, as a paragraph */
      fc->type = BOOK_PARAGRAPH;
      book_node_insert_before(fig, fc);
    }
  }
  if (!fig->first_child) {
    book_node_unlink(fig);
    book_node_free(fig);
  }
  g_free(num);
  g_free(fname);
  g_free(cap);
}

/* ---- anchors ---- */

/* <a id="x"></a>: a raw anchor with an id and nothing inside. */
static bool is_anchor(const BookNode *n)
{
  return is_html(n, "a") && n->type == BOOK_HTML_INLINE && !n->first_child && html_attr(n, "id");
}

/* A paragraph holding only anchors (and blank text between them). */
static bool anchor_paragraph(const BookNode *n)
{
  if (!n || n->type != BOOK_PARAGRAPH)
    return false;
  bool any = false;
  for (const BookNode *k = n->first_child; k; k = k->next) {
    if (is_anchor(k))
      any = true;
    else if (!book_inline_blank(k))
      return false;
  }
  return any;
}

/* The first block at or inside n that holds inlines, where an anchor can
 * go, or NULL (a code block, a rule, a figure without a caption ...). */
static BookNode *text_block(BookNode *n)
{
  while (n) {
    switch (n->type) {
    case BOOK_HEADING:
    case BOOK_PARAGRAPH:
    case BOOK_TABLE_CELL:
    case BOOK_FIGCAPTION: return n;
    case BOOK_BLOCKQUOTE:
    case BOOK_LIST:
    case BOOK_ITEM:
    case BOOK_TABLE:
    case BOOK_TABLE_ROW: n = n->first_child; break;
    case BOOK_FIGURE:
      n = n->last_child && n->last_child->type == BOOK_FIGCAPTION ? n->last_child : NULL;
      break;
    case BOOK_HTML_BLOCK:
      if (is_html(n, "p") || (n->as.html.tag[0] == 'h' && g_ascii_isdigit(n->as.html.tag[1])))
        return n;
      if (n->first_child && book_node_is_inline(n->first_child->type))
        return NULL; /* text straight in a <div>: no place to prepend safely */
      n = n->first_child;
      break;
    default: return NULL;
    }
  }
  return NULL;
}

/* Move the anchors of an anchor paragraph to the start of the next block
 * that holds text; the paragraph goes.  Without such a block it stays. */
static void move_anchors(BookNode *p)
{
  BookNode *next = p->next;
  while (next && anchor_paragraph(next))
    next = next->next;
  BookNode *target = text_block(next);
  if (!target)
    return;
  BookNode *first = target->first_child;
  BookNode *k;
  while ((k = p->first_child)) {
    book_node_unlink(k);
    if (!is_anchor(k)) {
      book_node_free(k);
      continue;
    }
    if (first)
      book_node_insert_before(first, k);
    else
      book_node_append(target, k);
  }
  book_node_unlink(p);
  book_node_free(p);
}

/* ---- mdBook's hidden lines ---- */

/* A code block mdBook reads as Rust: its info string's language (before a
 * comma: "rust,ignore", "rust,no_run", "rust,edition2021") is rust. A block
 * without a language is not Rust to mdBook (it hides nothing there). */
static bool rust_block(const BookNode *n)
{
  const char *info = n->as.code.info;
  if (!info)
    return false;
  size_t len = strcspn(info, ", \t");
  return len == 4 && strncmp(info, "rust", 4) == 0;
}

/* The lines of a Rust code block as mdBook shows them (rustdoc's rule):
 * a line whose first non-blank character is '#' followed by a space or by
 * nothing is hidden; "##" shows as "#" (the first '#' goes); any other '#'
 * line ("#[derive]", "#![allow]") shows as it is. */
static void hide_rust_lines(BookNode *n)
{
  const char *p = n->text;
  GString *out = g_string_sized_new(strlen(p));
  while (*p) {
    const char *nl = strchr(p, '\n');
    const char *end = nl ? nl : p + strlen(p);
    const char *q = p;
    while (q < end && (*q == ' ' || *q == '\t'))
      q++;
    const char *next = nl ? nl + 1 : end;
    if (q < end && *q == '#' && (q + 1 == end || q[1] == ' ' || q[1] == '\r')) {
      p = next; /* hidden */
      continue;
    }
    if (q < end && *q == '#' && q + 1 < end && q[1] == '#') {
      g_string_append_len(out, p, q - p); /* "##": one '#' goes */
      g_string_append_len(out, q + 1, next - q - 1);
    } else {
      g_string_append_len(out, p, next - p);
    }
    p = next;
  }
  g_free(n->text);
  n->text = g_string_free(out, FALSE);
}

void md_tidy(Ctx *c, Src *s)
{
  Book *b = c->book;
  BookNode *tree = s->root;
  GPtrArray *todo = g_ptr_array_new();
  BookIter it;
  book_iter_init(&it, tree);
  /* On EXIT: children before parents, so that a figure's image is already
   * a figure when the <figure> around it is looked at, and a node freed is
   * never one still to do. */
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (it.ev == BOOK_ITER_ENTER && book_node_is_inline(n->type))
      book_iter_skip_children(&it);
    else if (it.ev == BOOK_ITER_ENTER && n->type == BOOK_CODE_BLOCK && s->mdbook && rust_block(n))
      hide_rust_lines(n);
    else if (it.ev == BOOK_ITER_EXIT && (n->type == BOOK_PARAGRAPH || n->type == BOOK_HTML_BLOCK))
      g_ptr_array_add(todo, n);
  }
  for (guint i = 0; i < todo->len; i++) {
    BookNode *n = todo->pdata[i];
    if (is_html(n, "listing"))
      listing(c, n);
    else if (is_html(n, "figure"))
      html_figure(b, n);
    else
      image_block(b, n);
  }
  /* Anchors last: their target may have become a figure. */
  g_ptr_array_set_size(todo, 0);
  book_iter_init(&it, tree);
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    if (it.ev == BOOK_ITER_ENTER && book_node_is_inline(it.cur->type))
      book_iter_skip_children(&it);
    else if (it.ev == BOOK_ITER_EXIT && anchor_paragraph(it.cur))
      g_ptr_array_add(todo, it.cur);
  }
  /* Last first: a run of anchor paragraphs ends up in one block, in order. */
  for (guint i = todo->len; i-- > 0;)
    move_anchors(todo->pdata[i]);
  g_ptr_array_free(todo, TRUE);
}
