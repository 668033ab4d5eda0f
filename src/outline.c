/* outline.c: the section tree of the book (outline.h). Reads the model
 * only; draws and writes nothing. */
#include "outline.h"

#include <string.h>

/* The plain text of a heading (as book_node_text) with its code spans. */
static char *heading_text(const BookNode *h, GArray *code)
{
  GString *s = g_string_new(NULL);
  BookIter it;
  book_iter_init(&it, (BookNode *)h);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    if (ev != BOOK_ITER_ENTER)
      continue;
    const BookNode *n = it.cur;
    if ((n->type == BOOK_TEXT || n->type == BOOK_CODE) && n->text) {
      OutlineSpan sp = {s->len, s->len + strlen(n->text)};
      g_string_append(s, n->text);
      if (n->type == BOOK_CODE && sp.end > sp.start)
        g_array_append_val(code, sp);
    } else if (n->type == BOOK_SOFTBREAK || n->type == BOOK_LINEBREAK)
      g_string_append_c(s, ' ');
  }
  /* trim, moving the spans with the text */
  gsize lead = 0, len = s->len;
  while (lead < len && g_ascii_isspace(s->str[lead]))
    lead++;
  while (len > lead && g_ascii_isspace(s->str[len - 1]))
    len--;
  for (guint i = 0; i < code->len;) {
    OutlineSpan *sp = &g_array_index(code, OutlineSpan, i);
    sp->start = CLAMP(sp->start, lead, len) - lead;
    sp->end = CLAMP(sp->end, lead, len) - lead;
    if (sp->end > sp->start)
      i++;
    else
      g_array_remove_index(code, i);
  }
  char *t = g_strndup(s->str + lead, len - lead);
  g_string_free(s, TRUE);
  return t;
}

/* The number book_number_headings gave the heading, or NULL. */
static char *heading_number(const BookNode *h)
{
  const BookNode *c = h->first_child;
  if (!c || c->type != BOOK_HTML_INLINE || g_strcmp0(c->as.html.tag, "span") != 0 ||
      !c->as.html.attrs)
    return NULL;
  for (char **a = c->as.html.attrs; a[0] && a[1]; a += 2)
    if (strcmp(a[0], "class") == 0 && strcmp(a[1], "secno") == 0) {
      GString *s = g_string_new(NULL);
      book_node_text(c, s);
      return g_string_free(s, FALSE);
    }
  return NULL;
}

typedef struct {
  Outline *o;
  GArray *open; /* int: indices of the open entries, source levels strictly increasing */
} Build;

/* always: a chapter of a book project (SUMMARY.md is the author's
 * contents: all its entries are shown, whatever the depth). */
static void add(Build *b, OutlineEntry *e, bool always)
{
  GArray *open = b->open;
  /* e nests under the nearest open entry of a smaller level; one of a
   * level not smaller closes (as write_toc_tree's stack did) */
  while (
      open->len &&
      g_array_index(b->o->entries, OutlineEntry, g_array_index(open, int, open->len - 1)).level >=
          e->level)
    g_array_set_size(open, open->len - 1);
  e->parent = open->len ? g_array_index(open, int, open->len - 1) : -1;
  e->depth = (int)open->len + 1;
  e->in_toc = always || e->depth <= b->o->toc_depth;
  if (!e->code)
    e->code = g_array_new(FALSE, FALSE, sizeof(OutlineSpan));
  g_array_append_val(b->o->entries, *e);
  int idx = (int)b->o->entries->len - 1;
  g_array_append_val(open, idx);
}

Outline *outline_new(const Book *book, int chapter_level, int toc_depth, const char *untitled)
{
  Outline *o = g_new0(Outline, 1);
  o->entries = g_array_new(FALSE, TRUE, sizeof(OutlineEntry));
  o->chapter_level = CLAMP(chapter_level, 1, 6);
  o->toc_depth = MAX(1, toc_depth);
  Build b = {o, g_array_new(FALSE, FALSE, sizeof(int))};
  for (guint i = 0; i < book->chapters->len; i++) {
    const BookChapter *c = book->chapters->pdata[i];
    const BookNode *first = c->root->first_child;
    if (!first || first->type != BOOK_HEADING || !first->as.heading.id) {
      /* a chapter without a heading of its own (the opening) stands at
       * the level of the chapters */
      OutlineEntry e = {.level = o->chapter_level + c->nest,
                        .title = g_strdup(c->title && *c->title ? c->title : book->meta.title),
                        .id = c->id,
                        .chapter = c,
                        .chapter_start = true};
      add(&b, &e, c->toc != NULL);
    }
    for (const BookNode *n = first; n; n = n->next) {
      if (n->type != BOOK_HEADING || !n->as.heading.id)
        continue;
      if (n->as.heading.unlisted && n != first)
        continue; /* {.unlisted}: a section the contents leave out (a chapter stays) */
      /* a book project's chapter is titled in the contents as its entry
       * in SUMMARY.md is */
      const BookNode *title = n == first && c->toc ? c->toc : n;
      OutlineEntry e = {.level = CLAMP(n->as.heading.level, 1, 6) + c->nest,
                        .code = g_array_new(FALSE, FALSE, sizeof(OutlineSpan)),
                        .number = heading_number(title),
                        .id = n->as.heading.id,
                        .chapter = c,
                        .heading = n,
                        .chapter_start = n == first};
      e.title = heading_text(title, e.code);
      if (!*e.title) {
        g_free(e.title);
        e.title = g_strdup(untitled);
      }
      add(&b, &e, n == first && c->toc);
    }
  }
  g_array_free(b.open, TRUE);
  return o;
}

void outline_free(Outline *o)
{
  if (!o)
    return;
  for (guint i = 0; i < o->entries->len; i++) {
    OutlineEntry *e = &g_array_index(o->entries, OutlineEntry, i);
    g_free(e->title);
    g_free(e->number);
    g_array_free(e->code, TRUE);
  }
  g_array_free(o->entries, TRUE);
  g_free(o);
}
