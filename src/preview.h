/* preview.h: PNG thumbnails of the laid-out pages and a contact sheet,
 * drawn by the painter (paint.c) on cairo image surfaces, so an author can
 * look at pages without a PDF viewer. */
#ifndef OCTAVO_PREVIEW_H
#define OCTAVO_PREVIEW_H

#include <stdbool.h>

#include "book.h"
#include "layout.h"

/* Which of n_pages physical pages (1 = the title page) a list such as
 * "1-3,7,10-" names: a newly allocated array of n_pages bools (caller
 * g_free), or NULL with *err set when the list does not parse or names a
 * page the book does not have. spec NULL: every page. */
bool *preview_pages(const char *spec, int n_pages, GError **err);

/* Write dir/page-NNN.png (PREVIEW_THUMB_W pixels wide) for each chosen page
 * and dir/contact.png (every page, PREVIEW_SHEET_COLS thumbnails a row),
 * creating dir. Each file is written under a temporary name and renamed.
 * Deterministic bytes for the same layout. Returns false with an error in
 * book on failure. */
#define PREVIEW_THUMB_W 400
#define PREVIEW_SHEET_W 150
#define PREVIEW_SHEET_COLS 8
bool preview_write(Book *book, const Layout *lay, const bool *chosen, const char *dir);

#endif
