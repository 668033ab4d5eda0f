/* book.h: the document model shared by every stage of octavo.
 *
 * A Book owns everything reachable from it: metadata, chapters, their node
 * trees, footnotes, resources, diagnostics and the print page marks.  The
 * model depends on GLib only; no parser or writer types appear here, so any
 * front end can fill it and any writer can read it.
 *
 * Trees are intrusive (parent, first_child, last_child, prev, next) with a
 * per-type union, as in cmark.  Walk them with BookIter, which does not
 * recurse, so arbitrarily deep input cannot exhaust the stack.
 */
#ifndef OCTAVO_BOOK_H
#define OCTAVO_BOOK_H

#include <glib.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sandbox.h"

typedef enum {
  /* blocks */
  BOOK_ROOT,    /* the root of one chapter's tree */
  BOOK_HEADING, /* as.heading */
  BOOK_PARAGRAPH,
  BOOK_LIST, /* as.list */
  BOOK_ITEM, /* as.item */
  BOOK_BLOCKQUOTE,
  BOOK_CODE_BLOCK, /* text = the literal code, as.code.info */
  BOOK_THEMATIC_BREAK,
  BOOK_TABLE,        /* as.table; children are BOOK_TABLE_ROW */
  BOOK_TABLE_ROW,    /* as.row; children are BOOK_TABLE_CELL */
  BOOK_TABLE_CELL,   /* inline children */
  BOOK_FOOTNOTE_DEF, /* block children; owned by a BookFootnote */
  BOOK_FIGURE,       /* as.figure; content, then an optional BOOK_FIGCAPTION (see below) */
  BOOK_FIGCAPTION,   /* a figure's caption: inline children; only as a figure's last child */
  BOOK_HTML_BLOCK,   /* a cleaned, allow-listed element: as.html; any children */
  /* A definition list (pandoc's, PHP Markdown Extra's): children are groups
   * of one or more BOOK_DEFTERM followed by one or more BOOK_DEFDESC, and
   * nothing else; the first child is a term.  Writers: <dl><dt><dd> in the
   * EPUB; in print each term bold on a line of its own, its definitions
   * indented beneath it. */
  BOOK_DEFLIST,
  BOOK_DEFTERM, /* a term: inline children; only in a BOOK_DEFLIST */
  BOOK_DEFDESC, /* a definition: block children; only in a BOOK_DEFLIST, after a term */
  /* inlines */
  BOOK_TEXT, /* text */
  BOOK_EMPH,
  BOOK_STRONG,
  BOOK_STRIKE,
  BOOK_CODE,         /* text */
  BOOK_LINK,         /* as.link; inline children are the link text */
  BOOK_IMAGE,        /* as.image; inline children are the alt text */
  BOOK_FOOTNOTE_REF, /* as.fnref */
  BOOK_SOFTBREAK,
  BOOK_LINEBREAK,
  BOOK_HTML_INLINE, /* a cleaned, allow-listed element: as.html; inline children */
  BOOK_NODE_TYPE_COUNT
} BookNodeType;

typedef enum { BOOK_ALIGN_NONE, BOOK_ALIGN_LEFT, BOOK_ALIGN_CENTER, BOOK_ALIGN_RIGHT } BookAlign;

typedef enum { BOOK_TASK_NONE, BOOK_TASK_OPEN, BOOK_TASK_DONE } BookTask;

/* How deep a tree may nest: no node of a chapter's tree or of a footnote's
 * definition is more than BOOK_MAX_DEPTH levels below its root (the root's
 * children are at level 1).  libxml2, and every reading system built on it,
 * refuses documents nested deeper than 256 elements; a model node makes at
 * most two XHTML elements, so a writer that follows the model stays well
 * under that and needs no limit of its own.  The front end enforces it at
 * parse time (markdown.c, sanitize.c): block containers (quotes, lists and
 * items, raw-HTML containers) open no deeper than BOOK_MAX_DEPTH - 16, which
 * leaves room for the leaf blocks, tables and inline nesting inside them;
 * deeper levels are flattened into the last allowed one, their text kept,
 * with one warning at the first flattened position. */
#define BOOK_MAX_DEPTH 64
#define BOOK_MAX_BLOCK_DEPTH (BOOK_MAX_DEPTH - 16)

/* A length from raw HTML's width/height attributes or style (sanitize_elements.c).
 * value > 0 and finite when unit is not NONE; px are CSS px (96 to the
 * inch), em the font size of the text around, percent of the measure (the
 * containing block's width, for heights too: writers may ignore a percent
 * height). */
typedef enum { BOOK_LEN_NONE, BOOK_LEN_PX, BOOK_LEN_EM, BOOK_LEN_PERCENT } BookLenUnit;
typedef struct {
  double value;
  BookLenUnit unit;
} BookLength;

/* A source position.  file points into the book's interned file names. */
typedef struct {
  const char *file;
  int line; /* 1-based; 0 when unknown */
  int col;  /* 1-based; 0 when unknown */
} BookPos;

/* The classes of a code block's tokens (src/highlight.c makes them): the
 * EPUB's <span class="tok-NAME"> (styles/book.css), the PDF's [code.NAME]
 * (styles/print.ini). BOOK_TOK_PLAIN is never stored: bytes no token
 * covers are plain. */
typedef enum {
  BOOK_TOK_PLAIN,
  BOOK_TOK_KEYWORD,
  BOOK_TOK_TYPE,
  BOOK_TOK_FUNCTION,
  BOOK_TOK_MACRO,
  BOOK_TOK_STRING,
  BOOK_TOK_ESCAPE,
  BOOK_TOK_NUMBER,
  BOOK_TOK_CONSTANT,
  BOOK_TOK_COMMENT,
  BOOK_TOK_OPERATOR,
  BOOK_TOK_PUNCTUATION,
  BOOK_TOK_ATTRIBUTE,
  BOOK_TOK_PROPERTY,
  BOOK_TOK_TAG,
  BOOK_TOK_HEADING,  /* Markdown */
  BOOK_TOK_EMPHASIS, /* Markdown */
  BOOK_TOK_STRONG,   /* Markdown */
  BOOK_TOK_LINK,     /* Markdown */
  BOOK_TOK_PROMPT,   /* console: "$ ", "# ", "> " */
  BOOK_TOK_OUTPUT,   /* console: what a command printed */
  BOOK_TOK_INSERTED, /* diff: + lines */
  BOOK_TOK_DELETED,  /* diff: - lines */
  BOOK_TOK_META,     /* diff: file and hunk headers */
  BOOK_TOK_COUNT
} BookTokClass;

/* Whether a code block's lines are numbered (as.code.linenos). */
typedef enum { BOOK_LINENOS_DEFAULT, BOOK_LINENOS_ON, BOOK_LINENOS_OFF } BookLineNos;

/* One token of a code block: bytes [start, start + len) of its text, at
 * character boundaries. */
typedef struct {
  guint32 start, len;
  guint8 cls; /* BookTokClass, never PLAIN */
} BookToken;

typedef struct BookNode BookNode;
typedef struct BookChapter BookChapter;
typedef struct BookFootnote BookFootnote;
typedef struct BookResource BookResource;

struct BookNode {
  BookNodeType type;
  BookNode *parent, *first_child, *last_child, *prev, *next;
  BookPos pos;
  guint serial; /* unique in the book, in document order of creation */
  char *text;   /* TEXT, CODE, CODE_BLOCK: UTF-8, owned */
  union {
    struct {
      int level; /* 1..6 */
      /* unique in the book, stable: the id the source gives ({#id}, see
       * explicit_id), else a slug of the text */
      char *id;
      /* From the source's attribute block (`## Text {#id .class key=value}`,
       * pandoc's header_attributes; markdown.c), all unset without one:
       * attrs: NULL-terminated name, value pairs for the EPUB's element:
       * "class" (the classes, space-separated) and "data-KEY" (pandoc's
       * key=value, KEY lower case), or NULL; owned.  unnumbered: {-} or
       * .unnumbered, left out of --number-sections' numbering; unlisted:
       * .unlisted, left out of the contents (nav, NCX, printed contents,
       * bookmarks) but still a link target. explicit_id: the id came from
       * {#id} (a slug did not make it). */
      char **attrs;
      bool unnumbered, unlisted, explicit_id;
    } heading;
    struct {
      bool ordered;
      int start; /* first number of an ordered list */
      bool tight;
      char delim; /* '.' or ')' for ordered lists */
    } list;
    struct {
      BookTask task;
    } item;
    struct {
      char *info; /* the info string's first word (language), or NULL */
      /* Set by hl_book (highlight.c) after parsing: the language info
       * names, canonical ("rust", "console"), or NULL (none, or one no
       * grammar knows: the code is plain); its tokens, sorted, not
       * overlapping, owned (NULL when ntokens is 0). */
      char *lang;
      BookToken *tokens;
      guint ntokens;
      /* From the info string's attributes (markdown.c's code_options;
       * which forms, README.md's "Code listings"): line numbers asked for
       * (BOOK_LINENOS_ON), refused (OFF) or left to the style (DEFAULT,
       * print.ini's [code] line-numbers, book.css's pre.numbered);
       * line_offset: the first line's number minus 1 (pandoc's startFrom);
       * marked: the lines to emphasise (hl_lines), as nmarked sorted,
       * disjoint, non-adjacent ranges of 1-based lines of the text,
       * marked[2k] to marked[2k + 1] inclusive; owned, NULL when nmarked
       * is 0 (book_code_marked reads them). */
      guint8 linenos; /* BookLineNos */
      int line_offset;
      guint *marked;
      guint nmarked;
    } code;
    struct {
      int ncols;
      BookAlign *align; /* ncols entries, owned */
    } table;
    struct {
      bool header;
    } row;
    struct {
      char *href;           /* as written (internal links: as resolved below) */
      char *title;          /* or NULL */
      BookChapter *chapter; /* internal link target chapter, or NULL (external/unresolved) */
      char *fragment;       /* internal target id within chapter, or NULL for the chapter start */
      bool internal;
    } link;
    struct {
      char *src;         /* as written */
      char *title;       /* or NULL */
      BookResource *res; /* the local file, or NULL (missing, remote, refused) */
      /* The size the source asks for (raw HTML only; Markdown images have
       * none): the width/height attributes (a number is px, "N%" percent)
       * and width, max-width, height in style (px, em, %), style winning.
       * Unit NONE when not given.  Sanitised: px in (0, 10000], em in
       * (0, 500], percent in (0, 100]; anything else is dropped (warned).
       * Writers scale the image to width (at most max-width, and never past
       * the measure), keeping its aspect ratio: height counts only when no
       * width is given. */
      BookLength width, height, max_width;
    } image;
    struct {
      /* false: an image figure; its content is exactly one BOOK_IMAGE (a
       * Markdown paragraph, raw-HTML <p> or HTML block holding only an
       * image, or a raw-HTML <figure> with one image and an optional
       * <figcaption>).  true: a code listing (mdBook's <Listing>); its
       * content is one or more blocks, usually one BOOK_CODE_BLOCK, and its
       * caption, when there is one, reads "Listing N: CAPTION". */
      bool listing;
      char *file_name; /* listing: the file the code comes from (shown above the code), or NULL */
      /* Children: the content, then at most one BOOK_FIGCAPTION, always
       * last.  The caption shown is that BOOK_FIGCAPTION (captions.c
       * makes it from a <figcaption> or a "Figure N:" / <span
       * class="caption"> paragraph next to the object), else the image's
       * title (Markdown's ![alt](src "title")); never the alt text, which
       * is only the image's text alternative.  A listing may also hold a table (a captioned
       * table).  How writers show a figure: the image (sized as as.image
       * says, centred) or the listing's blocks, with the caption below an
       * image and above a listing (and its file name); the EPUB writes
       * <figure>IMG<figcaption>..</figcaption></figure> and
       * <figure class="listing"><figcaption>..</figcaption><p
       * class="file-name"><code>FILE</code></p><pre>..</pre></figure>; the
       * PDF a Figure tag whose alt text is the image's alt text.  An image
       * figure whose image has no resource is a placeholder of its alt
       * text (then the caption follows as a plain paragraph). */
    } figure;
    struct {
      BookFootnote *note;
      int ref_index; /* 1 for the first reference to this note, 2 for the second, ... */
    } fnref;
    struct {
      char *tag;    /* lower-case element name, allow-listed */
      char **attrs; /* NULL-terminated name, value, name, value, ...; allow-listed; owned */
    } html;
  } as;
};

struct BookChapter {
  int index;          /* 0-based position in the book */
  char *id;           /* "chapter-N" style stable id, also the file stem */
  char *title;        /* plain text of the heading, or NULL for an opening chapter */
  BookNode *heading;  /* the chapter's heading inside root, or NULL */
  BookNode *root;     /* BOOK_ROOT; owns the chapter's blocks */
  const char *source; /* the input file it came from (interned) */
  /* A book project's chapter (SUMMARY.md's entries); 0 and NULL for
   * chapters that headings make:
   * - nest: where it stands in the contents, in levels below (above, when
   *   negative) where its headings' levels put it: SUMMARY.md's list depth,
   *   so that a nested chapter, whose heading is a chapter heading
   *   (split_level) like any other's, nests under its parent chapter;
   *   -1 for a prefix or suffix chapter beside a book's parts.
   * - number: its own number ("1.", "2.3.", as mdBook numbers SUMMARY.md's
   *   numbered chapters), shown by book_number_headings.
   * - toc: its title in the contents (SUMMARY.md's link text): inline
   *   children of a BOOK_PARAGRAPH in no tree (owned); NULL: its heading's.
   * Such a chapter always has a heading, the first block of its root. */
  int nest;
  char *number;
  BookNode *toc;
};

struct BookFootnote {
  char *label;          /* as written in the source */
  int number;           /* 1-based in order of first reference */
  char *id;             /* "fn-N", unique */
  BookNode *def;        /* BOOK_FOOTNOTE_DEF, owned */
  BookChapter *chapter; /* chapter of the first reference */
  int nrefs;            /* references seen */
};

/* What an image file is, from its first bytes (image.c). */
typedef enum {
  BOOK_IMAGE_NONE, /* not an image octavo recognises */
  BOOK_IMAGE_PNG,
  BOOK_IMAGE_JPEG,
  BOOK_IMAGE_GIF,
  BOOK_IMAGE_SVG,
  BOOK_IMAGE_WEBP, /* recognised, but not (yet) accepted in a book: resolve.c refuses it */
} BookImageKind;

/* A local image of the book.  Invariant: resolved ONCE, at parse time
 * (resolve.c, through book_image_probe()): kind, media_type and the size are
 * final, and no later stage opens the file to learn what it is or how big it
 * is (the writers read path only to copy or draw the bytes).  kind is one of
 * PNG, JPEG, GIF, SVG (never NONE or WEBP); media_type is
 * book_image_media_type(kind).  width_px and height_px are the pixel size a
 * raster header gives (PNG IHDR, JPEG start of frame even after 64 KiB of
 * metadata, GIF screen), or an SVG's width/height in CSS px (96 to the inch;
 * completed from its viewBox); both 0 when the file does not say (then draw
 * a placeholder).  Images over 20000 px a side or 100 Mpx are refused. */
struct BookResource {
  char *src;               /* as written in the Markdown */
  char *path;              /* resolved file system path */
  char *media_type;        /* image/png, image/jpeg, image/gif, image/svg+xml */
  char *href;              /* path inside the EPUB, e.g. "images/img-1.png" */
  int width_px, height_px; /* 0 when unknown */
  double text_px;          /* an SVG's largest text at width_px, in CSS px
                            * (san_svg_text_px); 0: none, or a raster */
  BookImageKind kind;
};

/* The book's metadata. After a successful parse (md_parse_files,
 * md_parse_sources) title and lang are always set and not empty (the
 * parser falls back to the first input's name, with a warning, and to
 * "en"): writers use them as they are. */
typedef struct {
  char *title, *subtitle; /* title: never NULL after parsing */
  GPtrArray *authors;     /* char *, owned */
  char *date;             /* YYYY-MM-DD or as given */
  char *lang;             /* BCP 47; never NULL after parsing */
  char *identifier;
  char *publisher, *description;
  GPtrArray *subjects; /* char *, owned */
  char *rights, *source;
  char *cover; /* path of a cover image, or NULL */
  char *dir;   /* "ltr" or "rtl", never NULL after parsing: the book's direction */
  /* dir is "rtl": the book reads right to left (md_finish_meta decides it
   * once, from dir metadata, else from the language: labels_rtl). Every
   * writer reads this: the EPUB's dir and page-progression-direction, the
   * PDF's mirrored pages, front matter and furniture. */
  bool rtl;
} BookMeta;

typedef enum { BOOK_WARNING, BOOK_ERROR } BookDiagLevel;

typedef struct {
  BookDiagLevel level;
  BookPos pos;
  char *message;
} BookDiag;

/* Where a printed page starts in the source: page N begins at byte offset
 * `offset` of the text of `node` (a TEXT or CODE or CODE_BLOCK node), or at
 * the start of block `node` when offset is 0. Made by the print layout
 * (Layout.page_marks), read by the EPUB's page list. */
typedef struct {
  int page;    /* 1-based physical page number */
  char *label; /* the printed folio ("1", "iv") */
  BookNode *node;
  size_t offset;
} BookPageMark;

typedef struct {
  BookMeta meta;
  GPtrArray *chapters;  /* BookChapter *, owned, in reading order */
  GPtrArray *footnotes; /* BookFootnote *, owned, by number */
  GPtrArray *resources; /* BookResource *, owned */
  GArray *diags;        /* BookDiag */
  GHashTable *diag_sinks;     /* GThread * -> GArray *: book_diag_capture's, per thread */
  pthread_mutex_t diag_lock;  /* diags and diag_sinks: book_diag is called on any thread */
  GStringChunk *names;  /* interned file names */
  GHashTable *ids;      /* every id in use -> NULL (keys owned by the table) */
  GHashTable *id_next;  /* id stem -> next suffix to try (book_id_reserve) */
  guint next_serial;
  Sandbox *sandbox;    /* every file read for the book goes through it (owned) */
  int chapter_level;   /* headings at or above it start chapters (1..6; 2 until parsed) */
  char *shape_note;    /* why the front end chose that level and title (-v), or NULL */
  /* The book's cover, decided once at parse time (resolve.c's
   * md_resolve_cover; owned): the image meta.cover names, a PNG or JPEG
   * both books can use, or NULL: octavo's drawn cover (cover.c), for a book
   * that names none and, with one warning, for one whose cover is missing,
   * refused or no PNG or JPEG. Both writers read this, never meta.cover:
   * the EPUB's cover page and cover-image, the PDF book's first page (its
   * title page). The handout has no cover page: its title block opens it. */
  BookResource *cover;
  bool code_tokens;    /* some code block has tokens (hl_book): the e-book embeds the
                        * code face's bold and oblique too */
  /* an article's shape (md_decide_shape): a title heading taken as the book's title,
   * chapters from the level below; the EPUB splits there as ever, print runs them on
   * after the opening (as LaTeX's article class sets its sections), where a book
   * starts a page per chapter */
  bool article;
} Book;

/* Invariants of a parsed book, which every writer may rely on:
 * - meta.title and meta.lang are set (BookMeta);
 * - every chapter's headings at or above the chapter level (the options'
 *   split_level, always 1..6) start chapters, and every heading has an id;
 * - the book is read-only for the writers: the layout's page marks are
 *   the one exception (book->page_marks, filled by lay_book).
 * Books built by hand (tests) must keep them too. */

/* Create an empty book. Never returns NULL (allocation failure aborts). */
Book *book_new(void);
/* Free the book and everything it owns. Accepts NULL. */
void book_free(Book *book);
/* Free a resource and its strings. Accepts NULL. */
void book_resource_free(BookResource *r);

/* Intern a file name; the result lives as long as the book. */
const char *book_intern(Book *book, const char *name);

/* A new node of `type` at `pos` (pos may be NULL). The node is owned by the
 * caller until it is appended to a tree that the book owns. */
BookNode *book_node_new(Book *book, BookNodeType type, const BookPos *pos);
/* Append child to parent's children (child must be detached). */
void book_node_append(BookNode *parent, BookNode *child);
/* Insert node before sibling (node must be detached). */
void book_node_insert_before(BookNode *sibling, BookNode *node);
/* Detach node from its parent and siblings; it becomes the caller's. */
void book_node_unlink(BookNode *node);
/* Replace node by its children, in place, and free it (a dropped element
 * whose content stays). */
void book_node_unwrap(BookNode *node);
/* Free a detached node and all its descendants (iteratively). Accepts NULL. */
void book_node_free(BookNode *node);
/* The number of levels between n and the root of its tree (0 for a root). */
int book_node_depth(const BookNode *n);
/* True for inline node types. */
bool book_node_is_inline(BookNodeType type);
/* White space between inline elements: a soft break, or text of ASCII
 * white space only (tidy.c and captions.c skip it around what they match). */
bool book_inline_blank(const BookNode *n);
/* A stable lower-case name for the node type ("paragraph", "text", ...). */
const char *book_node_type_name(BookNodeType type);
/* Whether line `line` (1-based, of its text) of code block n is marked
 * (as.code.marked). *at is a cursor into the ranges, 0 before the first
 * call: lines asked in increasing order cost O(1) each. */
bool book_code_marked(const BookNode *n, guint line, guint *at);
/* Whether code block n's lines are numbered, the style's default being
 * `dflt` (print.ini's [code] line-numbers, or the EPUB's: see xhtml.c). */
bool book_code_numbered(const BookNode *n, bool dflt);

/* The name of a token class ("keyword"; "plain" for BOOK_TOK_PLAIN): the
 * EPUB's class tok-NAME, the print style's group [code.NAME]. */
const char *book_tok_name(BookTokClass c);
/* The plain text of node and its descendants (text, code, alt text; breaks as
 * spaces), appended to out. */
void book_node_text(const BookNode *node, GString *out);
/* The direction of text s[0, len) by its first strong character, as HTML's
 * dir="auto" and pango decide a paragraph's: 1 right to left (a letter of
 * Hebrew, Arabic, Syriac, Thaana, N'Ko and the other right-to-left
 * scripts), -1 left to right (any other letter), 0 none (digits and
 * punctuation only). */
int book_text_dir(const char *s, size_t len);
/* book_text_dir of book_node_text(node), read without copying the text
 * and only as far as its first strong character. */
int book_node_dir(const BookNode *node);

/* A new chapter appended to the book, with an empty root. */
BookChapter *book_chapter_add(Book *book, const char *source);

/* Make an id unique in the book: returns base, or base-2, base-3, ...; the
 * result is owned by the caller (g_free) and reserved in the book. */
char *book_id_reserve(Book *book, const char *base);
/* The print edition's name for footnote fn's k-th reference (1..): where
 * the note's number links back to (the layout places it, the archive pass
 * names it); "fn-1 ref 1", a name no id of the book can take. Caller
 * frees. */
char *book_fnref_dest(const BookFootnote *fn, int k);
/* A slug of text as GitHub writes it: lower case, punctuation dropped, spaces
 * to '-'. Empty results become "section". Caller frees. */
char *book_slug(const char *text);

/* Unicode's noncharacters (U+FDD0..U+FDEF, and U+nFFFE and U+nFFFF of
 * every plane) are valid UTF-8 but no text: XML 1.0 forbids U+FFFE and
 * U+FFFF, and cairo refuses all of them in a PDF's strings. Text enters
 * the model without them (book_utf8_fix_nonchars), as U+FFFD, with a
 * warning. */
/* The first noncharacter in the valid UTF-8 [p, end), or NULL; *len its
 * length in bytes (3 or 4) and *c the character. */
const char *book_utf8_find_nonchar(const char *p, const char *end, gsize *len, gunichar *c);
/* Replace every noncharacter of the valid UTF-8 string s (len bytes, or -1
 * for NUL-terminated) with U+FFFD, in place (never longer). Returns how
 * many; *new_len (may be NULL) gets the new length, *first (may be NULL)
 * the first one replaced. */
int book_utf8_fix_nonchars(char *s, gssize len, gsize *new_len, gunichar *first);

/* Record a diagnostic (printf-style message). pos may be NULL. */
void book_diag(Book *book, BookDiagLevel level, const BookPos *pos, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
/* Until called again with NULL, book_diag(book, ...) on the calling thread
 * appends to sink (a GArray of BookDiag) instead of the book: writers
 * running on several threads keep their diagnostics apart, and
 * book_diag_take puts them into the book in a fixed order. The book keeps
 * each thread's sink (no global state). */
void book_diag_capture(Book *book, GArray *sink);
/* The calling thread's sink of book_diag_capture, or NULL. */
GArray *book_diag_capturing(Book *book);
/* Append the diagnostics of sink (from book_diag_capture) to the book, in
 * order, and empty sink (the book takes their messages). */
void book_diag_take(Book *book, GArray *sink);
/* Number of diagnostics of `level` so far. */
guint book_diag_count(const Book *book, BookDiagLevel level);
/* Print diagnostics from index `from` on as "FILE:LINE:COL: error: msg"
 * (only errors when errors_only). Returns the index after the last one. */
guint book_diag_print(const Book *book, guint from, bool errors_only, FILE *out);

/* Walk a tree without recursion: each node is seen on ENTER and, when it
 * may have children, on EXIT (leaves only on ENTER). */
typedef enum { BOOK_ITER_DONE, BOOK_ITER_ENTER, BOOK_ITER_EXIT } BookIterEvent;
typedef struct {
  BookNode *root, *cur;
  BookIterEvent ev;
} BookIter;
void book_iter_init(BookIter *it, BookNode *root);
/* Advance; returns the event and sets it->cur. */
BookIterEvent book_iter_next(BookIter *it);
/* Skip the children of the node just entered: the next event is its EXIT. */
void book_iter_skip_children(BookIter *it);

/* Show the book's numbers, the one place that writes them: a chapter
 * with a number of its own (BookChapter.number, a book project's) gets it
 * as a first child <span class="secno">1.2.</span> and an en space of its
 * heading and of its contents title, and as a prefix of its title, so that
 * every writer, the contents and the running heads show the same number;
 * in such a book only those chapters are numbered, sections apart even
 * with sections: a section "1.1" of chapter "1." would be the number of
 * its first nested chapter (mdBook numbers nested chapters so).
 * Otherwise, only with sections (pandoc's --number-sections): every
 * top-level heading (not in a quote or a list) at or below chapter_level
 * that has an id (a heading of the contents) gets
 * "N", "N.M", ... by level below the chapter level (a skipped level counts
 * 0), the same way. Headings above chapter_level (parts: chapters
 * count on across them) and the opening chapter (no heading) stay
 * unnumbered, and so do sections before the first chapter heading after
 * either; so are headings marked unnumbered ({-}), which count nothing,
 * and a chapter's sections when its heading is one. Call once, after
 * parsing. */
void book_number_headings(Book *book, int chapter_level, bool sections);

/* Heading levels for an outline that never skips one (the e-book's h1..h6,
 * the PDF's H1..H6 tags; Ace's and PDF/UA's heading order): a heading goes
 * at most one level below the heading it belongs under, so `# A`, `### B`,
 * `### C` give 1, 2, 2. Zero-initialise one per document (chapter) and
 * feed it the headings in order. */
typedef struct {
  int n, src[6], out[6]; /* the open headings: source and outline levels */
} BookOutlineLevels;
/* The outline level of the next heading, of source level `level` (1..6). */
int book_outline_level(BookOutlineLevels *o, int level);

/* ---- images (image.c) ---- */

/* The kind of image in data[0..len) and the size its header gives (0 x 0
 * when it gives none; SVG: width/height in CSS px, or the viewBox). */
BookImageKind book_image_sniff(const guchar *data, gsize len, int *width_px, int *height_px);
/* The same for the file at path, reading its first 64 KiB (and, for a JPEG
 * whose size comes later, seeking on to its start of frame).
 * BOOK_IMAGE_NONE when it cannot be read. */
BookImageKind book_image_probe(const char *path, int *width_px, int *height_px);
/* Whether the raster file at path decodes with the loader the PDF draws it
 * with (PNG: cairo; JPEG, GIF: gdk-pixbuf), so that an image whose header
 * reads but whose pixels do not is left out of both books at parse time
 * (alt text in its place) instead of failing when the page is drawn. All
 * of the data must decode: a JPEG cut short is refused, because the PDF
 * embeds a JPEG's bytes as they are and its readers (and qpdf --check)
 * refuse the truncated stream. SVG and other kinds: true. On false, *why (g_free) says why. */
bool book_image_decodes(const char *path, BookImageKind kind, char **why);
/* "image/png", ... for a kind; NULL for BOOK_IMAGE_NONE. Static strings. */
const char *book_image_media_type(BookImageKind kind);
/* The file extension for a kind ("png", "jpg", "gif", "svg", "webp"), or NULL. */
const char *book_image_ext(BookImageKind kind);

/* ---- URLs (url.c): the one classification every stage uses ---- */

typedef enum {
  BOOK_URL_RELATIVE, /* no scheme: a path, ?query or #fragment, resolved inside the book */
  BOOK_URL_WEB,      /* http: or https: */
  BOOK_URL_MAILTO,   /* mailto: */
  BOOK_URL_DATA,     /* data: */
  BOOK_URL_OTHER,    /* any other scheme: javascript:, file:, ftp:, ... */
} BookUrlKind;

/* The scheme of url in lower case (RFC 3986: schemes are case-insensitive),
 * read as a browser reads it: ASCII white space and controls anywhere in it
 * are ignored ("java\tscript:" is javascript).  NULL when url has none (a
 * relative reference) or is NULL.  Caller frees. */
char *book_url_scheme(const char *url);
/* The kind of url, by its scheme as book_url_scheme() reads it. */
BookUrlKind book_url_kind(const char *url);
/* True when url leads out of the book and may be written as a link as it
 * is: it starts with "http://", "https://" (an authority: "http:x" is no
 * usable web address) or "mailto:", the scheme in any case and nothing
 * before it.  Every writer's test for "external link" (EPUB href, PDF URI
 * action, link notes). */
bool book_url_is_external(const char *url);
/* The first bytes (at most max) that a data: URL holds, decoded (base64
 * or percent-encoded), for probing an image's header without decoding the
 * rest; *len their number. NULL when url is no data: URL. Caller frees. */
guchar *book_data_url_head(const char *url, gsize max, gsize *len);

/* Print the model as an indented tree (for --dump-model and tests). */
void book_dump(const Book *book, GString *out);
/* Feed the content into sum: what book_dump prints, without source
 * positions and file names, so that it names the text and its structure,
 * not where the sources lie (the EPUB's identifier). */
void book_digest(const Book *book, GChecksum *sum);

#endif
