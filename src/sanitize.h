/* sanitize.h: raw HTML from Markdown -> allow-listed model nodes.
 *
 * cmark-gfm hands raw HTML over in two shapes: HTML blocks (a whole
 * fragment, or a lone opening or closing tag of a container such as <div>)
 * and inline HTML (one tag at a time: `<span class="x">`, then cmark's own
 * text nodes, then `</span>`).  This module parses each piece with libxml2's
 * HTML parser and turns what the allow-list keeps into model nodes:
 * BOOK_HTML_BLOCK / BOOK_HTML_INLINE (tag + attributes), BOOK_TEXT, and for
 * <img>, <a href> and <br> the model's own BOOK_IMAGE, BOOK_LINK and
 * BOOK_LINEBREAK, so that markdown.c resolves them like Markdown images and
 * links.  Everything dropped is reported with book_diag() (comments are
 * dropped silently).  No libxml2 type leaves this module.
 *
 * Pairing inline open and close tags, which live in different cmark nodes,
 * is the caller's job (markdown.c keeps the stack); this module only tells
 * what each fragment is.
 */
#ifndef OCTAVO_SANITIZE_H
#define OCTAVO_SANITIZE_H

#include "book.h"

typedef enum {
  SAN_NONE,     /* block mode only: not a lone tag; clean it with san_block() */
  SAN_DROP,     /* nothing to keep (a comment, a dropped element: already reported) */
  SAN_OPEN,     /* *node opens an element: later content goes inside until its close */
  SAN_VOID,     /* *node is complete (img, br, wbr, an empty element) */
  SAN_SUPPRESS, /* like SAN_OPEN, but *node is a marker whose content must be dropped
                   (script, style, ...); see san_is_marker() */
  SAN_CLOSE,    /* a closing tag; *name is its lower-case element name */
} SanKind;

/* Classify one raw HTML fragment as cmark-gfm gives it.  In inline mode
 * (block false) the fragment is one inline HTML node; in block mode it is an
 * HTML block, and only a lone opening tag of a block container (div,
 * section, details, blockquote, ...) or a lone closing tag is classified, all
 * else gives SAN_NONE.  On SAN_OPEN, SAN_VOID, SAN_SUPPRESS *node is a new
 * detached node (the caller owns it); on SAN_CLOSE *name is a new string
 * (g_free).  pos is where the fragment starts; file names must be interned. */
SanKind san_fragment(Book *book, const char *html, bool block, const BookPos *pos, BookNode **node,
                     char **name);

/* Clean a whole HTML block and append the result to parent (a block
 * container): block elements as BOOK_HTML_BLOCK, runs of inline content at
 * the top level wrapped in BOOK_PARAGRAPH.  Returns the innermost container
 * element (div, details, ...) that the fragment opens without closing, so
 * that the Markdown blocks which follow go inside it until its closing tag,
 * or NULL. */
BookNode *san_block(Book *book, const char *html, gsize len, const BookPos *pos, BookNode *parent);

/* When html is nothing but closing tags ("</div></div>", white space
 * allowed between them), their lower-case names in order (g_strfreev);
 * else NULL. */
char **san_closing_tags(const char *html);

/* Mend HTML content models in tree, which may mix Markdown and raw-HTML
 * nodes: a block element inside a paragraph, heading or inline element, an
 * element outside the only parent it may have (li outside ul/ol, td outside
 * tr, summary not first in details, ...), and a list or table holding what
 * it may not, lose their tags but keep their content (reported).  Run it
 * once the tree is complete. */
void san_repair(Book *book, BookNode *tree);

/* True for a node that san_fragment() returned with SAN_SUPPRESS: the caller
 * removes it, with everything inside, once the element is closed. */
bool san_is_marker(const BookNode *node);

/* True when url may appear in a kept link or cite: http, https, mailto,
 * or no scheme at all (relative or #fragment); book_url_kind() reads it. */
bool san_url_allowed(const char *url);

/* ---- the one HTML element table (sanitize_elements.c), for every stage ---- */

/* True for an element that never has content (br, hr, img, wbr, col, and
 * the dropped void elements: input, meta, ...), written as <x/>. tag is
 * compared case-insensitively; NULL and unknown tags are not void. */
bool san_element_is_void(const char *tag);
/* True for an element the allow-list keeps (as BOOK_HTML_BLOCK or
 * BOOK_HTML_INLINE, or img, a, br as the model's own nodes). */
bool san_element_is_allowed(const char *tag);
/* True when attribute attr is kept on allowed element tag (before the
 * value checks: ids without spaces, numbers, safe URLs). */
bool san_attr_is_allowed(const char *tag, const char *attr);

/* Whether the file at path is a well-formed XML document whose root is
 * <svg> (the same parse as the EPUB's SVG cleaning). When not, *why (if
 * why) is set to a reason to show (caller g_free). */
bool san_svg_well_formed(const char *path, char **why);
/* The references to other files an SVG's elements make (href and
 * xlink:href, hyperlinks of <a> and #fragments left out), appended to refs
 * (char *, owned by refs): the images librsvg would load to draw it. */
void san_svg_image_refs(const char *path, GPtrArray *refs);
/* The largest text the SVG at path sets (a <text>, <tspan> or <textPath>
 * holding characters), in CSS px of the image drawn at width_px (its own
 * size: image.c's, from its width or viewBox): its font-size (attribute or
 * style property; px, pt, pc, in, cm, mm, em and %; inherited, 16 px when
 * none) times the scale of the transforms above it, times width_px over
 * the viewBox's width. 0 when it sets no text or cannot be read. What it
 * does not read: font sizes from <style> sheets (their classes). */
double san_svg_text_px(const char *path, int width_px);

/* The SVG document data (len bytes) cleaned for the EPUB (sanitize_svg.c:
 * no scripts, no element that embeds a document, no reference, CSS
 * @import or animation out of the image), as UTF-8 XML (g_bytes_unref).
 * NULL when it is not a well-formed SVG. */
GBytes *san_svg_clean(const char *data, gsize len);
/* A warning at pos for each thing san_svg_clean removes from the SVG file
 * at path (referenced as src): at most ten, then a count. Nothing when it
 * cannot be read or is not a well-formed SVG (the caller's check says so). */
void san_svg_report(Book *b, const BookPos *pos, const char *src, const char *path);

#endif
