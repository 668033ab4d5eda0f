/* ext.h: octavo's own cmark-gfm syntax extensions, for markdown.c only.
 *
 * Pandoc's (and mdBook's, kramdown's) syntax that CommonMark lacks, read by
 * cmark-gfm itself through its extension API (cmark-gfm-extension_api.h):
 * block extensions open and continue their blocks as the parser meets each
 * line, as GFM's table extension does; a postprocess function reads heading
 * attributes off the parsed tree.  No text is rewritten before cmark-gfm
 * sees it.
 *
 * - ext_attrs.c: heading attributes `## Text {#id .class key=value}`, and
 *   the attribute-block parser fenced divs share;
 * - ext_deflist.c: definition lists (`Term` lines, then `: Definition` or
 *   `~ Definition`, several blocks indented beneath);
 * - ext_div.c: fenced divs (`::: {#id .class}` ... `:::`, nestable;
 *   `::: name` for a class).
 *
 * What they leave in cmark's tree for markdown.c: heading and div nodes
 * carry an ExtAttrs (ext_attrs()), definition lists are nodes of the types
 * ext_node_kind() names.  cmark-gfm types never leave the front end.
 */
#ifndef OCTAVO_EXT_H
#define OCTAVO_EXT_H

#include "options.h"

#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>
#include <glib.h>
#include <stdbool.h>

/* An attribute block as pandoc reads it: {#id .class .class key=value
 * key="quoted value" -}. */
typedef struct {
  char *id;       /* or NULL */
  GPtrArray *classes; /* char *, owned; never NULL */
  GPtrArray *kv;      /* char * key, value, key, value, ...; owned; never NULL */
  bool closed;        /* a fenced div: its closing fence was seen */
} ExtAttrs;

/* Parse the attribute block s[0..len), which starts with '{' and ends with
 * '}' (or, braces_optional, a bare word: a fenced div's class).  NULL when
 * it is no valid attribute block (the text then stays as it is).  "-" is
 * pandoc's shorthand for the class "unnumbered".  Free with
 * ext_attrs_free. */
ExtAttrs *ext_attrs_parse(const char *s, size_t len);
void ext_attrs_free(ExtAttrs *a);

/* The attribute block cmark node n carries (a heading with one, a fenced
 * div), or NULL. Owned by the node. */
const ExtAttrs *ext_attrs(cmark_node *n);

typedef enum { EXT_NONE, EXT_DEFLIST, EXT_DEFTERM, EXT_DEFDESC, EXT_DIV } ExtKind;
/* Which of octavo's block nodes n is, or EXT_NONE. */
ExtKind ext_node_kind(cmark_node *n);

/* The extensions of one parse.  text[0..len) is the source the parser is
 * fed (kept, not copied, for as long as the set lives: a heading's
 * attribute block counts only when it stands in the source as written, not
 * escaped).  syntax: the OCTAVO_SYNTAX_* bits to turn on. */
typedef struct ExtSet ExtSet;
ExtSet *ext_set_new(unsigned syntax, const char *text, size_t len);
/* Attach the set's extensions to parser p. */
void ext_set_attach(ExtSet *set, cmark_parser *p);
/* Free the set: after the parser and every node it made are freed (nodes
 * point at their extension). Accepts NULL. */
void ext_set_free(ExtSet *set);

/* ---- what the extension files share (not for markdown.c) ---- */

cmark_syntax_extension *ext_attrs_new(const char *text, size_t len);
cmark_syntax_extension *ext_deflist_new(void);
cmark_syntax_extension *ext_div_new(void);
/* The cmark node type of kind k (registered once per process). */
cmark_node_type ext_type(ExtKind k);
/* A user-data free function for nodes carrying an ExtAttrs. */
void ext_attrs_free_node(cmark_mem *mem, void *attrs);

#endif
