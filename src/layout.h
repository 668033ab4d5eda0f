/* layout.h: document model -> pages of positioned glyph runs, rules, images,
 * links and destinations. Plain data: no cairo calls. pdf.c draws it; the
 * EPUB's page list takes its page marks (Layout.page_marks). The book is
 * only read. The implementation is in src/layout/ (layout/layout.c: the
 * driver).
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
                              * cairo's 1/256), without the PDF viewers' width
                              * correction (paint.c): the cover's runs */
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
} Layout;

/* Lay out the book for print with the loaded style st (its paper and
 * columns) and fonts (columns, toc_depth, linebreak, link_notes, lang and
 * split_level from opts). colophon (colophon.h; NULL: none) is set on a
 * last page of its own (the book) or after the text (the handout), in
 * neither the contents nor the outline. Only reads book, st, fonts and
 * colophon. Never returns NULL (allocation failure aborts); free with
 * lay_free(). The layout keeps pointers into book and fonts: free it
 * first. */
Layout *lay_book(const Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts,
                 const Colophon *colophon);
/* What a layout is for: the printed book, or only the EPUB's page list
 * (Layout.page_marks), which needs the page breaks and not what is drawn
 * around them: then the running heads and folios, the title page's
 * content, the colophon's page and the outline are left out (the page
 * marks are the same). The handout's page list is its counting pass
 * (lay_handout_plan). */
typedef enum { LAY_FOR_PRINT, LAY_FOR_PAGE_LIST } LayPurpose;
/* lay_book for a purpose (lay_book: LAY_FOR_PRINT). */
Layout *lay_book_for(const Book *book, const OctavoOptions *opts, const Style *st,
                     const Fonts *fonts, const Colophon *colophon, LayPurpose purpose);
/* Where lay_book_stream hands each page, in drawing order: its items,
 * which the sink owns from then on (free them with lay_items_free, on any
 * thread: the fonts they hold references to stay alive as long as the
 * layout's font map, see lay_items_free), and `label`, the page label of
 * the book's page at the position being drawn (valid during the call). */
typedef struct {
  void (*page)(void *ud, GArray *items, const char *label);
  void *ud;
} LaySink;

/* lay_book (print) for a PDF drawn while it is laid out, so that memory
 * does not grow with the pages: each page goes to sink as soon as it is
 * final, then is emptied. The contents are laid out first with
 * placeholder numbers (an entry's lines do not depend on its number), which
 * gives the front matter's page count, so every body page's number is
 * known before the body. The pages come in this order: the title page, the
 * body chapter by chapter, the colophon's page, then the contents and
 * their padding page last, with their numbers: the PDF moves those
 * (Layout.front_pages - 1 pages) after the title page; every page is
 * handed the label of the book's page at its position, so the labels are
 * right once moved. Returns the layout with its pages in the book's
 * order, emptied (but for their Figure and Note tags and images), its
 * outline and page marks. *exact false: what the placeholders predicted
 * (the contents' entries and pages, links to destinations placed later)
 * did not hold, and what was drawn is not the book: draw it from lay_book.
 * The handout (its contents run on with the text) is streamed by
 * lay_handout_stream: returns NULL. */
Layout *lay_book_stream(const Book *book, const OctavoOptions *opts, const Style *st,
                        const Fonts *fonts, const Colophon *colophon, const LaySink *sink,
                        bool *exact);
/* The handout streamed: what a first, counting pass finds, which the
 * streamed pass needs before its first page is drawn. */
typedef struct LayPlan LayPlan;
/* The handout's counting pass (two with --toc when the contents lose
 * entries once their numbers are known): the handout laid out without
 * its glyphs (as the page list's layout) and without keeping its pages,
 * so that memory does not grow with them. It gives the page count that
 * the running heads print ("page N of M"), the pages the contents'
 * entries land on, every destination placed, the page marks. NULL when
 * st is not the handout's. Free with lay_plan_free. */
LayPlan *lay_handout_plan(const Book *book, const OctavoOptions *opts, const Style *st,
                          const Fonts *fonts, const Colophon *colophon);
/* The handout's page marks (BookPageMark), as lay_book's: valid until
 * lay_plan_free. */
const GArray *lay_plan_marks(const LayPlan *plan);
/* The handout laid out for print (as lay_book) with plan's page count
 * and contents' numbers, each page handed to sink, in order, as soon as
 * no later line can change it, then emptied. Returns the layout, its
 * pages emptied (but for their Figure and Note tags and images), its
 * outline and page marks. *exact false: the pages, destinations or page
 * marks are not the plan's, and what was drawn is not the book: draw it
 * from lay_book. */
Layout *lay_handout_stream(const LayPlan *plan, const LaySink *sink, bool *exact);
void lay_plan_free(LayPlan *plan);

/* Free a layout. Accepts NULL. */
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
