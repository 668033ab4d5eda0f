/* meta.c: the book's metadata, in layers.
 *
 * What it does: reads pandoc's title block (% lines) at the top of the first
 * input and YAML front matter (libyaml) at the top of each input,
 * the byline under the title heading ("By NAME, YYYY-MM-DD"), and -M and
 * --lang; applies them in order (title heading and byline < front matter,
 * later files winning < --lang < -M) and guarantees a title and a language.
 * What it does not do: decide which heading is the title (chapters.c).
 */
#include "front.h"
#include "labels.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const char *const scalar_keys[K_NSCALAR] = {
    "title",       "subtitle", "date",   "lang",  "identifier", "publisher",
    "description", "rights",   "source", "cover", "dir"};

void md_layer_clear(MetaLayer *l)
{
  for (int i = 0; i < K_NSCALAR; i++)
    g_clear_pointer(&l->v[i], g_free);
  g_clear_pointer(&l->authors, g_ptr_array_unref);
  g_clear_pointer(&l->subjects, g_ptr_array_unref);
}

void md_layer_set(MetaLayer *l, int k, const char *value)
{
  g_free(l->v[k]);
  l->v[k] = g_strdup(value);
}

void md_list_add(GPtrArray **list, const char *value)
{
  if (!*list)
    *list = g_ptr_array_new_with_free_func(g_free);
  char *v = g_strstrip(g_strdup(value));
  if (*v)
    g_ptr_array_add(*list, v);
  else
    g_free(v);
}

static char **meta_field(BookMeta *m, int k)
{
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
  case K_DIR: return &m->dir;
  default: return &m->cover;
  }
}

static void list_replace(GPtrArray *dst, const GPtrArray *src)
{
  g_ptr_array_set_size(dst, 0);
  for (guint i = 0; i < src->len; i++)
    g_ptr_array_add(dst, g_strdup(src->pdata[i]));
}

/* Copy what layer l sets over m. */
static void layer_apply(BookMeta *m, const MetaLayer *l)
{
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

static int scalar_key(const char *key)
{
  for (int k = 0; k < K_NSCALAR; k++)
    if (g_ascii_strcasecmp(key, scalar_keys[k]) == 0)
      return k;
  return -1;
}

static bool is_author_key(const char *key)
{
  return g_ascii_strcasecmp(key, "author") == 0 || g_ascii_strcasecmp(key, "authors") == 0;
}

static bool is_subject_key(const char *key)
{
  return g_ascii_strcasecmp(key, "subject") == 0 || g_ascii_strcasecmp(key, "subjects") == 0 ||
         g_ascii_strcasecmp(key, "keywords") == 0;
}

/* ---- front matter ---- */

/* Length of the line starting at p (without its newline) and the start of
 * the next line. */
static const char *line_end(const char *p, const char *end, const char **next)
{
  const char *e = memchr(p, '\n', (size_t)(end - p));
  if (!e)
    e = end;
  *next = e < end ? e + 1 : end;
  return e;
}

static bool is_fence_line(const char *p, const char *e, bool closing)
{
  while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
    e--;
  size_t n = (size_t)(e - p);
  return (n == 3 && memcmp(p, "---", 3) == 0) || (closing && n == 3 && memcmp(p, "...", 3) == 0);
}

static const char *yaml_str(yaml_document_t *d, yaml_node_t *n)
{
  (void)d;
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static BookPos yaml_pos(const Src *s, yaml_mark_t m, int line0)
{
  return (BookPos){s->file, (int)m.line + line0, (int)m.column + 1};
}

/* Add the scalar items of a YAML value (a string, or a list of strings or of
 * mappings with a "name") to *list; keywords strings split at commas. */
static void yaml_list(Book *b, const Src *s, yaml_document_t *d, yaml_node_t *v, GPtrArray **list,
                      bool split_commas, int line0)
{
  if (v->type == YAML_SCALAR_NODE) {
    if (split_commas) {
      char **parts = g_strsplit(yaml_str(d, v), ",", -1);
      for (char **p = parts; *p; p++)
        md_list_add(list, *p);
      g_strfreev(parts);
    } else {
      md_list_add(list, yaml_str(d, v));
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
      for (yaml_node_pair_t *pr = item->data.mapping.pairs.start; pr < item->data.mapping.pairs.top;
           pr++) {
        const char *k = yaml_str(d, yaml_document_get_node(d, pr->key));
        if (k && g_ascii_strcasecmp(k, "name") == 0)
          str = yaml_str(d, yaml_document_get_node(d, pr->value));
      }
    if (str) {
      md_list_add(list, str);
    } else if (item) {
      BookPos pos = yaml_pos(s, item->start_mark, line0);
      book_diag(b, BOOK_WARNING, &pos, "front matter: expected a string in the list");
    }
  }
}

/* YAML's escapes ("\uFFFE") make noncharacters that the source's own
 * repair (input.c) never saw: each scalar loses them, with a warning. */
static void fix_scalars(Book *b, const Src *s, yaml_document_t *d, int line0)
{
  for (yaml_node_t *n = d->nodes.start; n < d->nodes.top; n++) {
    gunichar c;
    gsize len;
    if (n->type != YAML_SCALAR_NODE ||
        !book_utf8_fix_nonchars((char *)n->data.scalar.value, (gssize)n->data.scalar.length, &len,
                                &c))
      continue;
    n->data.scalar.length = len;
    BookPos pos = yaml_pos(s, n->start_mark, line0);
    book_diag(b, BOOK_WARNING, &pos, "front matter: noncharacter U+%04X replaced with U+FFFD", c);
  }
}

/* Parse YAML front matter text into s->fm. line0 is the source line of the
 * YAML's first line. Returns 1 when it was front matter, 0 on invalid YAML
 * (an error is recorded), -1 when it is YAML but not a mapping: then it is
 * no front matter but Markdown (a thematic break, text, a setext heading),
 * and nothing of it is dropped. */
static int parse_yaml(Book *b, Src *s, const char *yaml, gsize len, int line0)
{
  yaml_parser_t p;
  yaml_document_t d;
  bool ok = true;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_string(&p, (const unsigned char *)yaml, len);
  if (!yaml_parser_load(&p, &d)) {
    BookPos pos = yaml_pos(s, p.problem_mark, line0);
    book_diag(b, BOOK_ERROR, &pos, "invalid YAML front matter: %s%s%s",
              p.problem ? p.problem : "syntax error", p.context ? " " : "",
              p.context ? p.context : "");
    yaml_parser_delete(&p);
    return 0;
  }
  yaml_node_t *root = yaml_document_get_root_node(&d);
  if (root && root->type == YAML_MAPPING_NODE)
    fix_scalars(b, s, &d, line0);
  if (root && root->type != YAML_MAPPING_NODE) {
    yaml_document_delete(&d);
    yaml_parser_delete(&p);
    return -1;
  } else if (root) {
    for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top;
         pr++) {
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
        } else if (k == K_COVER && *v) {
          /* relative to this file's folder; the warnings say it as written */
          char *path = g_path_is_absolute(v) ? g_strdup(v) : g_build_filename(s->dir, v, NULL);
          md_layer_set(&s->fm, k, path);
          g_free(path);
          g_free(s->cover_src);
          s->cover_src = g_strdup(v);
          s->cover_at = yaml_pos(s, vn->start_mark, line0);
        } else {
          md_layer_set(&s->fm, k, v);
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
bool md_front_matter(Book *b, Src *s)
{
  const char *p = s->text, *end = s->text + s->len, *next;
  const char *e = line_end(p, end, &next);
  if (!is_fence_line(p, e, false))
    return true;
  const char *yaml = next;
  for (const char *q = next; q < end;) {
    const char *qn;
    const char *qe = line_end(q, end, &qn);
    if (is_fence_line(q, qe, true)) {
      /* 20 MB of metadata took 2.5 GB: refused, and blanked all the same */
      bool too_big = (gsize)(q - yaml) > SANDBOX_META_MAX;
      if (too_big) {
        BookPos pos = {s->file, 1, 1};
        book_diag(b, BOOK_ERROR, &pos, "front matter is %zu bytes; the limit is %zu",
                  (gsize)(q - yaml), SANDBOX_META_MAX);
      }
      int got = too_big ? 0 : parse_yaml(b, s, yaml, (gsize)(q - yaml), 2);
      if (got < 0)
        return true;
      for (char *r = s->text; r < qe; r++)
        if (*r != '\n')
          *r = ' ';
      s->has_fm = got > 0;
      return got > 0;
    }
    if (qn == q)
      break;
    q = qn;
  }
  return true; /* no closing line: a thematic break, not front matter */
}

/* ---- pandoc's title block ---- */

/* Lines "% Title", "% Author; Author", "% Date" at the very top of s->text
 * (each may be "%" alone: not given; a title or authors line may go on on
 * lines that start with white space, more authors one to a line): into
 * *l, and blanked as front matter is.  False when the text does not start
 * with one. */
bool md_title_block(Book *b, Src *s, MetaLayer *l)
{
  (void)b;
  const char *p = s->text, *end = s->text + s->len, *next;
  if (p >= end || *p != '%')
    return false;
  GString *field[3] = {g_string_new(NULL), g_string_new(NULL), g_string_new(NULL)};
  int k = -1;
  const char *stop = p;
  while (p < end) {
    const char *e = line_end(p, end, &next);
    if (*p == '%' && k < 2) {
      k++;
      g_string_append_len(field[k], p + 1, e - p - 1);
    } else if (k >= 0 && k < 2 && (*p == ' ' || *p == '	') && e > p) {
      const char *q = p;
      while (q < e && g_ascii_isspace(*q))
        q++;
      if (q == e)
        break; /* a blank line ends it */
      g_string_append(field[k], k == 1 ? ";" : " "); /* another author, or more title */
      g_string_append_len(field[k], q, e - q);
    } else {
      break;
    }
    stop = e;
    if (next == p)
      break;
    p = next;
  }
  char *title = g_strstrip(g_strdup(field[0]->str));
  if (*title)
    md_layer_set(l, K_TITLE, title);
  g_free(title);
  char **authors = g_strsplit(field[1]->str, ";", -1);
  for (char **a = authors; *a; a++)
    md_list_add(&l->authors, *a); /* (empty ones are left out) */
  g_strfreev(authors);
  char *date = g_strstrip(g_strdup(field[2]->str));
  if (*date)
    md_layer_set(l, K_DATE, date);
  g_free(date);
  for (int i = 0; i < 3; i++)
    g_string_free(field[i], TRUE);
  for (char *r = s->text; r < stop; r++)
    if (*r != '\n')
      *r = ' ';
  return true;
}

/* ---- byline ---- */

/* "By NAME, YYYY-MM-DD", "By A and B, ...", "By A, B and C, ..." */
bool md_byline(Ctx *c, const BookNode *para)
{
  for (const BookNode *k = para->first_child; k; k = k->next)
    if (k->type != BOOK_TEXT && k->type != BOOK_SOFTBREAK && k->type != BOOK_EMPH &&
        k->type != BOOK_STRONG && k->type != BOOK_LINK)
      return false;
  char *text = md_plain_text(para);
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
        md_list_add(&c->doc.authors, *p);
      md_layer_set(&c->doc, K_DATE, date);
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

/* ---- options and the final layers ---- */

/* An option's text (GOption gives UTF-8) without noncharacters (g_free). */
static char *option_text(Book *b, const char *option, const char *text)
{
  char *t = g_strdup(text);
  gunichar c;
  if (book_utf8_fix_nonchars(t, -1, NULL, &c))
    book_diag(b, BOOK_WARNING, NULL, "%s %s: noncharacter U+%04X replaced with U+FFFD", option, t,
              c);
  return t;
}

static void apply_options(Ctx *c)
{
  Book *b = c->book;
  const OctavoOptions *o = c->opts;
  if (o->lang && *o->lang) {
    g_free(b->meta.lang);
    b->meta.lang = option_text(b, "--lang", o->lang);
  }
  MetaLayer m = {0};
  for (guint i = 0; o->metadata && i < o->metadata->len; i++) {
    char *kv = option_text(b, "-M", o->metadata->pdata[i]);
    const char *eq = strchr(kv, '=');
    if (!eq) {
      book_diag(b, BOOK_WARNING, NULL, "-M %s: expected KEY=VALUE", kv);
      g_free(kv);
      continue;
    }
    char *key = g_strstrip(g_strndup(kv, (gsize)(eq - kv)));
    const char *val = eq + 1;
    int k = scalar_key(key);
    if (k >= 0) {
      md_layer_set(&m, k, val);
    } else if (is_author_key(key)) {
      md_list_add(&m.authors, val);
    } else if (is_subject_key(key)) {
      char **parts = g_strsplit(val, ",", -1);
      for (char **p = parts; *p; p++)
        md_list_add(&m.subjects, *p);
      g_strfreev(parts);
    } else {
      book_diag(b, BOOK_WARNING, NULL, "-M: unknown metadata key '%s' ignored", key);
    }
    g_free(key);
    g_free(kv);
  }
  layer_apply(&b->meta, &m);
  md_layer_clear(&m);
}

bool md_options_give_title(const OctavoOptions *o)
{
  for (guint i = 0; o->metadata && i < o->metadata->len; i++) {
    const char *kv = o->metadata->pdata[i];
    if (g_ascii_strncasecmp(kv, "title=", 6) == 0)
      return true;
  }
  return false;
}

/* The book's direction, decided here once for every writer (BookMeta.rtl):
 * `dir` metadata as pandoc reads it (front matter, metadata.yaml, -M
 * dir=rtl), else the language's (labels_rtl). A value that is neither
 * ltr nor rtl is ignored, with a warning ("auto" included: a book has one
 * direction; its blocks take their own from their text). */
static void decide_dir(Book *b)
{
  const char *d = b->meta.dir;
  bool given = d && (g_ascii_strcasecmp(d, "rtl") == 0 || g_ascii_strcasecmp(d, "ltr") == 0);
  if (d && !given)
    book_diag(b, BOOK_WARNING, NULL,
              "dir '%s' is neither ltr nor rtl: ignored, the book reads %s as its language "
              "'%s' does",
              d, labels_rtl(b->meta.lang) ? "right to left" : "left to right", b->meta.lang);
  b->meta.rtl = given ? g_ascii_strcasecmp(d, "rtl") == 0 : labels_rtl(b->meta.lang);
  g_free(b->meta.dir);
  b->meta.dir = g_strdup(b->meta.rtl ? "rtl" : "ltr");
}

void md_finish_meta(Ctx *c)
{
  Book *b = c->book;
  layer_apply(&b->meta, &c->doc);
  layer_apply(&b->meta, &c->title_block);
  for (int i = 0; i < c->n; i++)
    layer_apply(&b->meta, &c->srcs[i].fm);
  apply_options(c);
  if (!b->meta.lang || !*b->meta.lang) {
    g_free(b->meta.lang);
    b->meta.lang = g_strdup("en");
  }
  if (!labels_known(b->meta.lang))
    book_diag(b, BOOK_WARNING, NULL,
              "no labels for language '%s': octavo's own words (contents, colophon, page "
              "numbers) are in English",
              b->meta.lang);
  decide_dir(b);
  if (!b->meta.title || !*b->meta.title) {
    const Src *s = &c->srcs[0];
    /* a file name is bytes: as UTF-8 (U+FFFD for what is not), and text */
    char *base = s->canon ? g_filename_display_basename(s->canon) : g_strdup("stdin");
    book_utf8_fix_nonchars(base, -1, NULL, NULL);
    char *stem = md_strip_doc_ext(base);
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
      *dot = '\0';
    BookPos pos = {s->file, 0, 0};
    if (c->no_title_why)
      book_diag(b, BOOK_WARNING, &pos,
                "no title: %s, and no front matter, %% title block or -M title names one; "
                "using '%s'",
                c->no_title_why, stem);
    else
      book_diag(b, BOOK_WARNING, &pos,
                "no title (no # heading, front matter or -M title): using '%s'", stem);
    g_free(b->meta.title);
    b->meta.title = stem;
    g_free(base);
  }
}
