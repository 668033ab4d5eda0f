/* outline.h: the book's section tree, computed once from the model, and
 * read by every view of it: the EPUB nav and NCX, the PDF contents and
 * bookmarks, running heads. No writer decides again which headings are
 * sections, how deep they nest, or which the contents show.
 *
 * Sections. Every chapter has an entry: its heading when its first block is
 * one, else an entry for the chapter's start titled with the chapter's
 * title or the book's (the opening chapter). Then every heading with an id
 * that is a block of the chapter's root (not inside a quote, a list or a
 * raw HTML block) is a section.
 *
 * A book project's chapter (BookChapter.toc set: an entry of SUMMARY.md)
 * is titled by its entry in SUMMARY.md, and its entries stand
 * BookChapter.nest levels below their headings' levels, so that a nested
 * chapter nests under its parent chapter; its own entry is always in the
 * contents (SUMMARY.md is the author's contents), its sections by depth.
 *
 * Depth (the one definition of --toc-depth). An entry nests under the
 * nearest entry before it of a smaller source level; its depth is the
 * number of entries it nests in, plus one. So depth counts levels of the
 * outline, not heading levels: a skipped source level does not use up a
 * depth (`## One`, `#### Deep`, `## Two` give depths 1, 2, 1), a book whose
 * chapters are `##` has them at depth 1, and a book with `#` parts above
 * `##` chapters has the parts at 1 and the chapters at 2. The contents
 * show the entries of depth <= toc_depth; since a parent is one depth
 * above its child, the shown entries nest among themselves.
 */
#ifndef OCTAVO_OUTLINE_H
#define OCTAVO_OUTLINE_H

#include <glib.h>
#include <stdbool.h>

#include "book.h"

/* A byte range [start, end) of an entry's title. */
typedef struct {
  gsize start, end;
} OutlineSpan;

typedef struct {
  int depth;      /* 1.. (see above) */
  int parent;     /* index of the entry it nests in, or -1 */
  int level;      /* the heading's source level 1..6 (plus its chapter's nest); the
                              * chapter level for a chapter without a heading */
  char *title;    /* plain text, trimmed, with the number under -N ("2.1\u2002Title");
                              * owned */
  GArray *code;   /* OutlineSpan: the code spans in title, in order (never NULL) */
  char *number;   /* "2.1" under -N (book_number_headings), else NULL; owned */
  const char *id; /* the destination: the heading's id, or the chapter's id */
  const BookChapter *chapter;
  const BookNode *heading; /* NULL for a chapter without a heading */
  bool chapter_start;      /* the entry stands where its chapter begins (link to the
                              * chapter itself, not to a fragment) */
  bool in_toc;             /* depth <= toc_depth: shown in the contents */
} OutlineEntry;

typedef struct {
  GArray *entries;   /* OutlineEntry, in reading order */
  int chapter_level; /* the split level */
  int toc_depth;     /* as given, at least 1 */
} Outline;

/* The outline of a parsed book (book.h's invariants): chapter_level is the
 * split level (1..6), toc_depth the contents' depth (values below 1 count
 * as 1). `untitled` names a section whose heading has no text (labels.h:
 * LABEL_UNTITLED_SECTION). Never fails; free with outline_free(). The
 * outline points into book: free it first. */
Outline *outline_new(const Book *book, int chapter_level, int toc_depth, const char *untitled);
/* Free an outline. Accepts NULL. */
void outline_free(Outline *outline);

/* The i-th entry. */
static inline const OutlineEntry *outline_entry(const Outline *o, guint i)
{
  return &g_array_index(o->entries, OutlineEntry, i);
}

#endif
