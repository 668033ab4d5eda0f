/* layout/back.c: the colophon (colophon.h) for print: a page of its own at
 * the end of the book, set small in the lower part of the text block, or a
 * block after the handout's text under a rule. Its words and their order
 * are colophon.h's, as in the EPUB's colophon. Like the EPUB's (kept out of
 * the nav) it is in neither the contents nor the bookmarks; it is tagged
 * as paragraphs in a Sect, the source's address is a link, and it has no
 * figure (the archival pass matches Figure tags to images in order). */
#include "layout/internal.h"

#include "colophon.h"

/* The fonts and measures of the colophon's lines. */
typedef struct {
  PangoFontDescription *text, *label, *head;
  double leading;
  double value_x; /* where the values start: after the widest label */
} ColLook;

static void look_init(Build *c, const Colophon *col, ColLook *k)
{
  const Style *st = c->st;
  const char *lang = c->env->book->meta.lang;
  double size = st->colophon_size_pt;
  k->text = font_desc(st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  k->label = font_desc(st->body_face, size, PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
  k->head = font_desc(st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_BOLD);
  k->leading = st->colophon_leading_pt;
  double w = 0;
  for (guint i = 0; i < col->lines->len; i++) {
    const ColophonLine *l = &g_array_index(col->lines, ColophonLine, i);
    w = MAX(w, label_width(c->shp, k->label, labels_get(lang, l->label)));
  }
  /* a narrow measure keeps at least half of it for the values */
  k->value_x = MIN(w + size, c->measure * 0.5);
}

static void look_clear(ColLook *k)
{
  pango_font_description_free(k->text);
  pango_font_description_free(k->label);
  pango_font_description_free(k->head);
}

/* One paragraph of the colophon, set ragged from x: text (a link to it
 * when link, in the code face as URLs are; not broken when whole and it
 * fits), its label (if any) hanging at the left of its first line. */
static void col_para(Build *c, const ColLook *k, const PangoFontDescription *d, const char *label,
                     const char *text, bool link, bool whole, double x)
{
  Para p;
  para_init(&p);
  para_text(&p, NULL, text, 0);
  if (!link && whole && label_width(c->shp, d, text) < c->measure - x) {
    PangoAttribute *a = pango_attr_allow_breaks_new(FALSE);
    a->start_index = 0;
    a->end_index = (guint)p.text->len;
    pango_attr_list_insert(p.attrs, a);
  }
  if (link) {
    PangoAttribute *a[2] = {pango_attr_family_new(c->st->code_face), pango_attr_scale_new(0.86)};
    for (int i = 0; i < 2; i++) {
      a[i]->start_index = 0;
      a[i]->end_index = (guint)p.text->len;
      pango_attr_list_insert(p.attrs, a[i]);
    }
    span_add(&p, SPAN_NOHYPH, 0, p.text->len, NULL);
    span_add(&p, SPAN_LINK, 0, p.text->len, NULL);
    g_array_index(p.spans, Span, p.spans->len - 1).href = g_strdup(text);
  }
  ParaStyle ps = para_style(c, d, k->leading);
  ps.left_pt = x;
  ps.width_pt = c->measure - x;
  ps.hyphenate = false;
  ps.indent_pt = 0;
  ps.mirror = c->env->book->meta.rtl; /* the labels at the right */
  open_tag(c, "P");
  if (label) /* in the paragraph, before the text: the pending items open its line */
    shape_label(c->shp, c->pending, k->label, label, 0, ps.base_pt, 0);
  set_para(c, &p, &ps, true, NULL, NULL, NULL);
  close_tag(c, "P");
  para_clear(&p);
}

/* The colophon into c's vertical list, to c's measure, kept together: its
 * heading, each line (label, value), and "Made with octavo VERSION". */
static void colophon_lines(Build *c, const Colophon *col)
{
  const char *lang = c->env->book->meta.lang;
  ColLook k;
  look_init(c, col, &k);
  c->keep = G_MAXINT / 2;
  open_tag(c, "Sect");
  col_para(c, &k, k.head, NULL, labels_get(lang, LABEL_COLOPHON), false, false, 0);
  want_space(c, k.leading * 0.4);
  for (guint i = 0; i < col->lines->len; i++) {
    const ColophonLine *l = &g_array_index(col->lines, ColophonLine, i);
    col_para(c, &k, k.text, labels_get(lang, l->label), l->value, l->link,
             l->label == LABEL_IDENTIFIER, k.value_x);
  }
  want_space(c, k.leading * 0.4);
  col_para(c, &k, k.text, NULL, col->made_with, false, false, 0);
  close_tag(c, "Sect");
  c->keep = 0;
  look_clear(&k);
}

void colophon_page(const LayEnv *env, LayShaper *shp, LayStore *store, Layout *lay)
{
  const Style *st = env->st;
  Build cb, *c = &cb;
  build_init(c, env, shp, store, env->text_w);
  colophon_lines(c, env->colophon);
  vl_end(c);
  LayPage *p = page_new();
  p->folio = (int)lay->pages->len - lay->front_pages + 1;
  /* labelled by its name, as it prints no folio: viewers show "Colophon",
   * and the pages numbered in figures stay the running text */
  p->label = g_strdup(labels_get(env->book->meta.lang, LABEL_COLOPHON));
  double x = block_x(st, env->book->meta.rtl, p->folio);
  double y = st->margin_top_pt + env->text_h - vl_height(c->vl);
  for (guint i = 0; i < c->vl->len; i++) {
    VItem *v = &g_array_index(c->vl, VItem, i);
    if (v->kind == V_LINE)
      items_move(p->items, v->items, x, y);
    if (v->kind != V_PENALTY)
      y += v->h_pt;
  }
  g_ptr_array_add(lay->pages, p);
  build_clear(c);
}

/* Append text to p with attributes a (may be NULL; consumed) over it. */
static void runin_text(Para *p, const char *text, PangoAttribute *a, PangoAttribute *b)
{
  size_t at = p->text->len;
  para_text(p, NULL, text, 0);
  PangoAttribute *ab[2] = {a, b};
  for (int i = 0; i < 2; i++)
    if (ab[i]) {
      ab[i]->start_index = (guint)at;
      ab[i]->end_index = (guint)p->text->len;
      pango_attr_list_insert(p->attrs, ab[i]);
    }
}

/* The handout's colophon: one paragraph run in, "Colophon · Source URL ·
 * Identifier ... · Made with octavo VERSION", the heading bold and the
 * labels italic (room is short: the report's handout is three full pages). */
static void colophon_runin(Build *c, const Colophon *col)
{
  const char *lang = c->env->book->meta.lang;
  const char *sep = "\xC2\xA0\xC2\xB7 "; /* the dot never opens a line */
  PangoFontDescription *d =
      font_desc(c->st->body_face, c->st->colophon_size_pt, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  Para p;
  para_init(&p);
  runin_text(&p, labels_get(lang, LABEL_COLOPHON), pango_attr_weight_new(PANGO_WEIGHT_BOLD), NULL);
  for (guint i = 0; i < col->lines->len; i++) {
    const ColophonLine *l = &g_array_index(col->lines, ColophonLine, i);
    para_text(&p, NULL, sep, 0);
    runin_text(&p, labels_get(lang, l->label), pango_attr_style_new(PANGO_STYLE_ITALIC), NULL);
    para_text(&p, NULL, "\xC2\xA0", 0); /* the label stays with its value */
    size_t at = p.text->len;
    if (!l->link) {
      /* an identifier is not broken at its hyphens when it fits a line */
      bool whole = l->label == LABEL_IDENTIFIER && label_width(c->shp, d, l->value) < c->measure;
      runin_text(&p, l->value, whole ? pango_attr_allow_breaks_new(FALSE) : NULL, NULL);
      continue;
    }
    para_text(&p, NULL, l->value, 0); /* the text face: narrower than the code face */
    span_add(&p, SPAN_NOHYPH, at, p.text->len, NULL);
    span_add(&p, SPAN_LINK, at, p.text->len, NULL);
    g_array_index(p.spans, Span, p.spans->len - 1).href = g_strdup(l->value);
  }
  para_text(&p, NULL, sep, 0);
  para_text(&p, NULL, col->made_with, 0);
  ParaStyle ps = para_style(c, d, c->st->colophon_leading_pt);
  ps.hyphenate = false;
  ps.indent_pt = 0;
  ps.mirror = c->env->book->meta.rtl;
  c->keep = G_MAXINT / 2;
  open_tag(c, "Sect");
  set_para(c, &p, &ps, true, "P", NULL, NULL);
  close_tag(c, "Sect");
  c->keep = 0;
  pango_font_description_free(d);
  para_clear(&p);
}

void colophon_block(Build *c)
{
  const Style *st = c->st;
  want_space(c, st->colophon_leading_pt * 0.5);
  GArray *items = items_new();
  double w = MIN(c->measure, 120);
  add_rule(items, LAY_RULE, c->env->book->meta.rtl ? c->measure - w : 0, 0, w, 0.4, 0.3);
  emit_line(c, items, 0.4, 0);
  c->space = st->colophon_leading_pt * 0.25;
  c->keep = 1; /* the rule stays with the colophon */
  colophon_runin(c, c->env->colophon);
}
