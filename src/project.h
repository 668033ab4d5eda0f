/* project.h: book projects, the way authors keep multi-chapter books.
 *
 * - An mdBook: a SUMMARY.md (given, or found in DIR or DIR/src, or where
 *   book.toml's [book] src says) lists prefix chapters, parts (`# Part`
 *   lines), numbered chapters nested by list level, separators (`---`),
 *   drafts (`- [Title]()`, no file: skipped) and suffix chapters.
 *   book.toml's [book] title, authors, description and language become
 *   metadata.  In the chapters, `{{#include FILE}}`, `{{#include
 *   FILE:ANCHOR}}`, `{{#include FILE:START:END}}` and `{{#rustdoc_include
 *   …}}` lines are replaced by the file's lines, as mdBook does; every
 *   file is read through the sandbox (sandbox.h): inside the book's folder.
 * - A folder of chapters: DIR holding *.md files (and no SUMMARY.md) is
 *   built in name order; DIR/metadata.yaml (pandoc's convention), when
 *   present, is the book's metadata file.
 *
 * The result is a list of sources for the front end: part titles become
 * one-line `# Title` sources (level 1); every chapter file of SUMMARY.md is
 * one chapter of the book (ProjectSource.chapter), nested in the contents
 * as SUMMARY.md nests it, numbered as mdBook numbers it.
 * Parsing SUMMARY.md uses cmark-gfm; no Markdown is read by hand. */
#ifndef OCTAVO_PROJECT_H
#define OCTAVO_PROJECT_H

#include <glib.h>
#include <stdbool.h>

typedef struct Sandbox Sandbox;

typedef struct {
  char *name; /* the file's path as shown in messages (owned) */
  char *text; /* its text, includes expanded (owned) */
  gsize len;
  int heading_shift; /* add to every heading level of this source (0: none) */
  int line;          /* for a part title: its line in SUMMARY.md; else 0 */
  /* A chapter of SUMMARY.md (chapter true): the whole file is one chapter
   * of the book whatever its headings say (heading_shift 0; the front end
   * sets its levels), titled in the contents by its SUMMARY.md entry. */
  bool chapter;
  bool mdbook; /* from an mdBook (SUMMARY.md): mdBook's rules apply (hidden Rust lines) */
  int nest;    /* where the chapter stands in the contents, in levels below a
                * top-level chapter: SUMMARY.md's list depth (0, 1, ...), or -1
                * for a prefix or suffix chapter beside the parts of a book
                * that has parts */
  char *number; /* mdBook's number of a numbered chapter ("1.", "2.3."),
                 * drafts counted as mdBook counts them; NULL for prefix and
                 * suffix chapters and when book.toml's [output.html]
                 * no-section-label is true (owned) */
  char *title;  /* the SUMMARY.md entry's link text, as Markdown (owned) */
} ProjectSource;

/* A message about a project, with its position (line and col 0: the whole
 * file). */
typedef struct {
  char *file;
  int line, col;
  bool error;
  char *message;
} ProjectDiag;

typedef struct {
  char *root;          /* the book's folder: includes and links stay inside it (owned) */
  GArray *sources;     /* ProjectSource, in reading order */
  GPtrArray *metadata; /* "KEY=VALUE" from book.toml (owned strings) */
  char *metadata_file; /* DIR/metadata.yaml, or NULL (owned) */
  char *toml_file;     /* book.toml, or NULL (owned) */
  Sandbox *sb;         /* every file of the project is read through it (borrowed) */
} Project;

/* True when path names a book project: a file called SUMMARY.md, or a
 * directory (which then must hold a SUMMARY.md, src/SUMMARY.md or *.md). */
bool project_is_project(const char *path);

/* Read the project at path through sb (sandbox.h), after adding the
 * project's folder to its roots: every chapter, SUMMARY.md, book.toml,
 * metadata.yaml and included file must be a regular file inside it, and
 * the text, includes expanded, within sb's budget. Messages go to diags
 * (ProjectDiag, the caller's: make it with project_diags_new()). Returns
 * NULL after an error (the project cannot be read, lists no chapter, a
 * chapter file is missing, outside the folder or not a regular file, an
 * include cycle, the text past its limit, book.toml's src outside the
 * folder); an include that is missing or refused is a warning. */
Project *project_load(const char *path, Sandbox *sb, GArray *diags);
/* An empty array for ProjectDiag that frees its strings. */
GArray *project_diags_new(void);

/* The project's metadata as a YAML front-matter block ("---\n...\n---\n")
 * for a source of its own ahead of the chapters, so that it is a layer
 * below the chapters' own front matter and -M (pandoc's precedence for a
 * metadata file): book.toml's keys written with libyaml's emitter, or
 * metadata.yaml as it is. NULL when the project has no metadata. Sets
 * *name to the file it came from (owned by p). */
char *project_front_matter(const Project *p, const char **name, GError **err);

/* The name for a project's default output files: the book's folder's name
 * (for SUMMARY.md in src/, the folder above), or for a plain file its base
 * name without the extension. Caller frees. */
char *project_name(const char *path);

/* Free a project. Accepts NULL. */
void project_free(Project *p);

/* Expand mdBook's include lines in text (of the file name, in dir),
 * reading through sb: as mdBook, the lines an include takes (read no
 * further than the last), then the includes inside them, to a depth of
 * SANDBOX_INCLUDE_DEPTH. Warnings go to diags (ProjectDiag). Returns a new
 * string, or NULL after an error in diags: an include cycle (the chain
 * named) or the book's text past sb's budget. Exposed for tests. */
char *project_expand_includes(Sandbox *sb, const char *text, gsize len, const char *name,
                              const char *dir, GArray *diags);

/* Parse the [book] table of book.toml text into "KEY=VALUE" strings
 * (title, author (one per author), description, lang). Returns false with
 * *err set on a syntax error octavo cannot read. Exposed for tests. */
bool project_parse_book_toml(const char *text, const char *name, GPtrArray *metadata, GError **err);

#endif
