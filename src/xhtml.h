/* xhtml.h: document model -> XHTML5 (libxml2's xmlTextWriter). */
#ifndef OCTAVO_XHTML_H
#define OCTAVO_XHTML_H

#include "book.h"
#include "colophon.h"
#include "options.h"

/* Append the bodies of all chapters, as they stand inside the chapter
 * documents, as an HTML fragment to out. */
void xhtml_fragment(Book *book, const OctavoOptions *opts, GString *out);

/* Write the whole book as one XHTML5 document to path ("-" = stdout),
 * atomically. Returns false with a diagnostic in book on failure. */
bool xhtml_write_file(Book *book, const OctavoOptions *opts, const char *path);

/* Write the fragment of xhtml_fragment to path ("-" = stdout). */
bool xhtml_write_fragment_file(Book *book, const OctavoOptions *opts, const char *path);

/* ---- for the EPUB writer ---- */

/* A print page whose page break the writer placed in a chapter document. */
typedef struct {
  int page;             /* BookPageMark.page */
  const char *label;    /* BookPageMark.label (owned by the page marks' owner) */
  BookChapter *chapter; /* the document it was placed in */
  char id[48];          /* the id of its pagebreak span there */
} XhtmlPage;

typedef struct XhtmlWriter XhtmlWriter;

/* A writer of EPUB chapter documents for book. With page_marks (BookPageMark,
 * from the print layout; NULL: none), those marks become
 * epub:type="pagebreak" spans; the array must outlive the writer. Free with
 * xhtml_writer_free (accepts NULL). */
XhtmlWriter *xhtml_writer_new(Book *book, const OctavoOptions *opts, const GArray *page_marks);
void xhtml_writer_free(XhtmlWriter *x);

/* The file name of a chapter's document inside the EPUB ("chapter-1.xhtml").
 * Caller frees. */
char *xhtml_chapter_href(const BookChapter *c);

/* s without the characters XML 1.0 cannot carry (C0 controls, U+FFFE,
 * U+FFFF; invalid UTF-8 becomes U+FFFD). Never NULL; caller frees. */
char *xhtml_xml_text(const char *s);

/* The book's language: its metadata, else --lang, else "en". */
const char *xhtml_book_lang(const Book *book, const OctavoOptions *opts);

/* The complete XHTML5 content document of chapter c (UTF-8, caller frees),
 * linking the stylesheet css_href. */
char *xhtml_chapter_document(XhtmlWriter *x, BookChapter *c, const char *css_href);

/* The title page document (title, subtitle, authors, date, publisher,
 * source). Caller frees. */
char *xhtml_title_document(XhtmlWriter *x, const char *css_href);

/* The cover page: the image at img_href, width x height pixels, with alt
 * text naming the book, in an SVG that fills the page (0 for an unknown
 * size: a plain <img>). Caller frees. */
char *xhtml_cover_document(XhtmlWriter *x, const char *css_href, const char *img_href, int width,
                           int height);

/* The colophon (colophon.h): its heading, a definition list of its lines
 * and the "made with" line. Caller frees. */
char *xhtml_colophon_document(XhtmlWriter *x, const char *css_href, const Colophon *col);

/* The page breaks placed so far by xhtml_chapter_document, in the order
 * written (XhtmlPage). Owned by the writer. */
const GArray *xhtml_writer_pages(const XhtmlWriter *x);

#endif
