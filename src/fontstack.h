/* fontstack.h: the fallback faces an EPUB needs. The characters of the
 * book that its own faces lack are split among the fallback faces of
 * fonts/fallback.conf, in the order the print book takes them; each used
 * face is subset to its characters and embedded when it is small enough,
 * and the CSS font stacks name them in that order. */
#ifndef OCTAVO_FONTSTACK_H
#define OCTAVO_FONTSTACK_H

#include "book.h"
#include "fonts.h"

/* A fallback face's subset, to embed as fonts/FILE. */
typedef struct {
  char *file;             /* "NotoSerifCJKSC.otf" (owned) */
  const char *media_type; /* "font/otf" or "font/ttf" */
  GBytes *data;           /* owned */
} FontstackFile;

/* The largest subset of one fallback face that is embedded (bytes): past
 * it the face is only named in the font stack, for the reader's own copy. */
#define FONTSTACK_MAX_BYTES (1536 * 1024)

/* For text_cps (gunichar, set in text_family) and mono_cps (set in
 * mono_family): appends to own_text and own_mono the characters the book's
 * own faces draw (what their subsets need); appends to files the fallback
 * subsets to embed (FontstackFile; free with fontstack_file_clear), to
 * faces their @font-face rules, and to stacks the rules that put the used
 * fallback families after the book's in the font stacks of html and of
 * code. A face over FONTSTACK_MAX_BYTES gets a warning on book; a colour
 * face (emoji) is named only, left to the reader's emoji font. False with
 * an error on book when a subset fails. */
bool fontstack_build(Book *book, const Fonts *fonts, const char *text_family,
                     const char *mono_family, const GArray *text_cps, const GArray *mono_cps,
                     GArray *own_text, GArray *own_mono, GArray *files, GString *faces,
                     GString *stacks);
void fontstack_file_clear(FontstackFile *f);

#endif
