/* colophon.h: what the book's colophon says, for both books: where the
 * text comes from, the identifier, the date of the build, the typefaces,
 * and the tool that made it. The words are labels.h's; the EPUB writes
 * it as its last spine item (xhtml_colophon_document), the PDF as its last
 * page. */
#ifndef OCTAVO_COLOPHON_H
#define OCTAVO_COLOPHON_H

#include <glib.h>
#include <stdbool.h>

#include "book.h"
#include "fonts.h"
#include "labels.h"

typedef struct {
  LabelId
      label;   /* what the line is: LABEL_SOURCE, LABEL_IDENTIFIER, LABEL_BUILT, LABEL_TYPEFACES */
  char *value; /* owned */
  bool link;   /* value is a web address (http, https) to link to */
} ColophonLine;

typedef struct {
  GArray *lines;   /* ColophonLine, in that order; a line without a value is left out */
  char *made_with; /* "Made with octavo 0.1.0" in the book's language */
} Colophon;

/* The colophon of book in language lang: the source when the metadata has
 * one (-M source=URL), the identifier, the build date (build_time, from
 * util_build_time: SOURCE_DATE_EPOCH or the book's date; written as
 * labels_date writes it), the family names of fonts' faces in their order
 * and of the fallback faces the book's text needs (none when fonts is NULL:
 * a book that embeds none names none). Free with
 * colophon_free (accepts NULL). */
Colophon *colophon_new(const Book *book, const char *lang, const char *identifier,
                       gint64 build_time, const Fonts *fonts);
/* The identifier's line put in its place (after the source's), for a
 * colophon made without it (colophon_new's identifier NULL): the
 * identifier, a digest of the whole book, may be made on another thread
 * meanwhile (main.c). */
void colophon_identify(Colophon *c, const char *identifier);
void colophon_free(Colophon *c);

#endif
