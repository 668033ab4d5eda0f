/* options.h: the settings main.c gathers from the command line and hands to
 * every stage. Plain data; each stage reads the fields it needs.
 *
 * The one place for defaults is octavo_options_init(); the one table of the
 * names of the enumerated options is in options.c (octavo_enum_parse and
 * octavo_enum_name, for the command line, the style file and messages). */
#ifndef OCTAVO_OPTIONS_H
#define OCTAVO_OPTIONS_H

#include <glib.h>
#include <stdbool.h>

/* Paper sizes. OCTAVO_PAPER_STYLE: none chosen on the command line, so the
 * style file's [page] paper decides, else OCTAVO_PAPER_DEFAULT. */
typedef enum {
  OCTAVO_PAPER_STYLE = -1,
  OCTAVO_PAPER_A4,
  OCTAVO_PAPER_LETTER,
  OCTAVO_PAPER_A5
} OctavoPaper;
#define OCTAVO_PAPER_DEFAULT OCTAVO_PAPER_A4

/* PDF line breaking: Knuth-Plass over the paragraph, or first fit. */
typedef enum { OCTAVO_BREAK_OPTIMAL, OCTAVO_BREAK_GREEDY } OctavoLinebreak;

/* Where the PDF prints the URLs of links: as footnotes, or at the chapter's end. */
typedef enum { OCTAVO_NOTES_FOOT, OCTAVO_NOTES_END } OctavoLinkNotes;

/* The print layout: a book (title page, contents, chapters on new pages)
 * or a handout (a title block on page 1, sections running on); the style
 * file's [layout.NAME] groups say what each means. */
typedef enum { OCTAVO_LAYOUT_BOOK, OCTAVO_LAYOUT_HANDOUT } OctavoLayout;

/* Markdown syntax beyond CommonMark and GFM that octavo reads (pandoc's;
 * --syntax, octavo_syntax_parse): bits of OctavoOptions.syntax. */
enum {
  OCTAVO_SYNTAX_ATTRS = 1u << 0,       /* heading-attributes: ## Text {#id .class} */
  OCTAVO_SYNTAX_DEFLISTS = 1u << 1,    /* definition-lists: Term / : Definition */
  OCTAVO_SYNTAX_DIVS = 1u << 2,        /* fenced-divs: ::: {#id .class} ... ::: */
  OCTAVO_SYNTAX_TITLE_BLOCK = 1u << 3, /* title-block: % Title / % Authors / % Date */
  OCTAVO_SYNTAX_ALL = (1u << 4) - 1
};
/* The enumerated options, for the one table of names. */
typedef enum {
  OCTAVO_ENUM_PAPER,
  OCTAVO_ENUM_LINEBREAK,
  OCTAVO_ENUM_LINK_NOTES,
  OCTAVO_ENUM_LAYOUT
} OctavoEnum;

typedef struct {
  /* parsing */
  int split_level;           /* headings at or above it start a chapter: 1..6, or 0 (the default)
                              * for auto, decided from the book (book->chapter_level) */
  const char *lang;          /* --lang, or NULL */
  GPtrArray *metadata;       /* "KEY=VALUE" from -M, applied last; may be NULL */
  const char *resource_path; /* another directory resources may come from, or NULL */
  bool smart;                /* typographic punctuation: "" '' -- --- ... (false, as GFM) */
  gint64 text_max;           /* the book's Markdown, includes expanded, in bytes (sandbox.h) */
  unsigned syntax;           /* OCTAVO_SYNTAX_* read (all) */
  /* output */
  int toc_depth;              /* entries in the contents, in outline depths (2): outline.h */
  bool number_sections;       /* number chapters and sections (false): book_number_headings */
  bool embed_fonts;           /* EPUB: embed subset fonts (true) */
  bool page_list;             /* EPUB: print page numbers from the layout (true) */
  bool highlight;             /* code's tokens from its language (true): highlight.h */
  OctavoPaper paper;          /* OCTAVO_PAPER_STYLE: the style file's, else a4 */
  int columns;                /* 1 or 2 */
  OctavoLinebreak linebreak;  /* optimal */
  OctavoLinkNotes link_notes; /* foot */
  OctavoLayout layout;        /* book */
  bool toc;            /* --toc: printed contents where the layout has them only on request */
  const char *datadir; /* holds fonts/ and styles/ */
  const char *style;   /* print style file, or NULL for datadir/styles/print.ini */
  const char *css;     /* e-book stylesheet, or NULL for datadir/styles/book.css */
  bool verbose, quiet;
  int threads; /* threads a writer may use (1): 2 and more draw a streamed PDF's
                * pages on a thread of their own (pagepipe.c) */
  struct RunPlan *plan; /* the run's plan (runplan.h), which starts every thread; NULL
                         * (the default): nothing is started, whatever threads says */
  /* archival PDF (archive.c) */
  const char *pdf_standard; /* "a-3u,ua-1" (default), a part of it, or "none" */
  bool attach_source;       /* PDF: attach the Markdown sources (true) */
  int image_dpi;            /* PDF: raster images at most this many pixels per inch of their
                             * printed size (300; 0: every pixel): paint_set_image_dpi */
} OctavoOptions;

/* Apply --syntax LIST to *syntax: comma-separated names
 * (heading-attributes, definition-lists, fenced-divs, title-block), each
 * turned on, or off with a leading '-' or "no-"; "all" and "none" (or
 * "commonmark") set every one.  False on an unknown name, *bad (static)
 * then naming the choices. */
bool octavo_syntax_parse(const char *list, unsigned *syntax, const char **bad);
/* Fill opts with the defaults above (datadir left NULL). */
void octavo_options_init(OctavoOptions *opts);

/* The value named `name` (ASCII case ignored) of option `which` in *value;
 * false when there is none. */
bool octavo_enum_parse(OctavoEnum which, const char *name, int *value);
/* The name of `value` of option `which` ("a4", "greedy", "end"), or NULL. */
const char *octavo_enum_name(OctavoEnum which, int value);
/* The names of option `which` for a message: "a4, letter, a5". Static. */
const char *octavo_enum_choices(OctavoEnum which);

/* The print style file (opts->style, else DATADIR/styles/print.ini) and
 * the e-book stylesheet (opts->css, else DATADIR/styles/book.css), DATADIR
 * being opts->datadir or ".". Caller frees. */
char *octavo_style_path(const OctavoOptions *opts);
char *octavo_css_path(const OctavoOptions *opts);

#endif
