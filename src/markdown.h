/* markdown.h: Markdown (cmark-gfm) -> document model. */
#ifndef OCTAVO_MARKDOWN_H
#define OCTAVO_MARKDOWN_H

#include "book.h"
#include "options.h"

typedef struct {
  const char *name; /* file name as given ("-" for standard input): used in messages */
  const char *text; /* the bytes, not necessarily valid UTF-8 */
  gsize len;
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
