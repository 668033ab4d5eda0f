/* linebreak.h: choosing a paragraph's line breaks (Knuth & Plass 1981, or
 * greedy first-fit for comparison) over boxes, glue and penalties. Knows
 * nothing of fonts or pango: the layout builds the items from shaped glyphs
 * and sets the lines this returns. */
#ifndef OCTAVO_LINEBREAK_H
#define OCTAVO_LINEBREAK_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum { LB_BOX, LB_GLUE, LB_PENALTY } LbType;

#define LB_INFINITY 10000.0 /* a penalty >= this forbids a break; <= -this forces one */

typedef struct {
  LbType type;
  double width;   /* points: box/glue natural width; penalty: width added if broken here (hyphen) */
  double stretch; /* glue only */
  double shrink;  /* glue only */
  double penalty; /* penalty only */
  bool flagged;   /* penalty only: a hyphen break (for adjacent/final hyphen demerits) */
} LbItem;

typedef enum { LB_OPTIMAL, LB_GREEDY } LbMode;

typedef struct {
  double tolerance;         /* first pass (TeX \pretolerance-like), e.g. 100 */
  double tolerance2;        /* second pass, with hyphenation, e.g. 200 */
  double emergency_stretch; /* third pass: extra stretch per line, points */
  double line_penalty;      /* 10 */
  double adj_demerits;      /* fitness classes two apart: 10000 */
  double double_hyphen_demerits; /* 10000 */
  double final_hyphen_demerits;  /* 5000 */
  int looseness;            /* 0 */
} LbParams;

/* TeX-like defaults. */
void lb_params_default(LbParams *p);

typedef struct {
  size_t end;   /* index of the break item (glue or penalty), or n for the paragraph end */
  double ratio; /* adjustment ratio of the line: >0 stretched, <0 shrunk (>= -1) */
  bool hyphen;  /* the line ends at a flagged penalty (draw a hyphen) */
} LbLine;

/* Break items[0..n) into lines. The line i is widths[i] points wide
 * (widths[nwidths-1] for every later line). The items should end with the
 * usual finishing glue (infinite stretch) and a forced break; a final
 * forced break is appended when missing. Returns the lines in order, in
 * `lines` (an LbLine GArray the caller owns, cleared first). Never fails:
 * when no feasible breaking exists, an emergency pass breaks anywhere it
 * can (overfull lines are reported with ratio < -1). Returns the number of
 * the pass that succeeded (1, 2, 3; greedy: 0). */
int lb_break(const LbItem *items, size_t n, const double *widths, size_t nwidths, const LbParams *p,
             LbMode mode, GArray *lines);

#endif
