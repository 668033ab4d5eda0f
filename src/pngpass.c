/* pngpass.c: a PNG copied into the PDF as its own compressed data (see
 * pngpass.h).
 *
 * A PNG's IDAT chunks, concatenated, are one zlib stream of filtered
 * rows: exactly what a PDF image with /FlateDecode and /DecodeParms
 * << /Predictor 15 ... >> holds (PNG's per-row filter byte is what
 * predictors 10-15 read), for the colour types a PDF colour space takes
 * as they are. What qualifies (copyable): non-interlaced (a PDF has no
 * Adam7), gray of 1, 2, 4 or 8 bits, RGB of 8, a palette of 1, 2, 4 or 8;
 * no alpha channel and no tRNS (a PDF would need a soft mask, decoded),
 * no 16 bits (cairo's decode keeps 8: the copy would draw other values).
 * Drawn the other way (cairo_image_surface_create_from_png), the same
 * pixels come out: cairo 1.16 expands gray of 1-4 bits to 8 by scaling
 * (as DeviceGray reads them), a palette to RGB (as Indexed does), and
 * ignores gAMA, iCCP, sRGB, cHRM and sBIT (it never asks libpng for
 * gamma or colour management), so the copy ignores them too. A palette is
 * padded with black to 2^depth entries: libpng 1.6 reads an index past
 * the PLTE as black.
 *
 * The walk over the chunks is the PNG format's own framing (a length, a
 * type, the data, a CRC-32), not a decoder: libpng checks that the data
 * decodes at parse time (image.c); here the critical chunks' CRCs are
 * checked with zlib's crc32 (the ones before the first IDAT when the
 * painter decides, all of them when the data is copied), as libpng does. */
#include "pngpass.h"

#include <string.h>
#include <zlib.h>

typedef struct {
  guint32 w, h;
  int depth, ctype, interlace;
  bool trns;
  int plte_n; /* palette entries (0: none) */
  guchar plte[3 * 256];
} PngHead;

typedef struct {
  char *path;
  PngHead head;
} Entry;

struct PngPass {
  GPtrArray *entries;  /* Entry * */
  GHashTable *by_path; /* path -> entry number + 1 */
};

static void entry_free(gpointer p)
{
  Entry *e = p;
  g_free(e->path);
  g_free(e);
}

PngPass *pngpass_new(void)
{
  PngPass *t = g_new0(PngPass, 1);
  t->entries = g_ptr_array_new_with_free_func(entry_free);
  t->by_path = g_hash_table_new(g_str_hash, g_str_equal);
  return t;
}

void pngpass_free(PngPass *t)
{
  if (!t)
    return;
  g_hash_table_destroy(t->by_path);
  g_ptr_array_free(t->entries, TRUE);
  g_free(t);
}

guint pngpass_count(const PngPass *t)
{
  return t ? t->entries->len : 0;
}

static guint32 be32(const guchar *p)
{
  return (guint32)p[0] << 24 | (guint32)p[1] << 16 | (guint32)p[2] << 8 | p[3];
}

/* The chunks of a PNG in memory, one at a time. */
typedef struct {
  const guchar *d;
  gsize len, at; /* at: the next chunk's start */
} Walk;

typedef struct {
  const guchar *type, *data;
  guint32 len;
} Chunk;

/* The next chunk; false at the file's end or when the chunk runs past it
 * (a cut file). check: a critical chunk's CRC too (false when it does not
 * match); an ancillary chunk's is not, as libpng by default only warns
 * and drops such a chunk, and the file decodes. */
static bool next_chunk(Walk *w, Chunk *c, bool check, GError **err)
{
  if (w->len - w->at < 12) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "the file ends before its IEND chunk");
    return false;
  }
  const guchar *p = w->d + w->at;
  c->len = be32(p);
  c->type = p + 4;
  c->data = p + 8;
  if (c->len > 0x7fffffffu || (gsize)c->len > w->len - w->at - 12) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "the file ends inside a %.4s chunk",
                (const char *)c->type);
    return false;
  }
  if (check && !(c->type[0] & 0x20)) {
    uLong crc = crc32(crc32(0L, Z_NULL, 0), c->type, 4 + c->len);
    if (crc != be32(c->data + c->len)) {
      g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "a %.4s chunk's CRC does not match",
                  (const char *)c->type);
      return false;
    }
  }
  w->at += 12 + (gsize)c->len;
  return true;
}

static bool is(const Chunk *c, const char *type)
{
  return memcmp(c->type, type, 4) == 0;
}

/* The chunks before the first IDAT read into h; *first the first IDAT.
 * False with *err set when there is none or the header is not a PNG's. */
static bool read_head(Walk *w, PngHead *h, Chunk *first, bool check, GError **err)
{
  memset(h, 0, sizeof *h);
  if (w->len < 8 || memcmp(w->d, "\x89PNG\r\n\x1a\n", 8) != 0) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "not a PNG file");
    return false;
  }
  w->at = 8;
  Chunk c;
  if (!next_chunk(w, &c, check, err))
    return false;
  if (!is(&c, "IHDR") || c.len != 13) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "no IHDR chunk first");
    return false;
  }
  h->w = be32(c.data);
  h->h = be32(c.data + 4);
  h->depth = c.data[8];
  h->ctype = c.data[9];
  h->interlace = c.data[12];
  if (c.data[10] != 0 || c.data[11] != 0) { /* compression, filter method */
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "an unknown compression or filter method");
    return false;
  }
  for (;;) {
    if (!next_chunk(w, &c, check, err))
      return false;
    if (is(&c, "IDAT")) {
      *first = c;
      return true;
    }
    if (is(&c, "IEND")) {
      g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "no IDAT chunk");
      return false;
    }
    if (is(&c, "PLTE") && c.len % 3 == 0 && c.len / 3 >= 1 && c.len / 3 <= 256) {
      h->plte_n = (int)(c.len / 3);
      memcpy(h->plte, c.data, c.len);
    } else if (is(&c, "tRNS")) {
      h->trns = true;
    }
  }
}

/* Whether a PNG with this header is copied as it is (see the top). */
static bool copyable(const PngHead *h)
{
  bool small = h->depth == 1 || h->depth == 2 || h->depth == 4 || h->depth == 8;
  bool kind = (h->ctype == 0 && small) || (h->ctype == 2 && h->depth == 8) ||
              (h->ctype == 3 && small && h->plte_n > 0);
  return kind && h->interlace == 0 && !h->trns && h->w > 0 && h->h > 0 && h->w <= 0x7fffffffu &&
         h->h <= 0x7fffffffu;
}

cairo_surface_t *pngpass_placeholder(PngPass *t, const char *path, int width_px, int height_px)
{
  gpointer v = g_hash_table_lookup(t->by_path, path);
  int n = GPOINTER_TO_INT(v) - 1;
  if (n < 0) {
    GMappedFile *map = g_mapped_file_new(path, FALSE, NULL);
    if (!map)
      return NULL;
    Walk w = {(const guchar *)g_mapped_file_get_contents(map), g_mapped_file_get_length(map), 0};
    PngHead h;
    Chunk first;
    bool ok = read_head(&w, &h, &first, true, NULL) && copyable(&h) && h.w == (guint32)width_px &&
              h.h == (guint32)height_px;
    g_mapped_file_unref(map);
    if (!ok)
      return NULL;
    Entry *e = g_new(Entry, 1);
    e->path = g_strdup(path);
    e->head = h;
    n = (int)t->entries->len;
    g_ptr_array_add(t->entries, e);
    g_hash_table_insert(t->by_path, e->path, GINT_TO_POINTER(n + 1));
  }
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
  char *marker = g_strdup_printf(PNGPASS_MARKER "%d", n);
  cairo_surface_set_mime_data(s, CAIRO_MIME_TYPE_CCITT_FAX, (unsigned char *)marker, strlen(marker),
                              g_free, marker);
  /* cairo writes a CCITT image only with its parameters; the archive pass
   * replaces its whole dictionary */
  static const char params[] = "Columns=1 Rows=1";
  cairo_surface_set_mime_data(s, CAIRO_MIME_TYPE_CCITT_FAX_PARAMS, (unsigned char *)params,
                              strlen(params), NULL, NULL);
  return s;
}

int pngpass_entry(const PngPass *t, const char *data, gsize len)
{
  gsize m = strlen(PNGPASS_MARKER);
  if (!t || len <= m || len > m + 10 || memcmp(data, PNGPASS_MARKER, m) != 0)
    return -1;
  int n = 0;
  for (gsize i = m; i < len; i++) {
    if (!g_ascii_isdigit(data[i]) || (i == m && data[i] == '0' && len > m + 1))
      return -1;
    n = n * 10 + (data[i] - '0');
  }
  return n < (int)t->entries->len ? n : -1;
}

const char *pngpass_path(const PngPass *t, int n)
{
  return ((const Entry *)t->entries->pdata[n])->path;
}

static bool same_head(const PngHead *a, const PngHead *b)
{
  return a->w == b->w && a->h == b->h && a->depth == b->depth && a->ctype == b->ctype &&
         a->interlace == b->interlace && a->trns == b->trns && a->plte_n == b->plte_n &&
         memcmp(a->plte, b->plte, 3 * (gsize)a->plte_n) == 0;
}

/* Entry e's file walked again, to IEND, every chunk checked as
 * pngpass_image says: its head in *h, the IDAT chunks' total length in
 * *len and, when data is not NULL and that length is want, their data in
 * *data: the file's own bytes, mapped, when they are one chunk (nothing
 * copied, no fresh memory: a 4.4 MB photograph's data was copied into an
 * 8 MiB array, the archive pass's largest block), else one copy of want
 * bytes, made from the second chunk on. */
static bool walk_idat(const Entry *e, PngHead *h, gsize *len, gsize want, GBytes **data,
                      GError **err)
{
  *len = 0;
  GMappedFile *map = g_mapped_file_new(e->path, FALSE, err);
  if (!map)
    return false;
  Walk w = {(const guchar *)g_mapped_file_get_contents(map), g_mapped_file_get_length(map), 0};
  Chunk c;
  bool ok = read_head(&w, h, &c, true, err);
  if (ok && !same_head(h, &e->head)) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "the file changed while it was drawn");
    ok = false;
  }
  bool in_idat = true, end = false;
  const guchar *first = NULL; /* the first IDAT chunk's data */
  guint8 *copy = NULL;        /* from the second chunk on: want bytes */
  while (ok && !end) {
    if (is(&c, "IDAT")) {
      if (!in_idat) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "IDAT chunks not one after another");
        ok = false;
        break;
      }
      if (data && !first) {
        first = c.data;
      } else if (data && *len + c.len <= want) {
        if (!copy) {
          copy = g_malloc(want);
          memcpy(copy, first, *len);
        }
        memcpy(copy + *len, c.data, c.len);
      }
      *len += c.len;
    } else {
      in_idat = false;
      end = is(&c, "IEND");
    }
    if (!end)
      ok = next_chunk(&w, &c, true, err);
  }
  if (ok && data && *len == want) {
    if (copy) {
      *data = g_bytes_new_take(copy, want);
      copy = NULL;
    } else {
      GBytes *file = g_mapped_file_get_bytes(map);
      *data = g_bytes_new_from_bytes(file, first ? (gsize)(first - w.d) : 0, want);
      g_bytes_unref(file);
    }
  }
  g_free(copy);
  g_mapped_file_unref(map);
  return ok;
}

bool pngpass_image(const PngPass *t, int n, bool interpolate, char **dict, gsize *len,
                   GError **err)
{
  const Entry *e = t->entries->pdata[n];
  *dict = NULL;
  PngHead h;
  if (!walk_idat(e, &h, len, 0, NULL, err))
    return false;
  int colors = h.ctype == 2 ? 3 : 1;
  GString *d = g_string_new(NULL);
  g_string_append_printf(d, "<< /Type /XObject /Subtype /Image /Width %u /Height %u /ColorSpace ",
                         h.w, h.h);
  if (h.ctype == 3) {
    int entries = 1 << h.depth; /* padded with black, as libpng reads it */
    g_string_append_printf(d, "[ /Indexed /DeviceRGB %d <", entries - 1);
    for (int i = 0; i < 3 * entries; i++)
      g_string_append_printf(d, "%02x", i < 3 * h.plte_n ? h.plte[i] : 0);
    g_string_append(d, "> ]");
  } else {
    g_string_append(d, h.ctype == 2 ? "/DeviceRGB" : "/DeviceGray");
  }
  g_string_append_printf(d,
                         " /BitsPerComponent %d /Filter /FlateDecode /DecodeParms << /Predictor "
                         "15 /Colors %d /BitsPerComponent %d /Columns %u >>%s >>",
                         h.depth, colors, h.depth, h.w, interpolate ? " /Interpolate true" : "");
  *dict = g_string_free(d, FALSE);
  return true;
}

GBytes *pngpass_data(const PngPass *t, int n, gsize len, GError **err)
{
  const Entry *e = t->entries->pdata[n];
  PngHead h;
  gsize got = 0;
  GBytes *data = NULL;
  if (!walk_idat(e, &h, &got, len, &data, err))
    return NULL;
  if (!data) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "the file changed while it was drawn");
    return NULL;
  }
  return data;
}
