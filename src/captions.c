/* captions.c: which text is a figure's, listing's or table's caption,
 * decided once in the model, after md_tidy has made the figures.
 *
 * A caption is the author's: a <figcaption> (tidy.c), the paragraph next
 * to the object that reads as one: "Figure 4-1: ...",
 * "Listing 2-1 ...", "Table 3-1: ..." (a label, a number, then ':' '.' or
 * nothing more), or a paragraph holding only <span class="caption">, the
 * convention of many mdBooks (the Rust book's).  An image's alt text is
 * never a caption: it stays the image's text alternative (the EPUB's alt,
 * the PDF's /Alt).  A "Filename: src/main.rs" paragraph (or <span
 * class="filename">) right before a code block is that listing's file name.
 *
 * The result is the model's own figure (book.h): an image figure with its
 * BOOK_FIGCAPTION last; a code block or table with a caption or a file name
 * becomes a listing figure (listing = true: blocks, captioned above them).
 * The caption paragraph is moved into the figure, so its words stay in the
 * book once; a figure without one shows its image's title (book.h).  What it does not do: number captions or change their text. */
#include "front.h"

#include <string.h>

static bool is_span(const BookNode *n, const char *cls)
{
  if (!n || n->type != BOOK_HTML_INLINE || !n->as.html.tag || strcmp(n->as.html.tag, "span") != 0)
    return false;
  for (char **a = n->as.html.attrs; a && a[0] && a[1]; a += 2)
    if (strcmp(a[0], "class") == 0)
      return strstr(a[1], cls) != NULL;
  return false;
}

/* White space, a line break too. */
static bool blank(const BookNode *n)
{
  return n->type == BOOK_LINEBREAK || book_inline_blank(n);
}

/* The paragraph's one span of class cls (blank text around it apart), or NULL. */
static BookNode *only_span(const BookNode *p, const char *cls)
{
  BookNode *s = NULL;
  for (BookNode *k = p->first_child; k; k = k->next) {
    if (!s && is_span(k, cls))
      s = k;
    else if (!blank(k))
      return NULL;
  }
  return s;
}

/* Does text start with one of labels (a word, then a number: "Figure
 * 4-1:", "Table 3.", "Listing 12")? */
static bool labelled(const char *t, const char *const *labels)
{
  while (g_ascii_isspace(*t))
    t++;
  for (const char *const *l = labels; *l; l++) {
    size_t n = strlen(*l);
    if (g_ascii_strncasecmp(t, *l, n) != 0 || t[n] != ' ' || !g_ascii_isdigit(t[n + 1]))
      continue;
    const char *p = t + n + 1;
    while (g_ascii_isdigit(*p) || ((*p == '-' || *p == '.') && g_ascii_isdigit(p[1])))
      p++;
    return *p == ':' || *p == '.' || *p == 0 || (*p == ' ' && (p[1] == '-' || p[1] == 0)) ||
           strncmp(p, " \xE2\x80\x94", 4) == 0 || strncmp(p, " \xE2\x80\x93", 4) == 0;
  }
  return false;
}

/* Is n a paragraph that captions an object of the kind labels name? */
static bool caption_para(const BookNode *n, const char *const *labels)
{
  if (!n || n->type != BOOK_PARAGRAPH)
    return false;
  if (only_span(n, "caption"))
    return true;
  GString *t = g_string_new(NULL);
  book_node_text(n, t);
  bool yes = t->len < 400 && labelled(t->str, labels);
  g_string_free(t, TRUE);
  return yes;
}

/* p's inlines (a span.caption's, unwrapped) moved into a new
 * BOOK_FIGCAPTION; p is freed. */
static BookNode *take_caption(Book *b, BookNode *p)
{
  BookNode *cap = book_node_new(b, BOOK_FIGCAPTION, &p->pos);
  BookNode *span = only_span(p, "caption");
  BookNode *from = span ? span : p, *k;
  while ((k = from->first_child)) {
    book_node_unlink(k);
    book_node_append(cap, k);
  }
  while (cap->first_child && blank(cap->first_child)) {
    k = cap->first_child;
    book_node_unlink(k);
    book_node_free(k);
  }
  while (cap->last_child && blank(cap->last_child)) {
    k = cap->last_child;
    book_node_unlink(k);
    book_node_free(k);
  }
  book_node_unlink(p);
  book_node_free(p);
  return cap;
}

/* "Filename: F" (or a span.filename holding it) before a code block: F,
 * newly allocated; else NULL. */
static char *file_name_para(const BookNode *n)
{
  if (!n || n->type != BOOK_PARAGRAPH)
    return NULL;
  GString *t = g_string_new(NULL);
  book_node_text(n, t);
  char *s = g_strstrip(t->str);
  char *name = NULL;
  if (g_ascii_strncasecmp(s, "Filename:", 9) == 0 || g_ascii_strncasecmp(s, "File:", 5) == 0) {
    char *f = g_strstrip(strchr(s, ':') + 1);
    if (*f && !strpbrk(f, " \t\n") && strlen(f) < 200)
      name = g_strdup(f);
  }
  g_string_free(t, TRUE);
  return name;
}

/* The block after n, where its caption would be: n's next sibling, or the
 * next of a container n ends (an HTML <p> or <div> around a figure). */
static BookNode *after(BookNode *n)
{
  while (n && !n->next && n->parent && n->parent->type == BOOK_HTML_BLOCK)
    n = n->parent;
  return n ? n->next : NULL;
}

static const char *const fig_labels[] = {"Figure", "Fig.", "Image", "Diagram", NULL};
static const char *const listing_labels[] = {"Listing", "Example", NULL};
static const char *const table_labels[] = {"Table", NULL};

static void image_caption(Book *b, BookNode *fig)
{
  if (fig->last_child && fig->last_child->type == BOOK_FIGCAPTION)
    return;
  BookNode *img = fig->first_child;
  BookNode *next = after(fig);
  /* (without one, the writers show the image's title as its caption, when
   * the image is drawn: book.h) */
  (void)img;
  if (caption_para(next, fig_labels))
    book_node_append(fig, take_caption(b, next));
}

/* A code block or table with a caption or file name next to it: a listing
 * figure of it. */
static void block_caption(Book *b, BookNode *n)
{
  const char *const *labels = n->type == BOOK_TABLE ? table_labels : listing_labels;
  BookNode *prev = n->prev, *next = n->next, *capp = NULL;
  char *fname = n->type == BOOK_CODE_BLOCK ? file_name_para(prev) : NULL;
  BookNode *fname_p = fname ? prev : NULL;
  if (fname)
    prev = prev->prev;
  /* a table's caption is usually above it, a listing's below */
  if (n->type == BOOK_TABLE)
    capp = caption_para(prev, labels) ? prev : caption_para(next, labels) ? next : NULL;
  else
    capp = caption_para(next, labels) ? next : caption_para(prev, labels) ? prev : NULL;
  if (!capp && !fname)
    return;
  BookNode *fig = book_node_new(b, BOOK_FIGURE, &n->pos);
  fig->as.figure.listing = true;
  fig->as.figure.file_name = fname;
  book_node_insert_before(n, fig);
  book_node_unlink(n);
  book_node_append(fig, n);
  if (capp)
    book_node_append(fig, take_caption(b, capp));
  if (fname_p) {
    book_node_unlink(fname_p);
    book_node_free(fname_p);
  }
}

void md_captions(Ctx *c, BookNode *tree)
{
  GPtrArray *todo = g_ptr_array_new();
  BookIter it;
  book_iter_init(&it, tree);
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (it.ev != BOOK_ITER_ENTER)
      continue;
    if (book_node_is_inline(n->type) || n->type == BOOK_TABLE || n->type == BOOK_CODE_BLOCK)
      book_iter_skip_children(&it);
    if (n->type == BOOK_FIGURE) {
      if (!n->as.figure.listing)
        g_ptr_array_add(todo, n);
      book_iter_skip_children(&it);
    } else if (n->type == BOOK_TABLE || n->type == BOOK_CODE_BLOCK) {
      g_ptr_array_add(todo, n);
    }
  }
  for (guint i = 0; i < todo->len; i++) {
    BookNode *n = todo->pdata[i];
    if (n->type == BOOK_FIGURE)
      image_caption(c->book, n);
    else
      block_caption(c->book, n);
  }
  g_ptr_array_free(todo, TRUE);
}
