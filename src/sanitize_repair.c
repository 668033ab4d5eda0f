/* sanitize_repair.c: the content models of HTML over the model. An
 * element the raw HTML put where HTML does not allow it (a block inside a
 * paragraph, <li> outside a list, <a> inside a link, a table holding
 * text) loses its tags, keeping its content, with a warning
 * (san_repair). */
#include "sanitize_internal.h"

#include <string.h>

static bool tag_is(const BookNode *n, const char *tags)
{
  return n && (n->type == BOOK_HTML_BLOCK || n->type == BOOK_HTML_INLINE) &&
         san_in_list(tags, n->as.html.tag);
}

/* A parent whose content is phrasing only. */
static bool phrasing_parent(const BookNode *p)
{
  switch (p->type) {
  case BOOK_PARAGRAPH:
  case BOOK_HEADING:
  case BOOK_TABLE_CELL:
  case BOOK_EMPH:
  case BOOK_STRONG:
  case BOOK_STRIKE:
  case BOOK_LINK:
  case BOOK_IMAGE:
  case BOOK_HTML_INLINE: return true;
  case BOOK_HTML_BLOCK: return san_in_list("p h1 h2 h3 h4 h5 h6 pre summary", p->as.html.tag);
  default: return false;
  }
}

/* The parents an element may have, or NULL for any. */
static const char *required_parent(const char *tag)
{
  static const struct {
    const char *tags, *parents;
  } rules[] = {
      {"li", "ul ol"},
      {"dt dd", "dl"},
      {"tr", "table thead tbody tfoot"},
      {"td th", "tr"},
      {"thead tbody tfoot caption colgroup", "table"},
      {"col", "colgroup table"},
      {"summary", "details"},
      {"figcaption", "figure"},
      {"rt rp", "ruby"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(rules); i++)
    if (san_in_list(rules[i].tags, tag))
      return rules[i].parents;
  return NULL;
}

/* The children an element may have, or NULL for any. */
static const char *allowed_children(const char *tag)
{
  static const struct {
    const char *tags, *children;
  } rules[] = {
      {"ul ol", "li"},
      {"dl", "dt dd div"},
      {"table", "caption colgroup thead tbody tfoot tr"},
      {"thead tbody tfoot", "tr"},
      {"tr", "td th"},
      {"colgroup", "col"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(rules); i++)
    if (san_in_list(rules[i].tags, tag))
      return rules[i].children;
  return NULL;
}

/* Why n cannot stay where it is, or NULL. */
static const char *misplaced(const BookNode *n)
{
  const BookNode *p = n->parent;
  if (!p || (n->type != BOOK_HTML_BLOCK && n->type != BOOK_HTML_INLINE))
    return NULL;
  const char *tag = n->as.html.tag;
  if (n->type == BOOK_HTML_BLOCK && phrasing_parent(p))
    return "inside a paragraph, heading or inline element";
  const char *parents = required_parent(tag);
  if (parents && !tag_is(p, parents))
    return "outside its proper parent";
  if (strcmp(tag, "summary") == 0 && p->first_child != n)
    return "not first in <details>";
  const char *kids = p->type == BOOK_HTML_BLOCK ? allowed_children(p->as.html.tag) : NULL;
  if (kids && !san_in_list(kids, tag))
    return "where its parent does not allow it";
  if (strcmp(tag, "a") == 0)
    for (const BookNode *a = p; a; a = a->parent)
      if (a->type == BOOK_LINK || tag_is(a, "a"))
        return "inside a link";
  return NULL;
}

/* A list or table holding something it may not hold (text, say) cannot be
 * mended child by child: it loses its own tags. */
static bool bad_children(const BookNode *n)
{
  if (n->type != BOOK_HTML_BLOCK)
    return false;
  if (strcmp(n->as.html.tag, "details") == 0) /* summary is required, and first */
    return !tag_is(n->first_child, "summary");
  const char *kids = allowed_children(n->as.html.tag);
  if (!kids)
    return false;
  for (const BookNode *k = n->first_child; k; k = k->next)
    if (!tag_is(k, kids))
      return true;
  return false;
}

void san_repair(Book *book, BookNode *tree)
{
  BookNode *n = tree->first_child;
  while (n) {
    const char *why = misplaced(n);
    if (!why && bad_children(n))
      why = "holding content it may not hold";
    if (why) {
      book_diag(book, BOOK_WARNING, &n->pos,
                "raw HTML: <%s> %s: its tags dropped (its content is kept)", n->as.html.tag, why);
      BookNode *first = n->first_child, *after = n->next, *up = n->parent;
      book_node_unwrap(n);
      if (first) {
        n = first; /* check the moved children in their new place */
        continue;
      }
      n = after;
      while (!n && up && up != tree) {
        n = up->next;
        up = up->parent;
      }
      continue;
    }
    if (n->first_child) {
      n = n->first_child;
      continue;
    }
    while (n && n != tree && !n->next)
      n = n->parent;
    n = (n && n != tree) ? n->next : NULL;
  }
}
