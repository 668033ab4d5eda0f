/* imageenc.c: pixels octavo drew, encoded (libpng): the cover's PNG for
 * the e-book. Moved out of cover.c, which designs the cover (issue 32). */
#include "imageenc.h"

#include <png.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

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

/* What a mapped surface's memory is: unmapped when cairo frees it. */
typedef struct {
  void *mem;
  size_t len;
} Mapping;

static const cairo_user_data_key_t mapping_key;

static void unmap(void *data)
{
  Mapping *m = data;
  munmap(m->mem, m->len);
  g_free(m);
}

/* An RGB24 surface of w x h on anonymous mapped memory (flags: mmap's
 * more), unmapped when cairo frees it; else cairo's own. */
static cairo_surface_t *mapped_surface(int w, int h, int flags)
{
  int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, w);
  size_t len = (size_t)stride * (size_t)(h > 0 ? h : 0);
  void *mem = stride > 0 && len > 0
                  ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0)
                  : MAP_FAILED;
  if (mem != MAP_FAILED) {
    cairo_surface_t *s = cairo_image_surface_create_for_data(mem, CAIRO_FORMAT_RGB24, w, h, stride);
    Mapping *m = g_new(Mapping, 1);
    *m = (Mapping){mem, len};
    if (cairo_surface_set_user_data(s, &mapping_key, m, unmap) == CAIRO_STATUS_SUCCESS)
      return s;
    cairo_surface_destroy(s); /* cairo failed: unmapped, and the plain surface tried */
    unmap(m);
  }
  return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
}

cairo_surface_t *imageenc_surface(int w, int h)
{
#ifdef MAP_POPULATE
  return mapped_surface(w, h, MAP_POPULATE);
#else
  return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
#endif
}

GBytes *imageenc_png(cairo_surface_t *s)
{
  GByteArray *png = write_png_palette(s);
  if (!png)
    png = write_png_rgb(s);
  return png ? g_byte_array_free_to_bytes(png) : NULL;
}
