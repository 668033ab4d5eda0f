/* layout/para.c: a paragraph's text as one string with pango attributes
 * and spans (links, strike-outs, footnote and URL-note references, code),
 * from the model's inline nodes, remembering where each byte came from. */
#include "layout/internal.h"

#include <string.h>

/* The left indent, clamped so that deep nesting keeps half the column. */
double left_of(const Build *c)
{
  return MIN(c->left, c->measure * 0.5);
}

ParaStyle para_style(Build *c, const PangoFontDescription *d, double leading)
{
  ParaStyle ps = {0};
  ps.desc = (PangoFontDescription *)d;
  ps.size_pt = pango_font_description_get_size(d) / (double)PANGO_SCALE;
  ps.leading_pt = leading;
  ps.base_pt = baseline(c->shp, d, leading);
  ps.left_pt = left_of(c);
  ps.width_pt = c->measure - ps.left_pt;
  ps.justify = c->st->justify;
  ps.hyphenate = c->env->hyph;
  ps.rtl_right = true;
  return ps;
}

void url_note_free(gpointer p)
{
  UrlNote *u = p;
  g_free(u->id);
  g_free(u->label);
  g_free(u->uri);
  g_free(u);
}

void para_init(Para *p)
{
  p->text = g_string_new(NULL);
  p->attrs = pango_attr_list_new();
  p->srcs = g_array_new(FALSE, TRUE, sizeof(Src));
  p->spans = g_array_new(FALSE, TRUE, sizeof(Span));
  p->shaped = NULL;
  p->ahead = false;
}

void para_clear(Para *p)
{
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
  shape_free(p->shaped);
}

static void attr_add(Para *p, PangoAttribute *a, size_t start, size_t end)
{
  a->start_index = (guint)start;
  a->end_index = (guint)end;
  pango_attr_list_insert(p->attrs, a);
}

/* Does the paragraph end in a code span (whose spaces are its own)? */
static bool tail_is_code(const Para *p)
{
  for (guint i = p->spans->len; i-- > 0;) {
    const Span *s = &g_array_index(p->spans, Span, i);
    if (s->b < p->text->len)
      break; /* spans are kept in the order they close: none before this one ends here */
    if (s->kind == SPAN_CODE && s->a < s->b)
      return true;
  }
  return false;
}

/* Append t[a, b) from node offset `off`, as one source piece. */
static void piece(Para *p, BookNode *node, const char *t, size_t a, size_t b, size_t node_off)
{
  if (a >= b)
    return;
  Src s = {p->text->len, b - a, node, node_off + a};
  g_array_append_val(p->srcs, s);
  g_string_append_len(p->text, t + a, (gssize)(b - a));
}

/* Append source text, keeping where it came from; control characters
 * become spaces (pango would draw them as boxes). With `collapse` (text,
 * not code), a run of spaces becomes one, as HTML does: two spaces typed
 * after a full stop, or a space at either side of a line break. */
static void para_text_as(Para *p, BookNode *node, const char *t, size_t node_off, bool collapse)
{
  if (!t || !*t)
    return;
  /* the node's text as it is, or (a control character or invalid UTF-8 in
   * it) a copy made right */
  const char *end = NULL;
  bool valid = g_utf8_validate(t, -1, &end);
  size_t n = (size_t)(end - t);
  bool ctrl = false;
  for (size_t i = 0; i < n && !ctrl; i++)
    ctrl = (unsigned char)t[i] < 0x20;
  char *own = NULL;
  if (!valid || ctrl) {
    own = valid ? g_strdup(t) : g_utf8_make_valid(t, -1);
    for (char *q = own; *q; q++)
      if ((unsigned char)*q < 0x20)
        *q = ' ';
    n = strlen(own);
  }
  const char *v = own ? own : t;
  if (!collapse) {
    piece(p, node, v, 0, n, node_off);
    g_free(own);
    return;
  }
  bool space = p->text->len > 0 && p->text->str[p->text->len - 1] == ' ' && !tail_is_code(p);
  size_t from = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i] != ' ') {
      space = false;
      continue;
    }
    if (space) { /* a second space: cut it out of the piece */
      piece(p, node, v, from, i, node_off);
      from = i + 1;
    }
    space = true;
  }
  piece(p, node, v, from, n, node_off);
  g_free(own);
}

void para_text(Para *p, BookNode *node, const char *t, size_t node_off)
{
  para_text_as(p, node, t, node_off, true);
}

void span_add(Para *p, SpanKind kind, size_t a, size_t b, BookNode *node)
{
  Span s = {kind, a, b, node, NULL, NULL, NULL, NULL};
  g_array_append_val(p->spans, s);
}

static const char *html_attr(const BookNode *n, const char *name)
{
  for (char **a = n->as.html.attrs; a && a[0] && a[1]; a += 2)
    if (strcmp(a[0], name) == 0)
      return a[1];
  return NULL;
}

/* The chapter's URL note for href: one per distinct URL in a chapter, so a
 * page (or the chapter's list) never prints the same URL twice; lettered
 * on from the notes of the chapters its flow ran on from (url_base). */
static UrlNote *url_note_for(Build *c, const char *href)
{
  GPtrArray *all = c->store->url_notes;
  /* url_index: uri -> 1 + the index of its latest note (one lookup, not a scan) */
  guint at = GPOINTER_TO_UINT(g_hash_table_lookup(c->store->url_index, href));
  if (at > c->store->url_first)
    return all->pdata[at - 1];
  UrlNote *u = g_new0(UrlNote, 1);
  guint k = all->len - c->store->url_first;
  GString *lab = g_string_new(NULL);
  for (guint v = c->store->url_base + k + 1; v > 0; v = (v - 1) / 26)
    g_string_prepend_c(lab, (char)('a' + (v - 1) % 26));
  u->label = g_string_free(lab, FALSE);
  /* a book's per chapter (a chapter may be set on another thread,
   * pool.c); a handout's through. With a space, which no
   * id of the book holds (slugs make none, sanitize_elements.c refuses
   * one in an id): a heading "URL 2" keeps its own destination. */
  u->id = c->store->url_chapter ? g_strdup_printf("url %u-%u", c->store->url_chapter, k + 1)
                                : g_strdup_printf("url %u", all->len + 1);
  u->uri = g_strdup(href);
  g_ptr_array_add(all, u);
  g_hash_table_insert(c->store->url_index, u->uri, GUINT_TO_POINTER(all->len));
  return u;
}

/* Is the text [s, e) of a link its own URL (with or without mailto:)? */
static bool shows_url(const Para *p, size_t s, size_t e, const char *href)
{
  const char *bare = g_str_has_prefix(href, "mailto:") ? href + 7 : href;
  size_t n = e - s;
  const char *t = p->text->str + s;
  return (strlen(href) == n && memcmp(t, href, n) == 0) ||
         (strlen(bare) == n && memcmp(t, bare, n) == 0);
}

/* A footnote reference: the note's number raised against its word. */
static void footnote_ref(Build *c, Para *p, BookNode *n)
{
  BookFootnote *fn = n->as.fnref.note;
  if (!fn)
    return;
  size_t len = p->text->len;
  char num[24];
  g_snprintf(num, sizeof num, "%d", fn->number);
  g_string_append(p->text, num);
  attr_add(p, pango_attr_scale_new(0.68), len, p->text->len);
  attr_add(p, pango_attr_rise_new((int)(c->st->body_size_pt * 0.36 * PANGO_SCALE)), len,
           p->text->len);
  span_add(p, SPAN_FNREF, len, p->text->len, n);
  Span *s = &g_array_index(p->spans, Span, p->spans->len - 1);
  s->dest = g_strdup(fn->id);
  s->self = book_fnref_dest(fn, n->as.fnref.ref_index);
}

/* An inline image: with a file to draw, one object replacement character
 * (U+FFFC) under a SPAN_IMAGE, which the line breaker takes as a box of
 * the image's size and over which the line draws the image (lines.c);
 * with none (missing, remote, refused: resolve.c has warned), its alt text
 * (else its file name) framed, a SPAN_IMGALT. */
static void inline_image(Para *p, BookNode *n)
{
  size_t at = p->text->len;
  if (n->as.image.res) {
    piece(p, n, "\xEF\xBF\xBC", 0, 3, 0);
    span_add(p, SPAN_IMAGE, at, p->text->len, n);
    return;
  }
  GString *alt = g_string_new(NULL);
  book_node_text(n, alt);
  if (!alt->len) {
    char *base = n->as.image.src && *n->as.image.src ? g_path_get_basename(n->as.image.src) : NULL;
    g_string_assign(alt, base ? base : "image");
    g_free(base);
  }
  para_text(p, n, alt->str, 0);
  size_t a = at < p->text->len && p->text->str[at] == ' ' ? at + 1 : at;
  if (a < p->text->len) {
    span_add(p, SPAN_IMGALT, a, p->text->len, n);
    span_add(p, SPAN_NOHYPH, a, p->text->len, n); /* the frame would cut a word */
  }
  g_string_free(alt, TRUE);
}

/* An inline leaf entered: text, code, breaks, footnote references, images.
 * A container only records where its text starts, in `starts`. */
static void inline_enter(Build *c, Para *p, BookIter *it, BookNode *n, GArray *starts)
{
  size_t len = p->text->len;
  switch (n->type) {
  case BOOK_TEXT: para_text(p, n, n->text, 0); break;
  case BOOK_CODE:
    para_text_as(p, n, n->text, 0, false);
    attr_add(p, pango_attr_family_new(c->st->code_face), len, p->text->len);
    attr_add(p, pango_attr_scale_new(0.86), len, p->text->len);
    span_add(p, SPAN_CODE, len, p->text->len, n);
    break;
  case BOOK_SOFTBREAK:
    if (!len || p->text->str[len - 1] != ' ' || tail_is_code(p))
      g_string_append_c(p->text, ' ');
    break;
  case BOOK_LINEBREAK: g_string_append_c(p->text, '\n'); break;
  case BOOK_FOOTNOTE_REF: footnote_ref(c, p, n); break;
  case BOOK_IMAGE: /* its alt text is no text of the paragraph */
    inline_image(p, n);
    book_iter_skip_children(it);
    g_array_append_val(starts, p->text->len);
    break;
  default:
    if (!book_node_is_inline(n->type))
      book_iter_skip_children(it);
    g_array_append_val(starts, len);
    break;
  }
}

/* Is text [s, e) other than href (with or without mailto:)? */
static bool text_not_url(const Para *p, size_t s, size_t e, const char *href)
{
  char *shown = g_strndup(p->text->str + s, e - s);
  const char *bare = g_str_has_prefix(href, "mailto:") ? href + 7 : href;
  bool other = strcmp(shown, href) != 0 && strcmp(shown, bare) != 0;
  g_free(shown);
  return other;
}

/* The URL of an external link [s, e) for paper: its note's letter against
 * its word, unless the text already is the URL. */
static void link_note_mark(Build *c, Para *p, BookNode *n, const char *href, size_t s, size_t e)
{
  if (!text_not_url(p, s, e, href))
    return;
  /* measuring (a table's cell, table.c): room for a mark of two letters,
   * no note made (it is numbered when the cell is set) */
  UrlNote *u = c->measuring ? NULL : url_note_for(c, href);
  /* the letter against its word, as a footnote number */
  size_t m0 = p->text->len;
  g_string_append(p->text, u ? u->label : "mm");
  attr_add(p, pango_attr_scale_new(0.68), m0, p->text->len);
  attr_add(p, pango_attr_style_new(PANGO_STYLE_ITALIC), m0, p->text->len);
  attr_add(p, pango_attr_rise_new((int)(c->st->body_size_pt * 0.36 * PANGO_SCALE)), m0,
           p->text->len);
  if (!u)
    return;
  span_add(p, SPAN_URLNOTE, m0, p->text->len, n);
  Span *us = &g_array_index(p->spans, Span, p->spans->len - 1);
  us->dest = g_strdup(u->id);
  us->key = u;
}

/* In a footnote (no note of a note): the URL of an external link [s, e)
 * in parentheses after the text, a live link itself, unless the text
 * already is it. */
static void link_url_after(Para *p, BookNode *n, const char *href, size_t s, size_t e)
{
  if (!text_not_url(p, s, e, href))
    return;
  const char *bare = g_str_has_prefix(href, "mailto:") ? href + 7 : href;
  g_string_append(p->text, " (");
  size_t u0 = p->text->len;
  para_text(p, NULL, bare, 0);
  size_t u1 = p->text->len;
  g_string_append_c(p->text, ')');
  span_add(p, SPAN_NOHYPH, u0, u1, n);
  span_add(p, SPAN_URL, u0, u1, n);
  span_add(p, SPAN_LINK, u0, u1, n);
  g_array_index(p->spans, Span, p->spans->len - 1).href = g_strdup(href);
}

/* A link's text [s, len) closed: its span and destination, and its URL for
 * paper. */
static void link_exit(Build *c, Para *p, BookNode *n, size_t s, size_t len)
{
  span_add(p, SPAN_LINK, s, len, n);
  Span *sp = &g_array_index(p->spans, Span, p->spans->len - 1);
  if (n->as.link.internal && n->as.link.chapter) {
    /* a fragment no heading or note carries points at its chapter */
    const char *frag = n->as.link.fragment;
    bool known = frag && g_hash_table_contains(c->env->targets, frag);
    sp->dest = g_strdup(known ? frag : n->as.link.chapter->id);
  } else if (!n->as.link.internal && book_url_is_external(n->as.link.href))
    sp->href = g_strdup(n->as.link.href);
  const char *href = n->as.link.href;
  if (href && !n->as.link.internal && shows_url(p, s, len, href))
    span_add(p, SPAN_URL, s, len, n);
  if (n->as.link.internal || !book_url_is_external(href))
    return;
  if (!c->note_mode)
    link_note_mark(c, p, n, href, s, len);
  else if (!c->measuring)
    link_url_after(p, n, href, s, len);
}

static bool tag_in(const char *t, const char *const *set)
{
  for (; *set; set++)
    if (!strcmp(t, *set))
      return true;
  return false;
}

/* A raw-HTML inline element's text [s, len) closed: its style. */
static void html_inline_exit(Build *c, Para *p, BookNode *n, size_t s, size_t len)
{
  static const char *const italic[] = {"em", "i", "cite", "dfn", "var", NULL};
  static const char *const bold[] = {"strong", "b", NULL};
  static const char *const code[] = {"code", "kbd", "samp", "tt", NULL};
  static const char *const strike[] = {"s", "del", "strike", NULL};
  const char *t = n->as.html.tag ? n->as.html.tag : "";
  if (tag_in(t, italic))
    attr_add(p, pango_attr_style_new(PANGO_STYLE_ITALIC), s, len);
  else if (tag_in(t, bold))
    attr_add(p, pango_attr_weight_new(PANGO_WEIGHT_BOLD), s, len);
  else if (tag_in(t, code)) {
    attr_add(p, pango_attr_family_new(c->st->code_face), s, len);
    attr_add(p, pango_attr_scale_new(0.86), s, len);
    span_add(p, SPAN_CODE, s, len, n);
  } else if (!strcmp(t, "sup") || !strcmp(t, "sub")) {
    attr_add(p, pango_attr_scale_new(0.7), s, len);
    double r = (!strcmp(t, "sup") ? 0.36 : -0.18) * c->st->body_size_pt;
    attr_add(p, pango_attr_rise_new((int)(r * PANGO_SCALE)), s, len);
  } else if (tag_in(t, strike))
    span_add(p, SPAN_STRIKE, s, len, n);
  else if (!strcmp(t, "a") && book_url_is_external(html_attr(n, "href"))) {
    span_add(p, SPAN_LINK, s, len, n);
    g_array_index(p->spans, Span, p->spans->len - 1).href = g_strdup(html_attr(n, "href"));
  }
}

/* An inline container closed: the text [s, len) it holds gets its style
 * or span. */
static void inline_exit(Build *c, Para *p, BookNode *n, size_t s, size_t len)
{
  switch (n->type) {
  case BOOK_EMPH: attr_add(p, pango_attr_style_new(PANGO_STYLE_ITALIC), s, len); break;
  case BOOK_STRONG: attr_add(p, pango_attr_weight_new(PANGO_WEIGHT_BOLD), s, len); break;
  case BOOK_STRIKE: span_add(p, SPAN_STRIKE, s, len, n); break;
  case BOOK_LINK: link_exit(c, p, n, s, len); break;
  case BOOK_HTML_INLINE: html_inline_exit(c, p, n, s, len); break;
  default: break;
  }
}

/* The text and attributes of the inline nodes under root (and of root
 * itself with `self`). */
static void inlines_walk(Build *c, Para *p, BookNode *root, bool self)
{
  GArray *starts = g_array_new(FALSE, FALSE, sizeof(size_t));
  BookIter it;
  book_iter_init(&it, root);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (n == root && !self)
      continue;
    if (ev == BOOK_ITER_ENTER) {
      inline_enter(c, p, &it, n, starts);
      continue;
    }
    /* EXIT of an inline container */
    size_t len = p->text->len, s = len;
    if (starts->len) {
      s = g_array_index(starts, size_t, starts->len - 1);
      g_array_set_size(starts, starts->len - 1);
    }
    if (s < len)
      inline_exit(c, p, n, s, len);
  }
  g_array_free(starts, TRUE);
}

/* The text and attributes of `parent`'s inline children. */
void para_inlines(Build *c, Para *p, BookNode *parent)
{
  inlines_walk(c, p, parent, false);
}

BookNode *para_inline_run(Build *c, Para *p, BookNode *first)
{
  BookNode *last = first;
  for (BookNode *n = first; n && book_node_is_inline(n->type); n = n->next) {
    inlines_walk(c, p, n, true);
    last = n;
  }
  return last;
}

/* Where byte `at` of the paragraph comes from. */
void para_mark(const Para *p, size_t at, BookNode **node, size_t *off)
{
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

guint8 *span_flags(const Para *p, GByteArray *out)
{
  g_byte_array_set_size(out, (guint)p->text->len + 1);
  guint8 *f = out->data;
  memset(f, 0, p->text->len + 1);
  for (guint i = 0; i < p->spans->len; i++) {
    const Span *s = &g_array_index(p->spans, Span, i);
    guint8 bit = s->kind == SPAN_CODE      ? F_CODE
                 : s->kind == SPAN_NOHYPH  ? F_NOHYPH
                 : s->kind == SPAN_URL     ? F_URL
                 : s->kind == SPAN_FNREF   ? F_MARK
                 : s->kind == SPAN_URLNOTE ? F_MARK | F_LETTER_MARK
                 : s->kind == SPAN_IMAGE   ? F_IMAGE
                                           : 0;
    for (size_t k = s->a; bit && k < s->b && k < p->text->len; k++)
      f[k] |= bit;
  }
  return f;
}

gint cmp_span(gconstpointer a, gconstpointer b)
{
  const Span *x = a, *y = b;
  return x->a < y->a ? -1 : x->a > y->a ? 1 : 0;
}
