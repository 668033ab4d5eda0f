/* front.h: what the front end's files share (input.c, meta.c, markdown.c,
 * chapters.c, resolve.c); no writer includes it.
 *
 * One run of md_parse_sources() keeps a Ctx; each input file has a Src.
 * The steps, in order: md_src_init (read, repair) and md_front_matter for
 * every input; per input, cmark-gfm -> model (markdown.c), md_tidy and
 * md_split_chapters; then md_number_footnotes, md_resolve_tree (links,
 * images) and md_finish_meta over the whole book.
 */
#ifndef OCTAVO_FRONT_H
#define OCTAVO_FRONT_H

#include "markdown.h"

/* ---- metadata layers (meta.c) ---- */

enum {
  K_TITLE,
  K_SUBTITLE,
  K_DATE,
  K_LANG,
  K_IDENTIFIER,
  K_PUBLISHER,
  K_DESCRIPTION,
  K_RIGHTS,
  K_SOURCE,
  K_COVER,
  K_DIR, /* the book's direction, as pandoc's dir: ltr or rtl */
  K_NSCALAR
};

/* One source of metadata; NULL fields are not set by it. */
typedef struct {
  char *v[K_NSCALAR];
  GPtrArray *authors;  /* char *, or NULL when this layer names none */
  GPtrArray *subjects; /* char *, or NULL */
} MetaLayer;

/* ---- per-input and per-run state ---- */

typedef struct {
  const char *file; /* interned display name */
  char *canon;      /* canonical absolute path, or NULL for standard input */
  char *stem;       /* canon without its document extension (md_strip_doc_ext), or NULL */
  char *dir;        /* directory that relative paths start from */
  char *text;       /* repaired text, front matter blanked to newlines */
  gsize len;
  MetaLayer fm;     /* front matter */
  BookPos cover_at; /* where fm names the cover (its value), line 0 when it does not */
  char *cover_src;  /* fm's cover as written (fm holds it made absolute), or NULL */
  bool has_fm;      /* the file opens with front matter (a metadata-only source is no empty file) */
  BookNode *root;   /* the converted tree before chapter splitting */
  GPtrArray *notes; /* BookFootnote * by cmark's footnote index - 1 (owned by Ctx.pending) */
  GHashTable *slugs;  /* slug as written -> final id, for links into this file (owned strings) */
  BookChapter *first; /* the file's first chapter, or NULL when it has none */
  GArray *lines;      /* gsize offset of each line's start in text */
  int heading_shift;  /* MdSource.heading_shift */
  bool chapter;       /* MdSource.chapter, nest, number, title, mdbook */
  int nest;
  const char *number, *title;
  bool mdbook;
} Src;

typedef struct {
  Book *book;
  const OctavoOptions *opts;
  Src *srcs;
  int n;
  GPtrArray *pending;      /* BookFootnote * not yet numbered (owned; NULL slots) */
  GHashTable *anchors;     /* id -> BookChapter * for headings and HTML ids */
  GHashTable *res_by_path; /* realpath -> BookResource * */
  bool title_known;        /* front matter or -M gives the title: the first H1 stays */
  bool title_taken;        /* md_decide_shape took the title from a heading */
  int split;               /* the chapter level md_decide_shape decided (1..6) */
  char *no_title_why;      /* why no heading is the title, for the warning (or NULL) */
  MetaLayer doc;           /* title heading and byline */
  MetaLayer title_block;   /* pandoc's % lines atop the first input */
  struct FrontAhead *ahead; /* the image checks and highlighting done beside the parsing
                             * (frontahead.h), or NULL */
} Ctx;

/* ---- input.c ---- */

/* Set up s for input `in`: its interned display name, directories, the
 * text with invalid UTF-8 repaired (reported) and its line index. */
void md_src_init(Ctx *c, Src *s, const MdSource *in);
/* Free what s owns (not s itself). */
void md_src_free(Src *s);

/* ---- meta.c ---- */

void md_layer_clear(MetaLayer *l);
void md_layer_set(MetaLayer *l, int k, const char *value);
/* Add a trimmed, non-empty value to *list (created on first use). */
void md_list_add(GPtrArray **list, const char *value);
/* Read YAML front matter at the top of s->text into s->fm and blank it
 * (keeping newlines). False when it was invalid YAML (an error recorded). */
bool md_front_matter(Book *b, Src *s);
/* Read pandoc's title block ("% Title", "% Author; Author", "% Date") at
 * the top of s->text into *l and blank it (keeping newlines); false when
 * there is none. */
bool md_title_block(Book *b, Src *s, MetaLayer *l);
/* When para is a byline ("By NAME, YYYY-MM-DD"), record its authors and
 * date in c->doc and return true. */
bool md_byline(Ctx *c, const BookNode *para);
/* True when -M sets the title. */
bool md_options_give_title(const OctavoOptions *o);
/* The book's metadata from its layers: title heading and byline < title
 * block < front matter (later files win) < --lang < -M; a title and a
 * language always. */
void md_finish_meta(Ctx *c);

/* ---- markdown.c ---- */

/* text (one line: line breaks read as spaces) parsed as Markdown inlines,
 * as a BOOK_PARAGRAPH in no tree (the caller's), every node at pos: a
 * caption or a title written in Markdown. Text that would make another
 * block ("# x", "- x") stays as it is. */
BookNode *md_parse_inlines(Ctx *c, const char *text, const BookPos *pos);

/* ---- tidy.c ---- */

/* Make one input's converted tree (s->root) regular before its chapters
 * are split: raw-HTML images, <figure>/<figcaption> and mdBook's <Listing>
 * become the model's figures (book.h), anchor-only raw HTML (<a
 * id="x"></a> alone in a paragraph) moves to the start of the next block
 * that holds text, and in an mdBook's source (s->mdbook) the lines mdBook
 * hides in Rust code blocks go. */
void md_tidy(Ctx *c, Src *s);

/* ---- captions.c ---- */

/* After md_tidy: each figure's, code block's and table's caption decided
 * once (a <figcaption>, an image's title, or the "Figure N:" / "Listing
 * N" / "Table N:" or <span class="caption"> paragraph next to it, never
 * the alt text), and "Filename: F" before a code block made that
 * listing's file name; a captioned code block or table becomes a listing
 * figure (book.h). */
void md_captions(Ctx *c, BookNode *tree);

/* ---- chapters.c ---- */

/* Plain text of a node with runs of white space collapsed. Caller frees. */
char *md_plain_text(const BookNode *n);
/* The book's shape, decided once from every source's tree before any is
 * split (and recorded in book->chapter_level and book->shape_note): the
 * chapter level (--split-level, or auto: # when the book has several #
 * headings, ## when it has one or none or is an mdBook), a # line opening
 * every file alike taken out as the (series) title, and the title heading
 * (with its byline) taken out of the text: the one # heading of the first
 * file, wherever it stands, unless the metadata names the title. Warns
 * where the decision is not the report's plain case. */
void md_decide_shape(Ctx *c);
/* Move s->root's blocks into chapters (a chapter per heading at the
 * decided level) and give every heading and raw-HTML id a unique id. */
void md_split_chapters(Ctx *c, Src *s);
/* Number footnotes in order of first reference; free the unreferenced. */
void md_number_footnotes(Ctx *c);

/* ---- resolve.c ---- */

/* path without a document extension (.md, .html, ...). Caller frees. */
char *md_strip_doc_ext(const char *path);
/* Resolve the links and images of one tree (ch: where its links start) and
 * remove dropped-content markers. */
void md_resolve_tree(Ctx *c, BookNode *tree, BookChapter *ch);
/* Queue the check that image n's file decodes (c->ahead), as
 * md_resolve_tree would make it: the same file found (the sandbox told
 * nothing yet), a kind that is decoded and not too large; nothing said. */
void md_resolve_ahead(Ctx *c, const BookNode *n);
/* The book's cover, decided once (after md_finish_meta): meta.cover
 * resolved through the sandbox and probed as the book's images are, into
 * book->cover when it is a PNG or JPEG either book can use; else NULL (the
 * two books then carry octavo's drawn cover), with one warning where the
 * cover was named (the front matter's line; -M: no place). */
void md_resolve_cover(Ctx *c);

#endif
