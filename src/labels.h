/* labels.h: the words octavo itself puts in a book (not the author's), per
 * language, for both books: the EPUB's navigation and title page, the
 * PDF's contents, link notes, title page, the cover and the colophon. One table; a
 * language octavo does not know gets English. */
#ifndef OCTAVO_LABELS_H
#define OCTAVO_LABELS_H

#include <glib.h>
#include <stdbool.h>

typedef enum {
  LABEL_CONTENTS, /* the contents' heading */
  LABEL_BY,       /* before the authors: "By" */
  LABEL_AND,      /* between the last two authors: "and" */
  LABEL_COVER,
  LABEL_TITLEPAGE,
  LABEL_START,            /* landmark: start of content */
  LABEL_BACK,             /* a note's link back to its reference */
  LABEL_LINKS,            /* the heading of a chapter's link notes (--link-notes end) */
  LABEL_LANDMARKS,        /* the EPUB's landmarks nav */
  LABEL_PRINT_PAGES,      /* the EPUB's page list */
  LABEL_UNTITLED_SECTION, /* a contents entry for a heading without text */
  /* the colophon (colophon.h) */
  LABEL_COLOPHON,   /* its heading */
  LABEL_SOURCE,     /* where the text comes from (-M source=URL) */
  LABEL_IDENTIFIER, /* the book's identifier */
  LABEL_BUILT,      /* the date of the build */
  LABEL_TYPEFACES,  /* the fonts the book is set in */
  LABEL_MADE_WITH,  /* before "octavo VERSION": "Made with" */
  LABEL_PAGE_OF,    /* the handout's running head: "page %d of %d" (labels_page_of) */
  LABEL_DATED,      /* the colophon's date when it is the text's, not the build's */
  LABEL_COUNT
} LabelId;

/* The word `id` in language `lang` (BCP 47: "fr", "fr-CA"; NULL or unknown:
 * English). Static. */
const char *labels_get(const char *lang, LabelId id);

/* Names joined as the language lists them: "Ada", "Ada and Charles",
 * "Ada, Charles, and Grace" (English's serial comma), "Ada, Charles et
 * Grace". Caller frees; "" for none. */
char *labels_join(const char *lang, const GPtrArray *names);

/* The byline: "By Ada and Charles" ("Par Ada et Charles"). Caller frees;
 * NULL for no authors. */
char *labels_byline(const char *lang, const GPtrArray *authors);

/* A date for a title page: YYYY-MM-DD as the language writes it ("11 May
 * 2023", "11 mai 2023", "11. Mai 2023", "2023年5月11日"), from the table's
 * month names and order (Gregorian, Western digits; never the machine's
 * locales); any other form as given. Caller
 * frees; NULL for NULL. */
char *labels_date(const char *lang, const char *date);

/* Whether the table has the language's words (else labels_get gives
 * English's). */
bool labels_known(const char *lang);

/* Whether the language is written right to left (Arabic, Persian, Urdu,
 * Hebrew, Yiddish, …; BCP 47, its script subtag deciding where it has one:
 * "az-Arab" is, "ku-Latn" is not). */
bool labels_rtl(const char *lang);

/* "page 2 of 3" ("page 2 sur 3") from LABEL_PAGE_OF. Caller frees. */
char *labels_page_of(const char *lang, int page, int pages);

#endif
