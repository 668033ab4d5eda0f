/* cover.c: the generated cover, drawn once in points so that the PNG for the
 * e-book and the PDF's title page are the same design at two sizes. */
#include "cover.h"

#include "labels.h"

#include <pango/pangocairo.h>
#include <stdio.h>
#include <string.h>

/* Set text centred in a box of width w at y; returns the height used. */
static double centred_text(cairo_t *cr, PangoContext *ctx, const CoverStyle *cs, const char *text,
                           double size_pt, PangoWeight weight, PangoStyle style, double x, double y,
                           double w, const double rgb[3]) {
  if (!text || !*text)
    return 0;
  PangoLayout *lay = pango_layout_new(ctx);
  PangoFontDescription *fd = pango_font_description_new();
  pango_font_description_set_family(fd, cs->face);
  pango_font_description_set_absolute_size(fd, size_pt * PANGO_SCALE);
  pango_font_description_set_weight(fd, weight);
  pango_font_description_set_style(fd, style);
  pango_layout_set_font_description(lay, fd);
  pango_font_description_free(fd);
  pango_layout_set_width(lay, (int)(w * PANGO_SCALE));
  pango_layout_set_wrap(lay, PANGO_WRAP_WORD);
  pango_layout_set_alignment(lay, PANGO_ALIGN_CENTER);
  pango_layout_set_line_spacing(lay, 0.92f);
  pango_layout_set_text(lay, text, -1);
  int hpu = 0;
  pango_layout_get_size(lay, NULL, &hpu);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_move_to(cr, x, y);
  pango_cairo_show_layout(cr, lay);
  g_object_unref(lay);
  return (double)hpu / PANGO_SCALE;
}

void cover_draw(cairo_t *cr, PangoContext *ctx, const Book *book, const CoverStyle *cs, double w,
                double h) {
  const BookMeta *m = &book->meta;
  cairo_save(cr);
  cairo_new_path(cr);
  cairo_set_source_rgb(cr, cs->background[0], cs->background[1], cs->background[2]);
  cairo_rectangle(cr, 0, 0, w, h);
  cairo_fill(cr);
  /* The bands at the head and foot, with a fine accent rule inside each. */
  double band = h * 0.075, rule = w * 0.004;
  cairo_set_source_rgb(cr, cs->band[0], cs->band[1], cs->band[2]);
  cairo_rectangle(cr, 0, 0, w, band);
  cairo_rectangle(cr, 0, h - band, w, band);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, cs->accent[0], cs->accent[1], cs->accent[2]);
  cairo_rectangle(cr, 0, band + rule * 1.5, w, rule);
  cairo_rectangle(cr, 0, h - band - rule * 2.5, w, rule);
  cairo_fill(cr);

  double mx = w * 0.12, tw = w - 2 * mx;
  double y = h * 0.25;
  y += centred_text(cr, ctx, cs, m->title, w * 0.082, PANGO_WEIGHT_BOLD,
                    PANGO_STYLE_NORMAL, mx, y, tw, cs->ink);
  if (m->subtitle) {
    y += w * 0.03;
    y += centred_text(cr, ctx, cs, m->subtitle, w * 0.042, PANGO_WEIGHT_NORMAL, PANGO_STYLE_ITALIC, mx, y,
                      tw, cs->ink);
  }
  /* A short accent rule between the title and the authors. */
  y += w * 0.06;
  cairo_set_source_rgb(cr, cs->accent[0], cs->accent[1], cs->accent[2]);
  cairo_rectangle(cr, w * 0.42, y, w * 0.16, rule * 1.2);
  cairo_fill(cr);
  y += w * 0.06;
  if (m->authors->len) {
    char *who = labels_join(m->lang, m->authors);
    centred_text(cr, ctx, cs, who, w * 0.046, PANGO_WEIGHT_NORMAL, PANGO_STYLE_NORMAL, mx, y, tw, cs->ink);
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
  centred_text(cr, ctx, cs, foot->str, w * 0.034, PANGO_WEIGHT_NORMAL, PANGO_STYLE_NORMAL, mx, fy, tw,
               cs->ink);
  g_string_free(foot, TRUE);
  cairo_restore(cr);
}

static cairo_status_t append_bytes(void *closure, const unsigned char *data, unsigned int len) {
  g_byte_array_append(closure, data, len);
  return CAIRO_STATUS_SUCCESS;
}

GBytes *cover_png(const Book *book, const Fonts *fonts, const CoverStyle *cs, int w_px, int h_px,
                  GError **err) {
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w_px, h_px);
  cairo_t *cr = cairo_create(s);
  PangoContext *ctx = fonts_context(fonts);
  pango_cairo_update_context(cr, ctx);
  /* One pixel per point: the design is in points of a w_px-wide page. */
  cover_draw(cr, ctx, book, cs, w_px, h_px);
  g_object_unref(ctx);
  cairo_destroy(cr);
  GByteArray *png = g_byte_array_new();
  cairo_status_t st = cairo_surface_write_to_png_stream(s, append_bytes, png);
  cairo_surface_destroy(s);
  if (st != CAIRO_STATUS_SUCCESS) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot draw the cover: %s", cairo_status_to_string(st));
    g_byte_array_unref(png);
    return NULL;
  }
  return g_byte_array_free_to_bytes(png);
}
