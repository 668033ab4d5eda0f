/* epub.h: document model -> EPUB 3 container (libzip). */
#ifndef OCTAVO_EPUB_H
#define OCTAVO_EPUB_H

#include "book.h"
#include "coverage.h"
#include "fonts.h"
#include "options.h"
#include "runplan.h"
#include "style.h"

/* Write the book as an EPUB 3 to path ("-" = stdout), under a temporary
 * name renamed at the end. style: the loaded print style (the cover's
 * colours); fonts: the loaded font set (embedded as subsets, and drawing
 * the cover), or NULL to go without both, with a warning. With
 * opts->page_list, page_marks (BookPageMark: the print layout's
 * lay->page_marks; NULL: none) become the page list. Returns false with a
 * diagnostic in book on failure; no file is left behind then. */
bool epub_write(Book *book, const Style *style, const Fonts *fonts, const OctavoOptions *opts,
                const GArray *page_marks, const char *path);
/* epub_write with the characters of the book's text already collected
 * (coverage_check_chars: the font subsets need them), instead of a walk
 * of its own, and with the book's identifier when it is made already
 * (epub_identifier of this book and opts: the PDF's colophon names it;
 * NULL: made here). */
bool epub_write_chars(Book *book, const Style *style, const Fonts *fonts, const OctavoOptions *opts,
                      const GArray *page_marks, const CoverageChars *chars, const char *identifier,
                      const char *path);

/* Starts making the EPUB's cover image (the -M cover file, or octavo's
 * drawn cover: 80 M instructions for the seed) on a thread of its own,
 * while the book is laid out; the next epub_write* of this book, style and
 * fonts takes it (with its warnings, given as it would have given them)
 * instead of drawing it. The thread is plan's, and plan keeps the cover
 * until it is taken: style and fonts must outlive that, or runplan_end
 * (which joins and frees a cover never taken). A second call's cover
 * replaces the first's. */
void epub_cover_prefetch(RunPlan *plan, Book *book, const Style *style, const Fonts *fonts);

/* Set up what the EPUB's libraries share across threads (libxml2's
 * parser state), once, on the main thread, before an EPUB is written on
 * another thread. */
void epub_threads_init(void);

/* The book's identifier as the EPUB names it (dc:identifier, the
 * colophon): the metadata's identifier, else a name-based UUID
 * ("urn:uuid:...") of the content (the title page, the chapters without
 * print page breaks, the resources' names), so that it depends on neither
 * the pagination nor the fonts and both books can name it. Caller frees. */
char *epub_identifier(Book *book, const OctavoOptions *opts);

#endif
