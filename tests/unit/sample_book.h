/* sample_book.h: the hand-built model the writer tests share (test_xhtml.c,
 * test_epub.c): no Markdown parser involved. Static inline, so a test file
 * may use any subset. */
#ifndef OCTAVO_TEST_SAMPLE_BOOK_H
#define OCTAVO_TEST_SAMPLE_BOOK_H

#include <stdlib.h>

#include "book.h"

static inline const char *top(void)
{
  const char *t = getenv("TOP");
  return t && *t ? t : ".";
}

static inline BookNode *node(Book *b, BookNodeType t, BookNode *parent)
{
  BookNode *n = book_node_new(b, t, NULL);
  if (parent)
    book_node_append(parent, n);
  return n;
}

static inline BookNode *textn(Book *b, BookNode *parent, const char *s)
{
  BookNode *n = node(b, BOOK_TEXT, parent);
  n->text = g_strdup(s);
  return n;
}

static inline BookNode *para(Book *b, BookNode *parent, const char *s)
{
  BookNode *p = node(b, BOOK_PARAGRAPH, parent);
  textn(b, p, s);
  return p;
}

static inline BookNode *heading(Book *b, BookChapter *c, int level, const char *s)
{
  BookNode *h = node(b, BOOK_HEADING, c->root);
  h->as.heading.level = level;
  char *slug = book_slug(s);
  h->as.heading.id = book_id_reserve(b, slug);
  g_free(slug);
  textn(b, h, s);
  return h;
}

static inline BookChapter *chapter(Book *b, const char *id, const char *title)
{
  BookChapter *c = book_chapter_add(b, "hand.md");
  c->id = book_id_reserve(b, id);
  c->title = title ? g_strdup(title) : NULL;
  if (title)
    c->heading = heading(b, c, 2, title);
  return c;
}

static inline BookResource *resource(Book *b, const char *src, const char *file, const char *type,
                                     const char *href)
{
  BookResource *r = g_new0(BookResource, 1);
  r->src = g_strdup(src);
  r->path = g_build_filename(top(), "tests", "books", "multi", "images", file, NULL);
  r->media_type = g_strdup(type);
  r->href = g_strdup(href);
  /* as the front end does: the book's folder a root, the file let through */
  char *dir = g_path_get_dirname(r->path);
  sandbox_add_root(b->sandbox, dir);
  g_free(sandbox_resolve(b->sandbox, r->path, NULL));
  g_free(dir);
  g_ptr_array_add(b->resources, r);
  return r;
}

/* A two-chapter book with every node type. */
static inline Book *sample_book(void)
{
  Book *b = book_new();
  b->meta.title = g_strdup("A Hand-Made Book");
  g_ptr_array_add(b->meta.authors, g_strdup("Ada Writer"));
  b->meta.date = g_strdup("2023-05-11");
  b->meta.lang = g_strdup("en");

  BookChapter *c0 = chapter(b, "opening", NULL);
  para(b, c0->root, "An opening paragraph with <angle> & ampersand.");

  BookChapter *c1 = chapter(b, "c1", "Chapter One");
  BookNode *p = para(b, c1->root, "Text with ");
  BookNode *em = node(b, BOOK_EMPH, p);
  textn(b, em, "emphasis");
  BookNode *st = node(b, BOOK_STRONG, p);
  textn(b, st, "strong");
  BookNode *del = node(b, BOOK_STRIKE, p);
  textn(b, del, "gone");
  BookNode *code = node(b, BOOK_CODE, p);
  code->text = g_strdup("x < y");
  node(b, BOOK_SOFTBREAK, p);
  BookNode *web = node(b, BOOK_LINK, p);
  web->as.link.href = g_strdup("https://lwn.net/");
  web->as.link.title = g_strdup("LWN");
  textn(b, web, "LWN");
  node(b, BOOK_LINEBREAK, p);
  BookNode *bad = node(b, BOOK_LINK, p);
  bad->as.link.href = g_strdup("javascript:alert(1)");
  textn(b, bad, "no link");
  BookNode *in = node(b, BOOK_LINK, p);
  in->as.link.href = g_strdup("two.md#section-two");
  in->as.link.internal = true;
  in->as.link.chapter = NULL; /* filled below */
  textn(b, in, "to two");
  BookNode *fr = node(b, BOOK_FOOTNOTE_REF, p);

  BookNode *list = node(b, BOOK_LIST, c1->root);
  list->as.list.ordered = true;
  list->as.list.start = 3;
  list->as.list.tight = true;
  para(b, node(b, BOOK_ITEM, list), "three");
  para(b, node(b, BOOK_ITEM, list), "four");
  BookNode *tasks = node(b, BOOK_LIST, c1->root);
  tasks->as.list.tight = true;
  BookNode *t1 = node(b, BOOK_ITEM, tasks);
  t1->as.item.task = BOOK_TASK_DONE;
  para(b, t1, "done");
  BookNode *t2 = node(b, BOOK_ITEM, tasks);
  t2->as.item.task = BOOK_TASK_OPEN;
  para(b, t2, "open");

  BookNode *cb = node(b, BOOK_CODE_BLOCK, c1->root);
  cb->as.code.info = g_strdup("c");
  cb->text = g_strdup("int main(void) { return 1 < 2; }\n");
  node(b, BOOK_THEMATIC_BREAK, c1->root);
  BookNode *bq = node(b, BOOK_BLOCKQUOTE, c1->root);
  para(b, bq, "quoted");

  BookNode *table = node(b, BOOK_TABLE, c1->root);
  table->as.table.ncols = 2;
  table->as.table.align = g_new0(BookAlign, 2);
  table->as.table.align[1] = BOOK_ALIGN_RIGHT;
  for (int r = 0; r < 3; r++) {
    BookNode *row = node(b, BOOK_TABLE_ROW, table);
    row->as.row.header = r == 0;
    for (int col = 0; col < 2; col++) {
      char s[16];
      g_snprintf(s, sizeof s, "r%dc%d", r, col);
      textn(b, node(b, BOOK_TABLE_CELL, row), s);
    }
  }

  BookResource *png =
      resource(b, "images/diagram.png", "diagram.png", "image/png", "images/img-1.png");
  BookResource *svg =
      resource(b, "images/logo.svg", "logo.svg", "image/svg+xml", "images/img-2.svg");
  BookNode *fig = node(b, BOOK_FIGURE, c1->root);
  BookNode *img = node(b, BOOK_IMAGE, fig);
  img->as.image.src = g_strdup("images/diagram.png");
  img->as.image.title = g_strdup("A diagram");
  img->as.image.res = png;
  textn(b, img, "diagram alt");
  BookNode *p2 = para(b, c1->root, "Logo: ");
  BookNode *img2 = node(b, BOOK_IMAGE, p2);
  img2->as.image.src = g_strdup("images/logo.svg");
  img2->as.image.res = svg;
  textn(b, img2, "logo");
  BookNode *img3 = node(b, BOOK_IMAGE, p2);
  img3->as.image.src = g_strdup("https://example.com/remote.png");
  textn(b, img3, "remote");

  BookNode *div = node(b, BOOK_HTML_BLOCK, c1->root);
  div->as.html.tag = g_strdup("div");
  div->as.html.attrs = g_new0(char *, 3);
  div->as.html.attrs[0] = g_strdup("class");
  div->as.html.attrs[1] = g_strdup("note");
  BookNode *dp = para(b, div, "in a div ");
  BookNode *span = node(b, BOOK_HTML_INLINE, dp);
  span->as.html.tag = g_strdup("span");
  textn(b, span, "span");

  BookChapter *c2 = chapter(b, "c2", "Section Two");
  in->as.link.chapter = c2;
  in->as.link.fragment = g_strdup(c2->heading->as.heading.id);
  para(b, c2->root, "The end.");

  BookFootnote *f = g_new0(BookFootnote, 1);
  f->label = g_strdup("note");
  f->number = 1;
  f->id = g_strdup("fn-1");
  f->chapter = c1;
  f->nrefs = 1;
  f->def = book_node_new(b, BOOK_FOOTNOTE_DEF, NULL);
  para(b, f->def, "A note.");
  g_ptr_array_add(b->footnotes, f);
  fr->as.fnref.note = f;
  fr->as.fnref.ref_index = 1;
  return b;
}

#endif
