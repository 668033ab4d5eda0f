/* archive_fig.c: /Alt on the Figure structure elements of cairo's PDF,
 * for archive.c (PDF/UA-1 7.3).
 *
 * cairo 1.16 passes no attributes to structure elements, so the mapping is
 * by order. cairo creates one StructElem per cairo_tag_begin, in the order
 * pdf.c calls it, which is the layout's item order. The layout opens a
 * Figure for each BOOK_FIGURE that holds an image, body figures in reading
 * order and footnote figures (inside a Note element) in note order. So the
 * n-th Figure tag of the layout outside a Note is the n-th body figure of
 * the model, the n-th inside a Note the n-th figure of the notes; the image
 * resource drawn inside the tag is checked against the model's, and on a
 * mismatch the first unused figure with that resource is taken. An inline
 * image with a file is drawn as a Figure of its own (layout/lines.c): the
 * image inside such a tag is matched to the model's inline images, in
 * document order, by resource and source position.
 *
 * The structure tree's Figures are found without walking the tree (118,000
 * elements on the benchmark book): only the pages where the layout draws a
 * Figure are looked up in the parent tree, whose entry lists the elements
 * of each marked-content sequence on the page; a Figure is such an element
 * or its ancestor. In the order of their first marked content they are the
 * order of the tags. When they are not one for each Figure tag of the
 * layout, a walk of the whole tree in preorder finds them instead. */
#include "archive_fig.h"

#include <string.h>

static void set_key(qpdf_data q, qpdf_oh dict, const char *key, qpdf_oh value)
{
  qpdf_oh_replace_key(q, dict, key, value);
  qpdf_oh_release(q, value);
}

typedef struct {
  const BookNode *img; /* the figure's BOOK_IMAGE */
  bool used;
} FigNode;

static void collect_figures(BookNode *root, GArray *out)
{
  BookIter it;
  book_iter_init(&it, root);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    if (ev != BOOK_ITER_ENTER || it.cur->type != BOOK_FIGURE)
      continue;
    const BookNode *img = it.cur->first_child;
    while (img && img->type != BOOK_IMAGE)
      img = img->next;
    if (img) {
      FigNode f = {img, false};
      g_array_append_val(out, f);
    }
    book_iter_skip_children(&it);
  }
}

/* The inline images with a file (each drawn as a Figure by lines.c) under
 * root, outside block figures, in document order. */
static void collect_inline(BookNode *root, GArray *out)
{
  BookIter it;
  book_iter_init(&it, root);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
    if (ev != BOOK_ITER_ENTER)
      continue;
    if (it.cur->type == BOOK_FIGURE) {
      book_iter_skip_children(&it);
    } else if (it.cur->type == BOOK_IMAGE && it.cur->as.image.res) {
      FigNode f = {it.cur, false};
      g_array_append_val(out, f);
    }
  }
}

static bool same_pos(const BookPos *a, const BookPos *b)
{
  return a->line == b->line && a->col == b->col &&
         (a->file == b->file || (a->file && b->file && !strcmp(a->file, b->file)));
}

/* The inline image drawn as the layout's image (res at pos): the next in
 * document order, else any unused one at that place; NULL when the image
 * is a block figure's. */
static const BookNode *take_inline(GArray *imgs, guint *next, const BookResource *res,
                                   const BookPos *pos)
{
  if (!res || !pos)
    return NULL;
  for (guint i = 0; i < imgs->len; i++) {
    FigNode *f = &g_array_index(imgs, FigNode, (*next + i) % imgs->len);
    if (!f->used && f->img->as.image.res == res && same_pos(&f->img->pos, pos)) {
      f->used = true;
      *next = (*next + i) % imgs->len + 1;
      return f->img;
    }
  }
  return NULL;
}

/* The alt text of img: its text, else its title, else its file name. */
static char *image_alt(const BookNode *img)
{
  GString *alt = g_string_new(NULL);
  if (img) {
    book_node_text(img, alt);
    if (!alt->len && img->as.image.title)
      g_string_append(alt, img->as.image.title);
    if (!alt->len && img->as.image.src) {
      char *base = g_path_get_basename(img->as.image.src);
      g_string_printf(alt, "Image %s", base);
      g_free(base);
    }
  }
  if (!alt->len)
    g_string_append(alt, "Image");
  return g_string_free(alt, FALSE);
}

static const BookNode *take_figure(GArray *figs, guint *next, const BookResource *res)
{
  if (*next < figs->len) {
    FigNode *f = &g_array_index(figs, FigNode, *next);
    if (!f->used && (!res || f->img->as.image.res == res)) {
      f->used = true;
      (*next)++;
      return f->img;
    }
  }
  for (guint i = 0; i < figs->len; i++) {
    FigNode *f = &g_array_index(figs, FigNode, i);
    if (!f->used && (!res || f->img->as.image.res == res)) {
      f->used = true;
      return f->img;
    }
  }
  return NULL;
}

/* The alt text of every Figure tag of the layout, in drawing order. */
static GPtrArray *figure_alts(const Book *book, const Layout *lay)
{
  GArray *body = g_array_new(FALSE, FALSE, sizeof(FigNode));
  GArray *notes = g_array_new(FALSE, FALSE, sizeof(FigNode));
  GArray *inl = g_array_new(FALSE, FALSE, sizeof(FigNode));
  for (guint i = 0; i < book->chapters->len; i++) {
    collect_figures(((BookChapter *)book->chapters->pdata[i])->root, body);
    collect_inline(((BookChapter *)book->chapters->pdata[i])->root, inl);
  }
  for (guint i = 0; i < book->footnotes->len; i++) {
    const BookFootnote *fn = book->footnotes->pdata[i];
    if (fn->def && fn->nrefs > 0) {
      collect_figures(fn->def, notes);
      collect_inline(fn->def, inl);
    }
  }
  GPtrArray *alts = g_ptr_array_new_with_free_func(g_free);
  guint next_body = 0, next_note = 0, next_inl = 0;
  int in_note = 0;
  for (guint p = 0; p < lay->pages->len; p++) {
    const LayPage *pg = lay->pages->pdata[p];
    for (guint k = 0; k < pg->items->len; k++) {
      const LayItem *it = &g_array_index(pg->items, LayItem, k);
      if (it->kind == LAY_TAG_END && !strcmp(it->tag, "Note") && in_note > 0)
        in_note--;
      if (it->kind != LAY_TAG_BEGIN)
        continue;
      if (!strcmp(it->tag, "Note")) {
        in_note++;
        continue;
      }
      if (strcmp(it->tag, "Figure"))
        continue;
      const BookResource *res = NULL;
      const BookPos *pos = NULL;
      for (guint j = k + 1; j < pg->items->len; j++) {
        const LayItem *in = &g_array_index(pg->items, LayItem, j);
        if (in->kind == LAY_TAG_END && !strcmp(in->tag, "Figure"))
          break;
        if (in->kind == LAY_IMAGE) {
          res = in->res;
          pos = &in->pos;
          break;
        }
      }
      const BookNode *img = take_inline(inl, &next_inl, res, pos);
      if (!img)
        img = in_note ? take_figure(notes, &next_note, res) : take_figure(body, &next_body, res);
      g_ptr_array_add(alts, image_alt(img));
    }
  }
  g_array_free(body, TRUE);
  g_array_free(notes, TRUE);
  g_array_free(inl, TRUE);
  return alts;
}

/* The structure elements in preorder whose /S is /Figure (handles the
 * caller releases). Reads the whole structure tree: only the fallback. */
static GArray *figures_in_preorder(qpdf_data q, qpdf_oh tree)
{
  GArray *figs = g_array_new(FALSE, FALSE, sizeof(qpdf_oh));
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(qpdf_oh));
  qpdf_oh k = qpdf_oh_get_key(q, tree, "/K");
  g_array_append_val(stack, k);
  while (stack->len) {
    qpdf_oh o = g_array_index(stack, qpdf_oh, stack->len - 1);
    g_array_set_size(stack, stack->len - 1);
    if (qpdf_oh_is_array(q, o)) {
      for (int i = qpdf_oh_get_array_n_items(q, o) - 1; i >= 0; i--) {
        qpdf_oh c = qpdf_oh_get_array_item(q, o, i);
        g_array_append_val(stack, c);
      }
    } else if (qpdf_oh_is_dictionary(q, o) && qpdf_oh_has_key(q, o, "/S")) {
      qpdf_oh s = qpdf_oh_get_key(q, o, "/S");
      if (qpdf_oh_is_name_and_equals(q, s, "/Figure")) {
        qpdf_oh f = qpdf_oh_new_object(q, o);
        g_array_append_val(figs, f);
      }
      qpdf_oh_release(q, s);
      qpdf_oh c = qpdf_oh_get_key(q, o, "/K");
      g_array_append_val(stack, c);
    }
    qpdf_oh_release(q, o);
  }
  g_array_free(stack, TRUE);
  return figs;
}

/* The value of key in a number tree (PDF 32000-1 §7.9.7), or null. */
static qpdf_oh num_tree_get(qpdf_data q, qpdf_oh node, long long key, int depth)
{
  qpdf_oh nums = qpdf_oh_get_key(q, node, "/Nums"), kids = qpdf_oh_get_key(q, node, "/Kids");
  qpdf_oh found = 0;
  if (qpdf_oh_is_array(q, nums)) { /* sorted pairs: binary search */
    int lo = 0, hi = qpdf_oh_get_array_n_items(q, nums) / 2;
    while (lo < hi && !found) {
      int mid = lo + (hi - lo) / 2;
      qpdf_oh k = qpdf_oh_get_array_item(q, nums, 2 * mid);
      long long v = qpdf_oh_is_integer(q, k) ? qpdf_oh_get_int_value(q, k) : key;
      qpdf_oh_release(q, k);
      if (v == key)
        found = qpdf_oh_get_array_item(q, nums, 2 * mid + 1);
      else if (v < key)
        lo = mid + 1;
      else
        hi = mid;
    }
  }
  int n = qpdf_oh_is_array(q, kids) && depth < 32 ? qpdf_oh_get_array_n_items(q, kids) : 0;
  for (int i = 0; i < n && !found; i++) {
    qpdf_oh kid = qpdf_oh_get_array_item(q, kids, i), lim = qpdf_oh_get_key(q, kid, "/Limits");
    qpdf_oh l0 = qpdf_oh_get_array_item(q, lim, 0), l1 = qpdf_oh_get_array_item(q, lim, 1);
    if (qpdf_oh_is_integer(q, l0) && qpdf_oh_is_integer(q, l1) &&
        qpdf_oh_get_int_value(q, l0) <= key && key <= qpdf_oh_get_int_value(q, l1))
      found = num_tree_get(q, kid, key, depth + 1);
    qpdf_oh_release(q, l0);
    qpdf_oh_release(q, l1);
    qpdf_oh_release(q, lim);
    qpdf_oh_release(q, kid);
  }
  qpdf_oh_release(q, nums);
  qpdf_oh_release(q, kids);
  return found ? found : qpdf_oh_new_null(q);
}

/* The Figure element that elem is or is inside, or 0. */
static qpdf_oh figure_of(qpdf_data q, qpdf_oh elem)
{
  qpdf_oh cur = qpdf_oh_new_object(q, elem);
  for (int depth = 0; depth < 64 && qpdf_oh_is_dictionary(q, cur); depth++) {
    qpdf_oh s = qpdf_oh_get_key(q, cur, "/S");
    bool fig = qpdf_oh_is_name_and_equals(q, s, "/Figure");
    qpdf_oh_release(q, s);
    if (fig)
      return cur;
    qpdf_oh up = qpdf_oh_get_key(q, cur, "/P");
    qpdf_oh_release(q, cur);
    cur = up;
  }
  qpdf_oh_release(q, cur);
  return 0;
}

/* The Figure elements with content on the pages where the layout draws a
 * Figure, in the order of their first marked content (page, then MCID):
 * the order in which pdf.c opened their tags. Reads only those pages'
 * entries of the parent tree and their elements' ancestors. */
static GArray *figures_on_pages(qpdf_data q, PdfUpdate *u, qpdf_oh tree, const Layout *lay)
{
  GArray *figs = g_array_new(FALSE, FALSE, sizeof(qpdf_oh));
  GHashTable *seen = g_hash_table_new(NULL, NULL);
  qpdf_oh ptree = qpdf_oh_get_key(q, tree, "/ParentTree");
  int open = 0;
  for (guint p = 0; p < lay->pages->len; p++) {
    const LayPage *pg = lay->pages->pdata[p];
    bool visit = open > 0;
    for (guint k = 0; k < pg->items->len; k++) {
      const LayItem *it = &g_array_index(pg->items, LayItem, k);
      if ((it->kind == LAY_TAG_BEGIN || it->kind == LAY_TAG_END) && !strcmp(it->tag, "Figure")) {
        open += it->kind == LAY_TAG_BEGIN ? 1 : open > 0 ? -1 : 0;
        visit = true;
      }
    }
    if (!visit)
      continue;
    qpdf_oh page = pdfupdate_page(u, (int)p), sp = qpdf_oh_get_key(q, page, "/StructParents");
    qpdf_oh mcids = qpdf_oh_is_integer(q, sp)
                        ? num_tree_get(q, ptree, qpdf_oh_get_int_value(q, sp), 0)
                        : qpdf_oh_new_null(q);
    int n = qpdf_oh_is_array(q, mcids) ? qpdf_oh_get_array_n_items(q, mcids) : 0;
    for (int i = 0; i < n; i++) {
      qpdf_oh e = qpdf_oh_get_array_item(q, mcids, i), f = figure_of(q, e);
      int id = f ? qpdf_oh_get_object_id(q, f) : 0;
      if (f && id > 0 && !g_hash_table_contains(seen, GINT_TO_POINTER(id))) {
        g_hash_table_add(seen, GINT_TO_POINTER(id));
        g_array_append_val(figs, f);
      } else if (f) {
        qpdf_oh_release(q, f);
      }
      qpdf_oh_release(q, e);
    }
    qpdf_oh_release(q, mcids);
    qpdf_oh_release(q, sp);
    qpdf_oh_release(q, page);
  }
  qpdf_oh_release(q, ptree);
  g_hash_table_destroy(seen);
  return figs;
}

/* /Alt on the Figure structure elements, from alts (in the layout's
 * order). The elements come from the parent tree's entries for the pages
 * with figures; when they are not one for each of the layout's Figure
 * tags, from a walk of the whole structure tree. */
static void set_figure_alts(qpdf_data q, PdfUpdate *u, qpdf_oh root, const Layout *lay,
                            const GPtrArray *alts)
{
  qpdf_oh tree = qpdf_oh_get_key(q, root, "/StructTreeRoot");
  if (!qpdf_oh_is_dictionary(q, tree)) {
    qpdf_oh_release(q, tree);
    return;
  }
  GArray *figs = figures_on_pages(q, u, tree, lay);
  if (figs->len != alts->len) {
    for (guint i = 0; i < figs->len; i++)
      qpdf_oh_release(q, g_array_index(figs, qpdf_oh, i));
    g_array_free(figs, TRUE);
    figs = figures_in_preorder(q, tree);
  }
  for (guint i = 0; i < figs->len; i++) {
    qpdf_oh f = g_array_index(figs, qpdf_oh, i);
    set_key(q, f, "/Alt", qpdf_oh_new_unicode_string(q, i < alts->len ? alts->pdata[i] : "Image"));
    pdfupdate_changed(u, f);
    qpdf_oh_release(q, f);
  }
  g_array_free(figs, TRUE);
  qpdf_oh_release(q, tree);
}

void archive_figure_alts(qpdf_data q, PdfUpdate *u, qpdf_oh root, const Book *book,
                         const Layout *lay)
{
  GPtrArray *alts = figure_alts(book, lay);
  set_figure_alts(q, u, root, lay, alts);
  g_ptr_array_free(alts, TRUE);
}
