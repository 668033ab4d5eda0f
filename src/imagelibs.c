/* imagelibs.c: gdk-pixbuf and librsvg through GModule, each opened once on
 * first use and kept open. Only the few calls octavo makes go through
 * here; the libraries' types come from their headers as before. A library
 * that cannot be opened is an error of the image being drawn or checked
 * (the callers warn with its position and draw a frame in its place). */
#include "imagelibs.h"

#include <gmodule.h>

#include <errno.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>


#include "fontlock.h"

/* The sonames of Debian 12's libgdk-pixbuf-2.0-0 and librsvg2-2, which
 * librsvg2-dev and libgdk-pixbuf-2.0-dev (BUILD_PKGS) pull in. */
#define PIXBUF_SONAME "libgdk_pixbuf-2.0.so.0"
#define RSVG_SONAME "librsvg-2.so.2"

typedef struct {
  GdkPixbuf *(*new_from_file)(const char *, GError **);
  int (*get_width)(const GdkPixbuf *);
  int (*get_height)(const GdkPixbuf *);
  int (*get_n_channels)(const GdkPixbuf *);
  int (*get_rowstride)(const GdkPixbuf *);
  gboolean (*get_has_alpha)(const GdkPixbuf *);
  const guint8 *(*read_pixels)(const GdkPixbuf *);
  GdkPixbufLoader *(*loader_new)(void);
  gboolean (*loader_write)(GdkPixbufLoader *, const guchar *, gsize, GError **);
  gboolean (*loader_close)(GdkPixbufLoader *, GError **);
  void (*loader_set_size)(GdkPixbufLoader *, int, int);
  GdkPixbuf *(*new_from_file_at_scale)(const char *, int, int, gboolean, GError **);
  gboolean (*save_to_bufferv)(GdkPixbuf *, gchar **, gsize *, const char *, char **, char **,
                              GError **);
  char *error; /* why the library is missing, or NULL */
} PixbufApi;

typedef struct {
  RsvgHandle *(*new_from_file)(const char *, GError **);
  gboolean (*render_document)(RsvgHandle *, cairo_t *, const RsvgRectangle *, GError **);
  char *error;
} RsvgApi;

/* Opens soname and looks up names[i] into slots[i]; returns NULL, or why
 * not (g_free). The module stays open for the life of the process. */
static char *open_lib(const char *soname, const char *const *names, gpointer *slots, size_t n)
{
  GModule *m = g_module_open(soname, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (!m)
    return g_strdup_printf("cannot open %s: %s", soname, g_module_error());
  for (size_t i = 0; i < n; i++)
    if (!g_module_symbol(m, names[i], &slots[i]) || !slots[i]) {
      char *why = g_strdup_printf("%s has no %s", soname, names[i]);
      g_module_close(m);
      return why;
    }
  g_module_make_resident(m);
  return NULL;
}

static gpointer open_pixbuf(gpointer unused)
{
  static PixbufApi api;
  static const char *const names[] = {"gdk_pixbuf_new_from_file", "gdk_pixbuf_get_width",
                                      "gdk_pixbuf_get_height",    "gdk_pixbuf_get_n_channels",
                                      "gdk_pixbuf_get_rowstride", "gdk_pixbuf_get_has_alpha",
                                      "gdk_pixbuf_read_pixels",   "gdk_pixbuf_loader_new",
                                      "gdk_pixbuf_loader_write",  "gdk_pixbuf_loader_close",
                                      "gdk_pixbuf_loader_set_size",
                                      "gdk_pixbuf_new_from_file_at_scale",
                                      "gdk_pixbuf_save_to_bufferv"};
  gpointer slots[G_N_ELEMENTS(names)] = {0};
  api.error = open_lib(PIXBUF_SONAME, names, slots, G_N_ELEMENTS(names));
  if (!api.error) {
    api.new_from_file = (GdkPixbuf * (*)(const char *, GError **)) slots[0];
    api.get_width = (int (*)(const GdkPixbuf *))slots[1];
    api.get_height = (int (*)(const GdkPixbuf *))slots[2];
    api.get_n_channels = (int (*)(const GdkPixbuf *))slots[3];
    api.get_rowstride = (int (*)(const GdkPixbuf *))slots[4];
    api.get_has_alpha = (gboolean(*)(const GdkPixbuf *))slots[5];
    api.read_pixels = (const guint8 *(*)(const GdkPixbuf *))slots[6];
    api.loader_new = (GdkPixbufLoader * (*)(void)) slots[7];
    api.loader_write =
        (gboolean(*)(GdkPixbufLoader *, const guchar *, gsize, GError **))slots[8];
    api.loader_close = (gboolean(*)(GdkPixbufLoader *, GError **))slots[9];
    api.loader_set_size = (void (*)(GdkPixbufLoader *, int, int))slots[10];
    api.new_from_file_at_scale =
        (GdkPixbuf * (*)(const char *, int, int, gboolean, GError **)) slots[11];
    api.save_to_bufferv = (gboolean(*)(GdkPixbuf *, gchar **, gsize *, const char *, char **,
                                       char **, GError **))slots[12];
  }
  return &api;
}

static gpointer open_rsvg(gpointer unused)
{
  static RsvgApi api;
  static const char *const names[] = {"rsvg_handle_new_from_file", "rsvg_handle_render_document"};
  gpointer slots[G_N_ELEMENTS(names)] = {0};
  api.error = open_lib(RSVG_SONAME, names, slots, G_N_ELEMENTS(names));
  if (!api.error) {
    api.new_from_file = (RsvgHandle * (*)(const char *, GError **)) slots[0];
    api.render_document =
        (gboolean(*)(RsvgHandle *, cairo_t *, const RsvgRectangle *, GError **))slots[1];
  }
  return &api;
}

/* pthread_once, not GOnce: a race checker sees what POSIX's once orders. */
static pthread_once_t pixbuf_once = PTHREAD_ONCE_INIT;
static const PixbufApi *pixbuf_opened;
static void open_pixbuf_once(void)
{
  pixbuf_opened = open_pixbuf(NULL);
}

static pthread_once_t rsvg_once = PTHREAD_ONCE_INIT;
static const RsvgApi *rsvg_opened;
static void open_rsvg_once(void)
{
  rsvg_opened = open_rsvg(NULL);
}

static const PixbufApi *pixbuf_api(GError **err)
{
  pthread_once(&pixbuf_once, open_pixbuf_once);
  const PixbufApi *api = pixbuf_opened;
  if (api->error) {
    g_set_error_literal(err, G_FILE_ERROR, G_FILE_ERROR_NOENT, api->error);
    return NULL;
  }
  return api;
}

static const RsvgApi *rsvg_api(GError **err)
{
  pthread_once(&rsvg_once, open_rsvg_once);
  const RsvgApi *api = rsvg_opened;
  if (api->error) {
    g_set_error_literal(err, G_FILE_ERROR, G_FILE_ERROR_NOENT, api->error);
    return NULL;
  }
  return api;
}

/* The loader's "size-prepared": decode at an eighth of the size at most.
 * libjpeg then decodes the DCT at 1/8 scale (every byte of the data is
 * still read, so a truncated file is still found) and a 4000 x 3000 photo
 * takes 750 kB instead of 36 MB; other formats are decoded whole and
 * scaled at the end (a PNG is checked by cairo, image.c). */
static void check_small(GdkPixbufLoader *l, int w, int h, gpointer api)
{
  ((const PixbufApi *)api)->loader_set_size(l, w > 8 ? w / 8 : w, h > 8 ? h / 8 : h);
}

bool imagelibs_pixbuf_check(const char *path, bool *cut_short, GError **err)
{
  *cut_short = false;
  const PixbufApi *api = pixbuf_api(err);
  if (!api)
    return false;
  FILE *f = fopen(path, "rb");
  if (!f) {
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot read %s: %s", path,
                g_strerror(errno));
    return false;
  }
  GdkPixbufLoader *l = api->loader_new();
  g_signal_connect(l, "size-prepared", G_CALLBACK(check_small), (gpointer)api);
  guchar *buf = g_malloc(65536);
  bool ok = true;
  size_t got;
  while (ok && (got = fread(buf, 1, 65536, f)) > 0)
    ok = api->loader_write(l, buf, got, err);
  if (ok && ferror(f)) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot read %s", path);
    ok = false;
  }
  /* Closed also after a failed write (a loader must be closed before it
   * is freed); its second error is dropped. What close reports is data
   * that ended before the image did. */
  if (!api->loader_close(l, ok ? err : NULL) && ok) {
    ok = false;
    *cut_short = true;
  }
  g_object_unref(l);
  g_free(buf);
  fclose(f);
  return ok;
}

/* pb's pixels as cairo wants them (imagelibs_pixbuf_surface). */
static cairo_surface_t *pixbuf_to_surface(const PixbufApi *api, GdkPixbuf *pb)
{
  int w = api->get_width(pb), h = api->get_height(pb);
  int n = api->get_n_channels(pb), rs = api->get_rowstride(pb);
  bool alpha = api->get_has_alpha(pb);
  cairo_surface_t *s =
      cairo_image_surface_create(alpha ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24, w, h);
  const guchar *src = api->read_pixels(pb);
  unsigned char *dst = cairo_image_surface_get_data(s);
  int ds = cairo_image_surface_get_stride(s);
  cairo_surface_flush(s);
  for (int y = 0; y < h && dst; y++) {
    const guchar *sp = src + (gsize)y * rs;
    guint32 *dp = (guint32 *)(dst + (gsize)y * ds);
    for (int x = 0; x < w; x++, sp += n) {
      guint32 a = alpha ? sp[3] : 255;
      guint32 r = sp[0] * a / 255, g = sp[1] * a / 255, b = sp[2] * a / 255;
      dp[x] = a << 24 | r << 16 | g << 8 | b;
    }
  }
  cairo_surface_mark_dirty(s);
  return s;
}

cairo_surface_t *imagelibs_pixbuf_surface(const char *path, GError **err)
{
  return imagelibs_pixbuf_surface_at(path, 0, 0, NULL, NULL, err);
}

cairo_surface_t *imagelibs_pixbuf_surface_at(const char *path, int w, int h, guchar **jpeg,
                                             gsize *jpeg_len, GError **err)
{
  const PixbufApi *api = pixbuf_api(err);
  if (!api)
    return NULL;
  GdkPixbuf *pb = w > 0 && h > 0 ? api->new_from_file_at_scale(path, w, h, FALSE, err)
                                 : api->new_from_file(path, err);
  if (!pb)
    return NULL;
  cairo_surface_t *s = pixbuf_to_surface(api, pb);
  if (jpeg) {
    /* quality 90 with 4:2:0 chroma (libjpeg's default): deterministic bytes */
    char *keys[] = {"quality", NULL}, *values[] = {"90", NULL};
    gchar *buf = NULL;
    gsize len = 0;
    if (!api->get_has_alpha(pb) && api->save_to_bufferv(pb, &buf, &len, "jpeg", keys, values, NULL)) {
      *jpeg = (guchar *)buf;
      *jpeg_len = len;
    } else {
      *jpeg = NULL;
      *jpeg_len = 0;
    }
  }
  g_object_unref(pb);
  return s;
}

RsvgHandle *imagelibs_svg_load(const char *path, GError **err)
{
  const RsvgApi *api = rsvg_api(err);
  return api ? api->new_from_file(path, err) : NULL;
}

bool imagelibs_svg_render(RsvgHandle *svg, cairo_t *cr, const RsvgRectangle *viewport, GError **err)
{
  const RsvgApi *api = rsvg_api(err);
  if (!api)
    return false;
  fontlock_enter(); /* an SVG's text is drawn with pango's fonts */
  bool ok = api->render_document(svg, cr, viewport, err);
  fontlock_leave();
  return ok;
}

/* ---- PNG row by row (libpng, linked: cairo needs it anyway) ---- */

/* What png_rows hands each row to: RGBA, 8 bits a channel, straight
 * alpha, w * 4 bytes. */
typedef void (*RowFn)(void *ud, int y, const guchar *rgba);

typedef struct {
  GError **err;
  jmp_buf jump;
} PngJump;

static void png_fail(png_structp png, png_const_charp msg)
{
  PngJump *j = png_get_error_ptr(png);
  g_set_error(j->err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s", msg);
  longjmp(j->jump, 1);
}

static void png_quiet(png_structp png, png_const_charp msg)
{
  (void)png;
  (void)msg;
}

/* Decode the PNG at path, each row (after the previous is used) handed to
 * row; *w, *h, *alpha (an alpha channel or a transparent colour) set
 * before the first. An interlaced file's rows come only once decoded
 * whole (libpng assembles the passes in them): *interlaced then says so
 * and row is never called unless whole is true. row NULL: only a check
 * that the data decodes (libpng inflates, checks every CRC and unfilters
 * each row, without the transforms to RGBA or a copy of the row). False
 * with *err set when the data does not decode to its end. */
static bool png_rows(const char *path, bool whole, RowFn row, void *ud, int *w, int *h,
                     bool *alpha, bool *interlaced, GError **err)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot read %s: %s", path,
                g_strerror(errno));
    return false;
  }
  PngJump j;
  memset(&j, 0, sizeof j);
  j.err = err;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &j, png_fail, png_quiet);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  guchar *volatile buf = NULL;
  volatile bool ok = false;
  if (!info) {
    g_set_error_literal(err, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "libpng: out of memory");
  } else if (setjmp(j.jump) == 0) {
    png_init_io(png, f);
    png_read_info(png, info);
    png_uint_32 pw = png_get_image_width(png, info), ph = png_get_image_height(png, info);
    int type = png_get_color_type(png, info);
    *alpha = (type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    if (row) { /* only the check reads no pixels: no transforms, no row copied */
      png_set_expand(png);
      png_set_strip_16(png);
      png_set_gray_to_rgb(png);
      if (!*alpha)
        png_set_filler(png, 0xff, PNG_FILLER_AFTER);
    }
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    *w = (int)pw;
    *h = (int)ph;
    *interlaced = passes > 1;
    gsize stride = (gsize)pw * 4;
    if (row && png_get_rowbytes(png, info) != stride)
      png_error(png, "unexpected row size");
    if (!row) { /* inflated, CRCs checked and unfiltered by libpng: nothing kept */
      for (int p = 0; p < passes; p++)
        for (png_uint_32 y = 0; y < ph; y++)
          png_read_row(png, NULL, NULL);
    } else if (passes > 1 && whole) { /* every row whole: the image at once */
      buf = g_malloc(stride * ph);
      for (int p = 0; p < passes; p++)
        for (png_uint_32 y = 0; y < ph; y++)
          png_read_row(png, buf + y * stride, NULL);
      for (png_uint_32 y = 0; y < ph; y++)
        row(ud, (int)y, buf + y * stride);
    } else {
      buf = g_malloc(stride);
      for (int p = 0; p < passes; p++)
        for (png_uint_32 y = 0; y < ph; y++) {
          png_read_row(png, buf, NULL);
          if (passes == 1 && row)
            row(ud, (int)y, buf);
        }
    }
    png_read_end(png, NULL);
    ok = true;
  }
  png_destroy_read_struct(&png, info ? &info : NULL, NULL);
  g_free(buf);
  fclose(f);
  return ok;
}

bool imagelibs_png_check(const char *path, GError **err)
{
  int w, h;
  bool alpha, interlaced;
  return png_rows(path, false, NULL, NULL, &w, &h, &alpha, &interlaced, err);
}

/* Boxes of k x k pixels averaged into one, row by row (premultiplied, so
 * that a transparent pixel's colour does not bleed). */
typedef struct {
  int k, w, h, ow, oh;
  guint32 *sum; /* ow * 4: premultiplied B, G, R and A of the boxes of this output row */
  guint32 *n;   /* ow: pixels in each */
  cairo_surface_t *out;
  guchar *data;
  int stride;
} Boxes;

static void box_flush(Boxes *b, int oy)
{
  guint32 *dst = (guint32 *)(b->data + (gsize)oy * b->stride);
  for (int x = 0; x < b->ow; x++) {
    guint32 n = b->n[x] ? b->n[x] : 1, *s = b->sum + 4 * x;
    dst[x] = (s[3] + n / 2) / n << 24 | (s[2] + n / 2) / n << 16 | (s[1] + n / 2) / n << 8 |
             (s[0] + n / 2) / n;
  }
  memset(b->sum, 0, sizeof(guint32) * 4 * (gsize)b->ow);
  memset(b->n, 0, sizeof(guint32) * (gsize)b->ow);
}

static void box_row(void *ud, int y, const guchar *rgba)
{
  Boxes *b = ud;
  for (int x = 0, W = b->ow * b->k; x < W && x < b->w; x++, rgba += 4) {
    guint32 a = rgba[3], *s = b->sum + 4 * (x / b->k);
    s[0] += rgba[2] * a / 255;
    s[1] += rgba[1] * a / 255;
    s[2] += rgba[0] * a / 255;
    s[3] += a;
    b->n[x / b->k]++;
  }
  if (y % b->k == b->k - 1 || y == b->h - 1)
    box_flush(b, y / b->k);
}

cairo_surface_t *imagelibs_png_surface_at(const char *path, int fw, int fh, int w, int h,
                                          GError **err)
{
  int k = MIN(fw / w, fh / h);
  if (k < 1)
    k = 1;
  Boxes b = {.k = k, .w = fw, .h = fh, .ow = (fw + k - 1) / k, .oh = (fh + k - 1) / k};
  b.sum = g_new0(guint32, 4 * (gsize)b.ow);
  b.n = g_new0(guint32, b.ow);
  b.out = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, b.ow, b.oh);
  b.data = cairo_image_surface_get_data(b.out);
  b.stride = cairo_image_surface_get_stride(b.out);
  int pw, ph;
  bool alpha, interlaced;
  bool ok = b.data && png_rows(path, true, box_row, &b, &pw, &ph, &alpha, &interlaced, err);
  g_free(b.sum);
  g_free(b.n);
  if (!ok || pw != fw || ph != fh) {
    if (ok)
      g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "the PNG changed while read");
    cairo_surface_destroy(b.out);
    return NULL;
  }
  cairo_surface_mark_dirty(b.out);
  if (b.ow == w && b.oh == h)
    return b.out;
  /* the rest of the way (less than 2 x): cairo's box filter */
  cairo_surface_t *s = cairo_image_surface_create(alpha ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create(s);
  cairo_scale(cr, (double)w / b.ow, (double)h / b.oh);
  cairo_set_source_surface(cr, b.out, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
  cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
  cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
  cairo_paint(cr);
  cairo_destroy(cr);
  cairo_surface_destroy(b.out);
  return s;
}
