/* book.c: the document model — construction, ids, diagnostics, iteration,
 * the model dump, and freeing. No parsing and no output formats here. */
#include "book.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const type_names[BOOK_NODE_TYPE_COUNT] = {
    [BOOK_ROOT] = "root",
    [BOOK_HEADING] = "heading",
    [BOOK_PARAGRAPH] = "paragraph",
    [BOOK_LIST] = "list",
    [BOOK_ITEM] = "item",
    [BOOK_BLOCKQUOTE] = "blockquote",
    [BOOK_CODE_BLOCK] = "code_block",
    [BOOK_THEMATIC_BREAK] = "thematic_break",
    [BOOK_TABLE] = "table",
    [BOOK_TABLE_ROW] = "table_row",
    [BOOK_TABLE_CELL] = "table_cell",
    [BOOK_FOOTNOTE_DEF] = "footnote_def",
    [BOOK_FIGURE] = "figure",
    [BOOK_FIGCAPTION] = "figcaption",
    [BOOK_HTML_BLOCK] = "html_block",
    [BOOK_DEFLIST] = "deflist",
    [BOOK_DEFTERM] = "defterm",
    [BOOK_DEFDESC] = "defdesc",
    [BOOK_TEXT] = "text",
    [BOOK_EMPH] = "emph",
    [BOOK_STRONG] = "strong",
    [BOOK_STRIKE] = "strike",
    [BOOK_CODE] = "code",
    [BOOK_LINK] = "link",
    [BOOK_IMAGE] = "image",
    [BOOK_FOOTNOTE_REF] = "footnote_ref",
    [BOOK_SOFTBREAK] = "softbreak",
    [BOOK_LINEBREAK] = "linebreak",
    [BOOK_HTML_INLINE] = "html_inline",
};

const char *book_node_type_name(BookNodeType type)
{
  return type < BOOK_NODE_TYPE_COUNT ? type_names[type] : "?";
}

bool book_code_marked(const BookNode *n, guint line, guint *at)
{
  const guint *m = n->as.code.marked;
  while (*at < n->as.code.nmarked && m[2 * *at + 1] < line)
    ++*at;
  return *at < n->as.code.nmarked && m[2 * *at] <= line;
}

bool book_code_numbered(const BookNode *n, bool dflt)
{
  return n->as.code.linenos == BOOK_LINENOS_ON ||
         (n->as.code.linenos == BOOK_LINENOS_DEFAULT && dflt);
}

const char *book_tok_name(BookTokClass c)
{
  static const char *const names[BOOK_TOK_COUNT] = {
      [BOOK_TOK_PLAIN] = "plain",         [BOOK_TOK_KEYWORD] = "keyword",
      [BOOK_TOK_TYPE] = "type",           [BOOK_TOK_FUNCTION] = "function",
      [BOOK_TOK_MACRO] = "macro",         [BOOK_TOK_STRING] = "string",
      [BOOK_TOK_ESCAPE] = "escape",       [BOOK_TOK_NUMBER] = "number",
      [BOOK_TOK_CONSTANT] = "constant",   [BOOK_TOK_COMMENT] = "comment",
      [BOOK_TOK_OPERATOR] = "operator",   [BOOK_TOK_PUNCTUATION] = "punctuation",
      [BOOK_TOK_ATTRIBUTE] = "attribute", [BOOK_TOK_PROPERTY] = "property",
      [BOOK_TOK_TAG] = "tag",             [BOOK_TOK_HEADING] = "heading",
      [BOOK_TOK_EMPHASIS] = "emphasis",   [BOOK_TOK_STRONG] = "strong",
      [BOOK_TOK_LINK] = "link",           [BOOK_TOK_PROMPT] = "prompt",
      [BOOK_TOK_OUTPUT] = "output",       [BOOK_TOK_INSERTED] = "inserted",
      [BOOK_TOK_DELETED] = "deleted",     [BOOK_TOK_META] = "meta",
  };
  return (unsigned)c < BOOK_TOK_COUNT ? names[c] : "?";
}

int book_node_depth(const BookNode *n)
{
  int d = 0;
  for (const BookNode *p = n ? n->parent : NULL; p; p = p->parent)
    d++;
  return d;
}

bool book_node_is_inline(BookNodeType type)
{
  return type >= BOOK_TEXT && type < BOOK_NODE_TYPE_COUNT;
}

static bool is_leaf(BookNodeType type)
{
  switch (type) {
  case BOOK_TEXT:
  case BOOK_CODE:
  case BOOK_CODE_BLOCK:
  case BOOK_THEMATIC_BREAK:
  case BOOK_SOFTBREAK:
  case BOOK_LINEBREAK:
  case BOOK_FOOTNOTE_REF: return true;
  default: return false;
  }
}

Book *book_new(void)
{
  Book *b = g_new0(Book, 1);
  b->meta.authors = g_ptr_array_new_with_free_func(g_free);
  b->meta.subjects = g_ptr_array_new_with_free_func(g_free);
  b->chapters = g_ptr_array_new();
  b->footnotes = g_ptr_array_new();
  b->resources = g_ptr_array_new();
  b->diags = g_array_new(FALSE, TRUE, sizeof(BookDiag));
  b->diag_sinks = g_hash_table_new(NULL, NULL);
  pthread_mutex_init(&b->diag_lock, NULL);
  b->names = g_string_chunk_new(256);
  b->ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  b->id_next = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  b->sandbox = sandbox_new(0);
  b->chapter_level = 2;
  return b;
}

static void node_free_one(BookNode *n)
{
  g_free(n->text);
  switch (n->type) {
  case BOOK_HEADING:
    g_free(n->as.heading.id);
    g_strfreev(n->as.heading.attrs);
    break;
  case BOOK_CODE_BLOCK:
    g_free(n->as.code.info);
    g_free(n->as.code.lang);
    g_free(n->as.code.tokens);
    g_free(n->as.code.marked);
    break;
  case BOOK_TABLE: g_free(n->as.table.align); break;
  case BOOK_LINK:
    g_free(n->as.link.href);
    g_free(n->as.link.title);
    g_free(n->as.link.fragment);
    break;
  case BOOK_IMAGE:
    g_free(n->as.image.src);
    g_free(n->as.image.title);
    break;
  case BOOK_FIGURE: g_free(n->as.figure.file_name); break;
  case BOOK_HTML_BLOCK:
  case BOOK_HTML_INLINE:
    g_free(n->as.html.tag);
    g_strfreev(n->as.html.attrs);
    break;
  default: break;
  }
  g_free(n);
}

void book_node_free(BookNode *node)
{
  if (!node)
    return;
  /* Iterative post-order: descend to a leaf, free it, climb. */
  BookNode *stop = node->parent;
  BookNode *cur = node;
  while (cur) {
    if (cur->first_child) {
      cur = cur->first_child;
      continue;
    }
    BookNode *parent = cur->parent;
    BookNode *next = cur->next;
    if (parent && parent != stop) {
      parent->first_child = next;
      if (next)
        next->prev = NULL;
      else
        parent->last_child = NULL;
    }
    bool last = (cur == node);
    node_free_one(cur);
    if (last)
      break;
    cur = next ? next : parent;
  }
}

void book_resource_free(BookResource *r)
{
  if (!r)
    return;
  g_free(r->src);
  g_free(r->path);
  g_free(r->media_type);
  g_free(r->href);
  g_free(r);
}

void book_free(Book *b)
{
  if (!b)
    return;
  for (guint i = 0; i < b->chapters->len; i++) {
    BookChapter *c = b->chapters->pdata[i];
    book_node_free(c->root);
    book_node_free(c->toc);
    g_free(c->id);
    g_free(c->title);
    g_free(c->number);
    g_free(c);
  }
  for (guint i = 0; i < b->footnotes->len; i++) {
    BookFootnote *f = b->footnotes->pdata[i];
    book_node_free(f->def);
    g_free(f->label);
    g_free(f->id);
    g_free(f);
  }
  for (guint i = 0; i < b->resources->len; i++)
    book_resource_free(b->resources->pdata[i]);
  book_resource_free(b->cover);
  sandbox_free(b->sandbox);
  g_free(b->shape_note);
  for (guint i = 0; i < b->diags->len; i++)
    g_free(g_array_index(b->diags, BookDiag, i).message);
  BookMeta *m = &b->meta;
  g_free(m->title);
  g_free(m->subtitle);
  g_free(m->date);
  g_free(m->lang);
  g_free(m->identifier);
  g_free(m->publisher);
  g_free(m->description);
  g_free(m->rights);
  g_free(m->source);
  g_free(m->cover);
  g_free(m->dir);
  g_ptr_array_free(m->authors, TRUE);
  g_ptr_array_free(m->subjects, TRUE);
  g_ptr_array_free(b->chapters, TRUE);
  g_ptr_array_free(b->footnotes, TRUE);
  g_ptr_array_free(b->resources, TRUE);
  g_array_free(b->diags, TRUE);
  g_hash_table_destroy(b->diag_sinks);
  pthread_mutex_destroy(&b->diag_lock);
  g_string_chunk_free(b->names);
  g_hash_table_destroy(b->ids);
  g_hash_table_destroy(b->id_next);
  g_free(b);
}

const char *book_intern(Book *b, const char *name)
{
  return name ? g_string_chunk_insert_const(b->names, name) : NULL;
}

BookNode *book_node_new(Book *b, BookNodeType type, const BookPos *pos)
{
  BookNode *n = g_new0(BookNode, 1);
  n->type = type;
  if (pos)
    n->pos = *pos;
  n->serial = ++b->next_serial;
  return n;
}

void book_node_append(BookNode *parent, BookNode *child)
{
  g_assert(!child->parent && !child->prev && !child->next);
  child->parent = parent;
  child->prev = parent->last_child;
  if (parent->last_child)
    parent->last_child->next = child;
  else
    parent->first_child = child;
  parent->last_child = child;
}

void book_node_insert_before(BookNode *sibling, BookNode *node)
{
  g_assert(!node->parent && !node->prev && !node->next);
  node->parent = sibling->parent;
  node->next = sibling;
  node->prev = sibling->prev;
  if (sibling->prev)
    sibling->prev->next = node;
  else if (sibling->parent)
    sibling->parent->first_child = node;
  sibling->prev = node;
}

void book_node_unlink(BookNode *n)
{
  if (n->prev)
    n->prev->next = n->next;
  else if (n->parent)
    n->parent->first_child = n->next;
  if (n->next)
    n->next->prev = n->prev;
  else if (n->parent)
    n->parent->last_child = n->prev;
  n->parent = n->prev = n->next = NULL;
}

void book_node_unwrap(BookNode *n)
{
  BookNode *k;
  while ((k = n->first_child)) {
    book_node_unlink(k);
    book_node_insert_before(n, k);
  }
  book_node_unlink(n);
  book_node_free(n);
}

/* book_text_dir, with *stop set when the text is not valid UTF-8 (its
 * direction is 0, whatever follows). */
static int text_dir(const char *s, size_t len, bool *stop)
{
  *stop = false;
  for (const char *p = s, *end = s + len; p < end; p = g_utf8_next_char(p)) {
    gunichar c = g_utf8_get_char_validated(p, end - p);
    if (c == (gunichar)-1 || c == (gunichar)-2) {
      *stop = true;
      return 0;
    }
    if (!g_unichar_isalpha(c))
      continue;
    switch (g_unichar_get_script(c)) {
    case G_UNICODE_SCRIPT_ARABIC:
    case G_UNICODE_SCRIPT_HEBREW:
    case G_UNICODE_SCRIPT_SYRIAC:
    case G_UNICODE_SCRIPT_THAANA:
    case G_UNICODE_SCRIPT_NKO:
    case G_UNICODE_SCRIPT_SAMARITAN:
    case G_UNICODE_SCRIPT_MANDAIC:
    case G_UNICODE_SCRIPT_ADLAM:
    case G_UNICODE_SCRIPT_HANIFI_ROHINGYA:
    case G_UNICODE_SCRIPT_MENDE_KIKAKUI:
    case G_UNICODE_SCRIPT_IMPERIAL_ARAMAIC:
    case G_UNICODE_SCRIPT_PHOENICIAN: return 1;
    case G_UNICODE_SCRIPT_COMMON:
    case G_UNICODE_SCRIPT_INHERITED: continue;
    default: return -1;
    }
  }
  return 0;
}

int book_text_dir(const char *s, size_t len)
{
  bool stop;
  return text_dir(s, len, &stop);
}

/* The nodes book_node_text reads, in its order (a break is a space, which
 * is no strong character): a node's characters are whole, so the first
 * strong one of the text is the first of the first node that has one. */
int book_node_dir(const BookNode *node)
{
  BookIter it;
  book_iter_init(&it, (BookNode *)node);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    const BookNode *n = it.cur;
    if (ev != BOOK_ITER_ENTER || !n->text ||
        (n->type != BOOK_TEXT && n->type != BOOK_CODE && n->type != BOOK_CODE_BLOCK))
      continue;
    bool stop;
    int d = text_dir(n->text, strlen(n->text), &stop);
    if (d || stop)
      return d;
  }
  return 0;
}

void book_node_text(const BookNode *node, GString *out)
{
  BookIter it;
  book_iter_init(&it, (BookNode *)node);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    if (ev != BOOK_ITER_ENTER)
      continue;
    BookNode *n = it.cur;
    switch (n->type) {
    case BOOK_TEXT:
    case BOOK_CODE:
    case BOOK_CODE_BLOCK:
      if (n->text)
        g_string_append(out, n->text);
      break;
    case BOOK_SOFTBREAK:
    case BOOK_LINEBREAK: g_string_append_c(out, ' '); break;
    default: break;
    }
  }
}

BookChapter *book_chapter_add(Book *b, const char *source)
{
  BookChapter *c = g_new0(BookChapter, 1);
  c->index = (int)b->chapters->len;
  c->root = book_node_new(b, BOOK_ROOT, NULL);
  c->source = book_intern(b, source);
  g_ptr_array_add(b->chapters, c);
  return c;
}

char *book_id_reserve(Book *b, const char *base)
{
  const char *stem = (base && *base) ? base : "section";
  char *id = g_strdup(stem);
  if (g_hash_table_contains(b->ids, id)) {
    /* Resume counting where the last repeat of this stem stopped, so that
     * n repeats of one heading cost n, not n squared. */
    int n = GPOINTER_TO_INT(g_hash_table_lookup(b->id_next, stem));
    if (n < 2)
      n = 2;
    do {
      g_free(id);
      id = g_strdup_printf("%s-%d", stem, n++);
    } while (g_hash_table_contains(b->ids, id));
    g_hash_table_insert(b->id_next, g_strdup(stem), GINT_TO_POINTER(n));
  }
  g_hash_table_add(b->ids, g_strdup(id));
  return id;
}

char *book_fnref_dest(const BookFootnote *fn, int k)
{
  /* with a space, which no id holds: never a heading's or an anchor's */
  return g_strdup_printf("%s ref %d", fn->id, k);
}

char *book_slug(const char *text)
{
  GString *s = g_string_new(NULL);
  char *copy = g_strstrip(g_strdup(text ? text : ""));
  const char *p = copy;
  while (*p) {
    gunichar c = g_utf8_get_char_validated(p, -1);
    if (c == (gunichar)-1 || c == (gunichar)-2)
      break;
    if (c < 0x80 && g_ascii_isalnum(c)) { /* what the Unicode tests give for ASCII, cheaper */
      g_string_append_c(s, g_ascii_tolower((char)c));
    } else if (c >= 0x80 && (g_unichar_isalnum(c) || g_unichar_ismark(c))) {
      g_string_append_unichar(s, g_unichar_tolower(c));
    } else if (c == ' ' || c == '-' || c == '\t') {
      g_string_append_c(s, '-');
    } else if (c == '_') {
      g_string_append_c(s, '_');
    }
    p = g_utf8_next_char(p);
  }
  g_free(copy);
  /* An XML id may not start with a digit or '-'; XHTML ids in EPUB should be
   * valid NCNames. */
  if (s->len == 0)
    g_string_assign(s, "section");
  else if (!g_ascii_isalpha(s->str[0]) && !((guchar)s->str[0] >= 0x80))
    g_string_prepend(s, "s-");
  return g_string_free(s, FALSE);
}

const char *book_utf8_find_nonchar(const char *p, const char *end, gsize *len, gunichar *c)
{
  /* Valid UTF-8: 0xEF and 0xF0..0xF4 are lead bytes, never continuations. */
  for (const guchar *u = (const guchar *)p, *e = (const guchar *)end; u < e; u++) {
    /* eight bytes of ASCII at a time (nearly all of a Latin text): none of
     * them starts a noncharacter */
    guint64 w;
    while (e - u >= 8 && (memcpy(&w, u, 8), !(w & G_GUINT64_CONSTANT(0x8080808080808080))))
      u += 8;
    if (u >= e)
      break;
    if (*u == 0xEF && e - u >= 3 &&
        ((u[1] == 0xB7 && u[2] >= 0x90 && u[2] <= 0xAF) ||   /* U+FDD0..U+FDEF */
         (u[1] == 0xBF && (u[2] == 0xBE || u[2] == 0xBF)))) { /* U+FFFE, U+FFFF */
      *len = 3;
      *c = g_utf8_get_char((const char *)u);
      return (const char *)u;
    }
    if (*u >= 0xF0 && *u <= 0xF4 && e - u >= 4 && (u[1] & 0x0F) == 0x0F && u[2] == 0xBF &&
        (u[3] == 0xBE || u[3] == 0xBF)) { /* U+nFFFE, U+nFFFF */
      *len = 4;
      *c = g_utf8_get_char((const char *)u);
      return (const char *)u;
    }
  }
  return NULL;
}

int book_utf8_fix_nonchars(char *s, gssize len, gsize *new_len, gunichar *first)
{
  gsize n = len < 0 ? strlen(s) : (gsize)len;
  char *w = s, *r = s, *end = s + n;
  int count = 0;
  const char *hit;
  gsize hlen;
  gunichar c;
  while ((hit = book_utf8_find_nonchar(r, end, &hlen, &c))) {
    if (count++ == 0 && first)
      *first = c;
    memmove(w, r, (size_t)(hit - r));
    w += hit - r;
    memcpy(w, "\xEF\xBF\xBD", 3);
    w += 3;
    r = (char *)hit + hlen;
  }
  if (count) {
    memmove(w, r, (size_t)(end - r));
    w += end - r;
    if (len < 0 || w < end)
      *w = '\0';
  } else {
    w = end;
  }
  if (new_len)
    *new_len = (gsize)(w - s);
  return count;
}

void book_diag(Book *b, BookDiagLevel level, const BookPos *pos, const char *fmt, ...)
{
  BookDiag d = {.level = level};
  if (pos)
    d.pos = *pos;
  va_list ap;
  va_start(ap, fmt);
  d.message = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&b->diag_lock);
  GArray *sink = g_hash_table_lookup(b->diag_sinks, g_thread_self());
  g_array_append_val(sink ? sink : b->diags, d);
  pthread_mutex_unlock(&b->diag_lock);
}

void book_diag_capture(Book *b, GArray *sink)
{
  pthread_mutex_lock(&b->diag_lock);
  if (sink)
    g_hash_table_insert(b->diag_sinks, g_thread_self(), sink);
  else
    g_hash_table_remove(b->diag_sinks, g_thread_self());
  pthread_mutex_unlock(&b->diag_lock);
}

GArray *book_diag_capturing(Book *b)
{
  pthread_mutex_lock(&b->diag_lock);
  GArray *sink = g_hash_table_lookup(b->diag_sinks, g_thread_self());
  pthread_mutex_unlock(&b->diag_lock);
  return sink;
}

void book_diag_take(Book *b, GArray *sink)
{
  pthread_mutex_lock(&b->diag_lock);
  g_array_append_vals(b->diags, sink->data, sink->len);
  pthread_mutex_unlock(&b->diag_lock);
  g_array_set_size(sink, 0);
}

guint book_diag_count(const Book *b, BookDiagLevel level)
{
  guint n = 0;
  for (guint i = 0; i < b->diags->len; i++)
    if (g_array_index(b->diags, BookDiag, i).level == level)
      n++;
  return n;
}

guint book_diag_print(const Book *b, guint from, bool errors_only, FILE *out)
{
  for (guint i = from; i < b->diags->len; i++) {
    const BookDiag *d = &g_array_index(b->diags, BookDiag, i);
    if (errors_only && d->level != BOOK_ERROR)
      continue;
    const char *what = d->level == BOOK_ERROR ? "error" : "warning";
    if (d->pos.file && d->pos.line > 0)
      fprintf(out, "%s:%d:%d: %s: %s\n", d->pos.file, d->pos.line, d->pos.col > 0 ? d->pos.col : 1,
              what, d->message);
    else if (d->pos.file)
      fprintf(out, "%s: %s: %s\n", d->pos.file, what, d->message);
    else
      fprintf(out, "octavo: %s: %s\n", what, d->message);
  }
  return b->diags->len;
}

void book_iter_init(BookIter *it, BookNode *root)
{
  it->root = root;
  it->cur = NULL;
  it->ev = BOOK_ITER_DONE;
}

BookIterEvent book_iter_next(BookIter *it)
{
  if (!it->root)
    return BOOK_ITER_DONE;
  if (!it->cur) {
    it->cur = it->root;
    it->ev = BOOK_ITER_ENTER;
    return it->ev;
  }
  BookNode *n = it->cur;
  if (it->ev == BOOK_ITER_ENTER && !is_leaf(n->type)) {
    if (n->first_child) {
      it->cur = n->first_child;
      it->ev = BOOK_ITER_ENTER;
    } else {
      it->ev = BOOK_ITER_EXIT;
    }
    return it->ev;
  }
  /* n is done (a leaf entered, or a container exited). */
  if (n == it->root) {
    it->root = NULL;
    it->ev = BOOK_ITER_DONE;
    return it->ev;
  }
  if (n->next) {
    it->cur = n->next;
    it->ev = BOOK_ITER_ENTER;
  } else {
    it->cur = n->parent;
    it->ev = BOOK_ITER_EXIT;
  }
  return it->ev;
}

void book_iter_skip_children(BookIter *it)
{
  if (it->ev == BOOK_ITER_ENTER && !is_leaf(it->cur->type))
    it->ev = BOOK_ITER_EXIT;
}

/* ---- dump ---- */

static void dump_str(GString *out, const char *s)
{
  g_string_append_c(out, '"');
  for (const char *p = s ? s : ""; *p;) {
    size_t run = strcspn(p, "\"\\\n\t");
    g_string_append_len(out, p, (gssize)run);
    p += run;
    switch (*p) {
    case '"': g_string_append(out, "\\\""); break;
    case '\\': g_string_append(out, "\\\\"); break;
    case '\n': g_string_append(out, "\\n"); break;
    case '\t': g_string_append(out, "\\t"); break;
    default: continue; /* the end */
    }
    p++;
  }
  g_string_append_c(out, '"');
}

static const char *align_name(BookAlign a)
{
  switch (a) {
  case BOOK_ALIGN_LEFT: return "left";
  case BOOK_ALIGN_CENTER: return "center";
  case BOOK_ALIGN_RIGHT: return "right";
  default: return "none";
  }
}

static void dump_length(GString *out, const char *name, BookLength l)
{
  static const char *const units[] = {"", "px", "em", "%"};
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  if (l.unit == BOOK_LEN_NONE)
    return;
  g_string_append_printf(out, " %s=%s%s", name, g_ascii_formatd(num, sizeof num, "%g", l.value),
                         units[l.unit]);
}

static void dump_node_line(GString *out, const BookNode *n, int depth, bool pos)
{
  static const char indent[] = "                                                                ";
  for (int left = 2 * depth; left > 0; left -= (int)sizeof indent - 1)
    g_string_append_len(out, indent, MIN(left, (int)sizeof indent - 1));
  g_string_append(out, book_node_type_name(n->type));
  switch (n->type) {
  case BOOK_HEADING:
    g_string_append_printf(out, " level=%d id=", n->as.heading.level);
    dump_str(out, n->as.heading.id);
    for (char **a = n->as.heading.attrs; a && a[0] && a[1]; a += 2) {
      g_string_append_printf(out, " %s=", a[0]);
      dump_str(out, a[1]);
    }
    if (n->as.heading.unnumbered)
      g_string_append(out, " unnumbered");
    if (n->as.heading.unlisted)
      g_string_append(out, " unlisted");
    break;
  case BOOK_LIST:
    if (n->as.list.ordered)
      g_string_append_printf(out, " ordered start=%d delim='%c'", n->as.list.start,
                             n->as.list.delim ? n->as.list.delim : '.');
    else
      g_string_append(out, " bullet");
    g_string_append(out, n->as.list.tight ? " tight" : " loose");
    break;
  case BOOK_ITEM:
    if (n->as.item.task != BOOK_TASK_NONE)
      g_string_append(out, n->as.item.task == BOOK_TASK_DONE ? " task=done" : " task=open");
    break;
  case BOOK_CODE_BLOCK:
    if (n->as.code.info) {
      g_string_append(out, " info=");
      dump_str(out, n->as.code.info);
    }
    g_string_append_c(out, ' ');
    dump_str(out, n->text);
    if (n->as.code.lang && pos) {
      /* the tokens: CLASS@START+LEN, bytes of the text; not in the digest
       * (book_digest: the book's identifier is of its text, not of what a
       * grammar's version makes of it) */
      g_string_append_printf(out, " lang=%s tokens=", n->as.code.lang);
      for (guint i = 0; i < n->as.code.ntokens; i++) {
        const BookToken *t = &n->as.code.tokens[i];
        g_string_append_printf(out, "%s%s@%u+%u", i ? "," : "", book_tok_name(t->cls), t->start,
                               t->len);
      }
    }
    if (pos && n->as.code.linenos != BOOK_LINENOS_DEFAULT)
      g_string_append(out, n->as.code.linenos == BOOK_LINENOS_ON ? " linenos=on" : " linenos=off");
    if (pos && n->as.code.line_offset)
      g_string_append_printf(out, " from=%d", n->as.code.line_offset + 1);
    if (pos && n->as.code.nmarked) {
      g_string_append(out, " marked=");
      for (guint i = 0; i < n->as.code.nmarked; i++) {
        guint a = n->as.code.marked[2 * i], z = n->as.code.marked[2 * i + 1];
        g_string_append_printf(out, "%s%u", i ? "," : "", a);
        if (z != a)
          g_string_append_printf(out, "-%u", z);
      }
    }
    break;
  case BOOK_TABLE:
    g_string_append_printf(out, " cols=%d align=", n->as.table.ncols);
    for (int i = 0; i < n->as.table.ncols; i++)
      g_string_append_printf(out, "%s%s", i ? "," : "", align_name(n->as.table.align[i]));
    break;
  case BOOK_TABLE_ROW:
    if (n->as.row.header)
      g_string_append(out, " header");
    break;
  case BOOK_TEXT:
  case BOOK_CODE:
    g_string_append_c(out, ' ');
    dump_str(out, n->text);
    break;
  case BOOK_LINK:
    g_string_append(out, " href=");
    dump_str(out, n->as.link.href);
    if (n->as.link.internal) {
      g_string_append_printf(out, " -> %s", n->as.link.chapter ? n->as.link.chapter->id : "?");
      if (n->as.link.fragment)
        g_string_append_printf(out, "#%s", n->as.link.fragment);
    }
    if (n->as.link.title) {
      g_string_append(out, " title=");
      dump_str(out, n->as.link.title);
    }
    break;
  case BOOK_IMAGE:
    g_string_append(out, " src=");
    dump_str(out, n->as.image.src);
    if (n->as.image.res)
      g_string_append_printf(out, " -> %s", n->as.image.res->href);
    if (n->as.image.title) {
      g_string_append(out, " title=");
      dump_str(out, n->as.image.title);
    }
    dump_length(out, "width", n->as.image.width);
    dump_length(out, "height", n->as.image.height);
    dump_length(out, "max-width", n->as.image.max_width);
    break;
  case BOOK_FIGURE:
    if (n->as.figure.listing)
      g_string_append(out, " listing");
    if (n->as.figure.file_name) {
      g_string_append(out, " file=");
      dump_str(out, n->as.figure.file_name);
    }
    break;
  case BOOK_FOOTNOTE_REF:
    if (n->as.fnref.note)
      g_string_append_printf(out, " %d label=", n->as.fnref.note->number);
    dump_str(out, n->as.fnref.note ? n->as.fnref.note->label : "");
    break;
  case BOOK_HTML_BLOCK:
  case BOOK_HTML_INLINE:
    g_string_append_printf(out, " <%s", n->as.html.tag);
    for (char **a = n->as.html.attrs; a && a[0] && a[1]; a += 2) {
      g_string_append_printf(out, " %s=", a[0]);
      dump_str(out, a[1]);
    }
    g_string_append_c(out, '>');
    break;
  default: break;
  }
  if (pos && n->pos.line)
    g_string_append_printf(out, " @%d:%d", n->pos.line, n->pos.col);
  g_string_append_c(out, '\n');
}

/* With sum (book_digest), out is a buffer for the checksum: its bytes go
 * in when it has grown past 64 KiB (or when all is written), rather than
 * line by line; the digest is that of the whole stream either way. */
static void dump_flush(GString *out, GChecksum *sum, bool all)
{
  if (!sum || (!all && out->len < 65536))
    return;
  g_checksum_update(sum, (const guchar *)out->str, (gssize)out->len);
  g_string_truncate(out, 0);
}

/* The tree's lines into out; with sum (book_digest), the lines go into the
 * checksum instead (dump_flush), without their positions. */
static void dump_tree(GString *out, BookNode *root, int base, GChecksum *sum)
{
  BookIter it;
  book_iter_init(&it, root);
  int depth = base - 1;
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    if (ev == BOOK_ITER_ENTER) {
      depth++;
      dump_node_line(out, it.cur, depth, !sum);
      dump_flush(out, sum, false);
      if (is_leaf(it.cur->type))
        depth--;
    } else {
      depth--;
    }
  }
}

static void dump_meta_str(GString *out, const char *key, const char *val)
{
  if (!val)
    return;
  g_string_append_printf(out, "  %s: ", key);
  dump_str(out, val);
  g_string_append_c(out, '\n');
}

/* book_dump, or with sum the same without positions and file names into
 * the checksum (out: scratch). */
static void dump_book(const Book *b, GString *out, GChecksum *sum)
{
  const BookMeta *m = &b->meta;
  g_string_append(out, "book\n");
  dump_meta_str(out, "title", m->title);
  dump_meta_str(out, "subtitle", m->subtitle);
  for (guint i = 0; i < m->authors->len; i++)
    dump_meta_str(out, "author", m->authors->pdata[i]);
  dump_meta_str(out, "date", m->date);
  dump_meta_str(out, "lang", m->lang);
  dump_meta_str(out, "identifier", m->identifier);
  dump_meta_str(out, "publisher", m->publisher);
  dump_meta_str(out, "description", m->description);
  for (guint i = 0; i < m->subjects->len; i++)
    dump_meta_str(out, "subject", m->subjects->pdata[i]);
  dump_meta_str(out, "rights", m->rights);
  dump_meta_str(out, "source", m->source);
  dump_meta_str(out, "cover", m->cover);
  for (guint i = 0; i < b->chapters->len; i++) {
    const BookChapter *c = b->chapters->pdata[i];
    g_string_append_printf(out, "chapter %d id=", c->index);
    dump_str(out, c->id);
    g_string_append(out, " title=");
    if (c->title)
      dump_str(out, c->title);
    else
      g_string_append(out, "(opening)");
    if (!sum) {
      g_string_append(out, " source=");
      dump_str(out, c->source);
    }
    if (c->nest)
      g_string_append_printf(out, " nest=%d", c->nest);
    if (c->number) {
      g_string_append(out, " number=");
      dump_str(out, c->number);
    }
    g_string_append_c(out, '\n');
    dump_flush(out, sum, false);
    if (c->toc) {
      g_string_append(out, "  contents title\n");
      dump_flush(out, sum, false);
      dump_tree(out, c->toc, 2, sum);
    }
    dump_tree(out, c->root, 1, sum);
  }
  for (guint i = 0; i < b->footnotes->len; i++) {
    const BookFootnote *f = b->footnotes->pdata[i];
    g_string_append_printf(out, "footnote %d id=%s label=", f->number, f->id);
    dump_str(out, f->label);
    g_string_append_printf(out, " chapter=%s refs=%d\n", f->chapter ? f->chapter->id : "-",
                           f->nrefs);
    dump_flush(out, sum, false);
    if (f->def)
      dump_tree(out, f->def, 1, sum);
  }
  for (guint i = 0; i < b->resources->len; i++) {
    const BookResource *r = b->resources->pdata[i];
    if (sum)
      g_string_append_printf(out, "resource %s %s\n", r->href, r->media_type);
    else
      g_string_append_printf(out, "resource %s %s %s\n", r->href, r->media_type, r->src);
  }
  dump_flush(out, sum, true);
}

void book_dump(const Book *b, GString *out)
{
  dump_book(b, out, NULL);
}

void book_digest(const Book *b, GChecksum *sum)
{
  GString *scratch = g_string_sized_new(65536 + 4096);
  dump_book(b, scratch, sum);
  g_string_free(scratch, TRUE);
}

/* NUM before n's inlines: <span class="secno">NUM</span> and an en space. */
static void put_number(Book *book, BookNode *n, const char *num)
{
  BookNode *span = book_node_new(book, BOOK_HTML_INLINE, &n->pos);
  span->as.html.tag = g_strdup("span");
  span->as.html.attrs = g_new0(char *, 3);
  span->as.html.attrs[0] = g_strdup("class");
  span->as.html.attrs[1] = g_strdup("secno");
  BookNode *t = book_node_new(book, BOOK_TEXT, &n->pos);
  t->text = g_strdup(num);
  book_node_append(span, t);
  if (n->first_child) {
    BookNode *sp = book_node_new(book, BOOK_TEXT, &n->pos);
    sp->text = g_strdup("\u2002"); /* an en space, as LaTeX sets a gap after the number */
    book_node_insert_before(n->first_child, sp);
    book_node_insert_before(sp, span);
  } else {
    book_node_append(n, span);
  }
}

static void number_title(BookChapter *ch, const char *num)
{
  if (!ch->title)
    return;
  char *title = g_strconcat(num, "\u2002", ch->title, NULL);
  g_free(ch->title);
  ch->title = title;
}

/* A chapter with a number of its own (a book project's): the number on
 * its heading, its contents title and its title. */
static void number_own(Book *book, BookChapter *ch)
{
  put_number(book, ch->heading, ch->number);
  if (ch->toc)
    put_number(book, ch->toc, ch->number);
  number_title(ch, ch->number);
}

void book_number_headings(Book *book, int chapter_level, bool sections)
{
  bool own = false; /* the chapters have numbers of their own: only those are numbered */
  for (guint i = 0; i < book->chapters->len && !own; i++) {
    BookChapter *ch = book->chapters->pdata[i];
    own = ch->number && ch->heading;
  }
  if (own) {
    for (guint i = 0; i < book->chapters->len; i++) {
      BookChapter *ch = book->chapters->pdata[i];
      if (ch->number && ch->heading)
        number_own(book, ch);
    }
    return;
  }
  if (!sections)
    return;
  int count[6] = {0};
  bool in_chapter = false; /* a numbered chapter heading came after the last part heading */
  for (guint i = 0; i < book->chapters->len; i++) {
    BookChapter *ch = book->chapters->pdata[i];
    if (!ch->heading)
      in_chapter = false; /* the opening: its sections are not numbered */
    BookIter it;
    book_iter_init(&it, ch->root);
    BookIterEvent ev;
    while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
      if (ev != BOOK_ITER_ENTER)
        continue;
      BookNode *n = it.cur;
      if (n->type != BOOK_HEADING) {
        if (book_node_is_inline(n->type) || n->type == BOOK_CODE_BLOCK || n->type == BOOK_TABLE)
          book_iter_skip_children(&it);
        continue;
      }
      book_iter_skip_children(&it);
      if (n->parent != ch->root)
        continue; /* a heading inside a quote or a list is not a section */
      int depth = n->as.heading.level - chapter_level; /* 0: a chapter */
      if (depth < 0)
        in_chapter = false; /* a part: chapters go on counting, its own sections are not numbered */
      if (n->as.heading.unnumbered && depth >= 0) { /* {-}: no number, nor its sections */
        if (depth == 0)
          in_chapter = false;
        continue;
      }
      if (depth < 0 || !n->as.heading.id || (depth > 0 && !in_chapter))
        continue;
      in_chapter = true;
      count[depth]++;
      for (int k = depth + 1; k < 6; k++)
        count[k] = 0;
      GString *num = g_string_new(NULL);
      for (int k = 0; k <= depth; k++)
        g_string_append_printf(num, k ? ".%d" : "%d", count[k]);
      put_number(book, n, num->str);
      if (n == ch->heading)
        number_title(ch, num->str);
      g_string_free(num, TRUE);
    }
  }
}

int book_outline_level(BookOutlineLevels *o, int level)
{
  int src = CLAMP(level, 1, 6);
  while (o->n > 0 && o->src[o->n - 1] >= src)
    o->n--; /* source levels strictly increase along the stack: at most 6 */
  int out = src;
  if (o->n > 0 && out > o->out[o->n - 1] + 1)
    out = o->out[o->n - 1] + 1;
  o->src[o->n] = src;
  o->out[o->n] = out;
  o->n++;
  return out;
}

bool book_inline_blank(const BookNode *n)
{
  if (n->type == BOOK_SOFTBREAK)
    return true;
  if (n->type != BOOK_TEXT)
    return false;
  for (const char *p = n->text; p && *p; p++)
    if (!g_ascii_isspace(*p))
      return false;
  return true;
}
