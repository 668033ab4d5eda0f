/* xhtml.h: document model -> XHTML5 (libxml2's xmlTextWriter). */
#ifndef OCTAVO_XHTML_H
#define OCTAVO_XHTML_H

#include "book.h"
#include "options.h"

/* Append the bodies of all chapters, as they stand inside the chapter
 * documents, as an HTML fragment to out. */
void xhtml_fragment(Book *book, const OctavoOptions *opts, GString *out);

/* Write the whole book as one XHTML5 document to path ("-" = stdout),
 * atomically. Returns false with a diagnostic in book on failure. */
bool xhtml_write_file(Book *book, const OctavoOptions *opts, const char *path);

/* Write the fragment of xhtml_fragment to path ("-" = stdout). */
bool xhtml_write_fragment_file(Book *book, const OctavoOptions *opts, const char *path);

#endif
