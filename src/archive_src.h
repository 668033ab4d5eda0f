/* archive_src.h: the Markdown sources the archival PDF embeds
 * (archive_src.c), read, digested and compressed for archive.c, on a
 * thread of their own while the rest of the archival pass runs. */
#ifndef OCTAVO_ARCHIVE_SRC_H
#define OCTAVO_ARCHIVE_SRC_H

#include <glib.h>
#include <stdbool.h>

#include "book.h"
#include "runplan.h"

/* One source file to embed. */
typedef struct {
  char *name;   /* its name in the PDF: unique among the book's sources */
  char *path;   /* where it was read */
  GBytes *data; /* its bytes, flate-compressed (pdfupdate_deflate; NULL: unread) */
  gsize len;    /* its length before compression (/Params /Size) */
  gint64 time;  /* /Params /ModDate: the build time, or the file's */
  char md5[33]; /* /Params /CheckSum, in hex */
  char *error;  /* why it could not be read (data NULL), or NULL */
} ArchiveSource;

typedef struct ArchiveSources ArchiveSources;

/* Start reading the book's Markdown files (each once, regular files only:
 * not stdin), named uniquely and sorted by name (the name tree's order).
 * build_time: the time of every file when SOURCE_DATE_EPOCH is set or a
 * file cannot be stat'ed. On a thread of plan's when it says so
 * (sources_thread), else now (plan NULL too). Never NULL. */
ArchiveSources *archive_sources_start(const Book *book, gint64 build_time, RunPlan *plan);
/* The sources (ArchiveSource), once read; the same array on every call. */
const GArray *archive_sources_wait(ArchiveSources *as);
/* Wait for them and free them. Accepts NULL. */
void archive_sources_free(ArchiveSources *as);

#endif
