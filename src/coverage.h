/* coverage.h: is every character of the book drawn by some face? The
 * characters no face of the private font set has (the book's faces and
 * the fallbacks of fonts/fallback.conf) are reported once each, at their
 * first position in the source. Shared by both books, so it runs once. */
#ifndef OCTAVO_COVERAGE_H
#define OCTAVO_COVERAGE_H

#include "book.h"
#include "fonts.h"

/* Warn `file:line:col: warning: no font has U+XXXX 'c'; ...` for each
 * distinct character of the book's text (metadata, chapters, notes) that
 * neither text_face nor code_face (for code) nor their fallbacks has,
 * at its first occurrence. Characters drawn as nothing (controls, format
 * characters such as joiners, variation selectors, spaces) and characters
 * whose canonical decomposition is covered are not reported. Returns the
 * number of distinct characters reported. */
guint coverage_check(Book *book, const Fonts *fonts, const char *text_face, const char *code_face);

/* The distinct characters of the book's text (chapters, notes and the
 * metadata coverage_check reads), as sorted arrays of gunichar: all of
 * them, and those set in code (code spans and blocks, raw-HTML code, kbd,
 * samp, tt). Line feeds and invalid UTF-8 are left out. What the EPUB's
 * font subsets need of the book (the writers add their own words). */
typedef struct {
  GArray *text;
  GArray *code;
} CoverageChars;

/* coverage_check, collecting the characters into *chars in the same walk
 * (free them with coverage_chars_clear()). */
guint coverage_check_chars(Book *book, const Fonts *fonts, const char *text_face,
                           const char *code_face, CoverageChars *chars);
/* The characters alone, without the check (no fonts needed). */
void coverage_chars(const Book *book, CoverageChars *chars);
/* Free the arrays. Accepts a zeroed struct. */
void coverage_chars_clear(CoverageChars *chars);

#endif
