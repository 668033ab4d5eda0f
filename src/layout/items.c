/* layout/items.c: a shaped paragraph cut into the line breaker's boxes,
 * glue and penalties (linebreak.h) at its break opportunities: word
 * spaces, hard breaks, hyphenation points, URL and code break points, and,
 * in a word wider than the line, last-resort points with the mark drawn
 * there; an inline image is one box. Each item remembers its bytes and
 * the mark a break there draws (Meta) for lines.c, which sets the lines. */
#include "layout/internal.h"

#include <stdlib.h>
#include <string.h>

static void push(GArray *items, GArray *meta, LbItem it, size_t a, size_t b, MetaKind k,
                 MarkKind mk)
{
  g_array_append_val(items, it);
  Meta m = {a, b, k, (guint8)mk};
  g_array_append_val(meta, m);
}

static bool is_dash(gunichar ch)
{
  return ch == '-' || ch == 0x2010 || ch == 0x2013 || ch == 0x2014;
}

/* May the line break before character k (not a space)? Where pango's rules
 * (UAX 14) say so, except inside a code span or a URL (they have their own
 * break points, build_word) and before a note mark (it sits against its
 * word). */
static inline bool break_before(const Shaped *sh, const guint8 *flags, size_t flen, int k)
{
  if (!sh->log[k].is_line_break)
    return false;
  guint8 fa = flag_at(flags, flen, (size_t)sh->char_byte[k]);
  guint8 fp = flag_at(flags, flen, (size_t)sh->char_byte[k - 1]);
  if ((fa & F_MARK) && !(fp & F_MARK))
    return false;
  return !(fa & fp & (F_CODE | F_URL));
}

/* The kinds of break inside a word (linebreak.h: emergency points). */
typedef enum { P_NONE, P_HYPH, P_URL, P_SPAN, P_CODE, P_LETTER } PointKind;

/* A break point inside a URL, before byte `at`: after / (not inside "//"),
 * ., -, ?, &, =, with nothing added (TeX's url package). */
static bool url_point(const char *t, size_t at, size_t b0, size_t b1)
{
  if (at <= b0 + 1 || at >= b1)
    return false;
  char prev = t[at - 1];
  if (prev == '/')
    return t[at] != '/';
  return strchr(".-?&=", prev) != NULL && prev != '\0';
}

/* A break point inside code or an identifier, before byte `at`: after / \ .
 * : _ - (after both colons of ::), or between a lower-case and a capital
 * letter with another letter on each side; with at least two letters or
 * digits on each side (`before` and `after` count them: never "--" /
 * "update"). */
static bool code_point(const char *t, size_t at, int before, int after)
{
  if (before < 2 || after < 2)
    return false;
  char prev = t[at - 1], next = t[at];
  if (prev == ':' && next == ':')
    return false;
  if (strchr("/\\.:_-", prev) && prev != '\0')
    return !strchr("/\\.:_-", next) || next == '\0';
  /* camelCase: two letters on each side of the cut within the name's part
   * (never "Roaming\x|Packs": a lone letter before the mark) */
  const char *p1 = g_utf8_prev_char(t + at), *n1 = g_utf8_next_char(t + at);
  gunichar pc = g_utf8_get_char(p1), nc = g_utf8_get_char(t + at);
  return g_unichar_islower(pc) && g_unichar_isupper(nc) && p1 > t &&
         g_unichar_isalpha(g_utf8_get_char(g_utf8_prev_char(p1))) &&
         g_unichar_isalpha(g_utf8_get_char(n1));
}

static bool alnum_byte(char c)
{
  return g_ascii_isalnum(c) || (unsigned char)c >= 0x80;
}

/* Does a prose word look like an identifier (snake_case, a::path, a/path,
 * camelCase) rather than a word of the language? */
static bool identifier_like(const char *t, size_t b0, size_t b1)
{
  for (size_t at = b0 + 1; at < b1; at++)
    if (t[at] == '_' || t[at] == '/' || (t[at] == ':' && t[at - 1] == ':') ||
        (g_ascii_islower(t[at - 1]) && g_ascii_isupper(t[at])))
      return true;
  return false;
}

/* The advance of the continuation mark in the font at byte `at`, or a
 * negative value when that font has no glyph for it. */
static double cont_width(const Shaped *sh, size_t at)
{
  if (!shape_has_char(sh, at, g_utf8_get_char(CONT_MARK)))
    return -1; /* not shaped: pango's box for a missing glyph costs a font */
  PangoFont *f = NULL;
  PangoGlyphString *g = shape_extra(sh, at, CONT_MARK, &f);
  double w = -1;
  if (f && g->num_glyphs > 0 && !(g->glyphs[0].glyph & PANGO_GLYPH_UNKNOWN_FLAG))
    w = pango_glyph_string_get_width(g) / (double)PANGO_SCALE;
  pango_glyph_string_free(g);
  if (f)
    g_object_unref(f);
  return w;
}

typedef struct {
  size_t at;
  PointKind kind;
} Point;

/* Does a glyph cluster start at byte `at`? Not inside a ligature ("ff" of
 * "different" is one glyph: a hyphen there would draw "diff-" / "erent"
 * while the text says "dif-" / "ferent"). Right to left: always. */
static bool cluster_start(const Shaped *sh, size_t at)
{
  const ShapeRun *r = shape_run_at(sh, at);
  if (!r || r->item->analysis.level % 2)
    return true;
  const PangoGlyphString *gs = r->glyphs;
  size_t off = (size_t)r->item->offset;
  int lo = 0, hi = gs->num_glyphs;
  while (lo < hi) { /* the first glyph whose cluster starts at or after at */
    int mid = (lo + hi) / 2;
    if (off + (size_t)gs->log_clusters[mid] < at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < gs->num_glyphs && off + (size_t)gs->log_clusters[lo] == at;
}

/* The break points inside the word [i, j) (bytes [b0, bw) without its note
 * marks), in order: hyphenation points (hp), URL points, and, when the word
 * is wider than the line, code points (ident), else in an inline code span
 * (cspan) the URL points after a / (P_SPAN: a last resort, nothing added;
 * not after - or ., which would read as part of an option or a name); then, in any piece between
 * them still wider than the line, points between any two characters. */
static void word_points_all(const Shaped *sh, const ParaStyle *ps, int i, int j, size_t bw,
                            const size_t *hp, guint nhp, bool url, bool ident, bool cspan,
                            double mark_w, GArray *pts)
{
  const char *t = sh->text;
  size_t b0 = (size_t)sh->char_byte[i];
  double limit = ps->width_pt - mark_w - 1;
  bool too_wide = shape_width_pt(sh, b0, bw) > limit;
  g_array_set_size(pts, 0);
  guint h = 0;
  /* letters and digits: in the word, before at (code points only need them) */
  bool count = ident && too_wide;
  int total = 0, before = 0;
  for (size_t x = b0; count && x < bw; x++)
    total += alnum_byte(t[x]);
  size_t counted = b0;
  for (int k = i + 1; k < j; k++) {
    size_t at = (size_t)sh->char_byte[k];
    if (at >= bw)
      break;
    for (; count && counted < at; counted++)
      before += alnum_byte(t[counted]);
    if (!sh->log[k].is_cursor_position)
      continue;
    while (h < nhp && b0 + hp[h] < at)
      h++;
    Point p = {at, P_NONE};
    if (h < nhp && b0 + hp[h] == at && cluster_start(sh, at))
      p.kind = P_HYPH;
    else if (url && url_point(t, at, b0, bw))
      p.kind = P_URL;
    else if (ident && too_wide && code_point(t, at, before, total - before))
      p.kind = P_CODE;
    else if (cspan && t[at - 1] == '/' && url_point(t, at, b0, bw))
      p.kind = P_SPAN;
    if (p.kind != P_NONE)
      g_array_append_val(pts, p);
  }
  if (!too_wide)
    return;
  /* pieces still too wide: every character boundary inside them */
  GArray *all = g_array_new(FALSE, FALSE, sizeof(Point));
  size_t from = b0;
  int kfrom = i; /* the character at `from` */
  guint q = 0;
  for (int k = i + 1; k <= j; k++) {
    size_t at = k < j ? (size_t)sh->char_byte[k] : bw;
    if (at > bw)
      at = bw;
    bool is_point = q < pts->len && g_array_index(pts, Point, q).at == at;
    if (is_point || at == bw) {
      if (shape_width_pt(sh, from, at) > limit)
        for (int m = kfrom + 1; m < j && (size_t)sh->char_byte[m] < at; m++) {
          size_t x = (size_t)sh->char_byte[m];
          if (x > from && sh->log[m].is_cursor_position) {
            Point p = {x, P_LETTER};
            g_array_append_val(all, p);
          }
        }
      if (is_point)
        g_array_append_val(all, g_array_index(pts, Point, q++));
      from = at;
      kfrom = k;
    }
    if (at == bw)
      break;
  }
  g_array_set_size(pts, 0);
  g_array_append_vals(pts, all->data, all->len);
  g_array_free(all, TRUE);
}

/* Is ch set solid in CJK text (an ideograph, kana, bopomofo, CJK or
 * fullwidth punctuation), where a justified line spreads the space between
 * characters? (Hangul is not: Korean is set, and justified, by words.) */
static bool cjk_solid(gunichar ch)
{
  if ((ch >= 0x3000 && ch <= 0x303F) || (ch >= 0xFF00 && ch <= 0xFF60))
    return true;
  switch (g_unichar_get_script(ch)) {
  case G_UNICODE_SCRIPT_HAN:
  case G_UNICODE_SCRIPT_HIRAGANA:
  case G_UNICODE_SCRIPT_KATAKANA:
  case G_UNICODE_SCRIPT_BOPOMOFO: return true;
  default: return false;
  }
}

/* The boxes and penalties of one word (characters [i, j), bytes [b0, b1)):
 * its hyphenation points in prose; in a URL its break points (no mark);
 * and, only when the word is wider than the line, last-resort points in
 * code or an identifier after its separators (with the continuation mark),
 * then between any two characters where that is not enough (with a hyphen
 * in prose, the mark in code). Never a silent cut. */
/* The marks of a break inside a word, drawn in the font of the character
 * before the break (shape_extra at b - 1, set_glyphs), measured in it:
 * a hyphen's width, and the last resort's mark and width (the
 * continuation mark in code and URLs when that font has it; a hyphen in
 * prose; nothing in a URL whose font lacks the mark: a hyphen would read
 * as part of it). */
typedef struct {
  double hw, lw;
  MarkKind lmark;
} BreakMarks;

/* What the marks are made of, for the run last asked: they depend on the
 * run's font only, so one paragraph's words share them (build_items). */
typedef struct {
  const ShapeRun *run; /* NULL: none asked yet, or no run (measured each time) */
  double hw;           /* a hyphen's width */
  bool cw_known;       /* cw asked (only in code and URLs) */
  double cw;           /* the continuation mark's width, negative: not in the font */
} RunMarks;

static bool in_run(const ShapeRun *r, size_t at)
{
  size_t off = (size_t)r->item->offset;
  return at >= off && at < off + (size_t)r->item->length;
}

static BreakMarks break_marks(Build *c, const Shaped *sh, size_t at, bool ident, bool url,
                              RunMarks *rm)
{
  if (!rm->run || !in_run(rm->run, at)) {
    rm->run = shape_run_at(sh, at);
    rm->hw = hyphen_width(c->shp, sh, at);
    rm->cw_known = false;
  }
  double cw = -1;
  if (ident || url) {
    if (!rm->cw_known) {
      rm->cw = cont_width(sh, at);
      rm->cw_known = rm->run != NULL;
    }
    cw = rm->cw;
  }
  BreakMarks bm = {.hw = rm->hw};
  bm.lmark = cw >= 0 ? MK_CONT : url ? MK_NONE : MK_HYPHEN;
  bm.lw = cw >= 0 ? cw : url ? 0 : bm.hw;
  return bm;
}

/* The penalty of break point pt (its mark into *mk). */
static LbItem point_penalty(Build *c, const Shaped *sh, const Point *pt, bool ident, bool url,
                            RunMarks *rm, MarkKind *mk)
{
  size_t at = pt->at;
  BreakMarks m = break_marks(c, sh, at - 1, ident, url, rm);
  LbItem pen = {.type = LB_PENALTY};
  *mk = MK_NONE;
  if (pt->kind == P_HYPH) {
    pen = (LbItem){.type = LB_PENALTY,
                   .width = m.hw,
                   .penalty = c->env->lbp.hyphen_penalty,
                   .flagged = true,
                   .hyphenation = true};
    *mk = MK_HYPHEN;
  } else if (pt->kind == P_URL) {
    pen.penalty = sh->text[at - 1] == '/' ? 50 : 100;
  } else if (pt->kind == P_SPAN) {
    pen.penalty = 400; /* inside inline code: only when nothing better sets the line */
  } else {
    /* a separator is a better place than between two letters */
    *mk = m.lmark;
    pen.width = m.lw;
    pen.penalty = pt->kind == P_CODE ? 500 : c->env->lbp.emergency_penalty;
    pen.emergency = true;
  }
  return pen;
}

static void build_word(Build *c, const Shaped *sh, const ParaStyle *ps, bool ragged,
                       const guint8 *flags, size_t flen, int i, int j, GArray *pts, RunMarks *rm,
                       GArray *items, GArray *meta)
{
  const char *t = sh->text;
  size_t b0 = (size_t)sh->char_byte[i], b1 = (size_t)sh->char_byte[j];
  /* the word without its note marks; what kind of text it is */
  size_t bw = b0;
  guint8 all = 0;
  while (bw < b1 && !(flag_at(flags, flen, bw) & F_MARK))
    all |= flag_at(flags, flen, bw++);
  bool url = all & F_URL, code = (all & F_CODE) && !url;
  const size_t *hp = NULL; /* the word's hyphenation points (the cache's) */
  guint nhp = 0;
  if (ps->hyphenate && !ragged && j - i >= 5 && !(all & (F_CODE | F_NOHYPH | F_URL)))
    hp = word_points(c->shp, t + b0, bw - b0, &nhp);
  bool ident = !url && (code || (!nhp && identifier_like(t, b0, bw)));
  if (ps->whole_words) /* a table cell as wide as its widest word: none broken */
    g_array_set_size(pts, 0);
  else
    word_points_all(sh, ps, i, j, bw, hp, nhp, url, ident, code,
                    break_marks(c, sh, b0, ident, url, rm).lw, pts);
  size_t from = b0;
  for (guint q = 0; q < pts->len; q++) {
    const Point *pt = &g_array_index(pts, Point, q);
    size_t at = pt->at;
    push(items, meta, (LbItem){.type = LB_BOX, .width = shape_width_pt(sh, from, at)}, from, at,
         M_BOX, MK_NONE);
    MarkKind mk;
    LbItem pen = point_penalty(c, sh, pt, ident, url, rm, &mk);
    push(items, meta, pen, at, at, M_PEN, mk);
    from = at;
  }
  push(items, meta, (LbItem){.type = LB_BOX, .width = shape_width_pt(sh, from, b1)}, from, b1,
       M_BOX, MK_NONE);
  if (j < sh->nchars && !ps->whole_words && break_before(sh, flags, flen, j) &&
      !sh->log[j].is_white) {
    gunichar prev = g_utf8_get_char(g_utf8_prev_char(t + b1));
    if (ps->justify && !ragged && !(flag_at(flags, flen, b1 - 1) & (F_CODE | F_URL)) &&
        (cjk_solid(prev) || cjk_solid(g_utf8_get_char(t + b1)))) {
      /* CJK: a break between characters (pango's UAX 14 keeps 、。」 and
       * the like off a line's start: kinsoku) is a glue of no width that
       * a justified line stretches (lines.c spreads it after the
       * character before); nothing is shrunk */
      push(items, meta, (LbItem){.type = LB_GLUE, .stretch = CJK_STRETCH_EM * ps->size_pt}, b1,
           b1, M_GLUE, MK_NONE);
      return;
    }
    bool dash = is_dash(prev) && !(flag_at(flags, flen, b1 - 1) & (F_CODE | F_URL));
    push(items, meta,
         (LbItem){.type = LB_PENALTY,
                  .penalty = dash ? c->env->lbp.exhyphen_penalty : 100,
                  .flagged = dash},
         b1, b1, M_PEN, MK_NONE);
  }
}

static int cmp_img_at(const void *key, const void *elem)
{
  size_t at = *(const size_t *)key, e = ((const ImgBox *)elem)->at;
  return at < e ? -1 : at > e ? 1 : 0;
}

const ImgBox *image_at(const GArray *imgs, size_t at)
{
  return imgs->len ? bsearch(&at, imgs->data, imgs->len, sizeof(ImgBox), cmp_img_at) : NULL;
}

/* An inline image (character i, a U+FFFC): a box of its width; a break
 * after it where the text allows one. Returns the character after it. */
static int build_image(const Shaped *sh, const guint8 *flags, size_t flen, const GArray *imgs,
                       int i, GArray *items, GArray *meta)
{
  int j = i + 1;
  size_t b0 = (size_t)sh->char_byte[i], b1 = (size_t)sh->char_byte[j];
  const ImgBox *ib = image_at(imgs, b0);
  push(items, meta, (LbItem){.type = LB_BOX, .width = ib ? ib->w : 0}, b0, b1, M_BOX, MK_NONE);
  if (j < sh->nchars && !sh->log[j].is_white && break_before(sh, flags, flen, j))
    push(items, meta, (LbItem){.type = LB_PENALTY, .penalty = 50}, b1, b1, M_PEN, MK_NONE);
  return j;
}

/* A forced line break (a hard break in the source) at byte b0. */
static void build_newline(GArray *items, GArray *meta, size_t b0)
{
  push(items, meta, (LbItem){.type = LB_GLUE, .stretch = LB_FIL}, b0, b0, M_GLUE, MK_NONE);
  push(items, meta, (LbItem){.type = LB_PENALTY, .penalty = -LB_INFINITY}, b0, b0 + 1, M_PEN,
       MK_NONE);
}

/* The glue of the word space starting at character i (a run of white
 * characters up to a newline or a no-break space); returns the character
 * after it. Spaces in code do not stretch nor shrink in justified text. */
static int build_space(const Shaped *sh, const ParaStyle *ps, bool ragged, const guint8 *flags,
                       size_t flen, int i, GArray *items, GArray *meta)
{
  const char *t = sh->text;
  int j = i, n = sh->nchars;
  while (j < n && sh->log[j].is_white && t[sh->char_byte[j]] != '\n' &&
         g_utf8_get_char(t + sh->char_byte[j]) != 0xA0)
    j++;
  size_t b0 = (size_t)sh->char_byte[i], b1 = (size_t)sh->char_byte[j];
  double w = shape_width_pt(sh, b0, b1);
  bool code = flag_at(flags, flen, b0) & F_CODE;
  LbItem g = {.type = LB_GLUE, .width = w};
  if (ragged)
    g.stretch = 3 * ps->size_pt;
  else if (!code) {
    g.stretch = w * 0.5;
    g.shrink = w * 0.4; /* linebreak.h: TeX's 1/3 starves narrow measures */
  }
  push(items, meta, g, b0, b1, M_GLUE, MK_NONE);
  return j;
}

/* TeX's ending at byte end: no break before the finishing glue, then a
 * forced break. */
static void build_end(GArray *items, GArray *meta, size_t end)
{
  while (items->len && g_array_index(items, LbItem, items->len - 1).type == LB_GLUE) {
    g_array_set_size(items, items->len - 1);
    g_array_set_size(meta, meta->len - 1);
  }
  push(items, meta, (LbItem){.type = LB_PENALTY, .penalty = LB_INFINITY}, end, end, M_PEN, MK_NONE);
  push(items, meta, (LbItem){.type = LB_GLUE, .stretch = LB_FIL}, end, end, M_GLUE, MK_NONE);
  push(items, meta, (LbItem){.type = LB_PENALTY, .penalty = -LB_INFINITY}, end, end, M_PEN,
       MK_NONE);
}

void build_items(Build *c, const Para *p, const Shaped *sh, const ParaStyle *ps, bool ragged,
                 const guint8 *flags, const GArray *imgs, GArray *items, GArray *meta,
                 GArray **points)
{
  const char *t = sh->text;
  int n = sh->nchars;
  size_t flen = p->text->len;
  if (!*points)
    *points = g_array_new(FALSE, FALSE, sizeof(Point));
  GArray *pts = *points;
  RunMarks rm = {0};
  for (int i = 0; i < n;) {
    size_t b0 = (size_t)sh->char_byte[i];
    gunichar ch = g_utf8_get_char(t + b0);
    if (ch == '\n') {
      build_newline(items, meta, b0);
      i++;
      continue;
    }
    if (sh->log[i].is_white && ch != 0xA0 && ch != 0x202F) {
      i = build_space(sh, ps, ragged, flags, flen, i, items, meta);
      continue;
    }
    if (flag_at(flags, flen, b0) & F_IMAGE) {
      i = build_image(sh, flags, flen, imgs, i, items, meta);
      continue;
    }
    int j = i + 1;
    while (j < n && !break_before(sh, flags, flen, j) &&
           !(sh->log[j].is_white && g_utf8_get_char(t + sh->char_byte[j]) != 0xA0) &&
           !(flag_at(flags, flen, (size_t)sh->char_byte[j]) & F_IMAGE))
      j++;
    build_word(c, sh, ps, ragged, flags, flen, i, j, pts, &rm, items, meta);
    i = j;
  }
  build_end(items, meta, sh->len);
}
