/* options.h: the settings main.c gathers from the command line and hands to
 * every stage. Plain data; each stage reads the fields it needs. */
#ifndef OCTAVO_OPTIONS_H
#define OCTAVO_OPTIONS_H

#include <glib.h>
#include <stdbool.h>

typedef struct {
  /* parsing */
  int split_level;           /* headings at or above this level start a chapter (2) */
  const char *lang;          /* --lang, or NULL */
  GPtrArray *metadata;       /* "KEY=VALUE" from -M, applied last; may be NULL */
  const char *resource_path; /* another directory resources may come from, or NULL */
  bool smart;                /* typographic punctuation: "" '' -- --- ... (false, as GFM) */
  /* output */
  int toc_depth;             /* heading levels in the contents (2) */
  bool number_sections;      /* number chapters and sections (false): book_number_headings */
  bool embed_fonts;          /* EPUB: embed subset fonts (true) */
  bool page_list;            /* EPUB: print page numbers from the layout (true) */
  const char *paper;         /* "a4", "letter", "a5" */
  int columns;               /* 1 or 2 */
  const char *linebreak;     /* "optimal" or "greedy" */
  const char *link_notes;    /* "foot" or "end" */
  const char *datadir;       /* holds fonts/ and styles/ */
  const char *style;         /* print style file, or NULL for datadir/styles/print.ini */
  const char *css;           /* e-book stylesheet, or NULL for datadir/styles/book.css */
  bool verbose, quiet;
  /* archival PDF (archive.c) */
  const char *pdf_standard;  /* "a-3u,ua-1" (default), a part of it, or "none" */
  bool attach_source;        /* PDF: attach the Markdown sources (true) */
} OctavoOptions;

/* Fill opts with the defaults above (datadir left NULL). */
void octavo_options_init(OctavoOptions *opts);

#endif
