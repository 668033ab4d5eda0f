/* linebreak.h: choosing a paragraph's line breaks (Knuth & Plass 1981, or
 * greedy first-fit for comparison) over boxes, glue and penalties. Knows
 * nothing of fonts or pango: the layout builds the items from shaped glyphs
 * and sets the lines this returns.
 *
 * Changes to the first contract (all additive; lb_break() keeps its shape):
 * - LbItem: `hyphenation` (an automatic hyphenation point: a break from the
 *   second pass on) and `emergency` (a last-resort break, e.g. between two
 *   characters of a long URL: used only in the final pass). Zero-initialised
 *   items behave as before.
 * - LB_FIL: glue whose stretch is >= LB_FIL is infinitely stretchable (the
 *   finishing glue, \parfillskip); lines holding it are never stretched.
 * - LbParams: hyphen_penalty, exhyphen_penalty, emergency_penalty: the values
 *   the layout should give its penalties (the breaker reads the items only).
 * - LbParams: max_ratio (default 0, off): a line stretched beyond it waits
 *   for the final pass, where it has its real badness, so emergency stretch
 *   cannot accept very loose lines where an emergency point would do.
 * - LbLine: `start` (first item of the line after discarding), `overfull`.
 * - LbParams: max_hyphen_run (default 0, off): a hard limit on consecutive
 *   hyphenated lines; the breaker keeps the run length in its active nodes.
 * - lb_break() may return 4 (the emergency pass with emergency points).
 * - lb_break_stats(): the same with a work counter, for linear-time tests.
 * - LbParams: ragged_badness (default 0, off): the cost of a line past
 *   max_ratio that the layout will set ragged.
 * - LbParams: short_last_width, short_last_demerits (a last line narrower
 *   than short_last_width, or a lone word fragment after a hyphen narrower
 *   than twice that, costs short_last_demerits: the "mem-/ory." case) and
 *   broken_penalty (TeX's \brokenpenalty, for the layout's page breaks
 *   after a line that ends in a hyphen). Zero: off, as before.
 * - lb_badness(): TeX's badness, for the page breaker too.
 * - The emergency pass (3) weighs a line by its badness with its own glue;
 *   emergency_stretch only makes it feasible (TeX weighs it with the
 *   stretch added, so loose lines cost almost nothing there and a
 *   paragraph's looseness spreads over several lines).
 *
 * Building the items (what the seed's figures were reached with, in a
 * prototype on the seed at A4 and A5: optimal p95 1.44-1.48, max 1.60-1.73):
 * - a word space: glue, width = the font's space, stretch = 0.5 space,
 *   shrink = 0.4 space (TeX's 1/3 leaves A5 list items with no feasible
 *   breaking); a first-line indent is a box.
 * - a hyphenation point from hyphen_points(): penalty, width = the hyphen's
 *   advance, penalty = hyphen_penalty, flagged, hyphenation = true.
 * - after an explicit '-' or a dash inside a word: penalty, width 0,
 *   penalty = exhyphen_penalty, flagged (nothing to draw: width 0).
 * - in words hyphen_points() refuses (acronyms, code, URLs): emergency
 *   points, width 0, unflagged, emergency = true: after '/', '+', '_', '.'
 *   with penalty 500, and between any two characters of a word of 8 or more
 *   characters with emergency_penalty. Then nothing runs past the margin.
 * - the end: penalty LB_INFINITY, glue with stretch LB_FIL, forced penalty
 *   (or leave it out: lb_break appends it).
 */
#ifndef OCTAVO_LINEBREAK_H
#define OCTAVO_LINEBREAK_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum { LB_BOX, LB_GLUE, LB_PENALTY } LbType;

#define LB_INFINITY 10000.0 /* a penalty >= this forbids a break; <= -this forces one */
#define LB_FIL 1e6          /* glue stretch >= this is infinite (finishing glue) */

typedef struct {
  LbType type;
  double width;   /* points: box/glue natural width; penalty: width added if broken here (hyphen) */
  double stretch; /* glue only */
  double shrink;  /* glue only */
  double penalty; /* penalty only */
  bool flagged;   /* penalty only: a hyphen break (for adjacent/final hyphen demerits) */
  bool hyphenation; /* penalty only: automatic hyphenation point, skipped in pass 1 */
  bool emergency;   /* penalty only: last-resort break, used in the final pass only */
} LbItem;

typedef enum { LB_OPTIMAL, LB_GREEDY } LbMode;

typedef struct {
  double tolerance;              /* first pass (TeX \pretolerance), e.g. 100; < 0 skips pass 1 */
  double tolerance2;             /* second pass, with hyphenation, e.g. 200 */
  double emergency_stretch;      /* third pass: extra stretch per line, points */
  double line_penalty;           /* 10 */
  double adj_demerits;           /* fitness classes two apart: 10000 */
  double double_hyphen_demerits; /* 10000 */
  double final_hyphen_demerits;  /* 5000 */
  int looseness;              /* 0; otherwise the final choice prefers that many lines more/fewer */
  int max_hyphen_run;         /* 1..3: at most this many consecutive lines end at a flagged
                             * break (a hyphen) before the final pass; there a longer
                             * run costs 10 * double_hyphen_demerits more; 0: no limit
                             * (TeX: only double_hyphen_demerits); more than 3 counts
                             * as 3 */
  double max_ratio;           /* > 0: a line that stretches its own glue by more than this
                             * ratio is infeasible before the final pass whatever
                             * emergency_stretch allows, and there has its real badness
                             * (no emergency stretch), so an emergency point can beat it;
                             * 0: no limit, as TeX */
  double ragged_badness;      /* > 0 (with max_ratio): from the emergency pass on, a line
                             * looser than max_ratio is feasible and weighed with this
                             * badness, whatever its glue: the layout sets it ragged
                             * (issue 16), so its cost is that of one flawed line, not
                             * of word spaces past max_ratio; then a paragraph with an
                             * unbreakable span sets one line ragged rather than spread
                             * the shortfall over three loose lines; 0: off */
  double short_last_width;    /* points; > 0: a paragraph's last line narrower than this
                              * costs short_last_demerits (e.g. 4 characters: 2 em) */
  double short_last_demerits; /* 10000; also for a last line that is one word fragment
                               * after a hyphen, narrower than 2 * short_last_width */
  /* Values for the layout to put in its penalty items (not read by lb_break). */
  double hyphen_penalty;    /* automatic hyphenation point: 50 */
  double exhyphen_penalty;  /* after an explicit hyphen or dash: 50 */
  double emergency_penalty; /* emergency point inside a word/URL: 1000 */
  double broken_penalty;    /* a page break after a line that ends in a hyphen: 100 */
} LbParams;

/* TeX's badness (tex.web §108) of a list of glue that must stretch (or
 * shrink) by t points and can by s: about 100 (t/s)^3, 0 when t <= 0, and
 * at most 10000 (s <= 0 or t much larger than s). Shared by the line
 * breaker and the page breaker (layout/paginate.c). */
double lb_badness(double t, double s);

/* TeX-like defaults (emergency_stretch 0: the layout should set it, e.g. to
 * 1.5 em). */
void lb_params_default(LbParams *p);

typedef struct {
  size_t end;    /* index of the break item (glue or penalty), or n for the paragraph end */
  double ratio;  /* adjustment ratio of the line's finite glue: >0 stretched, <0 shrunk.
                 * 0 when the line holds LB_FIL glue and is short (the fil glue takes
                 * the rest), or when nothing can stretch (the line is ragged). */
  bool hyphen;   /* the line ends at a flagged penalty: draw its hyphen when the penalty's
                 * width is > 0 (an explicit hyphen's break has width 0: nothing to add) */
  size_t start;  /* first item of the line: the paragraph's first item, or the first
                 * box after the previous break (glue and penalties there are discarded,
                 * as TeX does); start == end for an empty line */
  bool overfull; /* the line is wider than its width even with all glue shrunk:
                  * ratio < -1, or -1 when it has no shrinkable glue */
} LbLine;

/* Break items[0..n) into lines. The line i is widths[i] points wide
 * (widths[nwidths-1] for every later line). The items should end with the
 * usual finishing glue (stretch >= LB_FIL) and a forced break; when the last
 * item is not a forced break, trailing glue is dropped and TeX's ending
 * (penalty 10000, finishing glue, forced break) is appended; the last
 * line's `end` is then n. n == 0 gives no lines. Returns the lines in order,
 * in `lines` (an LbLine GArray the caller owns, cleared first). Never fails:
 * passes: 1 (tolerance, no hyphenation points), 2 (tolerance2, hyphenation),
 * 3 (a line is feasible when its badness with emergency_stretch added is
 * within tolerance2, and weighed by its badness without it; skipped when
 * emergency_stretch is 0), 4 (the final pass: any
 * badness, emergency points allowed; when even that leaves nothing feasible,
 * TeX's rule keeps an overfull line). Returns the number of the pass that
 * succeeded (1..4; greedy: 0). Runs in time linear in n times the number of
 * breaks that fit on one line. */
int lb_break(const LbItem *items, size_t n, const double *widths, size_t nwidths, const LbParams *p,
             LbMode mode, GArray *lines);

typedef struct {
  unsigned long long work; /* active-node examinations (greedy: items scanned) */
  size_t max_active;       /* the largest active list seen */
  size_t passive;          /* break nodes created in the successful pass */
} LbStats;

/* lb_break() that also fills *stats (may be NULL). */
int lb_break_stats(const LbItem *items, size_t n, const double *widths, size_t nwidths,
                   const LbParams *p, LbMode mode, GArray *lines, LbStats *stats);

#endif
