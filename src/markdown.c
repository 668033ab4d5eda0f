/* markdown.c: Markdown (cmark-gfm) -> document model.
 *
 * What it does, per input: repairs invalid UTF-8 (reported), strips a BOM,
 * reads YAML front matter (libyaml), parses the rest with cmark-gfm and its
 * table, strikethrough, autolink, tasklist and footnote extensions, and
 * converts cmark's tree to model nodes with cmark's iterator (no recursion).
 * Raw HTML goes through sanitize.c.  Then the book-wide steps: the title
 * heading and byline, chapter splitting, unique heading ids, footnote
 * numbering in order of first reference, internal link resolution across
 * files, local images as resources, and the metadata layers (byline < front
 * matter < --lang < -M).
 *
 * What it does not do: render anything, or read images beyond their first
 * bytes (media type and size).  cmark-gfm types never leave this file.
 */
#include "markdown.h"

#include "sanitize.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

/* ---- metadata layers ---- */

enum {
  K_TITLE,
  K_SUBTITLE,
  K_DATE,
  K_LANG,
  K_IDENTIFIER,
  K_PUBLISHER,
  K_DESCRIPTION,
  K_RIGHTS,
  K_SOURCE,
  K_COVER,
  K_NSCALAR
};

static const char *const scalar_keys[K_NSCALAR] = {"title",     "subtitle",    "date",   "lang",   "identifier",
                                                   "publisher", "description", "rights", "source", "cover"};

/* One source of metadata; NULL fields are not set by it. */
typedef struct {
  char *v[K_NSCALAR];
  GPtrArray *authors;  /* char *, or NULL when this layer names none */
  GPtrArray *subjects; /* char *, or NULL */
} MetaLayer;

static void layer_clear(MetaLayer *l) {
  for (int i = 0; i < K_NSCALAR; i++)
    g_clear_pointer(&l->v[i], g_free);
  g_clear_pointer(&l->authors, g_ptr_array_unref);
  g_clear_pointer(&l->subjects, g_ptr_array_unref);
}

static void layer_set(MetaLayer *l, int k, const char *value) {
  g_free(l->v[k]);
  l->v[k] = g_strdup(value);
}

static void list_add(GPtrArray **list, const char *value) {
  if (!*list)
    *list = g_ptr_array_new_with_free_func(g_free);
  char *v = g_strstrip(g_strdup(value));
  if (*v)
    g_ptr_array_add(*list, v);
  else
    g_free(v);
}

static char **meta_field(BookMeta *m, int k) {
  switch (k) {
  case K_TITLE: return &m->title;
  case K_SUBTITLE: return &m->subtitle;
  case K_DATE: return &m->date;
  case K_LANG: return &m->lang;
  case K_IDENTIFIER: return &m->identifier;
  case K_PUBLISHER: return &m->publisher;
  case K_DESCRIPTION: return &m->description;
  case K_RIGHTS: return &m->rights;
  case K_SOURCE: return &m->source;
  default: return &m->cover;
  }
}

static void list_replace(GPtrArray *dst, const GPtrArray *src) {
  g_ptr_array_set_size(dst, 0);
  for (guint i = 0; i < src->len; i++)
    g_ptr_array_add(dst, g_strdup(src->pdata[i]));
}

/* Copy what layer l sets over m. */
static void layer_apply(BookMeta *m, const MetaLayer *l) {
  for (int k = 0; k < K_NSCALAR; k++)
    if (l->v[k]) {
      char **f = meta_field(m, k);
      g_free(*f);
      *f = g_strdup(l->v[k]);
    }
  if (l->authors)
    list_replace(m->authors, l->authors);
  if (l->subjects)
    list_replace(m->subjects, l->subjects);
}

static int scalar_key(const char *key) {
  for (int k = 0; k < K_NSCALAR; k++)
    if (g_ascii_strcasecmp(key, scalar_keys[k]) == 0)
      return k;
  return -1;
}

static bool is_author_key(const char *key) {
  return g_ascii_strcasecmp(key, "author") == 0 || g_ascii_strcasecmp(key, "authors") == 0;
}

static bool is_subject_key(const char *key) {
  return g_ascii_strcasecmp(key, "subject") == 0 || g_ascii_strcasecmp(key, "subjects") == 0 ||
         g_ascii_strcasecmp(key, "keywords") == 0;
}

/* ---- per-input and per-run state ---- */

typedef struct {
  const char *file; /* interned display name */
  char *canon;      /* canonical absolute path, or NULL for standard input */
  char *dir;        /* directory that relative paths start from */
  char *realdir;    /* realpath(dir), or NULL */
  char *text;       /* repaired text, front matter blanked to newlines */
  gsize len;
  MetaLayer fm;       /* front matter */
  BookNode *root;     /* the converted tree before chapter splitting */
  GPtrArray *notes;   /* BookFootnote * by cmark's footnote index - 1 (owned by Ctx.pending) */
  GHashTable *slugs;  /* slug as written -> final id, for links into this file (owned strings) */
  BookChapter *first; /* the file's first chapter, or NULL when it has none */
  GArray *lines;      /* gsize offset of each line's start in text */
} Src;

typedef struct {
  Book *book;
  const OctavoOptions *opts;
  Src *srcs;
  int n;
  GPtrArray *pending;        /* BookFootnote * not yet numbered (owned; NULL slots) */
  GHashTable *anchors;       /* id -> BookChapter * for headings and HTML ids */
  GHashTable *res_by_path;   /* realpath -> BookResource * */
  bool title_known;          /* front matter or -M gives the title: the first H1 stays */
  bool first_h1_seen, chapter_heading_seen;
  MetaLayer doc;             /* title heading and byline */
  char *realres;             /* realpath(opts->resource_path), or NULL */
} Ctx;

static Src *src_of(Ctx *c, const char *file) {
  for (int i = 0; i < c->n; i++)
    if (c->srcs[i].file == file)
      return &c->srcs[i];
  return c->n ? &c->srcs[0] : NULL;
}

/* Plain text of a node with runs of white space collapsed. Caller frees. */
static char *plain_text(const BookNode *n) {
  GString *s = g_string_new(NULL);
  book_node_text(n, s);
  char **words = g_strsplit_set(s->str, " \t\n\r", -1);
  GString *o = g_string_new(NULL);
  for (char **w = words; *w; w++)
    if (**w) {
      if (o->len)
        g_string_append_c(o, ' ');
      g_string_append(o, *w);
    }
  g_strfreev(words);
  g_string_free(s, TRUE);
  return g_string_free(o, FALSE);
}

/* ---- input: UTF-8, BOM, front matter ---- */

/* Replace invalid UTF-8 with U+FFFD (reported with line:col) and NUL bytes
 * with U+FFFD (silently, as cmark would); drop a leading BOM. */
static char *repair_utf8(Book *b, const char *file, const char *text, gsize len, gsize *out_len) {
  /* A UTF-16 file (with its BOM) is text too: convert it (g_convert keeps
   * the BOM as U+FEFF, dropped below). */
  if (len >= 2 && (((guchar)text[0] == 0xFF && (guchar)text[1] == 0xFE) ||
                   ((guchar)text[0] == 0xFE && (guchar)text[1] == 0xFF))) {
    gsize got = 0;
    char *u8 = g_convert(text, (gssize)len, "UTF-8", (guchar)text[0] == 0xFF ? "UTF-16LE" : "UTF-16BE", NULL, &got,
                         NULL);
    if (u8) {
      char *r = repair_utf8(b, file, u8, got, out_len);
      g_free(u8);
      return r;
    }
  }
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    text += 3;
    len -= 3;
  }
  GString *o = g_string_sized_new(len + 1);
  const char *p = text, *end = text + len;
  int line = 1;
  const char *line_start = text;
  int reported = 0, bad = 0;
  while (p < end) {
    const char *valid_end;
    g_utf8_validate_len(p, (gsize)(end - p), &valid_end);
    for (const char *q = p; q < valid_end; q++)
      if (*q == '\n') {
        line++;
        line_start = q + 1;
      }
    g_string_append_len(o, p, valid_end - p);
    p = valid_end;
    if (p >= end)
      break;
    if (*p != '\0') {
      bad++;
      if (reported < 10) {
        BookPos pos = {file, line, (int)(p - line_start) + 1};
        book_diag(b, BOOK_WARNING, &pos, "invalid UTF-8 (byte 0x%02X) replaced with U+FFFD", (guchar)*p);
        reported++;
      }
    }
    g_string_append(o, "\xEF\xBF\xBD");
    p++;
  }
  if (bad > reported) {
    BookPos pos = {file, 0, 0};
    book_diag(b, BOOK_WARNING, &pos, "%d more invalid UTF-8 bytes replaced with U+FFFD", bad - reported);
  }
  *out_len = o->len;
  return g_string_free(o, FALSE);
}

/* Length of the line starting at p (without its newline) and the start of
 * the next line. */
static const char *line_end(const char *p, const char *end, const char **next) {
  const char *e = memchr(p, '\n', (size_t)(end - p));
  if (!e)
    e = end;
  *next = e < end ? e + 1 : end;
  return e;
}

static bool is_fence_line(const char *p, const char *e, bool closing) {
  while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
    e--;
  size_t n = (size_t)(e - p);
  return (n == 3 && memcmp(p, "---", 3) == 0) || (closing && n == 3 && memcmp(p, "...", 3) == 0);
}

static const char *yaml_str(yaml_document_t *d, yaml_node_t *n) {
  (void)d;
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static BookPos yaml_pos(const Src *s, yaml_mark_t m, int line0) {
  return (BookPos){s->file, (int)m.line + line0, (int)m.column + 1};
}

/* Add the scalar items of a YAML value (a string, or a list of strings or of
 * mappings with a "name") to *list; keywords strings split at commas. */
static void yaml_list(Book *b, const Src *s, yaml_document_t *d, yaml_node_t *v, GPtrArray **list,
                      bool split_commas, int line0) {
  if (v->type == YAML_SCALAR_NODE) {
    if (split_commas) {
      char **parts = g_strsplit(yaml_str(d, v), ",", -1);
      for (char **p = parts; *p; p++)
        list_add(list, *p);
      g_strfreev(parts);
    } else {
      list_add(list, yaml_str(d, v));
    }
    return;
  }
  if (v->type != YAML_SEQUENCE_NODE) {
    BookPos pos = yaml_pos(s, v->start_mark, line0);
    book_diag(b, BOOK_WARNING, &pos, "front matter: expected a string or a list");
    return;
  }
  if (!*list)
    *list = g_ptr_array_new_with_free_func(g_free);
  for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
    yaml_node_t *item = yaml_document_get_node(d, *it);
    const char *str = yaml_str(d, item);
    if (!str && item && item->type == YAML_MAPPING_NODE)
      for (yaml_node_pair_t *pr = item->data.mapping.pairs.start; pr < item->data.mapping.pairs.top; pr++) {
        const char *k = yaml_str(d, yaml_document_get_node(d, pr->key));
        if (k && g_ascii_strcasecmp(k, "name") == 0)
          str = yaml_str(d, yaml_document_get_node(d, pr->value));
      }
    if (str) {
      list_add(list, str);
    } else if (item) {
      BookPos pos = yaml_pos(s, item->start_mark, line0);
      book_diag(b, BOOK_WARNING, &pos, "front matter: expected a string in the list");
    }
  }
}

/* Parse YAML front matter text into s->fm. line0 is the source line of the
 * YAML's first line. Returns 1 when it was front matter, 0 on invalid YAML
 * (an error is recorded), -1 when it is YAML but not a mapping: then it is
 * no front matter but Markdown (a thematic break, text, a setext heading),
 * and nothing of it is dropped. */
static int parse_yaml(Book *b, Src *s, const char *yaml, gsize len, int line0) {
  yaml_parser_t p;
  yaml_document_t d;
  bool ok = true;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_string(&p, (const unsigned char *)yaml, len);
  if (!yaml_parser_load(&p, &d)) {
    BookPos pos = yaml_pos(s, p.problem_mark, line0);
    book_diag(b, BOOK_ERROR, &pos, "invalid YAML front matter: %s%s%s", p.problem ? p.problem : "syntax error",
              p.context ? " " : "", p.context ? p.context : "");
    yaml_parser_delete(&p);
    return 0;
  }
  yaml_node_t *root = yaml_document_get_root_node(&d);
  if (root && root->type != YAML_MAPPING_NODE) {
    yaml_document_delete(&d);
    yaml_parser_delete(&p);
    return -1;
  } else if (root) {
    for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
      yaml_node_t *kn = yaml_document_get_node(&d, pr->key);
      yaml_node_t *vn = yaml_document_get_node(&d, pr->value);
      const char *key = yaml_str(&d, kn);
      BookPos kpos = yaml_pos(s, kn->start_mark, line0);
      if (!key || !vn) {
        book_diag(b, BOOK_WARNING, &kpos, "front matter: a key must be a string");
        continue;
      }
      int k = scalar_key(key);
      if (k >= 0) {
        const char *v = yaml_str(&d, vn);
        if (!v) {
          book_diag(b, BOOK_WARNING, &kpos, "front matter: %s must be a string", key);
        } else if (k == K_COVER && *v && !g_path_is_absolute(v)) {
          char *path = g_build_filename(s->dir, v, NULL);
          layer_set(&s->fm, k, path);
          g_free(path);
        } else {
          layer_set(&s->fm, k, v);
        }
      } else if (is_author_key(key)) {
        yaml_list(b, s, &d, vn, &s->fm.authors, false, line0);
      } else if (is_subject_key(key)) {
        yaml_list(b, s, &d, vn, &s->fm.subjects, g_ascii_strcasecmp(key, "keywords") == 0, line0);
      } else {
        book_diag(b, BOOK_WARNING, &kpos, "front matter: unknown key '%s' ignored", key);
      }
    }
  }
  yaml_document_delete(&d);
  yaml_parser_delete(&p);
  return ok;
}

/* Find front matter between --- lines at the very top; parse it and blank it
 * (keeping the newlines, so cmark's line numbers stay the file's). */
static bool front_matter(Book *b, Src *s) {
  const char *p = s->text, *end = s->text + s->len, *next;
  const char *e = line_end(p, end, &next);
  if (!is_fence_line(p, e, false))
    return true;
  const char *yaml = next;
  for (const char *q = next; q < end;) {
    const char *qn;
    const char *qe = line_end(q, end, &qn);
    if (is_fence_line(q, qe, true)) {
      int got = parse_yaml(b, s, yaml, (gsize)(q - yaml), 2);
      if (got < 0)
        return true;
      for (char *r = s->text; r < qe; r++)
        if (*r != '\n')
          *r = ' ';
      return got > 0;
    }
    if (qn == q)
      break;
    q = qn;
  }
  return true; /* no closing line: a thematic break, not front matter */
}

/* ---- cmark tree -> model ---- */

/* One open cmark container: the model node holding its content (or NULL for
 * a container that makes none) and where to continue when it closes. */
typedef struct {
  cmark_node *cm;
  BookNode *node;
  BookNode *restore;
} Open;

static bool cm_is_leaf(cmark_node_type t) {
  switch (t) {
  case CMARK_NODE_HTML_BLOCK:
  case CMARK_NODE_THEMATIC_BREAK:
  case CMARK_NODE_CODE_BLOCK:
  case CMARK_NODE_TEXT:
  case CMARK_NODE_SOFTBREAK:
  case CMARK_NODE_LINEBREAK:
  case CMARK_NODE_CODE:
  case CMARK_NODE_HTML_INLINE:
    return true;
  default:
    return false;
  }
}

/* cmark-gfm's inline positions are sometimes off (a column past the end of
 * the line for some autolinks): is line:col inside the text? */
static bool plausible(const Src *s, int line, int col) {
  if (line < 1 || col < 1 || (guint)line > s->lines->len)
    return false;
  gsize start = g_array_index(s->lines, gsize, line - 1);
  gsize end = (guint)line < s->lines->len ? g_array_index(s->lines, gsize, line) : s->len + 1;
  return (gsize)col <= end - start;
}

static BookPos cm_pos(const Src *s, cmark_node *n, const BookNode *parent) {
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

static BookFootnote *note_for(Ctx *c, Src *s, int k) {
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
 * but its CommonMark renderer writes it first ("[^label]:"). */
static char *footnote_label(cmark_node *def) {
  char *cm = cmark_render_commonmark(def, CMARK_OPT_DEFAULT, 0);
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
static BookNode *close_html(Book *b, BookNode *cur, BookNode *limit, const char *name, const BookPos *pos) {
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
static void finish_paragraph(BookNode *p) {
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
static void fix_pos_after_break(const Src *s, cmark_node *cn, const BookNode *parent, BookPos *pos) {
  const BookNode *prev = parent->last_child;
  if (!plausible(s, cmark_node_get_start_line(cn), cmark_node_get_start_column(cn)) && prev && prev->pos.line > 0)
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
static void fix_inline_pos(BookNode *n) {
  const BookNode *k = n->first_child;
  if (!k || k->pos.line <= 0)
    return;
  if (n->pos.line > k->pos.line || (n->pos.line == k->pos.line && n->pos.col > k->pos.col) || n->pos.line <= 0) {
    int back = n->type == BOOK_IMAGE ? 2 : 1;
    n->pos = k->pos;
    n->pos.col = k->pos.col > back ? k->pos.col - back : 1;
  }
}

static BookNode *convert(Ctx *c, Src *s, cmark_node *doc) {
  Book *b = c->book;
  BookPos rpos = {s->file, 1, 1};
  BookNode *root = book_node_new(b, BOOK_ROOT, &rpos);
  BookNode *cur = root;
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(Open));
  int ndefs = 0;
  int split = c->opts->split_level > 0 ? c->opts->split_level : 2;
  cmark_iter *it = cmark_iter_new(doc);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node *cn = cmark_iter_get_node(it);
    cmark_node_type t = cmark_node_get_type(cn);
    if (t == CMARK_NODE_DOCUMENT)
      continue;
    if (ev == CMARK_EVENT_EXIT) {
      /* Pop to cn's entry (robust even if cm_is_leaf() and cmark disagree). */
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
      continue;
    }
    BookNode *limit = stack->len ? g_array_index(stack, Open, stack->len - 1).node : root;
    if (!limit)
      limit = g_array_index(stack, Open, stack->len - 1).restore;
    /* A chapter heading at the top closes raw HTML containers left open. */
    if (t == CMARK_NODE_HEADING && cmark_node_parent(cn) == doc && cmark_node_get_heading_level(cn) <= split)
      cur = root;
    if (t == CMARK_NODE_FOOTNOTE_DEFINITION)
      cur = root;
    BookPos pos = cm_pos(s, cn, cur);
    if (t & CMARK_NODE_TYPE_INLINE)
      fix_pos_after_break(s, cn, cur, &pos);
    BookNode *n = NULL;
    bool holds = false; /* n takes the content of cn */
    bool attach = true;
    const char *lit = cmark_node_get_literal(cn);
    switch (t) {
    case CMARK_NODE_PARAGRAPH:
      n = book_node_new(b, BOOK_PARAGRAPH, &pos);
      holds = true;
      break;
    case CMARK_NODE_HEADING:
      n = book_node_new(b, BOOK_HEADING, &pos);
      n->as.heading.level = cmark_node_get_heading_level(cn);
      holds = true;
      break;
    case CMARK_NODE_BLOCK_QUOTE:
      n = book_node_new(b, BOOK_BLOCKQUOTE, &pos);
      holds = true;
      break;
    case CMARK_NODE_LIST:
      n = book_node_new(b, BOOK_LIST, &pos);
      n->as.list.ordered = cmark_node_get_list_type(cn) == CMARK_ORDERED_LIST;
      n->as.list.start = n->as.list.ordered ? cmark_node_get_list_start(cn) : 0;
      n->as.list.tight = cmark_node_get_list_tight(cn);
      n->as.list.delim = n->as.list.ordered ? (cmark_node_get_list_delim(cn) == CMARK_PAREN_DELIM ? ')' : '.') : 0;
      holds = true;
      break;
    case CMARK_NODE_ITEM:
      n = book_node_new(b, BOOK_ITEM, &pos);
      if (strcmp(cmark_node_get_type_string(cn), "tasklist") == 0)
        n->as.item.task = cmark_gfm_extensions_get_tasklist_item_checked(cn) ? BOOK_TASK_DONE : BOOK_TASK_OPEN;
      holds = true;
      break;
    case CMARK_NODE_CODE_BLOCK: {
      n = book_node_new(b, BOOK_CODE_BLOCK, &pos);
      n->text = g_strdup(lit ? lit : "");
      const char *info = cmark_node_get_fence_info(cn);
      if (info && *info) {
        const char *e = info;
        while (*e && !g_ascii_isspace(*e))
          e++;
        if (e > info)
          n->as.code.info = g_strndup(info, (gsize)(e - info));
      }
      break;
    }
    case CMARK_NODE_THEMATIC_BREAK:
      n = book_node_new(b, BOOK_THEMATIC_BREAK, &pos);
      break;
    case CMARK_NODE_HTML_BLOCK: {
      BookNode *hn;
      char *name;
      char **closers = san_closing_tags(lit);
      if (closers && closers[1]) { /* "</div></div>": close each */
        for (char **k = closers; *k; k++)
          cur = close_html(b, cur, limit, *k, &pos);
        g_strfreev(closers);
        break;
      }
      g_strfreev(closers);
      switch (san_fragment(b, lit ? lit : "", true, &pos, &hn, &name)) {
      case SAN_OPEN:
        book_node_append(cur, hn);
        cur = hn;
        break;
      case SAN_CLOSE:
        cur = close_html(b, cur, limit, name, &pos);
        break;
      case SAN_NONE: {
        BookNode *open = san_block(b, lit ? lit : "", lit ? strlen(lit) : 0, &pos, cur);
        if (open)
          cur = open;
        break;
      }
      default:
        book_node_free(hn);
        break;
      }
      g_free(name);
      break;
    }
    case CMARK_NODE_HTML_INLINE: {
      BookNode *hn;
      char *name;
      switch (san_fragment(b, lit ? lit : "", false, &pos, &hn, &name)) {
      case SAN_OPEN:
      case SAN_SUPPRESS:
        book_node_append(cur, hn);
        cur = hn;
        break;
      case SAN_VOID:
        book_node_append(cur, hn);
        break;
      case SAN_CLOSE:
        cur = close_html(b, cur, limit, name, &pos);
        break;
      default:
        book_node_free(hn);
        break;
      }
      g_free(name);
      break;
    }
    case CMARK_NODE_FOOTNOTE_DEFINITION: {
      BookFootnote *f = note_for(c, s, ++ndefs);
      n = book_node_new(b, BOOK_FOOTNOTE_DEF, &pos);
      holds = true;
      attach = false;
      if (f && !f->def) {
        f->def = n;
        f->label = footnote_label(cn);
      } else {
        /* Cannot happen with cmark-gfm's numbering; keep the tree owned. */
        book_node_append(root, n);
      }
      break;
    }
    case CMARK_NODE_TEXT:
      if (lit && *lit) { /* cmark leaves some empty text nodes */
        n = book_node_new(b, BOOK_TEXT, &pos);
        n->text = g_strdup(lit);
      }
      break;
    case CMARK_NODE_SOFTBREAK:
      n = book_node_new(b, BOOK_SOFTBREAK, &pos);
      break;
    case CMARK_NODE_LINEBREAK:
      n = book_node_new(b, BOOK_LINEBREAK, &pos);
      break;
    case CMARK_NODE_CODE:
      n = book_node_new(b, BOOK_CODE, &pos);
      n->text = g_strdup(lit ? lit : "");
      break;
    case CMARK_NODE_EMPH:
      n = book_node_new(b, BOOK_EMPH, &pos);
      holds = true;
      break;
    case CMARK_NODE_STRONG:
      n = book_node_new(b, BOOK_STRONG, &pos);
      holds = true;
      break;
    case CMARK_NODE_LINK: {
      n = book_node_new(b, BOOK_LINK, &pos);
      n->as.link.href = g_strdup(cmark_node_get_url(cn));
      const char *title = cmark_node_get_title(cn);
      n->as.link.title = title && *title ? g_strdup(title) : NULL;
      holds = true;
      break;
    }
    case CMARK_NODE_IMAGE: {
      n = book_node_new(b, BOOK_IMAGE, &pos);
      n->as.image.src = g_strdup(cmark_node_get_url(cn));
      const char *title = cmark_node_get_title(cn);
      n->as.image.title = title && *title ? g_strdup(title) : NULL;
      holds = true;
      break;
    }
    case CMARK_NODE_FOOTNOTE_REFERENCE: {
      BookFootnote *f = note_for(c, s, lit ? atoi(lit) : 0);
      if (f) {
        n = book_node_new(b, BOOK_FOOTNOTE_REF, &pos);
        n->as.fnref.note = f;
      } else {
        n = book_node_new(b, BOOK_TEXT, &pos);
        n->text = g_strdup_printf("[^%s]", lit ? lit : "");
      }
      break;
    }
    default: {
      const char *ts = cmark_node_get_type_string(cn);
      if (strcmp(ts, "table") == 0) {
        n = book_node_new(b, BOOK_TABLE, &pos);
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
        n = book_node_new(b, BOOK_TABLE_ROW, &pos);
        n->as.row.header = strcmp(ts, "table_header") == 0;
      } else if (strcmp(ts, "table_cell") == 0) {
        n = book_node_new(b, BOOK_TABLE_CELL, &pos);
      } else if (strcmp(ts, "strikethrough") == 0) {
        n = book_node_new(b, BOOK_STRIKE, &pos);
      } else {
        book_diag(b, BOOK_WARNING, &pos, "unsupported Markdown node '%s' ignored (its text is kept)", ts);
      }
      holds = n != NULL;
      break;
    }
    }
    if (n && attach)
      book_node_append(cur, n);
    if (!cm_is_leaf(t)) {
      Open o = {cn, holds ? n : NULL, cur};
      g_array_append_val(stack, o);
      if (holds)
        cur = n;
    }
  }
  cmark_iter_free(it);
  g_array_free(stack, TRUE);
  return root;
}

/* cmark-gfm silently drops footnote definitions that nothing references.
 * Find lines that look like one ("[^label]:" at the start) which no kept
 * block covers, and report them. */
static void report_dropped_footnotes(Ctx *c, Src *s, cmark_node *doc) {
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
    book_diag(c->book, BOOK_WARNING, &pos, "footnote [^%.*s] is defined but never referenced", (int)(q - p - 2),
              p + 2);
  }
  g_free(covered);
}

static void parse_one(Ctx *c, Src *s) {
  cmark_gfm_core_extensions_ensure_registered();
  int copts = CMARK_OPT_FOOTNOTES | CMARK_OPT_UNSAFE | CMARK_OPT_VALIDATE_UTF8;
  if (c->opts && c->opts->smart)
    copts |= CMARK_OPT_SMART; /* curly quotes, en and em dashes, ellipses */
  cmark_parser *p = cmark_parser_new(copts);
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
}

/* ---- chapters, title, byline, ids ---- */

/* "By NAME, YYYY-MM-DD", "By A and B, ...", "By A, B and C, ..." */
static bool parse_byline(Ctx *c, const BookNode *para) {
  for (const BookNode *k = para->first_child; k; k = k->next)
    if (k->type != BOOK_TEXT && k->type != BOOK_SOFTBREAK && k->type != BOOK_EMPH && k->type != BOOK_STRONG &&
        k->type != BOOK_LINK)
      return false;
  char *text = plain_text(para);
  GRegex *re = g_regex_new("^By\\s+(.+?),\\s*(\\d{4}-\\d{2}-\\d{2})\\.?$", 0, 0, NULL);
  GMatchInfo *mi;
  bool ok = false;
  if (g_regex_match(re, text, 0, &mi)) {
    char *names = g_match_info_fetch(mi, 1);
    char *date = g_match_info_fetch(mi, 2);
    char **parts = g_regex_split_simple("\\s*,\\s*(?:and\\s+)?|\\s+and\\s+", names, 0, 0);
    ok = parts[0] != NULL;
    for (char **p = parts; *p; p++)
      if (!**p)
        ok = false;
    if (ok) {
      g_clear_pointer(&c->doc.authors, g_ptr_array_unref);
      for (char **p = parts; *p; p++)
        list_add(&c->doc.authors, *p);
      layer_set(&c->doc, K_DATE, date);
    }
    g_strfreev(parts);
    g_free(names);
    g_free(date);
  }
  g_match_info_free(mi);
  g_regex_unref(re);
  g_free(text);
  return ok;
}

static BookChapter *new_chapter(Ctx *c, Src *s, BookNode *heading, const BookNode *first) {
  BookChapter *ch = book_chapter_add(c->book, s->file);
  char *base = g_strdup_printf("ch%02d", ch->index + 1);
  ch->id = book_id_reserve(c->book, base);
  g_free(base);
  ch->root->pos = first->pos;
  if (heading) {
    ch->heading = heading;
    ch->title = plain_text(heading);
  }
  if (!s->first)
    s->first = ch;
  return ch;
}

static void attr_remove(BookNode *n, char **a) {
  g_free(a[0]);
  g_free(a[1]);
  char **e = a;
  while (e[2])
    e += 2;
  memmove(a, a + 2, (size_t)(e - a) * sizeof(char *));
  e[0] = e[1] = NULL;
  (void)n;
  if (!n->as.html.attrs[0])
    g_clear_pointer(&n->as.html.attrs, g_free);
}

/* Unique ids for the headings, and the ids of raw HTML, in tree; anchors
 * recorded for chapter ch (NULL: footnote text, not a link target). */
static void assign_ids(Ctx *c, Src *s, BookNode *tree, BookChapter *ch) {
  BookIter it;
  book_iter_init(&it, tree);
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    if (it.ev != BOOK_ITER_ENTER)
      continue;
    BookNode *n = it.cur;
    if (n->type == BOOK_HEADING) {
      char *text = plain_text(n);
      char *slug = book_slug(text);
      n->as.heading.id = book_id_reserve(c->book, slug);
      if (ch) {
        g_hash_table_insert(c->anchors, n->as.heading.id, ch);
        if (!g_hash_table_contains(s->slugs, slug))
          g_hash_table_insert(s->slugs, g_strdup(slug), g_strdup(n->as.heading.id));
      }
      g_free(slug);
      g_free(text);
    } else if ((n->type == BOOK_HTML_BLOCK || n->type == BOOK_HTML_INLINE) && n->as.html.attrs) {
      for (char **a = n->as.html.attrs; a[0]; a += 2) {
        if (strcmp(a[0], "id") != 0)
          continue;
        if (g_hash_table_contains(c->book->ids, a[1])) {
          book_diag(c->book, BOOK_WARNING, &n->pos, "raw HTML: dropped id '%s', already in use", a[1]);
          attr_remove(n, a);
        } else {
          char *id = book_id_reserve(c->book, a[1]);
          g_free(id);
          if (ch) {
            g_hash_table_insert(c->anchors, a[1], ch);
            if (!g_hash_table_contains(s->slugs, a[1]))
              g_hash_table_insert(s->slugs, g_strdup(a[1]), g_strdup(a[1]));
          }
        }
        break;
      }
    }
  }
}

static void split_chapters(Ctx *c, Src *s, bool first_src) {
  int split = c->opts->split_level > 0 ? c->opts->split_level : 2;
  BookChapter *ch = NULL;
  guint first_index = c->book->chapters->len;
  bool after_title = false;
  BookNode *blk;
  while ((blk = s->root->first_child)) {
    book_node_unlink(blk);
    bool byline_ok = after_title;
    after_title = false;
    if (blk->type == BOOK_HEADING) {
      int level = blk->as.heading.level;
      if (level == 1 && first_src && !c->first_h1_seen && !c->chapter_heading_seen) {
        c->first_h1_seen = true;
        if (!c->title_known) {
          char *title = plain_text(blk);
          layer_set(&c->doc, K_TITLE, title);
          g_free(title);
          if (split >= 2) { /* the book's title, shown on the title page */
            book_node_free(blk);
            after_title = true;
            continue;
          }
        }
      }
      if (level <= split) {
        ch = new_chapter(c, s, blk, blk);
        c->chapter_heading_seen = true;
        book_node_append(ch->root, blk);
        continue;
      }
    }
    if (byline_ok && blk->type == BOOK_PARAGRAPH && parse_byline(c, blk)) {
      book_node_free(blk);
      continue;
    }
    if (!ch)
      ch = new_chapter(c, s, NULL, blk);
    book_node_append(ch->root, blk);
  }
  for (guint i = first_index; i < c->book->chapters->len; i++) {
    BookChapter *chi = c->book->chapters->pdata[i];
    assign_ids(c, s, chi->root, chi);
  }
  for (guint i = 0; i < s->notes->len; i++) {
    BookFootnote *f = s->notes->pdata[i];
    if (f && f->def)
      assign_ids(c, s, f->def, NULL);
  }
}

/* ---- book-wide: footnotes, links, images ---- */

static void number_refs(Ctx *c, BookNode *tree, BookChapter *ch) {
  Book *b = c->book;
  BookIter it;
  book_iter_init(&it, tree);
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (it.ev != BOOK_ITER_ENTER || n->type != BOOK_FOOTNOTE_REF || !n->as.fnref.note)
      continue;
    BookFootnote *f = n->as.fnref.note;
    if (f->number == 0) {
      g_ptr_array_add(b->footnotes, f); /* now the book's; pending keeps only a pointer */
      f->number = (int)b->footnotes->len;
      char *base = g_strdup_printf("fn-%d", f->number);
      f->id = book_id_reserve(b, base);
      g_free(base);
      f->chapter = ch;
      if (!f->def) {
        f->def = book_node_new(b, BOOK_FOOTNOTE_DEF, &n->pos);
        f->label = g_strdup("?");
      }
    }
    n->as.fnref.ref_index = ++f->nrefs;
  }
}

static void number_footnotes(Ctx *c) {
  Book *b = c->book;
  for (guint i = 0; i < b->chapters->len; i++) {
    BookChapter *ch = b->chapters->pdata[i];
    number_refs(c, ch->root, ch);
  }
  /* Notes first referenced from other notes: the list grows as we go. */
  for (guint i = 0; i < b->footnotes->len; i++) {
    BookFootnote *f = b->footnotes->pdata[i];
    number_refs(c, f->def, f->chapter);
  }
  for (guint i = 0; i < c->pending->len; i++) {
    BookFootnote *f = c->pending->pdata[i];
    if (f->number > 0)
      continue;
    if (f->def)
      book_diag(b, BOOK_WARNING, &f->def->pos, "footnote [^%s] is never referenced", f->label ? f->label : "?");
    book_node_free(f->def);
    g_free(f->label);
    g_free(f);
  }
  g_ptr_array_set_size(c->pending, 0);
}

static const char *const doc_exts[] = {".md", ".markdown", ".mdown", ".html", ".htm", ".xhtml", NULL};

static char *strip_doc_ext(const char *path) {
  for (const char *const *e = doc_exts; *e; e++)
    if (g_str_has_suffix(path, *e) && strlen(path) > strlen(*e))
      return g_strndup(path, strlen(path) - strlen(*e));
  return g_strdup(path);
}

/* The input that path (relative to from's directory) names, as ch02.md or
 * ch02.html, or NULL. */
static Src *find_input(Ctx *c, const Src *from, const char *path) {
  char *target = g_canonicalize_filename(path, from->dir);
  char *stem = strip_doc_ext(target);
  Src *found = NULL;
  for (int i = 0; i < c->n && !found; i++) {
    Src *s = &c->srcs[i];
    if (!s->canon)
      continue;
    if (strcmp(s->canon, target) == 0) {
      found = s;
    } else {
      char *st = strip_doc_ext(s->canon);
      if (strcmp(st, stem) == 0)
        found = s;
      g_free(st);
    }
  }
  g_free(stem);
  g_free(target);
  return found;
}

static const char *find_anchor(Ctx *c, Src *s, const char *frag, BookChapter **ch) {
  const char *id = s ? g_hash_table_lookup(s->slugs, frag) : NULL;
  if (!id)
    id = frag;
  *ch = g_hash_table_lookup(c->anchors, id);
  return *ch ? id : NULL;
}

/* href as a valid URI: percent-encode what RFC 3986 does not allow (white
 * space, controls, non-ASCII, "<>\^`{|}", brackets outside the host, a
 * second '#', a '%' that starts no escape).  cmark-gfm's autolinks can hold
 * any of these. Caller frees. */
static char *uri_escape(const char *href) {
  GString *o = g_string_new(NULL);
  const char *auth = strstr(href, "//");
  const char *auth_end = auth ? auth + 2 + strcspn(auth + 2, "/?#") : NULL;
  bool hash = false;
  for (const char *p = href; *p; p++) {
    guchar ch = (guchar)*p;
    if (auth && auth[2] != '[' && p >= auth + 2 && p < auth_end && ch && strchr("[]^|\\", ch)) {
      /* A character no host may hold, even percent-encoded (WHATWG's
       * forbidden host code points): the host ends here (an autolink such
       * as "www.x.org[1]") and the rest is the path. Others, such as '`',
       * stay in the host escaped, as cmark-gfm writes them. */
      g_string_append_c(o, '/');
      auth_end = p;
    }
    bool in_host = auth && auth[2] == '[' && p >= auth && p < auth_end; /* an IPv6 literal */
    bool bad = ch <= 0x20 || ch >= 0x7f || strchr("\"<>\\^`{|}", ch) || ((ch == '[' || ch == ']') && !in_host) ||
               (ch == '#' && hash) ||
               (ch == '%' && !(g_ascii_isxdigit(p[1]) && g_ascii_isxdigit(p[2])));
    if (ch == '#')
      hash = true;
    if (bad)
      g_string_append_printf(o, "%%%02X", ch);
    else
      g_string_append_c(o, (char)ch);
  }
  return g_string_free(o, FALSE);
}

static void resolve_link(Ctx *c, BookNode *n, BookChapter *ch) {
  Book *b = c->book;
  if (n->as.link.href) {
    char *clean = uri_escape(n->as.link.href);
    g_free(n->as.link.href);
    n->as.link.href = clean;
  }
  const char *href = n->as.link.href ? n->as.link.href : "";
  char *scheme = san_url_scheme(href);
  if (scheme) {
    if (strcmp(scheme, "http") && strcmp(scheme, "https") && strcmp(scheme, "mailto")) {
      book_diag(b, BOOK_WARNING, &n->pos, "link with a %s: URL dropped (its text is kept)", scheme);
      book_node_unwrap(n);
    }
    g_free(scheme);
    return;
  }
  if (!*href || g_str_has_prefix(href, "//")) {
    book_diag(b, BOOK_WARNING, &n->pos, "%s link dropped (its text is kept)", *href ? "scheme-relative" : "empty");
    book_node_unwrap(n);
    return;
  }
  Src *from = src_of(c, n->pos.file);
  const char *hash = strchr(href, '#');
  char *path_part = g_strndup(href, hash ? (gsize)(hash - href) : strlen(href));
  char *q = strchr(path_part, '?');
  if (q)
    *q = '\0';
  char *path = g_uri_unescape_string(path_part, NULL);
  if (!path)
    path = g_strdup(path_part);
  char *frag = hash && hash[1] ? g_uri_unescape_string(hash + 1, NULL) : NULL;
  if (hash && hash[1] && !frag)
    frag = g_strdup(hash + 1);
  Src *target = *path ? find_input(c, from, path) : from;
  BookChapter *tch = NULL;
  const char *id = NULL;
  if (!target) {
    book_diag(b, BOOK_WARNING, &n->pos, "link to '%s' matches no input file", href);
  } else if (!frag) {
    tch = *path ? target->first : ch;
    if (!tch)
      book_diag(b, BOOK_WARNING, &n->pos, "link to '%s': that file has no text", href);
  } else if ((id = find_anchor(c, target, frag, &tch))) {
    /* resolved */
  } else if (*path && target->first) {
    book_diag(b, BOOK_WARNING, &n->pos, "link to '%s': no heading or id '%s' there; linking to the file's start",
              href, frag);
    tch = target->first;
  } else {
    book_diag(b, BOOK_WARNING, &n->pos, "link to '#%s' matches no heading or id", frag);
  }
  if (tch) {
    n->as.link.internal = true;
    n->as.link.chapter = tch;
    n->as.link.fragment = g_strdup(id);
  }
  g_free(frag);
  g_free(path);
  g_free(path_part);
}

/* ---- images ---- */

/* Images larger than this are refused (their decoded size). */
enum { MAX_IMAGE_SIDE_PX = 20000 };
#define MAX_IMAGE_PIXELS ((gint64)100 * 1000 * 1000)

static bool inside(const char *real, const char *dir) {
  if (!dir)
    return false;
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/')
    return true;
  return strncmp(real, dir, n) == 0 && real[n] == '/';
}

static unsigned be16(const guchar *p) { return (unsigned)p[0] << 8 | p[1]; }
static unsigned be32(const guchar *p) { return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3]; }

/* The media type from the first bytes, and the size in pixels when the
 * header gives it; NULL when not PNG, JPEG, GIF or SVG. */
static const char *sniff_image(const guchar *d, gsize len, int *w, int *h, const char **ext) {
  *w = *h = 0;
  if (len >= 24 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0) {
    if (memcmp(d + 12, "IHDR", 4) == 0) {
      *w = (int)be32(d + 16);
      *h = (int)be32(d + 20);
    }
    *ext = "png";
    return "image/png";
  }
  if (len >= 10 && (memcmp(d, "GIF87a", 6) == 0 || memcmp(d, "GIF89a", 6) == 0)) {
    *w = d[6] | d[7] << 8;
    *h = d[8] | d[9] << 8;
    *ext = "gif";
    return "image/gif";
  }
  if (len >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) {
    gsize i = 2;
    while (i + 9 < len && d[i] == 0xFF) {
      guchar m = d[i + 1];
      if (m == 0xFF) {
        i++;
        continue;
      }
      if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
        i += 2;
        continue;
      }
      if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
        *h = (int)be16(d + i + 5);
        *w = (int)be16(d + i + 7);
        break;
      }
      i += 2 + be16(d + i + 2);
    }
    *ext = "jpg";
    return "image/jpeg";
  }
  gsize i = 0;
  if (len >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0)
    i = 3;
  while (i < len && g_ascii_isspace(d[i]))
    i++;
  if (i < len && d[i] == '<') {
    gsize look = MIN(len - i, 4096);
    const char *t = (const char *)d + i;
    if (g_str_has_prefix(t, "<svg") || g_strstr_len(t, (gssize)look, "<svg")) {
      *ext = "svg";
      return "image/svg+xml";
    }
  }
  return NULL;
}

static void resolve_image(Ctx *c, BookNode *n) {
  Book *b = c->book;
  const char *src = n->as.image.src ? n->as.image.src : "";
  char *scheme = san_url_scheme(src);
  if (scheme) {
    if (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0)
      book_diag(b, BOOK_WARNING, &n->pos, "remote image %s is not fetched", src);
    else if (strcmp(scheme, "data") == 0)
      book_diag(b, BOOK_WARNING, &n->pos, "data: image is not embedded; only local files are");
    else
      book_diag(b, BOOK_WARNING, &n->pos, "image with a %s: URL refused", scheme);
    g_free(scheme);
    return;
  }
  if (!*src) {
    book_diag(b, BOOK_WARNING, &n->pos, "image without a source");
    return;
  }
  Src *s = src_of(c, n->pos.file);
  char *raw = g_strndup(src, strcspn(src, "?#"));
  char *path = g_uri_unescape_string(raw, NULL);
  if (!path)
    path = g_strdup(raw);
  char *cand = g_path_is_absolute(path) ? g_strdup(path) : g_build_filename(s->dir, path, NULL);
  char *real = realpath(cand, NULL);
  if (!real && c->opts->resource_path && !g_path_is_absolute(path)) {
    char *cand2 = g_build_filename(c->opts->resource_path, path, NULL);
    real = realpath(cand2, NULL);
    g_free(cand2);
  }
  struct stat st;
  if (!real || stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
    book_diag(b, BOOK_WARNING, &n->pos, "image %s not found", src);
  } else if (!inside(real, s->realdir) && !inside(real, c->realres)) {
    book_diag(b, BOOK_WARNING, &n->pos, "image %s is outside the input's directory; refused (see --resource-path)",
              src);
  } else if ((n->as.image.res = g_hash_table_lookup(c->res_by_path, real))) {
    /* already known */
  } else {
    guchar head[65536];
    gsize got = 0;
    FILE *f = fopen(real, "rb");
    if (f) {
      got = fread(head, 1, sizeof head, f);
      fclose(f);
    }
    int w, h;
    const char *ext = NULL;
    const char *type = sniff_image(head, got, &w, &h, &ext);
    if (!type) {
      book_diag(b, BOOK_WARNING, &n->pos, "image %s is not a PNG, JPEG, GIF or SVG file", src);
    } else if (w > MAX_IMAGE_SIDE_PX || h > MAX_IMAGE_SIDE_PX || (gint64)w * h > MAX_IMAGE_PIXELS) {
      /* Decoding it would take gigabytes: a decompression bomb or a mistake. */
      book_diag(b, BOOK_WARNING, &n->pos, "image %s is %d x %d pixels, too large; left out", src, w, h);
    } else {
      BookResource *r = g_new0(BookResource, 1);
      r->src = g_strdup(src);
      r->path = g_strdup(real);
      r->media_type = g_strdup(type);
      r->href = g_strdup_printf("images/img-%u.%s", b->resources->len + 1, ext);
      r->width_px = w;
      r->height_px = h;
      g_ptr_array_add(b->resources, r);
      g_hash_table_insert(c->res_by_path, r->path, r);
      n->as.image.res = r;
    }
  }
  free(real);
  g_free(cand);
  g_free(path);
  g_free(raw);
}

static bool is_html_a(const BookNode *n) {
  return n->type == BOOK_HTML_INLINE && strcmp(n->as.html.tag, "a") == 0;
}

/* Links, images and dropped-content markers of one tree. */
static void resolve_tree(Ctx *c, BookNode *tree, BookChapter *ch) {
  GPtrArray *todo = g_ptr_array_new();
  GHashTable *nested = g_hash_table_new(NULL, NULL); /* links inside links (raw HTML makes them) */
  int link_depth = 0;
  BookIter it;
  book_iter_init(&it, tree);
  /* Collected on EXIT: document order, children before parents, so that
   * unwrapping a link never frees a node still to do. */
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (it.ev == BOOK_ITER_ENTER && san_is_marker(n)) {
      book_iter_skip_children(&it);
    } else if ((n->type == BOOK_LINK || is_html_a(n)) && it.ev == BOOK_ITER_ENTER) {
      if (link_depth++ > 0 && n->type == BOOK_LINK)
        g_hash_table_add(nested, n);
    } else if ((n->type == BOOK_LINK || is_html_a(n)) && it.ev == BOOK_ITER_EXIT) {
      link_depth--;
    }
    if (it.ev == BOOK_ITER_EXIT && (san_is_marker(n) || n->type == BOOK_LINK || n->type == BOOK_IMAGE))
      g_ptr_array_add(todo, n);
  }
  for (guint i = 0; i < todo->len; i++) {
    BookNode *n = todo->pdata[i];
    if (g_hash_table_contains(nested, n)) {
      book_diag(c->book, BOOK_WARNING, &n->pos, "a link inside a link's text: the inner link dropped (its text is kept)");
      book_node_unwrap(n);
    } else if (san_is_marker(n)) {
      book_node_unlink(n);
      book_node_free(n);
    } else if (n->type == BOOK_LINK) {
      resolve_link(c, n, ch);
    } else {
      resolve_image(c, n);
    }
  }
  g_ptr_array_free(todo, TRUE);
  g_hash_table_destroy(nested);
}

/* ---- metadata ---- */

static void apply_options(Ctx *c) {
  Book *b = c->book;
  const OctavoOptions *o = c->opts;
  if (o->lang && *o->lang) {
    g_free(b->meta.lang);
    b->meta.lang = g_strdup(o->lang);
  }
  MetaLayer m = {0};
  for (guint i = 0; o->metadata && i < o->metadata->len; i++) {
    const char *kv = o->metadata->pdata[i];
    const char *eq = strchr(kv, '=');
    if (!eq) {
      book_diag(b, BOOK_WARNING, NULL, "-M %s: expected KEY=VALUE", kv);
      continue;
    }
    char *key = g_strstrip(g_strndup(kv, (gsize)(eq - kv)));
    const char *val = eq + 1;
    int k = scalar_key(key);
    if (k >= 0) {
      layer_set(&m, k, val);
    } else if (is_author_key(key)) {
      list_add(&m.authors, val);
    } else if (is_subject_key(key)) {
      char **parts = g_strsplit(val, ",", -1);
      for (char **p = parts; *p; p++)
        list_add(&m.subjects, *p);
      g_strfreev(parts);
    } else {
      book_diag(b, BOOK_WARNING, NULL, "-M: unknown metadata key '%s' ignored", key);
    }
    g_free(key);
  }
  layer_apply(&b->meta, &m);
  layer_clear(&m);
}

static bool options_give_title(const OctavoOptions *o) {
  for (guint i = 0; o->metadata && i < o->metadata->len; i++) {
    const char *kv = o->metadata->pdata[i];
    if (g_ascii_strncasecmp(kv, "title=", 6) == 0)
      return true;
  }
  return false;
}

static void finish_meta(Ctx *c) {
  Book *b = c->book;
  layer_apply(&b->meta, &c->doc);
  for (int i = 0; i < c->n; i++)
    layer_apply(&b->meta, &c->srcs[i].fm);
  apply_options(c);
  if (!b->meta.lang || !*b->meta.lang) {
    g_free(b->meta.lang);
    b->meta.lang = g_strdup("en");
  }
  if (!b->meta.title || !*b->meta.title) {
    const Src *s = &c->srcs[0];
    char *base = s->canon ? g_path_get_basename(s->canon) : g_strdup("stdin");
    char *stem = strip_doc_ext(base);
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
      *dot = '\0';
    BookPos pos = {s->file, 0, 0};
    book_diag(b, BOOK_WARNING, &pos, "no title (no # heading, front matter or -M title): using '%s'", stem);
    g_free(b->meta.title);
    b->meta.title = stem;
    g_free(base);
  }
}

/* ---- entry points ---- */

static int file_rank(const Ctx *c, const char *file) {
  for (int i = 0; i < c->n; i++)
    if (c->srcs[i].file == file)
      return i;
  return c->n;
}

static gint diag_cmp(gconstpointer a, gconstpointer b, gpointer data) {
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
static void sort_diags(Ctx *c, guint from) {
  GArray *d = c->book->diags;
  if (d->len > from + 1)
    g_qsort_with_data(&g_array_index(d, BookDiag, from), (gint)(d->len - from), sizeof(BookDiag), diag_cmp, c);
}

static void src_init(Ctx *c, Src *s, const MdSource *in) {
  bool is_stdin = !in->name || strcmp(in->name, "-") == 0;
  s->file = book_intern(c->book, is_stdin ? "<stdin>" : in->name);
  char *cwd = g_get_current_dir();
  if (is_stdin) {
    s->dir = g_strdup(cwd);
  } else {
    s->canon = g_canonicalize_filename(in->name, cwd);
    s->dir = g_path_get_dirname(s->canon);
  }
  g_free(cwd);
  s->realdir = realpath(s->dir, NULL);
  s->notes = g_ptr_array_new();
  s->slugs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  s->text = repair_utf8(c->book, s->file, in->text ? in->text : "", in->text ? in->len : 0, &s->len);
  s->lines = g_array_new(FALSE, FALSE, sizeof(gsize));
  gsize zero = 0;
  g_array_append_val(s->lines, zero);
  for (gsize i = 0; i < s->len; i++)
    if (s->text[i] == '\n') {
      gsize next = i + 1;
      g_array_append_val(s->lines, next);
    }
}

static void src_free(Src *s) {
  g_free(s->canon);
  g_free(s->dir);
  free(s->realdir);
  g_free(s->text);
  layer_clear(&s->fm);
  book_node_free(s->root);
  g_ptr_array_free(s->notes, TRUE);
  g_hash_table_destroy(s->slugs);
  g_array_free(s->lines, TRUE);
}

bool md_parse_sources(Book *book, const MdSource *srcs, int n, const OctavoOptions *opts) {
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
  c.realres = opts->resource_path ? realpath(opts->resource_path, NULL) : NULL;
  /* Front matter first: a title there keeps the first H1 as a heading. */
  for (int i = 0; i < n; i++) {
    src_init(&c, &c.srcs[i], &srcs[i]);
    front_matter(book, &c.srcs[i]);
    if (c.srcs[i].fm.v[K_TITLE])
      c.title_known = true;
  }
  if (options_give_title(opts))
    c.title_known = true;
  for (int i = 0; i < n; i++) {
    parse_one(&c, &c.srcs[i]);
    split_chapters(&c, &c.srcs[i], i == 0);
    if (!c.srcs[i].first) {
      BookPos pos = {c.srcs[i].file, 0, 0};
      book_diag(book, BOOK_WARNING, &pos, "no text in this file");
    }
  }
  if (book->chapters->len == 0 && n > 0) { /* writers may count on a chapter */
    BookChapter *ch = book_chapter_add(book, c.srcs[0].file);
    ch->id = book_id_reserve(book, "ch01");
    c.srcs[0].first = ch;
  }
  number_footnotes(&c);
  for (guint i = 0; i < book->chapters->len; i++) {
    BookChapter *ch = book->chapters->pdata[i];
    resolve_tree(&c, ch->root, ch);
    san_repair(book, ch->root);
  }
  for (guint i = 0; i < book->footnotes->len; i++) {
    BookFootnote *f = book->footnotes->pdata[i];
    resolve_tree(&c, f->def, f->chapter);
    san_repair(book, f->def);
  }
  if (n > 0)
    finish_meta(&c);
  if (opts && opts->number_sections)
    book_number_headings(book, opts->split_level > 0 ? opts->split_level : 2);
  sort_diags(&c, diags0);
  for (int i = 0; i < n; i++)
    src_free(&c.srcs[i]);
  g_free(c.srcs);
  g_ptr_array_free(c.pending, TRUE);
  g_hash_table_destroy(c.anchors);
  g_hash_table_destroy(c.res_by_path);
  free(c.realres);
  layer_clear(&c.doc);
  return book_diag_count(book, BOOK_ERROR) == errors0;
}

/* Read all of f; NULL with errno set on failure. */
static char *read_stream(FILE *f, gsize *len) {
  GString *s = g_string_new(NULL);
  char buf[65536];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    g_string_append_len(s, buf, (gssize)got);
  if (ferror(f)) {
    int e = errno;
    g_string_free(s, TRUE);
    errno = e ? e : EIO;
    return NULL;
  }
  *len = s->len;
  return g_string_free(s, FALSE);
}

bool md_parse_files(Book *book, const char *const *files, int n, const OctavoOptions *opts) {
  MdSource *srcs = g_new0(MdSource, n > 0 ? n : 1);
  char **texts = g_new0(char *, n > 0 ? n : 1);
  bool ok = true;
  for (int i = 0; i < n; i++) {
    bool is_stdin = strcmp(files[i], "-") == 0;
    errno = 0;
    FILE *f = is_stdin ? stdin : fopen(files[i], "rb");
    gsize len = 0;
    char *text = f ? read_stream(f, &len) : NULL;
    int err = errno;
    if (!text) {
      BookPos pos = {book_intern(book, is_stdin ? "<stdin>" : files[i]), 0, 0};
      book_diag(book, BOOK_ERROR, &pos, "cannot read: %s", g_strerror(err ? err : EIO));
      ok = false;
    }
    if (f && !is_stdin)
      fclose(f);
    texts[i] = text;
    srcs[i] = (MdSource){files[i], text, len};
  }
  if (ok)
    ok = md_parse_sources(book, srcs, n, opts);
  for (int i = 0; i < n; i++)
    g_free(texts[i]);
  g_free(texts);
  g_free(srcs);
  return ok;
}
