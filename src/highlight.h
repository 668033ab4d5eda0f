/* highlight.h: a code block's language and tokens, computed once, in the
 * front end, for both writers (xhtml.c's spans, layout/blocks.c's colours).
 * The tokens come from tree-sitter's grammars and their highlight queries
 * (grammars/, built by make); console sessions and diffs are split by
 * lines first (prompts, output; +, -, headers), a session's commands then
 * parsed as shell. Knows the model, not the writers. */
#ifndef OCTAVO_HIGHLIGHT_H
#define OCTAVO_HIGHLIGHT_H

#include "book.h"

/* The canonical name of the language an info string names, or NULL when it
 * names none octavo highlights. Takes the first word, mdBook's attributes
 * after a comma and pandoc's braces and dots aside: "rust,ignore" and
 * "{.rust .numberLines}" give "rust", "sh" gives "bash", "C" gives "c",
 * "text" NULL. The string returned is static. */
const char *hl_language(const char *info);

/* Set as.code.lang and as.code.tokens of every code block of the book (its
 * chapters and its footnotes) from as.code.info. A block whose language no
 * grammar knows, or that names none, keeps lang NULL and no tokens; so
 * does one over HL_MAX_BYTES or nested deeper than HL_MAX_DEPTH (brackets,
 * or the syntax tree; in Markdown, 128 bytes of quote and list marks on a
 * line): limits decided from the text, never from a clock, so that two
 * runs give the same books. Never
 * changes a block's text: what a grammar cannot classify (a parse error
 * included) is plain. */
void hl_book(Book *book);

/* The largest code block highlighted, in bytes. */
#define HL_MAX_BYTES (1024 * 1024)
/* The deepest nesting highlighted: of brackets in the text, of nodes in
 * its syntax tree. */
#define HL_MAX_DEPTH 1024

#endif
