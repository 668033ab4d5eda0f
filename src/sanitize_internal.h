/* sanitize_internal.h: what the files of the raw HTML cleaner share, and
 * nothing outside them includes; the public API is sanitize.h.
 *
 *   sanitize.c           parsing with libxml2's HTML parser and the walks:
 *                        one fragment (san_fragment), whole blocks
 *                        (san_block), the SVG check
 *   sanitize_elements.c  the one HTML element table and its policy: which
 *                        elements and attributes are kept, safe URLs, image
 *                        sizes; one libxml2 element -> one model node
 *   sanitize_repair.c    the content models: elements where HTML does not
 *                        allow them lose their tags (san_repair)
 *
 * The functions shared between these files carry the module's prefix san_
 * like the public ones, but are declared here only. */
#ifndef OCTAVO_SANITIZE_INTERNAL_H
#define OCTAVO_SANITIZE_INTERNAL_H

#include <libxml/tree.h>

#include "sanitize.h"

enum {
  E_BLOCK = 1 << 0,       /* a block element: BOOK_HTML_BLOCK */
  E_INLINE = 1 << 1,      /* an inline element: BOOK_HTML_INLINE */
  E_VOID = 1 << 2,        /* never has content */
  E_CONTAINER = 1 << 3,   /* may be opened by a lone tag in an HTML block, holding Markdown */
  E_NOBLANKS = 1 << 4,    /* whitespace-only text inside it is dropped */
  E_SUPPRESS = 1 << 5,    /* dropped with its content */
  E_FORBIDDEN = 1 << 6,   /* dropped (void or content-free) */
  E_TRANSPARENT = 1 << 7, /* html, head, body: the parser's implied wrappers */
};

typedef struct {
  const char *name;
  unsigned flags;
  const char *attrs; /* allowed attributes besides the global ones, space-separated */
} ElemInfo;

/* The element table's entry for an element name (any case), or NULL for
 * an element octavo does not know. */
const ElemInfo *san_elem_info(const char *name);

/* True when word is one of the space-separated words of list (any case). */
bool san_in_list(const char *list, const char *word);

/* The model node for an allow-listed element, or NULL when it cannot be
 * kept (reported at pos). *is_leaf says the node takes no children from
 * el. The caller owns the detached node. */
BookNode *san_make_element(Book *book, const xmlNode *el, const ElemInfo *ei, const BookPos *pos,
                           bool *is_leaf);

#endif
