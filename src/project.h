/* project.h: book projects, the way authors keep multi-chapter books.
 *
 * - An mdBook: a SUMMARY.md (given, or found in DIR or DIR/src, or where
 *   book.toml's [book] src says) lists prefix chapters, parts (`# Part`
 *   lines), numbered chapters nested by list level, separators (`---`),
 *   drafts (`- [Title]()`, no file: skipped) and suffix chapters.
 *   book.toml's [book] title, authors, description and language become
 *   metadata.  In the chapters, `{{#include FILE}}`, `{{#include
 *   FILE:ANCHOR}}`, `{{#include FILE:START:END}}` and `{{#rustdoc_include
 *   …}}` lines are replaced by the file's lines, as mdBook does; the file
 *   must lie inside the book's folder.
 * - A folder of chapters: DIR holding *.md files (and no SUMMARY.md) is
 *   built in name order; DIR/metadata.yaml (pandoc's convention), when
 *   present, is the book's metadata file.
 *
 * The result is a list of sources for the front end: part titles become
 * one-line `# Title` sources and every chapter file's headings are shifted
 * down by one plus its nesting depth, so that parts are level 1, chapters
 * level 2 (the default split level) and nested chapters sections below them.
 * Parsing SUMMARY.md uses cmark-gfm; no Markdown is read by hand. */
#ifndef OCTAVO_PROJECT_H
#define OCTAVO_PROJECT_H

#include <glib.h>
#include <stdbool.h>

typedef struct {
  char *name;        /* the file's path as shown in messages (owned) */
  char *text;        /* its text, includes expanded (owned) */
  gsize len;
  int heading_shift; /* add to every heading level of this source (0: none) */
  int line;          /* for a part title: its line in SUMMARY.md; else 0 */
} ProjectSource;

typedef struct {
  char *root;               /* the book's folder: includes and links stay inside it (owned) */
  GArray *sources;          /* ProjectSource, in reading order */
  GPtrArray *metadata;      /* "KEY=VALUE" from book.toml (owned strings) */
  char *metadata_file;      /* DIR/metadata.yaml, or NULL (owned) */
  GPtrArray *warnings;      /* "FILE:LINE:COL: warning: ..." lines (owned) */
} Project;

/* True when path names a book project: a file called SUMMARY.md, or a
 * directory (which then must hold a SUMMARY.md, src/SUMMARY.md or *.md). */
bool project_is_project(const char *path);

/* Read the project at path. Returns NULL with *err set (a message naming the
 * file) when it cannot be read or lists no chapter; a chapter file that is
 * missing is an error too, an include that is missing a warning. */
Project *project_load(const char *path, GError **err);

/* Free a project. Accepts NULL. */
void project_free(Project *p);

/* Expand mdBook's include lines in text (of a file in dir) confined to
 * root; warnings are appended to warnings ("NAME:LINE:COL: warning: ...").
 * Returns a new string. Exposed for tests. */
char *project_expand_includes(const char *text, gsize len, const char *name, const char *dir,
                              const char *root, GPtrArray *warnings);

/* Parse the [book] table of book.toml text into "KEY=VALUE" strings
 * (title, author (one per author), description, lang). Returns false with
 * *err set on a syntax error octavo cannot read. Exposed for tests. */
bool project_parse_book_toml(const char *text, const char *name, GPtrArray *metadata, GError **err);

#endif
