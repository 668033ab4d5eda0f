/* ext_attrs.c: attribute blocks, heading attributes, and the set of
 * octavo's cmark-gfm extensions (ext.h).
 *
 * What it does: parses pandoc's attribute blocks ({#id .class key=value
 * key="quoted" -}); reads a heading's trailing attribute block off the
 * parsed tree (a postprocess function, run after cmark-gfm has parsed the
 * whole input) and keeps it on the heading's node; makes the extensions of
 * one parse.  What it does not do: decide what an id or a class means to
 * the book (markdown.c, chapters.c).
 *
 * An attribute block counts only where it ends the heading's text as the
 * source writes it: `## A \{#b}` (escaped) or `## A &#123;#b}` stay text.
 */
#include "ext.h"

#include <string.h>
#include <pthread.h>

/* ---- attribute blocks ---- */

void ext_attrs_free(ExtAttrs *a)
{
  if (!a)
    return;
  g_free(a->id);
  g_ptr_array_unref(a->classes);
  g_ptr_array_unref(a->kv);
  g_free(a);
}

void ext_attrs_free_node(cmark_mem *mem, void *attrs)
{
  (void)mem;
  ext_attrs_free(attrs);
}

/* Pandoc's identifier: a letter or digit (any script), then letters,
 * digits and - _ : . ; returns the bytes it spans from p, or 0. */
static size_t ident_len(const char *p, const char *e)
{
  const char *q = p;
  while (q < e) {
    gunichar ch = g_utf8_get_char_validated(q, e - q);
    if (ch == (gunichar)-1 || ch == (gunichar)-2)
      break;
    bool ok = g_unichar_isalnum(ch) || (q > p && ch < 128 && strchr("-_:.", (int)ch));
    if (!ok)
      break;
    q = g_utf8_next_char(q);
  }
  return (size_t)(q - p);
}

/* A key=value key, lower-cased for a data- attribute: ASCII letters,
 * digits, - _ . only (an XML name that HTML's data-* accepts). */
static bool key_ok(const char *k, size_t n)
{
  if (n == 0 || !g_ascii_isalpha(k[0]))
    return false;
  for (size_t i = 0; i < n; i++)
    if (!g_ascii_isalnum(k[i]) && !strchr("-_.", k[i]))
      return false;
  return true;
}

ExtAttrs *ext_attrs_parse(const char *s, size_t len)
{
  if (len < 2 || s[0] != '{' || s[len - 1] != '}')
    return NULL;
  ExtAttrs *a = g_new0(ExtAttrs, 1);
  a->classes = g_ptr_array_new_with_free_func(g_free);
  a->kv = g_ptr_array_new_with_free_func(g_free);
  const char *p = s + 1, *e = s + len - 1;
  int n = 0;
  while (p < e) {
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
      p++;
      continue;
    }
    size_t k;
    if (*p == '#' && (k = ident_len(p + 1, e)) > 0) {
      g_free(a->id);
      a->id = g_strndup(p + 1, k);
      p += 1 + k;
    } else if (*p == '.' && (k = ident_len(p + 1, e)) > 0) {
      g_ptr_array_add(a->classes, g_strndup(p + 1, k));
      p += 1 + k;
    } else if (*p == '-' && (p + 1 == e || g_ascii_isspace(p[1]))) {
      g_ptr_array_add(a->classes, g_strdup("unnumbered"));
      p++;
    } else if ((k = ident_len(p, e)) > 0 && p + k < e && p[k] == '=') {
      const char *key = p, *v = p + k + 1, *ve;
      GString *val = g_string_new(NULL);
      if (v < e && (*v == '"' || *v == '\'')) {
        char q = *v++;
        while (v < e && *v != q) {
          if (*v == '\\' && v + 1 < e)
            v++;
          g_string_append_c(val, *v++);
        }
        if (v >= e) { /* no closing quote */
          g_string_free(val, TRUE);
          goto bad;
        }
        ve = v + 1;
      } else {
        ve = v;
        while (ve < e && !g_ascii_isspace(*ve))
          ve++;
        g_string_append_len(val, v, ve - v);
      }
      if (key_ok(key, k)) {
        g_ptr_array_add(a->kv, g_ascii_strdown(key, (gssize)k));
        g_ptr_array_add(a->kv, g_string_free(val, FALSE));
      } else {
        g_string_free(val, TRUE);
      }
      p = ve;
    } else {
      goto bad;
    }
    if (p < e && !g_ascii_isspace(*p))
      goto bad; /* attributes are separated by white space */
    n++;
  }
  if (n == 0)
    goto bad; /* "{}" is text */
  return a;
bad:
  ext_attrs_free(a);
  return NULL;
}

/* ---- node kinds ---- */

static cmark_node_type type_deflist, type_defterm, type_defdesc, type_div;

cmark_node_type ext_type(ExtKind k)
{
  switch (k) {
  case EXT_DEFLIST: return type_deflist;
  case EXT_DEFTERM: return type_defterm;
  case EXT_DEFDESC: return type_defdesc;
  case EXT_DIV: return type_div;
  default: return CMARK_NODE_NONE;
  }
}

ExtKind ext_node_kind(cmark_node *n)
{
  cmark_node_type t = cmark_node_get_type(n);
  if (t == CMARK_NODE_NONE)
    return EXT_NONE;
  if (t == type_deflist)
    return EXT_DEFLIST;
  if (t == type_defterm)
    return EXT_DEFTERM;
  if (t == type_defdesc)
    return EXT_DEFDESC;
  if (t == type_div)
    return EXT_DIV;
  return EXT_NONE;
}

const ExtAttrs *ext_attrs(cmark_node *n)
{
  if (cmark_node_get_type(n) == CMARK_NODE_HEADING || ext_node_kind(n) == EXT_DIV)
    return cmark_node_get_user_data(n);
  return NULL;
}

/* ---- heading attributes ---- */

typedef struct {
  const char *text;
  size_t len;
  GArray *lines; /* size_t offset of each line's start, made on first use */
} Source;

/* Line `line` (1-based) of the source, without its line end: *n bytes. */
static const char *source_line(Source *src, int line, size_t *n)
{
  if (!src->lines) {
    src->lines = g_array_new(FALSE, FALSE, sizeof(size_t));
    size_t z = 0;
    g_array_append_val(src->lines, z);
    for (size_t i = 0; i < src->len; i++)
      if (src->text[i] == '\n') {
        size_t o = i + 1;
        g_array_append_val(src->lines, o);
      }
  }
  if (line < 1 || (guint)line > src->lines->len)
    return NULL;
  size_t a = g_array_index(src->lines, size_t, line - 1);
  size_t b = (guint)line < src->lines->len ? g_array_index(src->lines, size_t, line) : src->len;
  while (b > a && (src->text[b - 1] == '\n' || src->text[b - 1] == '\r'))
    b--;
  *n = b - a;
  return src->text + a;
}

/* The attribute block that ends one of heading h's source lines (after an
 * ATX heading's closing #s), unescaped: the block as written, or NULL. */
static ExtAttrs *source_attrs(Source *src, cmark_node *h)
{
  int from = cmark_node_get_start_line(h), to = cmark_node_get_end_line(h);
  for (int l = to; l >= from && l > 0; l--) {
    size_t n;
    const char *p = source_line(src, l, &n);
    if (!p)
      continue;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
      n--;
    size_t hashes = n;
    while (hashes && p[hashes - 1] == '#')
      hashes--;
    if (hashes < n && hashes && (p[hashes - 1] == ' ' || p[hashes - 1] == '\t')) {
      n = hashes; /* an ATX heading's closing sequence */
      while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    }
    if (!n || p[n - 1] != '}')
      continue;
    size_t b = n - 1;
    while (b > 0 && p[b] != '{')
      b--;
    if (p[b] != '{')
      continue;
    size_t bs = 0; /* backslashes before the brace: an odd number escapes it */
    while (bs < b && p[b - 1 - bs] == '\\')
      bs++;
    if (bs % 2)
      continue;
    return ext_attrs_parse(p + b, n - b);
  }
  return NULL;
}

/* Take h's trailing attribute block off its text and keep it on h. */
static void heading_attrs(Source *src, cmark_node *h)
{
  cmark_node *last = cmark_node_last_child(h);
  if (!last || cmark_node_get_type(last) != CMARK_NODE_TEXT)
    return;
  const char *lit = cmark_node_get_literal(last);
  size_t e = lit ? strlen(lit) : 0;
  while (e && g_ascii_isspace(lit[e - 1]))
    e--;
  if (!e || lit[e - 1] != '}')
    return;
  const char *open = g_strrstr_len(lit, (gssize)e, "{");
  if (!open)
    return;
  ExtAttrs *a = source_attrs(src, h);
  if (!a)
    return;
  size_t keep = (size_t)(open - lit);
  while (keep && (lit[keep - 1] == ' ' || lit[keep - 1] == '\t'))
    keep--;
  if (keep == 0) {
    cmark_node_free(last); /* unlinks it */
  } else {
    char *t = g_strndup(lit, keep);
    cmark_node_set_literal(last, t);
    g_free(t);
  }
  cmark_node_set_user_data(h, a);
  cmark_node_set_user_data_free_func(h, ext_attrs_free_node);
}

static cmark_node *attrs_postprocess(cmark_syntax_extension *ext, cmark_parser *parser,
                                     cmark_node *root)
{
  (void)parser;
  Source *src = cmark_syntax_extension_get_private(ext);
  cmark_iter *it = cmark_iter_new(root);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node *n = cmark_iter_get_node(it);
    if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(n) == CMARK_NODE_HEADING) {
      heading_attrs(src, n);
      /* its inlines hold no heading: go on after it (its last text may
       * just have been freed, so do not walk into it) */
      cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
    }
  }
  cmark_iter_free(it);
  return NULL;
}

static void source_free(cmark_mem *mem, void *p)
{
  (void)mem;
  Source *src = p;
  if (src->lines)
    g_array_free(src->lines, TRUE);
  g_free(src);
}

cmark_syntax_extension *ext_attrs_new(const char *text, size_t len)
{
  cmark_syntax_extension *e = cmark_syntax_extension_new("octavo-heading-attributes");
  Source *src = g_new0(Source, 1);
  src->text = text;
  src->len = len;
  cmark_syntax_extension_set_private(e, src, source_free);
  cmark_syntax_extension_set_postprocess_func(e, attrs_postprocess);
  return e;
}

/* ---- the set ---- */

struct ExtSet {
  cmark_syntax_extension *ext[3];
  int n;
};

static gpointer register_types(gpointer unused)
{
  (void)unused;
  type_deflist = cmark_syntax_extension_add_node(0);
  type_defterm = cmark_syntax_extension_add_node(0);
  type_defdesc = cmark_syntax_extension_add_node(0);
  type_div = cmark_syntax_extension_add_node(0);
  return NULL;
}

static void register_types_once(void)
{
  register_types(NULL);
}

ExtSet *ext_set_new(unsigned syntax, const char *text, size_t len)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, register_types_once);
  ExtSet *set = g_new0(ExtSet, 1);
  if (syntax & OCTAVO_SYNTAX_DEFLISTS)
    set->ext[set->n++] = ext_deflist_new();
  if (syntax & OCTAVO_SYNTAX_DIVS)
    set->ext[set->n++] = ext_div_new();
  if (syntax & OCTAVO_SYNTAX_ATTRS)
    set->ext[set->n++] = ext_attrs_new(text, len);
  return set;
}

void ext_set_attach(ExtSet *set, cmark_parser *p)
{
  for (int i = 0; i < set->n; i++)
    cmark_parser_attach_syntax_extension(p, set->ext[i]);
}

void ext_set_free(ExtSet *set)
{
  if (!set)
    return;
  for (int i = 0; i < set->n; i++)
    cmark_syntax_extension_free(cmark_get_default_mem_allocator(), set->ext[i]);
  g_free(set);
}
