/* layout.h: document model -> pages of positioned glyph runs, rules, images,
 * links and destinations, by one driver (lay_drive) handing them to a sink
 * or keeping them. Plain data: no cairo calls. pdf.c draws it; the EPUB's
 * page list takes its page marks (Layout.page_marks). The book is only
 * read. The implementation is in src/layout/ (layout/layout.c: the
 * driver; print.c connects it to the run plan and the sinks).
 *
 * Coordinates are points from the page's top-left corner, y downwards. */
#ifndef OCTAVO_LAYOUT_H
#define OCTAVO_LAYOUT_H

#include <pango/pango.h>

#include "book.h"
#include "colophon.h"
#include "fonts.h"
#include "options.h"
#include "style.h"

typedef enum {
  LAY_GLYPHS,    /* font, glyphs, text at baseline origin (x_pt, y_pt) */
  LAY_RULE,      /* a filled rectangle (x, y, w, h) of `gray` */
  LAY_FRAME,     /* a stroked rectangle (x, y, w, h), line width 0.5 pt, of `gray` */
  LAY_IMAGE,     /* res drawn into (x, y, w, h) */
  LAY_LINK,      /* a link area (x, y, w, h) to named destination `dest` or to `uri` */
  LAY_DEST,      /* named destination `dest` at (x, y) */
  LAY_TAG_BEGIN, /* structure tag `tag` opens (tags nest, and may span pages) */
  LAY_TAG_END,   /* structure tag `tag` closes */
} LayKind;

/* 104 bytes (168 before issue 26: a note's line of 8 items took a 2 KB
 * array, now 1 KB): what only some kinds use shares one union, which
 * lay_item_clear and lay_item_copy read by kind. */
typedef struct {
  LayKind kind;
  bool rgb_set;             /* RULE, FRAME, GLYPHS: drawn in rgb, not gray (the cover) */
  bool exact;               /* GLYPHS: at (x_pt, y_pt) exactly (not rounded to
                              * cairo's 1/256): the cover's runs */
  bool outline;             /* GLYPHS: drawn as outlines, not as text: nothing to copy
                              * or search (a code line's continuation mark) */
  double x_pt, y_pt, w_pt, h_pt;
  double gray;              /* RULE, FRAME, GLYPHS: 0 black .. 1 white */
  PangoFont *font;          /* GLYPHS: a reference the item owns */
  PangoGlyphString *glyphs; /* GLYPHS: owned; log_clusters are byte offsets into text */
  char *text;               /* GLYPHS: the UTF-8 the glyphs show (for extraction); owned */
  const char *tag;          /* TAG_*: "Document", "P", "H1", ... (static) */
  union {
    double rgb[3]; /* RULE, FRAME, GLYPHS with rgb_set: 0 .. 1 */
    struct {
      const BookResource *res; /* IMAGE */
      BookPos pos;             /* IMAGE: the image in the source (for warnings) */
    };
    struct {
      char *dest; /* LINK (internal) and DEST: the destination name; owned */
      char *uri;  /* LINK (external): owned */
    };
  };
} LayItem;

typedef struct {
  GArray *items; /* LayItem, in drawing order */
  char *label;   /* the page label: "i", "ii" in the front matter, "1", "2" after */
  bool front;    /* front matter (title page, contents) */
  int folio;     /* body: 1-based page number; front: 1-based roman number */
  bool cover;    /* the title page: the book's cover (cover.c's items) */
} LayPage;

typedef struct {
  int level;   /* 1 = chapter */
  int parent;  /* index of the parent entry, or -1 */
  char *title; /* owned */
  char *dest;  /* named destination; owned */
} LayOutline;

typedef struct Layout {
  double page_w_pt, page_h_pt;
  GPtrArray *pages;   /* LayPage *, owned */
  GArray *outline;    /* LayOutline, in reading order */
  int front_pages;    /* the first front_pages pages are front matter */
  char *title;        /* the book's title as printed (owned) */
  GArray *page_marks; /* BookPageMark (labels owned): where each body page
                        * starts in the source (page = physical page number,
                        * label = folio); front matter pages have none */
  const Fonts *fonts; /* the font set the glyph runs' fonts come from (the
                        * caller's, not owned; for drawing more with the same
                        * fonts, e.g. a cover) */
  int unresolved;     /* forward references drawn that the layout did not resolve: 0
                        * but for a bug (a contents entry or a link destination never
                        * placed; a handout's pages not its counting pass's) */
} Layout;

/* What a layout is for: the printed book, or only the EPUB's page list
 * (Layout.page_marks), which needs the page breaks and not what is drawn
 * around them: then the running heads and folios, the title page's
 * content, the colophon's page and the outline are left out (the page
 * marks are the same). */
typedef enum { LAY_FOR_PRINT, LAY_FOR_PAGE_LIST } LayPurpose;

/* Where the driver (lay_drive) hands what it makes; each member may be
 * NULL, ud is given to each.
 *   page:   each page as soon as it is final, in drawing order: the title
 *           page, the body, the colophon's page, then the book's contents
 *           and their padding page last (the PDF's archive pass moves those
 *           Layout.front_pages - 1 pages after the title page); `label` is
 *           the label of the book's page at the position drawn (valid
 *           during the call), so the labels are right once moved. The
 *           items are the sink's from then on (free them with
 *           lay_items_free, on any thread: their fonts stay alive as long
 *           as the layout's font map, see lay_items_free). NULL: the pages
 *           are kept in the Layout returned, in the book's order.
 *   marks:  the page marks (BookPageMark) once final, once: before the
 *           first page when a counting pass made them (the handout),
 *           else at the layout's end; valid during the call.
 *   placed: the body pages placed so far, as they are placed (progress). */
typedef struct {
  void (*page)(void *ud, GArray *items, const char *label);
  void (*marks)(void *ud, const GArray *marks);
  void (*placed)(void *ud, int pages);
  void *ud;
} LaySink;

/* How the driver lays out (what the run plan decided: runplan.h). */
typedef struct {
  LayPurpose purpose;
  bool stream;       /* with a sink->page, for print: each page handed over as it is final,
                      * then emptied (memory does not grow with the pages); else the pages
                      * are kept (sink->page unused) */
  int helpers;       /* threads the drawn (or kept) pass may use beside its own: a book's
                      * chapters set ahead on them (layout/pool.c), else, with one or more,
                      * the paragraphs shaped ahead on one (layout/ahead.c) */
  int count_helpers; /* the same for a counting pass */
  int chapter_threads; /* the plan's: of the helpers, the chapters set ahead on this many
                        * (a book's flows side by side, layout/pool.c); 0: none, the
                        * helpers shape paragraphs ahead instead */
  struct Hyphenator *hyphenator; /* the run's hyphenation dictionaries (hyphenate.h), shared
                                  * by the pass's shapers; NULL: the pass loads its own */
  struct LayAux *aux; /* what a counting pass found, kept by the caller across drives of
                       * the same book (lay_aux_new); NULL: the drive's own */
} LayDrive;

/* What a counting pass found that the drawn pass reads (TeX's .aux, in
 * memory: the handout's page count, its contents' numbers, where each
 * destination landed, its page marks). A caller that lays the same book
 * out again with the same style and options (cairo's refused tags: drawn
 * once more) keeps one across the drives, so that the count is made once.
 * Free with lay_aux_free (accepts NULL). */
typedef struct LayAux LayAux;
LayAux *lay_aux_new(void);
void lay_aux_free(LayAux *aux);

/* The one layout driver: the book (or the handout, the style's
 * chapter_new_page false) laid out as d says, pages and page marks to
 * sink (NULL: none). Forward references (the contents' page numbers, link
 * destinations, the handout's "page N of M") are read from what the pass
 * itself placed when they are drawn after it (the book's contents, drawn
 * last), else from a counting pass made first (the handout: its page
 * count, its contents' numbers, its page marks); never guessed and
 * redone (src/README.md, "The layout driver"). opts gives columns,
 * toc_depth, linebreak, link_notes, split_level and the plan whose
 * threads the helpers are; colophon (NULL: none) is set on a last page of
 * its own (the book) or after the text (the handout). Only reads book,
 * st, fonts and colophon. Returns the layout: its pages whole when kept,
 * emptied (but for their Figure and Note tags and images) when streamed;
 * its outline and page marks either way. Never NULL; free with lay_free,
 * before book and fonts. */
Layout *lay_drive(const LayDrive *d, const Book *book, const OctavoOptions *opts, const Style *st,
                  const Fonts *fonts, const Colophon *colophon, const LaySink *sink);

/* lay_drive for print, kept, on this thread only (tests, tools). */
Layout *lay_book(const Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts,
                 const Colophon *colophon);

/* Free a layout. Accepts NULL. */
/* How many flows the book has in print: chapters that open a page, each
 * with the chapters that run on after it (an mdBook's nested ones, an
 * article's sections). The run plan sets chapters on threads by flows. */
unsigned lay_flows(const Book *book);

void lay_free(Layout *lay);

/* A text dump of the layout: one line per page break and per text line
 * ("page 3 [1]" / "  y=123.4 x=72.0 w=400.1 |text|"), positions rounded to
 * 0.1 pt. For golden-file tests. Caller frees. */
char *lay_trace(const Layout *lay);

/* Clear every item of a page's items (LayItem) and free the array.
 * Accepts NULL. Dropping the last reference to a PangoFont is not thread
 * safe (the font map's cache): a thread other than the layout's must only
 * free items whose fonts someone else still holds. */
void lay_items_free(GArray *items);

/* Deep copy and clear of one item (references and strings). */
void lay_item_copy(LayItem *dst, const LayItem *src);
void lay_item_clear(LayItem *item);

#endif
