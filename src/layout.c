/* layout.c: the document model -> pages, as plain data (layout.h).
 *
 * The steps, in order:
 *  1. blocks -> a vertical list per chapter (lines, glue, penalties), as in
 *     TeX: each paragraph is built as text + pango attributes, shaped once
 *     (shape.c), cut into boxes, glue and penalties at its break
 *     opportunities, broken by lb_break() (linebreak.c) and set line by line
 *     from slices of the same glyphs;
 *  2. the vertical lists -> pages (frames of the text block), breaking only
 *     where a penalty or a glue allows, with footnotes at the page foot and
 *     table headers repeated;
 *  3. the front matter (title page, contents with the page numbers found in
 *     step 2), running heads and folios, page labels, the outline, and the
 *     page marks for the EPUB.
 * No cairo calls: pdf.c draws what this produces. No recursion on input
 * depth: blocks and inlines are walked with BookIter. */
#include "layout.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fonts.h"
#include "hyphenate.h"
#include "linebreak.h"
#include "shape.h"
#include "style.h"

/* ------------------------------------------------------------------------ */
/* Items                                                                    */

void lay_item_clear(LayItem *it) {
  if (it->font)
    g_object_unref(it->font);
  if (it->glyphs)
    pango_glyph_string_free(it->glyphs);
  g_free(it->text);
  g_free(it->dest);
  g_free(it->uri);
  memset(it, 0, sizeof *it);
}

void lay_item_copy(LayItem *dst, const LayItem *src) {
  *dst = *src;
  if (src->font)
    dst->font = g_object_ref(src->font);
  if (src->glyphs)
    dst->glyphs = pango_glyph_string_copy(src->glyphs);
  dst->text = g_strdup(src->text);
  dst->dest = g_strdup(src->dest);
  dst->uri = g_strdup(src->uri);
}

static void items_free(GArray *items) {
  if (!items)
    return;
  for (guint i = 0; i < items->len; i++)
    lay_item_clear(&g_array_index(items, LayItem, i));
  g_array_free(items, TRUE);
}

static GArray *items_new(void) { return g_array_new(FALSE, TRUE, sizeof(LayItem)); }

static void add_tag(GArray *items, LayKind kind, const char *tag) {
  LayItem it = {.kind = kind, .tag = tag};
  g_array_append_val(items, it);
}

static void add_rule(GArray *items, LayKind kind, double x, double y, double w, double h, double gray) {
  LayItem it = {.kind = kind, .x_pt = x, .y_pt = y, .w_pt = w, .h_pt = h, .gray = gray};
  g_array_append_val(items, it);
}

static void add_dest(GArray *items, const char *name, double x, double y) {
  LayItem it = {.kind = LAY_DEST, .x_pt = x, .y_pt = y, .dest = g_strdup(name)};
  g_array_append_val(items, it);
}

static void add_link(GArray *items, double x, double y, double w, double h, const char *dest,
                     const char *uri) {
  LayItem it = {.kind = LAY_LINK, .x_pt = x, .y_pt = y, .w_pt = w, .h_pt = h,
                .dest = g_strdup(dest), .uri = g_strdup(uri)};
  g_array_append_val(items, it);
}

/* Append src's items to dst, moved by (dx, dy); with `plain`, only what is
 * drawn (no tags, links or destinations: a repeated table header). */
static void items_append(GArray *dst, const GArray *src, double dx, double dy, bool plain) {
  for (guint i = 0; i < src->len; i++) {
    const LayItem *s = &g_array_index(src, LayItem, i);
    if (plain && (s->kind == LAY_TAG_BEGIN || s->kind == LAY_TAG_END || s->kind == LAY_LINK ||
                  s->kind == LAY_DEST))
      continue;
    LayItem d;
    lay_item_copy(&d, s);
    d.x_pt += dx;
    d.y_pt += dy;
    g_array_append_val(dst, d);
  }
}

/* Move src's items to the end of dst, shifted by (dx, dy); src is left empty. */
static void items_move(GArray *dst, GArray *src, double dx, double dy) {
  for (guint i = 0; i < src->len; i++) {
    LayItem *s = &g_array_index(src, LayItem, i);
    s->x_pt += dx;
    s->y_pt += dy;
  }
  g_array_append_vals(dst, src->data, src->len);
  g_array_set_size(src, 0);
}

/* ------------------------------------------------------------------------ */
/* The vertical list                                                        */

typedef enum { V_LINE, V_GLUE, V_PENALTY } VKind;

typedef struct {
  VKind kind;
  double h_pt;         /* LINE: height; GLUE: space */
  double penalty;      /* PENALTY: < LB_INFINITY allows a page break here */
  bool nobreak;        /* GLUE: not a legal page break */
  GArray *items;       /* LINE: LayItem relative to (frame left, line top) */
  BookNode *mark_node; /* LINE: where its text starts in the source */
  size_t mark_off;
  GPtrArray *notes;    /* LINE: BookFootnote * first referenced on it, or NULL */
  int header;          /* LINE: index of the table header row to repeat on a new page, or -1 */
  bool shared;         /* LINE: drawn more than once (a table header): copied, not moved */
  char *trace;         /* LINE: its text, for lay_trace (owned) */
} VItem;

static void vlist_free(GArray *vl) {
  if (!vl)
    return;
  for (guint i = 0; i < vl->len; i++) {
    VItem *v = &g_array_index(vl, VItem, i);
    items_free(v->items);
    if (v->notes)
      g_ptr_array_free(v->notes, TRUE);
    g_free(v->trace);
  }
  g_array_free(vl, TRUE);
}

/* ------------------------------------------------------------------------ */
/* Context                                                                  */

typedef struct {
  PangoFontDescription *desc; /* base font of the paragraph */
  double size_pt, leading_pt, base_pt; /* base_pt: baseline below the line top */
  double left_pt, width_pt;   /* measure, from the frame's left edge */
  double indent_pt;           /* first line */
  bool justify;
  bool hyphenate;
} ParaStyle;

typedef struct {
  const Book *book;
  const OctavoOptions *opts;
  const Style *st;
  PangoContext *pctx;
  PangoLanguage *plang;
  const char *lang;
  bool hyph;
  LbParams lbp;
  LbMode mode;
  double text_w, text_h, col_w;
  int ncols;
  int chapter_level;
  /* fonts */
  PangoFontDescription *body, *bold, *italic, *mono, *head;
  /* the block walker's state */
  GArray *vl;           /* the vertical list being built */
  GArray *pending;      /* items for the start of the next line (tags, labels) */
  double space;         /* space wanted before the next block */
  bool first_block;     /* nothing emitted yet in this vertical list */
  BookOutlineLevels heads; /* the chapter's headings, for their tags' levels */
  int keep;             /* lines after a heading that must stay with it */
  bool after_par;       /* the last block was a running paragraph (indent the next) */
  double left;          /* current left indent */
  GArray *quote_x;      /* double: x of the rule of each open block quote */
  bool note_mode;       /* laying out a footnote */
  GHashTable *notes;    /* BookFootnote * -> GArray * vertical list */
  GHashTable *note_h;   /* BookFootnote * -> double * height */
  GHashTable *dests;    /* names of emitted destinations */
  GHashTable *metrics;  /* font description string -> double[2] ascent, descent */
  GPtrArray *cell_notes; /* notes referenced in the table row being set, or NULL */
  GPtrArray *note_kids;  /* layout_notes: notes first referenced in the note being set */
  GHashTable *kids;      /* BookFootnote * -> GPtrArray * of the notes it first references */
  GHashTable *targets;    /* ids a link may land on: chapters, headings, notes */
  GPtrArray *url_notes;   /* UrlNote, owned, in order */
  guint url_first;        /* the first of the current chapter */
  bool url_end;           /* --link-notes=end: the URLs listed at the chapter's end */
  bool measuring;         /* shaping to measure only (table cells): no new URL notes */
  GHashTable *hyph_cache; /* word -> GArray of size_t: its hyphenation points */
  GHashTable *hyph_w;     /* PangoFont * (a reference) -> double *: a hyphen's advance */
} Ctx;

static PangoFontDescription *font_desc(const char *family, double size, PangoStyle style,
                                       PangoWeight weight) {
  PangoFontDescription *d = pango_font_description_new();
  pango_font_description_set_family(d, family);
  pango_font_description_set_size(d, (int)lround(size * PANGO_SCALE));
  pango_font_description_set_style(d, style);
  pango_font_description_set_weight(d, weight);
  return d;
}

/* Baseline position inside a line of `leading` for font desc. */
static double baseline(Ctx *c, const PangoFontDescription *d, double leading) {
  /* pango_context_get_metrics() is slow (it shapes sample text): cache by font */
  char *key = pango_font_description_to_string(d);
  double *am = g_hash_table_lookup(c->metrics, key);
  if (!am) {
    PangoFontMetrics *m = pango_context_get_metrics(c->pctx, d, c->plang);
    am = g_new(double, 2);
    am[0] = pango_font_metrics_get_ascent(m) / (double)PANGO_SCALE;
    am[1] = pango_font_metrics_get_descent(m) / (double)PANGO_SCALE;
    pango_font_metrics_unref(m);
    g_hash_table_insert(c->metrics, key, am);
  } else
    g_free(key);
  return (leading - (am[0] + am[1])) / 2 + am[0];
}

/* The left indent, clamped so that deep nesting keeps half the column. */
static double left_of(const Ctx *c) { return MIN(c->left, c->col_w * 0.5); }

static ParaStyle para_style(Ctx *c, const PangoFontDescription *d, double leading) {
  ParaStyle ps = {0};
  ps.desc = (PangoFontDescription *)d;
  ps.size_pt = pango_font_description_get_size(d) / (double)PANGO_SCALE;
  ps.leading_pt = leading;
  ps.base_pt = baseline(c, d, leading);
  ps.left_pt = left_of(c);
  ps.width_pt = c->col_w - ps.left_pt;
  ps.justify = c->st->justify;
  ps.hyphenate = c->hyph;
  return ps;
}

/* ------------------------------------------------------------------------ */
/* Paragraph text                                                           */

typedef enum { SPAN_LINK, SPAN_STRIKE, SPAN_CODE, SPAN_FNREF, SPAN_NOHYPH, SPAN_URLNOTE } SpanKind;

/* A link's URL printed for paper (issue 6): a lettered note at the foot of
 * the page, or in a list at the chapter's end (--link-notes=end). */
typedef struct {
  char *id;    /* its destination */
  char *label; /* "a", "b", ... "aa", per chapter */
  char *uri;
} UrlNote;

static void url_note_free(gpointer p) {
  UrlNote *u = p;
  g_free(u->id);
  g_free(u->label);
  g_free(u->uri);
  g_free(u);
}

typedef struct {
  size_t start, len;
  BookNode *node;
  size_t node_off;
} Src;

typedef struct {
  SpanKind kind;
  size_t a, b;
  BookNode *node;
  char *href; /* LINK to an external URI (owned), or NULL */
  char *dest; /* LINK internal, FNREF: the note's destination (owned) */
  char *self; /* FNREF: the reference's own destination (owned) */
  gpointer key; /* FNREF: the BookFootnote; URLNOTE: the UrlNote */
} Span;

typedef struct {
  GString *text;
  PangoAttrList *attrs;
  GArray *srcs;  /* Src */
  GArray *spans; /* Span */
} Para;

static void para_init(Para *p) {
  p->text = g_string_new(NULL);
  p->attrs = pango_attr_list_new();
  p->srcs = g_array_new(FALSE, TRUE, sizeof(Src));
  p->spans = g_array_new(FALSE, TRUE, sizeof(Span));
}

static void para_clear(Para *p) {
  g_string_free(p->text, TRUE);
  pango_attr_list_unref(p->attrs);
  g_array_free(p->srcs, TRUE);
  for (guint i = 0; i < p->spans->len; i++) {
    Span *s = &g_array_index(p->spans, Span, i);
    g_free(s->href);
    g_free(s->dest);
    g_free(s->self);
  }
  g_array_free(p->spans, TRUE);
}

static void attr_add(Para *p, PangoAttribute *a, size_t start, size_t end) {
  a->start_index = (guint)start;
  a->end_index = (guint)end;
  pango_attr_list_insert(p->attrs, a);
}

/* Append source text, keeping where it came from; control characters
 * become spaces (pango would draw them as boxes). */
static void para_text(Para *p, BookNode *node, const char *t, size_t node_off) {
  if (!t || !*t)
    return;
  Src s = {p->text->len, strlen(t), node, node_off};
  g_array_append_val(p->srcs, s);
  size_t at = p->text->len;
  if (g_utf8_validate(t, -1, NULL))
    g_string_append(p->text, t);
  else {
    char *v = g_utf8_make_valid(t, -1);
    g_string_append(p->text, v);
    g_free(v);
  }
  for (size_t i = at; i < p->text->len; i++)
    if ((unsigned char)p->text->str[i] < 0x20)
      p->text->str[i] = ' ';
}

static void span_add(Para *p, SpanKind kind, size_t a, size_t b, BookNode *node) {
  Span s = {kind, a, b, node, NULL, NULL, NULL, NULL};
  g_array_append_val(p->spans, s);
}

static const char *html_attr(const BookNode *n, const char *name) {
  for (char **a = n->as.html.attrs; a && a[0] && a[1]; a += 2)
    if (strcmp(a[0], name) == 0)
      return a[1];
  return NULL;
}

static bool uri_external(const char *href) {
  return href && (g_str_has_prefix(href, "http://") || g_str_has_prefix(href, "https://") ||
                  g_str_has_prefix(href, "mailto:") || g_str_has_prefix(href, "ftp://"));
}

/* The text and attributes of `parent`'s inline children. */
static void para_inlines(Ctx *c, Para *p, BookNode *parent) {
  GArray *starts = g_array_new(FALSE, FALSE, sizeof(size_t));
  BookIter it;
  book_iter_init(&it, parent);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (n == parent)
      continue;
    size_t len = p->text->len;
    if (ev == BOOK_ITER_ENTER) {
      switch (n->type) {
      case BOOK_TEXT:
        para_text(p, n, n->text, 0);
        break;
      case BOOK_CODE:
        para_text(p, n, n->text, 0);
        attr_add(p, pango_attr_family_new(c->st->code_face), len, p->text->len);
        attr_add(p, pango_attr_scale_new(0.86), len, p->text->len);
        span_add(p, SPAN_CODE, len, p->text->len, n);
        break;
      case BOOK_SOFTBREAK:
        g_string_append_c(p->text, ' ');
        break;
      case BOOK_LINEBREAK:
        g_string_append_c(p->text, '\n');
        break;
      case BOOK_FOOTNOTE_REF: {
        BookFootnote *fn = n->as.fnref.note;
        if (!fn)
          break;
        char num[24];
        g_snprintf(num, sizeof num, "%d", fn->number);
        g_string_append(p->text, num);
        attr_add(p, pango_attr_scale_new(0.68), len, p->text->len);
        attr_add(p, pango_attr_rise_new((int)(c->st->body_size_pt * 0.36 * PANGO_SCALE)), len,
                 p->text->len);
        span_add(p, SPAN_FNREF, len, p->text->len, n);
        Span *s = &g_array_index(p->spans, Span, p->spans->len - 1);
        s->dest = g_strdup(fn->id);
        s->self = g_strdup_printf("%s-ref-%d", fn->id, n->as.fnref.ref_index);
        break;
      }
      default:
        if (!book_node_is_inline(n->type))
          book_iter_skip_children(&it);
        g_array_append_val(starts, len);
        break;
      }
      continue;
    }
    /* EXIT of an inline container */
    size_t s = len;
    if (starts->len) {
      s = g_array_index(starts, size_t, starts->len - 1);
      g_array_set_size(starts, starts->len - 1);
    }
    if (s >= len)
      continue;
    switch (n->type) {
    case BOOK_EMPH:
      attr_add(p, pango_attr_style_new(PANGO_STYLE_ITALIC), s, len);
      break;
    case BOOK_STRONG:
      attr_add(p, pango_attr_weight_new(PANGO_WEIGHT_BOLD), s, len);
      break;
    case BOOK_STRIKE:
      span_add(p, SPAN_STRIKE, s, len, n);
      break;
    case BOOK_LINK: {
      span_add(p, SPAN_LINK, s, len, n);
      Span *sp = &g_array_index(p->spans, Span, p->spans->len - 1);
      if (n->as.link.internal && n->as.link.chapter) {
        /* a fragment no heading or note carries points at its chapter */
        const char *frag = n->as.link.fragment;
        bool known = frag && g_hash_table_contains(c->targets, frag);
        sp->dest = g_strdup(known ? frag : n->as.link.chapter->id);
      }
      else if (!n->as.link.internal && uri_external(n->as.link.href))
        sp->href = g_strdup(n->as.link.href);
      if (n->as.link.href && g_str_has_prefix(n->as.link.href, "http"))
        span_add(p, SPAN_NOHYPH, s, len, n);
      const char *href = n->as.link.href;
      if (!n->as.link.internal && uri_external(href) && !c->note_mode && !c->measuring) {
        /* the URL for paper, unless the text already is it */
        char *shown = g_strndup(p->text->str + s, len - s);
        const char *bare = g_str_has_prefix(href, "mailto:") ? href + 7 : href;
        if (strcmp(shown, href) != 0 && strcmp(shown, bare) != 0) {
          UrlNote *u = g_new0(UrlNote, 1);
          guint k = c->url_notes->len - c->url_first;
          GString *lab = g_string_new(NULL);
          for (guint v = k + 1; v > 0; v = (v - 1) / 26)
            g_string_prepend_c(lab, (char)('a' + (v - 1) % 26));
          u->label = g_string_free(lab, FALSE);
          u->id = g_strdup_printf("url-%u", c->url_notes->len + 1);
          u->uri = g_strdup(href);
          g_ptr_array_add(c->url_notes, u);
          /* a narrow no-break space keeps the letter apart from its word */
          g_string_append(p->text, "\xE2\x80\xAF");
          size_t m0 = p->text->len;
          g_string_append(p->text, u->label);
          attr_add(p, pango_attr_scale_new(0.68), m0, p->text->len);
          attr_add(p, pango_attr_style_new(PANGO_STYLE_ITALIC), m0, p->text->len);
          attr_add(p, pango_attr_rise_new((int)(c->st->body_size_pt * 0.36 * PANGO_SCALE)), m0,
                   p->text->len);
          span_add(p, SPAN_URLNOTE, m0, p->text->len, n);
          Span *us = &g_array_index(p->spans, Span, p->spans->len - 1);
          us->dest = g_strdup(u->id);
          us->key = u;
        }
        g_free(shown);
      } else if (!n->as.link.internal && uri_external(href) && c->note_mode && !c->measuring) {
        /* in a footnote (no note of a note): the URL in parentheses after
         * the text, a live link itself, unless the text already is it */
        char *shown = g_strndup(p->text->str + s, len - s);
        const char *bare = g_str_has_prefix(href, "mailto:") ? href + 7 : href;
        if (strcmp(shown, href) != 0 && strcmp(shown, bare) != 0) {
          g_string_append(p->text, " (");
          size_t u0 = p->text->len;
          para_text(p, NULL, bare, 0);
          size_t u1 = p->text->len;
          g_string_append_c(p->text, ')');
          span_add(p, SPAN_NOHYPH, u0, u1, n);
          span_add(p, SPAN_LINK, u0, u1, n);
          g_array_index(p->spans, Span, p->spans->len - 1).href = g_strdup(href);
        }
        g_free(shown);
      }
      break;
    }
    case BOOK_HTML_INLINE: {
      const char *t = n->as.html.tag ? n->as.html.tag : "";
      if (!strcmp(t, "em") || !strcmp(t, "i") || !strcmp(t, "cite") || !strcmp(t, "dfn") ||
          !strcmp(t, "var"))
        attr_add(p, pango_attr_style_new(PANGO_STYLE_ITALIC), s, len);
      else if (!strcmp(t, "strong") || !strcmp(t, "b"))
        attr_add(p, pango_attr_weight_new(PANGO_WEIGHT_BOLD), s, len);
      else if (!strcmp(t, "code") || !strcmp(t, "kbd") || !strcmp(t, "samp") || !strcmp(t, "tt")) {
        attr_add(p, pango_attr_family_new(c->st->code_face), s, len);
        attr_add(p, pango_attr_scale_new(0.86), s, len);
        span_add(p, SPAN_CODE, s, len, n);
      } else if (!strcmp(t, "sup") || !strcmp(t, "sub")) {
        attr_add(p, pango_attr_scale_new(0.7), s, len);
        double r = (!strcmp(t, "sup") ? 0.36 : -0.18) * c->st->body_size_pt;
        attr_add(p, pango_attr_rise_new((int)(r * PANGO_SCALE)), s, len);
      } else if (!strcmp(t, "s") || !strcmp(t, "del") || !strcmp(t, "strike"))
        span_add(p, SPAN_STRIKE, s, len, n);
      else if (!strcmp(t, "a") && uri_external(html_attr(n, "href"))) {
        span_add(p, SPAN_LINK, s, len, n);
        g_array_index(p->spans, Span, p->spans->len - 1).href = g_strdup(html_attr(n, "href"));
      }
      break;
    }
    default:
      break;
    }
  }
  g_array_free(starts, TRUE);
}

/* Where byte `at` of the paragraph comes from. */
static void para_mark(const Para *p, size_t at, BookNode **node, size_t *off) {
  for (guint i = 0; i < p->srcs->len; i++) {
    const Src *s = &g_array_index(p->srcs, Src, i);
    if (at < s->start + s->len || i + 1 == p->srcs->len) {
      *node = s->node;
      *off = s->node_off + (at > s->start ? MIN(at - s->start, s->len) : 0);
      return;
    }
  }
  *node = NULL;
  *off = 0;
}

/* Per-byte flags of the spans that change how text breaks: computed once,
 * so that asking about every word stays linear in the paragraph. */
enum { F_CODE = 1, F_NOHYPH = 2 };

static guint8 *span_flags(const Para *p) {
  guint8 *f = g_new0(guint8, p->text->len + 1);
  for (guint i = 0; i < p->spans->len; i++) {
    const Span *s = &g_array_index(p->spans, Span, i);
    guint8 bit = s->kind == SPAN_CODE ? F_CODE : s->kind == SPAN_NOHYPH ? F_NOHYPH : 0;
    for (size_t k = s->a; bit && k < s->b && k < p->text->len; k++)
      f[k] |= bit;
  }
  return f;
}

static gint cmp_span(gconstpointer a, gconstpointer b) {
  const Span *x = a, *y = b;
  return x->a < y->a ? -1 : x->a > y->a ? 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Emitting lines into the vertical list                                    */

static VItem *vl_last_line(GArray *vl) {
  for (guint i = vl->len; i-- > 0;) {
    VItem *v = &g_array_index(vl, VItem, i);
    if (v->kind == V_LINE)
      return v;
  }
  return NULL;
}

static void vl_glue(Ctx *c, double h, bool nobreak) {
  VItem v = {.kind = V_GLUE, .h_pt = h, .nobreak = nobreak, .header = -1};
  g_array_append_val(c->vl, v);
}

static void vl_penalty(Ctx *c, double pen) {
  VItem v = {.kind = V_PENALTY, .penalty = pen, .header = -1};
  g_array_append_val(c->vl, v);
}

/* Append a line. `pen` is the cost of a page break just before it (when
 * nothing else between it and the last line says so). The pending items
 * (tags, list labels) go first in it. Takes ownership of items. */
static VItem *emit_line(Ctx *c, GArray *items, double h, double pen) {
  bool keep = c->keep > 0;
  if (keep)
    c->keep--;
  if (!c->first_block) {
    if (c->space > 0)
      vl_glue(c, c->space, keep || pen >= LB_INFINITY);
    else
      vl_penalty(c, keep ? LB_INFINITY : pen);
  }
  c->space = 0;
  c->first_block = false;
  GArray *all = items_new();
  if (c->pending->len) {
    g_array_append_vals(all, c->pending->data, c->pending->len);
    g_array_set_size(c->pending, 0); /* moved, not copied */
  }
  g_array_append_vals(all, items->data, items->len);
  g_array_free(items, TRUE);
  /* the rules of the open block quotes (the innermost few: deep nesting
   * would otherwise draw thousands per line) */
  guint nq = c->quote_x->len, q0 = nq > 6 ? nq - 6 : 0;
  for (guint q = q0; q < nq; q++) {
    double qx = g_array_index(c->quote_x, double, q);
    if (qx < c->col_w * 0.5)
      add_rule(all, LAY_RULE, qx, 0, 1.2, h, 0.55);
  }
  VItem v = {.kind = V_LINE, .h_pt = h, .items = all, .header = -1};
  g_array_append_val(c->vl, v);
  return &g_array_index(c->vl, VItem, c->vl->len - 1);
}

static void want_space(Ctx *c, double s) {
  if (s > c->space)
    c->space = s;
}

static void open_tag(Ctx *c, const char *tag) { add_tag(c->pending, LAY_TAG_BEGIN, tag); }

/* Close a tag: after the last line, or in the pending items when they
 * still hold what it would close. */
static void close_tag(Ctx *c, const char *tag) {
  VItem *last = vl_last_line(c->vl);
  if (c->pending->len || !last)
    add_tag(c->pending, LAY_TAG_END, tag);
  else
    add_tag(last->items, LAY_TAG_END, tag);
}

/* Glyph items of a short string in font d (labels, folios, headers):
 * shaped once on its own. Returns the width; appends at (x, y). */
static double shape_label(Ctx *c, GArray *items, const PangoFontDescription *d, const char *str,
                          double x, double y, double gray) {
  pango_context_set_font_description(c->pctx, d);
  Shaped *sh = shape_text(c->pctx, str, strlen(str), NULL, c->plang);
  GArray *sl = g_array_new(FALSE, TRUE, sizeof(ShapeSlice));
  shape_slices(sh, 0, sh->len, sl);
  double x0 = x;
  for (guint i = 0; i < sl->len; i++) {
    ShapeSlice *s = &g_array_index(sl, ShapeSlice, i);
    if (items) {
      LayItem it = {.kind = LAY_GLYPHS, .x_pt = x, .y_pt = y - s->rise_pt, .gray = gray,
                    .font = s->font, .glyphs = s->glyphs,
                    .text = g_strndup(sh->text + s->start, s->end - s->start)};
      g_array_append_val(items, it);
      s->font = NULL;
      s->glyphs = NULL;
    }
    x += s->width_pt;
    shape_slice_clear(s);
  }
  g_array_free(sl, TRUE);
  shape_free(sh);
  return x - x0;
}

/* The width of a short string, cached (bullets, numbers, folios repeat). */
static double label_width(Ctx *c, const PangoFontDescription *d, const char *str) {
  char *fd = pango_font_description_to_string(d);
  char *key = g_strconcat(fd, "\x1f", str, NULL);
  g_free(fd);
  double *w = g_hash_table_lookup(c->metrics, key);
  if (w) {
    g_free(key);
    return *w;
  }
  w = g_new(double, 2); /* the table frees double[2] values */
  w[0] = shape_label(c, NULL, d, str, 0, 0, 0);
  g_hash_table_insert(c->metrics, key, w);
  return w[0];
}

/* ------------------------------------------------------------------------ */
/* Setting a paragraph                                                      */

typedef enum { M_BOX, M_GLUE, M_PEN } MetaKind;
typedef struct {
  size_t a, b; /* bytes */
  MetaKind kind;
  bool hyphen; /* PEN: draws a hyphen when broken */
} Meta;

static void push(GArray *items, GArray *meta, LbItem it, size_t a, size_t b, MetaKind k, bool hy) {
  g_array_append_val(items, it);
  Meta m = {a, b, k, hy};
  g_array_append_val(meta, m);
}

static bool is_dash(gunichar ch) {
  return ch == '-' || ch == 0x2010 || ch == 0x2013 || ch == 0x2014;
}

/* The hyphenation points of a word, from a cache: words repeat, and
 * libhyphen is not free. */
static void word_points(Ctx *c, const char *w, size_t len, GArray *out) {
  char *key = g_strndup(w, len);
  GArray *pts = g_hash_table_lookup(c->hyph_cache, key);
  if (!pts) {
    pts = g_array_new(FALSE, FALSE, sizeof(size_t));
    hyphen_points(c->lang, key, (gssize)len, pts);
    g_hash_table_insert(c->hyph_cache, key, pts);
  } else
    g_free(key);
  g_array_set_size(out, 0);
  g_array_append_vals(out, pts->data, pts->len);
}

/* The advance of a hyphen in the font at byte `at`, shaped once per font. */
static double hyphen_width(Ctx *c, const Shaped *sh, size_t at) {
  const ShapeRun *r = shape_run_at(sh, at);
  PangoFont *font = r ? r->item->analysis.font : NULL;
  double *w = font ? g_hash_table_lookup(c->hyph_w, font) : NULL;
  if (w)
    return *w;
  PangoFont *f = NULL;
  PangoGlyphString *hg = shape_extra(sh, at, "-", &f);
  double hw = pango_glyph_string_get_width(hg) / (double)PANGO_SCALE;
  pango_glyph_string_free(hg);
  if (f)
    g_object_unref(f);
  if (font) {
    w = g_new(double, 1);
    *w = hw;
    g_hash_table_insert(c->hyph_w, g_object_ref(font), w); /* the key keeps the font alive */
  }
  return hw;
}

static void array_free(gpointer a) { g_array_free(a, TRUE); }
static void ptr_array_free(gpointer a) { g_ptr_array_free(a, TRUE); }

/* Boxes, glue and penalties for the shaped text (flags: span_flags(p)). */
static void build_items(Ctx *c, const Para *p, const Shaped *sh, const ParaStyle *ps, bool ragged,
                        const guint8 *flags, GArray *items, GArray *meta) {
  const char *t = sh->text;
  int n = sh->nchars;
  GArray *hp = g_array_new(FALSE, FALSE, sizeof(size_t));
  for (int i = 0; i < n;) {
    size_t b0 = (size_t)sh->char_byte[i];
    gunichar ch = g_utf8_get_char(t + b0);
    if (ch == '\n') {
      push(items, meta, (LbItem){.type = LB_GLUE, .stretch = LB_FIL}, b0, b0, M_GLUE, false);
      push(items, meta, (LbItem){.type = LB_PENALTY, .penalty = -LB_INFINITY}, b0, b0 + 1, M_PEN,
           false);
      i++;
      continue;
    }
    bool white = sh->log[i].is_white && ch != 0xA0 && ch != 0x202F;
    if (white) {
      int j = i;
      while (j < n && sh->log[j].is_white && t[sh->char_byte[j]] != '\n' &&
             g_utf8_get_char(t + sh->char_byte[j]) != 0xA0)
        j++;
      size_t b1 = (size_t)sh->char_byte[j];
      double w = shape_width_pt(sh, b0, b1);
      bool code = b0 < p->text->len && (flags[b0] & F_CODE);
      LbItem g = {.type = LB_GLUE, .width = w};
      if (ragged)
        g.stretch = 3 * ps->size_pt;
      else if (!code) {
        g.stretch = w * 0.5;
        g.shrink = w * 0.4; /* linebreak.h: TeX's 1/3 starves narrow measures */
      }
      push(items, meta, g, b0, b1, M_GLUE, false);
      i = j;
      continue;
    }
    int j = i + 1;
    while (j < n && !sh->log[j].is_line_break &&
           !(sh->log[j].is_white && g_utf8_get_char(t + sh->char_byte[j]) != 0xA0))
      j++;
    size_t b1 = (size_t)sh->char_byte[j];
    double w = shape_width_pt(sh, b0, b1);
    /* Hyphenation points of a word (not code, not URLs). */
    g_array_set_size(hp, 0);
    if (ps->hyphenate && !ragged && j - i >= 5 && b0 < p->text->len &&
        !(flags[b0] & (F_CODE | F_NOHYPH)))
      word_points(c, t + b0, b1 - b0, hp);
    bool emergency = j - i >= 8 || w > ps->width_pt * 0.3;
    size_t from = b0;
    if (hp->len) {
      double hw = hyphen_width(c, sh, b0);
      for (guint k = 0; k < hp->len; k++) {
        size_t at = b0 + g_array_index(hp, size_t, k);
        push(items, meta, (LbItem){.type = LB_BOX, .width = shape_width_pt(sh, from, at)}, from, at,
             M_BOX, false);
        push(items, meta,
             (LbItem){.type = LB_PENALTY, .width = hw, .penalty = c->lbp.hyphen_penalty,
                      .flagged = true, .hyphenation = true},
             at, at, M_PEN, true);
        from = at;
      }
    } else if (emergency) {
      /* a long word or URL: last-resort breaks between characters */
      for (int k = i + 1; k < j; k++) {
        if (!sh->log[k].is_cursor_position)
          continue;
        size_t at = (size_t)sh->char_byte[k];
        char prev = t[at - 1];
        bool soft = prev == '/' || prev == '+' || prev == '_' || prev == '.';
        push(items, meta, (LbItem){.type = LB_BOX, .width = shape_width_pt(sh, from, at)}, from, at,
             M_BOX, false);
        push(items, meta,
             (LbItem){.type = LB_PENALTY, .penalty = soft ? 500 : c->lbp.emergency_penalty,
                      .emergency = true},
             at, at, M_PEN, false);
        from = at;
      }
    }
    push(items, meta, (LbItem){.type = LB_BOX, .width = shape_width_pt(sh, from, b1)}, from, b1,
         M_BOX, false);
    if (j < n && sh->log[j].is_line_break && !sh->log[j].is_white) {
      gunichar prev = g_utf8_get_char(g_utf8_prev_char(t + b1));
      bool dash = is_dash(prev);
      push(items, meta,
           (LbItem){.type = LB_PENALTY, .penalty = dash ? c->lbp.exhyphen_penalty : 100,
                    .flagged = dash},
           b1, b1, M_PEN, false);
    }
    i = j;
  }
  g_array_free(hp, TRUE);
  /* TeX's ending: no break before the finishing glue, then a forced break */
  while (items->len && g_array_index(items, LbItem, items->len - 1).type == LB_GLUE) {
    g_array_set_size(items, items->len - 1);
    g_array_set_size(meta, meta->len - 1);
  }
  push(items, meta, (LbItem){.type = LB_PENALTY, .penalty = LB_INFINITY}, sh->len, sh->len, M_PEN,
       false);
  push(items, meta, (LbItem){.type = LB_GLUE, .stretch = LB_FIL}, sh->len, sh->len, M_GLUE, false);
  push(items, meta, (LbItem){.type = LB_PENALTY, .penalty = -LB_INFINITY}, sh->len, sh->len, M_PEN,
       false);
}

typedef struct {
  size_t byte;
  double x;
} XPos;

static double x_at(const GArray *xs, size_t byte) {
  for (guint i = 0; i < xs->len; i++)
    if (g_array_index(xs, XPos, i).byte >= byte)
      return g_array_index(xs, XPos, i).x;
  return xs->len ? g_array_index(xs, XPos, xs->len - 1).x : 0;
}

typedef struct {
  int nlines;
  double last_w;     /* width of the last line */
  double max_w;      /* widest line */
} SetInfo;

/* Does the glyph at `byte` belong to a glue item (a word space) of the line
 * ending at item e? *gk is a cursor over the items, moved forward only. */
static bool glyph_in_glue(const GArray *meta, size_t *gk, size_t e, size_t byte) {
  while (*gk < e && g_array_index(meta, Meta, *gk).b <= byte)
    (*gk)++;
  return *gk < e && g_array_index(meta, Meta, *gk).kind == M_GLUE &&
         byte >= g_array_index(meta, Meta, *gk).a;
}

/* Is there a gap between letters after glyph gi of slice k: the glyph ends a
 * cluster, is not code, and the next glyph of the line starts another
 * cluster of the same word (not a word space, not the end of the line)?
 * gk: the glue cursor at glyph gi. */
static bool letter_gap_after(const GArray *slices, guint k, int gi, const GArray *meta,
                             size_t gk, size_t e, const guint8 *flags, size_t flen) {
  const ShapeSlice *sl = &g_array_index(slices, ShapeSlice, k);
  const PangoGlyphString *g = sl->glyphs;
  size_t byte = sl->start + (size_t)g->log_clusters[gi];
  if (byte >= flen || (flags[byte] & F_CODE))
    return false;
  size_t next;
  if (gi + 1 < g->num_glyphs)
    next = sl->start + (size_t)g->log_clusters[gi + 1];
  else if (k + 1 < slices->len) {
    const ShapeSlice *n = &g_array_index(slices, ShapeSlice, k + 1);
    if (n->glyphs->num_glyphs == 0)
      return false;
    next = n->start + (size_t)n->glyphs->log_clusters[0];
  } else
    return false;
  if (next <= byte || next >= flen || (flags[next] & F_CODE))
    return false; /* the same cluster (a mark), or right to left */
  return !glyph_in_glue(meta, &gk, e, next);
}

/* The letter spacing of a justified line stretched by `ratio`: the part of
 * its stretch beyond what brings the word spaces to st.track_from times
 * their width goes between letters, up to st.track_max_em per gap (style.h).
 * Returns the glue ratio that remains, and the spacing per gap in *track. */
static double line_tracking(const Ctx *c, const ParaStyle *ps, const GArray *items,
                            const GArray *meta, size_t s, size_t e, const GArray *slices,
                            const guint8 *flags, size_t flen, double ratio, double *track) {
  *track = 0;
  if (c->st->track_max_em <= 0 || c->st->track_from < 1) /* style.c: 0 (off) or >= 1 */
    return ratio;
  double nat = 0, str = 0;
  for (size_t i = s; i < e; i++) {
    const LbItem *it = &g_array_index(items, LbItem, i);
    if (it->type == LB_GLUE && it->stretch < LB_FIL) {
      nat += it->width;
      str += it->stretch;
    }
  }
  double slack = ratio * str, keep = (c->st->track_from - 1) * nat;
  if (str <= 0 || slack <= keep)
    return ratio;
  size_t gaps = 0, gk = s;
  for (guint k = 0; k < slices->len; k++) {
    const ShapeSlice *sl = &g_array_index(slices, ShapeSlice, k);
    for (int gi = 0; gi < sl->glyphs->num_glyphs; gi++) {
      size_t byte = sl->start + (size_t)sl->glyphs->log_clusters[gi];
      if (!glyph_in_glue(meta, &gk, e, byte) && letter_gap_after(slices, k, gi, meta, gk, e, flags, flen))
        gaps++;
    }
  }
  if (gaps == 0)
    return ratio;
  double letters = MIN(slack - keep, gaps * c->st->track_max_em * ps->size_pt);
  *track = letters / gaps;
  return (slack - letters) / str;
}

/* Shape p once, break it, and either emit its lines into c->vl (out ==
 * NULL) or append them to `out` (cells: items relative to the cell, one
 * GArray of items per line). `tag` wraps the lines (NULL: none). */
static SetInfo set_para(Ctx *c, Para *p, const ParaStyle *ps, bool ragged, const char *tag,
                        BookNode *block, GPtrArray *out) {
  SetInfo info = {0};
  pango_context_set_font_description(c->pctx, ps->desc);
  Shaped *sh = shape_text(c->pctx, p->text->str, p->text->len, p->attrs, c->plang);
  GArray *items = g_array_new(FALSE, TRUE, sizeof(LbItem));
  GArray *meta = g_array_new(FALSE, TRUE, sizeof(Meta));
  guint8 *flags = span_flags(p); /* for the items and the letter spacing */
  build_items(c, p, sh, ps, ragged, flags, items, meta);
  double widths[2] = {ps->width_pt - ps->indent_pt, ps->width_pt};
  GArray *lines = g_array_new(FALSE, TRUE, sizeof(LbLine));
  lb_break((const LbItem *)items->data, items->len, widths, 2, &c->lbp, ragged ? LB_GREEDY : c->mode,
           lines);
  if (tag && !out)
    open_tag(c, tag);
  GArray *slices = g_array_new(FALSE, TRUE, sizeof(ShapeSlice));
  GArray *xs = g_array_new(FALSE, FALSE, sizeof(XPos));
  int nl = (int)lines->len;
  info.nlines = nl;
  g_array_sort(p->spans, cmp_span); /* by start: each line looks at its own */
  guint span0 = 0;
  for (int li = 0; li < nl; li++) {
    const LbLine *ln = &g_array_index(lines, LbLine, li);
    size_t s = ln->start, e = ln->end;
    while (s < e && g_array_index(meta, Meta, s).kind != M_BOX)
      s++;
    size_t last = e;
    while (last > s && g_array_index(meta, Meta, last - 1).kind != M_BOX)
      last--;
    size_t a = s < e ? g_array_index(meta, Meta, s).a : 0;
    size_t b = last > s ? g_array_index(meta, Meta, last - 1).b : a;
    double ratio = (!ragged && ps->justify) ? ln->ratio : 0;
    if (ratio < -1)
      ratio = -1;
    GArray *li_items = items_new();
    double x = ps->left_pt + (li == 0 ? ps->indent_pt : 0);
    double y = ps->base_pt;
    g_array_set_size(slices, 0);
    g_array_set_size(xs, 0);
    if (a < b)
      shape_slices(sh, a, b, slices);
    double track = 0; /* letter spacing of this line, points per gap */
    if (ratio > 0)
      ratio = line_tracking(c, ps, items, meta, s, e, slices, flags, p->text->len, ratio, &track);
    size_t gk = s; /* glue cursor in items */
    for (guint k = 0; k < slices->len; k++) {
      ShapeSlice *sl = &g_array_index(slices, ShapeSlice, k);
      PangoGlyphString *g = sl->glyphs;
      double x0 = x;
      for (int gi = 0; gi < g->num_glyphs; gi++) {
        size_t byte = sl->start + (size_t)g->log_clusters[gi];
        XPos xp = {byte, x};
        g_array_append_val(xs, xp);
        bool glue = glyph_in_glue(meta, &gk, e, byte);
        double w = g->glyphs[gi].geometry.width / (double)PANGO_SCALE;
        if (glue) {
          if (ratio != 0) {
            const LbItem *gl = &g_array_index(items, LbItem, gk);
            double delta = ratio > 0 ? ratio * gl->stretch : ratio * gl->shrink;
            if (gl->width > 0)
              w += delta * (w / gl->width);
            g->glyphs[gi].geometry.width = (int)lround(w * PANGO_SCALE);
            w = g->glyphs[gi].geometry.width / (double)PANGO_SCALE;
          }
        } else if (track > 0 && letter_gap_after(slices, k, gi, meta, gk, e, flags, p->text->len)) {
          w += track;
          g->glyphs[gi].geometry.width = (int)lround(w * PANGO_SCALE);
          w = g->glyphs[gi].geometry.width / (double)PANGO_SCALE;
        }
        x += w;
      }
      LayItem it = {.kind = LAY_GLYPHS, .x_pt = x0, .y_pt = y - sl->rise_pt, .font = sl->font,
                    .glyphs = g, .text = g_strndup(sh->text + sl->start, sl->end - sl->start)};
      g_array_append_val(li_items, it);
      sl->font = NULL;
      sl->glyphs = NULL;
    }
    XPos xend = {b, x};
    g_array_append_val(xs, xend);
    /* a hyphen at an automatic hyphenation point: the only re-shaping */
    if (ln->hyphen && e < meta->len && g_array_index(meta, Meta, e).hyphen && b > 0) {
      PangoFont *f = NULL;
      PangoGlyphString *hg = shape_extra(sh, b - 1, "-", &f);
      if (f) {
        for (int gi = 0; gi < hg->num_glyphs; gi++)
          hg->log_clusters[gi] = 0;
        LayItem it = {.kind = LAY_GLYPHS, .x_pt = x, .y_pt = y, .font = f, .glyphs = hg,
                      .text = g_strdup("\xC2\xAD")};
        g_array_append_val(li_items, it);
        x += pango_glyph_string_get_width(hg) / (double)PANGO_SCALE;
      } else
        pango_glyph_string_free(hg);
    }
    double lw = x - ps->left_pt;
    if (lw > info.max_w)
      info.max_w = lw;
    info.last_w = lw;
    /* links, strike-outs, footnote references on this line */
    GPtrArray *notes = NULL;
    while (span0 < p->spans->len && g_array_index(p->spans, Span, span0).b <= a)
      span0++;
    for (guint k = span0; k < p->spans->len; k++) {
      Span *sp = &g_array_index(p->spans, Span, k);
      if (sp->a >= b)
        break;
      if (sp->b <= a)
        continue;
      double x0 = x_at(xs, MAX(sp->a, a)), x1 = x_at(xs, MIN(sp->b, b));
      switch (sp->kind) {
      case SPAN_LINK:
        if (sp->dest || sp->href)
          add_link(li_items, x0, 0, x1 - x0, ps->leading_pt, sp->dest, sp->href);
        break;
      case SPAN_STRIKE:
        add_rule(li_items, LAY_RULE, x0, y - ps->size_pt * 0.27, x1 - x0, 0.5, 0);
        break;
      case SPAN_URLNOTE:
        add_link(li_items, x0, 0, x1 - x0, ps->leading_pt, sp->dest, NULL);
        if (!c->url_end && !c->note_mode) {
          if (!notes)
            notes = g_ptr_array_new();
          g_ptr_array_add(notes, sp->key);
        }
        break;
      case SPAN_FNREF:
        add_link(li_items, x0, 0, x1 - x0, ps->leading_pt, sp->dest, NULL);
        if (!g_hash_table_contains(c->dests, sp->self)) {
          add_dest(li_items, sp->self, x0, 0);
          g_hash_table_add(c->dests, g_strdup(sp->self));
        }
        if (sp->node->as.fnref.ref_index == 1 && !c->note_mode) {
          if (!notes)
            notes = g_ptr_array_new();
          g_ptr_array_add(notes, sp->node->as.fnref.note);
        } else if (sp->node->as.fnref.ref_index == 1 && c->note_kids) {
          /* a note first referenced inside a note: it goes to the same
           * foot, after the note that calls it */
          g_ptr_array_add(c->note_kids, sp->node->as.fnref.note);
        }
        break;
      default:
        break;
      }
    }
    if (out) {
      g_ptr_array_add(out, li_items);
      for (guint k = 0; notes && c->cell_notes && k < notes->len; k++)
        g_ptr_array_add(c->cell_notes, notes->pdata[k]);
      if (notes)
        g_ptr_array_free(notes, TRUE);
      continue;
    }
    if (li == nl - 1 && tag)
      add_tag(li_items, LAY_TAG_END, tag);
    /* orphans and widows: no page break after the first or before the last line */
    double pen = 0;
    if (li > 0 && (li == 1 || li == nl - 1))
      pen = LB_INFINITY;
    VItem *v = emit_line(c, li_items, ps->leading_pt, pen);
    v->notes = notes;
    if (a < b)
      para_mark(p, a, &v->mark_node, &v->mark_off);
    if (!v->mark_node)
      v->mark_node = block;
    v->trace = g_strndup(sh->text + a, b - a);
  }
  if (nl == 0 && tag && !out)
    g_array_set_size(c->pending, c->pending->len - 1); /* nothing to tag */
  for (guint k = 0; k < slices->len; k++)
    shape_slice_clear(&g_array_index(slices, ShapeSlice, k));
  g_array_free(slices, TRUE);
  g_array_free(xs, TRUE);
  g_free(flags);
  g_array_free(lines, TRUE);
  g_array_free(items, TRUE);
  g_array_free(meta, TRUE);
  shape_free(sh);
  return info;
}

/* ------------------------------------------------------------------------ */
/* Blocks                                                                   */

static const char *heading_tag(int level) {
  static const char *const tags[] = {"H1", "H2", "H3", "H4", "H5", "H6"};
  return tags[CLAMP(level, 1, 6) - 1];
}

static void emit_dest_pending(Ctx *c, const char *name) {
  if (!name || g_hash_table_contains(c->dests, name))
    return;
  add_dest(c->pending, name, left_of(c), 0);
  g_hash_table_add(c->dests, g_strdup(name));
}

/* A heading of source level `level` whose text is p: block is its node
 * (NULL: a title the layout made), id its destination. */
static void set_heading(Ctx *c, Para *p, int level, const char *id, BookNode *block,
                        bool chapter_title) {
  int rel = chapter_title ? 1 : CLAMP(level - c->chapter_level + 1, 2, 6);
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
  c->keep = 0;
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

static void do_heading(Ctx *c, BookNode *n, bool chapter_title) {
  Para p;
  para_init(&p);
  para_inlines(c, &p, n);
  set_heading(c, &p, n->as.heading.level, n->as.heading.id, n, chapter_title);
  para_clear(&p);
}

static void do_paragraph(Ctx *c, BookNode *n, const char *tag) {
  Para p;
  para_init(&p);
  para_inlines(c, &p, n);
  if (p.text->len == 0) {
    para_clear(&p);
    return;
  }
  double size = c->note_mode ? c->st->note_size_pt : c->st->body_size_pt;
  double leading = c->note_mode ? c->st->note_leading_pt : c->st->leading_pt;
  PangoFontDescription *d = font_desc(c->st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  ParaStyle ps = para_style(c, d, leading);
  bool in_item = n->parent && n->parent->type == BOOK_ITEM;
  if (c->after_par && c->st->indent_pt > 0 && !in_item && c->quote_x->len == 0 &&
      c->pending->len == 0 && !c->note_mode)
    ps.indent_pt = c->st->indent_pt;
  else if (!c->first_block && !in_item)
    want_space(c, c->st->par_space_pt > 0 ? c->st->par_space_pt : (c->after_par ? 0 : c->st->block_space_pt));
  if (c->after_par && c->st->par_space_pt > 0)
    want_space(c, c->st->par_space_pt);
  set_para(c, &p, &ps, false, tag, n, NULL);
  c->after_par = !in_item;
  pango_font_description_free(d);
  para_clear(&p);
}

/* A code block: monospace, ragged, shaped once; a line longer than the
 * measure wraps with a continuation mark; a tinted band behind it. */
static void do_code(Ctx *c, BookNode *n) {
  const char *src = n->text ? n->text : "";
  GString *t = g_string_new(NULL);
  GArray *orig = g_array_new(FALSE, FALSE, sizeof(size_t)); /* byte of t -> byte of src */
  size_t col = 0;
  for (const char *q = src; *q; q++) { /* tabs to 4-column stops */
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
    g_array_set_size(orig, 0); /* offsets no longer map: marks fall back to the line start */
  }
  while (t->len && t->str[t->len - 1] == '\n')
    g_string_truncate(t, t->len - 1);
  double size = c->note_mode ? c->st->note_size_pt * 0.92 : c->st->code_size_pt;
  double leading = c->note_mode ? c->st->note_leading_pt : c->st->code_leading_pt;
  PangoFontDescription *d = font_desc(c->st->code_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  pango_context_set_font_description(c->pctx, d);
  Shaped *sh = shape_text(c->pctx, t->str, t->len, NULL, c->plang);
  double pad = c->st->code_pad_pt;
  double left = left_of(c), width = c->col_w - left_of(c);
  double base = baseline(c, d, leading);
  PangoFont *mf = NULL;
  PangoGlyphString *mark = shape_extra(sh, 0, "\xE2\x86\xAA", &mf); /* ↪ */
  double markw = pango_glyph_string_get_width(mark) / (double)PANGO_SCALE + 2;
  double avail = width - 2 * pad;
  want_space(c, c->st->block_space_pt);
  c->after_par = false;
  open_tag(c, "Code");
  /* The lines: [a, b) byte ranges, with a flag for continuations. */
  typedef struct {
    size_t a, b;
    bool cont;
  } CLine;
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
      /* the last break opportunity that fits, else the last character */
      int k = ca + 1, best = -1, lastfit = ca + 1;
      while (sh->char_byte[k] < (int)le && shape_width_pt(sh, a, (size_t)sh->char_byte[k]) <= lim) {
        if (sh->log[k].is_cursor_position)
          lastfit = k;
        if (sh->log[k].is_line_break)
          best = k;
        k++;
      }
      int cut = best > ca + (k - ca) / 2 ? best : lastfit;
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
  GArray *slices = g_array_new(FALSE, TRUE, sizeof(ShapeSlice));
  for (guint i = 0; i < cl->len; i++) {
    CLine *l = &g_array_index(cl, CLine, i);
    bool first = i == 0, lastl = i + 1 == cl->len;
    double top = first ? pad : 0, h = leading + top + (lastl ? pad : 0);
    GArray *items = items_new();
    add_rule(items, LAY_RULE, left, 0, width, h, c->st->code_gray);
    double x = left + pad;
    if (l->cont && mf) {
      PangoGlyphString *g = pango_glyph_string_copy(mark);
      for (int gi = 0; gi < g->num_glyphs; gi++)
        g->log_clusters[gi] = 0;
      LayItem it = {.kind = LAY_GLYPHS, .x_pt = x, .y_pt = top + base, .gray = 0.45,
                    .font = g_object_ref(mf), .glyphs = g, .text = g_strdup("\xE2\x86\xAA")};
      g_array_append_val(items, it);
      x += markw;
    }
    g_array_set_size(slices, 0);
    shape_slices(sh, l->a, l->b, slices);
    for (guint k = 0; k < slices->len; k++) {
      ShapeSlice *sl = &g_array_index(slices, ShapeSlice, k);
      LayItem it = {.kind = LAY_GLYPHS, .x_pt = x, .y_pt = top + base - sl->rise_pt,
                    .font = sl->font, .glyphs = sl->glyphs,
                    .text = g_strndup(sh->text + sl->start, sl->end - sl->start)};
      g_array_append_val(items, it);
      x += sl->width_pt;
      sl->font = NULL;
      sl->glyphs = NULL;
    }
    if (lastl)
      add_tag(items, LAY_TAG_END, "Code");
    double pen = (i == 1 || (i > 0 && i + 1 == cl->len)) ? LB_INFINITY : 0;
    VItem *v = emit_line(c, items, h, pen);
    v->mark_node = n;
    v->mark_off = l->a < orig->len ? g_array_index(orig, size_t, l->a) : 0;
    v->trace = g_strndup(t->str + l->a, l->b - l->a);
  }
  g_array_free(slices, TRUE);
  g_array_free(cl, TRUE);
  g_array_free(orig, TRUE);
  pango_glyph_string_free(mark);
  if (mf)
    g_object_unref(mf);
  shape_free(sh);
  pango_font_description_free(d);
  g_string_free(t, TRUE);
  want_space(c, c->st->block_space_pt);
}

static void do_rule(Ctx *c, BookNode *n) {
  GArray *items = items_new();
  double w = c->col_w - left_of(c);
  add_rule(items, LAY_RULE, left_of(c) + w * 0.35, c->st->leading_pt - 0.25, w * 0.3, 0.5, 0);
  want_space(c, c->st->block_space_pt);
  VItem *v = emit_line(c, items, 2 * c->st->leading_pt, 0);
  v->mark_node = n;
  c->after_par = false;
  want_space(c, c->st->block_space_pt);
}

bool lay_image_size(const BookResource *r, int *w, int *h) {
  if (r->width_px > 0 && r->height_px > 0) {
    *w = r->width_px;
    *h = r->height_px;
    return true;
  }
  FILE *f = r->path ? fopen(r->path, "rb") : NULL;
  if (!f)
    return false;
  unsigned char b[32];
  bool ok = false;
  size_t got = fread(b, 1, 24, f);
  if (got == 24 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) {
    *w = (b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19];
    *h = (b[20] << 24) | (b[21] << 16) | (b[22] << 8) | b[23];
    ok = *w > 0 && *h > 0;
  } else if (got >= 4 && b[0] == 0xFF && b[1] == 0xD8) {
    fseek(f, 2, SEEK_SET);
    for (int guard = 0; guard < 1000; guard++) {
      int m1 = fgetc(f), m2 = fgetc(f);
      if (m1 != 0xFF || m2 == EOF)
        break;
      int l1 = fgetc(f), l2 = fgetc(f);
      if (l2 == EOF)
        break;
      int len = (l1 << 8) | l2;
      if ((m2 >= 0xC0 && m2 <= 0xCF) && m2 != 0xC4 && m2 != 0xC8 && m2 != 0xCC) {
        if (fread(b, 1, 5, f) == 5) {
          *h = (b[1] << 8) | b[2];
          *w = (b[3] << 8) | b[4];
          ok = *w > 0 && *h > 0;
        }
        break;
      }
      if (len < 2 || fseek(f, len - 2, SEEK_CUR) != 0)
        break;
    }
  }
  fclose(f);
  return ok;
}

static bool drawable_image(const BookResource *r) {
  return r && r->media_type &&
         (!strcmp(r->media_type, "image/png") || !strcmp(r->media_type, "image/jpeg"));
}

static void do_figure(Ctx *c, BookNode *n) {
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
  double w = c->col_w - left_of(c);
  int pw = 0, ph = 0;
  want_space(c, c->st->block_space_pt * 1.5);
  c->after_par = false;
  open_tag(c, "Figure");
  GArray *items = items_new();
  double h;
  bool drawn = drawable_image(r) && lay_image_size(r, &pw, &ph);
  if (drawn) {
    double iw = pw * 0.75, ih = ph * 0.75; /* 96 px to the inch */
    double maxh = c->text_h * 0.6;
    double s = MIN(1.0, MIN(w / iw, maxh / ih));
    iw *= s;
    ih *= s;
    LayItem it = {.kind = LAY_IMAGE, .x_pt = left_of(c) + (w - iw) / 2, .y_pt = 0, .w_pt = iw,
                  .h_pt = ih, .res = r};
    g_array_append_val(items, it);
    h = ih;
  } else {
    /* no image to draw (missing, remote, SVG): its alt text in a frame */
    PangoFontDescription *d = font_desc(c->st->body_face, c->st->body_size_pt * 0.9,
                                        PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
    const char *label = alt->len ? alt->str : (img->as.image.src ? img->as.image.src : "image");
    double lw = MIN(label_width(c, d, label), w - 24);
    double fw = lw + 24;
    h = 3 * c->st->leading_pt;
    add_rule(items, LAY_FRAME, left_of(c) + (w - fw) / 2, 0, fw, h, 0.3);
    shape_label(c, items, d, label, left_of(c) + (w - lw) / 2, h / 2 + c->st->body_size_pt * 0.3, 0.2);
    pango_font_description_free(d);
  }
  VItem *v = emit_line(c, items, h, 0);
  v->mark_node = n;
  v->trace = g_strdup_printf("[image %s]", img->as.image.src ? img->as.image.src : "");
  /* caption: the title, else the alt text */
  const char *cap = img->as.image.title && *img->as.image.title ? img->as.image.title
                    : drawn ? alt->str : NULL;
  if (cap && *cap) {
    Para p;
    para_init(&p);
    para_text(&p, img, cap, 0);
    PangoFontDescription *d = font_desc(c->st->body_face, c->st->note_size_pt + 0.5,
                                        PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
    ParaStyle ps = para_style(c, d, c->st->note_leading_pt + 1);
    ps.hyphenate = false;
    double cw = label_width(c, d, cap);
    if (cw < ps.width_pt)
      ps.left_pt += (ps.width_pt - cw) / 2;
    c->space = 4;
    c->keep = 1;
    set_para(c, &p, &ps, true, NULL, n, NULL);
    pango_font_description_free(d);
    para_clear(&p);
  }
  close_tag(c, "Figure");
  want_space(c, c->st->block_space_pt * 1.5);
  g_string_free(alt, TRUE);
}

/* A table: column widths from the content (natural widths when they fit,
 * else the minimum plus a share of the rest), cells that wrap, the header
 * row repeated at the top of a new page. One vertical-list line per row. */
static void do_table(Ctx *c, BookNode *n) {
  int ncols = n->as.table.ncols;
  if (ncols <= 0)
    for (BookNode *r = n->first_child; r; r = r->next) {
      int k = 0;
      for (BookNode *cell = r->first_child; cell; cell = cell->next)
        k++;
      ncols = MAX(ncols, k);
    }
  if (ncols <= 0)
    return;
  double pad = c->st->cell_pad_pt;
  double size = c->st->table_size_pt, leading = c->st->table_leading_pt;
  PangoFontDescription *d = font_desc(c->st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  PangoFontDescription *db = font_desc(c->st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_BOLD);
  double *nat = g_new0(double, ncols), *minw = g_new0(double, ncols), *cw = g_new0(double, ncols);
  /* measure: the natural width of each cell and its widest word */
  c->measuring = true;
  for (BookNode *r = n->first_child; r; r = r->next) {
    int k = 0;
    for (BookNode *cell = r->first_child; cell && k < ncols; cell = cell->next, k++) {
      Para p;
      para_init(&p);
      para_inlines(c, &p, cell);
      pango_context_set_font_description(c->pctx, r->as.row.header ? db : d);
      Shaped *sh = shape_text(c->pctx, p.text->str, p.text->len, p.attrs, c->plang);
      double wn = shape_width_pt(sh, 0, sh->len), wm = 0;
      size_t ws = 0;
      for (int ch = 0; ch <= sh->nchars; ch++) {
        if (ch == sh->nchars || sh->log[ch].is_line_break || sh->log[ch].is_white) {
          size_t be = (size_t)sh->char_byte[ch];
          wm = MAX(wm, shape_width_pt(sh, ws, be));
          ws = be;
        }
      }
      nat[k] = MAX(nat[k], wn + 2 * pad);
      minw[k] = MAX(minw[k], MIN(wm, 60.0) + 2 * pad);
      shape_free(sh);
      para_clear(&p);
    }
  }
  c->measuring = false;
  double avail = c->col_w - left_of(c), sn = 0, sm = 0;
  for (int k = 0; k < ncols; k++) {
    sn += nat[k];
    sm += minw[k];
  }
  for (int k = 0; k < ncols; k++) {
    if (sn <= avail)
      cw[k] = nat[k];
    else if (sm < avail)
      cw[k] = minw[k] + (avail - sm) * (nat[k] - minw[k]) / MAX(sn - sm, 1e-6);
    else
      cw[k] = avail * minw[k] / sm;
  }
  double tw = 0;
  for (int k = 0; k < ncols; k++)
    tw += cw[k];
  want_space(c, c->st->block_space_pt * 1.5);
  c->after_par = false;
  open_tag(c, "Table");
  int header_idx = -1;
  double base = baseline(c, d, leading);
  for (BookNode *r = n->first_child; r; r = r->next) {
    bool hdr = r->as.row.header;
    GArray *items = items_new();
    if (!r->prev)
      add_rule(items, LAY_RULE, left_of(c), 0, tw, 0.8, 0);
    add_tag(items, LAY_TAG_BEGIN, "TR");
    double x = left_of(c), rowh = 0;
    int k = 0;
    GString *tr = g_string_new(NULL);
    BookNode *mark = NULL;
    c->cell_notes = g_ptr_array_new();
    for (BookNode *cell = r->first_child; cell && k < ncols; cell = cell->next, k++) {
      Para p;
      para_init(&p);
      para_inlines(c, &p, cell);
      ParaStyle ps = para_style(c, hdr ? db : d, leading);
      ps.left_pt = 0;
      ps.width_pt = cw[k] - 2 * pad;
      ps.base_pt = base;
      ps.hyphenate = false;
      GPtrArray *lines = g_ptr_array_new();
      SetInfo si = set_para(c, &p, &ps, true, NULL, cell, lines);
      BookAlign al = n->as.table.align && k < n->as.table.ncols ? n->as.table.align[k] : BOOK_ALIGN_NONE;
      const char *ctag = hdr ? "TH" : "TD";
      add_tag(items, LAY_TAG_BEGIN, ctag);
      for (guint li = 0; li < lines->len; li++) {
        GArray *ln = lines->pdata[li];
        double lw = 0;
        for (guint q = 0; q < ln->len; q++) {
          LayItem *it = &g_array_index(ln, LayItem, q);
          if (it->kind == LAY_GLYPHS)
            lw = MAX(lw, it->x_pt + pango_glyph_string_get_width(it->glyphs) / (double)PANGO_SCALE);
        }
        double dx = x + pad;
        if (al == BOOK_ALIGN_RIGHT)
          dx += ps.width_pt - lw;
        else if (al == BOOK_ALIGN_CENTER)
          dx += (ps.width_pt - lw) / 2;
        items_append(items, ln, dx, pad + li * leading, false);
        items_free(ln);
      }
      add_tag(items, LAY_TAG_END, ctag);
      rowh = MAX(rowh, si.nlines * leading + 2 * pad);
      if (p.srcs->len && !mark)
        mark = g_array_index(p.srcs, Src, 0).node;
      if (tr->len)
        g_string_append(tr, " | ");
      g_string_append(tr, p.text->str);
      g_ptr_array_free(lines, TRUE);
      para_clear(&p);
      x += cw[k];
    }
    add_tag(items, LAY_TAG_END, "TR");
    if (hdr)
      add_rule(items, LAY_RULE, left_of(c), rowh - 0.25, tw, 0.5, 0);
    else if (r->next)
      add_rule(items, LAY_RULE, left_of(c), rowh - 0.15, tw, 0.3, 0.75);
    if (!r->next) {
      add_rule(items, LAY_RULE, left_of(c), rowh - 0.4, tw, 0.8, 0);
      add_tag(items, LAY_TAG_END, "Table");
    }
    /* keep the header with two rows, and the last two rows together */
    double pen = (r->prev && (r->prev->as.row.header || !r->prev->prev || !r->next)) ? LB_INFINITY : 0;
    if (!hdr && rowh > c->text_h * 0.8) {
      /* a row taller than a page: cut into bands of one line each, so that
       * it can break across pages (structure tags stay in the first and
       * last bands, so that they still nest) */
      guint nb = (guint)MAX(1.0, ceil((rowh - 2 * pad) / leading - 1e-6));
      GPtrArray *bands = g_ptr_array_new();
      for (guint k = 0; k < nb; k++)
        g_ptr_array_add(bands, items_new());
      guint lastg = 0;
      for (guint q = 0; q < items->len; q++)
        if (g_array_index(items, LayItem, q).kind == LAY_GLYPHS)
          lastg = q;
      for (guint q = 0; q < items->len; q++) {
        LayItem it = g_array_index(items, LayItem, q);
        int k;
        if (it.kind == LAY_TAG_BEGIN || it.kind == LAY_TAG_END)
          k = q > lastg ? (int)nb - 1 : 0;
        else
          k = CLAMP((int)floor((it.y_pt - pad) / leading), 0, (int)nb - 1);
        it.y_pt -= k == 0 ? 0 : pad + k * leading;
        g_array_append_val(bands->pdata[k], it);
      }
      g_array_free(items, TRUE); /* its items moved into the bands */
      for (guint k = 0; k < nb; k++) {
        double bh = (k == 0 ? pad : 0) + leading + (k + 1 == nb ? pad : 0);
        double bpen = k == 0 ? pen : (k == 1 || k + 1 == nb) ? LB_INFINITY : 0;
        VItem *bv = emit_line(c, bands->pdata[k], bh, bpen);
        bv->mark_node = k == 0 && mark ? mark : r;
        bv->trace = g_strdup(k == 0 ? tr->str : "");
        bv->header = header_idx;
        if (k == 0 && c->cell_notes->len) {
          bv->notes = c->cell_notes;
          c->cell_notes = NULL;
        }
      }
      g_ptr_array_free(bands, TRUE);
      g_string_free(tr, TRUE);
      if (c->cell_notes)
        g_ptr_array_free(c->cell_notes, TRUE);
      c->cell_notes = NULL;
      continue;
    }
    VItem *v = emit_line(c, items, rowh, pen);
    if (c->cell_notes->len)
      v->notes = c->cell_notes;
    else
      g_ptr_array_free(c->cell_notes, TRUE);
    c->cell_notes = NULL;
    v->mark_node = mark ? mark : r;
    v->trace = g_string_free(tr, FALSE);
    if (hdr && header_idx < 0) {
      header_idx = (int)c->vl->len - 1;
      v->shared = true;
    }
    else if (!hdr)
      v->header = header_idx;
  }
  want_space(c, c->st->block_space_pt * 1.5);
  g_free(nat);
  g_free(minw);
  g_free(cw);
  pango_font_description_free(d);
  pango_font_description_free(db);
}

typedef struct {
  bool ordered;
  int number;
  char delim;
  bool tight;
  int depth;
} ListCtx;

static void list_label(Ctx *c, ListCtx *l, BookNode *item) {
  double size = c->note_mode ? c->st->note_size_pt : c->st->body_size_pt;
  double leading = c->note_mode ? c->st->note_leading_pt : c->st->leading_pt;
  double base = baseline(c, c->body, leading);
  open_tag(c, "Lbl");
  char buf[32];
  if (l->ordered) {
    g_snprintf(buf, sizeof buf, "%d%c", l->number, l->delim ? l->delim : '.');
    PangoFontDescription *d = font_desc(c->st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
    double w = label_width(c, d, buf);
    shape_label(c, c->pending, d, buf, left_of(c) - 5 - w, base, 0);
    pango_font_description_free(d);
  } else {
    static const char *const bullets[] = {"\xE2\x80\xA2", "\xE2\x80\x93", "\xE2\x97\xA6"};
    const char *b = bullets[l->depth % 3];
    PangoFontDescription *d = font_desc(c->st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
    double w = label_width(c, d, b);
    shape_label(c, c->pending, d, b, left_of(c) - 6 - w, base, 0);
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

/* Walk the blocks under root into c->vl. */
static void walk_blocks(Ctx *c, BookNode *root, BookNode *skip_heading) {
  GArray *lists = g_array_new(FALSE, TRUE, sizeof(ListCtx));
  GArray *item_task = g_array_new(FALSE, FALSE, sizeof(double)); /* left shift of task items */
  BookIter it;
  book_iter_init(&it, root);
  BookIterEvent ev;
  const double task_w = c->st->body_size_pt * 1.2;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (ev == BOOK_ITER_ENTER) {
      switch (n->type) {
      case BOOK_HEADING:
        if (n != skip_heading)
          do_heading(c, n, false);
        book_iter_skip_children(&it);
        break;
      case BOOK_PARAGRAPH:
        do_paragraph(c, n, "P");
        book_iter_skip_children(&it);
        break;
      case BOOK_FIGURE:
        do_figure(c, n);
        book_iter_skip_children(&it);
        break;
      case BOOK_CODE_BLOCK:
        do_code(c, n);
        break;
      case BOOK_THEMATIC_BREAK:
        do_rule(c, n);
        break;
      case BOOK_TABLE:
        do_table(c, n);
        book_iter_skip_children(&it);
        break;
      case BOOK_HTML_BLOCK: {
        bool blocks = false; /* a container of blocks, or a paragraph of inlines */
        for (BookNode *k = n->first_child; k && !blocks; k = k->next)
          blocks = !book_node_is_inline(k->type);
        if (!blocks && n->first_child) {
          do_paragraph(c, n, "P");
          book_iter_skip_children(&it);
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
      case BOOK_BLOCKQUOTE: {
        want_space(c, c->st->block_space_pt);
        open_tag(c, "BlockQuote");
        double x = left_of(c) + 2;
        g_array_append_val(c->quote_x, x);
        c->left += c->st->quote_indent_pt;
        c->after_par = false;
        break;
      }
      default:
        if (book_node_is_inline(n->type))
          book_iter_skip_children(&it);
        break;
      }
      continue;
    }
    switch (n->type) { /* EXIT */
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
    default:
      break;
    }
  }
  g_array_free(lists, TRUE);
  g_array_free(item_task, TRUE);
}

/* Start a fresh vertical list. */
static GArray *vl_begin(Ctx *c) {
  GArray *old = c->vl;
  c->vl = g_array_new(FALSE, TRUE, sizeof(VItem));
  c->space = 0;
  c->first_block = true;
  c->keep = 0;
  c->after_par = false;
  c->left = 0;
  g_array_set_size(c->quote_x, 0);
  return old;
}

/* Flush pending items (closing tags) into the last line, or a line of its own. */
static void vl_end(Ctx *c) {
  if (!c->pending->len)
    return;
  VItem *last = vl_last_line(c->vl);
  if (last) {
    g_array_append_vals(last->items, c->pending->data, c->pending->len);
    g_array_set_size(c->pending, 0);
  } else
    emit_line(c, items_new(), 0, 0);
}

static double vl_height(const GArray *vl) {
  double h = 0;
  for (guint i = 0; i < vl->len; i++) {
    const VItem *v = &g_array_index(vl, VItem, i);
    if (v->kind != V_PENALTY)
      h += v->h_pt;
  }
  return h;
}

/* Every footnote laid out at the foot measure, before the chapters. */
static void layout_notes(Ctx *c) {
  c->note_mode = true;
  PangoFontDescription *d =
      font_desc(c->st->body_face, c->st->note_size_pt, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  double base = baseline(c, d, c->st->note_leading_pt);
  for (guint i = 0; i < c->book->footnotes->len; i++) {
    BookFootnote *fn = c->book->footnotes->pdata[i];
    if (!fn->def || fn->nrefs == 0)
      continue;
    GArray *old = vl_begin(c);
    c->left = c->st->body_size_pt * 1.4;
    open_tag(c, "Note");
    emit_dest_pending(c, fn->id);
    char num[24];
    g_snprintf(num, sizeof num, "%d", fn->number);
    double w = label_width(c, d, num);
    double lx = c->left - 4 - w;
    shape_label(c, c->pending, d, num, lx, base, 0);
    char *back = g_strdup_printf("%s-ref-1", fn->id);
    add_link(c->pending, lx, 0, w, c->st->note_leading_pt, back, NULL);
    g_free(back);
    c->note_kids = g_ptr_array_new();
    walk_blocks(c, fn->def, NULL);
    if (c->note_kids->len)
      g_hash_table_insert(c->kids, fn, c->note_kids);
    else
      g_ptr_array_free(c->note_kids, TRUE);
    c->note_kids = NULL;
    close_tag(c, "Note");
    vl_end(c);
    /* a note is kept whole */
    for (guint k = 0; k < c->vl->len; k++) {
      VItem *v = &g_array_index(c->vl, VItem, k);
      v->notes = NULL;
    }
    double *h = g_new(double, 1);
    *h = vl_height(c->vl);
    g_hash_table_insert(c->notes, fn, c->vl);
    g_hash_table_insert(c->note_h, fn, h);
    c->vl = old;
  }
  pango_font_description_free(d);
  c->note_mode = false;
}

/* One printed URL: its letter hanging in the margin, the URL (a live link)
 * broken anywhere it must, with its destination. */
static void url_entry(Ctx *c, UrlNote *u, double size, double leading) {
  PangoFontDescription *d = font_desc(c->st->body_face, size, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  PangoFontDescription *di = font_desc(c->st->body_face, size, PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
  emit_dest_pending(c, u->id);
  double w = label_width(c, di, u->label);
  shape_label(c, c->pending, di, u->label, left_of(c) - 4 - w, baseline(c, d, leading), 0);
  Para p;
  para_init(&p);
  para_text(&p, NULL, u->uri, 0);
  span_add(&p, SPAN_NOHYPH, 0, p.text->len, NULL);
  span_add(&p, SPAN_LINK, 0, p.text->len, NULL);
  g_array_index(p.spans, Span, p.spans->len - 1).href = g_strdup(u->uri);
  ParaStyle ps = para_style(c, d, leading);
  ps.hyphenate = false;
  set_para(c, &p, &ps, true, "P", NULL, NULL);
  para_clear(&p);
  pango_font_description_free(d);
  pango_font_description_free(di);
}

/* The current chapter's URL notes, each laid out as a footnote. */
static void url_notes_foot(Ctx *c) {
  for (guint k = c->url_first; k < c->url_notes->len; k++) {
    UrlNote *u = c->url_notes->pdata[k];
    GArray *old = vl_begin(c);
    c->note_mode = true;
    c->left = c->st->body_size_pt * 1.4;
    open_tag(c, "Note");
    url_entry(c, u, c->st->note_size_pt, c->st->note_leading_pt);
    close_tag(c, "Note");
    vl_end(c);
    double *h = g_new(double, 1);
    *h = vl_height(c->vl);
    g_hash_table_insert(c->notes, u, c->vl);
    g_hash_table_insert(c->note_h, u, h);
    c->vl = old;
    c->note_mode = false;
  }
}

/* The current chapter's URL notes as a list after its text. */
static void url_notes_end(Ctx *c) {
  if (c->url_first >= c->url_notes->len)
    return;
  PangoFontDescription *d = font_desc(c->st->heading_face, c->st->heading_size_pt[3],
                                      PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
  Para p;
  para_init(&p);
  para_text(&p, NULL, "Links", 0);
  ParaStyle ps = para_style(c, d, ceil(c->st->heading_size_pt[3] * 1.25));
  ps.hyphenate = false;
  want_space(c, c->st->heading_before_pt * 1.5);
  c->keep = 0;
  set_para(c, &p, &ps, true, "H3", NULL, NULL);
  c->keep = 2;
  c->space = c->st->heading_after_pt;
  para_clear(&p);
  pango_font_description_free(d);
  double save = c->left;
  c->left = c->st->list_indent_pt;
  for (guint k = c->url_first; k < c->url_notes->len; k++)
    url_entry(c, c->url_notes->pdata[k], c->st->note_size_pt + 0.5, c->st->note_leading_pt + 1);
  c->left = save;
}

/* ------------------------------------------------------------------------ */
/* Pages                                                                    */

typedef struct {
  LayPage *page;
  double x, y, w, h; /* the frame (a column of the text block) */
  BookChapter *chapter;
  bool opening;      /* a chapter starts on this page */
  bool mark_set;
} Frame;

typedef struct {
  GPtrArray *pages; /* LayPage * */
  GArray *frames;   /* Frame, one per column of each page */
  GArray *marks;    /* PageMark per page: where its first line with a source starts */
} Body;

typedef struct {
  BookNode *node; /* NULL: none yet */
  size_t off;
} PageMark;

static LayPage *page_new(void) {
  LayPage *p = g_new0(LayPage, 1);
  p->items = items_new();
  return p;
}

static void page_free(LayPage *p) {
  if (!p)
    return;
  items_free(p->items);
  g_free(p->label);
  g_free(p);
}

/* Left edge of the text block of body page `folio` (odd = recto). */
static double block_x(Ctx *c, int folio) {
  return folio % 2 ? c->st->margin_inner_pt : c->st->margin_outer_pt;
}

static Frame *frame_next(Ctx *c, Body *b, bool new_page, BookChapter *ch) {
  Frame *last = b->frames->len ? &g_array_index(b->frames, Frame, b->frames->len - 1) : NULL;
  int col = 0;
  if (!new_page && last) {
    int lastcol = (int)((b->frames->len - 1) % (guint)c->ncols);
    if (lastcol + 1 < c->ncols)
      col = lastcol + 1;
  }
  if (col == 0) {
    /* pad the frames of a page left incomplete */
    while (b->frames->len % (guint)c->ncols) {
      Frame f = *last;
      f.x += c->col_w + c->st->column_gap_pt;
      g_array_append_val(b->frames, f);
      last = &g_array_index(b->frames, Frame, b->frames->len - 1);
    }
    LayPage *p = page_new();
    g_ptr_array_add(b->pages, p);
    g_array_set_size(b->marks, b->marks->len + 1);
    p->folio = (int)b->pages->len;
  }
  Frame f = {0};
  f.page = b->pages->pdata[b->pages->len - 1];
  f.x = block_x(c, f.page->folio) + col * (c->col_w + c->st->column_gap_pt);
  f.y = c->st->margin_top_pt;
  f.w = c->col_w;
  f.h = c->text_h;
  f.chapter = ch;
  g_array_append_val(b->frames, f);
  return &g_array_index(b->frames, Frame, b->frames->len - 1);
}

static double notes_height(Ctx *c, GPtrArray *notes) {
  if (!notes || !notes->len)
    return 0;
  double h = 10; /* the separator */
  for (guint i = 0; i < notes->len; i++) {
    double *nh = g_hash_table_lookup(c->note_h, notes->pdata[i]);
    h += nh ? *nh + 2 : 0;
  }
  return h;
}

/* The footnotes of a line not yet on this page, appended to page_notes;
 * returns the height they add. */
static double add_notes(Ctx *c, GPtrArray *page_notes, const VItem *v, bool commit) {
  if (!v->notes)
    return 0;
  double before = notes_height(c, page_notes);
  guint n0 = page_notes->len;
  for (guint i = 0; i < v->notes->len; i++)
    if (g_hash_table_contains(c->notes, v->notes->pdata[i]))
      g_ptr_array_add(page_notes, v->notes->pdata[i]);
  /* and the notes those notes call, each after its caller's group, once
   * (a note of a note of a note, ... without recursion; cycles stop at a
   * note already there) */
  for (guint j = n0; j < page_notes->len; j++) {
    GPtrArray *kids = g_hash_table_lookup(c->kids, page_notes->pdata[j]);
    for (guint k = 0; kids && k < kids->len; k++) {
      gpointer kid = kids->pdata[k];
      bool have = !g_hash_table_contains(c->notes, kid);
      for (guint q = 0; !have && q < page_notes->len; q++)
        have = page_notes->pdata[q] == kid;
      if (!have)
        g_ptr_array_add(page_notes, kid);
    }
  }
  double after = notes_height(c, page_notes);
  if (!commit)
    g_ptr_array_set_size(page_notes, n0);
  return after - before;
}

static void place_notes(Ctx *c, Frame *f, GPtrArray *notes) {
  if (!notes->len)
    return;
  double y = f->y + f->h - notes_height(c, notes);
  add_rule(f->page->items, LAY_RULE, f->x, y + 4, 72, 0.4, 0);
  y += 10;
  for (guint i = 0; i < notes->len; i++) {
    GArray *vl = g_hash_table_lookup(c->notes, notes->pdata[i]);
    for (guint k = 0; k < vl->len; k++) {
      VItem *v = &g_array_index(vl, VItem, k);
      if (v->kind == V_LINE)
        items_move(f->page->items, v->items, f->x, y); /* a note is placed once */
      if (v->kind != V_PENALTY)
        y += v->h_pt;
    }
    y += 2;
  }
}

static void frame_mark(Body *b, Frame *f, VItem *v) {
  if (f->mark_set || !v->mark_node)
    return;
  PageMark *m = &g_array_index(b->marks, PageMark, f->page->folio - 1);
  if (!m->node) {
    m->node = v->mark_node;
    m->off = v->mark_off;
  }
  f->mark_set = true;
}

/* Break a chapter's vertical list into frames: a break only at a glue that
 * follows a line (unless nobreak) or a penalty below LB_INFINITY; the last
 * legal break before the frame overflows wins; with none, the frame breaks
 * at the overflow anyway. */
/* The first item at or after i that is a line (frames start on one). */
static guint next_line(const GArray *vl, guint i) {
  while (i < vl->len && g_array_index(vl, VItem, i).kind != V_LINE)
    i++;
  return i;
}

/* Where a frame of height h that starts at line i ends: at the last legal
 * break before it overflows (lines, their footnotes and a repeated table
 * header counted), or at the overflow when there is none; at a forced
 * break; or at the end. Always past i. */
static guint frame_fill(Ctx *c, const GArray *vl, guint i, double h, GPtrArray *pnotes,
                        bool *clean) {
  guint n = vl->len;
  int hdr = g_array_index(vl, VItem, i).header;
  double y = hdr >= 0 ? g_array_index(vl, VItem, hdr).h_pt : 0;
  g_ptr_array_set_size(pnotes, 0);
  guint j = i, best = 0;
  bool forced = false;
  while (j < n) {
    const VItem *v = &g_array_index(vl, VItem, j);
    if (v->kind == V_LINE) {
      double nh = add_notes(c, pnotes, v, false);
      if (j > i && y + v->h_pt + notes_height(c, pnotes) + nh > h)
        break;
      add_notes(c, pnotes, v, true);
      y += v->h_pt;
    } else if (v->kind == V_GLUE) {
      if (!v->nobreak && j > i && g_array_index(vl, VItem, j - 1).kind == V_LINE)
        best = j;
      y += v->h_pt;
    } else {
      if (v->penalty <= -LB_INFINITY && j > i) {
        best = j;
        forced = true;
        break;
      }
      if (v->penalty < LB_INFINITY && j > i)
        best = j;
    }
    j++;
  }
  guint end = j >= n ? n : (forced || best > i) ? best : j;
  if (clean) /* false: no legal break, the frame broke where it overflowed */
    *clean = j >= n || forced || best > i;
  return end <= i ? i + 1 : end;
}

typedef struct {
  guint start, end;
  double h;
  bool clean; /* ends at a legal break */
} Range;

/* The frames, from line i on, at height h (h_first for the first nfirst
 * of them); stops after max frames. */
static void fill_ranges(Ctx *c, const GArray *vl, guint i, double h, double h_first, guint nfirst,
                        guint max, GArray *out, GPtrArray *pnotes) {
  for (i = next_line(vl, i); i < vl->len && out->len < max; i = next_line(vl, i)) {
    double fh = out->len < nfirst ? h_first : h;
    Range r = {i, 0, fh, true};
    r.end = frame_fill(c, vl, i, fh, pnotes, &r.clean);
    g_array_append_val(out, r);
    i = r.end;
  }
}

/* Break a chapter's vertical list into frames (columns of pages) and place
 * its lines. With two columns, the first span_end items (the chapter's
 * title, set to the full width) run across both columns at the top of its
 * first page, and the chapter's last page is balanced: both columns get the
 * least height that still holds what is left. */
static void paginate(Ctx *c, Body *b, GArray *vl, BookChapter *ch, guint span_end) {
  GPtrArray *pnotes = g_ptr_array_new();
  GArray *ranges = g_array_new(FALSE, FALSE, sizeof(Range));
  double span_h = 0;
  if (c->ncols < 2)
    span_end = 0;
  for (guint k = 0; k < span_end && k < vl->len; k++) {
    const VItem *v = &g_array_index(vl, VItem, k);
    span_h += v->kind == V_PENALTY ? 0 : v->h_pt;
  }
  /* the space after the title, which a column would discard at its top */
  while (span_end > 0 && span_end < vl->len && g_array_index(vl, VItem, span_end).kind != V_LINE) {
    const VItem *v = &g_array_index(vl, VItem, span_end);
    span_h += v->kind == V_GLUE ? v->h_pt : 0;
    span_end++;
  }
  if (span_h > c->text_h * 0.5) { /* a title too tall to span: it goes in the column */
    span_end = 0;
    span_h = 0;
  }
  double first_h = c->text_h - span_h;
  fill_ranges(c, vl, span_end, c->text_h, first_h, 2, G_MAXUINT, ranges, pnotes);
  if (c->ncols == 2 && ranges->len) {
    guint last = (ranges->len - 1) & ~1u; /* a chapter starts a page: frame k is column k % 2 */
    guint s0 = g_array_index(ranges, Range, last).start;
    GArray *try = g_array_new(FALSE, FALSE, sizeof(Range));
    double lo = 0, hi = last == 0 ? first_h : c->text_h;
    for (int it = 0; it < 24 && hi - lo > 0.5; it++) {
      double mid = (lo + hi) / 2;
      g_array_set_size(try, 0);
      fill_ranges(c, vl, s0, mid, mid, 0, 3, try, pnotes);
      bool fits = try->len <= 2; /* fill_ranges stops after 3: two hold it all */
      for (guint k = 0; k < try->len; k++)
        fits = fits && g_array_index(try, Range, k).clean; /* no keep broken for balance */
      if (fits)
        hi = mid;
      else
        lo = mid;
    }
    g_array_set_size(try, 0);
    fill_ranges(c, vl, s0, hi, hi, 0, 3, try, pnotes);
    bool ok = try->len <= 2;
    for (guint k = 0; k < try->len; k++)
      ok = ok && g_array_index(try, Range, k).clean;
    if (ok) {
      g_array_set_size(ranges, last);
      g_array_append_vals(ranges, try->data, try->len);
    }
    g_array_free(try, TRUE);
  }
  for (guint r = 0; r < ranges->len; r++) {
    Range *rg = &g_array_index(ranges, Range, r);
    Frame *f = frame_next(c, b, r == 0, ch);
    f->opening = r == 0;
    if (r == 0 && span_end > 0) {
      /* the title across the columns */
      double ty = f->y;
      for (guint k = 0; k < span_end; k++) {
        VItem *v = &g_array_index(vl, VItem, k);
        if (v->kind == V_LINE) {
          items_move(f->page->items, v->items, f->x, ty);
          frame_mark(b, f, v);
        }
        ty += v->kind == V_PENALTY ? 0 : v->h_pt;
      }
    }
    if (r < 2 && span_end > 0)
      f->y += span_h;
    f->h = rg->h;
    double y = f->y;
    int hdr = g_array_index(vl, VItem, rg->start).header;
    if (hdr >= 0) {
      const VItem *h = &g_array_index(vl, VItem, hdr);
      items_append(f->page->items, h->items, f->x, y, true);
      y += h->h_pt;
    }
    g_ptr_array_set_size(pnotes, 0);
    for (guint k = rg->start; k < rg->end; k++) {
      VItem *v = &g_array_index(vl, VItem, k);
      if (v->kind == V_LINE) {
        if (v->shared)
          items_append(f->page->items, v->items, f->x, y, false);
        else
          items_move(f->page->items, v->items, f->x, y); /* each line is placed once */
        frame_mark(b, f, v);
        add_notes(c, pnotes, v, true);
        y += v->h_pt;
      } else if (v->kind == V_GLUE)
        y += v->h_pt;
    }
    place_notes(c, f, pnotes);
  }
  g_array_free(ranges, TRUE);
  g_ptr_array_free(pnotes, TRUE);
}

/* ------------------------------------------------------------------------ */
/* Front matter                                                             */

static char *roman(int n) {
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

/* Lines of text broken ragged to the text width and centred on it, the
 * first baseline at y; returns the baseline after the last line. */
static double centered(Ctx *c, GArray *items, const PangoFontDescription *d, const char *text,
                       double y, double leading) {
  Para p;
  para_init(&p);
  para_text(&p, NULL, text, 0);
  ParaStyle ps = para_style(c, d, leading);
  ps.left_pt = 0;
  ps.width_pt = c->text_w;
  ps.base_pt = 0;
  ps.hyphenate = false;
  GPtrArray *lines = g_ptr_array_new();
  set_para(c, &p, &ps, true, NULL, NULL, lines);
  for (guint i = 0; i < lines->len; i++) {
    GArray *ln = lines->pdata[i];
    double lw = 0;
    for (guint q = 0; q < ln->len; q++) {
      LayItem *g = &g_array_index(ln, LayItem, q);
      if (g->kind == LAY_GLYPHS)
        lw = MAX(lw, g->x_pt + pango_glyph_string_get_width(g->glyphs) / (double)PANGO_SCALE);
    }
    items_append(items, ln, c->st->margin_inner_pt + (c->text_w - lw) / 2, y, false);
    items_free(ln);
    y += leading;
  }
  g_ptr_array_free(lines, TRUE);
  para_clear(&p);
  return y;
}

/* A title page: the title, subtitle, a short rule, the authors and the
 * date; the publisher (or source) at the foot. */
static void title_page(Ctx *c, Layout *lay, const char *title) {
  LayPage *p = page_new();
  p->cover = !c->book->meta.cover; /* a given cover image stays the e-book's */
  const BookMeta *m = &c->book->meta;
  GArray *it = p->items;
  add_tag(it, LAY_TAG_BEGIN, "Sect");
  add_dest(it, "title-page", 0, 0);
  double y = c->st->margin_top_pt + c->text_h * 0.22;
  PangoFontDescription *dt = font_desc(c->st->heading_face, c->st->title_size_pt, PANGO_STYLE_NORMAL,
                                       PANGO_WEIGHT_BOLD);
  add_tag(it, LAY_TAG_BEGIN, "H1");
  y = centered(c, it, dt, title, y, c->st->title_size_pt * 1.2);
  add_tag(it, LAY_TAG_END, "H1");
  if (m->subtitle) {
    PangoFontDescription *ds = font_desc(c->st->heading_face, c->st->subtitle_size_pt,
                                         PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
    add_tag(it, LAY_TAG_BEGIN, "P");
    y = centered(c, it, ds, m->subtitle, y + 4, c->st->subtitle_size_pt * 1.3);
    add_tag(it, LAY_TAG_END, "P");
    pango_font_description_free(ds);
  }
  y += 6;
  add_rule(it, LAY_RULE, c->st->margin_inner_pt + c->text_w / 2 - 30, y, 60, 0.6, 0);
  y += 36;
  PangoFontDescription *db = font_desc(c->st->body_face, c->st->byline_size_pt, PANGO_STYLE_NORMAL,
                                       PANGO_WEIGHT_NORMAL);
  if (m->authors && m->authors->len) {
    GString *a = g_string_new(NULL);
    for (guint i = 0; i < m->authors->len; i++) {
      if (i)
        g_string_append(a, i + 1 == m->authors->len ? " and " : ", ");
      g_string_append(a, m->authors->pdata[i]);
    }
    add_tag(it, LAY_TAG_BEGIN, "P");
    y = centered(c, it, db, a->str, y, c->st->byline_size_pt * 1.4);
    add_tag(it, LAY_TAG_END, "P");
    y += c->st->byline_size_pt * 0.4;
    g_string_free(a, TRUE);
  }
  if (m->date) {
    add_tag(it, LAY_TAG_BEGIN, "P");
    centered(c, it, db, m->date, y, c->st->byline_size_pt * 1.4);
    add_tag(it, LAY_TAG_END, "P");
  }
  const char *pub = m->publisher ? m->publisher : m->source;
  if (pub) {
    PangoFontDescription *dp = font_desc(c->st->body_face, c->st->body_size_pt, PANGO_STYLE_ITALIC,
                                         PANGO_WEIGHT_NORMAL);
    add_tag(it, LAY_TAG_BEGIN, "P");
    centered(c, it, dp, pub, c->st->margin_top_pt + c->text_h - c->st->body_size_pt,
             c->st->body_size_pt * 1.3);
    add_tag(it, LAY_TAG_END, "P");
    pango_font_description_free(dp);
  }
  add_tag(it, LAY_TAG_END, "Sect");
  pango_font_description_free(db);
  pango_font_description_free(dt);
  g_ptr_array_add(lay->pages, p);
}

typedef struct {
  int depth; /* 1 = chapter */
  char *title;
  char *dest;
} TocEntry;

/* The contents: one linked line per entry, dot leaders, the page number at
 * the right. */
static void contents(Ctx *c, Layout *lay, GArray *entries, GHashTable *dest_folio) {
  GArray *old = vl_begin(c);
  double save_w = c->col_w;
  c->col_w = c->text_w;
  PangoFontDescription *dh = font_desc(c->st->heading_face, c->st->heading_size_pt[0],
                                       PANGO_STYLE_NORMAL, PANGO_WEIGHT_BOLD);
  PangoFontDescription *d1 = font_desc(c->st->body_face, c->st->toc_size_pt, PANGO_STYLE_NORMAL,
                                       PANGO_WEIGHT_NORMAL);
  PangoFontDescription *d2 = font_desc(c->st->body_face, c->st->toc_size_pt * 0.95,
                                       PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  {
    GArray *items = items_new();
    add_tag(items, LAY_TAG_BEGIN, "TOC");
    add_dest(items, "contents", 0, 0);
    add_tag(items, LAY_TAG_BEGIN, "H1");
    double lh = c->st->heading_size_pt[0] * 1.25;
    shape_label(c, items, dh, "Contents", 0, baseline(c, dh, lh) + c->st->chapter_drop_pt, 0);
    add_tag(items, LAY_TAG_END, "H1");
    VItem *v = emit_line(c, items, lh + c->st->chapter_drop_pt + c->st->heading_after_pt * 2.5, 0);
    v->trace = g_strdup("Contents");
  }
  double numw = label_width(c, d1, "0000");
  PangoFontDescription *ddot = d1;
  double pitch = label_width(c, d1, ". ") ;
  for (guint i = 0; i < entries->len; i++) {
    TocEntry *e = &g_array_index(entries, TocEntry, i);
    int *folio = g_hash_table_lookup(dest_folio, e->dest);
    char num[24];
    g_snprintf(num, sizeof num, "%d", folio ? *folio : 0);
    PangoFontDescription *d = e->depth == 1 ? d1 : d2;
    double leading = e->depth == 1 ? c->st->toc_leading_pt : c->st->toc_leading_pt * 0.85;
    double indent = (e->depth - 1) * 18;
    Para p;
    para_init(&p);
    para_text(&p, NULL, e->title, 0);
    ParaStyle ps = para_style(c, d, leading);
    ps.left_pt = indent;
    ps.width_pt = c->text_w - indent - numw - 12;
    ps.hyphenate = false;
    GPtrArray *lines = g_ptr_array_new();
    set_para(c, &p, &ps, true, NULL, NULL, lines);
    for (guint li = 0; li < lines->len; li++) {
      GArray *items = lines->pdata[li];
      bool lastl = li + 1 == lines->len;
      GArray *all = items_new();
      if (li == 0)
        add_tag(all, LAY_TAG_BEGIN, "TOCI");
      double lw = indent;
      for (guint q = 0; q < items->len; q++) {
        LayItem *g = &g_array_index(items, LayItem, q);
        if (g->kind == LAY_GLYPHS)
          lw = MAX(lw, g->x_pt + pango_glyph_string_get_width(g->glyphs) / (double)PANGO_SCALE);
      }
      g_array_append_vals(all, items->data, items->len);
      g_array_free(items, TRUE);
      if (lastl) {
        double nw = label_width(c, d, num);
        double nx = c->text_w - nw;
        /* leaders at a fixed pitch so that they align down the page */
        double x0 = ceil((lw + 6) / pitch) * pitch, x1 = nx - 6;
        int ndots = x1 > x0 ? (int)((x1 - x0) / pitch) : 0;
        if (ndots > 0) {
          GString *dots = g_string_new(NULL);
          for (int k = 0; k < ndots; k++)
            g_string_append(dots, ". ");
          g_string_truncate(dots, dots->len - 1);
          shape_label(c, all, ddot, dots->str, x0, ps.base_pt, 0.35);
          g_string_free(dots, TRUE);
        }
        shape_label(c, all, d, num, nx, ps.base_pt, 0);
      }
      add_link(all, indent, 0, c->text_w - indent, leading, e->dest, NULL);
      if (lastl)
        add_tag(all, LAY_TAG_END, "TOCI");
      VItem *v = emit_line(c, all, leading, li > 0 ? LB_INFINITY : 0);
      v->trace = g_strdup_printf("%s%s%s", e->title, lastl ? " ... " : "", lastl ? num : "");
    }
    g_ptr_array_free(lines, TRUE);
    para_clear(&p);
  }
  close_tag(c, "TOC");
  vl_end(c);
  /* paginate the contents on front pages (one column) */
  Body fb = {g_ptr_array_new(), g_array_new(FALSE, TRUE, sizeof(Frame)),
             g_array_new(FALSE, TRUE, sizeof(PageMark))};
  int save_cols = c->ncols;
  c->ncols = 1;
  paginate(c, &fb, c->vl, NULL, 0);
  c->ncols = save_cols;
  for (guint i = 0; i < fb.frames->len; i++) {
    Frame *f = &g_array_index(fb.frames, Frame, i);
    /* front page parity follows the physical page */
    double dx = block_x(c, (int)lay->pages->len + 1 + (int)i) - block_x(c, f->page->folio);
    for (guint k = 0; k < f->page->items->len; k++)
      g_array_index(f->page->items, LayItem, k).x_pt += dx;
  }
  for (guint i = 0; i < fb.pages->len; i++)
    g_ptr_array_add(lay->pages, fb.pages->pdata[i]);
  g_ptr_array_free(fb.pages, TRUE);
  g_array_free(fb.frames, TRUE);
  g_array_free(fb.marks, TRUE);
  vlist_free(c->vl);
  c->vl = old;
  c->col_w = save_w;
  pango_font_description_free(dh);
  pango_font_description_free(d1);
  pango_font_description_free(d2);
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                   */

static const char *chapter_title(const BookChapter *ch, const char *book_title) {
  return ch->title && *ch->title ? ch->title : book_title;
}

static void running_heads(Ctx *c, Body *b, const char *book_title) {
  PangoFontDescription *d = font_desc(c->st->body_face, c->st->head_size_pt, PANGO_STYLE_ITALIC,
                                      PANGO_WEIGHT_NORMAL);
  PangoFontDescription *dn = font_desc(c->st->body_face, c->st->head_size_pt + 0.5,
                                       PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  for (guint i = 0; i < b->frames->len; i += (guint)c->ncols) {
    Frame *f = &g_array_index(b->frames, Frame, i);
    LayPage *p = f->page;
    char num[24];
    g_snprintf(num, sizeof num, "%d", p->folio);
    double x0 = block_x(c, p->folio), x1 = x0 + c->text_w;
    if (f->opening) {
      /* a chapter's first page: the folio centred at the foot */
      double w = label_width(c, dn, num);
      shape_label(c, p->items, dn, num, x0 + (c->text_w - w) / 2,
                  c->st->margin_top_pt + c->text_h + c->st->folio_gap_pt, 0);
      continue;
    }
    double y = c->st->margin_top_pt - c->st->head_gap_pt;
    bool recto = p->folio % 2 == 1;
    const char *full = recto && f->chapter ? chapter_title(f->chapter, book_title) : book_title;
    double nw = label_width(c, dn, num);
    /* a title too long for the head loses words at its end */
    char *text = g_strdup(full);
    double tw = label_width(c, d, text);
    while (tw > c->text_w - nw - 24) {
      char *sp = strrchr(text, ' ');
      if (!sp)
        break;
      char *tail = g_strndup(text, (size_t)(sp - text));
      g_free(text);
      text = g_strconcat(tail, "\xE2\x80\xA6", NULL);
      g_free(tail);
      tw = label_width(c, d, text);
    }
    if (recto) {
      shape_label(c, p->items, dn, num, x1 - nw, y, 0);
      shape_label(c, p->items, d, text, MAX(x0, x1 - nw - 18 - tw), y, 0.2);
    } else {
      shape_label(c, p->items, dn, num, x0, y, 0);
      shape_label(c, p->items, d, text, x0 + nw + 18, y, 0.2);
    }
    add_rule(p->items, LAY_RULE, x0, y + 5, c->text_w, 0.3, 0.4);
    g_free(text);
  }
  pango_font_description_free(d);
  pango_font_description_free(dn);
}

static void ctx_free(Ctx *c) {
  if (c->vl)
    vlist_free(c->vl);
  if (c->pending)
    items_free(c->pending);
  if (c->quote_x)
    g_array_free(c->quote_x, TRUE);
  if (c->notes) {
    GHashTableIter hi;
    gpointer k, v;
    g_hash_table_iter_init(&hi, c->notes);
    while (g_hash_table_iter_next(&hi, &k, &v))
      vlist_free(v);
    g_hash_table_destroy(c->notes);
  }
  if (c->note_h)
    g_hash_table_destroy(c->note_h);
  if (c->kids)
    g_hash_table_destroy(c->kids);
  if (c->dests)
    g_hash_table_destroy(c->dests);
  if (c->metrics)
    g_hash_table_destroy(c->metrics);
  if (c->hyph_cache)
    g_hash_table_destroy(c->hyph_cache);
  if (c->targets)
    g_hash_table_destroy(c->targets);
  if (c->url_notes)
    g_ptr_array_free(c->url_notes, TRUE);
  if (c->hyph_w)
    g_hash_table_destroy(c->hyph_w);
  PangoFontDescription *ds[] = {c->body, c->bold, c->italic, c->mono, c->head};
  for (size_t i = 0; i < G_N_ELEMENTS(ds); i++)
    if (ds[i])
      pango_font_description_free(ds[i]);
  if (c->pctx)
    g_object_unref(c->pctx);
}

Layout *lay_book(const Book *book, const OctavoOptions *opts, const Style *st, const Fonts *fonts) {
  Ctx cx = {0}, *c = &cx;
  c->book = book;
  c->opts = opts;
  c->st = st;
  c->pctx = fonts_context(fonts);
  c->lang = book->meta.lang ? book->meta.lang : (opts->lang ? opts->lang : "en");
  c->plang = pango_language_from_string(c->lang);
  pango_context_set_language(c->pctx, c->plang);
  c->hyph = hyphen_has_language(c->lang);
  lb_params_default(&c->lbp);
  c->lbp.emergency_stretch = c->st->body_size_pt * 1.5;
  c->lbp.max_hyphen_run = 2; /* no three hyphenated lines in a row */
  c->mode = opts->linebreak && strcmp(opts->linebreak, "greedy") == 0 ? LB_GREEDY : LB_OPTIMAL;
  c->ncols = opts->columns == 2 ? 2 : 1;
  c->text_w = c->st->paper_w_pt - c->st->margin_inner_pt - c->st->margin_outer_pt;
  c->text_h = c->st->paper_h_pt - c->st->margin_top_pt - c->st->margin_bottom_pt;
  c->col_w = (c->text_w - (c->ncols - 1) * c->st->column_gap_pt) / c->ncols;
  c->chapter_level = opts->split_level > 0 ? opts->split_level : 2;
  c->body = font_desc(c->st->body_face, c->st->body_size_pt, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  c->pending = items_new();
  c->quote_x = g_array_new(FALSE, FALSE, sizeof(double));
  c->notes = g_hash_table_new(NULL, NULL);
  c->note_h = g_hash_table_new_full(NULL, NULL, NULL, g_free);
  c->kids = g_hash_table_new_full(NULL, NULL, NULL, ptr_array_free);
  c->dests = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  c->metrics = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  c->hyph_cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, array_free);
  c->hyph_w = g_hash_table_new_full(NULL, NULL, g_object_unref, g_free);
  c->vl = g_array_new(FALSE, TRUE, sizeof(VItem));

  Layout *lay = g_new0(Layout, 1);
  lay->page_w_pt = c->st->paper_w_pt;
  lay->page_h_pt = c->st->paper_h_pt;
  lay->pages = g_ptr_array_new_with_free_func((GDestroyNotify)page_free);
  lay->outline = g_array_new(FALSE, TRUE, sizeof(LayOutline));
  lay->page_marks = g_array_new(FALSE, TRUE, sizeof(BookPageMark));
  const char *title = book->meta.title && *book->meta.title ? book->meta.title : NULL;
  if (!title)
    for (guint i = 0; i < book->chapters->len && !title; i++)
      title = ((BookChapter *)book->chapters->pdata[i])->title;
  lay->title = g_strdup(title ? title : "Untitled");

  c->url_notes = g_ptr_array_new_with_free_func(url_note_free);
  c->url_end = opts->link_notes && strcmp(opts->link_notes, "end") == 0;
  c->targets = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < book->footnotes->len; i++)
    g_hash_table_add(c->targets, ((BookFootnote *)book->footnotes->pdata[i])->id);
  for (guint i = 0; i < book->chapters->len; i++) {
    BookChapter *ch = book->chapters->pdata[i];
    if (ch->id)
      g_hash_table_add(c->targets, ch->id);
    BookIter it;
    book_iter_init(&it, ch->root);
    while (book_iter_next(&it) != BOOK_ITER_DONE)
      if (it.ev == BOOK_ITER_ENTER && it.cur->type == BOOK_HEADING && it.cur->as.heading.id)
        g_hash_table_add(c->targets, it.cur->as.heading.id);
  }
  layout_notes(c);

  /* 1, 2: the chapters, each from a new page */
  Body b = {g_ptr_array_new(), g_array_new(FALSE, TRUE, sizeof(Frame)),
            g_array_new(FALSE, TRUE, sizeof(PageMark))};
  GArray *toc = g_array_new(FALSE, TRUE, sizeof(TocEntry));
  for (guint ci = 0; ci < book->chapters->len; ci++) {
    BookChapter *ch = book->chapters->pdata[ci];
    GArray *old = vl_begin(c);
    vlist_free(old);
    open_tag(c, "Sect");
    emit_dest_pending(c, ch->id);
    GArray *drop = items_new();
    VItem *v = emit_line(c, drop, c->st->chapter_drop_pt * (ch->heading || ci == 0 ? 1 : 0.5), 0);
    v->trace = g_strdup_printf("[chapter %s]", ch->id ? ch->id : "");
    c->keep = 3;
    c->first_block = true;
    c->heads = (BookOutlineLevels){0};
    double col_w = c->col_w;
    c->col_w = c->text_w; /* two columns: the title spans them */
    if (ch->heading)
      do_heading(c, ch->heading, true);
    else if (ci == 0) {
      /* the opening chapter: the book's title heads its first page (a
       * level 1 heading without a node: no page mark, no destination) */
      Para p;
      para_init(&p);
      para_text(&p, NULL, lay->title, 0);
      set_heading(c, &p, 1, NULL, NULL, true);
      para_clear(&p);
    } else
      c->keep = 0;
    c->col_w = col_w;
    guint span_end = c->vl->len;
    walk_blocks(c, ch->root, ch->heading);
    if (c->url_end)
      url_notes_end(c);
    close_tag(c, "Sect");
    vl_end(c);
    if (!c->url_end)
      url_notes_foot(c);
    c->url_first = c->url_notes->len;
    paginate(c, &b, c->vl, ch, span_end);
    /* contents and outline entries */
    const char *cdest = ch->heading && ch->heading->as.heading.id ? ch->heading->as.heading.id : ch->id;
    if (ch->title || ch->index == 0) {
      TocEntry e = {1, g_strdup(chapter_title(ch, lay->title)), g_strdup(cdest ? cdest : ch->id)};
      g_array_append_val(toc, e);
    }
    BookIter it;
    book_iter_init(&it, ch->root);
    BookIterEvent ev;
    while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
      BookNode *n = it.cur;
      if (ev != BOOK_ITER_ENTER)
        continue;
      if (n->type == BOOK_HEADING && n != ch->heading && n->as.heading.id) {
        int depth = CLAMP(n->as.heading.level - c->chapter_level + 1, 2, 6);
        GString *s = g_string_new(NULL);
        book_node_text(n, s);
        TocEntry e = {depth, g_string_free(s, FALSE), g_strdup(n->as.heading.id)};
        g_array_append_val(toc, e);
      }
      if (!book_node_is_inline(n->type) && n->type != BOOK_ROOT && n->type != BOOK_BLOCKQUOTE &&
          n->type != BOOK_LIST && n->type != BOOK_ITEM && n->type != BOOK_HTML_BLOCK)
        book_iter_skip_children(&it);
    }
  }
  /* where every destination landed */
  GHashTable *dest_folio = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < b.pages->len; i++) {
    LayPage *p = b.pages->pdata[i];
    for (guint k = 0; k < p->items->len; k++) {
      LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_DEST && !g_hash_table_contains(dest_folio, it->dest)) {
        int *f = g_new(int, 1);
        *f = p->folio;
        g_hash_table_insert(dest_folio, g_strdup(it->dest), f);
      }
    }
  }
  running_heads(c, &b, lay->title);

  /* 3: front matter, then the body */
  title_page(c, lay, lay->title);
  GArray *toc_shown = g_array_new(FALSE, TRUE, sizeof(TocEntry));
  for (guint i = 0; i < toc->len; i++) {
    TocEntry *e = &g_array_index(toc, TocEntry, i);
    if (e->depth <= MAX(1, opts->toc_depth) && g_hash_table_contains(dest_folio, e->dest))
      g_array_append_val(toc_shown, *e);
  }
  contents(c, lay, toc_shown, dest_folio);
  g_array_free(toc_shown, TRUE);
  if (lay->pages->len % 2) /* the body starts on a recto */
    g_ptr_array_add(lay->pages, page_new());
  lay->front_pages = (int)lay->pages->len;
  for (int i = 0; i < lay->front_pages; i++) {
    LayPage *p = lay->pages->pdata[i];
    p->front = true;
    p->folio = i + 1;
    p->label = roman(i + 1);
  }
  for (guint i = 0; i < b.pages->len; i++) {
    LayPage *p = b.pages->pdata[i];
    p->label = g_strdup_printf("%d", p->folio);
    g_ptr_array_add(lay->pages, p);
    PageMark *pm = &g_array_index(b.marks, PageMark, i);
    if (pm->node) {
      BookPageMark m = {lay->front_pages + (int)i + 1, g_strdup(p->label), pm->node, pm->off};
      g_array_append_val(lay->page_marks, m);
    }
  }
  /* the outline: every chapter and section, nested by depth */
  int stack[8];
  int depth_of[8];
  int sp = 0;
  for (guint i = 0; i < toc->len; i++) {
    TocEntry *e = &g_array_index(toc, TocEntry, i);
    if (!g_hash_table_contains(dest_folio, e->dest)) {
      g_free(e->title);
      g_free(e->dest);
      continue;
    }
    while (sp > 0 && depth_of[sp - 1] >= e->depth)
      sp--;
    LayOutline o = {e->depth, sp > 0 ? stack[sp - 1] : -1, e->title, e->dest};
    g_array_append_val(lay->outline, o);
    if (sp < 8) {
      stack[sp] = (int)lay->outline->len - 1;
      depth_of[sp] = e->depth;
      sp++;
    }
  }
  g_array_free(toc, TRUE);
  /* links to destinations that were never placed are dropped */
  GHashTable *all = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < lay->pages->len; i++) {
    LayPage *p = lay->pages->pdata[i];
    for (guint k = 0; k < p->items->len; k++) {
      LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_DEST)
        g_hash_table_add(all, it->dest);
    }
  }
  for (guint i = 0; i < lay->pages->len; i++) {
    LayPage *p = lay->pages->pdata[i];
    for (guint k = 0; k < p->items->len;) {
      LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_LINK && !it->uri && (!it->dest || !g_hash_table_contains(all, it->dest))) {
        lay_item_clear(it);
        g_array_remove_index(p->items, k);
      } else
        k++;
    }
  }
  g_hash_table_destroy(all);
  g_hash_table_destroy(dest_folio);
  g_ptr_array_free(b.pages, TRUE);
  g_array_free(b.frames, TRUE);
  g_array_free(b.marks, TRUE);
  lay->fonts = fonts;
  ctx_free(c);
  return lay;
}

void lay_free(Layout *lay) {
  if (!lay)
    return;
  g_ptr_array_free(lay->pages, TRUE);
  for (guint i = 0; i < lay->outline->len; i++) {
    LayOutline *o = &g_array_index(lay->outline, LayOutline, i);
    g_free(o->title);
    g_free(o->dest);
  }
  g_array_free(lay->outline, TRUE);
  g_free(lay->title);
  for (guint i = 0; i < lay->page_marks->len; i++)
    g_free(g_array_index(lay->page_marks, BookPageMark, i).label);
  g_array_free(lay->page_marks, TRUE);
  g_free(lay);
}

char *lay_trace(const Layout *lay) {
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "paper %.1f x %.1f, %u pages\n", lay->page_w_pt, lay->page_h_pt,
                         lay->pages->len);
  for (guint i = 0; i < lay->pages->len; i++) {
    const LayPage *p = lay->pages->pdata[i];
    g_string_append_printf(s, "page %u [%s]\n", i + 1, p->label ? p->label : "");
    double y = -1e9;
    for (guint k = 0; k < p->items->len; k++) {
      const LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_GLYPHS) {
        if (fabs(it->y_pt - y) > 3) {
          g_string_append_printf(s, "%s  y=%.1f x=%.1f |", y > -1e9 ? "|\n" : "", it->y_pt, it->x_pt);
          y = it->y_pt;
        }
        g_string_append(s, it->text);
      } else if (it->kind == LAY_IMAGE) {
        g_string_append_printf(s, "%s  image %.1f,%.1f %.1fx%.1f\n", y > -1e9 ? "|\n" : "", it->x_pt,
                               it->y_pt, it->w_pt, it->h_pt);
        y = -1e9;
      }
    }
    if (y > -1e9)
      g_string_append(s, "|\n");
  }
  return g_string_free(s, FALSE);
}
