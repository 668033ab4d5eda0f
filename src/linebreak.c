/* linebreak.c: a paragraph's line breaks over boxes, glue and penalties.
 *
 * LB_OPTIMAL is TeX's algorithm (Knuth & Plass 1981; tex.web §813-890): an
 * active list of feasible breaks sorted by line number, badness 100·|r|³,
 * demerits (line_penalty + badness)² ± penalty², four fitness classes,
 * adjacent/double/final hyphen demerits, up to four passes (the third, with
 * the emergency stretch, weighs lines without it: line_badness). Widths come
 * from prefix sums instead of TeX's delta nodes (same result, simpler code).
 * LB_GREEDY is first fit at natural width (what pango and browsers do), over
 * the same items, for comparison.
 *
 * Does not: shape, hyphenate, or know what an item holds. */
#include "linebreak.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define INF_BAD 10000.0
#define AWFUL 1e300
#define LB_EPS 1e-6 /* points: prefix sums over a long paragraph are not exact */

enum { VERY_LOOSE, LOOSE, DECENT, TIGHT };

void lb_params_default(LbParams *p)
{
  memset(p, 0, sizeof *p);
  p->tolerance = 100;
  p->tolerance2 = 200;
  p->emergency_stretch = 0;
  p->line_penalty = 10;
  p->adj_demerits = 10000;
  p->double_hyphen_demerits = 10000;
  p->final_hyphen_demerits = 5000;
  p->looseness = 0;
  p->hyphen_penalty = 50;
  p->exhyphen_penalty = 50;
  p->emergency_penalty = 1000;
  p->broken_penalty = 100;
  p->short_last_width = 0;
  p->short_last_demerits = 10000;
}

/* The paragraph as the breaker sees it: items (maybe with an appended end)
 * and prefix sums over them. */
typedef struct {
  const LbItem *it;
  size_t n;
  double *w, *y, *z; /* w[i]: natural width of items [0,i); y: finite stretch; z: shrink */
  double *pw;        /* pw[i]: the width a break at item i adds (a penalty's; else 0) */
  size_t *fil;       /* number of LB_FIL glues in [0,i) */
  size_t *next_box;  /* first index >= i that is a box (n when none) */
  const double *widths;
  size_t nwidths;
} Para;

typedef struct {
  size_t pos; /* break item */
  long prev;  /* previous passive node, -1 for the paragraph start */
  bool flagged;
} Passive;

typedef struct {
  long passive; /* -1: paragraph start */
  size_t line;  /* lines ended at this break */
  int fitness;
  bool flagged;
  int run; /* consecutive lines ending at a flagged break, this one included */
  double total;
  size_t start; /* first item of the next line */
  long next;    /* next active node, -1 at the end */
} Active;

typedef struct {
  double natural, stretch, shrink, shortfall;
  bool fil;
} LineFit;

static double line_width(const Para *pp, size_t line)
{
  double w = pp->widths[line < pp->nwidths ? line : pp->nwidths - 1];
  return isfinite(w) ? w : 0;
}

static bool is_forced(const LbItem *it)
{
  return it->type == LB_PENALTY && it->penalty <= -LB_INFINITY;
}

/* Measure the line from start to the break b. */
static inline LineFit measure(const Para *pp, size_t start, size_t b, double width)
{
  LineFit f;
  size_t s = start < b ? start : b;
  f.natural = pp->w[b] - pp->w[s] + pp->pw[b]; /* + 0 changes no sum: none is -0 */
  f.stretch = pp->y[b] - pp->y[s];
  f.shrink = pp->z[b] - pp->z[s];
  f.fil = pp->fil[b] > pp->fil[s];
  f.shortfall = width - f.natural;
  return f;
}

static double ratio_of(const LineFit *f, bool *overfull)
{
  *overfull = false;
  if (f->shortfall > 0) {
    if (f->fil || f->stretch <= 0)
      return 0;
    return f->shortfall / f->stretch;
  }
  if (f->shortfall < 0) {
    if (-f->shortfall > f->shrink + LB_EPS) {
      *overfull = true;
      return f->shrink > 0 ? f->shortfall / f->shrink : -1;
    }
    return f->shrink > 0 ? f->shortfall / f->shrink : 0;
  }
  return 0;
}

double lb_badness(double t, double s)
{
  if (t <= 0)
    return 0;
  if (s <= 0)
    return INF_BAD;
  double r = t / s;
  if (r > 297)
    return INF_BAD;
  double b = 100 * r * r * r;
  return b > INF_BAD ? INF_BAD : b;
}

static size_t start_after(const Para *pp, size_t b)
{
  return b + 1 <= pp->n ? pp->next_box[b + 1] : pp->n;
}

/* May item i be a break in this pass? Returns its penalty via *pi. */
static inline bool breakable(const Para *pp, size_t i, int pass, double *pi)
{
  const LbItem *it = &pp->it[i];
  if (it->type == LB_GLUE) {
    *pi = 0;
    return i > 0 && pp->it[i - 1].type == LB_BOX;
  }
  if (it->type != LB_PENALTY || it->penalty >= LB_INFINITY || isnan(it->penalty))
    return false;
  if (it->hyphenation && pass < 2)
    return false;
  if (it->emergency && pass < 4)
    return false;
  *pi = it->penalty;
  return true;
}

/* ---- Knuth–Plass ---------------------------------------------------------------- */

typedef struct {
  const Para *pp;
  const LbParams *p;
  int pass;
  bool final_pass;
  bool weigh_own; /* demerits from a line's own badness, not with background_stretch */
  double threshold, background_stretch;
  size_t easy_line;
  GArray *active;  /* Active pool */
  GArray *passive; /* Passive */
  long head;       /* first active node, -1 when empty */
  long free_list;
  size_t nactive;
  LbStats *st;
} KP;

static long new_active(KP *kp)
{
  long id;
  if (kp->free_list >= 0) {
    id = kp->free_list;
    kp->free_list = g_array_index(kp->active, Active, id).next;
  } else {
    Active a = {0};
    g_array_append_val(kp->active, a);
    id = (long)kp->active->len - 1;
  }
  kp->nactive++;
  if (kp->nactive > kp->st->max_active)
    kp->st->max_active = kp->nactive;
  return id;
}

/* The extra demerits of a paragraph's last line f: narrower than
 * short_last_width, or after a hyphen one fragment of a word (no glue)
 * narrower than twice that: the remnant of "mem-/ory.". */
static double short_last(const LbParams *p, const LineFit *f, bool after_hyphen)
{
  if (p->short_last_width <= 0)
    return 0;
  double d = 0;
  if (f->natural < p->short_last_width)
    d += p->short_last_demerits;
  if (after_hyphen && f->stretch <= 0 && f->natural < 2 * p->short_last_width)
    d += p->short_last_demerits;
  return d;
}

#define RUNS 4 /* hyphen-run classes kept apart: 0, 1, 2, 3 or more */
#define ACT(kp, id) (&g_array_index((kp)->active, Active, (id)))

/* The best ways found so far to reach the break being tried, per fitness
 * class and hyphen run (0: the break is not flagged; RUNS - 1: that many or
 * more), and the least of them (TeX's minimal_demerits, best_place,
 * best_pl_line, minimum_demerits). A slot's entries count only where its
 * bit is set (slot c * RUNS + h): minimal in `live` (else AWFUL),
 * best_place and best_line in `ever` (else -1 and 0), so that the breaker,
 * tried at every break, clears two masks and not 48 entries. */
typedef struct {
  double minimal[4][RUNS];
  long best_place[4][RUNS];
  size_t best_line[4][RUNS];
  double minimum;
  unsigned live, ever;
} Cands;
G_STATIC_ASSERT(4 * RUNS < 32); /* a bit of `live` and `ever` per slot, and the all-slots mask */

static void cands_reset(Cands *cd)
{
  cd->live = cd->ever = 0;
  cd->minimum = AWFUL;
}

static double cand_minimal(const Cands *cd, int c, int h)
{
  return cd->live & (1u << (c * RUNS + h)) ? cd->minimal[c][h] : AWFUL;
}

/* A new active node at break b for candidate (c, h), linked in before r
 * after prev (-1: the list head); returns it (the new prev). */
static long add_active(KP *kp, const Cands *cd, int c, int h, size_t b, size_t s, bool flagged,
                       long prev, long r)
{
  bool set = cd->ever & (1u << (c * RUNS + h));
  Passive ps = {b, set ? cd->best_place[c][h] : -1, flagged};
  g_array_append_val(kp->passive, ps);
  long id = new_active(kp);
  Active *a = ACT(kp, id);
  a->passive = (long)kp->passive->len - 1;
  a->line = set ? cd->best_line[c][h] : 0;
  a->fitness = c;
  a->flagged = flagged;
  a->run = h;
  a->total = cand_minimal(cd, c, h);
  a->start = s;
  a->next = r;
  if (prev < 0)
    kp->head = id;
  else
    ACT(kp, prev)->next = id;
  return id;
}

/* New active nodes at break b for the candidates within adj_demerits of
 * the best, linked in before r (after prev, -1: the list head); clears the
 * candidates. Returns the last node inserted (the new prev). */
static long add_actives(KP *kp, Cands *cd, size_t b, bool flagged, long prev, long r)
{
  size_t s = start_after(kp->pp, b);
  double cut = cd->minimum + kp->p->adj_demerits;
  /* a slot not live holds AWFUL: past the cut but when the best is that bad */
  unsigned slots = AWFUL > cut ? cd->live : (1u << (4 * RUNS)) - 1;
  for (int k = 0; k < 4 * RUNS && slots >> k; k++) /* in order: fitness class, then run */
    if ((slots & (1u << k)) && !(cand_minimal(cd, k / RUNS, k % RUNS) > cut))
      prev = add_active(kp, cd, k / RUNS, k % RUNS, b, s, flagged, prev, r);
  cd->minimum = AWFUL;
  cd->live = 0;
  return prev;
}

/* The badness of line f, which decides whether it is feasible (above
 * INF_BAD when it cannot shrink enough); *weigh, the badness its demerits
 * count, and *fit, the fitness class of that. In the emergency pass
 * (weigh_own) a line is feasible with the emergency stretch but weighed
 * with its own glue only: TeX weighs it with the emergency stretch too,
 * which makes loose lines nearly free, so that the pass spreads a
 * paragraph's looseness over several lines rather than set one line tight
 * (in a narrow column: "1.41 1.72 2.00" instead of "1.41 -0.98 -0.31"). */
static double line_badness(const KP *kp, const LineFit *f, double *weigh, int *fit)
{
  const LbParams *p = kp->p;
  double bad;
  if (f->shortfall > 0) {
    if (f->fil) {
      *fit = DECENT;
      return *weigh = 0;
    }
    bad = lb_badness(f->shortfall, f->stretch + kp->background_stretch);
    *weigh = kp->weigh_own ? lb_badness(f->shortfall, f->stretch) : bad;
    *fit = *weigh > 12 ? (*weigh > 99 ? VERY_LOOSE : LOOSE) : DECENT;
    /* A line looser than max_ratio (with its own glue) is infeasible
     * before the final pass; there it gets its real badness, without
     * the emergency stretch, so that an emergency point can win. */
    if (p->max_ratio > 0 && (f->stretch <= 0 || f->shortfall > p->max_ratio * f->stretch)) {
      *fit = VERY_LOOSE;
      if (p->ragged_badness > 0 && kp->pass >= 3) {
        /* set ragged: feasible, one flaw that grows with the room left
         * empty (a tenth of the line empty doubles it) */
        double empty = f->shortfall / (f->shortfall + f->natural) / 0.1;
        *weigh = p->ragged_badness * (1 + empty * empty);
        if (*weigh > INF_BAD)
          *weigh = INF_BAD;
        return 0;
      }
      bad = *weigh = kp->final_pass ? lb_badness(f->shortfall, f->stretch) : INF_BAD;
      /* without a ragged cost (or before the emergency pass): weighed by
       * the part of the line left empty too (up to twice), or a nearly
       * empty line ("Then up-") costs no more than a full one at the
       * capped badness */
      if (kp->final_pass)
        *weigh = bad * (1 + f->shortfall / (f->natural + f->shortfall));
    }
    return bad;
  }
  if (-f->shortfall > f->shrink + LB_EPS)
    bad = INF_BAD + 1;
  else
    bad = lb_badness(-f->shortfall, f->shrink);
  *fit = bad > 12 ? TIGHT : DECENT;
  return *weigh = bad;
}

/* The demerits of the line f from a's break to a break with penalty pi
 * (flagged: a hyphen; at_end: the paragraph's end), badness bad and
 * fitness fit, too_many: it makes a hyphen run over the limit. */
static double line_demerits(const LbParams *p, const Active *a, const LineFit *f, double bad,
                            int fit, double pi, bool flagged, bool at_end, bool too_many)
{
  double d = p->line_penalty + bad;
  d = d * d;
  if (pi > 0)
    d += pi * pi;
  else if (pi > -LB_INFINITY)
    d -= pi * pi;
  if (a->flagged) {
    if (flagged)
      d += p->double_hyphen_demerits;
    else if (at_end)
      d += p->final_hyphen_demerits;
  }
  if (at_end)
    d += short_last(p, f, a->flagged);
  if (abs(fit - a->fitness) > 1)
    d += p->adj_demerits;
  if (too_many)
    d += 10 * p->double_hyphen_demerits;
  return d;
}

/* The line from active node a to break b as a candidate: its total
 * demerits (0 for the line of an artificial break) kept when the best for
 * its fitness class and hyphen run. A hyphen run over the limit is no
 * candidate before the final pass. */
static void consider(const KP *kp, Cands *cd, const Active *a, const LineFit *f, double bad,
                     int fit, double pi, bool flagged, bool at_end, bool artificial)
{
  const LbParams *p = kp->p;
  int run = flagged ? a->run + 1 : 0;
  /* runs are kept in RUNS classes, the last "RUNS - 1 or more": a limit
   * above RUNS - 1 could not be told apart (linebreak.h) */
  int limit = p->max_hyphen_run < RUNS - 1 ? p->max_hyphen_run : RUNS - 1;
  bool too_many = limit > 0 && run > limit;
  if (too_many && !kp->final_pass && !artificial)
    return;
  int h = run < RUNS ? run : RUNS - 1;
  double d = artificial ? 0 : line_demerits(p, a, f, bad, fit, pi, flagged, at_end, too_many);
  d += a->total;
  if (d <= cand_minimal(cd, fit, h)) {
    cd->minimal[fit][h] = d;
    cd->best_place[fit][h] = a->passive;
    cd->best_line[fit][h] = a->line + 1;
    cd->live |= 1u << (fit * RUNS + h);
    cd->ever |= 1u << (fit * RUNS + h);
    if (d < cd->minimum)
      cd->minimum = d;
  }
}

/* Unlink active node r (after prev, -1: the head) onto the free list;
 * returns the node that followed it. */
static long deactivate(KP *kp, long prev, long r)
{
  Active *a = ACT(kp, r);
  long nx = a->next;
  if (prev < 0)
    kp->head = nx;
  else
    ACT(kp, prev)->next = nx;
  a->next = kp->free_list;
  kp->free_list = r;
  kp->nactive--;
  return nx;
}

/* TeX's try_break (tex.web §829): every active node against the break b
 * (penalty pi, flagged: a hyphen); nodes that can no longer reach a line
 * are deactivated, and the best candidates become active nodes at b, one
 * group per line number where the line widths differ. */
static void try_break(KP *kp, size_t b, double pi, bool flagged)
{
  const Para *pp = kp->pp;
  Cands cd;
  cands_reset(&cd);
  size_t old_l = 0;
  double lw = 0;
  long prev = -1; /* -1: the list head */
  long r = kp->head;
  bool forced = pi <= -LB_INFINITY;
  bool at_end = b == pp->n - 1;

  for (;;) {
    size_t l = r < 0 ? (size_t)-1 : ACT(kp, r)->line + 1;
    if (l > old_l) {
      /* Create new active nodes for the best breaks so far, before r. */
      if (cd.minimum < AWFUL && (old_l != kp->easy_line || r < 0))
        prev = add_actives(kp, &cd, b, flagged, prev, r);
      if (r < 0)
        return;
      if (l > kp->easy_line) {
        lw = line_width(pp, kp->easy_line);
        old_l = (size_t)-2;
      } else {
        old_l = l;
        lw = line_width(pp, l - 1);
      }
    }

    Active *a = ACT(kp, r);
    kp->st->work++;
    LineFit f = measure(pp, a->start, b, lw);
    int fit;
    double weigh;
    double bad = line_badness(kp, &f, &weigh, &fit);

    bool stays, artificial = false;
    if (bad > INF_BAD || forced) {
      if (kp->final_pass && cd.minimum >= AWFUL && a->next < 0 && prev < 0 && bad > kp->threshold)
        artificial = true;
      else if (bad > kp->threshold) {
        r = deactivate(kp, prev, r);
        continue;
      }
      stays = false;
    } else {
      prev = r;
      if (bad > kp->threshold) {
        r = a->next;
        continue;
      }
      stays = true;
    }
    consider(kp, &cd, a, &f, weigh, fit, pi, flagged, at_end, artificial);
    r = stays ? a->next : deactivate(kp, prev, r);
  }
}

/* One pass; returns the best final active node's passive node, or -2 when the
 * pass found no breaking (-1 cannot happen: the end is always a break). */
static long kp_pass(KP *kp)
{
  const Para *pp = kp->pp;
  g_array_set_size(kp->active, 0);
  g_array_set_size(kp->passive, 0);
  kp->free_list = -1;
  kp->nactive = 0;
  long id = new_active(kp);
  Active *a = ACT(kp, id);
  *a = (Active){.passive = -1, .line = 0, .fitness = DECENT, .start = 0, .next = -1};
  kp->head = id;

  for (size_t i = 0; i < pp->n && kp->head >= 0; i++) {
    double pi;
    if (breakable(pp, i, kp->pass, &pi))
      try_break(kp, i, pi, pp->it[i].type == LB_PENALTY && pp->it[i].flagged);
  }
  if (kp->head < 0)
    return -2;

  /* Every remaining active node sits at the final forced break. */
  long best = -1;
  double bd = AWFUL;
  for (long r = kp->head; r >= 0; r = ACT(kp, r)->next)
    if (ACT(kp, r)->total < bd) {
      bd = ACT(kp, r)->total;
      best = r;
    }
  if (best < 0)
    return -2;
  if (kp->p->looseness != 0) {
    long target = (long)ACT(kp, best)->line + kp->p->looseness;
    long bestdiff = labs((long)ACT(kp, best)->line - target);
    for (long r = kp->head; r >= 0; r = ACT(kp, r)->next) {
      long diff = labs((long)ACT(kp, r)->line - target);
      if (diff < bestdiff || (diff == bestdiff && ACT(kp, r)->total < ACT(kp, best)->total)) {
        best = r;
        bestdiff = diff;
      }
    }
  }
  return ACT(kp, best)->passive;
}

static void emit_line(const Para *pp, GArray *lines, size_t start, size_t end, size_t lineno)
{
  LbLine ln = {0};
  ln.start = start < end ? start : end;
  ln.end = end;
  LineFit f = measure(pp, start, end, line_width(pp, lineno));
  ln.ratio = ratio_of(&f, &ln.overfull);
  ln.hyphen = pp->it[end].type == LB_PENALTY && pp->it[end].flagged;
  g_array_append_val(lines, ln);
}

static int kp_break(const Para *pp, const LbParams *p, GArray *lines, LbStats *st)
{
  KP kp = {.pp = pp, .p = p, .st = st};
  /* room for a paragraph of a dozen lines from the start (no doubling from one) */
  kp.active = g_array_sized_new(FALSE, FALSE, sizeof(Active), 32);
  kp.passive = g_array_sized_new(FALSE, FALSE, sizeof(Passive), 64);
  kp.easy_line = p->looseness == 0 ? (pp->nwidths > 0 ? pp->nwidths - 1 : 0) : (size_t)-3;
  long best = -2;
  int pass = 0;
  for (pass = 1; pass <= 4 && best < -1; pass++) {
    if (pass == 1 && p->tolerance < 0)
      continue;
    if (pass == 3 && p->emergency_stretch <= 0)
      continue;
    kp.pass = pass;
    kp.final_pass = pass == 4;
    kp.weigh_own = pass == 3;
    kp.threshold = pass == 1 ? p->tolerance : pass == 4 ? INF_BAD : p->tolerance2;
    kp.background_stretch = pass >= 3 ? p->emergency_stretch : 0;
    best = kp_pass(&kp);
  }
  pass--;
  st->passive = kp.passive->len;

  /* Walk back from the end; then emit in order. */
  GArray *ends = g_array_sized_new(FALSE, FALSE, sizeof(size_t), 32);
  for (long q = best; q >= 0; q = g_array_index(kp.passive, Passive, q).prev)
    g_array_append_val(ends, g_array_index(kp.passive, Passive, q).pos);
  if (ends->len == 0) { /* cannot happen (TeX's rule keeps a breaking); never return nothing */
    size_t last = pp->n - 1;
    g_array_append_val(ends, last);
  }
  size_t start = 0;
  for (guint k = ends->len; k-- > 0;) {
    size_t e = g_array_index(ends, size_t, k);
    emit_line(pp, lines, start, e, lines->len);
    start = start_after(pp, e);
  }
  g_array_free(ends, TRUE);
  g_array_free(kp.active, TRUE);
  g_array_free(kp.passive, TRUE);
  return pass;
}

/* ---- greedy first fit ----------------------------------------------------------- */

static void greedy_break(const Para *pp, GArray *lines, LbStats *st)
{
  size_t start = 0;
  size_t i = 0;
  long last_fit = -1, last_efit = -1;
  while (i < pp->n) {
    st->work++;
    double pi;
    if (!breakable(pp, i, 4, &pi) || (i < start && pi > -LB_INFINITY)) {
      i++;
      continue;
    }
    const LbItem *it = &pp->it[i];
    double lw = line_width(pp, lines->len);
    LineFit f = measure(pp, start, i, lw);
    bool fits = f.natural <= lw + LB_EPS;
    bool forced = pi <= -LB_INFINITY;
    if (fits && !forced) {
      if (it->type == LB_PENALTY && it->emergency)
        last_efit = (long)i;
      else
        last_fit = (long)i;
      i++;
      continue;
    }
    size_t e;
    if (fits)
      e = i; /* forced */
    else if (last_fit >= 0)
      e = (size_t)last_fit;
    else if (last_efit >= 0)
      e = (size_t)last_efit;
    else
      e = i; /* nothing fits: overfull */
    emit_line(pp, lines, start, e, lines->len);
    start = start_after(pp, e);
    last_fit = last_efit = -1;
    i = e + 1;
  }
}

/* ---- entry ---------------------------------------------------------------------- */

int lb_break_stats(const LbItem *items, size_t n, const double *widths, size_t nwidths,
                   const LbParams *p, LbMode mode, GArray *lines, LbStats *stats)
{
  LbStats dummy;
  LbStats *st = stats ? stats : &dummy;
  memset(st, 0, sizeof *st);
  g_array_set_size(lines, 0);
  if (n == 0)
    return mode == LB_GREEDY ? 0 : 1;
  LbParams defaults;
  if (!p) {
    lb_params_default(&defaults);
    p = &defaults;
  }
  static const double one_width = 1e9;
  if (nwidths == 0 || !widths) {
    widths = &one_width;
    nwidths = 1;
  }

  /* Append a finishing glue and a forced break when the items lack them. */
  LbItem *own = NULL;
  const LbItem *it = items;
  size_t m = n;
  if (!is_forced(&items[n - 1])) {
    size_t keep = n;
    while (keep > 0 && items[keep - 1].type == LB_GLUE)
      keep--;
    own = g_new(LbItem, n + 3);
    memcpy(own, items, n * sizeof *own);
    for (size_t k = keep; k < n; k++) /* dropped trailing glue; keeps the indices */
      own[k] = (LbItem){.type = LB_PENALTY, .penalty = LB_INFINITY};
    own[n] = (LbItem){.type = LB_PENALTY, .penalty = LB_INFINITY};
    own[n + 1] = (LbItem){.type = LB_GLUE, .stretch = LB_FIL};
    own[n + 2] = (LbItem){.type = LB_PENALTY, .penalty = -LB_INFINITY};
    it = own;
    m = n + 3;
  }

  Para pp = {.it = it, .n = m, .widths = widths, .nwidths = nwidths};
  /* the five running sums and pw in one allocation (a paragraph's: one malloc, not six) */
  G_STATIC_ASSERT(sizeof(double) == sizeof(size_t));
  double *sums = g_new(double, 6 * (m + 1));
  pp.w = sums;
  pp.y = sums + (m + 1);
  pp.z = sums + 2 * (m + 1);
  pp.fil = (size_t *)(void *)(sums + 3 * (m + 1));
  pp.next_box = (size_t *)(void *)(sums + 4 * (m + 1));
  pp.pw = sums + 5 * (m + 1);
  pp.pw[m] = 0;
  pp.w[0] = pp.y[0] = pp.z[0] = 0;
  pp.fil[0] = 0;
  for (size_t i = 0; i < m; i++) {
    const LbItem *x = &it[i];
    /* A broken font or a fuzzer may hand us NaN or negative glue: such
     * values count as 0 rather than poison every sum after them. */
    double w = x->type == LB_PENALTY || !isfinite(x->width) ? 0 : x->width;
    double y = x->type == LB_GLUE && isfinite(x->stretch) && x->stretch > 0 ? x->stretch : 0;
    double z = x->type == LB_GLUE && isfinite(x->shrink) && x->shrink > 0 ? x->shrink : 0;
    bool fil = x->type == LB_GLUE && x->stretch >= LB_FIL;
    pp.w[i + 1] = pp.w[i] + w;
    pp.y[i + 1] = pp.y[i] + (fil ? 0 : y);
    pp.z[i + 1] = pp.z[i] + z;
    pp.fil[i + 1] = pp.fil[i] + (fil ? 1 : 0);
    pp.pw[i] = x->type == LB_PENALTY && isfinite(x->width) ? x->width : 0;
  }
  pp.next_box[m] = m;
  for (size_t i = m; i-- > 0;)
    pp.next_box[i] = it[i].type == LB_BOX ? i : pp.next_box[i + 1];

  int pass;
  if (mode == LB_GREEDY) {
    greedy_break(&pp, lines, st);
    pass = 0;
  } else {
    pass = kp_break(&pp, p, lines, st);
  }
  /* An appended end reports n, as promised. */
  if (own && lines->len > 0) {
    LbLine *last = &g_array_index(lines, LbLine, lines->len - 1);
    if (last->end == n + 2)
      last->end = n;
    if (last->start > n)
      last->start = n;
  }

  g_free(sums);
  g_free(own);
  return pass;
}

int lb_break(const LbItem *items, size_t n, const double *widths, size_t nwidths, const LbParams *p,
             LbMode mode, GArray *lines)
{
  return lb_break_stats(items, n, widths, nwidths, p, mode, lines, NULL);
}
