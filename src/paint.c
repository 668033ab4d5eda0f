/* paint.c: layout items -> cairo calls, on any surface. pdf.c draws its
 * pages with it, cover.c the e-book's cover PNG, preview.c the thumbnails.
 * Images are loaded once per painter (a cache keyed by the model's
 * resource, used by the one thread that paints) at the pixels the page
 * needs (paint_set_image_dpi), drawn by reference (cairo stores each
 * once, see Image) and released after the page of their last draw, or
 * sooner when the decoded images kept for later pages pass IMAGES_KEPT
 * (decoded again, at the same size, for their next draw); their
 * size on the page comes from the model, never from the file: PNG
 * (cairo; libpng row by row when scaled; on a PDF, one that needs every
 * pixel and qualifies is a placeholder the archive pass replaces by the
 * file's own data, pngpass.h), JPEG (embedded as it is, or decoded
 * smaller and written again), GIF (its first frame, gdk-pixbuf), SVG
 * (recorded once as vectors, librsvg). One that cannot be drawn gets a
 * warning and a frame. */
#include "paint.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "fontlock.h"
#include "imagelibs.h"
#include "pngpass.h"
#include "util.h"

struct Painter {
  cairo_t *cr;
  PaintTarget target;
  Book *book;           /* for warnings; may be NULL */
  GHashTable *images;   /* const BookResource * -> Image * (NULL: cannot be drawn) */
  GHashTable *uses;     /* const BookResource * -> draws in the book (count_uses), or NULL */
  GPtrArray *done;      /* const BookResource *: drawn for the last time on this page */
  gsize kept;           /* bytes of the decoded rasters in images (Image.bytes) */
  guint64 pages;        /* pages painted: when an image was last drawn (Image.page) */
  double image_dpi;     /* a PDF's rasters at most this many pixels per inch (<= 0: all) */
  PngPass *pngs;        /* PNGs drawn as placeholders, copied by the archive pass (or NULL) */
  GHashTable *on_page;  /* the raster images drawn on the current page (PDF targets) */
  int depth;            /* open structure tags */
  PangoGlyphString *gs; /* scratch: an exact item's glyphs, moved to where they start */
  PangoItem *item;      /* scratch: their item (font borrowed) */
  GArray *cglyphs;      /* scratch: cairo_glyph_t, for show_text */
  GArray *clusters;     /* scratch: cairo_text_cluster_t, for show_text */
  GHashTable *colour;   /* "hb_face/glyph" -> cairo_surface_t * (NULL: no bitmap): colour glyphs */
};

void paint_attr_str(GString *out, const char *s)
{
  g_string_append_c(out, '\'');
  for (; *s; s++) {
    if (*s == '\'' || *s == '\\')
      g_string_append_c(out, '\\');
    g_string_append_c(out, *s);
  }
  g_string_append_c(out, '\'');
}

static void set_colour(cairo_t *cr, const LayItem *it)
{
  if (it->rgb_set)
    cairo_set_source_rgb(cr, it->rgb[0], it->rgb[1], it->rgb[2]);
  else
    cairo_set_source_rgb(cr, it->gray, it->gray, it->gray);
}

/* What pango_cairo_show_glyph_item(cr, text, {item, gs}) does for the
 * painter's item (offset 0; its level read from its clusters: decreasing
 * in a right-to-left run), without pango's renderer: the same
 * cairo_show_text_glyphs call, the glyphs placed from the current point
 * by their advances and offsets, the clusters as pango's cluster iterator
 * cuts them (a cluster runs until a glyph whose log_cluster is greater
 * than its first glyph's; its bytes to that glyph's cluster, the last to
 * the text's end; empty glyphs not counted), inside cairo_save/restore
 * with the font's drawing font (fontlock_draw_font: pango's scaled font on
 * a face of octavo's own, so any thread draws it); on a surface without
 * text (a raster), cairo_show_glyphs, as pango does there. Here with the
 * scaled font sf. */
static void show_glyphs_with(Painter *p, const char *text, int len, cairo_scaled_font_t *sf,
                             const PangoGlyphString *gs)
{
  cairo_t *cr = p->cr;
  int n = gs->num_glyphs;
  double base_x, base_y;
  cairo_get_current_point(cr, &base_x, &base_y);
  g_array_set_size(p->cglyphs, (guint)n);
  g_array_set_size(p->clusters, (guint)n);
  cairo_glyph_t *cg = (cairo_glyph_t *)(void *)p->cglyphs->data;
  cairo_text_cluster_t *cl = (cairo_text_cluster_t *)(void *)p->clusters->data;
  int count = 0, x_position = 0;
  for (int i = 0; i < n; i++) { /* the glyphs in visual order, left to right */
    const PangoGlyphInfo *gi = &gs->glyphs[i];
    if (gi->glyph != PANGO_GLYPH_EMPTY) {
      cg[count].index = gi->glyph;
      cg[count].x = base_x + (double)(x_position + gi->geometry.x_offset) / PANGO_SCALE;
      cg[count].y = gi->geometry.y_offset == 0
                        ? base_y
                        : base_y + (double)gi->geometry.y_offset / PANGO_SCALE;
      count++;
    }
    x_position += gi->geometry.width;
  }
  /* the clusters in logical order: a right-to-left run's glyphs are in
   * visual order, its clusters decreasing, so they are walked from the last
   * glyph and handed over BACKWARD (cairo then writes the glyphs in reading
   * order, each with its text, and pdftotext and mupdf read the words) */
  bool backward = n > 1 && gs->log_clusters[0] > gs->log_clusters[n - 1];
  int step = backward ? -1 : 1, first = backward ? n - 1 : 0;
  int nc = 0, cluster = gs->log_clusters[first], start = 0, shown = 0;
  for (int k = 0, i = first; k < n; k++, i += step) {
    if (gs->log_clusters[i] > cluster) { /* a new cluster starts at glyph i */
      cl[nc++] = (cairo_text_cluster_t){gs->log_clusters[i] - start, shown};
      start = cluster = gs->log_clusters[i];
      shown = 0;
    }
    if (gs->glyphs[i].glyph != PANGO_GLYPH_EMPTY)
      shown++;
  }
  cl[nc++] = (cairo_text_cluster_t){len - start, shown};
  cairo_save(cr);
  cairo_set_scaled_font(cr, sf);
  if (cairo_surface_has_show_text_glyphs(cairo_get_target(cr)))
    cairo_show_text_glyphs(cr, text, len, cg, count, cl, nc,
                           backward ? CAIRO_TEXT_CLUSTER_FLAG_BACKWARD : 0);
  else
    cairo_show_glyphs(cr, cg, count);
  cairo_restore(cr);
  cairo_move_to(cr, base_x, base_y); /* as pango leaves it */
}

/* show_glyphs_with font's drawing font. Returns false, drawing nothing,
 * where pango would do something else: an unknown glyph (a hex box), a
 * font without a scaled font, no glyphs or no text. */
static bool show_text(Painter *p, const char *text, int len, PangoFont *font,
                      const PangoGlyphString *gs)
{
  int n = gs->num_glyphs;
  if (n == 0 || len == 0)
    return false;
  for (int i = 0; i < n; i++)
    if (gs->glyphs[i].glyph & PANGO_GLYPH_UNKNOWN_FLAG)
      return false;
  cairo_scaled_font_t *sf = fontlock_draw_font(font);
  if (!sf)
    return false;
  show_glyphs_with(p, text, len, sf, gs);
  return true;
}

static cairo_surface_t *surface_copy(cairo_surface_t *s);

/* How a bitmap is resampled where it is drawn: smoothly on a raster
 * (the preview); on a PDF, cairo's FAST, so that no image carries
 * /Interpolate true, which PDF/A forbids (ISO 19005-2 6.2.8): the viewer
 * scales it, and octavo has already brought it to the pixels the page
 * needs (--image-dpi). Every bitmap octavo draws takes its filter here. */
static cairo_filter_t image_filter(const Painter *p)
{
  return p->target == PAINT_RASTER ? CAIRO_FILTER_GOOD : CAIRO_FILTER_FAST;
}

/* Glyph glyph of a colour font as an image, made once per painter (a
 * surface is never shared between threads); NULL: it has none. Keyed by
 * the colour face (its file), not by font's own objects: the chapters set
 * on other threads (-j) shape with fonts of their own font maps, and one
 * emoji must stay one image whoever set its chapter (fpb-howto's PDF
 * stored a glyph twice at -j4, once at -j1). */
static cairo_surface_t *colour_glyph(Painter *p, PangoFont *font, PangoGlyph glyph, double *x_em,
                                     double *y_em, double *px_em)
{
  char key[64];
  g_snprintf(key, sizeof key, "%p/%u", fontlock_color_face(font), glyph);
  double *where = NULL;
  cairo_surface_t *s = NULL;
  static const cairo_user_data_key_t where_key;
  gpointer v;
  if (g_hash_table_lookup_extended(p->colour, key, NULL, &v)) {
    s = v;
  } else {
    double w[3];
    s = fontlock_color_glyph(font, glyph, &w[0], &w[1], &w[2]);
    if (s)
      cairo_surface_set_user_data(s, &where_key, g_memdup2(w, sizeof w), g_free);
    g_hash_table_insert(p->colour, g_strdup(key), s);
  }
  if (!s)
    return NULL;
  where = cairo_surface_get_user_data(s, &where_key);
  *x_em = where[0];
  *y_em = where[1];
  *px_em = where[2];
  return s;
}

/* A run of a colour font (emoji, fontlock.h): each glyph's bitmap scaled
 * to the type's size in its place; on a PDF, then the run's text and
 * clusters as show_text writes them, in a font of empty glyphs with the
 * same advances (fontlock_carrier_font), so that the emoji are found,
 * copied and read aloud as their characters. False, drawing nothing, when
 * font is not a colour font. */
static bool show_colour(Painter *p, const char *text, int len, PangoFont *font,
                        const PangoGlyphString *gs)
{
  double size = fontlock_is_color(font) ? fontlock_color_size(font) : 0;
  if (size <= 0)
    return false;
  cairo_t *cr = p->cr;
  double base_x, base_y;
  cairo_get_current_point(cr, &base_x, &base_y);
  int x_position = 0;
  for (int i = 0; i < gs->num_glyphs; i++) {
    const PangoGlyphInfo *gi = &gs->glyphs[i];
    double x_em, y_em, px_em;
    cairo_surface_t *s = gi->glyph == PANGO_GLYPH_EMPTY || (gi->glyph & PANGO_GLYPH_UNKNOWN_FLAG)
                             ? NULL
                             : colour_glyph(p, font, gi->glyph, &x_em, &y_em, &px_em);
    if (s) {
      double gx = base_x + (double)(x_position + gi->geometry.x_offset) / PANGO_SCALE,
             gy = base_y + (double)gi->geometry.y_offset / PANGO_SCALE;
      int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
      cairo_surface_t *copy = NULL;
      if (p->target != PAINT_RASTER && !g_hash_table_add(p->on_page, s))
        s = copy = surface_copy(s); /* drawn on this page already: see surface_copy */
      cairo_save(cr);
      cairo_translate(cr, gx + x_em * size, gy + y_em * size);
      cairo_scale(cr, px_em * size, px_em * size);
      cairo_set_source_surface(cr, s, 0, 0);
      cairo_pattern_set_filter(cairo_get_source(cr), image_filter(p));
      cairo_rectangle(cr, 0, 0, w, h); /* not cairo_paint: see draw_image */
      cairo_fill(cr);
      cairo_restore(cr);
      if (copy)
        cairo_surface_destroy(copy);
    }
    x_position += gi->geometry.width;
  }
  cairo_move_to(cr, base_x, base_y);
  cairo_scaled_font_t *carrier = cairo_surface_has_show_text_glyphs(cairo_get_target(cr))
                                     ? fontlock_carrier_font(font, size)
                                     : NULL;
  if (carrier) {
    show_glyphs_with(p, text, len, carrier, gs);
    cairo_scaled_font_destroy(carrier);
  }
  return true;
}

/* Glyphs as filled outlines, not text: on the page, not in its text. */
static void draw_outline(Painter *p, const LayItem *it)
{
  cairo_scaled_font_t *sf = fontlock_draw_font(it->font);
  if (!sf)
    return;
  const PangoGlyphString *gs = it->glyphs;
  g_array_set_size(p->cglyphs, (guint)gs->num_glyphs);
  cairo_glyph_t *cg = (cairo_glyph_t *)(void *)p->cglyphs->data;
  int count = 0;
  double x = it->x_pt;
  for (int i = 0; i < gs->num_glyphs; i++) {
    const PangoGlyphInfo *gi = &gs->glyphs[i];
    if (gi->glyph != PANGO_GLYPH_EMPTY && !(gi->glyph & PANGO_GLYPH_UNKNOWN_FLAG))
      cg[count++] = (cairo_glyph_t){gi->glyph, x + gi->geometry.x_offset / (double)PANGO_SCALE,
                                    it->y_pt + gi->geometry.y_offset / (double)PANGO_SCALE};
    x += gi->geometry.width / (double)PANGO_SCALE;
  }
  cairo_t *cr = p->cr;
  cairo_save(cr);
  set_colour(cr, it);
  cairo_set_scaled_font(cr, sf);
  cairo_new_path(cr);
  cairo_glyph_path(cr, cg, count);
  cairo_fill(cr);
  cairo_restore(cr);
}

static void draw_glyphs(Painter *p, const LayItem *it)
{
  if (!it->font || !it->glyphs || !it->text)
    return;
  if (it->outline) {
    draw_outline(p, it);
    return;
  }
  /* handed to cairo where the layout set them: viewers place them there
   * too, once the archive pass has written each TrueType font's widths
   * exact (archive_widths.c: cairo 1.16 truncates them) */
  const PangoGlyphString *gs = it->glyphs;
  set_colour(p->cr, it);
  double x = it->x_pt, y = it->y_pt;
  if (it->exact) {
    /* cairo keeps the current point, where pango starts, in 24.8 fixed
     * point: start from there and move the glyphs by the rest, in a copy
     * in the painter's scratch string (the layout's glyphs are read only) */
    x = nearbyint(x * 256) / 256;
    y = nearbyint(y * 256) / 256;
    int dx = (int)lround((it->x_pt - x) * PANGO_SCALE),
        dy = (int)lround((it->y_pt - y) * PANGO_SCALE);
    PangoGlyphString *moved = p->gs;
    int n = gs->num_glyphs;
    pango_glyph_string_set_size(moved, n);
    memcpy(moved->glyphs, gs->glyphs, sizeof *gs->glyphs * (size_t)n);
    memcpy(moved->log_clusters, gs->log_clusters, sizeof *gs->log_clusters * (size_t)n);
    for (int i = 0; i < n; i++) {
      moved->glyphs[i].geometry.x_offset += dx;
      moved->glyphs[i].geometry.y_offset += dy;
    }
    gs = moved;
  }
  cairo_move_to(p->cr, x, y);
  int len = (int)strlen(it->text);
  if (show_colour(p, it->text, len, it->font, gs) || show_text(p, it->text, len, it->font, gs))
    return;
  PangoItem *item = p->item;
  item->offset = 0;
  item->length = len;
  item->num_chars = (int)g_utf8_strlen(it->text, len);
  item->analysis.font = it->font; /* borrowed: cleared before pango_item_free */
  PangoGlyphItem gi = {.item = item, .glyphs = (PangoGlyphString *)gs}; /* pango reads it only */
  fontlock_enter(); /* pango draws with its fonts (a hex box's too) */
  pango_cairo_show_glyph_item(p->cr, it->text, &gi);
  fontlock_leave();
  item->analysis.font = NULL;
}

static bool same_colour(const LayItem *a, const LayItem *b)
{
  if (a->rgb_set != b->rgb_set)
    return false;
  return a->rgb_set ? memcmp(a->rgb, b->rgb, sizeof a->rgb) == 0 : a->gray == b->gray;
}

/* A rule or frame; consecutive rules of one colour are one path and one
 * fill (next: the next item or NULL). Returns how many items it drew. */
static guint draw_box(cairo_t *cr, const LayItem *it, const LayItem *end, bool fill)
{
  set_colour(cr, it);
  guint n = 0;
  do
    cairo_rectangle(cr, it[n].x_pt, it[n].y_pt, it[n].w_pt, it[n].h_pt);
  while (fill && &it[++n] < end && it[n].kind == LAY_RULE && same_colour(it, &it[n]));
  if (!fill)
    n = 1;
  if (fill) {
    cairo_fill(cr);
  } else {
    cairo_set_line_width(cr, 0.5);
    cairo_stroke(cr);
  }
  return n;
}

/* A loaded image: a raster surface at the pixels its largest draw so far
 * needs, or an SVG recorded once (a cairo recording surface, which the
 * PDF surface writes as one form XObject). cairo's PDF surface writes an
 * image or a recording once per CAIRO_MIME_TYPE_UNIQUE_ID (its key for a
 * source it has seen: the path and the pixel size) and names it on every
 * later page that draws it, so the cache only has to hand it the same key:
 * a figure shown ten times is stored once. */
typedef struct {
  cairo_surface_t *surface; /* ARGB32/RGB24 image, or a recording (svg on a PDF); NULL:
                             * a raster set aside (set_aside), decoded again when drawn */
  RsvgHandle *handle;       /* an SVG drawn on a raster target: drawn each time */
  bool svg;
  double w, h;       /* the surface's size: pixels, or the first draw's points (an SVG) */
  bool full;         /* a raster decoded at the file's own size */
  guint left;        /* draws still to come (counted in the book); 0: not counted */
  gsize bytes;       /* a raster's memory: its pixels, or a JPEG's data drawn as it is */
  guint64 page;      /* the painter's page of its last draw */
} Image;

/* The decoded rasters a painter keeps for later pages, at most: past it,
 * those drawn longest ago are set aside after the page and decoded again
 * (at the same pixel size, so with the same key: cairo still stores each
 * once) when next drawn. The 10 MB benchmark book shows 28 files again
 * and again across 4,000 pages: kept until their last draw they held
 * 67 MB of pixels at once; the pages around one draw show a few. */
#define IMAGES_KEPT (24u << 20)

static void image_free(gpointer v)
{
  Image *im = v;
  if (!im)
    return;
  if (im->surface)
    cairo_surface_destroy(im->surface);
  if (im->handle)
    g_object_unref(im->handle);
  g_free(im);
}

/* How many times the book shows each resource (chapters and footnotes):
 * the painter releases an image after the page of its last draw. */
static void count_uses(Painter *p)
{
  p->uses = g_hash_table_new(NULL, NULL);
  if (!p->book)
    return;
  GPtrArray *roots = g_ptr_array_new();
  for (guint i = 0; i < p->book->chapters->len; i++)
    g_ptr_array_add(roots, ((BookChapter *)p->book->chapters->pdata[i])->root);
  for (guint i = 0; p->book->footnotes && i < p->book->footnotes->len; i++)
    g_ptr_array_add(roots, ((BookFootnote *)p->book->footnotes->pdata[i])->def);
  for (guint i = 0; i < roots->len; i++) {
    if (!roots->pdata[i])
      continue;
    BookIter it;
    book_iter_init(&it, roots->pdata[i]);
    while (book_iter_next(&it) != BOOK_ITER_DONE)
      if (it.ev == BOOK_ITER_ENTER && it.cur->type == BOOK_IMAGE && it.cur->as.image.res) {
        gpointer r = it.cur->as.image.res;
        g_hash_table_insert(p->uses, r,
                            GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(p->uses, r)) + 1));
      }
  }
  g_ptr_array_free(roots, TRUE);
}

/* An image is decoded smaller only when it has more than this many times
 * the pixels it needs along each side (Ghostscript's
 * DownsampleThreshold, 1.5 by default): a file a little over the ceiling
 * (a 1,600-pixel photo in a 1,460-pixel measure) is drawn as it is, since
 * decoding, scaling and (a JPEG) writing it again would cost more time
 * and a generation of loss to save a fifth of its bytes. */
#define DOWNSAMPLE_THRESHOLD 1.5

/* The pixels a raster of fw x fh needs to be drawn as the item it: on a
 * PDF, at most p->image_dpi pixels per inch of the item's size on the
 * page; on a raster target, its size in device pixels. Never more than
 * the file has, nor fewer unless it has DOWNSAMPLE_THRESHOLD times more;
 * the aspect ratio kept. *full: the file's own size. */
static void needed_px(const Painter *p, const LayItem *it, int fw, int fh, int *w, int *h,
                      bool *full)
{
  double dw = it->w_pt, dh = it->h_pt;
  cairo_user_to_device_distance(p->cr, &dw, &dh);
  double per_unit = p->target == PAINT_RASTER ? 1 : p->image_dpi / 72.0;
  double s = fmax(fabs(dw) * per_unit / fw, fabs(dh) * per_unit / fh);
  if (p->target != PAINT_RASTER && p->image_dpi <= 0)
    s = 1; /* no ceiling */
  *full = !(s * DOWNSAMPLE_THRESHOLD < 1);
  *w = *full ? fw : (int)fmax(1, ceil(fw * s));
  *h = *full ? fh : (int)fmax(1, ceil(fh * s));
  if (*w >= fw || *h >= fh) {
    *w = fw;
    *h = fh;
    *full = true;
  }
}

static void set_unique_id(cairo_surface_t *s, const BookResource *r, int w, int h)
{
  char *id = g_strdup_printf("octavo:%s:%dx%d", r->path, w, h);
  cairo_surface_set_mime_data(s, CAIRO_MIME_TYPE_UNIQUE_ID, (unsigned char *)id, strlen(id),
                              g_free, id);
}

/* The raster r decoded at w x h pixels (full: the file's own size), or
 * NULL with *err set (or not, for cairo's PNG loader); *sw x *sh the
 * surface's pixels. A JPEG that needs every pixel stays the file's JPEG
 * data (a PDF embeds it as it is, DCT); a smaller one is decoded at the
 * smaller size (libjpeg's scaled decode) and written as a JPEG again
 * (quality 90); on a PDF, a PNG that needs every pixel and that pngpass.c
 * takes as it is is not decoded: a 1 x 1 placeholder the archive pass
 * replaces by the file's own data; any other PNG or GIF is decoded and
 * scaled (the PDF deflates it). */
static cairo_surface_t *decode_raster(const Painter *p, const BookResource *r, int w, int h,
                                      bool full, int *sw, int *sh, GError **err)
{
  cairo_surface_t *s = NULL;
  bool pdf = p->target != PAINT_RASTER;
  *sw = w;
  *sh = h;
  if (r->kind == BOOK_IMAGE_PNG && pdf && full && p->pngs &&
      (s = pngpass_placeholder(p->pngs, r->path, r->width_px, r->height_px))) {
    *sw = *sh = 1;
  } else if (r->kind == BOOK_IMAGE_JPEG && pdf && full) {
    /* cairo writes the data, its /Width and /Height from the JPEG's header:
     * a 1 x 1 surface carries it (the figure's box is then the page's cm,
     * the same bytes as a surface of the JPEG's size, which cost 4 bytes a
     * pixel to clear, and as much again for cairo's snapshot of it when it
     * is released) */
    gchar *data = NULL;
    gsize len = 0;
    if (g_file_get_contents(r->path, &data, &len, err)) {
      s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
      *sw = *sh = 1;
      cairo_surface_set_mime_data(s, CAIRO_MIME_TYPE_JPEG, (unsigned char *)data, len, g_free,
                                  data);
    }
  } else if (r->kind == BOOK_IMAGE_PNG && full) {
    s = cairo_image_surface_create_from_png(r->path);
  } else if (r->kind == BOOK_IMAGE_PNG) { /* row by row, never whole */
    s = imagelibs_png_surface_at(r->path, r->width_px, r->height_px, w, h, err);
  } else {
    guchar *jpeg = NULL;
    gsize len = 0;
    bool rejpeg = r->kind == BOOK_IMAGE_JPEG && pdf;
    s = imagelibs_pixbuf_surface_at(r->path, full ? 0 : w, full ? 0 : h, rejpeg ? &jpeg : NULL,
                                    &len, err);
    if (s && jpeg)
      cairo_surface_set_mime_data(s, CAIRO_MIME_TYPE_JPEG, jpeg, len, g_free, jpeg);
    else
      g_free(jpeg);
  }
  if (s && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    s = NULL;
  }
  if (s)
    set_unique_id(s, r, w, h);
  return s;
}

/* The SVG r recorded once, as vectors, at the size of the item it (the
 * first draw; later ones scale it). On a PDF the recording is a group of
 * the page's own cairo_t: librsvg sets an SVG's text as text (found,
 * copied, read aloud) only when the context's target is a PDF surface,
 * and as outlines on a recording surface of its own. Its surface is a
 * recording at the page's origin, which cairo writes once as a form
 * XObject. NULL with *err set when the SVG cannot be read or drawn. */
static cairo_surface_t *record_svg(Painter *p, const BookResource *r, const LayItem *it,
                                   RsvgHandle *svg, GError **err)
{
  double w = it->w_pt, h = it->h_pt;
  cairo_t *cr = p->cr;
  cairo_save(cr);
  cairo_identity_matrix(cr);
  cairo_reset_clip(cr);
  cairo_rectangle(cr, 0, 0, w, h);
  cairo_clip(cr);
  cairo_push_group(cr);
  RsvgRectangle vp = {0, 0, w, h};
  bool ok = imagelibs_svg_render(svg, cr, &vp, err);
  cairo_pattern_t *group = cairo_pop_group(cr);
  cairo_restore(cr);
  cairo_surface_t *rec = NULL;
  if (ok && cairo_pattern_get_surface(group, &rec) == CAIRO_STATUS_SUCCESS)
    cairo_surface_reference(rec);
  else
    rec = NULL;
  cairo_pattern_destroy(group);
  if (rec) {
    char *id = g_strdup_printf("octavo:%s:svg", r->path);
    cairo_surface_set_mime_data(rec, CAIRO_MIME_TYPE_UNIQUE_ID, (unsigned char *)id, strlen(id),
                                g_free, id);
  }
  return rec;
}

/* Whether the SVG r may hold a link (an <a> element, any prefix): librsvg
 * makes one a cairo link tag, which in a group (a form XObject) cairo
 * 1.16 cannot place in the page's structure (the archive pass then finds
 * the structure broken). Such an SVG is drawn on the page each time, as
 * before. A look at the bytes, not a parse: a false yes only costs the
 * recording. */
static bool svg_may_link(const BookResource *r)
{
  gchar *data = NULL;
  if (!g_file_get_contents(r->path, &data, NULL, NULL))
    return true;
  bool link = g_regex_match_simple("<([A-Za-z_][A-Za-z0-9_.-]*:)?a[\\s/>]", data, 0, 0);
  g_free(data);
  return link;
}

/* The memory a raster surface holds: a JPEG drawn as it is, its data
 * (its pixels are never drawn: cairo writes the data); else its pixels.
 * 0 for a recording (an SVG's vectors, kept). */
static gsize raster_bytes(cairo_surface_t *s)
{
  if (!s || cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE)
    return 0;
  const unsigned char *jpeg = NULL;
  unsigned long len = 0;
  cairo_surface_get_mime_data(s, CAIRO_MIME_TYPE_JPEG, &jpeg, &len);
  if (jpeg && cairo_image_surface_get_format(s) == CAIRO_FORMAT_RGB24 && len)
    return len;
  return (gsize)cairo_image_surface_get_stride(s) * (gsize)cairo_image_surface_get_height(s);
}

/* r's image for the item it: loaded the first time, again when it needs
 * more pixels than the last load has; NULL (warned once) when it cannot
 * be drawn. */
static Image *load_image(Painter *p, const LayItem *it)
{
  const BookResource *r = it->res;
  gpointer v;
  Image *im = NULL;
  bool again = false; /* set aside: decoded again at its size, when that is enough */
  if (g_hash_table_lookup_extended(p->images, r, NULL, &v)) {
    im = v;
    if (!im || im->svg || (im->full && im->surface))
      return im;
    int w, h;
    bool full;
    needed_px(p, it, r->width_px, r->height_px, &w, &h, &full);
    if (w <= im->w && h <= im->h) {
      if (im->surface)
        return im;
      again = true;
    }
  }
  GError *err = NULL;
  cairo_surface_t *s = NULL;
  double w = 0, h = 0;
  bool full = false, svg = r->kind == BOOK_IMAGE_SVG;
  RsvgHandle *handle = NULL;
  if (svg) {
    handle = imagelibs_svg_load(r->path, &err);
    if (handle && p->target != PAINT_RASTER && !svg_may_link(r)) { /* recorded once */
      s = record_svg(p, r, it, handle, &err);
      g_clear_object(&handle);
      w = it->w_pt;
      h = it->h_pt;
    }
  } else if (r->width_px > 0 && r->height_px > 0) {
    int pw, ph, sw, sh;
    needed_px(p, it, r->width_px, r->height_px, &pw, &ph, &full);
    if (again) { /* im->w x im->h: a decoded raster's pixels (a placeholder is full) */
      pw = (int)im->w;
      ph = (int)im->h;
      full = im->full;
    }
    s = decode_raster(p, r, pw, ph, full, &sw, &sh, &err);
    w = sw;
    h = sh;
  }
  if (!s && !handle) {
    if (p->book && (!im || !im->surface))
      book_diag(p->book, BOOK_WARNING, &it->pos,
                "image %s cannot be drawn in the PDF%s%s; a frame "
                "stands in its place",
                r->src, err ? ": " : "", err ? err->message : "");
    if (err)
      g_error_free(err);
    if (!im)
      g_hash_table_insert(p->images, (gpointer)r, NULL);
    return im && im->surface ? im : NULL; /* a larger decode failed: the smaller one draws */
  }
  if (err)
    g_error_free(err);
  Image *n = g_new0(Image, 1);
  n->surface = s;
  n->handle = handle;
  n->svg = svg;
  n->w = w;
  n->h = h;
  n->full = full;
  if (!p->uses)
    count_uses(p);
  n->left = im ? im->left : GPOINTER_TO_UINT(g_hash_table_lookup(p->uses, r));
  n->bytes = raster_bytes(s);
  if (im)
    p->kept -= im->bytes;
  p->kept += n->bytes;
  g_hash_table_insert(p->images, (gpointer)r, n); /* frees im */
  return n;
}

/* One draw of r done: after its last, released once its page is shown
 * (paint_items; cairo holds the page's sources until then). */
static void image_drawn(Painter *p, const BookResource *r, Image *im)
{
  im->page = p->pages;
  if (im->left > 0 && --im->left == 0)
    g_ptr_array_add(p->done, (gpointer)r);
}

/* A copy of a raster image surface (pixels, or a JPEG's data). cairo 1.16
 * names a surface drawn twice on one PDF page twice in the page's
 * resources (a dictionary with a duplicated key, which qpdf --check
 * reports): the second and later draws of a colour glyph on a page each
 * use a copy, a resource of its own (an image file drawn again is put in a
 * group instead: draw_image). */
static cairo_surface_t *surface_copy(cairo_surface_t *s)
{
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  cairo_surface_t *c = cairo_image_surface_create(cairo_image_surface_get_format(s), w, h);
  const unsigned char *jpeg = NULL;
  unsigned long len = 0;
  cairo_surface_get_mime_data(s, CAIRO_MIME_TYPE_JPEG, &jpeg, &len);
  if (jpeg) {
    unsigned char *d = g_memdup2(jpeg, len);
    cairo_surface_set_mime_data(c, CAIRO_MIME_TYPE_JPEG, d, len, g_free, d);
    return c;
  }
  cairo_t *cr = cairo_create(c);
  cairo_set_source_surface(cr, s, 0, 0);
  cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
  cairo_paint(cr);
  cairo_destroy(cr);
  return c;
}

static void draw_image(Painter *p, const LayItem *it)
{
  cairo_t *cr = p->cr;
  Image *im = it->res ? load_image(p, it) : NULL;
  if (!im) {
    cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
    cairo_set_line_width(cr, 0.5);
    cairo_rectangle(cr, it->x_pt, it->y_pt, it->w_pt, it->h_pt);
    cairo_stroke(cr);
    return;
  }
  if (im->handle) {
    RsvgRectangle vp = {it->x_pt, it->y_pt, it->w_pt, it->h_pt};
    GError *err = NULL;
    cairo_save(cr);
    if (!imagelibs_svg_render(im->handle, cr, &vp, &err)) {
      if (p->book)
        book_diag(p->book, BOOK_WARNING, &it->pos, "image %s: %s", it->res->src, err->message);
      g_error_free(err);
    }
    cairo_restore(cr);
    return;
  }
  double sw = im->w, sh = im->h;
  if (sw <= 0 || sh <= 0)
    return;
  /* drawn on this page already: in a group (a form XObject of its own,
   * with resources of its own), since cairo 1.16 would name the image
   * twice in the page's resources (a duplicated key, which qpdf --check
   * reports); the image is still stored once */
  bool again = p->target != PAINT_RASTER && !g_hash_table_add(p->on_page, (gpointer)it->res);
  cairo_save(cr);
  if (again) {
    cairo_rectangle(cr, it->x_pt, it->y_pt, it->w_pt, it->h_pt);
    cairo_clip(cr);
    cairo_push_group(cr);
  }
  cairo_save(cr);
  cairo_translate(cr, it->x_pt, it->y_pt);
  cairo_scale(cr, it->w_pt / sw, it->h_pt / sh);
  cairo_set_source_surface(cr, im->surface, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), image_filter(p));
  /* fill the image's rectangle, never cairo_paint(): cairo 1.16 fails the
   * whole file with a tag error at cairo_surface_finish() when an (unbounded)
   * paint of a surface pattern stands inside a structure tag (a Figure) */
  cairo_rectangle(cr, 0, 0, sw, sh);
  cairo_fill(cr);
  cairo_restore(cr);
  if (again) {
    cairo_pop_group_to_source(cr);
    cairo_rectangle(cr, it->x_pt, it->y_pt, it->w_pt, it->h_pt);
    cairo_fill(cr);
  }
  cairo_restore(cr);
  image_drawn(p, it->res, im);
}

static void draw_link(cairo_t *cr, const LayItem *it)
{
  GString *a = g_string_new(NULL);
  g_string_append_printf(a, "rect=[%.2f %.2f %.2f %.2f] ", it->x_pt, it->y_pt, it->w_pt, it->h_pt);
  if (it->uri) {
    g_string_append(a, "uri=");
    paint_attr_str(a, it->uri);
  } else {
    g_string_append(a, "dest=");
    char *name = util_pdf_dest_name(it->dest);
    paint_attr_str(a, name);
    g_free(name);
  }
  cairo_tag_begin(cr, CAIRO_TAG_LINK, a->str);
  cairo_tag_end(cr, CAIRO_TAG_LINK);
  g_string_free(a, TRUE);
}

static void draw_dest(cairo_t *cr, const LayItem *it)
{
  GString *a = g_string_new("name=");
  char *name = util_pdf_dest_name(it->dest);
  paint_attr_str(a, name);
  g_free(name);
  g_string_append_printf(a, " x=%.2f y=%.2f", it->x_pt, it->y_pt);
  cairo_tag_begin(cr, CAIRO_TAG_DEST, a->str);
  cairo_tag_end(cr, CAIRO_TAG_DEST);
  g_string_free(a, TRUE);
}

void paint_font_ready(PangoFont *font)
{
  fontlock_enter();
  fontlock_draw_font(font);
  fontlock_leave();
}

Painter *paint_new(cairo_t *cr, PaintTarget target, Book *book)
{
  Painter *p = g_new0(Painter, 1);
  p->cr = cr;
  p->target = target;
  p->book = book;
  p->images = g_hash_table_new_full(NULL, NULL, NULL, image_free);
  p->colour =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)cairo_surface_destroy);
  p->on_page = g_hash_table_new(NULL, NULL);
  p->done = g_ptr_array_new();
  p->gs = pango_glyph_string_new();
  p->item = pango_item_new();
  p->cglyphs = g_array_new(FALSE, FALSE, sizeof(cairo_glyph_t));
  p->clusters = g_array_new(FALSE, FALSE, sizeof(cairo_text_cluster_t));
  return p;
}

void paint_set_image_dpi(Painter *p, double dpi)
{
  p->image_dpi = dpi;
}

void paint_set_pngpass(Painter *p, PngPass *pngs)
{
  p->pngs = p->target != PAINT_RASTER ? pngs : NULL;
}

/* The images drawn for the last time on the page shown since: released
 * (a later draw, which the book's count did not foresee, loads it again;
 * its key is the same, so cairo still stores it once). */
static void release_done(Painter *p)
{
  for (guint i = 0; i < p->done->len; i++) {
    Image *im = g_hash_table_lookup(p->images, p->done->pdata[i]);
    if (im)
      p->kept -= im->bytes;
    g_hash_table_remove(p->images, p->done->pdata[i]);
  }
  g_ptr_array_set_size(p->done, 0);
}

static gint by_page(gconstpointer a, gconstpointer b)
{
  const Image *x = *(Image *const *)a, *y = *(Image *const *)b;
  return x->page < y->page ? -1 : x->page > y->page;
}

/* The decoded rasters kept for later pages brought within IMAGES_KEPT
 * (after a page is shown: cairo holds a page's sources until then), those
 * drawn longest ago set aside first: their pixels freed, their size kept,
 * so that their next draw decodes the same pixels under the same key. */
static void set_aside(Painter *p)
{
  if (p->kept <= IMAGES_KEPT)
    return;
  GPtrArray *kept = g_ptr_array_new();
  GHashTableIter hi;
  gpointer v;
  g_hash_table_iter_init(&hi, p->images);
  while (g_hash_table_iter_next(&hi, NULL, &v)) {
    Image *im = v;
    if (im && im->surface && im->bytes)
      g_ptr_array_add(kept, im);
  }
  g_ptr_array_sort(kept, by_page);
  for (guint i = 0; i < kept->len && p->kept > IMAGES_KEPT; i++) {
    Image *im = kept->pdata[i];
    cairo_surface_destroy(im->surface);
    im->surface = NULL;
    p->kept -= im->bytes;
    im->bytes = 0;
  }
  g_ptr_array_free(kept, TRUE);
}

void paint_items(Painter *p, const GArray *items)
{
  bool pdf = p->target != PAINT_RASTER, tags = p->target == PAINT_PDF_TAGS;
  g_hash_table_remove_all(p->on_page); /* a page's items come in one call */
  release_done(p);
  set_aside(p);
  p->pages++;
  for (guint k = 0; k < items->len; k++) {
    const LayItem *it = &g_array_index(items, LayItem, k);
    switch (it->kind) {
    case LAY_GLYPHS: draw_glyphs(p, it); break;
    case LAY_RULE:
    case LAY_FRAME: {
      const LayItem *end = &g_array_index(items, LayItem, 0) + items->len;
      k += draw_box(p->cr, it, end, it->kind == LAY_RULE) - 1;
      break;
    }
    case LAY_IMAGE: draw_image(p, it); break;
    case LAY_LINK:
      if (pdf)
        draw_link(p->cr, it);
      break;
    case LAY_DEST:
      if (pdf)
        draw_dest(p->cr, it);
      break;
    case LAY_TAG_BEGIN:
      if (tags) {
        cairo_tag_begin(p->cr, it->tag, "");
        p->depth++;
      }
      break;
    case LAY_TAG_END:
      if (tags && p->depth > 0) {
        cairo_tag_end(p->cr, it->tag);
        p->depth--;
      }
      break;
    }
  }
}

int paint_open_tags(const Painter *p)
{
  return p->depth;
}

void paint_free(Painter *p)
{
  if (!p)
    return;
  g_hash_table_destroy(p->images);
  if (p->uses)
    g_hash_table_destroy(p->uses);
  g_ptr_array_free(p->done, TRUE);
  g_hash_table_destroy(p->colour);
  g_hash_table_destroy(p->on_page);
  pango_glyph_string_free(p->gs);
  pango_item_free(p->item);
  g_array_free(p->cglyphs, TRUE);
  g_array_free(p->clusters, TRUE);
  g_free(p);
}
