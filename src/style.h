/* style.h: the print style, read from a GKeyFile (styles/print.ini) into one
 * plain struct. Lengths are in points. A group [G.PAPER] (e.g. [page.a5])
 * overrides keys of [G] for that paper. */
#ifndef OCTAVO_STYLE_H
#define OCTAVO_STYLE_H

#include <glib.h>
#include <stdbool.h>

#include "options.h"

/* At least BOOK_TOK_COUNT (book.h; style.c checks). */
#define STYLE_TOKEN_CLASSES 32

/* The generated cover's colours and face: the [cover] group. */
typedef struct {
  double background[3], ink[3], accent[3], band[3]; /* RGB 0..1 */
  char *face;                                       /* fontconfig family of the cover */
} CoverStyle;

typedef struct {
  OctavoPaper paper; /* never OCTAVO_PAPER_STYLE once loaded */
  double paper_w_pt, paper_h_pt;
  double margin_top_pt, margin_bottom_pt, margin_inner_pt, margin_outer_pt;
  double column_gap_pt;
  /* body text */
  char *body_face; /* a fontconfig family */
  double body_size_pt, leading_pt;
  double indent_pt;      /* first-line indent of a following paragraph (0: none) */
  double par_space_pt;   /* extra space between paragraphs */
  double block_space_pt; /* space around lists, quotes, code, tables, figures */
  bool justify;
  /* Justification may letter-space a loose line (as InDesign's letter
   * spacing or microtype's expansion): once its word spaces would pass
   * track_from times their natural width, the rest of the stretch goes
   * between the letters, up to track_max_em of the font size per gap;
   * then the word spaces take what remains. 0 turns it off; track_from is
   * 0 or >= 1, track_max_em <= 0.1 (style_load refuses others). */
  double track_from, track_max_em;
  /* What the line breaker charges for a line of a justified paragraph set
   * ragged because its word spaces would pass twice their width (from the
   * emergency pass on; linebreak.h ragged_badness): about the badness of
   * one line spaced at 1.7. Lower sets more lines ragged and fewer loose:
   * the trade a narrow column wants. 0: no such cost (the line is weighed
   * by its spaces, infeasible before the last pass); at most 10000
   * (style_load refuses others). */
  double ragged_cost;
  double list_indent_pt, quote_indent_pt;
  /* headings: [0] is level 1 (chapter titles) .. [5] level 6 */
  char *heading_face;
  double heading_size_pt[6];
  double heading_before_pt, heading_after_pt;
  double chapter_drop_pt; /* space above a chapter title on its opening page */
  double last_page_lines; /* a chapter's last page holds at least this many body lines'
                           * height ([page] last-page-lines; 0: any) */
  /* code */
  char *code_face;
  double code_size_pt, code_leading_pt, code_pad_pt;
  double code_gray; /* background of code blocks: 0 black .. 1 white */
  /* The smallest size a listing wider than the measure is set at so that
   * its widest line fits ([code] min-size): a fraction of the code's size
   * (up to 1; 1 never shrinks one) or, above 1, points; style_code_min_pt. */
  double code_min_size;
  /* How each class of a code block's tokens is drawn ([code-tokens]; the
   * index is a BookTokClass of book.h): a token whose class is not set is
   * drawn as plain code. */
  struct {
    bool set;
    double rgb[3]; /* 0..1 */
    bool bold, italic;
  } tok[STYLE_TOKEN_CLASSES];
  /* A listing's lines ([code]): numbered by default (line-numbers; a
   * listing's own attributes win, book.h's as.code.linenos), the numbers'
   * colour (line-number-color), a marked line's band and the rule at its
   * left edge (mark-background, mark-rule): rgb 0..1. */
  bool code_line_numbers;
  double line_number_rgb[3], mark_rgb[3], mark_rule_rgb[3];
  /* footnotes, tables, running heads, the handout's title block */
  double note_size_pt, note_leading_pt;
  double caption_size_pt, caption_leading_pt; /* captions of figures, listings, tables ([caption]) */
  double colophon_size_pt, colophon_leading_pt; /* the colophon ([colophon]) */
  double table_size_pt, table_leading_pt, cell_pad_pt;
  double head_size_pt, head_gap_pt; /* running head: size, baseline distance above the text block */
  double folio_gap_pt;              /* folio baseline below the text block (chapter openings) */
  double subtitle_size_pt, byline_size_pt; /* [title]: the handout's title block */
  double toc_size_pt, toc_leading_pt;
  CoverStyle cover; /* [cover]: a colour that is not #rrggbb keeps its default */
  /* the layout ([layout], [layout.handout]): what opens the book and how chapters follow */
  OctavoLayout layout;   /* the one the style was read for */
  bool chapter_new_page; /* a title page and contents as front matter, each chapter
                                      * from a new page; else a title block at the top of page 1
                                      * and the sections running on (the handout) */
  bool contents_always;  /* printed contents always (else only with --toc) */
} Style;

/* Read the style file at path (NULL: built-in defaults only) for `paper`
 * (OCTAVO_PAPER_STYLE: the file's [page] paper, else OCTAVO_PAPER_DEFAULT) and `columns` (with 2, a group
 * [G.columns] overrides [G.PAPER] and [G]). Unknown keys are ignored;
 * missing keys keep the defaults. Returns false with *err set when the file
 * cannot be read or parsed, or the paper is unknown. Free with
 * style_clear(). */
bool style_load(Style *st, const char *path, OctavoPaper paper, int columns, GError **err);
/* As style_load, for `layout`: a group [G.LAYOUT] (and [G.LAYOUT.PAPER],
 * [G.LAYOUT.columns]) overrides [G] for a layout other than the book. */
bool style_load_layout(Style *st, const char *path, OctavoPaper paper, int columns,
                       OctavoLayout layout, GError **err);
/* Free the strings of a style. Accepts a style never loaded if zeroed. */
void style_clear(Style *st);
/* The floor, in points, of a code block set at size_pt that is shrunk to
 * fit the measure ([code] min-size): a fraction of size_pt never below
 * 6.5 pt, or the points the style gives; never above size_pt (then the
 * block is never shrunk). */
double style_code_min_pt(const Style *st, double size_pt);
/* Paper size in points; false for OCTAVO_PAPER_STYLE or an unknown value. */
bool style_paper_size(OctavoPaper paper, double *w_pt, double *h_pt);

#endif
