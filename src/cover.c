/* cover.c: the book's cover as layout items, designed once in points so
 * that the PNG for the e-book and the PDF's title page are the same design
 * at two sizes; paint.c draws the items on either surface, imageenc.c
 * encodes the e-book's pixels. A cover the book gives (Book.cover) is only
 * placed: the e-book carries its file as it is. */
#include "cover.h"

#include "fontlock.h"
#include "imageenc.h"
#include "labels.h"
#include "paint.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <string.h>

static void add_box(GArray *items, double x, double y, double w, double h, const double rgb[3])
{
  LayItem it = {.kind = LAY_RULE, .x_pt = x, .y_pt = y, .w_pt = w, .h_pt = h, .rgb_set = true};
  memcpy(it.rgb, rgb, sizeof it.rgb);
  g_array_append_val(items, it);
}

/* Text centred in a box of width w, its top at y, as one glyph item per
 * run at the positions pango_cairo_show_layout() would draw them; returns
 * the height used. */
static double centred_text(GArray *items, PangoContext *ctx, const CoverStyle *cs, const char *lang,
                           const char *text, double size_pt, PangoWeight weight, PangoStyle style,
                           double x, double y, double w, const double rgb[3])
{
  if (!text || !*text)
    return 0;
  PangoLayout *lay = pango_layout_new(ctx);
  /* in the book's language, as its text is set: a Japanese title in the
   * Japanese forms of Noto Serif CJK (fonts/fallback.conf), not the Chinese */
  PangoAttrList *al = pango_attr_list_new();
  pango_attr_list_insert(al, pango_attr_language_new(pango_language_from_string(lang)));
  pango_layout_set_attributes(lay, al);
  pango_attr_list_unref(al);
  PangoFontDescription *fd = pango_font_description_new();
  pango_font_description_set_family(fd, cs->face);
  pango_font_description_set_weight(fd, weight);
  pango_font_description_set_style(fd, style);
  pango_layout_set_width(lay, (int)(w * PANGO_SCALE));
  pango_layout_set_wrap(lay, PANGO_WRAP_WORD);
  pango_layout_set_alignment(lay, PANGO_ALIGN_CENTER);
  pango_layout_set_line_spacing(lay, 0.92f);
  pango_layout_set_text(lay, text, -1);
  /* Broken between words; a word wider than the box (a long compound, a
   * script pango finds no breaks in: Khmer, Lao, Myanmar, Tibetan) or more
   * than four lines shrink the text, down to half its size; past that it
   * also breaks between characters. Nothing runs off the page. */
  for (double size = size_pt;; size *= 0.9) {
    pango_font_description_set_absolute_size(fd, size * PANGO_SCALE);
    pango_layout_set_font_description(lay, fd);
    int wpu = 0;
    pango_layout_get_size(lay, &wpu, NULL);
    bool wide = wpu > (int)(w * PANGO_SCALE);
    if (!wide && pango_layout_get_line_count(lay) <= 4)
      break;
    if (size * 0.9 < size_pt * 0.5) {
      if (wide)
        pango_layout_set_wrap(lay, PANGO_WRAP_WORD_CHAR);
      break;
    }
  }
  pango_font_description_free(fd);
  const char *all = pango_layout_get_text(lay);
  /* pango_cairo_show_layout() started from cairo's current point, which
   * cairo keeps in 24.8 fixed point: the same origin draws the same bytes */
  double ox = nearbyint(x * 256) / 256, oy = nearbyint(y * 256) / 256;
  PangoLayoutIter *iter = pango_layout_get_iter(lay);
  do {
    PangoLayoutRun *run = pango_layout_iter_get_run_readonly(iter);
    if (!run)
      continue; /* the end of a line */
    PangoRectangle log;
    pango_layout_iter_get_run_extents(iter, NULL, &log);
    int base = pango_layout_iter_get_baseline(iter);
    LayItem it = {.kind = LAY_GLYPHS,
                  .x_pt = ox + (double)log.x / PANGO_SCALE,
                  .y_pt = oy + (double)base / PANGO_SCALE,
                  .font = g_object_ref(run->item->analysis.font),
                  .glyphs = pango_glyph_string_copy(run->glyphs),
                  .text = g_strndup(all + run->item->offset, (gsize)run->item->length),
                  .rgb_set = true,
                  .exact = true};
    memcpy(it.rgb, rgb, sizeof it.rgb);
    g_array_append_val(items, it);
  } while (pango_layout_iter_next_run(iter));
  pango_layout_iter_free(iter);
  int hpu = 0;
  pango_layout_get_size(lay, NULL, &hpu);
  g_object_unref(lay);
  return (double)hpu / PANGO_SCALE;
}

/* The book's own cover image (Book.cover) as large as the page holds it
 * whole, centred: as the e-book's cover page shows it (xMidYMid meet). */
static void given_cover(GArray *items, const BookResource *r, double w, double h)
{
  double s = r->width_px > 0 && r->height_px > 0 ? MIN(w / r->width_px, h / r->height_px) : 0;
  if (s <= 0)
    return;
  double iw = r->width_px * s, ih = r->height_px * s;
  LayItem it = {.kind = LAY_IMAGE,
                .x_pt = (w - iw) / 2,
                .y_pt = (h - ih) / 2,
                .w_pt = iw,
                .h_pt = ih,
                .res = r};
  g_array_append_val(items, it);
}

void cover_items(GArray *items, PangoContext *ctx, const Book *book, const CoverStyle *cs, double w,
                 double h)
{
  if (book->cover) {
    given_cover(items, book->cover, w, h);
    return;
  }
  const BookMeta *m = &book->meta;
  add_box(items, 0, 0, w, h, cs->background);
  /* The bands at the head and foot, with a fine accent rule inside each. */
  double band = h * 0.075, rule = w * 0.004;
  add_box(items, 0, 0, w, band, cs->band);
  add_box(items, 0, h - band, w, band, cs->band);
  add_box(items, 0, band + rule * 1.5, w, rule, cs->accent);
  add_box(items, 0, h - band - rule * 2.5, w, rule, cs->accent);

  double mx = w * 0.12, tw = w - 2 * mx;
  double y = h * 0.25;
  y += centred_text(items, ctx, cs, m->lang, m->title, w * 0.082, PANGO_WEIGHT_BOLD, PANGO_STYLE_NORMAL, mx,
                    y, tw, cs->ink);
  if (m->subtitle) {
    y += w * 0.03;
    y += centred_text(items, ctx, cs, m->lang, m->subtitle, w * 0.042, PANGO_WEIGHT_NORMAL,
                      PANGO_STYLE_ITALIC, mx, y, tw, cs->ink);
  }
  /* A short accent rule between the title and the authors. */
  y += w * 0.06;
  add_box(items, w * 0.42, y, w * 0.16, rule * 1.2, cs->accent);
  y += w * 0.06;
  if (m->authors->len) {
    char *who = labels_join(m->lang, m->authors);
    centred_text(items, ctx, cs, m->lang, who, w * 0.046, PANGO_WEIGHT_NORMAL, PANGO_STYLE_NORMAL, mx, y, tw,
                 cs->ink);
    g_free(who);
  }
  /* Date, and publisher or source, above the foot band. */
  GString *foot = g_string_new(NULL);
  if (m->publisher)
    g_string_append(foot, m->publisher);
  if (m->date) {
    if (foot->len)
      g_string_append(foot, " · ");
    /* 2023-05-11 reads as 11 May 2023 on a cover; other forms stay as given. */
    char *shown = labels_date(m->lang, m->date);
    g_string_append(foot, shown);
    g_free(shown);
  }
  double fy = h - band - w * 0.13;
  centred_text(items, ctx, cs, m->lang, foot->str, w * 0.034, PANGO_WEIGHT_NORMAL, PANGO_STYLE_NORMAL, mx,
               fy, tw, cs->ink);
  g_string_free(foot, TRUE);
}

GBytes *cover_png(const Book *book, const Fonts *fonts, const CoverStyle *cs, int w_px, int h_px,
                  GError **err)
{
  cairo_surface_t *s = imageenc_surface(w_px, h_px);
  cairo_t *cr = cairo_create(s);
  /* a font map of its own: the EPUB (and so its cover) may be written on
   * one thread while the PDF is laid out on another; pango's fonts used
   * holding fontlock, the glyphs drawn without it (paint_font_ready) */
  fontlock_enter();
  PangoContext *ctx = fonts_context_own_map(fonts);
  pango_cairo_update_context(cr, ctx);
  /* One pixel per point: the design is in points of a w_px-wide page. */
  GArray *items = g_array_new(FALSE, TRUE, sizeof(LayItem));
  g_array_set_clear_func(items, (GDestroyNotify)lay_item_clear);
  cover_items(items, ctx, book, cs, w_px, h_px);
  for (guint i = 0; i < items->len; i++) {
    const LayItem *it = &g_array_index(items, LayItem, i);
    if (it->kind == LAY_GLYPHS && it->font)
      paint_font_ready(it->font);
  }
  fontlock_leave();
  Painter *p = paint_new(cr, PAINT_RASTER, NULL);
  paint_items(p, items);
  paint_free(p);
  fontlock_enter(); /* the fonts finalised */
  g_array_free(items, TRUE);
  g_object_unref(ctx);
  fontlock_leave();
  cairo_destroy(cr);
  cairo_surface_flush(s);
  cairo_status_t st = cairo_surface_status(s);
  GBytes *png = st == CAIRO_STATUS_SUCCESS ? imageenc_png(s) : NULL;
  cairo_surface_destroy(s);
  if (!png)
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot draw the cover: %s",
                st != CAIRO_STATUS_SUCCESS ? cairo_status_to_string(st) : "libpng failed");
  return png;
}
