/* xhtml_notes.c: footnotes and print page breaks in the XHTML writer.
 *
 * Footnotes are gathered per chapter, at the end of the chapter of their
 * first reference: the note lives in the same content document as its
 * reference, so reading systems that pop notes up find the <aside> without
 * loading another document, those that do not show it at the end of the
 * chapter being read, and every chapter document stands on its own (also in
 * the fragment output).
 *
 * Page breaks: the print layout's page marks (BookPageMark: a node and a
 * byte offset in its text) become epub:type="pagebreak" spans, in reading
 * order, and the EPUB's page list (xhtml_writer_pages). */
#include "xhtml_internal.h"

#include "labels.h"

/* The writer's own ids (page breaks, note references) step aside when a
 * heading or note of the model has taken the same id: "-x" is appended
 * until it is free. Deterministic, and the book's id table is not changed. */
static void own_id(const XhtmlWriter *x, char *buf, size_t size)
{
  while (g_hash_table_contains(x->book->ids, buf) && strlen(buf) + 3 < size)
    g_strlcat(buf, "-x", size);
}

void xw_fnref_id(const XhtmlWriter *x, int number, int k, char *buf, size_t size)
{
  if (k > 1)
    g_snprintf(buf, size, "fnref-%d-%d", number, k);
  else
    g_snprintf(buf, size, "fnref-%d", number);
  own_id(x, buf, size);
}

/* ---- page breaks ---- */

static void write_pagebreak(XhtmlWriter *x, guint mark_index)
{
  /* Each page once, even if its node were written twice. */
  if (x->mark_done[mark_index])
    return;
  x->mark_done[mark_index] = 1;
  const BookPageMark *m = &g_array_index(x->page_marks, BookPageMark, mark_index);
  /* The page list follows the reading order: a page break that would come
   * after a later page's (in a note written at the chapter's end, say) is
   * left out rather than listed out of order. */
  if (x->pages->len && m->page <= g_array_index(x->pages, XhtmlPage, x->pages->len - 1).page)
    return;
  XhtmlPage p = {m->page, NULL, x->cur, {0}};
  g_snprintf(p.id, sizeof p.id, "page-%d", m->page);
  own_id(x, p.id, sizeof p.id);
  char num[16];
  g_snprintf(num, sizeof num, "%d", m->page);
  const char *label = m->label && *m->label ? m->label : num;
  start(x, "span");
  attr(x, "epub:type", "pagebreak");
  attr(x, "role", "doc-pagebreak");
  attr(x, "id", p.id);
  attr(x, "aria-label", label);
  end(x);
  p.label = label;
  g_array_append_val(x->pages, p);
}

static GArray *marks_of(XhtmlWriter *x, const BookNode *n)
{
  return x->marks ? g_hash_table_lookup(x->marks, n) : NULL;
}

/* Page breaks at the start of block or inline node n (offset 0). */
void xw_marks_at_start(XhtmlWriter *x, const BookNode *n)
{
  GArray *a = marks_of(x, n);
  for (guint i = 0; a && i < a->len; i++) {
    guint mi = g_array_index(a, guint, i);
    if (g_array_index(x->page_marks, BookPageMark, mi).offset == 0 || x->mark_moved[mi])
      write_pagebreak(x, mi);
  }
}

/* Bytes [a, b) of n's text: plain, or a code block's lines and tokens. */
static void text_piece(XhtmlWriter *x, const BookNode *n, const char *s, size_t a, size_t b)
{
  if (n->type == BOOK_CODE_BLOCK)
    xw_code_text(x, n, a, b);
  else
    text_len(x, s + a, b - a);
}

/* The text of n with its page breaks at their byte offsets (moved back to
 * a character boundary). */
void xw_text_marked(XhtmlWriter *x, const BookNode *n)
{
  const char *s = n->text ? n->text : "";
  size_t len = strlen(s), done = 0;
  GArray *a = marks_of(x, n);
  for (guint i = 0; a && i < a->len; i++) {
    guint mi = g_array_index(a, guint, i);
    size_t off = g_array_index(x->page_marks, BookPageMark, mi).offset;
    if (off == 0 || x->mark_moved[mi])
      continue; /* written by write_marks_at_start */
    if (off > len)
      off = len;
    while (off > done && (s[off] & 0xC0) == 0x80)
      off--;
    if (off < done)
      off = done;
    text_piece(x, n, s, done, off);
    done = off;
    write_pagebreak(x, mi);
  }
  text_piece(x, n, s, done, len);
}

static gint cmp_mark_offset(gconstpointer a, gconstpointer b, gpointer data)
{
  const GArray *marks = data;
  size_t oa = g_array_index(marks, BookPageMark, *(const guint *)a).offset;
  size_t ob = g_array_index(marks, BookPageMark, *(const guint *)b).offset;
  return oa < ob ? -1 : oa > ob;
}

static void free_array(gpointer p)
{
  g_array_free(p, TRUE);
}

/* The marks' indices at node n (created empty when new). */
static GArray *marks_at(XhtmlWriter *x, BookNode *n)
{
  GArray *a = g_hash_table_lookup(x->marks, n);
  if (!a) {
    a = g_array_new(FALSE, FALSE, sizeof(guint));
    g_hash_table_insert(x->marks, n, a);
  }
  return a;
}

/* One walk over the book's trees: which marked nodes are the book's own
 * (seen), and each note's first reference (first_ref: note -> node). */
static void find_nodes(XhtmlWriter *x, GHashTable *seen, GHashTable *first_ref)
{
  for (guint pass = 0; pass < 2; pass++) {
    GPtrArray *list = pass == 0 ? x->book->chapters : x->book->footnotes;
    for (guint i = 0; i < list->len; i++) {
      BookNode *root =
          pass == 0 ? ((BookChapter *)list->pdata[i])->root : ((BookFootnote *)list->pdata[i])->def;
      BookIter it;
      book_iter_init(&it, root);
      while (root && book_iter_next(&it) != BOOK_ITER_DONE) {
        if (it.ev != BOOK_ITER_ENTER)
          continue;
        BookNode *n = it.cur;
        if (n->type == BOOK_FOOTNOTE_REF && n->as.fnref.note && n->as.fnref.ref_index == 1)
          g_hash_table_insert(first_ref, n->as.fnref.note, n);
        if (pass == 0 && g_hash_table_contains(x->marks, n))
          g_hash_table_add(seen, n);
      }
    }
  }
}

/* A page break inside a note: the note is written at its chapter's end,
 * out of the pages' order, so the break moves to the note's first
 * reference (where the note's text begins on paper, or near it); if
 * that too would come out of order, write_pagebreak leaves it out. */
static void move_note_marks(XhtmlWriter *x, GHashTable *seen, GHashTable *first_ref)
{
  for (guint i = 0; i < x->book->footnotes->len; i++) {
    BookFootnote *f = x->book->footnotes->pdata[i];
    BookNode *ref = g_hash_table_lookup(first_ref, f);
    if (!f->def || !ref)
      continue;
    BookIter it;
    book_iter_init(&it, f->def);
    while (book_iter_next(&it) != BOOK_ITER_DONE) {
      GArray *a = it.ev == BOOK_ITER_ENTER ? g_hash_table_lookup(x->marks, it.cur) : NULL;
      if (!a || g_hash_table_contains(seen, it.cur))
        continue;
      GArray *to = marks_at(x, ref);
      for (guint k = 0; k < a->len; k++) {
        guint mi = g_array_index(a, guint, k);
        x->mark_moved[mi] = 1;
        g_array_append_val(to, mi);
      }
      g_hash_table_add(seen, ref);
    }
  }
}

void xw_index_marks(XhtmlWriter *x)
{
  const GArray *page_marks = x->page_marks;
  if (!page_marks || !page_marks->len)
    return;
  x->marks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_array);
  x->mark_done = g_new0(guint8, page_marks->len);
  x->mark_moved = g_new0(guint8, page_marks->len);
  for (guint i = 0; i < page_marks->len; i++) {
    const BookPageMark *m = &g_array_index(page_marks, BookPageMark, i);
    if (m->node)
      g_array_append_val(marks_at(x, m->node), i);
  }
  /* Keep only marks on nodes of this book's trees: a mark is a pointer
   * from another stage, and one that points elsewhere must not become
   * a page break (nor be dereferenced). */
  GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  GHashTable *first_ref =
      g_hash_table_new(g_direct_hash, g_direct_equal); /* note -> its reference 1 */
  find_nodes(x, seen, first_ref);
  move_note_marks(x, seen, first_ref);
  g_hash_table_destroy(first_ref);
  GHashTableIter hi;
  gpointer k, v;
  g_hash_table_iter_init(&hi, x->marks);
  while (g_hash_table_iter_next(&hi, &k, &v)) {
    if (!g_hash_table_contains(seen, k))
      g_hash_table_iter_remove(&hi);
    else
      g_array_sort_with_data(v, cmp_mark_offset, (gpointer)page_marks);
  }
  g_hash_table_destroy(seen);
}

/* The chapter holding the footnote reference with this id ("fnref-N" or
 * "fnref-N-K"), from one walk over the book made when first needed. */
static BookChapter *ref_chapter(XhtmlWriter *x, const char *id)
{
  if (!x->refs) {
    x->refs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    guint nc = x->book->chapters->len, nf = x->book->footnotes->len;
    for (guint i = 0; i < nc + nf; i++) {
      /* Chapters, then notes (a reference inside a note stands where the
       * note is written). */
      BookFootnote *f = i < nc ? NULL : x->book->footnotes->pdata[i - nc];
      BookChapter *c = f ? f->chapter : x->book->chapters->pdata[i];
      if (!c || (f && !f->def))
        continue;
      BookIter it;
      book_iter_init(&it, f ? f->def : c->root);
      while (book_iter_next(&it) != BOOK_ITER_DONE) {
        BookNode *n = it.cur;
        if (it.ev != BOOK_ITER_ENTER || n->type != BOOK_FOOTNOTE_REF || !n->as.fnref.note)
          continue;
        char kb[64];
        xw_fnref_id(x, n->as.fnref.note->number, n->as.fnref.ref_index, kb, sizeof kb);
        char *k = g_strdup(kb);
        if (!g_hash_table_contains(x->refs, k))
          g_hash_table_insert(x->refs, k, c);
        else
          g_free(k);
      }
    }
  }
  return g_hash_table_lookup(x->refs, id);
}

/* The note's number, as the link back to its first reference. */
void xw_note_label(XhtmlWriter *x, const BookFootnote *f)
{
  char id[48], num[24], label[64];
  xw_fnref_id(x, f->number, 1, id, sizeof id);
  g_snprintf(num, sizeof num, "%d.", f->number);
  g_snprintf(label, sizeof label, "%s %d",
             labels_get(xhtml_book_lang(x->book, x->opts), LABEL_BACK), f->number);
  BookChapter *c = ref_chapter(x, id);
  char *href = c ? xw_internal_href(x, c, id) : NULL;
  if (href) {
    start(x, "a");
    attr(x, "class", "footnote-label");
    attr(x, "role", "doc-backlink");
    attr(x, "href", href);
    attr(x, "aria-label", label);
  } else {
    start(x, "span");
    attr(x, "class", "footnote-label");
  }
  text(x, num);
  end(x);
  text(x, " ");
  g_free(href);
}

/* The links back from note f to its second and later references (the
 * first is the note's number, write_note_label). */
void xw_backlinks(XhtmlWriter *x, const BookFootnote *f)
{
  for (int k = 2; k <= f->nrefs; k++) {
    char id[48], label[64];
    xw_fnref_id(x, f->number, k, id, sizeof id);
    g_snprintf(label, sizeof label, "%s %d (%d)",
               labels_get(xhtml_book_lang(x->book, x->opts), LABEL_BACK), f->number, k);
    /* A reference may stand in another chapter than the note. */
    BookChapter *c = ref_chapter(x, id);
    if (!c)
      continue;
    char *frag = g_strdup(id);
    char *href = xw_internal_href(x, c, frag);
    text(x, " ");
    start(x, "a");
    attr(x, "class", "footnote-back");
    attr(x, "role", "doc-backlink");
    attr(x, "href", href);
    attr(x, "aria-label", label);
    text(x, "\xe2\x86\x91"); /* U+2191: Charis SIL has it, it has no U+21A9 */
    if (k > 1) {
      char sup[16];
      g_snprintf(sup, sizeof sup, "%d", k);
      start(x, "sup");
      text(x, sup);
      end(x);
    }
    end(x);
    g_free(href);
    g_free(frag);
  }
}

/* The notes whose first reference is in chapter c, as EPUB 3 footnotes. */
void xw_notes(XhtmlWriter *x, BookChapter *c)
{
  bool any = false;
  for (guint i = 0; i < x->book->footnotes->len; i++) {
    BookFootnote *f = x->book->footnotes->pdata[i];
    if (f->chapter != c || f->nrefs == 0 || !f->def)
      continue;
    if (!any) {
      start(x, "div");
      attr(x, "class", "footnotes");
      nl(x);
      any = true;
    }
    start(x, "aside");
    attr(x, "epub:type", "footnote");
    attr(x, "role", "doc-footnote");
    attr(x, "id", f->id);
    nl(x);
    xw_tree(x, f->def, f);
    end(x);
    nl(x);
  }
  if (any) {
    end(x);
    nl(x);
  }
}
