/* layout/front.c: the title page, the contents (with the page numbers
 * pagination found), and the running heads and folios of the body. */
#include "layout/internal.h"

#include "cover.h"
#include "fonts.h"

#include <math.h>
#include <string.h>

char *roman(int n)
{
  static const struct {
    int v;
    const char *s;
  } r[] = {{1000, "m"}, {900, "cm"}, {500, "d"}, {400, "cd"}, {100, "c"}, {90, "xc"}, {50, "l"},
           {40, "xl"},  {10, "x"},   {9, "ix"},  {5, "v"},    {4, "iv"},  {1, "i"}};
  GString *s = g_string_new(NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(r) && n > 0; i++)
    while (n >= r[i].v) {
      g_string_append(s, r[i].s);
      n -= r[i].v;
    }
  return g_string_free(s, FALSE);
}

/* The title page: the book's cover (Book.cover decided it once: the
 * given image, else octavo's design, cover.c), the face the e-book opens
 * on too. Untagged (inside Document only): in cairo 1.16 a Sect around the
 * design failed the whole file with a tag error on Letter paper. */
void title_page(const LayEnv *env, LayShaper *shp, LayStore *store, Layout *lay, const char *title)
{
  (void)shp, (void)store, (void)title; /* the cover says the title: cover.c */
  LayPage *p = page_new();
  p->cover = true;
  PangoContext *ctx = fonts_context(lay->fonts);
  cover_items(p->items, ctx, env->book, &env->st->cover, lay->page_w_pt, lay->page_h_pt);
  g_object_unref(ctx);
  add_dest(p->items, "title-page", 0, 0);
  g_ptr_array_add(lay->pages, p);
}

/* Lines of text set ragged to c's measure, at the side the book starts
 * its lines (left, right in a book read right to left), tagged. */
static void block_text(Build *c, const char *text, const PangoFontDescription *d, double leading,
                       const char *tag)
{
  Para p;
  para_init(&p);
  para_text(&p, NULL, text, 0);
  ParaStyle ps = para_style(c, d, leading);
  ps.hyphenate = false;
  ps.mirror = c->env->book->meta.rtl;
  set_para(c, &p, &ps, true, tag, NULL, NULL);
  para_clear(&p);
}

void title_block(Build *c)
{
  const BookMeta *m = &c->env->book->meta;
  const Style *st = c->st;
  const char *lang = m->lang;
  emit_dest_pending(c, "title-page");
  Para p;
  para_init(&p);
  para_text(&p, NULL, m->title, 0);
  set_heading(c, &p, 1, NULL, NULL, true); /* the H1 of the document */
  para_clear(&p);
  c->space = 0;
  if (m->subtitle) {
    PangoFontDescription *ds =
        font_desc(st->heading_face, st->subtitle_size_pt, PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
    block_text(c, m->subtitle, ds, ceil(st->subtitle_size_pt * 1.3), "P");
    pango_font_description_free(ds);
  }
  char *by = m->authors && m->authors->len ? labels_byline(lang, m->authors) : NULL;
  char *date = labels_date(lang, m->date);
  GString *line = g_string_new(by);
  if (date)
    g_string_append_printf(line, "%s%s", line->len ? " \xC2\xB7 " : "", date);
  PangoFontDescription *db =
      font_desc(st->body_face, st->byline_size_pt, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  if (line->len) {
    want_space(c, st->byline_size_pt * 0.3);
    block_text(c, line->str, db, ceil(st->byline_size_pt * 1.35), "P");
  }
  const char *src = m->source ? m->source : m->publisher;
  if (src) {
    PangoFontDescription *dp =
        font_desc(st->body_face, st->note_size_pt, PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
    block_text(c, src, dp, st->note_leading_pt, "P");
    pango_font_description_free(dp);
  }
  /* a rule across the text block closes the title block */
  want_space(c, st->byline_size_pt * 0.4);
  GArray *items = items_new();
  add_rule(items, LAY_RULE, 0, 0, c->measure, 0.6, 0);
  /* the air under the rule is part of its line: the first block after it
   * adds none (first_block), and c->space would be dropped with it */
  emit_line(c, items, 0.6 + st->heading_after_pt * 2, LB_INFINITY);
  c->space = 0;
  c->first_block = true; /* no heading space above the first section */
  c->after_par = false;
  pango_font_description_free(db);
  g_string_free(line, TRUE);
  g_free(by);
  g_free(date);
}

/* The contents' heading line. */
static void contents_head(Build *c)
{
  PangoFontDescription *dh = font_desc(c->st->heading_face, c->st->heading_size_pt[0],
                                       PANGO_STYLE_NORMAL, PANGO_WEIGHT_BOLD);
  GArray *items = items_new();
  add_tag(items, LAY_TAG_BEGIN, "TOC");
  add_dest(items, "contents", 0, 0);
  add_tag(items, LAY_TAG_BEGIN, "H1");
  double lh = c->st->heading_size_pt[0] * 1.25;
  const char *head = labels_get(c->env->book->meta.lang, LABEL_CONTENTS);
  double x = c->env->book->meta.rtl ? c->measure - label_width(c->shp, dh, head) : 0;
  shape_label(c->shp, items, dh, head, x, baseline(c->shp, dh, lh) + c->st->chapter_drop_pt, 0);
  add_tag(items, LAY_TAG_END, "H1");
  emit_line(c, items, lh + c->st->chapter_drop_pt + c->st->heading_after_pt * 2.5, 0);
  pango_font_description_free(dh);
}

/* The fonts and measures of the contents' entries. */
typedef struct {
  PangoFontDescription *d1, *d2; /* chapters, sections */
  double numw;                   /* room for a page number */
  double pitch;                  /* of the dot leaders */
  bool rtl; /* the book reads right to left: titles at the right, numbers at the left */
} TocLook;

/* The last line of an entry: dot leaders from lw, the page number num at
 * the right; mirrored (k->rtl): the number at the left, the leaders up to
 * the title's left edge lw. */
static void toc_number(Build *c, const TocLook *k, GArray *all, const PangoFontDescription *d,
                       const char *num, double lw, double base)
{
  if (c->env->marks_only) /* the page list counts the lines, never sees them */
    return;
  double nw = label_width(c->shp, d, num);
  double nx = k->rtl ? 0 : c->measure - nw;
  /* leaders at a fixed pitch so that they align down the page */
  double x0 = ceil(((k->rtl ? nw : lw) + 6) / k->pitch) * k->pitch, x1 = (k->rtl ? lw : nx) - 6;
  int ndots = x1 > x0 ? (int)((x1 - x0) / k->pitch) : 0;
  if (ndots > 0) {
    GString *dots = g_string_new(NULL);
    for (int q = 0; q < ndots; q++)
      g_string_append(dots, ". ");
    g_string_truncate(dots, dots->len - 1);
    shape_label(c->shp, all, k->d1, dots->str, x0, base, 0.35);
    g_string_free(dots, TRUE);
  }
  shape_label(c->shp, all, d, num, nx, base, 0);
}

/* The lines of an entry's title (GArrays of items, to be freed by the
 * caller), set ragged in style ps. They do not depend on the entry's page
 * number (its room is reserved: numw), so the placeholder pass
 * (placeholders: the numbers not known yet) keeps a copy of them, which
 * the pass with the numbers takes instead of setting the title again. */
static GPtrArray *title_lines(Build *c, const TocEntry *e, Para *p, const ParaStyle *ps,
                              bool placeholders)
{
  char *key = g_strdup_printf("%d\x1f%.4f\x1f%s\x1f%s", e->depth, ps->width_pt,
                              e->dest ? e->dest : "", e->title);
  gpointer old_key = NULL, kept = NULL;
  if (!placeholders && g_hash_table_steal_extended(c->shp->toc_lines, key, &old_key, &kept)) {
    g_free(old_key);
    g_free(key);
    g_ptr_array_set_free_func(kept, NULL);
    return kept;
  }
  GPtrArray *lines = g_ptr_array_new();
  set_para(c, p, ps, true, NULL, NULL, lines);
  if (placeholders) {
    GPtrArray *copy = g_ptr_array_new_full(lines->len, (GDestroyNotify)items_free);
    for (guint li = 0; li < lines->len; li++) {
      GArray *items = items_new();
      items_append(items, lines->pdata[li], 0, 0, false);
      g_ptr_array_add(copy, items);
    }
    g_hash_table_replace(c->shp->toc_lines, g_steal_pointer(&key), copy);
  }
  g_free(key);
  return lines;
}

/* One entry: its title broken ragged, linked, the page number on its last
 * line (0 and placeholders: not known yet). */
static void toc_entry(Build *c, const TocLook *k, const TocEntry *e, int folio, bool placeholders)
{
  char num[24];
  g_snprintf(num, sizeof num, "%d", folio);
  PangoFontDescription *d = e->depth == 1 ? k->d1 : k->d2;
  double leading = e->depth == 1 ? c->st->toc_leading_pt : c->st->toc_leading_pt * 0.85;
  double indent = (e->depth - 1) * 18;
  Para p;
  para_init(&p);
  para_text(&p, NULL, e->title, 0);
  if (e->code->len && p.text->len == strlen(e->title)) {
    pango_attr_list_unref(p.attrs);
    p.attrs = code_attrs(c->st, e->code, 0);
  }
  ParaStyle ps = para_style(c, d, leading);
  ps.left_pt = indent;
  ps.width_pt = c->measure - indent - k->numw - 12 - 4 * k->pitch; /* room for a few leader dots */
  ps.hyphenate = false;
  GPtrArray *lines = title_lines(c, e, &p, &ps, placeholders);
  for (guint li = 0; li < lines->len; li++) {
    GArray *items = lines->pdata[li];
    bool lastl = li + 1 == lines->len;
    GArray *all = items_new();
    if (li == 0)
      add_tag(all, LAY_TAG_BEGIN, "TOCI");
    double lw = items_right(items, indent);
    if (k->rtl) { /* the line flush right, its indent at the right: lw its left edge */
      double dx = c->measure - indent - lw;
      for (guint q = 0; q < items->len; q++)
        g_array_index(items, LayItem, q).x_pt += dx;
      lw = indent + dx;
    }
    g_array_append_vals(all, items->data, items->len);
    g_array_free(items, TRUE);
    if (lastl)
      toc_number(c, k, all, d, num, lw, ps.base_pt);
    add_link(all, k->rtl ? 0 : indent, 0, c->measure - indent, leading, e->dest, NULL);
    if (lastl)
      add_tag(all, LAY_TAG_END, "TOCI");
    emit_line(c, all, leading, li > 0 ? LB_INFINITY : 0);
  }
  g_ptr_array_free(lines, TRUE);
  para_clear(&p);
}

/* The entries' lines (to c's measure). dest_folio may be NULL: numbers
 * not known yet (0). */
static void toc_entries(Build *c, GArray *entries, GHashTable *dest_folio)
{
  const Style *st = c->st;
  TocLook k;
  k.d1 = font_desc(st->body_face, st->toc_size_pt, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  k.d2 = font_desc(st->body_face, st->toc_size_pt * 0.95, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  k.numw = label_width(c->shp, k.d1, "0000");
  k.pitch = label_width(c->shp, k.d1, ". ");
  k.rtl = c->env->book->meta.rtl;
  for (guint i = 0; i < entries->len; i++) {
    TocEntry *e = &g_array_index(entries, TocEntry, i);
    int *folio = dest_folio ? g_hash_table_lookup(dest_folio, e->dest) : NULL;
    toc_entry(c, &k, e, folio ? *folio : 0, dest_folio == NULL);
  }
  pango_font_description_free(k.d1);
  pango_font_description_free(k.d2);
}

void contents_block(Build *c, GArray *entries, GHashTable *dest_folio)
{
  Para p;
  para_init(&p);
  para_text(&p, NULL, labels_get(c->env->book->meta.lang, LABEL_CONTENTS), 0);
  open_tag(c, "TOC");
  emit_dest_pending(c, "contents");
  set_heading(c, &p, c->env->chapter_level, NULL, NULL, false);
  para_clear(&p);
  toc_entries(c, entries, dest_folio);
  close_tag(c, "TOC");
}

/* The contents: one linked line per entry, dot leaders, the page number at
 * the right; set to the text block's width and paginated in one column on
 * front pages appended to lay. */
void contents(const LayEnv *env, LayShaper *shp, LayStore *store, Layout *lay, GArray *entries,
              GHashTable *dest_folio)
{
  const Style *st = env->st;
  Build cb, *c = &cb;
  build_init(c, env, shp, store, env->text_w);
  contents_head(c);
  toc_entries(c, entries, dest_folio);
  close_tag(c, "TOC");
  vl_end(c);
  Body fb;
  body_init(&fb);
  const Columns one = {1, env->text_w, st->column_gap_pt};
  paginate(env, store, &one, &fb, c->vl, NULL, 0);
  for (guint i = 0; i < fb.frames->len; i++) {
    Frame *f = &g_array_index(fb.frames, Frame, i);
    /* front page parity follows the physical page */
    bool rtl = env->book->meta.rtl;
    double dx =
        block_x(st, rtl, (int)lay->pages->len + 1 + (int)i) - block_x(st, rtl, f->page->folio);
    for (guint q = 0; q < f->page->items->len; q++)
      g_array_index(f->page->items, LayItem, q).x_pt += dx;
  }
  for (guint i = 0; i < fb.pages->len; i++)
    g_ptr_array_add(lay->pages, fb.pages->pdata[i]);
  body_clear(&fb);
  build_clear(c);
}

const char *chapter_title(const BookChapter *ch, const char *book_title)
{
  return ch->title && *ch->title ? ch->title : book_title;
}

PangoAttrList *code_attrs(const Style *st, const GArray *code, gsize from)
{
  PangoAttrList *l = pango_attr_list_new();
  for (guint i = 0; code && i < code->len; i++) {
    const OutlineSpan *sp = &g_array_index(code, OutlineSpan, i);
    if (sp->end <= from)
      continue;
    PangoAttribute *a[2] = {pango_attr_family_new(st->code_face), pango_attr_scale_new(0.86)};
    for (int k = 0; k < 2; k++) {
      a[k]->start_index = (guint)(MAX(sp->start, from) - from);
      a[k]->end_index = (guint)(sp->end - from);
      pango_attr_list_insert(l, a[k]);
    }
  }
  return l;
}

/* The code spans of a chapter's running head: those of its outline entry,
 * whose title ends with the chapter's (it may carry a number before it). */
static const GArray *head_code(const Outline *o, const BookChapter *ch, const char *text,
                               gsize *from)
{
  for (guint i = 0; o && i < o->entries->len; i++) {
    const OutlineEntry *e = outline_entry(o, i);
    if (e->chapter != ch)
      continue;
    size_t tl = strlen(e->title), hl = strlen(text);
    if (!e->code->len || tl < hl || strcmp(e->title + tl - hl, text) != 0)
      return NULL;
    *from = tl - hl;
    return e->code;
  }
  return NULL;
}
/* The recto's head of chapter ch: its title as the outline numbers it
 * ("3\u2002Ownership" under -N), else chapter_title's; a chapter without
 * a chapter heading (a file opening with a section's, which runs on) is
 * named as the contents name it, by its first heading. */
static const char *chapter_head(const Outline *o, const BookChapter *ch, const char *book_title)
{
  for (guint i = 0; o && i < o->entries->len; i++) {
    const OutlineEntry *e = outline_entry(o, i);
    if (e->chapter == ch && e->chapter_start)
      return (e->number || !ch->heading) && e->title && *e->title ? e->title
                                                                  : chapter_title(ch, book_title);
  }
  return chapter_title(ch, book_title);
}

/* The verso's head of the page whose first frame is b's i-th: the title
 * of the part it is in (a chapter whose heading is above the chapter
 * level: an mdBook's `# Part` line, which starts a page), else the book's.
 * A chapter beside the parts (an mdBook's prefix or suffix chapter, nest
 * -1) is in none. */
static const char *verso_head(const LayEnv *env, const Body *b, guint i, const char *book_title)
{
  for (guint k = i + 1; k-- > 0;) {
    const BookChapter *ch = g_array_index(b->frames, Frame, k).chapter;
    if (!ch || ch->nest < 0)
      break;
    if (ch->heading && ch->heading->as.heading.level < env->chapter_level && ch->title &&
        *ch->title)
      return ch->title;
  }
  return book_title;
}

/* A title shortened at a word's end with an ellipsis to fit width w. */
static char *fit_title(LayShaper *shp, const PangoFontDescription *d, const char *title,
                       PangoAttrList *attrs, double w)
{
  char *text = g_strdup(title);
  double tw =
      attrs ? shape_label_attrs(shp, NULL, d, text, attrs, 0, 0, 0) : label_width(shp, d, text);
  while (tw > w) {
    char *sp = strrchr(text, ' ');
    if (!sp)
      break;
    char *tail = g_strndup(text, (size_t)(sp - text));
    g_free(text);
    text = g_strconcat(tail, "\xE2\x80\xA6", NULL);
    g_free(tail);
    tw = attrs ? shape_label_attrs(shp, NULL, d, text, attrs, 0, 0, 0) : label_width(shp, d, text);
  }
  return text;
}

/* The handout's head (pages printed one-sided, alike): the title at the
 * left, "page N of M" at the right (the other way round in a book read
 * right to left), a rule below. */
static void handout_head(const LayEnv *env, LayShaper *shp, LayPage *p,
                         const PangoFontDescription *d, const PangoFontDescription *dn,
                         const char *title, int pages, double y)
{
  const Style *st = env->st;
  char *num = labels_page_of(env->book->meta.lang, p->folio, pages);
  bool rtl = env->book->meta.rtl;
  double x0 = block_x(st, rtl, p->folio), nw = label_width(shp, dn, num);
  char *text = fit_title(shp, d, title, NULL, env->text_w - nw - 24);
  double tw = rtl ? label_width(shp, d, text) : 0;
  shape_label(shp, p->items, d, text, rtl ? x0 + env->text_w - tw : x0, y, 0.2);
  shape_label(shp, p->items, dn, num, rtl ? x0 : x0 + env->text_w - nw, y, 0);
  add_rule(p->items, LAY_RULE, x0, y + 5, env->text_w, 0.3, 0.4);
  g_free(text);
  g_free(num);
}

void running_heads(const LayEnv *env, LayShaper *shp, Body *b, guint from, const Outline *outline,
                   const char *book_title, int total)
{
  const Style *st = env->st;
  PangoFontDescription *d =
      font_desc(st->body_face, st->head_size_pt, PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
  PangoFontDescription *dn =
      font_desc(st->body_face, st->head_size_pt + 0.5, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  for (guint i = from; i < b->frames->len; i += (guint)env->cols.n) {
    Frame *f = &g_array_index(b->frames, Frame, i);
    LayPage *p = f->page;
    char num[24];
    g_snprintf(num, sizeof num, "%d", p->folio);
    bool rtl = env->book->meta.rtl;
    double x0 = block_x(st, rtl, p->folio), x1 = x0 + env->text_w;
    if (f->opening) {
      /* a chapter's first page: the folio centred at the foot */
      double w = label_width(shp, dn, num);
      shape_label(shp, p->items, dn, num, x0 + (env->text_w - w) / 2,
                  st->margin_top_pt + env->text_h + st->folio_gap_pt, 0);
      continue;
    }
    double y = st->margin_top_pt - st->head_gap_pt;
    if (!st->chapter_new_page) {
      handout_head(env, shp, p, d, dn, book_title, total ? total : (int)b->pages->len, y);
      continue;
    }
    bool recto = p->folio % 2 == 1;
    const char *full = !recto       ? verso_head(env, b, i, book_title)
                       : f->chapter ? chapter_head(outline, f->chapter, book_title)
                                    : book_title;
    double nw = label_width(shp, dn, num);
    gsize from = 0;
    const GArray *code = recto && f->chapter && full != book_title
                             ? head_code(outline, f->chapter, full, &from)
                             : NULL;
    PangoAttrList *attrs = code ? code_attrs(st, code, from) : NULL;
    /* a title too long for the head loses words at its end */
    char *text = fit_title(shp, d, full, attrs, env->text_w - nw - 24);
    double tw =
        attrs ? shape_label_attrs(shp, NULL, d, text, attrs, 0, 0, 0) : label_width(shp, d, text);
    /* the folio on the outer side: a recto's right, a verso's left; a
     * book read right to left is bound on the right, so the other way */
    if (recto != rtl) {
      shape_label(shp, p->items, dn, num, x1 - nw, y, 0);
      shape_label_attrs(shp, p->items, d, text, attrs, MAX(x0, x1 - nw - 18 - tw), y, 0.2);
    } else {
      shape_label(shp, p->items, dn, num, x0, y, 0);
      shape_label_attrs(shp, p->items, d, text, attrs, x0 + nw + 18, y, 0.2);
    }
    if (attrs)
      pango_attr_list_unref(attrs);
    add_rule(p->items, LAY_RULE, x0, y + 5, env->text_w, 0.3, 0.4);
    g_free(text);
  }
  pango_font_description_free(d);
  pango_font_description_free(dn);
}
