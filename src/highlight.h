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

/* The grammars' highlight queries, each compiled once, by the first thread
 * that needs it (under the lock they keep), then only read: the threads
 * that highlight share them. */
typedef struct HlQueries HlQueries;
HlQueries *hl_queries_new(void);
/* Free them, once no Hl uses them. Accepts NULL. */
void hl_queries_free(HlQueries *queries);

/* One thread's highlighter: a parser and a query cursor, over queries
 * (NULL: its own). One thread at a time. */
typedef struct Hl Hl;
Hl *hl_new(HlQueries *queries);
/* Accepts NULL. */
void hl_free(Hl *h);

/* A code block's language and tokens (what hl_book sets on it). */
typedef struct {
  const char *lang;  /* canonical (static), or NULL: plain, no tokens */
  BookToken *tokens; /* sorted, not overlapping, owned; NULL when ntokens is 0 */
  guint ntokens;
} HlCode;

/* The language and tokens of code text under info string info (either may
 * be NULL), into *out: a pure function of the two, on any thread (with an
 * Hl of its own). */
void hl_code(Hl *h, const char *info, const char *text, HlCode *out);

/* A block's tokens found ahead (markdown.c's front thread): true with *out
 * set (its tokens the caller's), false when they must be found now. */
typedef bool (*HlAhead)(void *ud, const BookNode *code, HlCode *out);

/* Set as.code.lang and as.code.tokens of every code block of the book (its
 * chapters and its footnotes) from as.code.info, with h (NULL: one of its
 * own), each block's taken from ahead when it has them (ahead NULL: none). A block whose language no
 * grammar knows, or that names none, keeps lang NULL and no tokens; so
 * does one over HL_MAX_BYTES or nested deeper than HL_MAX_DEPTH (brackets,
 * or the syntax tree; in Markdown, 128 bytes of quote and list marks on a
 * line): limits decided from the text, never from a clock, so that two
 * runs give the same books. Never
 * changes a block's text: what a grammar cannot classify (a parse error
 * included) is plain. */
void hl_book(Book *book, Hl *h, HlAhead ahead, void *ud);

/* The largest code block highlighted, in bytes. */
#define HL_MAX_BYTES (1024 * 1024)
/* The deepest nesting highlighted: of brackets in the text, of nodes in
 * its syntax tree. */
#define HL_MAX_DEPTH 1024

#endif
