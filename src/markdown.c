/* markdown.c: Markdown (cmark-gfm) -> document model, and the front end's
 * driver.
 *
 * What it does, per input: parses the text (already repaired by input.c,
 * front matter already blanked by meta.c) with cmark-gfm and its table,
 * strikethrough, autolink, tasklist and footnote extensions, and converts
 * cmark's tree to model nodes with cmark's iterator (no recursion).  Raw
 * HTML goes through sanitize.c.  md_parse_sources() runs the steps in order
 * (see front.h).
 *
 * What it does not do: split chapters (chapters.c), resolve links or
 * images (resolve.c), metadata (meta.c).  cmark-gfm types never leave this
 * file.
 */
#include "front.h"
#include "frontahead.h"
#include "highlight.h"

#include "ext.h"
#include "sanitize.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <stdlib.h>
#include <string.h>

/* One open cmark container: the model node holding its content (or NULL for
 * a container that makes none) and where to continue when it closes. */
typedef struct {
  cmark_node *cm;
  BookNode *node;
  BookNode *restore;
} Open;

static bool cm_is_leaf(cmark_node_type t)
{
  switch (t) {
  case CMARK_NODE_HTML_BLOCK:
  case CMARK_NODE_THEMATIC_BREAK:
  case CMARK_NODE_CODE_BLOCK:
  case CMARK_NODE_TEXT:
  case CMARK_NODE_SOFTBREAK:
  case CMARK_NODE_LINEBREAK:
  case CMARK_NODE_CODE:
  case CMARK_NODE_HTML_INLINE: return true;
  default: return false;
  }
}

/* cmark-gfm's inline positions are sometimes off (a column past the end of
 * the line for some autolinks): is line:col inside the text? */
static bool plausible(const Src *s, int line, int col)
{
  if (line < 1 || col < 1 || (guint)line > s->lines->len)
    return false;
  gsize start = g_array_index(s->lines, gsize, line - 1);
  gsize end = (guint)line < s->lines->len ? g_array_index(s->lines, gsize, line) : s->len + 1;
  return (gsize)col <= end - start;
}

static BookPos cm_pos(const Src *s, cmark_node *n, const BookNode *parent)
{
  BookPos p = {s->file, cmark_node_get_start_line(n), cmark_node_get_start_column(n)};
  if (!plausible(s, p.line, p.col))
    p.line = p.col = 0;
  if (p.line <= 0) {
    if (parent && parent->pos.line > 0)
      p = parent->pos;
    else
      p.line = p.col = 0;
  }
  if (p.col <= 0)
    p.col = p.line > 0 ? 1 : 0;
  return p;
}

static BookFootnote *note_for(Ctx *c, Src *s, int k)
{
  if (k < 1 || k > 1000000)
    return NULL;
  if (s->notes->len < (guint)k)
    g_ptr_array_set_size(s->notes, k);
  BookFootnote *f = s->notes->pdata[k - 1];
  if (!f) {
    f = g_new0(BookFootnote, 1);
    s->notes->pdata[k - 1] = f;
    g_ptr_array_add(c->pending, f);
  }
  return f;
}

/* The label of a footnote definition: cmark-gfm keeps it only internally,
 * but its CommonMark renderer writes it first ("[^label]:"). The note's
 * blocks are set aside meanwhile, so that only that line is rendered. */
static char *footnote_label(cmark_node *def)
{
  cmark_node *held = cmark_node_new(CMARK_NODE_DOCUMENT);
  for (cmark_node *k; (k = cmark_node_first_child(def));)
    cmark_node_append_child(held, k);
  char *cm = cmark_render_commonmark(def, CMARK_OPT_DEFAULT, 0);
  for (cmark_node *k; (k = cmark_node_first_child(held));)
    cmark_node_append_child(def, k);
  cmark_node_free(held);
  char *label = NULL;
  if (cm && g_str_has_prefix(cm, "[^")) {
    char *e = strstr(cm + 2, "]:");
    if (e)
      label = g_strndup(cm + 2, (gsize)(e - cm - 2));
  }
  cmark_get_default_mem_allocator()->free(cm);
  return label ? label : g_strdup("?");
}

/* Close the innermost open raw-HTML element called `name` between cur and
 * limit (exclusive); report a closing tag that closes nothing. */
static BookNode *close_html(Book *b, BookNode *cur, BookNode *limit, const char *name,
                            const BookPos *pos)
{
  for (BookNode *m = cur; m && m != limit; m = m->parent) {
    bool match = false;
    if (m->type == BOOK_HTML_BLOCK || m->type == BOOK_HTML_INLINE)
      match = g_ascii_strcasecmp(m->as.html.tag, name) == 0;
    else if (m->type == BOOK_LINK)
      match = g_ascii_strcasecmp(name, "a") == 0;
    if (!match)
      continue;
    BookNode *parent = m->parent;
    if (san_is_marker(m)) {
      book_node_unlink(m);
      book_node_free(m);
    }
    return parent;
  }
  book_diag(b, BOOK_WARNING, pos, "raw HTML: dropped </%s>, which closes nothing", name);
  return cur;
}

/* Paragraph done: a lone image becomes a figure; an empty paragraph (only
 * dropped HTML) goes. */
static void finish_paragraph(BookNode *p)
{
  if (!p->first_child) {
    book_node_unlink(p);
    book_node_free(p);
  } else if (p->first_child == p->last_child && p->first_child->type == BOOK_IMAGE) {
    p->type = BOOK_FIGURE;
  }
}

/* cmark-gfm gives no position to breaks and autolinks, and after a hard
 * break it counts the next line's text as if on the same line.  Put
 * position-less inlines where the previous sibling starts, and text after a
 * break on a later line. */
static void fix_pos_after_break(const Src *s, cmark_node *cn, const BookNode *parent, BookPos *pos)
{
  const BookNode *prev = parent->last_child;
  if (!plausible(s, cmark_node_get_start_line(cn), cmark_node_get_start_column(cn)) && prev &&
      prev->pos.line > 0)
    *pos = prev->pos;
  if (prev && (prev->type == BOOK_SOFTBREAK || prev->type == BOOK_LINEBREAK)) {
    const BookNode *before = prev->prev;
    int expect = (before ? before->pos.line : parent->pos.line) + 1;
    if (pos->line < expect && plausible(s, expect, 1)) {
      pos->line = expect;
      pos->col = 1;
    }
  }
}

/* An inline container cannot start after its first child: cmark-gfm gets
 * some multi-line links wrong. Move it to just before the child. */
static void fix_inline_pos(BookNode *n)
{
  const BookNode *k = n->first_child;
  if (!k || k->pos.line <= 0)
    return;
  if (n->pos.line > k->pos.line || (n->pos.line == k->pos.line && n->pos.col > k->pos.col) ||
      n->pos.line <= 0) {
    int back = n->type == BOOK_IMAGE ? 2 : 1;
    n->pos = k->pos;
    n->pos.col = k->pos.col > back ? k->pos.col - back : 1;
  }
}

/* The conversion of one input: where the next nodes go. */
typedef struct {
  Ctx *c;
  Src *s;
  Book *b;
  BookNode *root;  /* the input's tree */
  BookNode *cur;   /* the node that takes the next children */
  BookNode *limit; /* raw-HTML closing tags close nothing at or above it */
  int ndefs;       /* footnote definitions seen */
  GHashTable *
      refused; /* raw-HTML tag -> opening tags not opened (too deep) whose closing tags to ignore */
  BookNode *deep_warned; /* the top-level block where flattening was last reported */
} Conv;

/* ---- the depth limit (book.h: BOOK_MAX_DEPTH) ---- */

/* Report flattening once per top-level block. */
static void warn_deep(Conv *v, const BookPos *pos)
{
  BookNode *top = v->cur;
  while (top->parent && top->parent->parent)
    top = top->parent;
  if (top == v->deep_warned)
    return;
  v->deep_warned = top;
  book_diag(v->b, BOOK_WARNING, pos,
            "nesting deeper than the model allows (%d levels): deeper levels flattened into this "
            "one, their text kept",
            BOOK_MAX_DEPTH);
}

/* May container n (not yet attached) open inside v->cur?  Block containers
 * open up to BOOK_MAX_BLOCK_DEPTH (a list with room for its items; an item
 * only in a list), inline containers while a child still fits under
 * BOOK_MAX_DEPTH.  A refused container's content goes into v->cur. */
static bool fits(Conv *v, const BookNode *n)
{
  int d = book_node_depth(v->cur) + 1;
  switch (n->type) {
  case BOOK_LIST: return d + 1 <= BOOK_MAX_BLOCK_DEPTH;
  case BOOK_ITEM: return v->cur->type == BOOK_LIST;
  case BOOK_BLOCKQUOTE:
  case BOOK_HTML_BLOCK: return d <= BOOK_MAX_BLOCK_DEPTH;
  case BOOK_DEFLIST: return d + 1 <= BOOK_MAX_BLOCK_DEPTH;
  case BOOK_DEFTERM:
  case BOOK_DEFDESC: return v->cur->type == BOOK_DEFLIST;
  default: return !book_node_is_inline(n->type) || d + 1 <= BOOK_MAX_DEPTH;
  }
}

/* Refuse an opening raw-HTML tag that does not fit: its closing tag will
 * close nothing. */
static bool refuse_html(Conv *v, BookNode *hn, const BookPos *pos)
{
  if (fits(v, hn))
    return false;
  warn_deep(v, pos);
  const char *tag = hn->as.html.tag ? hn->as.html.tag : "";
  g_hash_table_insert(v->refused, g_strdup(tag),
                      GINT_TO_POINTER(GPOINTER_TO_INT(g_hash_table_lookup(v->refused, tag)) + 1));
  book_node_free(hn);
  return true;
}

/* A closing tag: it closes a refused opening tag first, if any. */
static BookNode *close_tag(Conv *v, const char *name, const BookPos *pos)
{
  int k = GPOINTER_TO_INT(g_hash_table_lookup(v->refused, name));
  if (k > 0) {
    g_hash_table_insert(v->refused, g_strdup(name), GINT_TO_POINTER(k - 1));
    return v->cur;
  }
  return close_html(v->b, v->cur, v->limit, name, pos);
}

/* A raw-HTML block: a lone opening tag opens a container for the Markdown
 * that follows, closing tags close one, anything else is cleaned whole. */
static void html_block(Conv *v, const char *lit, const BookPos *pos)
{
  BookNode *hn;
  char *name;
  char **closers = san_closing_tags(lit);
  if (closers && closers[1]) { /* "</div></div>": close each */
    for (char **k = closers; *k; k++)
      v->cur = close_tag(v, *k, pos);
    g_strfreev(closers);
    return;
  }
  g_strfreev(closers);
  switch (san_fragment(v->b, lit ? lit : "", true, pos, &hn, &name)) {
  case SAN_OPEN:
    if (refuse_html(v, hn, pos))
      break;
    book_node_append(v->cur, hn);
    v->cur = hn;
    break;
  case SAN_CLOSE: v->cur = close_tag(v, name, pos); break;
  case SAN_NONE: {
    BookNode *open = san_block(v->b, lit ? lit : "", lit ? strlen(lit) : 0, pos, v->cur);
    if (open)
      v->cur = open;
    break;
  }
  default: book_node_free(hn); break;
  }
  g_free(name);
}

/* One inline raw-HTML tag: opening tags open an element that takes the
 * inlines up to its closing tag. */
static void html_inline(Conv *v, const char *lit, const BookPos *pos)
{
  BookNode *hn;
  char *name;
  switch (san_fragment(v->b, lit ? lit : "", false, pos, &hn, &name)) {
  case SAN_OPEN:
    if (refuse_html(v, hn, pos))
      break;
    /* fall through */
  case SAN_SUPPRESS: /* a marker always opens: its content must go */
    book_node_append(v->cur, hn);
    v->cur = hn;
    break;
  case SAN_VOID: book_node_append(v->cur, hn); break;
  case SAN_CLOSE: v->cur = close_tag(v, name, pos); break;
  default: book_node_free(hn); break;
  }
  g_free(name);
}

/* A footnote definition: owned by its BookFootnote, never by the tree. */
static BookNode *footnote_def(Conv *v, cmark_node *cn, const BookPos *pos)
{
  BookFootnote *f = note_for(v->c, v->s, ++v->ndefs);
  BookNode *n = book_node_new(v->b, BOOK_FOOTNOTE_DEF, pos);
  if (f && !f->def) {
    f->def = n;
    f->label = footnote_label(cn);
  } else {
    /* Cannot happen with cmark-gfm's numbering; keep the tree owned. */
    book_node_append(v->root, n);
  }
  return n;
}

/* The EPUB attributes of an attribute block: "id" (with_id), "class",
 * "data-KEY"; a NULL-terminated name, value array, or NULL. */
static char **attrs_of(const ExtAttrs *a, bool with_id)
{
  GPtrArray *out = g_ptr_array_new();
  if (with_id && a->id) {
    g_ptr_array_add(out, g_strdup("id"));
    g_ptr_array_add(out, g_strdup(a->id));
  }
  if (a->classes->len) {
    g_ptr_array_add(out, g_strdup("class"));
    GString *cls = g_string_new(NULL);
    for (guint i = 0; i < a->classes->len; i++)
      g_string_append_printf(cls, "%s%s", i ? " " : "", (const char *)a->classes->pdata[i]);
    g_ptr_array_add(out, g_string_free(cls, FALSE));
  }
  for (guint i = 0; i + 1 < a->kv->len; i += 2) {
    g_ptr_array_add(out, g_strconcat("data-", a->kv->pdata[i], NULL));
    g_ptr_array_add(out, g_strdup(a->kv->pdata[i + 1]));
  }
  if (!out->len) {
    g_ptr_array_free(out, TRUE);
    return NULL;
  }
  g_ptr_array_add(out, NULL);
  return (char **)g_ptr_array_free(out, FALSE);
}

/* A heading's attribute block ({#id .class key=value}, ext_attrs.c), if
 * any: its id (chapters.c keeps it), classes and data attributes. */
static void heading_attrs(BookNode *n, const ExtAttrs *a)
{
  if (!a)
    return;
  if (a->id) {
    n->as.heading.id = g_strdup(a->id);
    n->as.heading.explicit_id = true;
  }
  for (guint i = 0; i < a->classes->len; i++) {
    const char *k = a->classes->pdata[i];
    if (strcmp(k, "unnumbered") == 0)
      n->as.heading.unnumbered = true;
    else if (strcmp(k, "unlisted") == 0)
      n->as.heading.unlisted = true;
  }
  n->as.heading.attrs = attrs_of(a, false);
}

/* ---- a listing's options: line numbers, marked lines ----
 *
 * Read off the whole info string, in the forms the tools authors come
 * from write them (README.md, "Code listings"):
 *   pandoc        {.rust .numberLines startFrom="10" hl_lines="2 4-5"}
 *   a word, then  rust {.numberLines}   python linenums="1" hl_lines="2 3"
 *                 js {1,3-5} (Docusaurus, VitePress; also js{1,3-5})
 *   commas        rust,linenos,linenostart=10,hl_lines=2-3 (Zola; mdBook's
 *                 own words, ignore, editable, ..., are left to tidy.c)
 * Marked lines count from the listing's first line, 1, whatever number
 * it shows (as Pygments' hl_lines do). */

static int cmp_range(const void *x, const void *y)
{
  const guint *a = x, *b = y;
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1];
}

typedef struct {
  Book *b;
  const BookPos *pos;
  BookNode *n;
  GArray *marks;  /* guint pairs, unsorted */
  bool in_marks;  /* the last option was hl_lines: a bare range goes on it */
} CodeOpts;

static bool numbering_word(const char *k)
{
  static const char *const w[] = {"numberLines", "number-lines", "linenos", "line-numbers",
                                  "linenums"};
  for (size_t i = 0; i < G_N_ELEMENTS(w); i++)
    if (g_ascii_strcasecmp(k, w[i]) == 0)
      return true;
  return false;
}

/* A line number of an option: 0 .. 1,000,000; false for anything else. */
static bool line_number(const char *v, guint *out)
{
  guint64 u;
  if (!g_ascii_string_to_unsigned(v, 10, 0, 1000000, &u, NULL))
    return false;
  *out = (guint)u;
  return true;
}

/* Add the ranges of v ("1 3-5", "1,3-5") to o->marks. False, adding
 * nothing, when a word of v is no line or range. */
static bool add_ranges(CodeOpts *o, const char *v)
{
  char **w = g_strsplit_set(v, " ,\t", -1);
  guint n0 = o->marks->len;
  bool ok = true, any = false;
  for (char **p = w; ok && *p; p++) {
    if (!**p)
      continue;
    char *dash = strchr(*p, '-');
    guint a, z;
    if (dash) {
      *dash = '\0';
      ok = line_number(*p, &a) && line_number(dash + 1, &z) && a >= 1 && z >= a;
    } else {
      ok = line_number(*p, &a) && a >= 1;
      z = a;
    }
    if (ok) {
      g_array_append_val(o->marks, a);
      g_array_append_val(o->marks, z);
      any = true;
    }
  }
  g_strfreev(w);
  if (!ok || !any)
    g_array_set_size(o->marks, n0);
  return ok && any;
}

/* One option: key k (any case) = v, or, v NULL, a bare word or class. */
static void code_option(CodeOpts *o, const char *k, const char *v)
{
  bool marks = false;
  if (!v && numbering_word(k)) {
    o->n->as.code.linenos = BOOK_LINENOS_ON;
  } else if (!v && o->in_marks && add_ranges(o, k)) {
    marks = true; /* Zola's hl_lines=1 3-5: the ranges after the first */
  } else if (v && (g_ascii_strcasecmp(k, "linenos") == 0 ||
                   g_ascii_strcasecmp(k, "numberLines") == 0)) {
    static const char *const on[] = {"true", "yes", "on", "1", "table", "inline"},
                             *const off[] = {"false", "no", "off", "0"};
    guint8 to = BOOK_LINENOS_DEFAULT;
    for (size_t i = 0; i < G_N_ELEMENTS(on); i++)
      if (g_ascii_strcasecmp(v, on[i]) == 0)
        to = BOOK_LINENOS_ON;
    for (size_t i = 0; i < G_N_ELEMENTS(off); i++)
      if (g_ascii_strcasecmp(v, off[i]) == 0)
        to = BOOK_LINENOS_OFF;
    if (to == BOOK_LINENOS_DEFAULT)
      book_diag(o->b, BOOK_WARNING, o->pos,
                "code block: %s=\"%s\" is neither true nor false; the style decides", k, v);
    else
      o->n->as.code.linenos = to;
  } else if (v && (g_ascii_strcasecmp(k, "startFrom") == 0 ||
                   g_ascii_strcasecmp(k, "start-from") == 0 ||
                   g_ascii_strcasecmp(k, "linenostart") == 0 ||
                   g_ascii_strcasecmp(k, "linenums") == 0)) {
    guint first;
    if (line_number(v, &first)) {
      o->n->as.code.line_offset = (int)first - 1;
      if (g_ascii_strcasecmp(k, "linenums") == 0) /* pymdownx: numbered from v */
        o->n->as.code.linenos = BOOK_LINENOS_ON;
    } else {
      book_diag(o->b, BOOK_WARNING, o->pos,
                "code block: %s=\"%s\" is no line number (0 to 1000000); the lines count from 1",
                k, v);
    }
  } else if (v && (g_ascii_strcasecmp(k, "hl_lines") == 0 ||
                   g_ascii_strcasecmp(k, "hl-lines") == 0 ||
                   g_ascii_strcasecmp(k, "emphasize-lines") == 0)) {
    marks = add_ranges(o, v);
    if (!marks)
      book_diag(o->b, BOOK_WARNING, o->pos,
                "code block: %s=\"%s\" is no list of lines (\"1 3-5\"); no line is marked", k, v);
  }
  o->in_marks = marks;
}

/* The options of an attribute block a: its classes and keys. Returns the
 * first class that is no option: pandoc's language. */
static const char *code_attrs(CodeOpts *o, const ExtAttrs *a)
{
  const char *lang = NULL;
  for (guint i = 0; i < a->classes->len; i++) {
    const char *k = a->classes->pdata[i];
    if (numbering_word(k))
      code_option(o, k, NULL);
    else if (!lang)
      lang = k;
  }
  for (guint i = 0; i + 1 < a->kv->len; i += 2)
    code_option(o, a->kv->pdata[i], a->kv->pdata[i + 1]);
  return lang;
}

/* Whether s is "{ranges}" (Docusaurus' and VitePress' marked lines):
 * digits, commas, dashes and spaces only. */
static bool brace_ranges(const char *s, size_t len)
{
  if (len < 3 || s[0] != '{' || s[len - 1] != '}')
    return false;
  for (size_t i = 1; i + 1 < len; i++)
    if (!g_ascii_isdigit(s[i]) && !strchr(", -", s[i]))
      return false;
  return true;
}

/* What follows a listing's language word: an attribute block, marked
 * ranges in braces, or words (key=value, quoted as a shell quotes). */
static void code_rest(CodeOpts *o, const char *rest)
{
  while (g_ascii_isspace(*rest))
    rest++;
  size_t len = strlen(rest);
  while (len && g_ascii_isspace(rest[len - 1]))
    len--;
  if (len == 0)
    return;
  if (brace_ranges(rest, len)) {
    char *in = g_strndup(rest + 1, len - 2);
    if (!add_ranges(o, in))
      book_diag(o->b, BOOK_WARNING, o->pos,
                "code block: \"%s\" is no list of lines (\"{1,3-5}\"); no line is marked", in);
    g_free(in);
    return;
  }
  if (rest[0] == '{') {
    ExtAttrs *a = ext_attrs_parse(rest, len);
    if (a) {
      code_attrs(o, a);
      ext_attrs_free(a);
    } else {
      book_diag(o->b, BOOK_WARNING, o->pos,
                "code block: \"%.*s\" is no attribute block octavo reads "
                "({.class key=value}); ignored",
                (int)len, rest);
    }
    return;
  }
  int argc = 0;
  char **argv = NULL;
  char *words = g_strndup(rest, len);
  if (g_shell_parse_argv(words, &argc, &argv, NULL)) {
    for (int i = 0; i < argc; i++) {
      char *eq = strchr(argv[i], '=');
      if (eq)
        *eq = '\0';
      code_option(o, argv[i], eq ? eq + 1 : NULL);
    }
    g_strfreev(argv);
  }
  g_free(words);
}

/* Set code block n's language word (as.code.info) and its options
 * (as.code.linenos, line_offset, marked) from its info string. */
static void code_options(Book *b, BookNode *n, const char *info, const BookPos *pos)
{
  CodeOpts o = {b, pos, n, g_array_new(FALSE, FALSE, sizeof(guint)), false};
  while (*info && g_ascii_isspace(*info))
    info++;
  ExtAttrs *a = info[0] == '{' ? ext_attrs_parse(info, strlen(info)) : NULL;
  if (a) { /* pandoc's {#id .lang .numberLines key=value} */
    const char *lang = code_attrs(&o, a);
    n->as.code.info = lang ? g_strdup(lang) : NULL;
    ext_attrs_free(a);
  } else {
    /* the language word, to white space or a brace (VitePress' ts{1,3}) */
    size_t w = 0;
    while (info[w] && !g_ascii_isspace(info[w]) && (info[w] != '{' || w == 0))
      w++;
    if (w > 0)
      n->as.code.info = g_strndup(info, w);
    char **pieces = g_strsplit(n->as.code.info ? n->as.code.info : "", ",", -1);
    for (char **p = pieces; *p && p[1]; p++) { /* the comma form's options */
      char *eq = strchr(p[1], '=');
      if (eq)
        *eq = '\0';
      code_option(&o, p[1], eq ? eq + 1 : NULL);
    }
    g_strfreev(pieces);
    code_rest(&o, info + w);
  }
  /* the marks sorted and merged */
  GArray *m = o.marks;
  guint np = m->len / 2;
  if (np > 1)
    qsort(m->data, np, 2 * sizeof(guint), cmp_range);
  guint k = 0;
  for (guint i = 0; i < np; i++) {
    guint a0 = g_array_index(m, guint, 2 * i), z0 = g_array_index(m, guint, 2 * i + 1);
    if (k > 0 && a0 <= g_array_index(m, guint, 2 * k - 1) + 1) {
      guint *z = &g_array_index(m, guint, 2 * k - 1);
      *z = MAX(*z, z0);
    } else {
      g_array_index(m, guint, 2 * k) = a0;
      g_array_index(m, guint, 2 * k + 1) = z0;
      k++;
    }
  }
  guint lines = 0; /* the listing's lines: a mark past them marks nothing */
  for (const char *q = n->text ? n->text : ""; *q; q++)
    lines += *q == '\n' || q[1] == '\0';
  if (k > 0 && g_array_index(m, guint, 2 * k - 1) > lines)
    book_diag(b, BOOK_WARNING, pos, "code block: line %u is marked, the listing has %u",
              g_array_index(m, guint, 2 * k - 1), lines);
  n->as.code.nmarked = k;
  n->as.code.marked = k ? g_memdup2(m->data, 2 * k * sizeof(guint)) : NULL;
  g_array_free(m, TRUE);
}

static BookNode *block_node(Conv *v, cmark_node *cn, cmark_node_type t, const char *lit,
                            const BookPos *pos, bool *holds)
{
  Book *b = v->b;
  BookNode *n = NULL;
  *holds = true;
  switch (t) {
  case CMARK_NODE_PARAGRAPH: n = book_node_new(b, BOOK_PARAGRAPH, pos); break;
  case CMARK_NODE_HEADING:
    n = book_node_new(b, BOOK_HEADING, pos);
    n->as.heading.level = CLAMP(cmark_node_get_heading_level(cn) + v->s->heading_shift, 1, 6);
    heading_attrs(n, ext_attrs(cn));
    break;
  case CMARK_NODE_BLOCK_QUOTE: n = book_node_new(b, BOOK_BLOCKQUOTE, pos); break;
  case CMARK_NODE_LIST:
    n = book_node_new(b, BOOK_LIST, pos);
    n->as.list.ordered = cmark_node_get_list_type(cn) == CMARK_ORDERED_LIST;
    n->as.list.start = n->as.list.ordered ? cmark_node_get_list_start(cn) : 0;
    n->as.list.tight = cmark_node_get_list_tight(cn);
    n->as.list.delim =
        n->as.list.ordered ? (cmark_node_get_list_delim(cn) == CMARK_PAREN_DELIM ? ')' : '.') : 0;
    break;
  case CMARK_NODE_ITEM:
    n = book_node_new(b, BOOK_ITEM, pos);
    if (strcmp(cmark_node_get_type_string(cn), "tasklist") == 0)
      n->as.item.task =
          cmark_gfm_extensions_get_tasklist_item_checked(cn) ? BOOK_TASK_DONE : BOOK_TASK_OPEN;
    break;
  case CMARK_NODE_CODE_BLOCK: {
    *holds = false;
    n = book_node_new(b, BOOK_CODE_BLOCK, pos);
    n->text = g_strdup(lit ? lit : "");
    const char *info = cmark_node_get_fence_info(cn);
    if (info && *info)
      code_options(b, n, info, pos);
    break;
  }
  default: /* CMARK_NODE_THEMATIC_BREAK */
    *holds = false;
    n = book_node_new(b, BOOK_THEMATIC_BREAK, pos);
    break;
  }
  return n;
}

static BookNode *inline_node(Conv *v, cmark_node *cn, cmark_node_type t, const char *lit,
                             const BookPos *pos, bool *holds)
{
  Book *b = v->b;
  BookNode *n = NULL;
  *holds = false;
  switch (t) {
  case CMARK_NODE_TEXT:
    if (lit && *lit) { /* cmark leaves some empty text nodes */
      n = book_node_new(b, BOOK_TEXT, pos);
      n->text = g_strdup(lit);
    }
    break;
  case CMARK_NODE_SOFTBREAK: n = book_node_new(b, BOOK_SOFTBREAK, pos); break;
  case CMARK_NODE_LINEBREAK: n = book_node_new(b, BOOK_LINEBREAK, pos); break;
  case CMARK_NODE_CODE:
    n = book_node_new(b, BOOK_CODE, pos);
    n->text = g_strdup(lit ? lit : "");
    break;
  case CMARK_NODE_EMPH:
  case CMARK_NODE_STRONG:
    n = book_node_new(b, t == CMARK_NODE_EMPH ? BOOK_EMPH : BOOK_STRONG, pos);
    *holds = true;
    break;
  case CMARK_NODE_LINK:
  case CMARK_NODE_IMAGE: {
    const char *title = cmark_node_get_title(cn);
    n = book_node_new(b, t == CMARK_NODE_LINK ? BOOK_LINK : BOOK_IMAGE, pos);
    if (t == CMARK_NODE_LINK) {
      n->as.link.href = g_strdup(cmark_node_get_url(cn));
      n->as.link.title = title && *title ? g_strdup(title) : NULL;
    } else {
      n->as.image.src = g_strdup(cmark_node_get_url(cn));
      n->as.image.title = title && *title ? g_strdup(title) : NULL;
    }
    *holds = true;
    break;
  }
  default: { /* CMARK_NODE_FOOTNOTE_REFERENCE */
    BookFootnote *f = note_for(v->c, v->s, lit ? atoi(lit) : 0);
    if (f) {
      n = book_node_new(b, BOOK_FOOTNOTE_REF, pos);
      n->as.fnref.note = f;
    } else {
      n = book_node_new(b, BOOK_TEXT, pos);
      n->text = g_strdup_printf("[^%s]", lit ? lit : "");
    }
    break;
  }
  }
  return n;
}

/* A fenced div: the model's div element (as raw HTML's <div> makes), its
 * id a link target (chapters.c), its classes and data attributes kept. */
static BookNode *div_node(Conv *v, cmark_node *cn, const BookPos *pos)
{
  const ExtAttrs *a = ext_attrs(cn);
  BookNode *n = book_node_new(v->b, BOOK_HTML_BLOCK, pos);
  n->as.html.tag = g_strdup("div");
  if (a)
    n->as.html.attrs = attrs_of(a, true);
  if (!a || !a->closed)
    book_diag(v->b, BOOK_WARNING, pos,
              "fenced div (:::) not closed: it ends with the block that holds it");
  return n;
}

/* The extensions' nodes: octavo's (ext.h), tables and strikethrough. */
static BookNode *ext_node(Conv *v, cmark_node *cn, const BookPos *pos)
{
  Book *b = v->b;
  BookNode *n = NULL;
  switch (ext_node_kind(cn)) {
  case EXT_DEFLIST: { /* where its first term starts (cmark: where its first definition does) */
    cmark_node *t = cmark_node_first_child(cn);
    BookPos tp = t ? cm_pos(v->s, t, NULL) : *pos;
    return book_node_new(b, BOOK_DEFLIST, tp.line > 0 ? &tp : pos);
  }
  case EXT_DEFTERM: return book_node_new(b, BOOK_DEFTERM, pos);
  case EXT_DEFDESC: return book_node_new(b, BOOK_DEFDESC, pos);
  case EXT_DIV: return div_node(v, cn, pos);
  case EXT_NONE: break;
  }
  const char *ts = cmark_node_get_type_string(cn);
  if (strcmp(ts, "table") == 0) {
    n = book_node_new(b, BOOK_TABLE, pos);
    int ncols = cmark_gfm_extensions_get_table_columns(cn);
    uint8_t *al = cmark_gfm_extensions_get_table_alignments(cn);
    n->as.table.ncols = ncols;
    n->as.table.align = g_new0(BookAlign, ncols > 0 ? ncols : 1);
    for (int i = 0; i < ncols && al; i++)
      n->as.table.align[i] = al[i] == 'l'   ? BOOK_ALIGN_LEFT
                             : al[i] == 'c' ? BOOK_ALIGN_CENTER
                             : al[i] == 'r' ? BOOK_ALIGN_RIGHT
                                            : BOOK_ALIGN_NONE;
  } else if (strcmp(ts, "table_header") == 0 || strcmp(ts, "table_row") == 0) {
    n = book_node_new(b, BOOK_TABLE_ROW, pos);
    n->as.row.header = strcmp(ts, "table_header") == 0;
  } else if (strcmp(ts, "table_cell") == 0) {
    n = book_node_new(b, BOOK_TABLE_CELL, pos);
  } else if (strcmp(ts, "strikethrough") == 0) {
    n = book_node_new(b, BOOK_STRIKE, pos);
  } else {
    book_diag(b, BOOK_WARNING, pos, "unsupported Markdown node '%s' ignored (its text is kept)",
              ts);
  }
  return n;
}

/* The model node for cmark node cn, or NULL when it makes none.  Raw HTML
 * is placed (and v->cur moved) here; *attach false: the caller must not
 * append the node; *holds: cn's children go into it. */
static BookNode *make_node(Conv *v, cmark_node *cn, cmark_node_type t, const BookPos *pos,
                           bool *holds, bool *attach)
{
  const char *lit = cmark_node_get_literal(cn);
  *holds = false;
  *attach = true;
  switch (t) {
  case CMARK_NODE_PARAGRAPH:
  case CMARK_NODE_HEADING:
  case CMARK_NODE_BLOCK_QUOTE:
  case CMARK_NODE_LIST:
  case CMARK_NODE_ITEM:
  case CMARK_NODE_CODE_BLOCK:
  case CMARK_NODE_THEMATIC_BREAK: return block_node(v, cn, t, lit, pos, holds);
  case CMARK_NODE_HTML_BLOCK: html_block(v, lit, pos); return NULL;
  case CMARK_NODE_HTML_INLINE: html_inline(v, lit, pos); return NULL;
  case CMARK_NODE_FOOTNOTE_DEFINITION:
    *holds = true;
    *attach = false;
    return footnote_def(v, cn, pos);
  case CMARK_NODE_TEXT:
  case CMARK_NODE_SOFTBREAK:
  case CMARK_NODE_LINEBREAK:
  case CMARK_NODE_CODE:
  case CMARK_NODE_EMPH:
  case CMARK_NODE_STRONG:
  case CMARK_NODE_LINK:
  case CMARK_NODE_IMAGE:
  case CMARK_NODE_FOOTNOTE_REFERENCE: return inline_node(v, cn, t, lit, pos, holds);
  default: {
    BookNode *n = ext_node(v, cn, pos);
    *holds = n != NULL;
    return n;
  }
  }
}

/* cn's EXIT: pop the open containers down to cn's entry (robust even if
 * cm_is_leaf() and cmark disagree), finishing each; returns where the next
 * nodes go. */
static BookNode *pop_open(GArray *stack, cmark_node *cn, BookNode *cur)
{
  guint k = stack->len;
  while (k > 0 && g_array_index(stack, Open, k - 1).cm != cn)
    k--;
  while (k > 0 && stack->len >= k) {
    Open o = g_array_index(stack, Open, stack->len - 1);
    g_array_set_size(stack, stack->len - 1);
    cur = o.restore;
    if (o.node && o.node->type == BOOK_PARAGRAPH)
      finish_paragraph(o.node);
    else if (o.node && book_node_is_inline(o.node->type))
      fix_inline_pos(o.node);
  }
  return cur;
}

static BookNode *convert(Ctx *c, Src *s, cmark_node *doc)
{
  BookPos rpos = {s->file, 1, 1};
  Conv v = {.c = c, .s = s, .b = c->book};
  v.refused = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  v.root = v.cur = book_node_new(c->book, BOOK_ROOT, &rpos);
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(Open));
  int split = c->opts->split_level > 0 ? c->opts->split_level : 2;
  cmark_iter *it = cmark_iter_new(doc);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node *cn = cmark_iter_get_node(it);
    cmark_node_type t = cmark_node_get_type(cn);
    if (t == CMARK_NODE_DOCUMENT)
      continue;
    if (ev == CMARK_EVENT_EXIT) {
      v.cur = pop_open(stack, cn, v.cur);
      continue;
    }
    v.limit = stack->len ? g_array_index(stack, Open, stack->len - 1).node : v.root;
    if (!v.limit)
      v.limit = g_array_index(stack, Open, stack->len - 1).restore;
    /* A chapter heading at the top closes raw HTML containers left open. */
    if (t == CMARK_NODE_HEADING && cmark_node_parent(cn) == doc &&
        CLAMP(cmark_node_get_heading_level(cn) + s->heading_shift, 1, 6) <= split)
      v.cur = v.root;
    if (t == CMARK_NODE_FOOTNOTE_DEFINITION)
      v.cur = v.root;
    BookPos pos = cm_pos(s, cn, v.cur);
    if (t & CMARK_NODE_TYPE_INLINE)
      fix_pos_after_break(s, cn, v.cur, &pos);
    if (t == CMARK_NODE_SOFTBREAK && v.cur->type == BOOK_DEFTERM && v.cur->parent &&
        ext_node_kind(cmark_node_parent(cn)) == EXT_DEFTERM) {
      /* each line of the terms' paragraph is a term (PHP Markdown Extra) */
      cmark_node *nx = cmark_node_next(cn);
      BookPos tp = nx ? cm_pos(s, nx, v.cur) : pos;
      BookNode *term = book_node_new(c->book, BOOK_DEFTERM, &tp);
      book_node_append(v.cur->parent, term);
      v.cur = term;
      continue;
    }
    bool holds, attach;
    BookNode *n = make_node(&v, cn, t, &pos, &holds, &attach);
    if (n && holds && attach && !fits(&v, n)) {
      warn_deep(&v, &pos);
      book_node_free(n);
      n = NULL;
      holds = false;
    }
    if (n && attach)
      book_node_append(v.cur, n);
    if (!cm_is_leaf(t)) {
      Open o = {cn, holds ? n : NULL, v.cur};
      g_array_append_val(stack, o);
      if (holds)
        v.cur = n;
    }
  }
  cmark_iter_free(it);
  g_array_free(stack, TRUE);
  g_hash_table_destroy(v.refused);
  return v.root;
}

/* cmark-gfm silently drops footnote definitions that nothing references.
 * Find lines that look like one ("[^label]:" at the start) which no kept
 * block covers, and report them. */
static void report_dropped_footnotes(Ctx *c, Src *s, cmark_node *doc)
{
  /* covered[line]: a kept leaf block or definition spans that line. Leaf
   * blocks do not overlap, so marking them is linear in the lines. */
  guint nlines = s->lines->len;
  guint8 *covered = g_new0(guint8, nlines + 2);
  cmark_iter *it = cmark_iter_new(doc);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node *n = cmark_iter_get_node(it);
    if (ev != CMARK_EVENT_ENTER)
      continue;
    cmark_node_type t = cmark_node_get_type(n);
    int from = cmark_node_get_start_line(n), to = from;
    if (t == CMARK_NODE_PARAGRAPH || t == CMARK_NODE_HEADING || t == CMARK_NODE_CODE_BLOCK ||
        t == CMARK_NODE_HTML_BLOCK || t == CMARK_NODE_THEMATIC_BREAK ||
        strcmp(cmark_node_get_type_string(n), "table") == 0) {
      to = cmark_node_get_end_line(n);
      cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
    } else if (t != CMARK_NODE_FOOTNOTE_DEFINITION) {
      continue;
    }
    for (int l = MAX(from, 1); l <= to && (guint)l <= nlines; l++)
      covered[l] = 1;
  }
  cmark_iter_free(it);
  /* A line that starts (after up to three spaces) with "[^label]:". */
  const char *end = s->text + s->len;
  for (guint ln = 0; ln < nlines; ln++) {
    const char *p = s->text + g_array_index(s->lines, gsize, ln);
    int sp = 0;
    while (p < end && *p == ' ' && sp < 4)
      p++, sp++;
    if (sp > 3 || end - p < 5 || p[0] != '[' || p[1] != '^')
      continue;
    const char *q = p + 2;
    while (q < end && *q != ']' && !g_ascii_isspace(*q))
      q++;
    if (q == p + 2 || q + 1 >= end || q[0] != ']' || q[1] != ':' || covered[ln + 1])
      continue;
    BookPos pos = {s->file, (int)ln + 1, sp + 1};
    book_diag(c->book, BOOK_WARNING, &pos, "footnote [^%.*s] is defined but never referenced",
              (int)(q - p - 2), p + 2);
  }
  g_free(covered);
}

static void parse_one(Ctx *c, Src *s)
{
  cmark_gfm_core_extensions_ensure_registered();
  int copts = CMARK_OPT_FOOTNOTES | CMARK_OPT_UNSAFE | CMARK_OPT_VALIDATE_UTF8;
  if (c->opts && c->opts->smart)
    copts |= CMARK_OPT_SMART; /* curly quotes, en and em dashes, ellipses */
  cmark_parser *p = cmark_parser_new(copts);
  /* octavo's own (pandoc's syntax) first: GFM's table extension claims
   * every line after an open paragraph (it returns the paragraph when the
   * line is no delimiter row), so blocks tried after it never open there.
   * None of them opens on a delimiter row. */
  ExtSet *own = ext_set_new(c->opts ? c->opts->syntax : OCTAVO_SYNTAX_ALL, s->text, s->len);
  ext_set_attach(own, p);
  static const char *const exts[] = {"table", "strikethrough", "autolink", "tasklist"};
  for (size_t i = 0; i < G_N_ELEMENTS(exts); i++) {
    cmark_syntax_extension *e = cmark_find_syntax_extension(exts[i]);
    if (e)
      cmark_parser_attach_syntax_extension(p, e);
  }
  cmark_parser_feed(p, s->text, s->len);
  cmark_node *doc = cmark_parser_finish(p);
  cmark_consolidate_text_nodes(doc);
  report_dropped_footnotes(c, s, doc);
  /* Convert before freeing the parser: it owns the extension list. */
  s->root = convert(c, s, doc);
  cmark_node_free(doc);
  cmark_parser_free(p);
  ext_set_free(own);
}

BookNode *md_parse_inlines(Ctx *c, const char *text, const BookPos *pos)
{
  BookPos at = pos ? *pos : (BookPos){NULL, 0, 0};
  Src t = {.file = at.file ? at.file : book_intern(c->book, "")};
  t.text = g_strdup(text ? text : "");
  for (char *p = t.text; *p; p++) /* one line: no block, no footnote definition */
    if (*p == '\n' || *p == '\r')
      *p = ' ';
  t.len = strlen(t.text);
  t.lines = g_array_new(FALSE, FALSE, sizeof(gsize));
  gsize zero = 0;
  g_array_append_val(t.lines, zero);
  t.notes = g_ptr_array_new();
  parse_one(c, &t);
  BookNode *para = t.root->first_child;
  if (para && para->type == BOOK_FIGURE && !para->as.figure.listing)
    para->type = BOOK_PARAGRAPH; /* a lone image: inline here */
  if (!para || para->type != BOOK_PARAGRAPH) { /* "# x", "- x", "1. x": the text as it is */
    para = book_node_new(c->book, BOOK_PARAGRAPH, &at);
    BookNode *k = book_node_new(c->book, BOOK_TEXT, &at);
    k->text = g_strdup(g_strstrip(t.text));
    book_node_append(para, k);
  } else {
    book_node_unlink(para);
  }
  BookIter it;
  book_iter_init(&it, para);
  while (book_iter_next(&it) != BOOK_ITER_DONE)
    it.cur->pos = at;
  book_node_free(t.root);
  g_array_free(t.lines, TRUE);
  g_ptr_array_free(t.notes, TRUE);
  g_free(t.text);
  return para;
}

/* ---- the driver ---- */

/* One string of node n without noncharacters; warns at n's position. */
static void fix_field(Book *b, const BookNode *n, char *s)
{
  gunichar c;
  if (s && book_utf8_fix_nonchars(s, -1, NULL, &c))
    book_diag(b, BOOK_WARNING, &n->pos,
              "noncharacter U+%04X (from a character reference) replaced with U+FFFD", c);
}

/* Calls visit(c, n) for every node of source s, its tree's and its
 * footnotes' definitions', in document order. */
static void src_each_node(Ctx *c, Src *s, void (*visit)(Ctx *c, BookNode *n))
{
  for (guint k = 0; k <= s->notes->len; k++) {
    BookFootnote *f = k ? s->notes->pdata[k - 1] : NULL;
    BookNode *root = k == 0 ? s->root : f ? f->def : NULL;
    if (!root)
      continue;
    BookIter it;
    book_iter_init(&it, root);
    BookIterEvent ev;
    while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE)
      if (ev == BOOK_ITER_ENTER)
        visit(c, it.cur);
  }
}

/* The sources lost their noncharacters (input.c), but cmark and libxml2
 * decode character references (&#xFFFE;) into them: every string of the
 * tree (and of its footnotes) loses them before ids and titles are made. */
static void fix_node_nonchars(Ctx *c, BookNode *n)
{
  fix_field(c->book, n, n->text);
  switch (n->type) {
  case BOOK_CODE_BLOCK: fix_field(c->book, n, n->as.code.info); break;
  case BOOK_LINK:
    fix_field(c->book, n, n->as.link.href);
    fix_field(c->book, n, n->as.link.title);
    break;
  case BOOK_IMAGE:
    fix_field(c->book, n, n->as.image.src);
    fix_field(c->book, n, n->as.image.title);
    break;
  case BOOK_HTML_BLOCK:
  case BOOK_HTML_INLINE:
    for (char **a = n->as.html.attrs; a && a[0] && a[1]; a += 2)
      fix_field(c->book, n, a[1]);
    break;
  default: break;
  }
}

/* What can be done ahead for a node once its source's blocks are final
 * (after md_captions): an image's checks and a code block's tokens,
 * queued for the front end's thread (frontahead.h); taken where they were
 * always made, md_resolve_tree's image_resource and hl_book. */
static void queue_node_ahead(Ctx *c, BookNode *n)
{
  if (n->type == BOOK_IMAGE)
    md_resolve_ahead(c, n);
  else if (n->type == BOOK_CODE_BLOCK && c->opts->highlight)
    front_ahead_code(c->ahead, n);
}

static int file_rank(const Ctx *c, const char *file)
{
  for (int i = 0; i < c->n; i++)
    if (c->srcs[i].file == file)
      return i;
  return c->n;
}

static gint diag_cmp(gconstpointer a, gconstpointer b, gpointer data)
{
  const Ctx *c = data;
  const BookDiag *x = a, *y = b;
  int fx = file_rank(c, x->pos.file), fy = file_rank(c, y->pos.file);
  if (fx != fy)
    return fx - fy;
  if (x->pos.line != y->pos.line)
    return x->pos.line - y->pos.line;
  return x->pos.col - y->pos.col;
}

/* Diagnostics from index `from` on in source order (file, line, column):
 * the steps find problems in different passes. The sort is stable. */
static void sort_diags(Ctx *c, guint from)
{
  GArray *d = c->book->diags;
  if (d->len > from + 1)
    g_qsort_with_data(&g_array_index(d, BookDiag, from), (gint)(d->len - from), sizeof(BookDiag),
                      diag_cmp, c);
}

bool md_parse_sources(Book *book, const MdSource *srcs, int n, const OctavoOptions *opts)
{
  OctavoOptions defaults;
  if (!opts) {
    octavo_options_init(&defaults);
    opts = &defaults;
  }
  guint errors0 = book_diag_count(book, BOOK_ERROR);
  guint diags0 = book->diags->len;
  Ctx c = {.book = book, .opts = opts, .n = n};
  c.srcs = g_new0(Src, n > 0 ? n : 1);
  c.pending = g_ptr_array_new();
  c.anchors = g_hash_table_new(g_str_hash, g_str_equal);
  c.res_by_path = g_hash_table_new(g_str_hash, g_str_equal);
  sandbox_add_roots(book->sandbox, opts->resource_path);
  c.ahead = front_ahead_start(opts->plan);
  /* Front matter first: a title there keeps the first H1 as a heading. */
  for (int i = 0; i < n; i++) {
    md_src_init(&c, &c.srcs[i], &srcs[i]);
    if (i == 0 && (opts->syntax & OCTAVO_SYNTAX_TITLE_BLOCK) &&
        md_title_block(book, &c.srcs[0], &c.title_block)) {
      c.srcs[0].has_fm = true; /* (a file of only a title block is no empty file) */
      if (c.title_block.v[K_TITLE])
        c.title_known = true;
    }
    md_front_matter(book, &c.srcs[i]);
    if (c.srcs[i].fm.v[K_TITLE])
      c.title_known = true;
  }
  if (md_options_give_title(opts))
    c.title_known = true;
  for (int i = 0; i < n; i++) {
    parse_one(&c, &c.srcs[i]);
    src_each_node(&c, &c.srcs[i], fix_node_nonchars);
    md_tidy(&c, &c.srcs[i]);
    md_captions(&c, c.srcs[i].root);
    if (c.ahead)
      src_each_node(&c, &c.srcs[i], queue_node_ahead);
  }
  md_decide_shape(&c);
  for (int i = 0; i < n; i++) {
    md_split_chapters(&c, &c.srcs[i]);
    if (!c.srcs[i].first && !c.srcs[i].has_fm) {
      BookPos pos = {c.srcs[i].file, 0, 0};
      book_diag(book, BOOK_WARNING, &pos, "no text in this file");
    }
  }
  if (book->chapters->len == 0 && n > 0) { /* writers may count on a chapter */
    BookChapter *ch = book_chapter_add(book, c.srcs[0].file);
    ch->id = book_id_reserve(book, "ch01");
    c.srcs[0].first = ch;
  }
  md_number_footnotes(&c);
  for (guint i = 0; i < book->chapters->len; i++) {
    BookChapter *ch = book->chapters->pdata[i];
    md_resolve_tree(&c, ch->root, ch);
    san_repair(book, ch->root);
  }
  for (guint i = 0; i < book->footnotes->len; i++) {
    BookFootnote *f = book->footnotes->pdata[i];
    md_resolve_tree(&c, f->def, f->chapter);
    san_repair(book, f->def);
  }
  if (n > 0) {
    md_finish_meta(&c);
    md_resolve_cover(&c);
  }
  book_number_headings(book, book->chapter_level, opts->number_sections);
  front_ahead_finish(c.ahead); /* what is left shared by the two threads */
  if (opts->highlight) /* the code's tokens, once the code is final */
    hl_book(book, front_ahead_hl(c.ahead), c.ahead ? front_ahead_tokens : NULL, c.ahead);
  front_ahead_free(c.ahead);
  sort_diags(&c, diags0);
  for (int i = 0; i < n; i++)
    md_src_free(&c.srcs[i]);
  g_free(c.srcs);
  g_ptr_array_free(c.pending, TRUE);
  g_hash_table_destroy(c.anchors);
  g_hash_table_destroy(c.res_by_path);
  md_layer_clear(&c.doc);
  g_free(c.no_title_why);
  md_layer_clear(&c.title_block);
  return book_diag_count(book, BOOK_ERROR) == errors0;
}
