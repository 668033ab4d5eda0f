/* test_linebreak.c: the line breaker on hand-built items. Widths are in
 * "characters" (a box of k letters is k wide); a space is glue 2/+1/-1 unless
 * a test says otherwise. The optimal breaker is checked against a brute-force
 * search over every breaking of small random paragraphs, with the same
 * demerits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "linebreak.h"

/* ---- building items ---------------------------------------------------------- */

typedef struct {
  double space, stretch, shrink;
} Spc;

static const Spc SPC = {2, 1, 1};

/* Words separated by spaces; '-' inside a word is a hyphenation point
 * (flagged, width 1, penalty 50); '|' is a forced break; '~' an emergency
 * point between letters. No final ending: lb_break appends it. */
static GArray *items_of(const char *t, Spc sp)
{
  GArray *a = g_array_new(FALSE, TRUE, sizeof(LbItem));
  for (const char *p = t; *p;) {
    LbItem x = {0};
    if (*p == ' ') {
      x = (LbItem){.type = LB_GLUE, .width = sp.space, .stretch = sp.stretch, .shrink = sp.shrink};
      p++;
    } else if (*p == '-') {
      x = (LbItem){
          .type = LB_PENALTY, .width = 1, .penalty = 50, .flagged = true, .hyphenation = true};
      p++;
    } else if (*p == '~') {
      x = (LbItem){.type = LB_PENALTY, .penalty = 1000, .emergency = true};
      p++;
    } else if (*p == '|') {
      x = (LbItem){.type = LB_PENALTY, .penalty = -LB_INFINITY};
      p++;
    } else {
      size_t k = strcspn(p, " -~|");
      x = (LbItem){.type = LB_BOX, .width = (double)k};
      p += k;
    }
    g_array_append_val(a, x);
  }
  return a;
}

static GArray *run(GArray *it, double w, LbMode mode, int *pass, LbStats *st)
{
  GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
  LbParams p;
  lb_params_default(&p);
  int ps = lb_break_stats((const LbItem *)it->data, it->len, &w, 1, &p, mode, lines, st);
  if (pass)
    *pass = ps;
  return lines;
}

#define LINE(lines, i) (&g_array_index((lines), LbLine, (i)))

/* ---- a reference: TeX's demerits of a given breaking, and brute force --------- */

typedef struct {
  const LbItem *it;
  size_t n;
  const double *widths;
  size_t nwidths;
  const LbParams *p;
  double threshold;
  int pass; /* 3: the emergency pass, feasible with p->emergency_stretch, weighed without */
} Ref;

static size_t ref_next_box(const Ref *r, size_t i)
{
  while (i < r->n && r->it[i].type != LB_BOX)
    i++;
  return i;
}

static bool ref_breakable(const Ref *r, size_t i, double *pi)
{
  const LbItem *x = &r->it[i];
  if (x->type == LB_GLUE) {
    *pi = 0;
    return i > 0 && r->it[i - 1].type == LB_BOX;
  }
  if (x->type != LB_PENALTY || x->penalty >= LB_INFINITY)
    return false;
  if (x->hyphenation && r->pass < 2)
    return false;
  if (x->emergency && r->pass < 4)
    return false;
  *pi = x->penalty;
  return true;
}

/* Demerits of the breaking ends[0..k) (the last must be n-1), or INFINITY
 * when a line is infeasible. Straight from the definitions, no sharing. */
static double ref_demerits(const Ref *r, const size_t *ends, size_t k)
{
  double total = 0;
  int prev_fit = 2;
  bool prev_flag = false;
  int run = 0;
  size_t start = 0;
  for (size_t j = 0; j < k; j++) {
    size_t b = ends[j];
    double pi;
    if (!ref_breakable(r, b, &pi))
      return INFINITY;
    double nat = 0, st = 0, sh = 0;
    bool fil = false;
    for (size_t i = start; i < b; i++) {
      const LbItem *x = &r->it[i];
      if (x->type == LB_PENALTY) {
        if (x->penalty <= -LB_INFINITY)
          return INFINITY; /* passed over a forced break */
        continue;
      }
      nat += x->width;
      if (x->type == LB_GLUE) {
        if (x->stretch >= LB_FIL)
          fil = true;
        else
          st += x->stretch;
        sh += x->shrink;
      }
    }
    if (r->it[b].type == LB_PENALTY)
      nat += r->it[b].width;
    double lw = r->widths[j < r->nwidths ? j : r->nwidths - 1];
    double t = lw - nat, bad, feasible;
    int fit;
    if (t > 0) {
      if (fil) {
        bad = 0;
      } else if (st <= 0) {
        bad = 10000;
      } else {
        bad = 100 * pow(t / st, 3);
        if (bad > 10000)
          bad = 10000;
      }
      fit = bad > 99 ? 0 : bad > 12 ? 1 : 2;
      double es = r->pass == 3 ? r->p->emergency_stretch : 0;
      feasible = fil ? 0 : st + es <= 0 ? 10000 : fmin(10000, 100 * pow(t / (st + es), 3));
    } else {
      if (-t > sh + 1e-9)
        return INFINITY;
      bad = t == 0 ? 0 : 100 * pow(-t / sh, 3);
      if (bad > 10000)
        bad = 10000;
      fit = bad > 12 ? 3 : 2;
      feasible = bad;
    }
    if (feasible > r->threshold)
      return INFINITY;
    double d = pow(r->p->line_penalty + bad, 2);
    if (pi > 0)
      d += pi * pi;
    else if (pi > -LB_INFINITY)
      d -= pi * pi;
    bool flag = r->it[b].type == LB_PENALTY && r->it[b].flagged;
    run = flag ? run + 1 : 0;
    if (r->p->max_hyphen_run > 0 && run > r->p->max_hyphen_run)
      return INFINITY; /* passes 1-3 only: the reference is not used for pass 4 */
    if (prev_flag && flag)
      d += r->p->double_hyphen_demerits;
    else if (prev_flag && j == k - 1)
      d += r->p->final_hyphen_demerits;
    if (abs(fit - prev_fit) > 1)
      d += r->p->adj_demerits;
    total += d;
    prev_fit = fit;
    prev_flag = flag;
    start = ref_next_box(r, b + 1);
    if (start > b + 1 && j + 1 < k && ends[j + 1] < start)
      start = ends[j + 1];
  }
  return total;
}

/* The least demerits over every subset of the candidate breaks. */
static double ref_best(const Ref *r)
{
  size_t cand[24], nc = 0;
  for (size_t i = 0; i + 1 < r->n; i++) {
    double pi;
    if (ref_breakable(r, i, &pi))
      cand[nc++] = i;
  }
  assert_true(nc <= 20);
  double best = INFINITY;
  size_t ends[24];
  for (unsigned long mask = 0; mask < (1ul << nc); mask++) {
    size_t k = 0;
    for (size_t c = 0; c < nc; c++)
      if (mask & (1ul << c))
        ends[k++] = cand[c];
    ends[k++] = r->n - 1;
    double d = ref_demerits(r, ends, k);
    if (d < best)
      best = d;
  }
  return best;
}

/* Random paragraphs: KP's result has the least demerits, and greedy never
 * does better. Half of them have an emergency stretch, so that some reach
 * the emergency pass (feasible with it, weighed without: linebreak.c's
 * line_badness); the final pass is not checked. */
static void test_matches_brute_force(void **state)
{
  (void)state;
  GRand *rnd = g_rand_new_with_seed(5);
  int checked = 0, hyph_pass = 0, emergency_pass = 0;
  for (int trial = 0; trial < 400; trial++) {
    GString *s = g_string_new(NULL);
    int words = g_rand_int_range(rnd, 4, 9);
    int pts = 0;
    for (int w = 0; w < words; w++) {
      if (w)
        g_string_append_c(s, ' ');
      int len = g_rand_int_range(rnd, 1, 8);
      for (int c = 0; c < len; c++) {
        g_string_append_c(s, 'a');
        if (c > 0 && c + 2 < len && pts < 6 && g_rand_int_range(rnd, 0, 3) == 0) {
          g_string_append_c(s, '-');
          pts++;
        }
      }
    }
    Spc sp = {2, g_rand_double_range(rnd, 0.5, 1.5), g_rand_double_range(rnd, 0.3, 1.0)};
    GArray *it = items_of(s->str, sp);
    LbItem end[3] = {{.type = LB_PENALTY, .penalty = LB_INFINITY},
                     {.type = LB_GLUE, .stretch = LB_FIL},
                     {.type = LB_PENALTY, .penalty = -LB_INFINITY}};
    g_array_append_vals(it, end, 3);
    double w = g_rand_int_range(rnd, 8, 20);
    LbParams p;
    lb_params_default(&p);
    p.double_hyphen_demerits = g_rand_int_range(rnd, 0, 2) ? 10000 : 3e6;
    p.max_hyphen_run = g_rand_int_range(rnd, 0, 3); /* 0: no limit */
    if (g_rand_int_range(rnd, 0, 2))
      p.emergency_stretch = g_rand_double_range(rnd, 1, 6);
    GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
    int pass = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
    assert_true(lines->len >= 1);
    assert_int_equal(LINE(lines, lines->len - 1)->end, it->len - 1);
    if (pass <= 3) {
      Ref r = {(const LbItem *)it->data,
               it->len,
               &w,
               1,
               &p,
               pass == 1 ? p.tolerance : p.tolerance2, /* pass 3 too */
               pass};
      size_t ends[64];
      for (guint i = 0; i < lines->len; i++)
        ends[i] = LINE(lines, i)->end;
      double got = ref_demerits(&r, ends, lines->len);
      double best = ref_best(&r);
      assert_true(isfinite(got));
      if (fabs(got - best) > 1e-6 * fmax(1, best))
        fail_msg("trial %d \"%s\" w=%g: KP %g, brute force %g", trial, s->str, w, got, best);
      checked++;
      hyph_pass += pass == 2;
      emergency_pass += pass == 3;
    }
    g_array_free(lines, TRUE);
    g_array_free(it, TRUE);
    g_string_free(s, TRUE);
  }
  assert_true(checked > 100);
  assert_true(hyph_pass > 5);
  assert_true(emergency_pass > 5);
  g_rand_free(rnd);
}

/* ---- named cases -------------------------------------------------------------- */

static void test_not_greedy(void **state)
{
  (void)state;
  /* Greedy fills "aaa bbb" at natural width (ratio 2); optimal shrinks
   * "aaa bbb c" onto the first line. */
  GArray *it = items_of("aaa bbb c ddd", SPC);
  int pass;
  GArray *opt = run(it, 10, LB_OPTIMAL, &pass, NULL);
  GArray *gr = run(it, 10, LB_GREEDY, NULL, NULL);
  assert_int_equal(pass, 1);
  assert_int_equal(opt->len, 2);
  assert_int_equal(gr->len, 2);
  assert_int_equal(LINE(opt, 0)->end, 5);
  assert_int_equal(LINE(gr, 0)->end, 3);
  assert_true(fabs(LINE(opt, 0)->ratio + 0.5) < 1e-9);
  assert_true(fabs(LINE(gr, 0)->ratio - 2.0) < 1e-9);
  assert_int_equal(LINE(opt, 1)->start, 6); /* the glue after the break is dropped */
  assert_false(LINE(opt, 0)->overfull);
  g_array_free(opt, TRUE);
  g_array_free(gr, TRUE);
  g_array_free(it, TRUE);
}

static void test_greedy_first_fit(void **state)
{
  (void)state;
  GArray *it = items_of("aa bb cc dd ee ff gg", SPC);
  GArray *gr = run(it, 10, LB_GREEDY, NULL, NULL);
  /* "aa bb cc" = 10 fits exactly; then "dd ee ff" = 10; then "gg". */
  assert_int_equal(gr->len, 3);
  assert_int_equal(LINE(gr, 0)->end, 5);
  assert_int_equal(LINE(gr, 1)->start, 6);
  assert_int_equal(LINE(gr, 1)->end, 11);
  assert_true(fabs(LINE(gr, 0)->ratio) < 1e-9);
  g_array_free(gr, TRUE);
  g_array_free(it, TRUE);
}

static void test_no_feasible_emergency(void **state)
{
  (void)state;
  /* A 30-letter "URL" with emergency points between its letters, in lines
   * 10 wide: no overfull line, and the pass is the final one. */
  GString *s = g_string_new("see ");
  for (int i = 0; i < 30; i++) {
    if (i)
      g_string_append_c(s, '~');
    g_string_append_c(s, 'u');
  }
  g_string_append(s, " now");
  GArray *it = items_of(s->str, SPC);
  int pass;
  GArray *opt = run(it, 10, LB_OPTIMAL, &pass, NULL);
  assert_int_equal(pass, 4);
  for (guint i = 0; i < opt->len; i++)
    assert_false(LINE(opt, i)->overfull);
  assert_true(opt->len >= 3);
  GArray *gr = run(it, 10, LB_GREEDY, NULL, NULL);
  for (guint i = 0; i < gr->len; i++)
    assert_false(LINE(gr, i)->overfull);
  g_array_free(gr, TRUE);
  g_array_free(opt, TRUE);
  g_array_free(it, TRUE);
  g_string_free(s, TRUE);

  /* Without emergency points the long word is one overfull line, and the
   * rest is still set. */
  it = items_of("see uuuuuuuuuuuuuuuuuuuuuu now", SPC);
  opt = run(it, 10, LB_OPTIMAL, &pass, NULL);
  assert_int_equal(pass, 4);
  int over = 0;
  for (guint i = 0; i < opt->len; i++)
    over += LINE(opt, i)->overfull;
  assert_int_equal(over, 1);
  g_array_free(opt, TRUE);
  g_array_free(it, TRUE);
}

static void test_hyphenated_break(void **state)
{
  (void)state;
  /* "aaaa bbbbbbbb" in 10: pass 1 cannot set it (the long word does not
   * fit after "aaaa", and "aaaa" alone is too loose); pass 2 breaks at the
   * hyphenation point and flags the line. */
  GArray *it = items_of("aaaa bbbb-bbbb cccc", SPC);
  int pass;
  GArray *opt = run(it, 10, LB_OPTIMAL, &pass, NULL);
  assert_int_equal(pass, 2);
  assert_int_equal(opt->len, 2);
  assert_int_equal(LINE(opt, 0)->end, 3);
  assert_true(LINE(opt, 0)->hyphen);
  assert_false(LINE(opt, 1)->hyphen);
  assert_int_equal(LINE(opt, 1)->start, 4);
  g_array_free(opt, TRUE);
  g_array_free(it, TRUE);
}

static void test_one_word_and_empty(void **state)
{
  (void)state;
  GArray *it = items_of("hello", SPC);
  int pass;
  GArray *opt = run(it, 100, LB_OPTIMAL, &pass, NULL);
  assert_int_equal(pass, 1);
  assert_int_equal(opt->len, 1);
  assert_int_equal(LINE(opt, 0)->start, 0);
  assert_int_equal(LINE(opt, 0)->end, 1); /* n: the appended end */
  assert_true(LINE(opt, 0)->ratio == 0);
  assert_false(LINE(opt, 0)->overfull);
  g_array_free(opt, TRUE);

  /* No items: no lines, in both modes. */
  GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
  double w = 10;
  lb_break(NULL, 0, &w, 1, NULL, LB_OPTIMAL, lines);
  assert_int_equal(lines->len, 0);
  lb_break(NULL, 0, &w, 1, NULL, LB_GREEDY, lines);
  assert_int_equal(lines->len, 0);

  /* Only the ending: one empty line. */
  LbItem end[3] = {{.type = LB_PENALTY, .penalty = LB_INFINITY},
                   {.type = LB_GLUE, .stretch = LB_FIL},
                   {.type = LB_PENALTY, .penalty = -LB_INFINITY}};
  lb_break(end, 3, &w, 1, NULL, LB_OPTIMAL, lines);
  assert_int_equal(lines->len, 1);
  assert_int_equal(LINE(lines, 0)->end, 2);
  g_array_free(lines, TRUE);
  g_array_free(it, TRUE);
}

static void test_forced_breaks(void **state)
{
  (void)state;
  /* A forced break in the middle (after finishing glue, as \\ does), and
   * two in a row (an empty line). */
  GArray *it = g_array_new(FALSE, TRUE, sizeof(LbItem));
  LbItem box = {.type = LB_BOX, .width = 3};
  LbItem sp = {.type = LB_GLUE, .width = 2, .stretch = 1, .shrink = 1};
  LbItem fil = {.type = LB_GLUE, .stretch = LB_FIL};
  LbItem forced = {.type = LB_PENALTY, .penalty = -LB_INFINITY};
  g_array_append_val(it, box);    /* 0 */
  g_array_append_val(it, sp);     /* 1 */
  g_array_append_val(it, box);    /* 2 */
  g_array_append_val(it, fil);    /* 3 */
  g_array_append_val(it, forced); /* 4 */
  g_array_append_val(it, forced); /* 5 */
  g_array_append_val(it, box);    /* 6 */
  for (int mode = 0; mode < 2; mode++) {
    GArray *lines = run(it, 40, mode ? LB_GREEDY : LB_OPTIMAL, NULL, NULL);
    assert_int_equal(lines->len, 3);
    assert_int_equal(LINE(lines, 0)->end, 4);
    assert_int_equal(LINE(lines, 1)->end, 5);
    assert_int_equal(LINE(lines, 1)->start, 5); /* empty */
    assert_int_equal(LINE(lines, 2)->start, 6);
    assert_int_equal(LINE(lines, 2)->end, 7);
    assert_true(LINE(lines, 0)->ratio == 0); /* the fil glue takes the rest */
    g_array_free(lines, TRUE);
  }
  g_array_free(it, TRUE);
}

static void test_widths_per_line(void **state)
{
  (void)state;
  /* A narrow first line (a drop cap, a hanging indent): widths {9, 20}
   * give "aaaa bbbb" (shrunk) / "cccc dddd eeee"; a uniform 20 would give
   * "aaaa bbbb cccc dddd" / "eeee". */
  GArray *it = items_of("aaaa bbbb cccc dddd eeee", SPC);
  double w[2] = {9, 20};
  GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
  LbParams p;
  lb_params_default(&p);
  lb_break((const LbItem *)it->data, it->len, w, 2, &p, LB_OPTIMAL, lines);
  assert_int_equal(lines->len, 2);
  assert_int_equal(LINE(lines, 0)->end, 3);
  assert_true(fabs(LINE(lines, 0)->ratio + 1) < 1e-9);
  lb_break((const LbItem *)it->data, it->len, &w[1], 1, &p, LB_OPTIMAL, lines);
  assert_int_equal(lines->len, 2);
  assert_int_equal(LINE(lines, 0)->end, 7);
  g_array_free(lines, TRUE);
  g_array_free(it, TRUE);
}

/* [wmin, wmax) words of [lmin, lmax) letters, each with a hyphenation
 * point ('-') after its first letter and before its last three at random. */
static GString *random_words(GRand *rnd, int wmin, int wmax, int lmin, int lmax)
{
  GString *s = g_string_new(NULL);
  int words = g_rand_int_range(rnd, wmin, wmax);
  for (int w = 0; w < words; w++) {
    if (w)
      g_string_append_c(s, ' ');
    int len = g_rand_int_range(rnd, lmin, lmax);
    for (int c = 0; c < len; c++) {
      g_string_append_c(s, 'a');
      if (c >= 1 && c + 3 < len && g_rand_int_range(rnd, 0, 2) == 0)
        g_string_append_c(s, '-');
    }
  }
  return s;
}

/* Two hyphenated lines in a row are avoided when they cost enough. */
static void test_adjacent_hyphens(void **state)
{
  (void)state;
  GRand *rnd = g_rand_new_with_seed(11);
  int found = 0;
  for (int trial = 0; trial < 3000 && found < 3; trial++) {
    GString *s = random_words(rnd, 6, 12, 2, 9);
    GArray *it = items_of(s->str, SPC);
    double w = g_rand_int_range(rnd, 9, 16);
    LbParams p;
    lb_params_default(&p);
    p.tolerance = -1; /* straight to the hyphenating pass */
    p.double_hyphen_demerits = 0;
    GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
    int pass = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
    bool adjacent = false;
    for (guint i = 1; i < lines->len; i++)
      adjacent |= LINE(lines, i - 1)->hyphen && LINE(lines, i)->hyphen;
    if (pass == 2 && adjacent) {
      p.double_hyphen_demerits = 1e9;
      int pass2 = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
      bool still = false;
      for (guint i = 1; i < lines->len; i++)
        still |= LINE(lines, i - 1)->hyphen && LINE(lines, i)->hyphen;
      /* Either it finds another breaking, or there is none in this pass
       * (the brute-force test checks optimality with these demerits). */
      if (pass2 == 2 && !still)
        found++;
    }
    g_array_free(lines, TRUE);
    g_array_free(it, TRUE);
    g_string_free(s, TRUE);
  }
  assert_true(found >= 1);
  g_rand_free(rnd);
}

/* The longest run of consecutive lines ending at a flagged break. */
static int longest_run(const GArray *lines)
{
  int run = 0, most = 0;
  for (guint i = 0; i < lines->len; i++) {
    run = LINE(lines, i)->hyphen ? run + 1 : 0;
    most = run > most ? run : most;
  }
  return most;
}

/* max_hyphen_run: paragraphs whose best breaking (with no double-hyphen
 * demerits) has three hyphenated lines in a row get at most two, or go to
 * a later pass. */
static void test_hyphen_run(void **state)
{
  (void)state;
  GRand *rnd = g_rand_new_with_seed(17);
  int found = 0;
  for (int trial = 0; trial < 4000 && found < 5; trial++) {
    GString *s = random_words(rnd, 10, 20, 3, 10);
    GArray *it = items_of(s->str, SPC);
    double w = g_rand_int_range(rnd, 9, 16);
    LbParams p;
    lb_params_default(&p);
    p.tolerance = -1;
    p.double_hyphen_demerits = 0;
    GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
    int pass = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
    if (pass == 2 && longest_run(lines) >= 3) {
      p.max_hyphen_run = 2;
      int pass2 = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
      assert_true(pass2 >= 2);
      if (pass2 < 4)
        assert_true(longest_run(lines) <= 2);
      if (pass2 == 2)
        found++;
    }
    g_array_free(lines, TRUE);
    g_array_free(it, TRUE);
    g_string_free(s, TRUE);
  }
  assert_true(found >= 1);
  g_rand_free(rnd);
}

/* Emergency stretch accepts a very loose line; max_ratio sends the
 * paragraph to the final pass, which breaks the long word instead. */
static void test_max_ratio(void **state)
{
  (void)state;
  GArray *it = items_of("aaaa bbbb c~c~c~c~c~c~c~c~c~c~c~c dd", SPC);
  double w = 20;
  LbParams p;
  lb_params_default(&p);
  p.emergency_stretch = 20;
  GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
  int pass = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
  assert_int_equal(pass, 3);
  assert_int_equal(LINE(lines, 0)->end, 3);
  assert_true(LINE(lines, 0)->ratio > 9);
  p.max_ratio = 2;
  pass = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
  assert_int_equal(pass, 4);
  for (guint i = 0; i + 1 < lines->len; i++) {
    assert_true(LINE(lines, i)->ratio <= 2);
    assert_false(LINE(lines, i)->overfull);
  }
  assert_true(g_array_index(it, LbItem, LINE(lines, 0)->end).emergency);
  g_array_free(lines, TRUE);
  g_array_free(it, TRUE);
}

/* ---- the last line ---------------------------------------------------------------- */

/* The natural width of the paragraph's last line and whether it holds a
 * word space. */
static double last_width(const GArray *it, const GArray *lines, bool *glue)
{
  const LbLine *ln = LINE(lines, lines->len - 1);
  double w = 0;
  *glue = false;
  for (size_t i = ln->start; i < ln->end && i < it->len; i++) {
    const LbItem *x = &g_array_index(it, LbItem, i);
    if (x->type == LB_BOX)
      w += x->width;
    else if (x->type == LB_GLUE) {
      w += x->width;
      *glue = true;
    }
  }
  return w;
}

/* A last line narrower than short_last_width costs short_last_demerits:
 * paragraphs whose best breaking ends in a short line get a longer one
 * when one exists in the same pass, and never a shorter one. */
static void test_short_last_line(void **state)
{
  (void)state;
  GRand *rnd = g_rand_new_with_seed(23);
  int found = 0;
  for (int trial = 0; trial < 3000 && found < 5; trial++) {
    GString *s = random_words(rnd, 6, 14, 1, 8);
    GArray *it = items_of(s->str, SPC);
    double w = g_rand_int_range(rnd, 12, 20);
    LbParams p;
    lb_params_default(&p);
    GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
    int pass = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
    bool glue;
    double before = last_width(it, lines, &glue);
    if (lines->len >= 2 && before < 3) {
      p.short_last_width = 3;
      int pass2 = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
      double after = last_width(it, lines, &glue);
      if (pass2 == pass) {
        assert_true(after >= before);
        if (after >= 3)
          found++;
      }
    }
    g_array_free(lines, TRUE);
    g_array_free(it, TRUE);
    g_string_free(s, TRUE);
  }
  assert_true(found >= 1);
  g_rand_free(rnd);
}

/* The "mem-/ory." case: a last line that is only the end of a hyphenated
 * word costs extra, on top of final_hyphen_demerits. */
static void test_hyphen_remnant(void **state)
{
  (void)state;
  GRand *rnd = g_rand_new_with_seed(29);
  int found = 0;
  for (int trial = 0; trial < 4000 && found < 3; trial++) {
    GString *s = random_words(rnd, 6, 14, 3, 10);
    GArray *it = items_of(s->str, SPC);
    double w = g_rand_int_range(rnd, 10, 18);
    LbParams p;
    lb_params_default(&p);
    p.tolerance = -1;
    GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
    int pass = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
    bool glue;
    double rem = last_width(it, lines, &glue);
    bool remnant = lines->len >= 2 && LINE(lines, lines->len - 2)->hyphen && !glue;
    if (remnant && rem >= 2 && rem < 4) { /* not under short_last_width itself */
      p.short_last_width = 2;
      p.short_last_demerits = 1e7;
      int pass2 = lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
      last_width(it, lines, &glue);
      bool still = LINE(lines, lines->len - 2)->hyphen && !glue;
      if (pass2 == pass && !still)
        found++;
    }
    g_array_free(lines, TRUE);
    g_array_free(it, TRUE);
    g_string_free(s, TRUE);
  }
  assert_true(found >= 1);
  g_rand_free(rnd);
}

/* The values the layout reads: TeX's \brokenpenalty, the rule off. */
static void test_defaults(void **state)
{
  (void)state;
  LbParams p;
  lb_params_default(&p);
  assert_true(p.broken_penalty == 100);
  assert_true(p.short_last_width == 0);
  assert_true(p.final_hyphen_demerits == 5000);
}

/* ---- work grows linearly ---------------------------------------------------------- */

static GArray *big_para(size_t words, GRand *rnd, bool emergency)
{
  GArray *a = g_array_new(FALSE, TRUE, sizeof(LbItem));
  for (size_t w = 0; w < words; w++) {
    if (w) {
      LbItem g = {.type = LB_GLUE, .width = 2, .stretch = 1, .shrink = 0.7};
      g_array_append_val(a, g);
    }
    int len = g_rand_int_range(rnd, 1, 11);
    if (emergency) {
      for (int c = 0; c < len; c++) {
        if (c) {
          LbItem e = {.type = LB_PENALTY, .penalty = 1000, .emergency = true};
          g_array_append_val(a, e);
        }
        LbItem b = {.type = LB_BOX, .width = 1};
        g_array_append_val(a, b);
      }
    } else {
      LbItem b = {.type = LB_BOX, .width = len};
      g_array_append_val(a, b);
    }
  }
  return a;
}

static void check_linear(bool emergency, double width)
{
  GRand *rnd = g_rand_new_with_seed(3);
  LbStats st1, st10;
  GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
  LbParams p;
  lb_params_default(&p);
  if (emergency)
    p.tolerance = p.tolerance2 = 0.5; /* force the final pass */
  GArray *a = big_para(2000, rnd, emergency);
  lb_break_stats((const LbItem *)a->data, a->len, &width, 1, &p, LB_OPTIMAL, lines, &st1);
  g_array_free(a, TRUE);
  a = big_para(20000, rnd, emergency);
  int pass =
      lb_break_stats((const LbItem *)a->data, a->len, &width, 1, &p, LB_OPTIMAL, lines, &st10);
  if (emergency)
    assert_int_equal(pass, 4);
  double ratio = (double)st10.work / (double)st1.work;
  print_message("work %llu -> %llu (x%.2f), max active %zu -> %zu\n", st1.work, st10.work, ratio,
                st1.max_active, st10.max_active);
  assert_true(ratio > 7 && ratio < 13);
  assert_true(st10.max_active < 4 * st1.max_active + 8);
  g_array_free(a, TRUE);
  g_array_free(lines, TRUE);
  g_rand_free(rnd);
}

static void test_linear_work(void **state)
{
  (void)state;
  check_linear(false, 60);
  check_linear(true, 40);
}

/* looseness asks for a longer (or shorter) paragraph when one is feasible. */
static void test_looseness(void **state)
{
  (void)state;
  GArray *it = items_of("aaa bbb ccc ddd eee fff ggg hhh iii jjj kkk lll mmm nnn", SPC);
  double w = 26;
  LbParams p;
  lb_params_default(&p);
  p.tolerance = -1;
  p.tolerance2 = 5000;
  GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
  lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
  guint normal = lines->len;
  p.looseness = 1;
  lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
  assert_int_equal(lines->len, normal + 1);
  p.looseness = -1;
  lb_break((const LbItem *)it->data, it->len, &w, 1, &p, LB_OPTIMAL, lines);
  assert_true(lines->len <= normal);
  g_array_free(lines, TRUE);
  g_array_free(it, TRUE);
}

/* NaN and negative values (a broken font, a fuzzer) give lines, not a
 * crash or an empty result. */
static void test_bad_numbers(void **state)
{
  (void)state;
  GArray *it = items_of("aaa bbb ccc ddd eee fff", SPC);
  g_array_index(it, LbItem, 2).width = NAN;
  g_array_index(it, LbItem, 3).stretch = -5;
  g_array_index(it, LbItem, 5).shrink = NAN;
  LbItem pen = {.type = LB_PENALTY, .penalty = NAN};
  g_array_insert_val(it, 4, pen);
  double widths[2] = {NAN, 10};
  GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
  for (int mode = 0; mode < 2; mode++) {
    lb_break((const LbItem *)it->data, it->len, widths, 2, NULL, mode ? LB_GREEDY : LB_OPTIMAL,
             lines);
    assert_true(lines->len >= 1);
    assert_int_equal(LINE(lines, lines->len - 1)->end, it->len);
    for (guint i = 1; i < lines->len; i++)
      assert_true(LINE(lines, i)->start >= LINE(lines, i - 1)->end);
  }
  g_array_free(lines, TRUE);
  g_array_free(it, TRUE);
}

/* A 1 MB word with no break at all: one overfull line, quickly. */
static void test_huge_word(void **state)
{
  (void)state;
  LbItem box = {.type = LB_BOX, .width = 1e6 * 5};
  GArray *lines = g_array_new(FALSE, FALSE, sizeof(LbLine));
  double w = 300;
  LbStats st;
  lb_break_stats(&box, 1, &w, 1, NULL, LB_OPTIMAL, lines, &st);
  assert_int_equal(lines->len, 1);
  assert_true(LINE(lines, 0)->overfull);
  assert_true(st.work < 100);
  g_array_free(lines, TRUE);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_not_greedy),          cmocka_unit_test(test_greedy_first_fit),
      cmocka_unit_test(test_matches_brute_force), cmocka_unit_test(test_no_feasible_emergency),
      cmocka_unit_test(test_hyphenated_break),    cmocka_unit_test(test_one_word_and_empty),
      cmocka_unit_test(test_forced_breaks),       cmocka_unit_test(test_widths_per_line),
      cmocka_unit_test(test_adjacent_hyphens),    cmocka_unit_test(test_hyphen_run),
      cmocka_unit_test(test_max_ratio),           cmocka_unit_test(test_short_last_line),
      cmocka_unit_test(test_hyphen_remnant),      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_linear_work),         cmocka_unit_test(test_huge_word),
      cmocka_unit_test(test_bad_numbers),         cmocka_unit_test(test_looseness),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
