/* layout/notes.c: footnotes and URL notes, each laid out once as its own
 * vertical list at the foot measure, and how much of a page foot they
 * take; paginate places them. */
#include "layout/internal.h"

#include <math.h>

/* Note fn into its own vertical list: its number hanging in the margin
 * (a link back to its first reference), its blocks, kept whole. */
static GArray *note_vlist(Build *c, BookFootnote *fn, const PangoFontDescription *d, double base)
{
  c->note_mode = true;
  c->left = c->st->body_size_pt * 1.4;
  open_tag(c, "Note");
  emit_dest_pending(c, fn->id);
  char num[24];
  g_snprintf(num, sizeof num, "%d", fn->number);
  double w = label_width(c->shp, d, num);
  double lx = c->left - 4 - w;
  shape_label(c->shp, c->pending, d, num, lx, base, 0);
  char *back = book_fnref_dest(fn, 1);
  add_link(c->pending, lx, 0, w, c->st->note_leading_pt, back, NULL);
  g_free(back);
  c->note_kids = g_ptr_array_new();
  walk_blocks(c, fn->def, NULL);
  if (c->note_kids->len)
    g_hash_table_insert(c->store->kids, fn, c->note_kids);
  else
    g_ptr_array_free(c->note_kids, TRUE);
  c->note_kids = NULL;
  close_tag(c, "Note");
  vl_end(c);
  /* a note is kept whole */
  for (guint k = 0; k < c->vl->len; k++) {
    VItem *v = &g_array_index(c->vl, VItem, k);
    v->notes = NULL;
  }
  return build_take(c);
}

static void store_note(LayStore *store, gpointer key, GArray *vl)
{
  double *h = g_new(double, 1);
  *h = vl_height(vl);
  g_hash_table_insert(store->notes, key, vl);
  g_hash_table_insert(store->note_h, key, h);
}

static void note_lay(LayStore *store, BookFootnote *fn)
{
  const LayEnv *env = store->note_env;
  const Style *st = env->st;
  PangoFontDescription *d = text_desc(st, true);
  double base = baseline(store->note_shp, d, st->note_leading_pt);
  Build c;
  build_init(&c, env, store->note_shp, store, env->cols.w_pt);
  c.heads = store->note_heads;
  store_note(store, fn, note_vlist(&c, fn, d, base));
  store->note_heads = c.heads;
  build_clear(&c);
  pango_font_description_free(d);
}

/* Every footnote at the foot measure (a body column): registered now and
 * laid out when pagination first asks for it (note_list), so that a note
 * is held laid out only from its reference's page to its own; where a
 * thread shapes paragraphs ahead (ahead.c, in this order), all laid out
 * now. The heading levels of the tags carry from note to note. */
void layout_notes(const LayEnv *env, LayShaper *shp, LayStore *store)
{
  store->note_env = env;
  store->note_shp = shp;
  for (guint i = 0; i < env->book->footnotes->len; i++) {
    BookFootnote *fn = env->book->footnotes->pdata[i];
    if (!fn->def || fn->nrefs == 0)
      continue;
    g_hash_table_insert(store->notes, fn, NULL);
    g_hash_table_add(store->once, fn);
    if (shp->ahead)
      note_lay(store, fn);
  }
}

/* Note key's vertical list, laid out now if it was not yet. */
static GArray *note_list(LayStore *store, gpointer key)
{
  gpointer vl = NULL;
  if (!g_hash_table_lookup_extended(store->notes, key, NULL, &vl))
    return NULL;
  if (!vl) {
    note_lay(store, key);
    vl = g_hash_table_lookup(store->notes, key);
  }
  return vl;
}

/* One printed URL: its letter hanging in the margin, the URL (a live link)
 * in the monospace face (where + and = have no wide side-bearings that read
 * as spaces), broken after / . - ? & = with nothing added, with its
 * destination. */
static void url_entry(Build *c, UrlNote *u, double size, double leading)
{
  PangoFontDescription *d =
      font_desc(c->st->code_face, size * 0.92, PANGO_STYLE_NORMAL, PANGO_WEIGHT_NORMAL);
  PangoFontDescription *di =
      font_desc(c->st->body_face, size, PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
  emit_dest_pending(c, u->id);
  double w = label_width(c->shp, di, u->label);
  shape_label(c->shp, c->pending, di, u->label, left_of(c) - 4 - w, baseline(c->shp, d, leading),
              0);
  Para p;
  para_init(&p);
  para_text(&p, NULL, u->uri, 0);
  span_add(&p, SPAN_NOHYPH, 0, p.text->len, NULL);
  span_add(&p, SPAN_URL, 0, p.text->len, NULL);
  span_add(&p, SPAN_LINK, 0, p.text->len, NULL);
  g_array_index(p.spans, Span, p.spans->len - 1).href = g_strdup(u->uri);
  ParaStyle ps = para_style(c, d, leading);
  ps.hyphenate = false;
  set_para(c, &p, &ps, true, "P", NULL, NULL);
  para_clear(&p);
  pango_font_description_free(d);
  pango_font_description_free(di);
}

/* The URL notes from the from-th on, each laid out as a footnote (at the
 * foot measure, a body column). */
void url_notes_foot(const LayEnv *env, LayShaper *shp, LayStore *store, guint from)
{
  for (guint k = from; k < store->url_notes->len; k++) {
    UrlNote *u = store->url_notes->pdata[k];
    Build c;
    build_init(&c, env, shp, store, env->cols.w_pt);
    c.note_mode = true;
    c.left = c.st->body_size_pt * 1.4;
    open_tag(&c, "Note");
    url_entry(&c, u, c.st->note_size_pt, c.st->note_leading_pt);
    close_tag(&c, "Note");
    vl_end(&c);
    store_note(store, u, build_take(&c));
    build_clear(&c);
  }
}

/* The current chapter's URL notes as a list after its text. */
void url_notes_end(Build *c)
{
  if (c->store->url_first >= c->store->url_notes->len)
    return;
  PangoFontDescription *d = font_desc(c->st->heading_face, c->st->heading_size_pt[3],
                                      PANGO_STYLE_ITALIC, PANGO_WEIGHT_NORMAL);
  Para p;
  para_init(&p);
  para_text(&p, NULL, labels_get(c->env->book->meta.lang, LABEL_LINKS), 0);
  ParaStyle ps = para_style(c, d, ceil(c->st->heading_size_pt[3] * 1.25));
  ps.hyphenate = false;
  want_space(c, c->st->heading_before_pt * 1.5);
  c->keep = 0;
  set_para(c, &p, &ps, true, "H3", NULL, NULL);
  c->keep = 2;
  c->space = c->st->heading_after_pt;
  para_clear(&p);
  pango_font_description_free(d);
  /* the chapter's last blocks: indented as a list (nothing after them
   * reads the indent) */
  c->left = c->st->list_indent_pt;
  for (guint k = c->store->url_first; k < c->store->url_notes->len; k++)
    url_entry(c, c->store->url_notes->pdata[k], c->st->note_size_pt + 0.5,
              c->st->note_leading_pt + 1);
}

double notes_height(LayStore *store, GPtrArray *notes)
{
  if (!notes || !notes->len)
    return 0;
  double h = 10; /* the separator */
  for (guint i = 0; i < notes->len; i++) {
    note_list(store, notes->pdata[i]);
    double *nh = g_hash_table_lookup(store->note_h, notes->pdata[i]);
    h += nh ? *nh + 2 : 0;
  }
  return h;
}

static bool has_note(const GPtrArray *notes, gconstpointer key)
{
  for (guint q = 0; q < notes->len; q++)
    if (notes->pdata[q] == key)
      return true;
  return false;
}

/* The footnotes of a line not yet on this page, appended to page_notes
 * (a URL note referenced twice on a page is printed once); returns the
 * height they add. */
double add_notes(LayStore *store, GPtrArray *page_notes, const VItem *v, bool commit)
{
  if (!v->notes)
    return 0;
  double before = notes_height(store, page_notes);
  guint n0 = page_notes->len;
  for (guint i = 0; i < v->notes->len; i++)
    if (g_hash_table_contains(store->notes, v->notes->pdata[i]) &&
        !has_note(page_notes, v->notes->pdata[i]))
      g_ptr_array_add(page_notes, v->notes->pdata[i]);
  /* and the notes those notes call, each after its caller's group, once
   * (a note of a note of a note, ... without recursion; cycles stop at a
   * note already there) */
  for (guint j = n0; j < page_notes->len; j++) {
    note_list(store, page_notes->pdata[j]); /* its kids known once it is laid out */
    GPtrArray *kids = g_hash_table_lookup(store->kids, page_notes->pdata[j]);
    for (guint k = 0; kids && k < kids->len; k++) {
      gpointer kid = kids->pdata[k];
      if (g_hash_table_contains(store->notes, kid) && !has_note(page_notes, kid))
        g_ptr_array_add(page_notes, kid);
    }
  }
  double after = notes_height(store, page_notes);
  if (!commit)
    g_ptr_array_set_size(page_notes, n0);
  return after - before;
}

/* Copy a note's line items to a page; a URL note printed on more than one
 * page keeps its destination (what its marks link to) on the first. */
static void note_copy(LayStore *store, GArray *dst, const GArray *src, double dx, double dy)
{
  for (guint i = 0; i < src->len; i++) {
    const LayItem *s = &g_array_index(src, LayItem, i);
    if (s->kind == LAY_DEST) {
      char *key = g_strconcat("\x1fplaced:", s->dest ? s->dest : "", NULL);
      if (!g_hash_table_add(store->dests, key))
        continue; /* placed before */
    }
    LayItem d;
    lay_item_copy(&d, s);
    d.x_pt += dx;
    d.y_pt += dy;
    g_array_append_val(dst, d);
  }
}

void place_notes(LayStore *store, Frame *f, GPtrArray *notes)
{
  if (!notes->len)
    return;
  double y = f->y + f->h - notes_height(store, notes);
  /* the separator at the side where the first note's lines start */
  const GArray *first = note_list(store, notes->pdata[0]);
  bool rtl = false;
  for (guint k = 0; k < first->len; k++)
    if (g_array_index(first, VItem, k).kind == V_LINE) {
      rtl = g_array_index(first, VItem, k).rtl;
      break;
    }
  add_rule(f->page->items, LAY_RULE, rtl ? f->x + f->w - 72 : f->x, y + 4, 72, 0.4, 0);
  y += 10;
  for (guint i = 0; i < notes->len; i++) {
    GArray *vl = note_list(store, notes->pdata[i]);
    /* a footnote comes once: its items moved, its list emptied (a book of
     * 100,000 footnotes kept them all, 3.6 KB each, to its end) */
    bool once = g_hash_table_remove(store->once, notes->pdata[i]);
    for (guint k = 0; k < vl->len; k++) {
      VItem *v = &g_array_index(vl, VItem, k);
      if (v->kind == V_LINE && once)
        items_move(f->page->items, v->items, f->x, y);
      else if (v->kind == V_LINE)
        note_copy(store, f->page->items, v->items, f->x, y); /* a URL note may come again */
      if (v->kind != V_PENALTY)
        y += v->h_pt;
    }
    y += 2;
    if (once) {
      vlist_free(vl);
      g_hash_table_insert(store->notes, notes->pdata[i], g_array_new(FALSE, TRUE, sizeof(VItem)));
    }
  }
}
