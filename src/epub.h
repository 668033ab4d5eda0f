/* epub.h: document model -> EPUB 3 container (libzip). */
#ifndef OCTAVO_EPUB_H
#define OCTAVO_EPUB_H

#include "book.h"
#include "options.h"

/* Write the book as an EPUB 3 to path ("-" = stdout), under a temporary
 * name renamed at the end. Uses book->page_marks when opts->page_list and
 * marks exist. Returns false with a diagnostic in book on failure; no file
 * is left behind then. */
bool epub_write(Book *book, const OctavoOptions *opts, const char *path);

#endif
