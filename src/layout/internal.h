/* layout/internal.h: what the files of the print layout share, and nothing
 * outside src/layout/ includes.
 *
 * The data, by lifetime:
 *  - LayEnv: the read-only environment (book, options, style, geometry,
 *    language, line-breaking parameters), set up once per pass (run_init);
 *  - LayShaper: shaping and its caches (font metrics, label widths,
 *    hyphenation points): a cache changes, a result does not;
 *  - LayStore: what one step leaves for a later one (the notes laid out
 *    before the chapters and placed by pagination, the URL notes, the
 *    destinations already emitted);
 *  - Build: the state of one vertical list being built (a chapter, a note,
 *    the contents), with the measure its lines are set to;
 *  - Body: the pages and frames pagination fills.
 * Geometry a step needs is passed to it (a Build's measure, the Columns of
 * paginate) rather than set and restored in shared state. */
#ifndef OCTAVO_LAYOUT_INTERNAL_H
#define OCTAVO_LAYOUT_INTERNAL_H

#include <pango/pango.h>

#include "book.h"
#include "labels.h"
#include "layout.h"
#include "linebreak.h"
#include "options.h"
#include "outline.h"
#include "shape.h"
#include "style.h"

/* ------------------------------------------------------------------------ */
/* The environment and the shared state                                     */

/* The columns a vertical list is broken into. */
typedef struct {
  int n;         /* 1 or 2 */
  double w_pt;   /* width of one column */
  double gap_pt; /* between columns */
} Columns;

typedef struct {
  const Book *book;
  const OctavoOptions *opts;
  const Style *st;
  bool hyph; /* the language has hyphenation patterns */
  struct Hyphenator *hyphenator; /* the run's dictionaries (the shapers' on other threads too) */
  LbParams lbp;
  LbMode mode;
  bool url_end;               /* --link-notes=end: the URLs listed at the chapter's end */
  int chapter_level;          /* the source level of a chapter heading */
  double text_w, text_h;      /* the text block */
  Columns cols;               /* the body's columns */
  PangoFontDescription *body; /* the body font (owned) */
  GHashTable *targets;        /* ids a link may land on: chapters, headings, notes (owned) */
  const Colophon *colophon;   /* the colophon to set (colophon.h), or NULL: none */
  bool marks_only;            /* the page list's layout: lines without their glyphs (lines.c) */
} LayEnv;

typedef struct Ahead Ahead; /* paragraphs shaped ahead on a thread (ahead.c) */

typedef struct {
  PangoContext *pctx; /* owned */
  PangoLanguage *plang;
  const char *lang;
  GHashTable *desc_keys;          /* PangoFontDescription (a copy) -> its string, the key below */
  GHashTable *metrics;            /* font description string -> double[2] ascent, descent; and
                           * font + "\x1f" + label -> double[2] its width */
  struct HyphenCache *hyph_cache; /* word -> its hyphenation points (hyphenate.h) */
  GHashTable *hyph_w;             /* PangoFont * (a reference) -> double *: a hyphen's advance */
  GHashTable *labels;             /* font + "\x1f" + label -> Shaped *: labels shaped once */
  GHashTable *toc_lines;          /* a contents entry (depth, dest, title) -> GPtrArray of GArray of
                          * LayItem: its title's lines as the placeholder pass set them (front.c) */
  Ahead *ahead; /* the body's paragraphs shaped on another thread, or NULL (one thread) */
  GString *key;        /* shape_label_attrs' and label_width's lookup key, reused */
  GArray *label_slices; /* ShapeSlice: shape_label_attrs' (emptied after each) */
  GPtrArray *bufs; /* struct ParaBufs *: set_para's arrays not in use, kept with their room
                    * from paragraph to paragraph (lines.c) */
} LayShaper;

typedef struct {
  GHashTable *notes;     /* BookFootnote * or UrlNote * -> GArray * vertical list (owned) */
  GHashTable *note_h;    /* the same keys -> double * height */
  GHashTable *kids;      /* BookFootnote * -> GPtrArray * of the notes it first references */
  GHashTable *once;      /* the footnotes (keys of notes) not placed yet: a footnote is
                          * placed once (where it is first referenced), so its items are
                          * moved to the page and its list freed, not copied and kept */
  GPtrArray *url_notes;  /* UrlNote, owned, in order */
  GHashTable *url_index; /* a note's uri (its string) -> 1 + its index in url_notes */
  guint url_first;       /* the first of the current chapter */
  guint url_base;        /* the notes of its flow before it (the chapters it runs on
                          * after, lay_runs_on): its letters go on from theirs, so that
                          * no page's foot holds two notes "a" */
  guint url_chapter;     /* the book's chapter being set, 1..: its URL notes' ids are
                          * "url <chapter>-<n>"; 0: the handout's, "url <n>" */
  GHashTable *dests;     /* names of emitted destinations */
  /* footnotes laid out when first asked for (notes.c: note_list), where
   * no thread shapes them ahead: a book of 100,000 notes held them all
   * laid out, 2.5 KB each, before its first page */
  const LayEnv *note_env;       /* NULL: every note laid out at once */
  LayShaper *note_shp;
  BookOutlineLevels note_heads; /* the heading levels carried from note to note */
} LayStore;

/* ------------------------------------------------------------------------ */
/* The vertical list                                                        */

typedef enum { V_LINE, V_GLUE, V_PENALTY } VKind;

typedef struct {
  VKind kind;
  double h_pt;         /* LINE: height; GLUE: space */
  double penalty;      /* PENALTY: < LB_INFINITY allows a page break here */
  bool nobreak;        /* GLUE: not a legal page break */
  GArray *items;       /* LINE: LayItem relative to (frame left, line top) */
  BookNode *mark_node; /* LINE: where its text starts in the source */
  size_t mark_off;
  GPtrArray *notes; /* LINE: BookFootnote * first referenced on it, or NULL */
  int header;       /* LINE: index of the table header row to repeat on a new page, or -1 */
  bool shared;      /* LINE: drawn more than once (a table header): copied, not moved */
  bool rtl;         /* LINE: set right to left (flush right) */
  /* LINE: the first line of this chapter, run on after another
   * (flow_chapters); the running heads follow it (paginate.c) */
  BookChapter *chapter;
} VItem;

/* An open block quote's rule: its x, and whether a line in the quote has
 * been emitted (the space before the next one is then inside the quote,
 * and the rule runs through it). */
typedef struct {
  double x;
  bool started;
  bool rtl; /* drawn at the right (measure - x): the quote's first line is right to left */
} QuoteRule;

/* One vertical list being built, and the block walker's state for it. */
typedef struct {
  const LayEnv *env;
  const Style *st; /* env->st */
  LayShaper *shp;
  LayStore *store;
  double measure;          /* the width its lines are set to: a column, or the text block */
  GArray *vl;              /* VItem: the vertical list (owned until taken) */
  GArray *pending;         /* items for the start of the next line (tags, labels) */
  double space;            /* space wanted before the next block */
  bool first_block;        /* nothing emitted yet in this vertical list */
  BookOutlineLevels heads; /* the headings so far, for their tags' levels */
  int keep;                /* lines after a heading that must stay with it */
  bool after_par;          /* the last block was a running paragraph (indent the next) */
  double left;             /* current left indent */
  GArray *quote_x;         /* QuoteRule: the rule of each open block quote */
  bool note_mode;          /* laying out a footnote */
  GPtrArray *note_kids;    /* notes first referenced in the note being set, or NULL */
  GPtrArray *cell_notes;   /* notes referenced in the table row being set, or NULL */
  bool measuring;          /* shaping to measure only (table cells): no new URL notes */
  bool rtl_line;           /* the line being emitted is right to left (set_para) */
  int dir;                 /* the direction an open block's dir attribute gives its
                            * paragraphs: 1 right to left, -1 left to right, 0 none
                            * (each paragraph's first strong character decides) */
} Build;

/* vlist.c */
GArray *items_new(void);
/* The right edge of the glyph runs in items (a set line), or from when further left. */
double items_right(const GArray *items, double from);
void items_free(GArray *items);
/* Mirror items across [0, r] for a right-to-left line: each rule, frame,
 * link and destination, and each run of consecutive glyph items as a whole
 * (a label keeps its reading order), x -> r - x - width. */
void items_mirror(GArray *items, double r);
void add_tag(GArray *items, LayKind kind, const char *tag);
void add_rule(GArray *items, LayKind kind, double x, double y, double w, double h, double gray);
void add_dest(GArray *items, const char *name, double x, double y);
void add_link(GArray *items, double x, double y, double w, double h, const char *dest,
              const char *uri);
void items_append(GArray *dst, const GArray *src, double dx, double dy, bool plain);
void items_move(GArray *dst, GArray *src, double dx, double dy);
/* Free what the first n items of vl own (their items, notes);
 * the items stay in vl. */
void vitems_clear(GArray *vl, guint n);
void vlist_free(GArray *vl);
/* A new, empty vertical list set to `measure` points; build_clear frees
 * what build_take did not take. */
void build_init(Build *c, const LayEnv *env, LayShaper *shp, LayStore *store, double measure);
GArray *build_take(Build *c);
void build_clear(Build *c);
VItem *emit_line(Build *c, GArray *items, double h, double pen);
void want_space(Build *c, double s);
void open_tag(Build *c, const char *tag);
void close_tag(Build *c, const char *tag);
void emit_dest_pending(Build *c, const char *name);
void vl_end(Build *c);
double vl_height(const GArray *vl);

/* ------------------------------------------------------------------------ */
/* Shaping (shaper.c)                                                       */

/* ctx: fonts_context's, or shape_thread_context's on another thread
 * (taken: shaper_clear unrefs it). */
void shaper_init(LayShaper *shp, PangoContext *ctx, struct Hyphenator *hyph, const char *lang);
void shaper_clear(LayShaper *shp);
/* The running text's font: the body face at the body's size, or at the
 * notes' in a footnote (paragraphs, list labels; ahead.c shapes with it). */
PangoFontDescription *text_desc(const Style *st, bool note);
PangoFontDescription *font_desc(const char *family, double size, PangoStyle style,
                                PangoWeight weight);
double baseline(LayShaper *shp, const PangoFontDescription *d, double leading);
double shape_label(LayShaper *shp, GArray *items, const PangoFontDescription *d, const char *str,
                   double x, double y, double gray);
/* As shape_label, with pango attributes over str (NULL: none). */
double shape_label_attrs(LayShaper *shp, GArray *items, const PangoFontDescription *d,
                         const char *str, PangoAttrList *attrs, double x, double y, double gray);
double label_width(LayShaper *shp, const PangoFontDescription *d, const char *str);
/* Does text read right to left? Its first strong character decides, as
 * pango's itemising decides a paragraph's (only its first 256 bytes are
 * looked at). */
bool text_rtl(LayShaper *shp, const char *text, size_t len);
const size_t *word_points(LayShaper *shp, const char *w, size_t len, guint *n);
double hyphen_width(LayShaper *shp, const Shaped *sh, size_t at);

/* ------------------------------------------------------------------------ */
/* Paragraph text (para.c)                                                  */

typedef struct {
  PangoFontDescription *desc;          /* base font of the paragraph */
  double size_pt, leading_pt, base_pt; /* base_pt: baseline below the line top */
  double left_pt, width_pt;            /* measure, from the frame's left edge */
  double indent_pt;                    /* first line */
  bool justify;
  bool hyphenate;
  bool whole_words; /* lines break at spaces only (a table's cell as wide as its widest word) */
  bool rtl_right; /* a right-to-left paragraph's lines flush right, its indent at the right
                   * (set_para, lines of a vertical list); false: the caller places them */
  bool mirror;    /* flush right, the indent at the right, whatever the text's direction:
                   * octavo's own lines (colophon, title block) in a book read right to left */
} ParaStyle;

/* SPAN_URL: a URL as text (a link's own address, a printed URL note): breaks
 * after / . - ? & = with nothing added, never hyphenated. */
typedef enum {
  SPAN_LINK,
  SPAN_STRIKE,
  SPAN_CODE,
  SPAN_FNREF,
  SPAN_NOHYPH,
  SPAN_URLNOTE,
  SPAN_URL,
  SPAN_IMAGE, /* an inline image drawn: its U+FFFC (para.c inline_image) */
  SPAN_IMGALT /* an inline image that cannot be drawn: its alt text, framed */
} SpanKind;

/* A link's URL printed for paper (issue 6): a lettered note at the foot of
 * the page, or in a list at the chapter's end (--link-notes=end). */
typedef struct {
  char *id;    /* its destination */
  char *label; /* "a", "b", ... "aa", per chapter */
  char *uri;
} UrlNote;

typedef struct {
  size_t start, len;
  BookNode *node;
  size_t node_off;
} Src;

typedef struct {
  SpanKind kind;
  size_t a, b;
  BookNode *node;
  char *href;   /* LINK to an external URI (owned), or NULL */
  char *dest;   /* LINK internal, FNREF: the note's destination (owned) */
  char *self;   /* FNREF: the reference's own destination (owned) */
  gpointer key; /* FNREF: the BookFootnote; URLNOTE: the UrlNote */
} Span;

typedef struct {
  GString *text;
  PangoAttrList *attrs;
  GArray *srcs;   /* Src */
  GArray *spans;  /* Span */
  Shaped *shaped; /* text and attrs shaped already (table.c measured them, or ahead.c's
                   * thread), taken by set_para; or NULL (owned) */
  bool ahead;     /* shaped is ahead.c's: set_para gives it back (ahead_done) */
} Para;

/* Per-byte flags of the spans that change how text breaks (span_flags):
 * F_MARK is a note mark (a footnote number, a URL note's letter), set
 * against its word and never part of it for hyphenation; F_LETTER_MARK a
 * URL note's letter, whose extracted text starts with a zero-width space
 * (lines.c) so that it is not read as the end of its word ("sitea");
 * F_IMAGE the U+FFFC standing for an inline image. */
enum { F_CODE = 1, F_NOHYPH = 2, F_URL = 4, F_MARK = 8, F_LETTER_MARK = 16, F_IMAGE = 32 };

double left_of(const Build *c);
ParaStyle para_style(Build *c, const PangoFontDescription *d, double leading);
void url_note_free(gpointer p);
void para_init(Para *p);
void para_clear(Para *p);
void para_text(Para *p, BookNode *node, const char *t, size_t node_off);
void span_add(Para *p, SpanKind kind, size_t a, size_t b, BookNode *node);
void para_inlines(Build *c, Para *p, BookNode *parent);
/* The text and attributes of first and the inline siblings after it, up to
 * the next block or the end (inline nodes a container of blocks holds
 * directly, as raw HTML whose tags were dropped leaves them); returns the
 * run's last node. */
BookNode *para_inline_run(Build *c, Para *p, BookNode *first);
void para_mark(const Para *p, size_t at, BookNode **node, size_t *off);
/* p's span flags, one per byte and one past the end, into out (its bytes
 * replaced); returns out's data. */
guint8 *span_flags(const Para *p, GByteArray *out);
gint cmp_span(gconstpointer a, gconstpointer b);

/* ------------------------------------------------------------------------ */
/* Break items (items.c)                                                    */

typedef enum { M_BOX, M_GLUE, M_PEN } MetaKind;

/* What a line broken at a penalty draws at its end. */
typedef enum { MK_NONE, MK_HYPHEN, MK_CONT } MarkKind;

#define CONT_MARK "\xE2\x86\xAA" /* ↪, as code blocks' continuation lines */

/* The stretch of the glue between two characters of CJK text, in ems
 * (items.c): a line of 30 characters stretches an em at ratio 0.23. */
#define CJK_STRETCH_EM 0.15
/* The widest space between two CJK characters of a justified line, in ems:
 * a line that needs more is set ragged (lines.c) */
#define CJK_MAX_GAP_EM 0.3

/* What an item of the line breaker stands for. */
typedef struct {
  size_t a, b; /* bytes */
  MetaKind kind;
  guint8 mark; /* PEN: MarkKind drawn when broken here */
} Meta;

/* An inline image of the paragraph: its U+FFFC at byte `at`, the size it
 * is drawn at. */
typedef struct {
  size_t at;
  double w, h;
  const BookNode *node;
} ImgBox;

/* The span flags (span_flags) of byte at; 0 past the end. */
static inline guint8 flag_at(const guint8 *flags, size_t flen, size_t at)
{
  return at < flen ? flags[at] : 0;
}

/* The image of imgs (ImgBox, by byte) whose U+FFFC is at byte `at`, or NULL. */
const ImgBox *image_at(const GArray *imgs, size_t at);
/* The boxes, glue and penalties of p shaped as sh (flags: span_flags(p);
 * imgs: its inline images) into items (LbItem) and meta (Meta, one each),
 * ending as TeX does. *points: an array build_items keeps its break
 * points in (made on the first call, reused after; the caller frees). */
void build_items(Build *c, const Para *p, const Shaped *sh, const ParaStyle *ps, bool ragged,
                 const guint8 *flags, const GArray *imgs, GArray *items, GArray *meta,
                 GArray **points);
/* set_para's arrays kept by shp (shp->bufs), freed (shaper_clear). */
void para_bufs_free(GPtrArray *bufs);

/* ------------------------------------------------------------------------ */
/* Setting lines (lines.c)                                                  */

typedef struct {
  int nlines;
  double last_w; /* width of the last line */
  double max_w;  /* widest line */
} SetInfo;

SetInfo set_para(Build *c, Para *p, const ParaStyle *ps, bool ragged, const char *tag,
                 BookNode *block, GPtrArray *out);

/* ------------------------------------------------------------------------ */
/* Blocks (blocks.c, table.c)                                               */

void set_heading(Build *c, Para *p, int level, const char *id, BookNode *block, bool chapter_title);
void do_heading(Build *c, BookNode *n, bool chapter_title);
void do_paragraph(Build *c, BookNode *n, const char *tag);
void do_table(Build *c, BookNode *n);
/* The size in points an inline image is drawn at in text of size_pt on a
 * line of `measure` points: the size the source asks for (as a figure:
 * width, at most max-width, else height), else its own (96 px to the
 * inch) but no taller than the type (icons and badges); keeping its
 * aspect ratio (a square of the type's size when the file gives none), at
 * most the measure wide and max_h high. */
void inline_image_size(const Build *c, const BookNode *img, double size_pt, double measure,
                       double max_h, double *w, double *h);
void walk_blocks(Build *c, BookNode *root, BookNode *skip_heading);
/* walk_blocks a part at a time (the handout's list, built as it is
 * paginated): the walker's state between the parts. */
typedef struct {
  GArray *lists;     /* blocks.c's ListCtx: the open lists */
  GArray *item_task; /* double: left shift of each open item (task items: their box) */
  GArray *dirs;      /* blocks.c's DirCtx: open blocks with a dir attribute */
  BookIter it;
  BookNode *skip; /* the chapter's heading, set already */
  int dir;        /* c->dir before the walk */
} Walk;
void walk_begin(Walk *w, Build *c, BookNode *root, BookNode *skip_heading);
/* Walk on until c's list holds `until` items or more (true), or to the
 * end (false: then walk_end). */
bool walk_step(Walk *w, Build *c, guint until);
void walk_end(Walk *w, Build *c);

/* ------------------------------------------------------------------------ */
/* Notes (notes.c)                                                          */

void layout_notes(const LayEnv *env, LayShaper *shp, LayStore *store);
/* The URL notes from the from-th on (the chapter's: url_first), each laid
 * out as a footnote. */
void url_notes_foot(const LayEnv *env, LayShaper *shp, LayStore *store, guint from);
void url_notes_end(Build *c);
double notes_height(LayStore *store, GPtrArray *notes);
double add_notes(LayStore *store, GPtrArray *page_notes, const VItem *v, bool commit);

/* ------------------------------------------------------------------------ */
/* Pages (paginate.c)                                                       */

typedef struct {
  LayPage *page;
  double x, y, w, h; /* the frame (a column of the text block) */
  /* (a page's first frame) the chapter its recto's head names */
  BookChapter *chapter;
  bool opening; /* a chapter starts on this page */
  bool mark_set;
} Frame;

typedef struct {
  GPtrArray *pages; /* LayPage * */
  GArray *frames;   /* Frame, one per column of each page */
  GArray *marks;    /* PageMark per page: where its first line with a source starts */
  const LaySink *sink; /* its placed() told each new page (progress), or NULL */
} Body;

typedef struct {
  BookNode *node; /* NULL: none yet */
  size_t off;
} PageMark;

LayPage *page_new(void);
void page_free(LayPage *p);
void body_init(Body *b);
void body_clear(Body *b);
double block_x(const Style *st, bool rtl, int folio);
void place_notes(LayStore *store, Frame *f, GPtrArray *notes);
void paginate(const LayEnv *env, LayStore *store, const Columns *cols, Body *b, GArray *vl,
              BookChapter *ch, guint span_end);

/* Pagination of a vertical list that grows as it is built (the handout,
 * a chapter and those that run on after it: layout.c's flow_chapters): what paginate does, each page placed as soon as
 * no item still to come can change it. */
typedef struct {
  const LayEnv *env;
  LayStore *store;
  const Columns *cols;
  Body *b;
  BookChapter *ch;        /* the chapter current at the end of what is placed (the last begun) */
  int head_folio;         /* the last page whose head a chapter begun on it names */
  guint span_end;         /* the items across the columns at the top of the first page */
  double span_h, first_h; /* their height; the first page's frames below them */
  bool started;           /* the span is known (span_of) */
  GArray *ranges;         /* the frames broken and not placed (paginate.c's Range) */
  guint next;             /* where the next frame is looked for (an index into the list) */
  guint placed;           /* frames placed so far */
  GPtrArray *pnotes;      /* scratch: the notes of a frame */
  /* called as each page is placed (its frames all filled): the pages
   * from `from` on, their first frame `frame`; NULL: none */
  void (*placed_page)(void *ud, guint from, guint frame);
  void *ud;
} PageFeed;

void feed_init(PageFeed *f, const LayEnv *env, LayStore *store, const Columns *cols, Body *b,
               BookChapter *ch, guint span_end);
/* Break the lines vl holds so far into frames and place the pages no
 * later item can change into f->b (done: vl is complete; every page is
 * placed, the last balanced). Returns how many pages were added. */
guint feed_pages(PageFeed *f, GArray *vl, bool done);
/* Free the items at the head of vl that no frame to come reads (indices
 * into vl shift down). Only between feed_pages calls. */
void feed_trim(PageFeed *f, GArray *vl);
void feed_clear(PageFeed *f);

/* ------------------------------------------------------------------------ */
/* Front matter and running heads (front.c)                                 */

/* An entry of the printed contents (strings borrowed from the outline). */
typedef struct {
  int depth; /* the outline's depth, 1.. */
  const char *title;
  const char *dest;
  const GArray *code; /* OutlineSpan: the code spans of title */
} TocEntry;

const char *chapter_title(const BookChapter *ch, const char *book_title);
char *roman(int n);
void title_page(const LayEnv *env, LayShaper *shp, LayStore *store, Layout *lay, const char *title);
void contents(const LayEnv *env, LayShaper *shp, LayStore *store, Layout *lay, GArray *entries,
              GHashTable *dest_folio);
/* The handout's title block (title, subtitle, byline and date, source, a
 * rule) into c's vertical list, to c's measure. */
void title_block(Build *c);
/* A contents block (a heading, then the entries) into c's vertical list;
 * dest_folio NULL: page numbers not known yet. */
void contents_block(Build *c, GArray *entries, GHashTable *dest_folio);
/* The monospace face (at the size code has in text) over the code spans
 * of a title, from byte `from` (spans shifted by -from); a new list. */
PangoAttrList *code_attrs(const Style *st, const GArray *code, gsize from);
/* The running heads and folios of b's pages from frame `from` on (a
 * page's first frame). total: the handout's page count, which its heads
 * print ("page 3 of 12"); 0: b's pages. */
void running_heads(const LayEnv *env, LayShaper *shp, Body *b, guint from, const Outline *outline,
                   const char *book_title, int total);

/* ------------------------------------------------------------------------ */
/* Paragraphs shaped ahead (ahead.c)                                        */

/* Start shaping the footnotes' and chapters' paragraphs on a thread of its own, ahead of
 * the layout: NULL when the plan gives the pass no helper thread
 * (LayDrive's helpers), or nothing to gain. */
Ahead *ahead_start(const LayEnv *env, const Fonts *fonts, const char *lang, int helpers);
/* The shaping of paragraph `node`, when the thread made it from the same
 * text and attributes as p and font d (the caller owns it); else NULL, and
 * the caller shapes. Claims node: the thread leaves it alone after. */
Shaped *ahead_take(Ahead *a, const BookNode *node, const Para *p, const PangoFontDescription *d);
/* The layout is done with a shaping ahead_take gave: freed on the thread
 * that made it (glibc's malloc frees best on the thread that allocated). */
void ahead_done(Ahead *a, Shaped *sh);
/* Stop the thread and free a (NULL: nothing). */
void ahead_stop(Ahead *a);

/* ------------------------------------------------------------------------ */
/* Chapters set on threads (pool.c)                                         */

typedef struct Pool Pool;
typedef struct Run Run;
/* Start setting r's chapters (chapter_vlist) on `workers` threads besides
 * the layout's, ahead of it: NULL when there are none, or one chapter. */
Pool *pool_start(Run *r, const Fonts *fonts, int workers);
/* Chapter ci's vertical list, its URL notes and destinations in r's store
 * as chapter_vlist leaves them there: the chapters taken in order. */
GArray *pool_take(Pool *p, guint ci, guint *span_end);
/* Stop the threads and free p (NULL: nothing). */
void pool_stop(Pool *p);

/* ------------------------------------------------------------------------ */
/* The driver (layout.c) and the handout (handout.c)                        */

/* Everything one layout call owns until it returns. */
struct Run {
  LayEnv env;
  LayShaper shp;
  LayStore store;
  Body body;              /* the body's pages, frames and page marks */
  Outline *outline;       /* the book's sections (outline.h): contents, bookmarks, heads */
  GHashTable *dest_folio; /* destination name -> int *: the folio of the body page it is on */
  Pool *pool;             /* the chapters set on other threads, or NULL */
  struct Hyphenator *own_hyph; /* the pass's own dictionaries when the drive gave none */
};

/* One pass over the book (counted: runplan_count_pass) as d says: a
 * counting pass (`counting`: lines without glyphs, as the page list's) or
 * the drawn or kept one; the threads it may use beside its own (d's
 * count_helpers or helpers): a book's chapters are set on them (pool.c),
 * or else the paragraphs shaped on one (ahead.c); d's Hyphenator (or one
 * of its own). sink (NULL: none): its placed() is told each body page as
 * it is placed. */
void run_init(Run *r, const Book *book, const OctavoOptions *opts, const Style *st,
              const Fonts *fonts, const Colophon *colophon, const LayDrive *d, bool counting,
              const LaySink *sink);
/* Chapter ci's vertical list (layout.c), set with shp; its URL notes and
 * the destinations it emits go to store. *span_end: the items of its
 * opening, which span the columns. */
GArray *chapter_vlist(const LayEnv *env, LayShaper *shp, LayStore *store, guint ci,
                      guint *span_end);
/* Does chapter ci run on after the one before it rather than start a new
 * page: every chapter of an article (book.h's article: the report's
 * sections), a chapter with no heading (a file that opens with none), one
 * below the chapter level, or a book project's nested chapter (book.h's
 * nest > 0: SUMMARY.md's sub-chapters)? Never the first. */
bool lay_runs_on(const LayEnv *env, guint ci);
void run_clear(Run *r);
/* An empty layout of the style's paper, with the book's title as printed. */
Layout *layout_new(const Book *book, const Style *st, const Fonts *fonts);
/* Where every destination on body pages from `from` on landed (r->dest_folio). */
void note_dest_folios(Run *r, guint from);
/* The body pages after lay's, labelled by folio, with their page marks. */
void add_body(Run *r, Layout *lay);
/* Body page i after lay's, labelled by its folio, with its page mark: what
 * add_body does for each page, and each stream as its pages are final. */
void add_body_page(Run *r, Layout *lay, guint i);
/* The page mark of body page i (at lay->front_pages + i), if a line from
 * the source starts it. */
void add_page_mark(Run *r, Layout *lay, guint i);
/* lay's bookmarks: the outline's entries that landed (r->dest_folio). */
void build_outline(Run *r, Layout *lay);
/* Links to destinations never placed in lay are dropped. */
void drop_dead_links(Layout *lay);
/* The contents' entries (TocEntry): the outline's to --toc-depth, those
 * in `landed` when not NULL. */
GArray *toc_shown(const Run *r, GHashTable *landed);
/* What a drawn page keeps for the archive pass: its Figure and Note tags
 * and images (shallow copies). */
GArray *figure_items(const GArray *items);
/* lay_drive for the handout (handout.c): the style's chapter_new_page is
 * false. */
Layout *handout_drive(const LayDrive *d, const Book *book, const OctavoOptions *opts,
                      const Style *st, const Fonts *fonts, const Colophon *col,
                      const LaySink *sink);

/* ------------------------------------------------------------------------ */
/* The colophon (back.c)                                                    */

/* The book's last page: env->colophon set small at the foot of the text
 * block, a page after lay's last (no running head nor folio; its page
 * label is the word "Colophon" in the book's language). */
void colophon_page(const LayEnv *env, LayShaper *shp, LayStore *store, Layout *lay);
/* The handout's end: a short rule, then c->env->colophon kept together,
 * into c's vertical list to c's measure. */
void colophon_block(Build *c);

#endif
