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

/* Whether the layout draws a Figure (or a part of one) on page pg; open:
 * the Figure tags open before it, then after it. */
static bool draws_figure(const LayPage *pg, int *open)
{
  bool visit = *open > 0;
  for (guint k = 0; k < pg->items->len; k++) {
    const LayItem *it = &g_array_index(pg->items, LayItem, k);
    if ((it->kind == LAY_TAG_BEGIN || it->kind == LAY_TAG_END) && !strcmp(it->tag, "Figure")) {
      *open += it->kind == LAY_TAG_BEGIN ? 1 : *open > 0 ? -1 : 0;
      visit = true;
    }
  }
  return visit;
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
    if (!draws_figure(lay->pages->pdata[p], &open))
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

/* ---- the same by a scan of cairo's bytes ---- */

/* The Figure element that the structure element id is or is inside, as
 * figure_of, by a scan of the elements' bytes (pdfupdate_base_dict): its
 * number, or 0 when there is none. An element the scan cannot read (a
 * string in it, /Alt on a Figure already, changed: the Document after a
 * page move) is read through qpdf from there up. memo: element -> answer
 * + 1, so that each element is read once. */
static int figure_scan(qpdf_data q, PdfUpdate *u, int id, GHashTable *memo, int depth)
{
  gpointer m;
  if (g_hash_table_lookup_extended(memo, GINT_TO_POINTER(id), NULL, &m))
    return GPOINTER_TO_INT(m) - 1;
  int r = -1;
  gsize n = 0;
  const char *t = depth < 64 ? pdfupdate_base_dict(u, id, &n) : NULL;
  if (t && pdfupdate_plain(t, n)) {
    const char *end = t + n, *s = pdfupdate_find_name(t, n, "/S"),
               *p = pdfupdate_find_name(t, n, "/P");
    const char *v = s ? s + 2 : NULL;
    while (v && v < end && g_ascii_isspace(*v))
      v++;
    int pid = 0, gen = 0;
    if (v && end - v >= 7 && !memcmp(v, "/Figure", 7) && (v + 7 == end || pdfupdate_delim(v[7])))
      r = pdfupdate_find_name(t, n, "/Alt") ? -1 : id;
    else if (!p)
      r = 0;
    else if ((p += 2, pdfupdate_scan_ref(&p, end, &pid, &gen)) && gen == 0)
      r = figure_scan(q, u, pid, memo, depth + 1);
  }
  if (r < 0) { /* through qpdf */
    qpdf_oh e = qpdf_get_object_by_id(q, id, 0), f = figure_of(q, e);
    r = f ? qpdf_oh_get_object_id(q, f) : 0;
    if (f)
      qpdf_oh_release(q, f);
    qpdf_oh_release(q, e);
  }
  g_hash_table_insert(memo, GINT_TO_POINTER(id), GINT_TO_POINTER(r + 1));
  return r;
}

/* The parent tree's /Nums (key -> the number of its value's object), when
 * it is cairo's: one flat array of "key id 0 R"; NULL else. */
static GHashTable *parent_nums(qpdf_data q, PdfUpdate *u, qpdf_oh ptree)
{
  int id = qpdf_oh_is_indirect(q, ptree) && qpdf_oh_get_generation(q, ptree) == 0
               ? qpdf_oh_get_object_id(q, ptree)
               : 0;
  gsize n = 0;
  const char *t = id > 0 ? pdfupdate_base_dict(u, id, &n) : NULL;
  if (!t || !pdfupdate_plain(t, n) || pdfupdate_find_name(t, n, "/Kids"))
    return NULL;
  const char *end = t + n, *p = pdfupdate_find_name(t, n, "/Nums");
  if (!p || !pdfupdate_followed_by(p + 5, end, "["))
    return NULL;
  p = (const char *)memchr(p, '[', (gsize)(end - p)) + 1;
  GHashTable *nums = g_hash_table_new(NULL, NULL);
  for (;;) {
    while (p < end && g_ascii_isspace(*p))
      p++;
    if (p < end && *p == ']')
      return nums;
    gint64 key = 0;
    const char *k = p;
    while (p < end && g_ascii_isdigit(*p) && p - k < 10)
      key = key * 10 + (*p++ - '0');
    int vid, gen;
    if (p == k || p == end || !g_ascii_isspace(*p) || !pdfupdate_scan_ref(&p, end, &vid, &gen) ||
        gen != 0 || key > G_MAXINT)
      break;
    g_hash_table_insert(nums, GINT_TO_POINTER((int)key), GINT_TO_POINTER(vid));
  }
  g_hash_table_destroy(nums);
  return NULL;
}

/* figures_on_pages by a scan of the bytes of the parent tree, of its
 * entries for those pages and of their elements and ancestors, which qpdf
 * parsing cost 0.19 G instructions on the 2 MB bench book: the Figures'
 * object numbers, or NULL when the scan cannot tell. */
static GArray *figures_scanned(qpdf_data q, PdfUpdate *u, qpdf_oh tree, const Layout *lay)
{
  qpdf_oh ptree = qpdf_oh_get_key(q, tree, "/ParentTree");
  GHashTable *nums = parent_nums(q, u, ptree);
  qpdf_oh_release(q, ptree);
  if (!nums)
    return NULL;
  GArray *figs = g_array_new(FALSE, FALSE, sizeof(int));
  GHashTable *memo = g_hash_table_new(NULL, NULL), *seen = g_hash_table_new(NULL, NULL);
  bool ok = true;
  int open = 0;
  for (guint p = 0; ok && p < lay->pages->len; p++) {
    if (!draws_figure(lay->pages->pdata[p], &open))
      continue;
    qpdf_oh page = pdfupdate_page(u, (int)p), sp = qpdf_oh_get_key(q, page, "/StructParents");
    gpointer vid = NULL;
    gsize n = 0;
    const char *t = NULL;
    ok = qpdf_oh_is_integer(q, sp) &&
         g_hash_table_lookup_extended(nums, GINT_TO_POINTER(qpdf_oh_get_int_value_as_int(q, sp)),
                                      NULL, &vid) &&
         (t = pdfupdate_base_value(u, GPOINTER_TO_INT(vid), &n)) != NULL && pdfupdate_plain(t, n) &&
         pdfupdate_followed_by(t, t + n, "[");
    qpdf_oh_release(q, sp);
    qpdf_oh_release(q, page);
    const char *c = ok ? (const char *)memchr(t, '[', n) + 1 : NULL, *end = t ? t + n : NULL;
    int eid, gen;
    while (ok && pdfupdate_scan_ref(&c, end, &eid, &gen)) {
      ok = gen == 0;
      int f = ok ? figure_scan(q, u, eid, memo, 0) : 0;
      if (f > 0 && !g_hash_table_contains(seen, GINT_TO_POINTER(f))) {
        g_hash_table_add(seen, GINT_TO_POINTER(f));
        g_array_append_val(figs, f);
      }
    }
    ok = ok && pdfupdate_followed_by(c, end, "]");
  }
  g_hash_table_destroy(nums);
  g_hash_table_destroy(memo);
  g_hash_table_destroy(seen);
  if (!ok) {
    g_array_free(figs, TRUE);
    return NULL;
  }
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
  GArray *ids = figures_scanned(q, u, tree, lay);
  if (ids && ids->len == alts->len) { /* /Alt added to their bytes where a scan can */
    for (guint i = 0; i < ids->len; i++) {
      int id = g_array_index(ids, int, i);
      gsize n = 0;
      const char *t = pdfupdate_base_dict(u, id, &n);
      if (t && pdfupdate_plain(t, n) && !pdfupdate_find_name(t, n, "/Alt")) {
        qpdf_oh alt = qpdf_oh_new_unicode_string(q, alts->pdata[i]);
        pdfupdate_add_keys(u, id, g_strdup_printf("/Alt %s", qpdf_oh_unparse(q, alt)));
        qpdf_oh_release(q, alt);
      } else {
        qpdf_oh f = qpdf_get_object_by_id(q, id, 0);
        set_key(q, f, "/Alt", qpdf_oh_new_unicode_string(q, alts->pdata[i]));
        pdfupdate_changed(u, f);
        qpdf_oh_release(q, f);
      }
    }
    g_array_free(ids, TRUE);
    qpdf_oh_release(q, tree);
    return;
  }
  if (ids)
    g_array_free(ids, TRUE);
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
