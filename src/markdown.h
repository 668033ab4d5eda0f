/* markdown.h: Markdown (cmark-gfm) -> document model.
 *
 * What the model holds after parsing (for the writers):
 * - Chapters: each input file starts one; so does each heading of level <=
 *   opts->split_level at a file's top level, not inside a list, quote or
 *   HTML element (its BOOK_HEADING is the first block of the chapter's root).  Text before the first such heading is an
 *   opening chapter (title NULL, heading NULL).  Chapter ids are "ch01",
 *   "ch02", ... (reserved in book->ids).  A book always has a chapter.
 * - Title: with split_level >= 2 the first H1 of the first file is the
 *   book's title and is not in the body; so is a "By NAME, YYYY-MM-DD"
 *   paragraph right after it (authors, date).  A title from front matter or
 *   -M keeps that H1 as an ordinary chapter heading.  Metadata precedence:
 *   H1 and byline < front matter (later files win) < --lang < -M.
 * - Ids: every heading has a unique id (slug; repeats -2, -3), unique with
 *   chapter ids, footnote ids ("fn-N") and raw-HTML ids.
 * - Links: internal ones (#id, other.md, other.html, with or without
 *   #fragment) have internal=true, chapter, fragment (NULL: the chapter's
 *   start).  Unresolved ones keep href with internal=false (warned).  Only
 *   http, https and mailto external links remain; no link nests in another.
 * - Images: res is the BookResource of a local, allowed, recognised file,
 *   else NULL (warned).  A paragraph holding only an image is BOOK_FIGURE.
 * - Footnotes: book->footnotes in order of first reference; definitions are
 *   in BookFootnote.def only, never in a chapter tree.
 * - Raw HTML: only allow-listed BOOK_HTML_BLOCK / BOOK_HTML_INLINE elements
 *   and attributes (see sanitize.h); <img>, <a href>, <br> become BOOK_IMAGE,
 *   BOOK_LINK, BOOK_LINEBREAK.
 * - Text: valid UTF-8 (invalid bytes and NUL are U+FFFD); adjacent text
 *   nodes merged.  Every node has a position (file, line, column). */
#ifndef OCTAVO_MARKDOWN_H
#define OCTAVO_MARKDOWN_H

#include "book.h"
#include "options.h"

typedef struct {
  const char *name; /* file name as given ("-" for standard input): used in messages */
  const char *text; /* the bytes, not necessarily valid UTF-8 */
  gsize len;
  /* Every heading of this source goes this many levels down (pandoc's
   * --shift-heading-level-by; a book project's nested chapters), clamped
   * to 1..6, before titles and chapters are decided.  0: as written. */
  int heading_shift;
  /* A book project's chapter (project.h: ProjectSource): the whole source
   * is one chapter, its opening heading (or, without one, its title's) the
   * chapter's heading at the chapter level and every other heading below
   * it; the chapter's nest, number and contents title (Markdown) as
   * BookChapter's. */
  bool chapter;
  int nest;
  const char *number; /* or NULL */
  const char *title;  /* or NULL */
  bool mdbook;        /* an mdBook's source: lines mdBook hides in Rust code are hidden */
} MdSource;

/* Parse sources, in order, into `book`: metadata, chapters, footnotes,
 * resources; resolves internal links across all sources. Diagnostics go to
 * book->diags. Returns false when an error was recorded (the book may then
 * be incomplete but is always safe to free). */
bool md_parse_sources(Book *book, const MdSource *srcs, int n, const OctavoOptions *opts);

/* Read the files (a name of "-" reads standard input) and parse them as
 * md_parse_sources does. A file that cannot be read is an error. */
bool md_parse_files(Book *book, const char *const *files, int n, const OctavoOptions *opts);

#endif
