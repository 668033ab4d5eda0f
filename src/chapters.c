/* chapters.c: chapters, ids and footnote numbers.
 *
 * What it does: takes each input's converted tree apart into chapters (the
 * first H1 as the book's title with its byline, a chapter per heading of
 * level <= --split-level at the top), gives every heading a unique id (a
 * slug) and reserves raw-HTML ids, and numbers footnotes in order of first
 * reference.  What it does not do: resolve links (resolve.c).
 */
#include "front.h"

#include "sanitize.h"

#include <string.h>

/* Plain text of a node with runs of white space collapsed. Caller frees. */
char *md_plain_text(const BookNode *n)
{
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

static BookChapter *new_chapter(Ctx *c, Src *s, BookNode *heading, const BookNode *first)
{
  BookChapter *ch = book_chapter_add(c->book, s->file);
  char *base = g_strdup_printf("ch%02d", ch->index + 1);
  ch->id = book_id_reserve(c->book, base);
  g_free(base);
  ch->root->pos = first->pos;
  if (heading) {
    ch->heading = heading;
    ch->title = md_plain_text(heading);
  }
  if (!s->first)
    s->first = ch;
  return ch;
}

static void attr_remove(BookNode *n, char **a)
{
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
static void assign_ids(Ctx *c, Src *s, BookNode *tree, BookChapter *ch)
{
  BookIter it;
  book_iter_init(&it, tree);
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    if (it.ev != BOOK_ITER_ENTER)
      continue;
    BookNode *n = it.cur;
    if (n->type == BOOK_HEADING) {
      char *text = md_plain_text(n);
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
          book_diag(c->book, BOOK_WARNING, &n->pos, "raw HTML: dropped id '%s', already in use",
                    a[1]);
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

/* Does blk show anything: text, code, an image, a rule, a table, a list,
 * a footnote reference? (Raw HTML with nothing inside, an anchor, does not.) */
static bool has_content(const BookNode *blk)
{
  BookIter it;
  book_iter_init(&it, (BookNode *)blk);
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    const BookNode *n = it.cur;
    if (it.ev != BOOK_ITER_ENTER)
      continue;
    switch (n->type) {
    case BOOK_TEXT:
      for (const char *p = n->text; p && *p; p++)
        if (!g_ascii_isspace(*p))
          return true;
      break;
    case BOOK_CODE:
    case BOOK_CODE_BLOCK:
    case BOOK_IMAGE:
    case BOOK_THEMATIC_BREAK:
    case BOOK_TABLE:
    case BOOK_LIST:
    case BOOK_FOOTNOTE_REF: return true;
    case BOOK_HTML_BLOCK:
    case BOOK_HTML_INLINE:
      if (san_element_is_void(n->as.html.tag))
        return true;
      break;
    default: break;
    }
  }
  return false;
}

/* The heading levels in a book project's chapter below its opening
 * heading (already taken out of root): shifted as that heading is, from
 * src_level to level (without one, as if `#` were the chapter's), and
 * always below it. */
static void chapter_levels(BookNode *root, int src_level, int level)
{
  int shift = level - src_level;
  BookIter it;
  book_iter_init(&it, root);
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (it.ev != BOOK_ITER_ENTER)
      continue;
    if (book_node_is_inline(n->type)) {
      book_iter_skip_children(&it);
      continue;
    }
    if (n->type != BOOK_HEADING)
      continue;
    n->as.heading.level = CLAMP(n->as.heading.level + shift, MIN(level + 1, 6), 6);
    book_iter_skip_children(&it);
  }
}

/* A book project's chapter (Src.chapter, a SUMMARY.md entry): the whole
 * source is one chapter. Its heading is the heading that opens it (blocks
 * that show nothing may come first: they follow it), else one made of its
 * contents title; it stands at the chapter level whatever its depth in
 * SUMMARY.md (the chapter's nest places it in the contents). */
static void whole_chapter(Ctx *c, Src *s)
{
  int level = c->opts->split_level > 0 ? c->opts->split_level : 2;
  BookNode *open = NULL;
  for (BookNode *b = s->root->first_child; b && !open; b = b->next) {
    if (b->type == BOOK_HEADING)
      open = b;
    else if (has_content(b))
      break;
  }
  BookPos pos = s->root->first_child ? s->root->first_child->pos : s->root->pos;
  int src_level = 1;
  if (open) {
    src_level = open->as.heading.level;
    book_node_unlink(open);
  } else {
    open = md_parse_inlines(c, s->title ? s->title : "", &pos);
    open->type = BOOK_HEADING;
  }
  chapter_levels(s->root, src_level, level);
  open->as.heading.level = level;
  BookChapter *ch = new_chapter(c, s, open, open);
  c->chapter_heading_seen = true;
  book_node_append(ch->root, open);
  for (BookNode *b; (b = s->root->first_child);) {
    book_node_unlink(b);
    book_node_append(ch->root, b);
  }
  ch->nest = s->nest;
  ch->number = g_strdup(s->number);
  if (s->title)
    ch->toc = md_parse_inlines(c, s->title, &pos);
  assign_ids(c, s, ch->root, ch);
  for (guint i = 0; i < s->notes->len; i++) {
    BookFootnote *f = s->notes->pdata[i];
    if (f && f->def)
      assign_ids(c, s, f->def, NULL);
  }
}

void md_split_chapters(Ctx *c, Src *s, bool first_src)
{
  int split = c->opts->split_level > 0 ? c->opts->split_level : 2;
  if (s->chapter) {
    whole_chapter(c, s);
    return;
  }
  BookChapter *ch = NULL;
  guint first_index = c->book->chapters->len;
  bool after_title = false;
  /* Blocks with nothing to show before the first chapter heading join
   * that chapter (after its heading): no chapter without heading and text. */
  GPtrArray *pending = g_ptr_array_new();
  BookNode *blk;
  while ((blk = s->root->first_child)) {
    book_node_unlink(blk);
    bool byline_ok = after_title;
    after_title = false;
    if (blk->type == BOOK_HEADING) {
      int level = blk->as.heading.level;
      if (level == 1 && first_src && !c->first_h1_seen && !c->chapter_heading_seen) {
        c->first_h1_seen = true;
        /* Only a heading that opens the text is the book's title: one after
         * text (a README's badges and contents list, then "# INSTALLATION")
         * stays a heading where it stands, as pandoc keeps it. */
        if (!c->title_known && !ch) {
          char *title = md_plain_text(blk);
          md_layer_set(&c->doc, K_TITLE, title);
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
        for (guint i = 0; i < pending->len; i++)
          book_node_append(ch->root, pending->pdata[i]);
        g_ptr_array_set_size(pending, 0);
        continue;
      }
    }
    if (byline_ok && blk->type == BOOK_PARAGRAPH && md_byline(c, blk)) {
      book_node_free(blk);
      continue;
    }
    if (!ch && !has_content(blk)) {
      g_ptr_array_add(pending, blk);
      continue;
    }
    if (!ch) {
      ch = new_chapter(c, s, NULL, pending->len ? pending->pdata[0] : blk);
      for (guint i = 0; i < pending->len; i++)
        book_node_append(ch->root, pending->pdata[i]);
      g_ptr_array_set_size(pending, 0);
    }
    book_node_append(ch->root, blk);
  }
  /* Nothing to show in the whole file: into the book's last chapter, or a
   * chapter of its own when it is the book's first. */
  if (pending->len) {
    BookChapter *last = c->book->chapters->len
                            ? g_ptr_array_index(c->book->chapters, c->book->chapters->len - 1)
                            : NULL;
    if (!last)
      last = new_chapter(c, s, NULL, pending->pdata[0]);
    for (guint i = 0; i < pending->len; i++) {
      book_node_append(last->root, pending->pdata[i]);
      if ((guint)last->index < first_index) /* a chapter of an earlier file: not walked below */
        assign_ids(c, s, pending->pdata[i], last);
    }
  }
  g_ptr_array_free(pending, TRUE);
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

/* ---- footnotes ---- */

static void number_refs(Ctx *c, BookNode *tree, BookChapter *ch)
{
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

void md_number_footnotes(Ctx *c)
{
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
      book_diag(b, BOOK_WARNING, &f->def->pos, "footnote [^%s] is never referenced",
                f->label ? f->label : "?");
    book_node_free(f->def);
    g_free(f->label);
    g_free(f);
  }
  g_ptr_array_set_size(c->pending, 0);
}
