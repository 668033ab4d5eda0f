/* layout/blocks.c: the block walker and the blocks other than tables:
 * headings, paragraphs, code, rules, figures, lists and block quotes, into
 * a Build's vertical list. No recursion on input depth: BookIter. */
#include "layout/internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *heading_tag(int level)
{
  static const char *const tags[] = {"H1", "H2", "H3", "H4", "H5", "H6"};
  return tags[CLAMP(level, 1, 6) - 1];
}

/* A heading of source level `level` whose text is p: block is its node
 * (NULL: a title the layout made), id its destination. */
void set_heading(Build *c, Para *p, int level, const char *id, BookNode *block, bool chapter_title)
{
  int rel = chapter_title ? 1 : CLAMP(level - c->env->chapter_level + 1, 2, 6);
  double size = c->note_mode ? c->st->note_size_pt : c->st->heading_size_pt[rel - 1];
  PangoFontDescription *d =
      font_desc(c->st->heading_face, size, rel >= 4 ? PANGO_STYLE_ITALIC : PANGO_STYLE_NORMAL,
                rel >= 4 ? PANGO_WEIGHT_NORMAL : PANGO_WEIGHT_BOLD);
  ParaStyle ps = para_style(c, d, ceil(size * 1.25));
  ps.hyphenate = false;
  if (!c->first_block)
    want_space(c, c->st->heading_before_pt * (rel <= 2 ? 1.5 : 1));
  emit_dest_pending(c, id);
  int before = (int)c->vl->len;
  /* a heading right after a heading stays with it (the keep of the first
   * holds for this one's first line); the lines of its own are kept below */
  c->keep = c->keep > 0 ? 1 : 0;
  /* the tag never skips a level (book_outline_level); the type keeps the source's */
  set_para(c, p, &ps, true, heading_tag(book_outline_level(&c->heads, level)), block, NULL);
  /* no page break inside the heading */
  for (guint i = (guint)before + 1; i < c->vl->len; i++) {
    VItem *v = &g_array_index(c->vl, VItem, i);
    if (v->kind == V_PENALTY)
      v->penalty = LB_INFINITY;
    else if (v->kind == V_GLUE)
      v->nobreak = true;
  }
  c->keep = 2;
  c->space = chapter_title ? c->st->heading_after_pt * 2.5 : c->st->heading_after_pt;
  c->after_par = false;
  pango_font_description_free(d);
}

void do_heading(Build *c, BookNode *n, bool chapter_title)
{
  Para p;
  para_init(&p);
  para_inlines(c, &p, n);
  set_heading(c, &p, n->as.heading.level, n->as.heading.id, n, chapter_title);
  para_clear(&p);
}

/* A paragraph: n's inline children, or (run) n and the inline siblings
 * after it (text a container of blocks holds directly). */
static void paragraph_of(Build *c, BookNode *n, const char *tag, bool run)
{
  Para p;
  para_init(&p);
  if (run)
    para_inline_run(c, &p, n);
  else
    para_inlines(c, &p, n);
  if (p.text->len == 0 || (run && strspn(p.text->str, " \n") == p.text->len)) {
    para_clear(&p);
    return;
  }
  double leading = c->note_mode ? c->st->note_leading_pt : c->st->leading_pt;
  PangoFontDescription *d = text_desc(c->st, c->note_mode);
  ParaStyle ps = para_style(c, d, leading);
  /* a definition's first paragraph sits right under its term, as an item's
   * under its label */
  bool in_item = n->parent && (n->parent->type == BOOK_ITEM ||
                               (n->parent->type == BOOK_DEFDESC && !n->prev));
  if (c->after_par && c->st->indent_pt > 0 && !in_item && c->quote_x->len == 0 &&
      c->pending->len == 0 && !c->note_mode)
    ps.indent_pt = c->st->indent_pt;
  else if (!c->first_block && !in_item)
    want_space(c, c->st->par_space_pt > 0 ? c->st->par_space_pt
                                          : (c->after_par ? 0 : c->st->block_space_pt));
  if (c->after_par && c->st->par_space_pt > 0)
    want_space(c, c->st->par_space_pt);
  if (!run && !c->measuring && !c->dir) { /* as the thread shapes it */
    p.shaped = ahead_take(c->shp->ahead, n, &p, d);
    p.ahead = p.shaped != NULL;
  }
  set_para(c, &p, &ps, false, tag, n, NULL);
  c->after_par = !in_item;
  pango_font_description_free(d);
  para_clear(&p);
}

void do_paragraph(Build *c, BookNode *n, const char *tag)
{
  paragraph_of(c, n, tag, false);
}

/* A definition list's term: bold, ragged, on a line of its own, kept with
 * the first lines of what follows (its definition, or the next term). */
static void do_defterm(Build *c, BookNode *n)
{
  Para p;
  para_init(&p);
  para_inlines(c, &p, n);
  PangoFontDescription *d = text_desc(c->st, c->note_mode);
  pango_font_description_set_weight(d, PANGO_WEIGHT_BOLD);
  ParaStyle ps = para_style(c, d, c->note_mode ? c->st->note_leading_pt : c->st->leading_pt);
  ps.justify = false;
  ps.hyphenate = false;
  if (!c->first_block && !(n->prev && n->prev->type == BOOK_DEFTERM))
    want_space(c, c->st->block_space_pt * 0.6);
  c->keep = c->keep > 0 ? 1 : 0;
  set_para(c, &p, &ps, true, "Lbl", n, NULL);
  c->keep = 2;
  c->after_par = false;
  pango_font_description_free(d);
  para_clear(&p);
}

/* A code block's text: tabs to 4-column stops, control characters to
 * spaces, valid UTF-8, no trailing newlines. orig gets, per byte of the
 * result, its byte in src (emptied when repairing the encoding moved them:
 * marks then fall back to the line start). */
static GString *code_text(const char *src, GArray *orig)
{
  GString *t = g_string_new(NULL);
  size_t col = 0;
  for (const char *q = src; *q; q++) {
    size_t o = (size_t)(q - src);
    if (*q == '\t') {
      for (size_t k = 4 - col % 4; k > 0; k--, col++) {
        g_string_append_c(t, ' ');
        g_array_append_val(orig, o);
      }
      continue;
    }
    g_string_append_c(t, (unsigned char)*q < 0x20 && *q != '\n' ? ' ' : *q);
    g_array_append_val(orig, o);
    col = *q == '\n' ? 0 : col + 1;
  }
  if (!g_utf8_validate(t->str, (gssize)t->len, NULL)) {
    char *v = g_utf8_make_valid(t->str, (gssize)t->len);
    g_string_assign(t, v);
    g_free(v);
    g_array_set_size(orig, 0);
  }
  while (t->len && t->str[t->len - 1] == '\n')
    g_string_truncate(t, t->len - 1);
  return t;
}

/* A set line of a code block: bytes [a, b), a continuation or not. */
typedef struct {
  size_t a, b;
  bool cont;
} CLine;

/* May a wrapped code line be cut before character k (not its first) where
 * the text itself allows no break? After a separator of paths and names
 * (/ \\ . : _ - , ; but inside none of their runs, so not inside "::"), or
 * between a lower-case and a capital letter: places that make sense in
 * code, better than between any two letters. */
static bool code_cut(const Shaped *sh, int k)
{
  const char *t = sh->text;
  const char *prev = g_utf8_prev_char(t + sh->char_byte[k]), *at = t + sh->char_byte[k];
  bool sep_prev = strchr("/\\.:_-,;", *prev) && *prev, sep_next = strchr("/\\.:_-,;", *at) && *at;
  if (sep_prev)
    return !sep_next;
  return g_unichar_islower(g_utf8_get_char(prev)) && g_unichar_isupper(g_utf8_get_char(at));
}

/* The lines of the shaped code text: each source line, wrapped where wider
 * than avail (a continuation line has markw less) at the last break
 * opportunity (UAX 14) that fits in its second half, else at the last
 * code_cut that fits there, else at the last character that fits. A new
 * array of CLine. */
static GArray *code_lines(const Shaped *sh, const GString *t, double avail, double markw)
{
  GArray *cl = g_array_new(FALSE, FALSE, sizeof(CLine));
  size_t ls = 0;
  int ci = 0; /* char index of ls */
  while (ls <= t->len) {
    const char *nl = memchr(t->str + ls, '\n', t->len - ls);
    size_t le = nl ? (size_t)(nl - t->str) : t->len;
    bool cont = false;
    size_t a = ls;
    int ca = ci;
    for (;;) {
      double lim = avail - (cont ? markw : 0);
      if (shape_width_pt(sh, a, le) <= lim || a >= le) {
        CLine l = {a, le, cont};
        g_array_append_val(cl, l);
        break;
      }
      /* the last break opportunity that fits, else the last cut in code,
       * else the last character */
      int k = ca + 1, best = -1, cut_code = -1, lastfit = ca + 1;
      while (sh->char_byte[k] < (int)le && shape_width_pt(sh, a, (size_t)sh->char_byte[k]) <= lim) {
        if (sh->log[k].is_cursor_position)
          lastfit = k;
        if (sh->log[k].is_line_break)
          best = k;
        else if (sh->log[k].is_cursor_position && code_cut(sh, k))
          cut_code = k;
        k++;
      }
      int half = ca + (k - ca) / 2;
      int cut = best > half ? best : cut_code > half ? cut_code : lastfit;
      CLine l = {a, (size_t)sh->char_byte[cut], cont};
      g_array_append_val(cl, l);
      a = (size_t)sh->char_byte[cut];
      ca = cut;
      cont = true;
    }
    /* advance ci to the char after le */
    while (ci < sh->nchars && sh->char_byte[ci] <= (int)le)
      ci++;
    if (!nl)
      break;
    ls = le + 1;
  }
  return cl;
}

/* What the lines of one code block share. */
typedef struct {
  const Shaped *sh;
  double left, width; /* the band */
  double pad, leading, base;
  PangoFont *mark_font; /* the continuation mark's font, or NULL */
  PangoGlyphString *mark;
  double mark_w;
  GArray *slices; /* ShapeSlice scratch */
  /* line numbers: the plain digits they are shaped from (NULL when the
   * listing has none), the gutter's width left of the code (0 without),
   * the width of one digit */
  Shaped *digits;
  double gutter, digit_w;
} CodeSet;

/* The attributes of code block n's tokens over t, its text as shaped
 * (orig: the byte of n->text each byte of t comes from): the colour and
 * face the print style gives each class ([code-tokens]). NULL when there
 * is none, or when repairing t's encoding lost orig. */
static PangoAttrList *token_attrs(const Build *c, const BookNode *n, const GArray *orig, size_t tlen)
{
  if (n->as.code.ntokens == 0 || orig->len < tlen)
    return NULL;
  PangoAttrList *al = NULL;
  size_t k = 0; /* a byte of t */
  for (guint i = 0; i < n->as.code.ntokens; i++) {
    const BookToken *tk = &n->as.code.tokens[i];
    if (!c->st->tok[tk->cls].set)
      continue;
    while (k < tlen && g_array_index(orig, size_t, k) < tk->start)
      k++;
    size_t a = k;
    while (k < tlen && g_array_index(orig, size_t, k) < (size_t)tk->start + tk->len)
      k++;
    if (k <= a)
      continue;
    if (!al)
      al = pango_attr_list_new();
    const double *rgb = c->st->tok[tk->cls].rgb;
    PangoAttribute *at[3] = {
        pango_attr_foreground_new((guint16)lround(rgb[0] * 65535), (guint16)lround(rgb[1] * 65535),
                                  (guint16)lround(rgb[2] * 65535)),
        c->st->tok[tk->cls].bold ? pango_attr_weight_new(PANGO_WEIGHT_BOLD) : NULL,
        c->st->tok[tk->cls].italic ? pango_attr_style_new(PANGO_STYLE_ITALIC) : NULL};
    for (int j = 0; j < 3; j++)
      if (at[j]) {
        at[j]->start_index = (guint)a;
        at[j]->end_index = (guint)k;
        pango_attr_list_insert(al, at[j]);
      }
  }
  return al;
}

/* A glyph item's colour: the foreground of the run holding byte `at` of
 * sh (a token's, token_attrs), else the item stays black. */
static void token_colour(const Shaped *sh, size_t at, LayItem *it)
{
  const ShapeRun *r = shape_run_at(sh, at);
  for (GSList *l = r ? r->item->analysis.extra_attrs : NULL; l; l = l->next) {
    const PangoAttribute *a = l->data;
    if (a->klass->type == PANGO_ATTR_FOREGROUND) {
      const PangoColor *col = &((const PangoAttrColor *)a)->color;
      it->rgb_set = true;
      it->rgb[0] = col->red / 65535.0;
      it->rgb[1] = col->green / 65535.0;
      it->rgb[2] = col->blue / 65535.0;
    }
  }
}

/* Glyphs in rgb drawn as outlines, not text: on the page, never copied,
 * searched or read out (a line's number, a continuation mark). */
static void add_outline(GArray *items, double x, double y, PangoFont *font, PangoGlyphString *g,
                        const char *text, const double rgb[3])
{
  for (int gi = 0; gi < g->num_glyphs; gi++)
    g->log_clusters[gi] = 0;
  LayItem it = {.kind = LAY_GLYPHS,
                .x_pt = x,
                .y_pt = y,
                .rgb_set = true,
                .font = font,
                .glyphs = g,
                .text = g_strdup(text),
                .outline = true};
  memcpy(it.rgb, rgb, sizeof it.rgb);
  g_array_append_val(items, it);
}

/* The items of code line l (the band, tinted with a rule at its left edge
 * when `marked`; its number `lineno` in the gutter, -1 for none; the mark
 * of a continuation; the glyphs), its top at `top` below the line's top,
 * h high. */
static GArray *code_line_items(const Build *c, CodeSet *cs, const CLine *l, double top, double h,
                               int lineno, bool marked)
{
  GArray *items = items_new();
  add_rule(items, LAY_RULE, cs->left, 0, cs->width, h, c->st->code_gray);
  if (marked) {
    LayItem *band = &g_array_index(items, LayItem, items->len - 1);
    band->rgb_set = true;
    memcpy(band->rgb, c->st->mark_rgb, sizeof band->rgb);
    add_rule(items, LAY_RULE, cs->left, 0, 1.5, h, 0);
    LayItem *rule = &g_array_index(items, LayItem, items->len - 1);
    rule->rgb_set = true;
    memcpy(rule->rgb, c->st->mark_rule_rgb, sizeof rule->rgb);
  }
  if (lineno >= 0 && cs->digits) {
    char num[16];
    g_snprintf(num, sizeof num, "%d", lineno);
    PangoFont *f = NULL;
    PangoGlyphString *g = shape_extra(cs->digits, 0, num, &f);
    double w = pango_glyph_string_get_width(g) / (double)PANGO_SCALE;
    if (f)
      add_outline(items, cs->left + cs->pad + cs->gutter - cs->digit_w - w, top + cs->base, f, g,
                  num, c->st->line_number_rgb);
    else
      pango_glyph_string_free(g);
  }
  double x = cs->left + cs->pad + cs->gutter;
  if (l->cont && cs->mark_font) {
    static const double gray[3] = {0.45, 0.45, 0.45};
    add_outline(items, x, top + cs->base, g_object_ref(cs->mark_font),
                pango_glyph_string_copy(cs->mark), "\xE2\x86\xAA", gray);
    x += cs->mark_w;
  }
  GArray *slices = cs->slices;
  g_array_set_size(slices, 0);
  shape_slices(cs->sh, l->a, l->b, slices);
  for (guint k = 0; k < slices->len; k++) {
    ShapeSlice *sl = &g_array_index(slices, ShapeSlice, k);
    LayItem it = {.kind = LAY_GLYPHS,
                  .x_pt = x,
                  .y_pt = top + cs->base - sl->rise_pt,
                  .font = sl->font,
                  .glyphs = sl->glyphs,
                  .text = g_strndup(cs->sh->text + sl->start, sl->end - sl->start)};
    token_colour(cs->sh, sl->start, &it);
    g_array_append_val(items, it);
    x += sl->width_pt;
    sl->font = NULL;
    sl->glyphs = NULL;
  }
  return items;
}

/* The lines of code text t (its newlines and one). */
static int code_line_count(const GString *t)
{
  int k = 1;
  for (size_t i = 0; i < t->len; i++)
    k += t->str[i] == '\n';
  return k;
}

/* Code text t shaped in the code face at `size` (attrs: its tokens'
 * colours and faces); *d gets the font's description, the caller's. */
static Shaped *code_shape(Build *c, const GString *t, PangoAttrList *attrs, double size,
                          PangoFontDescription **d)
{
  *d = font_desc(c->st->code_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  pango_context_set_font_description(c->shp->pctx, *d);
  return shape_text(c->shp->pctx, t->str, t->len, attrs, c->shp->plang);
}

/* The width in points of the widest source line of code text t as sh
 * shapes it (what code_lines compares with the measure). */
static double code_widest(const Shaped *sh, const GString *t)
{
  double w = 0;
  for (size_t ls = 0;;) {
    const char *nl = memchr(t->str + ls, '\n', t->len - ls);
    size_t le = nl ? (size_t)(nl - t->str) : t->len;
    w = MAX(w, shape_width_pt(sh, ls, le));
    if (!nl)
      return w;
    ls = le + 1;
  }
}

/* The gutter of cs's line numbers, the widest being `last`, in the
 * context's current font: its digits, one digit's width, the gutter's (the
 * widest number and one digit's space). */
static void code_gutter(Build *c, CodeSet *cs, int last)
{
  cs->digits = shape_text(c->shp->pctx, "0123456789", 10, NULL, c->shp->plang);
  PangoFont *f = NULL;
  char widest[16];
  int nd = g_snprintf(widest, sizeof widest, "%d", last);
  memset(widest, '0', (size_t)nd);
  PangoGlyphString *g = shape_extra(cs->digits, 0, widest, &f);
  double w = pango_glyph_string_get_width(g) / (double)PANGO_SCALE;
  cs->digit_w = w / MAX(nd, 1);
  cs->gutter = w + cs->digit_w;
  pango_glyph_string_free(g);
  if (f)
    g_object_unref(f);
}

/* The size of a code block whose type size is `size`, its widest line and
 * gutter w wide at that size, in a band `room` wide: its own when it fits;
 * else, as a book designer sets a wide listing \small, the size (in
 * twentieths of a point) at which it fits, one size for the whole block,
 * when that is no smaller than the style's floor (style_code_min_pt: a
 * drawing, a table, aligned columns stay whole); else its own, and its
 * long lines wrap (code_lines): once a line must wrap the picture is cut
 * anyway, and a smaller size would cost every line some legibility for
 * fewer continuation lines; the block also stays as it was before this
 * rule. Monospaced advances scale with the size (metrics are not hinted). */
static double code_fit_size(const Style *st, double size, double w, double room)
{
  if (w <= room || w <= 0)
    return size;
  double fit = size * room / w, floor_pt = style_code_min_pt(st, size);
  if (fit < floor_pt)
    return size;
  return MAX(floor(fit * 20) / 20, floor_pt);
}

/* A code block: monospace, ragged, shaped once (twice when it is set
 * smaller to fit: code_fit_size); a line longer than the measure wraps
 * with a continuation mark; a tinted band behind it; its lines numbered in
 * a gutter where the source or the style asks (book_code_numbered), a
 * marked line's band tinted. */
static void do_code(Build *c, BookNode *n)
{
  GArray *orig = g_array_new(FALSE, FALSE, sizeof(size_t)); /* byte of t -> byte of src */
  GString *t = code_text(n->text ? n->text : "", orig);
  double size = c->note_mode ? c->st->note_size_pt * 0.92 : c->st->code_size_pt;
  CodeSet cs = {0};
  cs.leading = c->note_mode ? c->st->note_leading_pt : c->st->code_leading_pt;
  cs.pad = c->st->code_pad_pt;
  cs.left = left_of(c);
  cs.width = c->measure - left_of(c);
  PangoAttrList *attrs = token_attrs(c, n, orig, t->len);
  PangoFontDescription *d = NULL;
  Shaped *sh = code_shape(c, t, attrs, size, &d);
  bool numbered = book_code_numbered(n, c->st->code_line_numbers);
  int last_no = n->as.code.line_offset + code_line_count(t);
  if (numbered)
    code_gutter(c, &cs, last_no);
  double fit = code_fit_size(c->st, size, code_widest(sh, t) + cs.gutter, cs.width - 2 * cs.pad);
  if (fit < size) { /* set again, smaller, the leading in proportion */
    shape_free(sh);
    pango_font_description_free(d);
    sh = code_shape(c, t, attrs, fit, &d);
    cs.leading *= fit / size;
    if (numbered) {
      shape_free(cs.digits);
      code_gutter(c, &cs, last_no);
    }
  }
  if (attrs)
    pango_attr_list_unref(attrs);
  cs.sh = sh;
  cs.base = baseline(c->shp, d, cs.leading);
  cs.mark = shape_extra(sh, 0, "\xE2\x86\xAA", &cs.mark_font); /* ↪ */
  cs.mark_w = pango_glyph_string_get_width(cs.mark) / (double)PANGO_SCALE + 2;
  /* a listing's code right under its caption or file name (listing_head) */
  bool headed = n->parent && n->parent->type == BOOK_FIGURE && n->parent->as.figure.listing &&
                n == n->parent->first_child &&
                (n->parent->as.figure.file_name || n->parent->last_child->type == BOOK_FIGCAPTION);
  if (!headed)
    want_space(c, c->st->block_space_pt);
  c->after_par = false;
  open_tag(c, "Code");
  GArray *cl = code_lines(sh, t, cs.width - 2 * cs.pad - cs.gutter, cs.mark_w);
  cs.slices = g_array_new(FALSE, TRUE, sizeof(ShapeSlice));
  guint line = 0, mark_at = 0; /* the source line, 1-based; the cursor of book_code_marked */
  for (guint i = 0; i < cl->len; i++) {
    CLine *l = &g_array_index(cl, CLine, i);
    bool first = i == 0, lastl = i + 1 == cl->len;
    double top = first ? cs.pad : 0, h = cs.leading + top + (lastl ? cs.pad : 0);
    line += !l->cont;
    GArray *items =
        code_line_items(c, &cs, l, top, h, l->cont ? -1 : n->as.code.line_offset + (int)line,
                        book_code_marked(n, line, &mark_at));
    if (lastl)
      add_tag(items, LAY_TAG_END, "Code");
    double pen = (i == 1 || (i > 0 && i + 1 == cl->len)) ? LB_INFINITY : 0;
    VItem *v = emit_line(c, items, h, pen);
    v->mark_node = n;
    v->mark_off = l->a < orig->len ? g_array_index(orig, size_t, l->a) : 0;
  }
  g_array_free(cs.slices, TRUE);
  g_array_free(cl, TRUE);
  g_array_free(orig, TRUE);
  pango_glyph_string_free(cs.mark);
  if (cs.mark_font)
    g_object_unref(cs.mark_font);
  if (cs.digits)
    shape_free(cs.digits);
  shape_free(sh);
  pango_font_description_free(d);
  g_string_free(t, TRUE);
  want_space(c, c->st->block_space_pt);
}

static void do_rule(Build *c, BookNode *n)
{
  GArray *items = items_new();
  double w = c->measure - left_of(c);
  add_rule(items, LAY_RULE, left_of(c) + w * 0.35, c->st->leading_pt - 0.25, w * 0.3, 0.5, 0);
  want_space(c, c->st->block_space_pt);
  VItem *v = emit_line(c, items, 2 * c->st->leading_pt, 0);
  v->mark_node = n;
  c->after_par = false;
  want_space(c, c->st->block_space_pt);
}

/* The PDF draws PNG, JPEG, GIF and SVG images whose size the model knows
 * (paint.c). */
static bool drawable_image(const BookResource *r)
{
  return r &&
         (r->kind == BOOK_IMAGE_PNG || r->kind == BOOK_IMAGE_JPEG || r->kind == BOOK_IMAGE_GIF ||
          r->kind == BOOK_IMAGE_SVG) &&
         r->width_px > 0 && r->height_px > 0;
}

/* A length of the model in points against the measure w (0: not given). */
static double length_pt(const Build *c, BookLength l, double w)
{
  switch (l.unit) {
  case BOOK_LEN_PX: return l.value * 0.75; /* 96 px to the inch */
  case BOOK_LEN_EM: return l.value * c->st->body_size_pt;
  case BOOK_LEN_PERCENT: return l.value / 100 * w;
  case BOOK_LEN_NONE: break;
  }
  return 0;
}

/* The size an image figure is drawn at: the size the source asks for (the
 * width, at most max-width; the height only when no width is given), else
 * its own (96 px to the inch) and no larger than sets an SVG's text at the
 * body's size (image.c's text_px: a diagram drawn for a 1,100 px screen
 * had 13 pt labels beside 11 pt text), keeping its aspect ratio, never
 * wider than the measure w nor taller than 60% of the text block. */
static void figure_size(const Build *c, const BookNode *img, const BookResource *r, double w,
                        double *iw, double *ih)
{
  double nw = r->width_px * 0.75, nh = r->height_px * 0.75;
  double want = length_pt(c, img->as.image.width, w);
  double hwant = length_pt(c, img->as.image.height, w);
  if (want <= 0 && hwant > 0 && img->as.image.height.unit != BOOK_LEN_PERCENT)
    want = hwant * nw / nh;
  if (want <= 0) {
    want = nw;
    if (r->text_px > 0)
      want = MIN(want, nw * c->st->body_size_pt / (r->text_px * 0.75));
  }
  double maxw = length_pt(c, img->as.image.max_width, w);
  if (maxw > 0)
    want = MIN(want, maxw);
  want = MIN(want, w);
  double s = MIN(want / nw, c->env->text_h * 0.6 / nh);
  *iw = nw * s;
  *ih = nh * s;
}

void inline_image_size(const Build *c, const BookNode *img, double size_pt, double measure,
                       double max_h, double *w, double *h)
{
  const BookResource *r = img->as.image.res;
  bool known = r && r->width_px > 0 && r->height_px > 0;
  double nw = known ? r->width_px * 0.75 : size_pt, nh = known ? r->height_px * 0.75 : size_pt;
  double want = length_pt(c, img->as.image.width, measure);
  double hwant = length_pt(c, img->as.image.height, measure);
  if (want <= 0 && hwant > 0 && img->as.image.height.unit != BOOK_LEN_PERCENT)
    want = hwant * nw / nh;
  if (want <= 0)
    want = nh > size_pt ? size_pt * nw / nh : nw; /* its own size, no taller than the type */
  double maxw = length_pt(c, img->as.image.max_width, measure);
  if (maxw > 0)
    want = MIN(want, maxw);
  double s = MIN(MIN(want, measure) / nw, max_h / nh);
  *w = nw * s;
  *h = nh * s;
}

/* An image that cannot be drawn: a frame with its alt text set inside it,
 * wrapped to the frame, centred; a newline in the alt text is a space.
 * Appends to items (frame at y 0); returns the frame's height. */
static double placeholder(Build *c, GArray *items, const char *label, double w)
{
  char *text = g_strdup(label);
  g_strdelimit(text, "\n\r\t", ' ');
  PangoFontDescription *d = font_desc(c->st->body_face, c->st->body_size_pt * 0.9,
                                      PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
  double pad = 12, lead = c->st->leading_pt;
  double fw = MIN(label_width(c->shp, d, text), w - 2 * pad - 12) + 2 * pad;
  Para p;
  para_init(&p);
  para_text(&p, NULL, text, 0);
  ParaStyle ps = para_style(c, d, lead);
  ps.left_pt = 0;
  ps.width_pt = fw - 2 * pad;
  ps.base_pt = 0;
  ps.hyphenate = false;
  GPtrArray *lines = g_ptr_array_new();
  set_para(c, &p, &ps, true, NULL, NULL, lines);
  double h = MAX(3 * lead, (lines->len + 1) * lead);
  double x0 = left_of(c) + (w - fw) / 2;
  add_rule(items, LAY_FRAME, x0, 0, fw, h, 0.3);
  double y = (h - lines->len * lead) / 2 + lead * 0.75;
  for (guint i = 0; i < lines->len; i++) {
    GArray *ln = lines->pdata[i];
    for (guint q = 0; q < ln->len; q++) {
      LayItem *g = &g_array_index(ln, LayItem, q);
      if (g->kind == LAY_GLYPHS)
        g->gray = 0.2;
    }
    double lw = items_right(ln, 0);
    items_append(items, ln, x0 + pad + (fw - 2 * pad - lw) / 2, y, true);
    items_free(ln);
    y += lead;
  }
  g_ptr_array_free(lines, TRUE);
  para_clear(&p);
  pango_font_description_free(d);
  g_free(text);
  return h;
}

/* The length of a caption's label ("Figure 4-1:", "Listing 2.", "Table
 * 3"): a word, a space, a number, and the ':' or '.' after it; 0 when the
 * caption starts otherwise. */
static size_t caption_label(const char *t)
{
  const char *p = t;
  while (g_ascii_isalpha(*p))
    p++;
  if (p == t || p - t > 12 || *p != ' ' || !g_ascii_isdigit(p[1]))
    return 0;
  p++;
  while (g_ascii_isdigit(*p) || ((*p == '-' || *p == '.') && g_ascii_isdigit(p[1])))
    p++;
  if (*p == ':' || *p == '.')
    p++;
  return (size_t)(p - t);
}

/* The caption style's size and leading: [caption]'s, at most 0.85 of the
 * body's size (a small page or two columns set the body smaller), the
 * leading scaled with it. */
static void caption_size(const Style *st, double *size, double *lead)
{
  *size = MIN(st->caption_size_pt, st->body_size_pt * 0.85);
  *lead = st->caption_leading_pt * *size / st->caption_size_pt;
}

/* A caption (a figure's BOOK_FIGCAPTION, or an image's title) in the caption style: the body
 * face at [caption] size, ragged, never hyphenated, its label bold;
 * centred when it fits on one line and `centre`. Tagged Caption; its lines
 * follow c->keep as any others. */
static void set_caption(Build *c, BookNode *fc, const char *title, BookNode *mark, bool centre)
{
  Para p;
  para_init(&p);
  if (fc)
    para_inlines(c, &p, fc);
  else
    para_text(&p, NULL, title, 0);
  double size, lead;
  caption_size(c->st, &size, &lead);
  PangoFontDescription *d =
      font_desc(c->st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  size_t lab = caption_label(p.text->str);
  if (lab) {
    PangoAttribute *a = pango_attr_weight_new(PANGO_WEIGHT_BOLD);
    a->start_index = 0;
    a->end_index = (guint)lab;
    pango_attr_list_insert(p.attrs, a);
  }
  ParaStyle ps = para_style(c, d, lead);
  ps.hyphenate = false;
  ps.justify = false;
  ps.indent_pt = 0;
  if (centre) {
    /* (measured without its bold label and code: a caption near the
     * measure's width wraps, set flush left) */
    double cw = label_width(c->shp, d, p.text->str);
    if (cw < ps.width_pt * 0.9) {
      ps.left_pt += (ps.width_pt - cw) / 2;
      ps.rtl_right = false; /* centred, whatever its direction */
    }
  }
  c->after_par = false;
  set_para(c, &p, &ps, true, "Caption", mark, NULL);
  pango_font_description_free(d);
  para_clear(&p);
}

/* A listing's head, above its blocks: its caption, then its file name in
 * the code face, both kept with each other and the code's first lines. */
static void listing_head(Build *c, BookNode *n)
{
  BookNode *fc = n->last_child && n->last_child->type == BOOK_FIGCAPTION ? n->last_child : NULL;
  want_space(c, c->st->block_space_pt * 1.2);
  c->after_par = false;
  if (!fc && !n->as.figure.file_name)
    return;
  c->keep = G_MAXINT / 2;
  if (fc)
    set_caption(c, fc, NULL, n, false);
  if (n->as.figure.file_name) {
    double size, lead;
    caption_size(c->st, &size, &lead);
    PangoFontDescription *d =
        font_desc(c->st->code_face, size * 0.92, PANGO_STYLE_NORMAL, PANGO_WEIGHT_BOLD);
    GArray *items = items_new();
    add_tag(items, LAY_TAG_BEGIN, "Caption");
    double base = baseline(c->shp, d, lead);
    shape_label(c->shp, items, d, n->as.figure.file_name, left_of(c), base, 0.25);
    add_tag(items, LAY_TAG_END, "Caption");
    if (fc)
      c->space = 1;
    VItem *v = emit_line(c, items, lead, 0);
    v->mark_node = n;
    pango_font_description_free(d);
  }
  c->keep = 2;
  c->space = 0;
  want_space(c, 3);
}

static void do_figure(Build *c, BookNode *n)
{
  BookNode *img = n->first_child;
  while (img && img->type != BOOK_IMAGE)
    img = img->next;
  if (!img) {
    do_paragraph(c, n, "P");
    return;
  }
  GString *alt = g_string_new(NULL);
  book_node_text(img, alt);
  const BookResource *r = img->as.image.res;
  double w = c->measure - left_of(c);
  want_space(c, c->st->block_space_pt * 1.5);
  c->after_par = false;
  open_tag(c, "Figure");
  GArray *items = items_new();
  double h;
  bool drawn = drawable_image(r);
  if (drawn) {
    double iw, ih;
    figure_size(c, img, r, w, &iw, &ih);
    LayItem it = {.kind = LAY_IMAGE,
                  .x_pt = left_of(c) + (w - iw) / 2,
                  .y_pt = 0,
                  .w_pt = iw,
                  .h_pt = ih,
                  .res = r,
                  .pos = img->pos};
    g_array_append_val(items, it);
    h = ih;
  } else {
    /* no image to draw (missing, remote, refused): its alt text in a frame */
    h = placeholder(c, items,
                    alt->len ? alt->str : (img->as.image.src ? img->as.image.src : "image"), w);
  }
  VItem *v = emit_line(c, items, h, 0);
  v->mark_node = n;
  /* its caption (captions.c decided it: never the alt text), kept with it */
  BookNode *fc = n->last_child && n->last_child->type == BOOK_FIGCAPTION ? n->last_child : NULL;
  const char *title = img->as.image.title;
  if (fc || (title && *title)) { /* else none: the alt text is no caption */
    c->space = 5;
    c->keep = G_MAXINT / 2;
    set_caption(c, fc, title, n, true);
    c->keep = 0;
  }
  close_tag(c, "Figure");
  want_space(c, c->st->block_space_pt * 1.5);
  g_string_free(alt, TRUE);
}

typedef struct {
  bool ordered;
  int number;
  char delim;
  bool tight;
  int depth;
} ListCtx;

/* Does the item's first block, a paragraph, read right to left (its first
 * strong character, as pango's itemising decides a paragraph's direction)? */
static bool item_rtl(Build *c, const BookNode *item)
{
  if (c->dir)
    return c->dir > 0;
  if (!item->first_child || item->first_child->type != BOOK_PARAGRAPH)
    return false; /* (not a nested list's whole text: deep nesting stays linear) */
  GString *t = g_string_new(NULL);
  book_node_text(item->first_child, t);
  bool rtl = text_rtl(c->shp, t->str, t->len);
  g_string_free(t, TRUE);
  return rtl;
}

/* The item's label (number or bullet) left of its body, and its task box;
 * set_para mirrors them to the right of a right-to-left first line. */
static void list_label(Build *c, ListCtx *l, BookNode *item)
{
  double size = c->note_mode ? c->st->note_size_pt : c->st->body_size_pt;
  double leading = c->note_mode ? c->st->note_leading_pt : c->st->leading_pt;
  double base = baseline(c->shp, c->env->body, leading);
  open_tag(c, "Lbl");
  char buf[32];
  if (l->ordered) {
    /* a right-to-left item's number reads as "1." set right to left does
     * (as the e-book shows it): ".1", the delimiter at its left */
    char delim = l->delim ? l->delim : '.';
    if (item_rtl(c, item))
      g_snprintf(buf, sizeof buf, "%c%d", delim, l->number);
    else
      g_snprintf(buf, sizeof buf, "%d%c", l->number, delim);
    PangoFontDescription *d = text_desc(c->st, c->note_mode);
    double w = label_width(c->shp, d, buf);
    shape_label(c->shp, c->pending, d, buf, left_of(c) - 5 - w, base, 0);
    pango_font_description_free(d);
  } else {
    static const char *const bullets[] = {"\xE2\x80\xA2", "\xE2\x80\x93", "\xE2\x97\xA6"};
    const char *b = bullets[l->depth % 3];
    PangoFontDescription *d = text_desc(c->st, c->note_mode);
    double w = label_width(c->shp, d, b);
    shape_label(c->shp, c->pending, d, b, left_of(c) - 6 - w, base, 0);
    pango_font_description_free(d);
  }
  close_tag(c, "Lbl");
  if (item->as.item.task != BOOK_TASK_NONE) {
    /* the task box sits at the start of the body */
    double bs = size * 0.72, bx = left_of(c), by = base - bs;
    add_rule(c->pending, LAY_FRAME, bx, by, bs, bs, 0);
    if (item->as.item.task == BOOK_TASK_DONE)
      add_rule(c->pending, LAY_RULE, bx + 1.6, by + 1.6, bs - 3.2, bs - 3.2, 0);
  }
}

/* The open lists and task items of a walk. */
/* An open block with a dir attribute, and the direction before it. */
typedef struct {
  const BookNode *n;
  int prev;
} DirCtx;

/* The direction an HTML block's dir attribute gives (Build.dir), or 0. */
static int html_dir(const BookNode *n)
{
  for (char **a = n->as.html.attrs; a && a[0] && a[1]; a += 2)
    if (strcmp(a[0], "dir") == 0)
      return g_ascii_strcasecmp(a[1], "rtl") == 0   ? 1
             : g_ascii_strcasecmp(a[1], "ltr") == 0 ? -1
                                                    : 0;
  return 0;
}

/* Entering HTML block n: its dir attribute (if any) sets the direction. */
static void dir_enter(Build *c, Walk *w, const BookNode *n)
{
  int d = html_dir(n);
  if (!d)
    return;
  DirCtx x = {n, c->dir};
  g_array_append_val(w->dirs, x);
  c->dir = d;
}

/* Leaving block n: the direction before it, if it set one. */
static void dir_exit(Build *c, Walk *w, const BookNode *n)
{
  if (w->dirs->len && g_array_index(w->dirs, DirCtx, w->dirs->len - 1).n == n) {
    c->dir = g_array_index(w->dirs, DirCtx, w->dirs->len - 1).prev;
    g_array_set_size(w->dirs, w->dirs->len - 1);
  }
}

/* Entering block n: a leaf block is set whole (its children skipped); a
 * container opens its tags and indent. */
static void block_enter(Build *c, Walk *w, BookIter *it, BookNode *n, BookNode *skip_heading)
{
  GArray *lists = w->lists, *item_task = w->item_task;
  const double task_w = c->st->body_size_pt * 1.2;
  switch (n->type) {
  case BOOK_HEADING:
    if (n != skip_heading)
      do_heading(c, n, false);
    book_iter_skip_children(it);
    break;
  case BOOK_PARAGRAPH:
    do_paragraph(c, n, "P");
    book_iter_skip_children(it);
    break;
  case BOOK_FIGURE:
    if (n->as.figure.listing) { /* a listing: its caption and file name, then its blocks */
      listing_head(c, n);
      break;
    }
    do_figure(c, n);
    book_iter_skip_children(it);
    break;
  case BOOK_FIGCAPTION: /* a listing's caption, set by listing_head already */
    if (!n->parent || n->parent->type != BOOK_FIGURE)
      do_paragraph(c, n, "Caption");
    book_iter_skip_children(it);
    break;
  case BOOK_CODE_BLOCK: do_code(c, n); break;
  case BOOK_THEMATIC_BREAK: do_rule(c, n); break;
  case BOOK_TABLE:
    do_table(c, n);
    book_iter_skip_children(it);
    break;
  case BOOK_HTML_BLOCK: {
    bool blocks = false; /* a container of blocks, or a paragraph of inlines */
    for (BookNode *k = n->first_child; k && !blocks; k = k->next)
      blocks = !book_node_is_inline(k->type);
    dir_enter(c, w, n);
    if (!blocks && n->first_child) {
      do_paragraph(c, n, "P");
      book_iter_skip_children(it);
      dir_exit(c, w, n);
    }
    break;
  }
  case BOOK_LIST: {
    ListCtx l = {n->as.list.ordered, n->as.list.start, n->as.list.delim, n->as.list.tight,
                 (int)lists->len};
    g_array_append_val(lists, l);
    if (lists->len == 1 || !n->parent || n->parent->type != BOOK_ITEM)
      want_space(c, c->st->block_space_pt);
    open_tag(c, "L");
    c->left += c->st->list_indent_pt;
    c->after_par = false;
    break;
  }
  case BOOK_ITEM: {
    ListCtx *l = lists->len ? &g_array_index(lists, ListCtx, lists->len - 1) : NULL;
    if (l && !l->tight && n->prev)
      want_space(c, c->st->block_space_pt * 0.6);
    open_tag(c, "LI");
    if (l)
      list_label(c, l, n);
    double shift = n->as.item.task != BOOK_TASK_NONE ? task_w : 0;
    g_array_append_val(item_task, shift);
    c->left += shift;
    open_tag(c, "LBody");
    c->after_par = false;
    break;
  }
  case BOOK_DEFLIST: /* L > LI > (Lbl terms, LBody definitions) */
    want_space(c, c->st->block_space_pt);
    open_tag(c, "L");
    c->after_par = false;
    break;
  case BOOK_DEFTERM:
    if (!n->prev || n->prev->type != BOOK_DEFTERM)
      open_tag(c, "LI");
    do_defterm(c, n);
    book_iter_skip_children(it);
    break;
  case BOOK_DEFDESC:
    open_tag(c, "LBody");
    c->left += c->st->list_indent_pt;
    c->after_par = false;
    break;
  case BOOK_BLOCKQUOTE: {
    want_space(c, c->st->block_space_pt);
    open_tag(c, "BlockQuote");
    QuoteRule q = {left_of(c) + 2, false, false};
    g_array_append_val(c->quote_x, q);
    c->left += c->st->quote_indent_pt;
    c->after_par = false;
    break;
  }
  default:
    if (!book_node_is_inline(n->type))
      break;
    /* inline nodes among blocks: the first of a run sets them all as a
     * paragraph (nothing is dropped), the others are skipped */
    if (!n->prev || !book_node_is_inline(n->prev->type))
      paragraph_of(c, n, "P", true);
    book_iter_skip_children(it);
    break;
  }
}

/* Leaving a container block: its indent and tags closed. */
static void block_exit(Build *c, Walk *w, BookNode *n)
{
  GArray *lists = w->lists, *item_task = w->item_task;
  switch (n->type) {
  case BOOK_LIST:
    c->left -= c->st->list_indent_pt;
    if (lists->len)
      g_array_set_size(lists, lists->len - 1);
    close_tag(c, "L");
    want_space(c, c->st->block_space_pt);
    c->after_par = false;
    break;
  case BOOK_ITEM:
    close_tag(c, "LBody");
    close_tag(c, "LI");
    if (item_task->len) {
      c->left -= g_array_index(item_task, double, item_task->len - 1);
      g_array_set_size(item_task, item_task->len - 1);
    }
    if (lists->len)
      g_array_index(lists, ListCtx, lists->len - 1).number++;
    c->after_par = false;
    break;
  case BOOK_BLOCKQUOTE:
    c->left -= c->st->quote_indent_pt;
    if (c->quote_x->len)
      g_array_set_size(c->quote_x, c->quote_x->len - 1);
    close_tag(c, "BlockQuote");
    want_space(c, c->st->block_space_pt);
    c->after_par = false;
    break;
  case BOOK_HTML_BLOCK: dir_exit(c, w, n); break;
  case BOOK_DEFDESC:
    c->left -= c->st->list_indent_pt;
    close_tag(c, "LBody");
    if (!n->next || n->next->type != BOOK_DEFDESC)
      close_tag(c, "LI");
    c->after_par = false;
    break;
  case BOOK_DEFLIST:
    close_tag(c, "L");
    want_space(c, c->st->block_space_pt);
    c->after_par = false;
    break;
  default: break;
  }
}

void walk_begin(Walk *w, Build *c, BookNode *root, BookNode *skip_heading)
{
  w->lists = g_array_new(FALSE, TRUE, sizeof(ListCtx));
  w->item_task = g_array_new(FALSE, FALSE, sizeof(double));
  w->dirs = g_array_new(FALSE, FALSE, sizeof(DirCtx));
  book_iter_init(&w->it, root);
  w->skip = skip_heading;
  w->dir = c->dir;
}

bool walk_step(Walk *w, Build *c, guint until)
{
  while (c->vl->len < until) {
    BookIterEvent ev = book_iter_next(&w->it);
    if (ev == BOOK_ITER_DONE)
      return false;
    if (ev == BOOK_ITER_ENTER)
      block_enter(c, w, &w->it, w->it.cur, w->skip);
    else
      block_exit(c, w, w->it.cur);
  }
  return true;
}

void walk_end(Walk *w, Build *c)
{
  g_array_free(w->lists, TRUE);
  g_array_free(w->item_task, TRUE);
  g_array_free(w->dirs, TRUE);
  c->dir = w->dir;
}

/* Walk the blocks under root into c->vl. */
void walk_blocks(Build *c, BookNode *root, BookNode *skip_heading)
{
  Walk w;
  walk_begin(&w, c, root, skip_heading);
  while (walk_step(&w, c, G_MAXUINT))
    ;
  walk_end(&w, c);
}
