/* project.c: mdBook projects (SUMMARY.md, book.toml, include lines) and
 * folders of chapters, read into a list of sources for the front end.
 * SUMMARY.md is parsed with cmark-gfm; book.toml is tokenised with GLib's
 * GScanner (Debian packages no C TOML library); only the [book] table is
 * read. */
#include "project.h"
#include "sandbox.h"

#include <cmark-gfm.h>
#include <yaml.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void source_clear(gpointer p)
{
  ProjectSource *s = p;
  g_free(s->name);
  g_free(s->text);
  g_free(s->number);
  g_free(s->title);
}

static void diag_clear(gpointer d)
{
  ProjectDiag *pd = d;
  g_free(pd->file);
  g_free(pd->message);
}

GArray *project_diags_new(void)
{
  GArray *a = g_array_new(FALSE, TRUE, sizeof(ProjectDiag));
  g_array_set_clear_func(a, diag_clear);
  return a;
}

static void diag(GArray *diags, bool error, const char *file, int line, int col, const char *fmt,
                 ...) G_GNUC_PRINTF(6, 7);
static void diag(GArray *diags, bool error, const char *file, int line, int col, const char *fmt,
                 ...)
{
  va_list ap;
  va_start(ap, fmt);
  ProjectDiag d = {g_strdup(file), line, col, error, g_strdup_vprintf(fmt, ap)};
  va_end(ap);
  g_array_append_val(diags, d);
}

void project_free(Project *p)
{
  if (!p)
    return;
  g_free(p->root);
  g_array_free(p->sources, TRUE);
  g_ptr_array_free(p->metadata, TRUE);
  g_free(p->metadata_file);
  g_free(p->toml_file);
  g_free(p);
}

static Project *project_new(const char *root, Sandbox *sb)
{
  Project *p = g_new0(Project, 1);
  p->sb = sb;
  p->root = g_canonicalize_filename(root, NULL);
  p->sources = g_array_new(FALSE, TRUE, sizeof(ProjectSource));
  g_array_set_clear_func(p->sources, source_clear);
  p->metadata = g_ptr_array_new_with_free_func(g_free);
  return p;
}

/* --- book.toml ------------------------------------------------------------- */

typedef struct {
  GScanner *sc;
  const char *name;
  GError **err;
  int line, col; /* where it failed */
} Toml;

static bool toml_fail(Toml *t, const char *what)
{
  t->line = (int)g_scanner_cur_line(t->sc);
  t->col = (int)g_scanner_cur_position(t->sc);
  g_set_error(t->err, G_MARKUP_ERROR, G_MARKUP_ERROR_PARSE, "%s", what);
  return false;
}

/* Read one value; strings (and strings in arrays) go to out when out is not
 * NULL. Numbers, booleans, dates and inline tables are read and dropped. */
static bool toml_value(Toml *t, GPtrArray *out, int depth)
{
  if (depth > 32)
    return toml_fail(t, "values nested too deeply");
  GTokenType tok = g_scanner_get_next_token(t->sc);
  switch ((int)tok) {
  case G_TOKEN_STRING:
    if (out)
      g_ptr_array_add(out, g_strdup(t->sc->value.v_string));
    return true;
  case G_TOKEN_INT:
  case G_TOKEN_FLOAT:
  case G_TOKEN_IDENTIFIER: /* true, false, bare dates */
    if (out && tok == G_TOKEN_IDENTIFIER) /* a flag such as no-section-label */
      g_ptr_array_add(out, g_strdup(t->sc->value.v_identifier));
    for (;;) {             /* 1.5, 1979-05-27T07:32:00 and the like: several tokens */
      GTokenType n = g_scanner_peek_next_token(t->sc);
      if (n != ':' && n != '.' && n != '-' && n != '+' && n != G_TOKEN_INT && n != G_TOKEN_FLOAT)
        break;
      g_scanner_get_next_token(t->sc);
    }
    return true;
  case '[':
    while (g_scanner_peek_next_token(t->sc) != ']') {
      if (g_scanner_peek_next_token(t->sc) == G_TOKEN_EOF)
        return toml_fail(t, "an array is not closed");
      if (!toml_value(t, out, depth + 1))
        return false;
      if (g_scanner_peek_next_token(t->sc) == ',')
        g_scanner_get_next_token(t->sc);
    }
    g_scanner_get_next_token(t->sc);
    return true;
  case '{':
    for (int open = 1; open > 0;) {
      GTokenType c = g_scanner_get_next_token(t->sc);
      if (c == G_TOKEN_EOF)
        return toml_fail(t, "an inline table is not closed");
      open += c == '{' ? 1 : c == '}' ? -1 : 0;
    }
    return true;
  default: return toml_fail(t, "a value was expected");
  }
}

static void toml_key_append(GString *key, GScanner *sc, GTokenType tok)
{
  if (key->len)
    g_string_append_c(key, '.');
  if (tok == G_TOKEN_INT)
    g_string_append_printf(key, "%lu", sc->value.v_int);
  else
    g_string_append(key, sc->value.v_string);
}

/* The string values of the [book] table as "KEY=VALUE" (a key once per
 * element of an array of strings), and [output.html]'s no-section-label
 * as "output.html.no-section-label=VALUE". */
static bool toml_book_table(const char *text, const char *name, GPtrArray *pairs, GError **err,
                            int *line, int *col)
{
  GScanner *sc = g_scanner_new(NULL);
  sc->config->cset_identifier_first = G_CSET_a_2_z G_CSET_A_2_Z "_";
  sc->config->cset_identifier_nth = G_CSET_a_2_z G_CSET_A_2_Z "_-0123456789";
  sc->config->cpair_comment_single = "#\n";
  sc->config->scan_string_sq = TRUE;
  sc->config->scan_string_dq = TRUE;
  sc->config->scan_identifier_1char = TRUE;
  sc->config->numbers_2_int = TRUE;
  sc->config->int_2_float = FALSE;
  sc->config->scan_hex = TRUE;
  sc->config->scan_float = FALSE; /* else ".html" in [output.html] reads as a bad float */
  sc->config->char_2_token = TRUE;
  g_scanner_input_text(sc, text, (guint)strlen(text));
  sc->input_name = name;
  Toml t = {sc, name, err, 0, 0};
  GString *table = g_string_new(NULL), *key = g_string_new(NULL);
  bool ok = true;
  for (;;) {
    GTokenType tok = g_scanner_get_next_token(sc);
    if (tok == G_TOKEN_EOF)
      break;
    if (tok == '[') { /* [table] or [[array.of.tables]] */
      bool array = g_scanner_peek_next_token(sc) == '[';
      if (array)
        g_scanner_get_next_token(sc);
      g_string_truncate(table, 0);
      for (;;) {
        GTokenType k = g_scanner_get_next_token(sc);
        if (k == ']')
          break;
        if (k == '.')
          continue;
        if (k != G_TOKEN_IDENTIFIER && k != G_TOKEN_STRING && k != G_TOKEN_INT) {
          ok = toml_fail(&t, "a table name was expected");
          goto done;
        }
        toml_key_append(table, sc, k);
      }
      if (array && g_scanner_get_next_token(sc) != ']') {
        ok = toml_fail(&t, "']]' was expected");
        goto done;
      }
      continue;
    }
    if (tok != G_TOKEN_IDENTIFIER && tok != G_TOKEN_STRING && tok != G_TOKEN_INT) {
      ok = toml_fail(&t, "a key was expected");
      goto done;
    }
    g_string_truncate(key, 0);
    toml_key_append(key, sc, tok);
    while (g_scanner_peek_next_token(sc) == '.') {
      g_scanner_get_next_token(sc);
      GTokenType k = g_scanner_get_next_token(sc);
      if (k != G_TOKEN_IDENTIFIER && k != G_TOKEN_STRING && k != G_TOKEN_INT) {
        ok = toml_fail(&t, "a key was expected after '.'");
        goto done;
      }
      toml_key_append(key, sc, k);
    }
    if (g_scanner_get_next_token(sc) != '=') {
      ok = toml_fail(&t, "'=' was expected");
      goto done;
    }
    bool book = strcmp(table->str, "book") == 0;
    char *full = table->len ? g_strdup_printf("%s.%s", table->str, key->str) : g_strdup(key->str);
    bool label = strcmp(full, "output.html.no-section-label") == 0;
    GPtrArray *vals = g_ptr_array_new_with_free_func(g_free);
    ok = toml_value(&t, book || label ? vals : NULL, 0);
    for (guint i = 0; ok && i < vals->len; i++)
      g_ptr_array_add(pairs, g_strdup_printf("%s=%s", book ? key->str : full, (char *)vals->pdata[i]));
    g_free(full);
    g_ptr_array_free(vals, TRUE);
    if (!ok)
      goto done;
  }
done:
  if (line)
    *line = t.line;
  if (col)
    *col = t.col;
  g_string_free(table, TRUE);
  g_string_free(key, TRUE);
  g_scanner_destroy(sc);
  return ok;
}

/* book.toml's [book] keys as octavo's metadata; *no_labels (when not
 * NULL) set when [output.html] no-section-label is true. */
static bool book_toml_meta(const char *text, const char *name, GPtrArray *metadata, bool *no_labels,
                           GError **err, int *line, int *col)
{
  static const struct {
    const char *toml, *meta;
  } keys[] = {{"title=", "title"},
              {"authors=", "author"},
              {"description=", "description"},
              {"language=", "lang"}};
  GPtrArray *pairs = g_ptr_array_new_with_free_func(g_free);
  bool ok = toml_book_table(text, name, pairs, err, line, col);
  for (guint i = 0; ok && i < pairs->len; i++) {
    const char *kv = pairs->pdata[i];
    if (no_labels && strcmp(kv, "output.html.no-section-label=true") == 0)
      *no_labels = true;
    for (size_t k = 0; k < G_N_ELEMENTS(keys); k++)
      if (g_str_has_prefix(kv, keys[k].toml) && kv[strlen(keys[k].toml)])
        g_ptr_array_add(metadata,
                        g_strdup_printf("%s=%s", keys[k].meta, kv + strlen(keys[k].toml)));
  }
  g_ptr_array_free(pairs, TRUE);
  return ok;
}

bool project_parse_book_toml(const char *text, const char *name, GPtrArray *metadata, GError **err)
{
  int line = 0, col = 0;
  GError *e = NULL;
  if (book_toml_meta(text, name, metadata, NULL, &e, &line, &col))
    return true;
  g_set_error(err, e->domain, e->code, "%s:%d:%d: %s", name, line, col, e->message);
  g_error_free(e);
  return false;
}

/* --- include lines ----------------------------------------------------------- */

/* One chapter's expansion: the files being expanded (real paths, outermost
 * first: a file that includes itself, directly or not, is a cycle), and
 * whether it failed (a cycle, or the book's text past its limit). */
typedef struct {
  Sandbox *sb;
  GArray *diags;
  GPtrArray *stack; /* the chapter's real path, then each include open */
  guint base;       /* the chapter's entries in stack (0 or 1): not an include */
  bool failed;
} Inc;

static void warn_at(GArray *diags, bool error, const char *name, const char *text, const char *at,
                    const char *fmt, ...) G_GNUC_PRINTF(6, 7);
static void warn_at(GArray *diags, bool error, const char *name, const char *text, const char *at,
                    const char *fmt, ...)
{
  int line = 1, col = 1;
  for (const char *c = text; c < at; c++) {
    if (*c == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  diag(diags, error, name, line, col, "%s", msg);
  g_free(msg);
}

/* True when line l holds the marker "KIND: name" (name not followed by
 * another name character). */
static bool anchor_line(const char *l, const char *marker)
{
  const char *s = strstr(l, marker);
  if (!s)
    return false;
  char c = s[strlen(marker)];
  return !g_ascii_isalnum(c) && c != '_';
}

/* The lines of f between the "ANCHOR: name" and "ANCHOR_END: name" lines
 * (all of it when anchor is NULL), without any anchor lines; or lines
 * first..last (1-based, inclusive; 0 = open), as mdBook takes them. Read a
 * line at a time and no further than the last line taken; each line taken
 * comes out of the book's text budget. False when the budget runs out. */
static bool select_lines(Sandbox *sb, FILE *f, const char *anchor, long first, long last,
                         GString *out)
{
  char *start = anchor ? g_strdup_printf("ANCHOR: %s", anchor) : NULL;
  char *end = anchor ? g_strdup_printf("ANCHOR_END: %s", anchor) : NULL;
  bool in = anchor == NULL, any = false, ok = true;
  char *l = NULL;
  size_t cap = 0;
  ssize_t n;
  for (long i = 1; ok && (n = getline(&l, &cap, f)) >= 0; i++) {
    if (n > 0 && l[n - 1] == '\n')
      l[--n] = '\0';
    if (anchor) {
      if (!in) {
        in = anchor_line(l, start);
        continue;
      }
      if (anchor_line(l, end))
        break;
    } else if (first && i < first) {
      continue;
    } else if (last && i > last) {
      break;
    }
    if (strstr(l, "ANCHOR:") || strstr(l, "ANCHOR_END:"))
      continue;
    if (!(ok = sandbox_take_text(sb, (gsize)n + 1)))
      break;
    if (any)
      g_string_append_c(out, '\n');
    g_string_append_len(out, l, n);
    any = true;
  }
  free(l);
  g_free(start);
  g_free(end);
  return ok;
}

static char *expand(Inc *inc, const char *text, gsize len, const char *name, const char *dir);

/* "a.md includes b.md includes a.md": the chain from the stack to real. */
static char *cycle_chain(const Inc *inc, const char *real)
{
  GString *s = g_string_new(NULL);
  bool on = false;
  for (guint i = 0; i < inc->stack->len; i++) {
    on |= strcmp(inc->stack->pdata[i], real) == 0;
    if (on)
      g_string_append_printf(s, "%s includes ", (char *)inc->stack->pdata[i]);
  }
  g_string_append(s, real);
  return g_string_free(s, FALSE);
}

/* One directive's argument "FILE[:ANCHOR|:FIRST[:LAST]]" → its text. */
static bool include_one(Inc *inc, const char *arg, const char *name, const char *text,
                        const char *at, const char *dir, GString *out)
{
  char **parts = g_strsplit(arg, ":", 3);
  char *file = g_strstrip(g_strdup(parts[0]));
  char *path = g_build_filename(dir, file, NULL);
  char *real = NULL;
  GError *e = NULL;
  bool ok = false;
  FILE *f = NULL;
  if (inc->stack->len - inc->base >= SANDBOX_INCLUDE_DEPTH) {
    warn_at(inc->diags, false, name, text, at,
            "include file %s: includes nested deeper than %d; the line is kept as written", file,
            SANDBOX_INCLUDE_DEPTH);
  } else if (!(f = sandbox_open(inc->sb, path, file, &real, &e))) {
    warn_at(inc->diags, false, name, text, at, "include file %s; the line is kept as written",
            e->message);
    g_error_free(e);
  } else if (g_ptr_array_find_with_equal_func(inc->stack, real, g_str_equal, NULL)) {
    char *chain = cycle_chain(inc, real);
    warn_at(inc->diags, true, name, text, at, "include cycle: %s", chain);
    g_free(chain);
    inc->failed = true;
  } else {
    const char *a = parts[1] ? g_strstrip(parts[1]) : NULL;
    char *endp = NULL;
    long first = 0, last = 0;
    bool numeric = a && (*a == '\0' || (strtol(a, &endp, 10), endp && *endp == '\0'));
    if (numeric) {
      first = *a ? strtol(a, NULL, 10) : 0;
      last = parts[2] && *g_strstrip(parts[2]) ? strtol(parts[2], NULL, 10) : 0;
      if (!parts[2])
        last = first; /* FILE:N is the one line N */
    }
    GString *taken = g_string_new(NULL);
    if (!select_lines(inc->sb, f, numeric ? NULL : a, first, last, taken)) {
      warn_at(inc->diags, true, name, text, at,
              "include file %s: the book's text passes %" G_GINT64_FORMAT
              " bytes, its limit (--max-text-size)",
              file, sandbox_text_max(inc->sb));
      inc->failed = true;
    } else {
      /* as mdBook: the lines taken, then the includes in them */
      char *sub = g_path_get_dirname(path);
      g_ptr_array_add(inc->stack, real);
      real = NULL;
      char *expanded = expand(inc, taken->str, taken->len, path, sub);
      g_free(g_ptr_array_steal_index(inc->stack, inc->stack->len - 1));
      if (expanded)
        g_string_append(out, expanded);
      g_free(expanded);
      g_free(sub);
      ok = !inc->failed;
    }
    g_string_free(taken, TRUE);
  }
  if (f)
    fclose(f);
  g_free(real);
  g_free(path);
  g_free(file);
  g_strfreev(parts);
  return ok;
}

/* text with its include lines replaced; NULL once inc has failed. */
static char *expand(Inc *inc, const char *text, gsize len, const char *name, const char *dir)
{
  static const char *const kinds[] = {"{{#include ", "{{#rustdoc_include "};
  GString *out = g_string_sized_new(len + 64);
  char *src = g_strndup(text, len); /* NUL-terminated for strstr */
  const char *p = src;
  while (!inc->failed) {
    const char *hit = NULL;
    size_t klen = 0;
    for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
      const char *h = strstr(p, kinds[k]);
      if (h && (!hit || h < hit)) {
        hit = h;
        klen = strlen(kinds[k]);
      }
    }
    const char *close = hit ? strstr(hit + klen, "}}") : NULL;
    const char *nl = hit ? strchr(hit, '\n') : NULL;
    if (!hit || !close || (nl && nl < close)) {
      if (hit) { /* not closed on its line: text */
        g_string_append_len(out, p, hit + 2 - p);
        p = hit + 2;
        continue;
      }
      g_string_append(out, p);
      break;
    }
    if (hit > p && hit[-1] == '\\') { /* \{{#include …}}: the directive as text */
      g_string_append_len(out, p, hit - 1 - p);
      g_string_append_len(out, hit, close + 2 - hit);
      p = close + 2;
      continue;
    }
    g_string_append_len(out, p, hit - p);
    char *arg = g_strndup(hit + klen, close - hit - klen);
    if (!include_one(inc, arg, name, src, hit, dir, out) && !inc->failed)
      g_string_append_len(out, hit, close + 2 - hit);
    g_free(arg);
    p = close + 2;
  }
  g_free(src);
  if (inc->failed) {
    g_string_free(out, TRUE);
    return NULL;
  }
  return g_string_free(out, FALSE);
}

char *project_expand_includes(Sandbox *sb, const char *text, gsize len, const char *name,
                              const char *dir, GArray *diags)
{
  Inc inc = {sb, diags, g_ptr_array_new_with_free_func(g_free), 0, false};
  char *real = realpath(name, NULL); /* the chapter itself: including it is a cycle */
  if (real) {
    g_ptr_array_add(inc.stack, g_strdup(real));
    free(real);
  }
  inc.base = inc.stack->len;
  char *out = expand(&inc, text, len, name, dir);
  g_ptr_array_free(inc.stack, TRUE);
  return out;
}

/* --- SUMMARY.md ----------------------------------------------------------------- */

typedef struct {
  Project *p;
  const char *summary; /* its path, for messages */
  const char *dir;     /* its folder: chapter paths are relative to it */
  bool expand_includes;
  GArray *diags;
  char *title; /* the summary's own title heading, if any */
  bool parts;  /* it has part titles: prefix and suffix chapters stand beside them */
  bool no_labels; /* book.toml: [output.html] no-section-label = true */
  GArray *count;  /* int: mdBook's section number of the last numbered chapter, by depth */
} Summary;

static char *node_text(cmark_node *n)
{
  GString *s = g_string_new(NULL);
  cmark_iter *it = cmark_iter_new(n);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node *c = cmark_iter_get_node(it);
    if (ev == CMARK_EVENT_ENTER &&
        (cmark_node_get_type(c) == CMARK_NODE_TEXT || cmark_node_get_type(c) == CMARK_NODE_CODE))
      g_string_append(s, cmark_node_get_literal(c));
    else if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(c) == CMARK_NODE_SOFTBREAK)
      g_string_append_c(s, ' ');
  }
  cmark_iter_free(it);
  return g_strstrip(g_string_free(s, FALSE));
}

static void add_source(Project *p, char *name, char *text, int shift, int line)
{
  ProjectSource s = {.name = name, .text = text, .len = strlen(text), .heading_shift = shift, .line = line};
  g_array_append_val(p->sources, s);
}

/* Read a chapter file through the sandbox (its text out of the book's
 * budget) and expand its includes; false after an error message. */
static bool read_chapter(Project *p, const char *path, const char *shown, const char *from,
                         int line, int col, bool includes, GArray *diags, char **out)
{
  char *text = NULL;
  gsize len = 0;
  GError *e = NULL;
  gint64 left = sandbox_text_max(p->sb);
  if (!sandbox_read(p->sb, path, shown, (gsize)MAX(left, 1), &text, &len, NULL, &e)) {
    diag(diags, true, from, line, col, "chapter %s", e->message);
    g_error_free(e);
    return false;
  }
  if (!sandbox_take_text(p->sb, len)) {
    diag(diags, true, from, line, col,
         "chapter %s: the book's text passes %" G_GINT64_FORMAT
         " bytes, its limit (--max-text-size)",
         shown, sandbox_text_max(p->sb));
    g_free(text);
    return false;
  }
  if (includes) {
    char *dir = g_path_get_dirname(path);
    *out = project_expand_includes(p->sb, text, len, path, dir, diags);
    g_free(dir);
  } else {
    *out = g_strndup(text, len);
  }
  g_free(text);
  return *out != NULL;
}

/* A link's text as Markdown (its inlines rendered back by cmark-gfm; the
 * link loses them). */
static char *link_markdown(cmark_node *link)
{
  cmark_node *para = cmark_node_new(CMARK_NODE_PARAGRAPH);
  for (cmark_node *k; (k = cmark_node_first_child(link));)
    cmark_node_append_child(para, k);
  char *md = cmark_render_commonmark(para, CMARK_OPT_DEFAULT, 0);
  cmark_node_free(para);
  char *out = g_strstrip(g_strdup(md ? md : ""));
  cmark_get_default_mem_allocator()->free(md);
  return out;
}

/* mdBook's number of the chapter at depth (0 for the top level) of the
 * numbered list: "1.", "2.3." (drafts take their numbers too). */
static char *next_number(Summary *s, int depth)
{
  if (s->count->len < (guint)depth + 1)
    g_array_set_size(s->count, depth + 1);
  g_array_index(s->count, int, depth)++;
  for (guint k = depth + 1; k < s->count->len; k++)
    g_array_index(s->count, int, k) = 0;
  GString *n = g_string_new(NULL);
  for (int k = 0; k <= depth; k++)
    g_string_append_printf(n, "%d.", g_array_index(s->count, int, k));
  return g_string_free(n, FALSE);
}

/* A chapter of SUMMARY.md: nest as ProjectSource.nest, numbered when a
 * list item's. */
static bool add_chapter(Summary *s, cmark_node *link, int nest, bool numbered)
{
  const char *url = cmark_node_get_url(link);
  char *title = node_text(link);
  int line = cmark_node_get_start_line(link), col = cmark_node_get_start_column(link);
  char *number = numbered ? next_number(s, nest) : NULL;
  if (!url || !*url) {
    diag(s->diags, false, s->summary, line, col, "draft chapter '%s' has no file; left out", title);
    g_free(title);
    g_free(number);
    return true;
  }
  g_free(title);
  if (s->no_labels)
    g_clear_pointer(&number, g_free);
  char *unesc = g_uri_unescape_string(url, NULL);
  char *file = g_strdup(unesc ? unesc : url);
  char *hash = strchr(file, '#');
  if (hash)
    *hash = '\0';
  char *path = g_build_filename(s->dir, file, NULL);
  char *text = NULL;
  bool ok =
      read_chapter(s->p, path, file, s->summary, line, col, s->expand_includes, s->diags, &text);
  if (ok) {
    ProjectSource src = {g_strdup(path), text, strlen(text), 0, 0, true, true, nest, number,
                         link_markdown(link)};
    g_array_append_val(s->p->sources, src);
    number = NULL;
  }
  g_free(number);
  g_free(path);
  g_free(file);
  g_free(unesc);
  return ok;
}

/* The links of a paragraph: prefix and suffix chapters (depth -1: beside
 * the parts when there are parts, else chapters like the numbered ones),
 * or a list item's chapter. */
static bool add_links(Summary *s, cmark_node *para, int depth)
{
  bool numbered = depth >= 0;
  if (depth < 0)
    depth = s->parts ? -1 : 0;
  for (cmark_node *c = cmark_node_first_child(para); c; c = cmark_node_next(c))
    if (cmark_node_get_type(c) == CMARK_NODE_LINK && !add_chapter(s, c, depth, numbered))
      return false;
  return true;
}

static bool add_list(Summary *s, cmark_node *list, int depth)
{
  for (cmark_node *item = cmark_node_first_child(list); item; item = cmark_node_next(item)) {
    for (cmark_node *b = cmark_node_first_child(item); b; b = cmark_node_next(b)) {
      cmark_node_type t = cmark_node_get_type(b);
      if ((t == CMARK_NODE_PARAGRAPH && !add_links(s, b, depth)) ||
          (t == CMARK_NODE_LIST && !add_list(s, b, depth + 1)))
        return false;
    }
  }
  return true;
}

static bool read_summary(Summary *s, const char *text, gsize len)
{
  cmark_node *doc = cmark_parse_document(text, len, CMARK_OPT_DEFAULT);
  bool ok = true, first = true;
  for (cmark_node *b = cmark_node_first_child(doc); b; b = cmark_node_next(b))
    s->parts |= b != cmark_node_first_child(doc) && cmark_node_get_type(b) == CMARK_NODE_HEADING;
  for (cmark_node *b = cmark_node_first_child(doc); b && ok; b = cmark_node_next(b)) {
    switch (cmark_node_get_type(b)) {
    case CMARK_NODE_HEADING:
      if (first) { /* the summary's title: not a part */
        s->title = node_text(b);
      } else {
        char *title = node_text(b);
        char *src = g_strdup_printf("# %s\n", title);
        add_source(s->p, g_strdup(s->summary), src, 0, cmark_node_get_start_line(b));
        g_array_index(s->p->sources, ProjectSource, s->p->sources->len - 1).mdbook = true;
        g_free(title);
      }
      break;
    case CMARK_NODE_PARAGRAPH: ok = add_links(s, b, -1); break;
    case CMARK_NODE_LIST: ok = add_list(s, b, 0); break;
    default: /* separators, HTML comments */ break;
    }
    first = false;
  }
  cmark_node_free(doc);
  return ok;
}

/* --- finding and loading ------------------------------------------------------------ */

/* Read a small file of the project (SUMMARY.md, book.toml, metadata.yaml)
 * through the sandbox; an error diag naming it when it cannot be. */
static bool read_small(Sandbox *sb, const char *path, char **text, gsize *len, GArray *diags)
{
  GError *e = NULL;
  gsize n = 0;
  if (sandbox_read(sb, path, path, SANDBOX_META_MAX, text, &n, NULL, &e)) {
    if (len)
      *len = n;
    return true;
  }
  diag(diags, true, path, 0, 0, "%s", e->message);
  g_error_free(e);
  return false;
}

/* book.toml beside SUMMARY.md's folder or one folder up (mdBook keeps
 * SUMMARY.md in src/). Only the name: it is read through the sandbox. */
static char *find_book_toml(const char *summary_dir)
{
  char *t = g_build_filename(summary_dir, "book.toml", NULL);
  if (g_file_test(t, G_FILE_TEST_EXISTS))
    return t;
  g_free(t);
  char *up = g_path_get_dirname(summary_dir);
  t = g_build_filename(up, "book.toml", NULL);
  g_free(up);
  if (g_file_test(t, G_FILE_TEST_EXISTS))
    return t;
  g_free(t);
  return NULL;
}

/* The SUMMARY.md of a directory (a root of sb): DIR/SUMMARY.md,
 * DIR/<book.toml src>/SUMMARY.md, DIR/src/SUMMARY.md. NULL when there is
 * none, or (*failed, with an error) when book.toml names a src outside the
 * book's folder or cannot be read. */
static char *find_summary(Sandbox *sb, const char *dir, GArray *diags, bool *failed)
{
  *failed = false;
  char *s = g_build_filename(dir, "SUMMARY.md", NULL);
  if (g_file_test(s, G_FILE_TEST_EXISTS))
    return s;
  g_free(s);
  char *src = NULL;
  char *toml = g_build_filename(dir, "book.toml", NULL);
  char *text = NULL;
  if (g_file_test(toml, G_FILE_TEST_EXISTS)) { /* [book] src = "..." */
    if (!read_small(sb, toml, &text, NULL, diags)) {
      *failed = true;
    } else {
      GPtrArray *pairs = g_ptr_array_new_with_free_func(g_free);
      if (toml_book_table(text, toml, pairs, NULL, NULL, NULL))
        for (guint i = 0; i < pairs->len && !src; i++)
          if (g_str_has_prefix(pairs->pdata[i], "src="))
            src = g_strdup((char *)pairs->pdata[i] + 4);
      g_ptr_array_free(pairs, TRUE);
    }
  }
  g_free(text);
  s = *failed ? NULL : g_build_filename(dir, src ? src : "src", "SUMMARY.md", NULL);
  if (s && src) { /* src = "../.." would make any folder above the book the book */
    char *folder = g_build_filename(dir, src, NULL);
    if (g_file_test(folder, G_FILE_TEST_EXISTS) && !sandbox_contains(sb, folder)) {
      diag(diags, true, toml, 0, 0, "[book] src = \"%s\" is outside the book's folder", src);
      *failed = true;
      g_clear_pointer(&s, g_free);
    }
    g_free(folder);
  }
  g_free(src);
  g_free(toml);
  if (s && g_file_test(s, G_FILE_TEST_EXISTS))
    return s;
  g_free(s);
  return NULL;
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static Project *load_folder(Sandbox *sb, const char *dir, GArray *diags)
{
  GError *e = NULL;
  GDir *d = g_dir_open(dir, 0, &e);
  if (!d) {
    diag(diags, true, dir, 0, 0, "%s", e->message);
    g_error_free(e);
    return NULL;
  }
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *n;
  while ((n = g_dir_read_name(d)))
    if (g_str_has_suffix(n, ".md") || g_str_has_suffix(n, ".markdown"))
      g_ptr_array_add(names, g_build_filename(dir, n, NULL));
  g_dir_close(d);
  g_ptr_array_sort(names, cmp_str);
  if (names->len == 0) {
    diag(diags, true, dir, 0, 0, "holds no SUMMARY.md and no *.md file");
    g_ptr_array_free(names, TRUE);
    return NULL;
  }
  Project *p = project_new(dir, sb);
  char *meta = g_build_filename(dir, "metadata.yaml", NULL);
  if (g_file_test(meta, G_FILE_TEST_EXISTS))
    p->metadata_file = meta;
  else
    g_free(meta);
  for (guint i = 0; i < names->len; i++) {
    char *text = NULL;
    if (!read_chapter(p, names->pdata[i], names->pdata[i], names->pdata[i], 0, 0, false, diags,
                      &text)) {
      project_free(p);
      p = NULL;
      break;
    }
    add_source(p, g_strdup(names->pdata[i]), text, 0, 0);
  }
  g_ptr_array_free(names, TRUE);
  return p;
}

static Project *load_summary(Sandbox *sb, const char *summary, GArray *diags)
{
  char *dir = g_path_get_dirname(summary);
  char *toml = find_book_toml(dir);
  char *root = toml ? g_path_get_dirname(toml) : g_strdup(dir);
  sandbox_add_root(sb, root);
  char *text = NULL;
  gsize len = 0;
  if (!read_small(sb, summary, &text, &len, diags)) {
    g_free(root);
    g_free(toml);
    g_free(dir);
    return NULL;
  }
  Project *p = project_new(root, sb);
  Summary s = {p, summary, dir, true, diags, NULL, false, false, g_array_new(FALSE, TRUE, sizeof(int))};
  bool ok = true;
  if (toml) {
    char *t = NULL;
    GError *e = NULL;
    ok = read_small(sb, toml, &t, NULL, diags);
    int line = 0, col = 0;
    if (ok && !(ok = book_toml_meta(t, toml, p->metadata, &s.no_labels, &e, &line, &col))) {
      diag(diags, true, toml, line, col, "%s", e->message);
      g_error_free(e);
    }
    g_free(t);
  }
  p->toml_file = g_strdup(toml);
  ok = ok && read_summary(&s, text, len);
  if (ok && p->sources->len == 0) {
    diag(diags, true, summary, 0, 0, "lists no chapter");
    ok = false;
  }
  /* The book needs a title that is not its first part's: book.toml's, or
   * the summary's own title, or the folder's name. */
  bool titled = false;
  for (guint i = 0; i < p->metadata->len; i++)
    titled |= g_str_has_prefix(p->metadata->pdata[i], "title=");
  if (ok && !titled) {
    const char *t = s.title && g_ascii_strcasecmp(s.title, "Summary") != 0 &&
                            g_ascii_strcasecmp(s.title, "Table of Contents") != 0
                        ? s.title
                        : NULL;
    char *base = project_name(summary);
    g_ptr_array_insert(p->metadata, 0, g_strdup_printf("title=%s", t ? t : base));
    g_free(base);
  }
  g_free(s.title);
  g_array_free(s.count, TRUE);
  g_free(root);
  g_free(toml);
  g_free(dir);
  g_free(text);
  if (!ok) {
    project_free(p);
    return NULL;
  }
  return p;
}

char *project_name(const char *path)
{
  char *base = g_path_get_basename(path);
  if (project_is_project(path) && !g_file_test(path, G_FILE_TEST_IS_DIR)) { /* SUMMARY.md */
    char *dir = g_path_get_dirname(path);
    char *abs = g_canonicalize_filename(dir, NULL);
    g_free(base);
    base = g_path_get_basename(abs);
    if (strcmp(base, "src") == 0) {
      char *up = g_path_get_dirname(abs);
      g_free(base);
      base = g_path_get_basename(up);
      g_free(up);
    }
    g_free(abs);
    g_free(dir);
    return base;
  }
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    char *abs = g_canonicalize_filename(path, NULL);
    g_free(base);
    base = g_path_get_basename(abs);
    g_free(abs);
    return base;
  }
  char *dot = strrchr(base, '.');
  if (dot && dot != base)
    *dot = '\0';
  return base;
}

bool project_is_project(const char *path)
{
  if (g_file_test(path, G_FILE_TEST_IS_DIR))
    return true;
  char *base = g_path_get_basename(path);
  bool r = strcmp(base, "SUMMARY.md") == 0;
  g_free(base);
  return r;
}

Project *project_load(const char *path, Sandbox *sb, GArray *diags)
{
  if (!g_file_test(path, G_FILE_TEST_IS_DIR))
    return load_summary(sb, path, diags);
  /* the folder's real path is the root (a symlinked project is its target) */
  sandbox_add_root(sb, path);
  bool failed = false;
  char *summary = find_summary(sb, path, diags, &failed);
  Project *p = failed    ? NULL
               : summary ? load_summary(sb, summary, diags)
                         : load_folder(sb, path, diags);
  g_free(summary);
  return p;
}

/* --- metadata as front matter --------------------------------------------------------- */

static int emit_to_string(void *data, unsigned char *buf, size_t size)
{
  g_string_append_len(data, (const char *)buf, (gssize)size);
  return 1;
}

static bool emit_scalar(yaml_emitter_t *em, const char *v)
{
  yaml_event_t ev;
  yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)v, (int)strlen(v), 1, 1,
                               YAML_ANY_SCALAR_STYLE);
  return yaml_emitter_emit(em, &ev);
}

/* book.toml's pairs ("title=...", "author=..." once per author) as a YAML
 * mapping; authors as a sequence. */
static char *emit_yaml(const GPtrArray *pairs)
{
  GString *out = g_string_new("---\n");
  yaml_emitter_t em;
  yaml_event_t ev;
  yaml_emitter_initialize(&em);
  yaml_emitter_set_output(&em, emit_to_string, out);
  yaml_emitter_set_unicode(&em, 1);
  yaml_emitter_set_width(&em, -1);
  bool ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) &&
            yaml_emitter_emit(&em, &ev) &&
            yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
            yaml_emitter_emit(&em, &ev) &&
            yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) &&
            yaml_emitter_emit(&em, &ev);
  bool authors = false;
  for (guint i = 0; ok && i < pairs->len; i++) {
    const char *kv = pairs->pdata[i], *eq = strchr(kv, '=');
    char *key = g_strndup(kv, eq - kv);
    if (strcmp(key, "author") == 0) {
      if (!authors) { /* all of them at once, in order */
        ok = emit_scalar(&em, "author") &&
             yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) &&
             yaml_emitter_emit(&em, &ev);
        for (guint j = i; ok && j < pairs->len; j++)
          if (g_str_has_prefix(pairs->pdata[j], "author="))
            ok = emit_scalar(&em, (char *)pairs->pdata[j] + 7);
        ok = ok && yaml_sequence_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev);
        authors = true;
      }
    } else {
      ok = emit_scalar(&em, key) && emit_scalar(&em, eq + 1);
    }
    g_free(key);
  }
  ok = ok && yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev) &&
       yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev) &&
       yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev);
  yaml_emitter_delete(&em);
  if (!ok) {
    g_string_free(out, TRUE);
    return NULL;
  }
  /* the emitter ends the document with "...": front matter closes with --- */
  if (g_str_has_suffix(out->str, "...\n"))
    g_string_truncate(out, out->len - 4);
  g_string_append(out, "---\n");
  return g_string_free(out, FALSE);
}

char *project_front_matter(const Project *p, const char **name, GError **err)
{
  if (p->metadata_file) {
    char *text = NULL;
    gsize len = 0;
    if (!sandbox_read(p->sb, p->metadata_file, p->metadata_file, SANDBOX_META_MAX, &text, &len,
                      NULL, err))
      return NULL;
    *name = p->metadata_file;
    /* metadata.yaml may hold its own --- and ... lines: one block either way */
    char **lines = g_strsplit(text, "\n", -1);
    GString *out = g_string_new("---\n");
    for (char **l = lines; *l; l++) {
      char *t = g_strchomp(g_strdup(*l));
      bool fence = strcmp(t, "---") == 0 || strcmp(t, "...") == 0;
      g_free(t);
      if (fence)
        continue;
      g_string_append(out, *l);
      if (l[1])
        g_string_append_c(out, '\n');
    }
    if (out->str[out->len - 1] != '\n')
      g_string_append_c(out, '\n');
    g_string_append(out, "---\n");
    g_strfreev(lines);
    g_free(text);
    return g_string_free(out, FALSE);
  }
  if (p->metadata->len == 0)
    return NULL;
  *name = p->toml_file ? p->toml_file : "book.toml";
  char *y = emit_yaml(p->metadata);
  if (!y)
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: cannot write its metadata as YAML",
                *name);
  return y;
}
