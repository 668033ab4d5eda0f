/* imagelibs.c: gdk-pixbuf and librsvg through GModule, each opened once on
 * first use and kept open. Only the few calls octavo makes go through
 * here; the libraries' types come from their headers as before. A library
 * that cannot be opened is an error of the image being drawn or checked
 * (the callers warn with its position and draw a frame in its place). */
#include "imagelibs.h"

#include <gmodule.h>

#include <errno.h>
#include <stdio.h>
#include <pthread.h>

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
