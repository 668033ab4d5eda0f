/* epub.h: document model -> EPUB 3 container (libzip). */
#ifndef OCTAVO_EPUB_H
#define OCTAVO_EPUB_H

#include "book.h"
#include "fonts.h"
#include "options.h"
#include "style.h"

/* Write the book as an EPUB 3 to path ("-" = stdout), under a temporary
 * name renamed at the end. style: the loaded print style (the cover's
 * colours); fonts: the loaded font set (embedded as subsets, and drawing
 * the cover), or NULL to go without both, with a warning. Uses book->page_marks when opts->page_list and
 * marks exist. Returns false with a diagnostic in book on failure; no file
 * is left behind then. */
bool epub_write(Book *book, const Style *style, const Fonts *fonts, const OctavoOptions *opts,
                const char *path);

#endif
