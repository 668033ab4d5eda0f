/* sandbox.h: the one door through which octavo reads a book's files.
 *
 * A book is untrusted input (a CI server builds a contributor's pull
 * request): every file octavo reads for it — a project's chapters,
 * SUMMARY.md, book.toml, metadata.yaml, included files, images (and the
 * images an SVG references), the cover — is resolved here, symbolic links
 * included, and refused unless it is a regular file inside one of the
 * book's roots: the project's folder (its real path) or the folder of a
 * Markdown file named on the command line, and the --resource-path
 * folders. Only regular files are opened (a FIFO, a device or a folder is
 * refused at once, never waited on), and each read is bounded.
 *
 * The sandbox remembers every file it let through, so that main.c can
 * refuse an output that would overwrite one of them (sandbox_holds).
 *
 * Files named on the command line (and standard input) are the user's own
 * choice and are read by input.c as they are; what they lead to comes
 * through here.
 *
 * Thread use: the front end adds roots and reads (one thread); after
 * parsing, the writers only call the const functions (sandbox_read_known,
 * sandbox_holds), which change nothing and may run on any thread.
 */
#ifndef OCTAVO_SANDBOX_H
#define OCTAVO_SANDBOX_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

/* The limits a book meets (the man page lists them). */
#define SANDBOX_TEXT_MAX_DEFAULT ((gint64)256 << 20) /* all Markdown, includes expanded */
#define SANDBOX_META_MAX ((gsize)1 << 20)            /* metadata.yaml, book.toml, front matter */
#define SANDBOX_FILE_MAX ((gsize)512 << 20)          /* any one file read whole (images) */
#define SANDBOX_INCLUDE_DEPTH 10                     /* includes inside includes (as mdBook) */

typedef struct Sandbox Sandbox;

/* Why a path was refused. */
typedef enum {
  SANDBOX_OK,
  SANDBOX_MISSING,     /* no such file */
  SANDBOX_OUTSIDE,     /* resolves outside every root */
  SANDBOX_NOT_REGULAR, /* a folder, FIFO, device or socket */
} SandboxVerdict;

/* An empty sandbox: no roots, so it refuses everything. text_max bounds
 * the book's Markdown in bytes (sandbox_take_text); <= 0 for the default.
 * Never returns NULL. */
Sandbox *sandbox_new(gint64 text_max);
/* Free it. Accepts NULL. */
void sandbox_free(Sandbox *sb);

/* Set the text budget (sandbox_take_text) in bytes; <= 0 for the default. */
void sandbox_set_text_max(Sandbox *sb, gint64 text_max);

/* Add a folder whose files the book may read (its real path is kept).
 * False when it does not exist or is not a folder. */
bool sandbox_add_root(Sandbox *sb, const char *dir);
/* Add each folder of a search path (folders separated by ':'). */
void sandbox_add_roots(Sandbox *sb, const char *search_path);

/* True when path (any kind of file) resolves inside a root. */
bool sandbox_contains(const Sandbox *sb, const char *path);

/* Resolve path (relative to the current directory when not absolute):
 * its real path when it is a regular file inside a root (caller frees),
 * else NULL with *verdict saying why. The file counts as read. */
char *sandbox_resolve(Sandbox *sb, const char *path, SandboxVerdict *verdict);
/* As sandbox_resolve, without counting the file as read: for a look ahead
 * (resolve.c's image checks queued while the book is parsed), whose files
 * count when sandbox_resolve lets them through. */
char *sandbox_peek(const Sandbox *sb, const char *path, SandboxVerdict *verdict);
/* "does not exist", "is outside the book's folder", "is not a regular file". */
const char *sandbox_verdict_text(SandboxVerdict v);

/* Read a file whole, after sandbox_resolve: at most max bytes (0: no more
 * than SANDBOX_FILE_MAX). Opened without following a last symbolic link
 * and without blocking, checked again as a regular file once open. False
 * with *err set (a message naming shown, e.g. "chapter ch1.md is outside
 * the book's folder" or "metadata.yaml is 20971520 bytes; the limit is
 * 1048576"). *real (may be NULL) gets its real path. */
bool sandbox_read(Sandbox *sb, const char *path, const char *shown, gsize max, char **data,
                  gsize *len, char **real, GError **err);

/* Open a file for reading a line at a time (an include that takes some of
 * its lines), after the same checks as sandbox_read. NULL with *err set. */
FILE *sandbox_open(Sandbox *sb, const char *path, const char *shown, char **real, GError **err);

/* Take len more bytes of the book's text from its budget: false once the
 * text, all files and includes together, would pass the limit. */
bool sandbox_take_text(Sandbox *sb, gsize len);
/* The text limit in bytes. */
gint64 sandbox_text_max(const Sandbox *sb);

/* Read a file the sandbox has let through before (its real path, as
 * sandbox_resolve returned it), for a writer: the same checks, nothing
 * recorded. False with *err set. */
bool sandbox_read_known(const Sandbox *sb, const char *real, char **data, gsize *len, GError **err);

/* Record a file the book reads that came in another way (a style or a
 * stylesheet named on the command line), so that no output replaces it. */
void sandbox_note(Sandbox *sb, const char *path);

/* True when path names (device and inode) a file the sandbox let through
 * or was told of: an output there would overwrite a source. */
bool sandbox_holds(const Sandbox *sb, const char *path);

#endif
