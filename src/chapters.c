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
/* The ids the source gives its headings ({#id}), before any slug takes
 * them: in a clash the first keeps it and the others get -2, -3 (warned);
 * a link in the same file to #id goes to this file's heading. */
static void explicit_ids(Ctx *c, Src *s, BookNode *tree, BookChapter *ch)
{
  BookIter it;
  book_iter_init(&it, tree);
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (it.ev != BOOK_ITER_ENTER || n->type != BOOK_HEADING || !n->as.heading.explicit_id ||
        !n->as.heading.id)
      continue;
    char *want = n->as.heading.id;
    n->as.heading.id = book_id_reserve(c->book, want);
    if (strcmp(want, n->as.heading.id) != 0)
      book_diag(c->book, BOOK_WARNING, &n->pos, "heading id '%s' already in use: '%s' instead",
                want, n->as.heading.id);
    if (ch) {
      g_hash_table_insert(c->anchors, n->as.heading.id, ch);
      g_hash_table_replace(s->slugs, g_strdup(want), g_strdup(n->as.heading.id));
    }
    g_free(want);
  }
}

static void assign_ids(Ctx *c, Src *s, BookNode *tree, BookChapter *ch)
{
  BookIter it;
  book_iter_init(&it, tree);
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    if (it.ev != BOOK_ITER_ENTER)
      continue;
    BookNode *n = it.cur;
    if (n->type == BOOK_HEADING && n->as.heading.explicit_id) {
      continue;
    } else if (n->type == BOOK_HEADING) {
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

/* ---- the book's shape ---- */

/* The first block of tree that is a heading, or NULL. */
static BookNode *first_heading(BookNode *tree)
{
  for (BookNode *n = tree ? tree->first_child : NULL; n; n = n->next)
    if (n->type == BOOK_HEADING)
      return n;
  return NULL;
}

static BookNode *first_h1(BookNode *tree)
{
  for (BookNode *n = tree ? tree->first_child : NULL; n; n = n->next)
    if (n->type == BOOK_HEADING && n->as.heading.level == 1)
      return n;
  return NULL;
}

static int count_h1(const BookNode *tree)
{
  int n = 0;
  for (const BookNode *b = tree ? tree->first_child : NULL; b; b = b->next)
    n += b->type == BOOK_HEADING && b->as.heading.level == 1;
  return n;
}

/* Take heading h (and a byline right after it) out of its tree as the
 * book's title. */
static void take_title(Ctx *c, BookNode *h)
{
  char *title = md_plain_text(h);
  md_layer_set(&c->doc, K_TITLE, title);
  g_free(title);
  BookNode *next = h->next;
  book_node_unlink(h);
  book_node_free(h);
  if (next && next->type == BOOK_PARAGRAPH && md_byline(c, next)) {
    book_node_unlink(next);
    book_node_free(next);
  }
}

/* How many blocks before the first heading of tree show something. */
static int blocks_before(const BookNode *tree, const BookNode *h)
{
  int n = 0;
  for (const BookNode *b = tree->first_child; b && b != h; b = b->next)
    n += has_content(b);
  return n;
}

void md_decide_shape(Ctx *c)
{
  Book *b = c->book;
  bool project = false; /* an mdBook: parts are # and chapters ## by construction */
  int files = 0, h1 = 0;
  for (int i = 0; i < c->n; i++) {
    Src *s = &c->srcs[i];
    project |= s->heading_shift > 0 || s->chapter;
    files += s->root && s->root->first_child;
    h1 += count_h1(s->root);
  }
  /* A # line that opens every file alike is the book's (or series') title. */
  char *series = NULL;
  int opened = 0;
  for (int i = 0; i < c->n && !project && files >= 2; i++) {
    BookNode *h = first_heading(c->srcs[i].root);
    if (!c->srcs[i].root || !c->srcs[i].root->first_child)
      continue;
    char *t = h && h->as.heading.level == 1 ? md_plain_text(h) : NULL;
    bool same = t && (!series || strcmp(series, t) == 0);
    if (!same) {
      g_free(t);
      g_clear_pointer(&series, g_free);
      break;
    }
    if (!series)
      series = t;
    else
      g_free(t);
    opened++;
  }
  GString *why = g_string_new(NULL);
  if (series && opened >= 2) {
    if (!c->title_known) {
      md_layer_set(&c->doc, K_TITLE, series);
      c->title_taken = true;
    }
    for (int i = 0; i < c->n; i++) {
      BookNode *h = first_heading(c->srcs[i].root);
      if (h && h->as.heading.level == 1) {
        book_node_unlink(h);
        book_node_free(h);
      }
    }
    h1 -= opened;
    BookPos pos = {c->srcs[0].file, 0, 0};
    book_diag(b, BOOK_WARNING, &pos,
              "all %d files open with '# %s': %s, not a chapter of each (-M title=... sets "
              "another title)",
              opened, series, c->title_known ? "left out" : "taken as the book's title");
    g_string_append_printf(why, "every file opens with the series line '# %s'; ", series);
  }
  g_free(series);
  /* The chapter level: explicit, or # when the book has several # headings
   * (pandoc's books; each file opening with one), ## when it has one (the
   * report: its title) or none; an mdBook's parts and chapters are # and ##. */
  int given = c->opts->split_level;
  c->split = given > 0 ? given : project || h1 < 2 ? 2 : 1;
  if (given > 0)
    g_string_append_printf(why, "--split-level %d given; ", given);
  else if (project)
    g_string_append(why, "an mdBook: parts are # and SUMMARY's chapters ##; ");
  else
    g_string_append_printf(why, "%d # heading%s; ", h1, h1 == 1 ? "" : "s");
  /* The title: the single # heading of the first file with text, wherever
   * it stands (badges or a row of links may come first), unless the
   * metadata gives one or # headings are chapters. */
  Src *first = NULL;
  for (int i = 0; i < c->n && !first; i++)
    if (c->srcs[i].root && c->srcs[i].root->first_child)
      first = &c->srcs[i];
  BookNode *h = first && h1 == 1 ? first_h1(first->root) : NULL;
  if (!c->title_known && !c->title_taken && h && c->split == 1) {
    /* every # is a chapter: its one # names the book and stays its chapter */
    char *t = md_plain_text(h);
    md_layer_set(&c->doc, K_TITLE, t);
    g_string_append_printf(why, "the title is the # heading '%s', also a chapter", t);
    g_free(t);
    c->title_taken = true;
  } else if (!c->title_known && !c->title_taken && h) {
    int before = blocks_before(first->root, h);
    char *t = md_plain_text(h);
    if (before > 0) {
      book_diag(b, BOOK_WARNING, &h->pos,
                "the book's title is '%s', its one # heading, after %d block%s of text "
                "(-M title=... sets another)",
                t, before, before == 1 ? "" : "s");
    }
    g_string_append_printf(why, "the title is the # heading '%s'", t);
    g_free(t);
    take_title(c, h);
    c->title_taken = true;
    /* an article (the report): its one # heading names it and its ##
     * sections are the chapters; a book project's # lines are parts */
    b->article = !project && c->split == 2;
    if (b->article)
      g_string_append(why, "; an article: its chapters run on in print");
  } else if (!c->title_known && !c->title_taken) {
    c->no_title_why =
        c->split == 1 && h1 >= 2 ? g_strdup_printf("its %d # headings start chapters", h1) : NULL;
    g_string_append(why, "no title among the headings");
  } else {
    g_string_append(why, c->title_taken ? "the title from the series line"
                                        : "the title from the metadata");
  }
  if (given <= 0 && c->split == 1)
    book_diag(b, BOOK_WARNING, NULL,
              "%d # headings: each starts a chapter, ## headings are sections "
              "(--split-level 2 makes them chapters too)",
              h1);
  b->chapter_level = c->split;
  g_free(b->shape_note);
  b->shape_note = g_strdup_printf("chapters at level %d (%s)", c->split, why->str);
  g_string_free(why, TRUE);
}

/* No level skipped below a chapter's heading: each section heading at the
 * chapter's top level is one level below the heading it nests in (## then
 * #### reads as ## then ###), as a reader's outline (Ace's) wants; the
 * heading's own depth in the source only says what it nests in. */
static void normalize_levels(BookChapter *ch, int split)
{
  int orig[8], norm[8], depth = 0;
  int base = ch->heading ? ch->heading->as.heading.level : split;
  for (BookNode *n = ch->root->first_child; n; n = n->next) {
    if (n->type != BOOK_HEADING || n == ch->heading)
      continue;
    int level = n->as.heading.level;
    while (depth > 0 && orig[depth - 1] >= level)
      depth--;
    int parent = depth ? norm[depth - 1] : base;
    int want = MIN(level, MIN(parent + 1, 6));
    if (depth < 8) {
      orig[depth] = level;
      norm[depth] = want;
      depth++;
    }
    n->as.heading.level = want;
  }
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
  int level = c->split;
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
  book_node_append(ch->root, open);
  for (BookNode *b; (b = s->root->first_child);) {
    book_node_unlink(b);
    book_node_append(ch->root, b);
  }
  ch->nest = s->nest;
  ch->number = g_strdup(s->number);
  if (s->title)
    ch->toc = md_parse_inlines(c, s->title, &pos);
  /* the file's {#id}s first, so that no slug of an earlier heading takes one */
  explicit_ids(c, s, ch->root, ch);
  for (guint i = 0; i < s->notes->len; i++) {
    BookFootnote *f = s->notes->pdata[i];
    if (f && f->def)
      explicit_ids(c, s, f->def, NULL);
  }
  normalize_levels(ch, level);
  assign_ids(c, s, ch->root, ch);
  for (guint i = 0; i < s->notes->len; i++) {
    BookFootnote *f = s->notes->pdata[i];
    if (f && f->def)
      assign_ids(c, s, f->def, NULL);
  }
}

void md_split_chapters(Ctx *c, Src *s)
{
  int split = c->split;
  if (s->chapter) {
    whole_chapter(c, s);
    return;
  }
  BookChapter *ch = NULL;
  guint first_index = c->book->chapters->len;
  /* Blocks with nothing to show before the first chapter heading join
   * that chapter (after its heading): no chapter without heading and text. */
  GPtrArray *pending = g_ptr_array_new();
  BookNode *blk;
  while ((blk = s->root->first_child)) {
    book_node_unlink(blk);
    if (blk->type == BOOK_HEADING && blk->as.heading.level <= split) {
      ch = new_chapter(c, s, blk, blk);
      book_node_append(ch->root, blk);
      for (guint i = 0; i < pending->len; i++)
        book_node_append(ch->root, pending->pdata[i]);
      g_ptr_array_set_size(pending, 0);
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
      if ((guint)last->index < first_index) { /* a chapter of an earlier file: not walked below */
        explicit_ids(c, s, pending->pdata[i], last);
        assign_ids(c, s, pending->pdata[i], last);
      }
    }
  }
  g_ptr_array_free(pending, TRUE);
  /* the file's {#id}s first, so that no slug of an earlier heading takes one */
  for (guint i = first_index; i < c->book->chapters->len; i++) {
    BookChapter *chi = c->book->chapters->pdata[i];
    explicit_ids(c, s, chi->root, chi);
  }
  for (guint i = 0; i < s->notes->len; i++) {
    BookFootnote *f = s->notes->pdata[i];
    if (f && f->def)
      explicit_ids(c, s, f->def, NULL);
  }
  for (guint i = first_index; i < c->book->chapters->len; i++) {
    BookChapter *chi = c->book->chapters->pdata[i];
    normalize_levels(chi, split);
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
