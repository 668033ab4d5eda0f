/* style.c: styles/print.ini -> Style. Only reads numbers and names: what
 * they mean is the layout's business. */
#include "style.h"

#include "book.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

bool style_paper_size(OctavoPaper paper, double *w, double *h)
{
  static const struct {
    OctavoPaper paper;
    double w, h;
  } sizes[] = {{OCTAVO_PAPER_A4, 595.276, 841.890},
               {OCTAVO_PAPER_LETTER, 612.0, 792.0},
               {OCTAVO_PAPER_A5, 419.528, 595.276}};
  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++)
    if (paper == sizes[i].paper) {
      *w = sizes[i].w;
      *h = sizes[i].h;
      return true;
    }
  return false;
}

static const CoverStyle cover_defaults = {
    .background = {0.965, 0.945, 0.906}, /* warm paper */
    .ink = {0.11, 0.11, 0.12},
    .accent = {0.64, 0.23, 0.13}, /* brick red */
    .band = {0.17, 0.19, 0.24},   /* slate */
};

static void parse_colour(GKeyFile *kf, const char *key, double rgb[3])
{
  char *v = g_key_file_get_string(kf, "cover", key, NULL);
  unsigned r, g, b;
  if (v && strlen(g_strstrip(v)) == 7 && sscanf(v, "#%02x%02x%02x", &r, &g, &b) == 3) {
    rgb[0] = r / 255.0;
    rgb[1] = g / 255.0;
    rgb[2] = b / 255.0;
  }
  g_free(v);
}

/* The [cover] group over the defaults cs holds. */
static void cover_load(CoverStyle *cs, GKeyFile *kf)
{
  parse_colour(kf, "background", cs->background);
  parse_colour(kf, "ink", cs->ink);
  parse_colour(kf, "accent", cs->accent);
  parse_colour(kf, "band", cs->band);
  char *face = g_key_file_get_string(kf, "cover", "face", NULL);
  if (face && *g_strstrip(face)) {
    g_free(cs->face);
    cs->face = face;
  } else
    g_free(face);
}

static void defaults(Style *st)
{
  memset(st, 0, sizeof *st);
  st->margin_top_pt = 72;
  st->margin_bottom_pt = 86;
  st->margin_inner_pt = 72;
  st->margin_outer_pt = 90;
  st->column_gap_pt = 18;
  st->body_size_pt = 10.5;
  st->leading_pt = 14;
  st->indent_pt = 14;
  st->par_space_pt = 0;
  st->block_space_pt = 7;
  st->justify = true;
  st->track_from = 1.2;
  st->track_max_em = 0.01;
  st->ragged_cost = 300;
  st->list_indent_pt = 18;
  st->quote_indent_pt = 18;
  static const double hs[6] = {20, 14, 12, 11, 10.5, 10.5};
  memcpy(st->heading_size_pt, hs, sizeof hs);
  st->heading_before_pt = 14;
  st->heading_after_pt = 7;
  st->chapter_drop_pt = 60;
  st->last_page_lines = 5;
  st->code_size_pt = 8.5;
  st->code_leading_pt = 11;
  st->code_pad_pt = 4;
  st->code_gray = 0.94;
  st->code_min_size = 0.8; /* of the code's size: LaTeX's \small under \normalsize is 0.9, \footnotesize 0.8 */
  /* a listing's lines (as styles/print.ini sets them) */
  static const double numbers[3] = {0x5c / 255.0, 0x5c / 255.0, 0x5c / 255.0},
                      mark[3] = {0xf3 / 255.0, 0xe4 / 255.0, 0xac / 255.0},
                      rule[3] = {0x9a / 255.0, 0x74 / 255.0, 0x00 / 255.0};
  memcpy(st->line_number_rgb, numbers, sizeof numbers);
  memcpy(st->mark_rgb, mark, sizeof mark);
  memcpy(st->mark_rule_rgb, rule, sizeof rule);
  st->note_size_pt = 8.5;
  st->note_leading_pt = 11;
  st->caption_size_pt = 9;
  st->caption_leading_pt = 11.5;
  st->colophon_size_pt = 8.5;
  st->colophon_leading_pt = 11;
  st->table_size_pt = 9;
  st->table_leading_pt = 12;
  st->cell_pad_pt = 4;
  st->head_size_pt = 8.5;
  st->head_gap_pt = 24;
  st->folio_gap_pt = 30;
  st->subtitle_size_pt = 15;
  st->byline_size_pt = 12;
  st->toc_size_pt = 10.5;
  st->toc_leading_pt = 17;
  st->chapter_new_page = true;
  st->contents_always = true;
}

/* Which groups a key is looked up in: for a layout other than the book,
 * [G.LAYOUT.PAPER.columns] and [G.LAYOUT.columns] (two columns),
 * [G.LAYOUT.PAPER], [G.LAYOUT]; then [G.PAPER.columns], [G.columns] (two
 * columns), [G.PAPER], [G]. The first that has it wins. */
typedef struct {
  const char *paper;  /* "a4", ... */
  bool cols;          /* two columns */
  const char *layout; /* "handout", or NULL for the book */
} Sel;

static char *value_in(GKeyFile *kf, const char *group, const char *key, const Sel *sel)
{
  char *v = NULL;
  char *pc = sel->cols ? g_strdup_printf("%s.columns", sel->paper) : NULL;
  const char *subs[] = {pc, sel->cols ? "columns" : NULL, sel->paper, ""};
  for (size_t i = 0; i < G_N_ELEMENTS(subs) && !v; i++) {
    if (!subs[i])
      continue;
    char *g = *subs[i] ? g_strdup_printf("%s.%s", group, subs[i]) : g_strdup(group);
    v = g_key_file_get_value(kf, g, key, NULL);
    g_free(g);
  }
  g_free(pc);
  return v;
}

static char *value(GKeyFile *kf, const char *group, const char *key, const Sel *sel)
{
  char *v = NULL;
  if (sel->layout) {
    char *g = g_strdup_printf("%s.%s", group, sel->layout);
    v = value_in(kf, g, key, sel);
    g_free(g);
  }
  if (!v)
    v = value_in(kf, group, key, sel);
  if (v)
    g_strstrip(v);
  return v;
}

static bool num(GKeyFile *kf, const char *group, const char *key, const Sel *sel, double *out,
                const char *path, GError **err)
{
  char *v = value(kf, group, key, sel);
  if (!v)
    return true;
  char *end = NULL;
  double d = g_ascii_strtod(v, &end); /* locale-independent */
  bool ok = end != v && *end == '\0' && d >= 0 && d < 10000;
  if (ok)
    *out = d;
  else
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                "%s: [%s] %s: not a length in points: '%s'", path, group, key, v);
  g_free(v);
  return ok;
}

static void str(GKeyFile *kf, const char *group, const char *key, const Sel *sel, char **out)
{
  char *v = value(kf, group, key, sel);
  if (v && *v) {
    g_free(*out);
    *out = v;
  } else
    g_free(v);
}

bool style_load(Style *st, const char *path, OctavoPaper paper, int columns, GError **err)
{
  return style_load_layout(st, path, paper, columns, OCTAVO_LAYOUT_BOOK, err);
}

/* A yes/no key: "true"/"false" (or 1/0); others keep *out. */
static void flag(GKeyFile *kf, const char *group, const char *key, const Sel *sel, bool *out)
{
  char *v = value(kf, group, key, sel);
  if (v && (!g_ascii_strcasecmp(v, "true") || !strcmp(v, "1")))
    *out = true;
  else if (v && (!g_ascii_strcasecmp(v, "false") || !strcmp(v, "0")))
    *out = false;
  g_free(v);
}

/* The style file's lengths and numbers: [group] key -> a double in Style. */
static const struct {
  const char *group, *key;
  size_t offset;
} NUMS[] = {
    {"page", "margin-top", offsetof(Style, margin_top_pt)},
    {"page", "margin-bottom", offsetof(Style, margin_bottom_pt)},
    {"page", "margin-inner", offsetof(Style, margin_inner_pt)},
    {"page", "margin-outer", offsetof(Style, margin_outer_pt)},
    {"page", "column-gap", offsetof(Style, column_gap_pt)},
    {"body", "size", offsetof(Style, body_size_pt)},
    {"body", "leading", offsetof(Style, leading_pt)},
    {"body", "indent", offsetof(Style, indent_pt)},
    {"body", "paragraph-space", offsetof(Style, par_space_pt)},
    {"body", "block-space", offsetof(Style, block_space_pt)},
    {"body", "list-indent", offsetof(Style, list_indent_pt)},
    {"body", "quote-indent", offsetof(Style, quote_indent_pt)},
    {"body", "letter-spacing-from", offsetof(Style, track_from)},
    {"body", "letter-spacing-max", offsetof(Style, track_max_em)},
    {"body", "ragged-cost", offsetof(Style, ragged_cost)},
    {"heading", "size-1", offsetof(Style, heading_size_pt[0])},
    {"heading", "size-2", offsetof(Style, heading_size_pt[1])},
    {"heading", "size-3", offsetof(Style, heading_size_pt[2])},
    {"heading", "size-4", offsetof(Style, heading_size_pt[3])},
    {"heading", "size-5", offsetof(Style, heading_size_pt[4])},
    {"heading", "size-6", offsetof(Style, heading_size_pt[5])},
    {"heading", "space-before", offsetof(Style, heading_before_pt)},
    {"heading", "space-after", offsetof(Style, heading_after_pt)},
    {"heading", "chapter-drop", offsetof(Style, chapter_drop_pt)},
    {"page", "last-page-lines", offsetof(Style, last_page_lines)},
    {"code", "size", offsetof(Style, code_size_pt)},
    {"code", "leading", offsetof(Style, code_leading_pt)},
    {"code", "padding", offsetof(Style, code_pad_pt)},
    {"code", "background", offsetof(Style, code_gray)},
    {"code", "min-size", offsetof(Style, code_min_size)},
    {"footnote", "size", offsetof(Style, note_size_pt)},
    {"footnote", "leading", offsetof(Style, note_leading_pt)},
    {"caption", "size", offsetof(Style, caption_size_pt)},
    {"caption", "leading", offsetof(Style, caption_leading_pt)},
    {"colophon", "size", offsetof(Style, colophon_size_pt)},
    {"colophon", "leading", offsetof(Style, colophon_leading_pt)},
    {"table", "size", offsetof(Style, table_size_pt)},
    {"table", "leading", offsetof(Style, table_leading_pt)},
    {"table", "cell-padding", offsetof(Style, cell_pad_pt)},
    {"running-head", "size", offsetof(Style, head_size_pt)},
    {"running-head", "gap", offsetof(Style, head_gap_pt)},
    {"running-head", "folio-gap", offsetof(Style, folio_gap_pt)},
    {"title", "subtitle-size", offsetof(Style, subtitle_size_pt)},
    {"title", "byline-size", offsetof(Style, byline_size_pt)},
    {"contents", "size", offsetof(Style, toc_size_pt)},
    {"contents", "leading", offsetof(Style, toc_leading_pt)},
};

/* The paper: the option's, else the style file's [page] paper, else the
 * default; its size in points. False with err set for an unknown one. */
static bool load_paper(Style *st, GKeyFile *kf, OctavoPaper paper, const char *path, GError **err)
{
  st->paper = paper;
  if (paper == OCTAVO_PAPER_STYLE) {
    const Sel none = {"-", false, NULL};
    char *file_paper = value(kf, "page", "paper", &none);
    int v = OCTAVO_PAPER_DEFAULT;
    if (file_paper && !octavo_enum_parse(OCTAVO_ENUM_PAPER, file_paper, &v)) {
      g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                  "%s: unknown paper '%s' (%s)", path ? path : "style", file_paper,
                  octavo_enum_choices(OCTAVO_ENUM_PAPER));
      g_free(file_paper);
      return false;
    }
    g_free(file_paper);
    st->paper = (OctavoPaper)v;
  }
  if (!style_paper_size(st->paper, &st->paper_w_pt, &st->paper_h_pt)) {
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s: unknown paper",
                path ? path : "style");
    return false;
  }
  return true;
}

/* Letter spacing: from 0 (off) or at least the natural word space; at
 * most 0.1 em per gap; a ragged line's cost 0 to 10000 (style.h). */
static bool check_tracking(const Style *st, const char *f, GError **err)
{
  if (st->track_from != 0 && st->track_from < 1) {
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                "%s: [body] letter-spacing-from: 0 (off) or 1 and more, not %g", f, st->track_from);
    return false;
  }
  if (st->track_max_em > 0.1) {
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                "%s: [body] letter-spacing-max: at most 0.1 (em), not %g", f, st->track_max_em);
    return false;
  }
  if (st->ragged_cost < 0 || st->ragged_cost > 10000) {
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                "%s: [body] ragged-cost: 0 to 10000, not %g", f, st->ragged_cost);
    return false;
  }
  return true;
}

/* The faces, justification and the layout's yes/no keys. */
static void load_names(Style *st, GKeyFile *kf, const Sel *sel)
{
  str(kf, "body", "face", sel, &st->body_face);
  str(kf, "heading", "face", sel, &st->heading_face);
  str(kf, "code", "face", sel, &st->code_face);
  char *j = value(kf, "body", "justify", sel);
  if (j)
    st->justify = g_ascii_strcasecmp(j, "false") != 0 && strcmp(j, "0") != 0;
  g_free(j);
  flag(kf, "layout", "chapter-new-page", sel, &st->chapter_new_page);
  flag(kf, "layout", "contents-always", sel, &st->contents_always);
}

/* "#rrggbb" as rgb 0..1; false for anything else. */
static bool hex_rgb(const char *s, double rgb[3])
{
  unsigned r, g, b;
  if (!s || strlen(s) != 7 || sscanf(s, "#%02x%02x%02x", &r, &g, &b) != 3)
    return false;
  rgb[0] = r / 255.0;
  rgb[1] = g / 255.0;
  rgb[2] = b / 255.0;
  return true;
}

/* [code]'s line numbers and marked lines: the yes/no default, the colours. */
static bool load_code_lines(Style *st, GKeyFile *kf, const Sel *sel, const char *f, GError **err)
{
  flag(kf, "code", "line-numbers", sel, &st->code_line_numbers);
  static const struct {
    const char *key;
    size_t off;
  } col[] = {{"line-number-color", offsetof(Style, line_number_rgb)},
             {"mark-background", offsetof(Style, mark_rgb)},
             {"mark-rule", offsetof(Style, mark_rule_rgb)}};
  for (size_t i = 0; i < G_N_ELEMENTS(col); i++) {
    char *v = value(kf, "code", col[i].key, sel);
    bool ok = !v || hex_rgb(v, (double *)(void *)((char *)st + col[i].off));
    if (!ok)
      g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                  "%s: [code] %s: not '#rrggbb': '%s'", f, col[i].key, v);
    g_free(v);
    if (!ok)
      return false;
  }
  return true;
}

/* [code-tokens]: CLASS = #rrggbb, then "bold" and/or "italic" (book.h's
 * token classes; "plain" and unknown names are ignored). */
static bool load_tokens(Style *st, GKeyFile *kf, const Sel *sel, const char *f, GError **err)
{
  G_STATIC_ASSERT(BOOK_TOK_COUNT <= STYLE_TOKEN_CLASSES);
  for (int c = BOOK_TOK_PLAIN + 1; c < BOOK_TOK_COUNT; c++) {
    const char *name = book_tok_name((BookTokClass)c);
    char *v = value(kf, "code-tokens", name, sel);
    if (!v)
      continue;
    char **w = g_strsplit_set(v, " \t", -1);
    double rgb[3];
    bool ok = hex_rgb(w[0], rgb);
    st->tok[c].bold = st->tok[c].italic = false;
    for (int i = 1; ok && w[i]; i++) {
      if (!strcmp(w[i], "bold"))
        st->tok[c].bold = true;
      else if (!strcmp(w[i], "italic"))
        st->tok[c].italic = true;
      else if (*w[i])
        ok = false;
    }
    if (ok) {
      st->tok[c].set = true;
      memcpy(st->tok[c].rgb, rgb, sizeof rgb);
    } else {
      g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                  "%s: [code-tokens] %s: not '#rrggbb [bold] [italic]': '%s'", f, name, v);
    }
    g_strfreev(w);
    g_free(v);
    if (!ok)
      return false;
  }
  return true;
}

/* A fraction of the code's size never shrinks a listing below this: the
 * smallest code that still reads on paper (print.ini's size for code in
 * two A5 columns). */
#define CODE_LEGIBLE_PT 6.5

double style_code_min_pt(const Style *st, double size_pt)
{
  double m = st->code_min_size <= 1 ? MAX(st->code_min_size * size_pt, CODE_LEGIBLE_PT)
                                    : st->code_min_size;
  return MIN(m, size_pt);
}

/* Sizes a text can be read at, and a text block left by the margins. */
static bool check_sizes(const Style *st, const char *f, const char *p, GError **err)
{
  if (st->body_size_pt < 4 || st->leading_pt < st->body_size_pt * 0.8 || st->code_size_pt < 4) {
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                "%s: body or code size too small, or leading below the size", f);
    return false;
  }
  if (st->code_min_size <= 0 || (st->code_min_size > 1 && st->code_min_size < 4)) {
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                "%s: [code] min-size: a fraction of the size (above 0, up to 1) or at least 4 "
                "(points), not %g",
                f, st->code_min_size);
    return false;
  }
  double textw = st->paper_w_pt - st->margin_inner_pt - st->margin_outer_pt;
  double texth = st->paper_h_pt - st->margin_top_pt - st->margin_bottom_pt;
  if (textw < 72 || texth < 144) {
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                "%s: margins leave too small a text block for %s", f, p);
    return false;
  }
  return true;
}

bool style_load_layout(Style *st, const char *path, OctavoPaper paper, int columns,
                       OctavoLayout layout, GError **err)
{
  defaults(st);
  st->layout = layout;
  bool cols = columns == 2;
  st->cover = cover_defaults;
  st->cover.face = g_strdup("Charis SIL");
  st->body_face = g_strdup("Charis SIL");
  st->heading_face = g_strdup("Charis SIL");
  st->code_face = g_strdup("DejaVu Sans Mono");
  GKeyFile *kf = g_key_file_new();
  if (path && !g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, err)) {
    g_prefix_error(err, "cannot read the print style %s: ", path); /* GKeyFile names no file */
    g_key_file_free(kf);
    return false;
  }
  cover_load(&st->cover, kf);
  if (!load_paper(st, kf, paper, path, err)) {
    g_key_file_free(kf);
    return false;
  }
  const char *p = octavo_enum_name(OCTAVO_ENUM_PAPER, st->paper);
  const char *f = path ? path : "style";
  const Sel sel = {
      p, cols, layout == OCTAVO_LAYOUT_BOOK ? NULL : octavo_enum_name(OCTAVO_ENUM_LAYOUT, layout)};
  bool ok = true;
  for (size_t i = 0; i < G_N_ELEMENTS(NUMS) && ok; i++)
    ok = num(kf, NUMS[i].group, NUMS[i].key, &sel, (double *)((char *)st + NUMS[i].offset), f, err);
  ok = ok && check_tracking(st, f, err);
  if (ok) {
    load_names(st, kf, &sel);
    ok = check_sizes(st, f, p, err) && load_tokens(st, kf, &sel, f, err) &&
         load_code_lines(st, kf, &sel, f, err);
  }
  g_key_file_free(kf);
  return ok;
}

void style_clear(Style *st)
{
  g_free(st->body_face);
  g_free(st->heading_face);
  g_free(st->code_face);
  g_free(st->cover.face);
  st->body_face = st->heading_face = st->code_face = st->cover.face = NULL;
}
