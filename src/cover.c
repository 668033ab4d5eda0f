/* cover.c: the generated cover as layout items, designed once in points so
 * that the PNG for the e-book and the PDF's title page are the same design
 * at two sizes; paint.c draws the items on either surface. */
#include "cover.h"

#include "fontlock.h"
#include "labels.h"
#include "paint.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <png.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

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
  LayItem it = {.kind = LAY_IMAGE, .x_pt = (w - iw) / 2, .y_pt = (h - ih) / 2, .w_pt = iw,
                .h_pt = ih, .res = r};
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

static void png_append(png_structp png, png_bytep data, size_t len)
{
  g_byte_array_append(png_get_io_ptr(png), data, (guint)len);
}

static void png_flush(png_structp png)
{
}

/* A PNG writer into a byte array; NULL when libpng fails. */
static png_structp png_start(GByteArray *out, png_infop *info)
{
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  *info = png ? png_create_info_struct(png) : NULL;
  if (!*info) {
    png_destroy_write_struct(&png, info);
    return NULL;
  }
  png_set_write_fn(png, out, png_append, png_flush);
  return png;
}

/* The pixels of an RGB24 image surface as an 8-bit RGB PNG. cairo's own
 * writer lets libpng try every row filter, which costs more than drawing
 * the cover; a flat design compresses best unfiltered (smaller too). */
static GByteArray *write_png_rgb(cairo_surface_t *s)
{
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  int stride = cairo_image_surface_get_stride(s);
  const unsigned char *data = cairo_image_surface_get_data(s);
  GByteArray *out = g_byte_array_new();
  png_infop info = NULL;
  png_structp png = png_start(out, &info);
  if (!png || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    g_byte_array_unref(out);
    return NULL;
  }
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_write_info(png, info);
  /* cairo's RGB24 pixel is a native-endian 32-bit 0x00RRGGBB */
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  png_set_filler(png, 0, PNG_FILLER_AFTER);
  png_set_bgr(png);
#else
  png_set_filler(png, 0, PNG_FILLER_BEFORE);
#endif
  for (int y = 0; y < h; y++)
    png_write_row(png, data + (gsize)y * stride);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return out;
}

/* The colours of an image: each distinct 0xRRGGBB with its number of
 * pixels, in the order they first appear (so the palette is the same for
 * the same pixels), and the palette entry each one is written as. */
typedef struct {
  GHashTable *index; /* colour -> its position in colours + 1 */
  GArray *colours;   /* Colour */
} Colours;

typedef struct {
  guint32 rgb;
  guint8 entry; /* palette entry */
  gsize pixels;
} Colour;

/* The position of pixel colour c in k->colours, added when new. */
static guint colour_of(Colours *k, guint32 c)
{
  guint i = GPOINTER_TO_UINT(g_hash_table_lookup(k->index, GUINT_TO_POINTER(c)));
  if (i)
    return i - 1;
  Colour col = {c, 0, 0};
  g_array_append_val(k->colours, col);
  g_hash_table_insert(k->index, GUINT_TO_POINTER(c), GUINT_TO_POINTER(k->colours->len));
  return k->colours->len - 1;
}

static gint by_pixels(gconstpointer pa, gconstpointer pb, gpointer colours)
{
  const Colour *a = &g_array_index((GArray *)colours, Colour, *(const guint *)pa);
  const Colour *b = &g_array_index((GArray *)colours, Colour, *(const guint *)pb);
  if (a->pixels != b->pixels)
    return a->pixels > b->pixels ? -1 : 1;
  return *(const guint *)pa < *(const guint *)pb ? -1 : 1;
}

static guint32 distance2(guint32 a, guint32 b)
{
  int dr = (int)(a >> 16 & 0xff) - (int)(b >> 16 & 0xff);
  int dg = (int)(a >> 8 & 0xff) - (int)(b >> 8 & 0xff);
  int db = (int)(a & 0xff) - (int)(b & 0xff);
  return (guint32)(dr * dr + dg * dg + db * db);
}

/* Palette entries for k's colours: each its own when there are at most
 * 256; else the 256 most frequent keep theirs and each rarer one (a few
 * shades of anti-aliased edges) takes its nearest, if they are at most one
 * pixel in 2,000. Fills pal (RGB triples) and *n; false when the image
 * needs more colours than a palette holds. */
static bool choose_palette(Colours *k, gsize pixels, png_color pal[256], int *n)
{
  guint len = k->colours->len;
  guint *order = g_new(guint, len);
  for (guint i = 0; i < len; i++)
    order[i] = i;
  if (len > 256)
    g_qsort_with_data(order, (gint)len, sizeof *order, by_pixels, k->colours);
  guint kept = MIN(len, 256);
  gboolean *keep = g_new0(gboolean, len);
  for (guint i = 0; i < kept; i++)
    keep[order[i]] = TRUE;
  gsize dropped = 0;
  *n = 0;
  for (guint i = 0; i < len; i++) { /* kept colours, in order of appearance */
    Colour *c = &g_array_index(k->colours, Colour, i);
    if (!keep[i]) {
      dropped += c->pixels;
      continue;
    }
    c->entry = (guint8)*n;
    pal[*n] = (png_color){(png_byte)(c->rgb >> 16), (png_byte)(c->rgb >> 8), (png_byte)c->rgb};
    (*n)++;
  }
  for (guint i = 0; i < len && dropped * 2000 <= pixels; i++) {
    Colour *c = &g_array_index(k->colours, Colour, i);
    guint32 best = G_MAXUINT32;
    for (guint j = 0; j < len && !keep[i]; j++) {
      const Colour *o = &g_array_index(k->colours, Colour, j);
      if (keep[j] && distance2(c->rgb, o->rgb) < best) {
        best = distance2(c->rgb, o->rgb);
        c->entry = o->entry;
      }
    }
  }
  g_free(keep);
  g_free(order);
  return dropped * 2000 <= pixels;
}

/* Whether row y of an RGB24 image has the pixels of the row above (most
 * of a cover's rows are paper): its colours need not be looked up again. */
static bool same_row(const unsigned char *data, int y, int w, int stride)
{
  return y > 0 &&
         memcmp(data + (gsize)y * stride, data + (gsize)(y - 1) * stride, (gsize)w * 4) == 0;
}

typedef struct {
  guint at; /* in colours */
  guint n;  /* pixels */
} Run;

/* k's colours and their pixels from an RGB24 image (cairo's pixel is a
 * native-endian 32-bit 0x00RRGGBB): a run of one colour is looked up once,
 * and a row that repeats the one above adds that row's runs again. */
static void count_colours(Colours *k, const unsigned char *data, int w, int h, int stride)
{
  GArray *runs = g_array_sized_new(FALSE, FALSE, sizeof(Run), 64);
  guint32 last = G_MAXUINT32; /* no pixel's: the first looks its colour up */
  guint at = 0;
  for (int y = 0; y < h; y++) {
    const guint32 *row = (const guint32 *)(data + (gsize)y * stride);
    if (!same_row(data, y, w, stride)) {
      g_array_set_size(runs, 0);
      Run *cur = NULL;
      for (int x = 0; x < w; x++) {
        guint32 c = row[x] & 0xffffff;
        if (c != last || !cur) {
          if (c != last)
            at = colour_of(k, last = c);
          g_array_append_val(runs, ((Run){at, 0}));
          cur = &g_array_index(runs, Run, runs->len - 1);
        }
        cur->n++;
      }
    }
    for (guint i = 0; i < runs->len; i++) {
      const Run *r = &g_array_index(runs, Run, i);
      g_array_index(k->colours, Colour, r->at).pixels += r->n;
    }
  }
  g_array_free(runs, TRUE);
}

/* The pixels of an RGB24 image surface as an 8-bit palette PNG: a third
 * of the bytes of RGB to checksum and deflate (the cover's text is one ink
 * anti-aliased over one paper: the seed's cover has 258 colours). With
 * run-length deflate, 70 M instructions where the RGB PNG took 250 M, and
 * 23 kB against 32 kB. NULL when the image has too many colours for a
 * palette, or libpng fails. */
static GByteArray *write_png_palette(cairo_surface_t *s)
{
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  int stride = cairo_image_surface_get_stride(s);
  const unsigned char *data = cairo_image_surface_get_data(s);
  Colours k = {g_hash_table_new(NULL, NULL), g_array_new(FALSE, FALSE, sizeof(Colour))};
  count_colours(&k, data, w, h, stride);
  png_color pal[256];
  int n = 0;
  GByteArray *out = NULL;
  png_bytep line = NULL;
  png_infop info = NULL;
  png_structp png = NULL;
  if (!choose_palette(&k, (gsize)w * (gsize)h, pal, &n))
    goto done;
  out = g_byte_array_new();
  line = g_malloc((gsize)w);
  png = png_start(out, &info);
  if (!png || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    g_byte_array_unref(out);
    out = NULL;
    goto done;
  }
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_PALETTE,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_PLTE(png, info, pal, n);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  /* runs of one entry: run-length matches deflate the cover in 35 M
   * instructions where the default search took 79 M, 23 kB against 19 kB */
  png_set_compression_strategy(png, Z_RLE);
  png_write_info(png, info);
  guint32 last = G_MAXUINT32; /* no pixel's: the first looks its colour up */
  guint8 entry = 0;
  for (int y = 0; y < h; y++) {
    const guint32 *row = (const guint32 *)(data + (gsize)y * stride);
    bool again = same_row(data, y, w, stride); /* line holds this row already */
    for (int x = 0; x < w && !again; x++) {
      guint32 c = row[x] & 0xffffff;
      if (c != last)
        entry = g_array_index(k.colours, Colour, colour_of(&k, last = c)).entry;
      line[x] = entry;
    }
    png_write_row(png, line);
  }
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
done:
  g_free(line);
  g_hash_table_destroy(k.index);
  g_array_free(k.colours, TRUE);
  return out;
}

/* An RGB24 image surface whose pixels are mapped in one step: cairo's
 * first fill would otherwise fault them in a page at a time, which costs
 * more than the fill (6 MB, 1,465 faults). *mem and *len: to munmap. */
static cairo_surface_t *populated_surface(int w, int h, void **mem, size_t *len)
{
  *mem = NULL;
  int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, w);
#ifdef MAP_POPULATE
  *len = (size_t)stride * (size_t)h;
  void *m =
      mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (m != MAP_FAILED) {
    *mem = m;
    return cairo_image_surface_create_for_data(m, CAIRO_FORMAT_RGB24, w, h, stride);
  }
#endif
  return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
}

GBytes *cover_png(const Book *book, const Fonts *fonts, const CoverStyle *cs, int w_px, int h_px,
                  GError **err)
{
  void *mem;
  size_t len;
  cairo_surface_t *s = populated_surface(w_px, h_px, &mem, &len);
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
  GByteArray *png = NULL;
  if (st == CAIRO_STATUS_SUCCESS && !(png = write_png_palette(s)))
    png = write_png_rgb(s);
  cairo_surface_destroy(s);
#ifdef MAP_POPULATE
  if (mem)
    munmap(mem, len);
#endif
  if (!png) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot draw the cover: %s",
                st != CAIRO_STATUS_SUCCESS ? cairo_status_to_string(st) : "libpng failed");
    return NULL;
  }
  return g_byte_array_free_to_bytes(png);
}
