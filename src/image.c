/* image.c: what kind of image a file is, and its size in pixels, from its
 * first bytes.
 *
 * What it does: recognises PNG, JPEG, GIF, WebP and SVG by their
 * signatures and reads the size their headers give (SVG: the root
 * element's width and height in CSS units, or its viewBox).  resolve.c
 * calls it once per resource at parse time; the model then carries the
 * answer (BookResource.kind, width_px, height_px), so that no writer opens
 * an image to learn what it is.  What it does not do: decode pixels, or
 * decide which kinds a book may hold (resolve.c does).
 */
#include "book.h"
#include "imagelibs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a file: the head already read, and the file for what follows
 * (a JPEG's size may come after 64 KiB of metadata). */
typedef struct {
  const guchar *d;
  gsize len;
  FILE *f; /* or NULL: only the head */
} Bytes;

/* n bytes at offset off into out; false past the end. */
static bool bytes_at(const Bytes *b, guint64 off, guchar *out, gsize n)
{
  if (off + n <= b->len) {
    memcpy(out, b->d + off, n);
    return true;
  }
  if (!b->f || off > G_MAXINT64 || fseeko(b->f, (off_t)off, SEEK_SET) != 0)
    return false;
  return fread(out, 1, n, b->f) == n;
}

static unsigned be16(const guchar *p)
{
  return (unsigned)p[0] << 8 | p[1];
}
static unsigned be32(const guchar *p)
{
  return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}
static unsigned le16(const guchar *p)
{
  return (unsigned)p[1] << 8 | p[0];
}
static unsigned le24(const guchar *p)
{
  return (unsigned)p[2] << 16 | (unsigned)p[1] << 8 | p[0];
}

/* A JPEG's size: walk the marker segments to the first start-of-frame. */
static void jpeg_size(const Bytes *b, int *w, int *h)
{
  guint64 i = 2;
  guchar s[10];
  for (int guard = 0; guard < 1 << 20 && bytes_at(b, i, s, sizeof s) && s[0] == 0xFF; guard++) {
    guchar m = s[1];
    if (m == 0xFF) { /* fill byte */
      i++;
      continue;
    }
    if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) { /* no length */
      i += 2;
      continue;
    }
    if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) { /* SOFn */
      *h = (int)be16(s + 5);
      *w = (int)be16(s + 7);
      return;
    }
    i += 2 + be16(s + 2);
  }
}

/* A WebP's canvas size (lossy, lossless or extended). */
static void webp_size(const guchar *d, gsize len, int *w, int *h)
{
  if (len >= 30 && memcmp(d + 12, "VP8 ", 4) == 0 && d[23] == 0x9D && d[24] == 0x01 &&
      d[25] == 0x2A) {
    *w = (int)(le16(d + 26) & 0x3FFF);
    *h = (int)(le16(d + 28) & 0x3FFF);
  } else if (len >= 25 && memcmp(d + 12, "VP8L", 4) == 0 && d[20] == 0x2F) {
    guint32 bits =
        (guint32)d[21] | (guint32)d[22] << 8 | (guint32)d[23] << 16 | (guint32)d[24] << 24;
    *w = (int)(bits & 0x3FFF) + 1;
    *h = (int)((bits >> 14) & 0x3FFF) + 1;
  } else if (len >= 30 && memcmp(d + 12, "VP8X", 4) == 0) {
    *w = (int)le24(d + 24) + 1;
    *h = (int)le24(d + 27) + 1;
  }
}

/* ---- SVG ---- */

/* The value of attribute `name` in the start tag [p, e), or NULL. Caller
 * frees. */
static char *svg_attr(const char *p, const char *e, const char *name)
{
  size_t n = strlen(name);
  while (p < e) {
    while (p < e && (g_ascii_isspace(*p) || *p == '/'))
      p++;
    const char *k = p;
    while (p < e && !g_ascii_isspace(*p) && *p != '=' && *p != '>')
      p++;
    size_t klen = (size_t)(p - k);
    while (p < e && g_ascii_isspace(*p))
      p++;
    if (p >= e || *p != '=') {
      if (klen == 0)
        p++;
      continue;
    }
    p++;
    while (p < e && g_ascii_isspace(*p))
      p++;
    const char *v = p, *ve;
    if (p < e && (*p == '"' || *p == '\'')) {
      char q = *p++;
      v = p;
      while (p < e && *p != q)
        p++;
      ve = p;
      if (p < e)
        p++;
    } else {
      while (p < e && !g_ascii_isspace(*p) && *p != '>')
        p++;
      ve = p;
    }
    if (klen == n && memcmp(k, name, n) == 0)
      return g_strndup(v, (gsize)(ve - v));
  }
  return NULL;
}

/* A CSS length in px (96 to the inch); 0 for none, a percentage or junk. */
static double svg_length(const char *s)
{
  static const struct {
    const char *unit;
    double px;
  } units[] = {{"", 1},           {"px", 1},         {"pt", 96.0 / 72}, {"pc", 16}, {"in", 96},
               {"cm", 96 / 2.54}, {"mm", 96 / 25.4}, {"em", 16},        {"ex", 8}};
  if (!s)
    return 0;
  char *end;
  double v = g_ascii_strtod(s, &end);
  if (end == s || !(v > 0) || !isfinite(v))
    return 0;
  while (*end == ' ')
    end++;
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
    if (g_ascii_strcasecmp(end, units[i].unit) == 0)
      return v * units[i].px;
  return 0;
}

/* The size of the <svg> element starting at tag (its '<'), in [tag, e):
 * width and height, completed from the viewBox's aspect ratio, or the
 * viewBox alone. */
static void svg_size(const char *tag, const char *e, int *w, int *h)
{
  const char *close = memchr(tag, '>', (size_t)(e - tag));
  if (!close)
    return;
  const char *a = tag + 4;
  char *sw = svg_attr(a, close, "width"), *sh = svg_attr(a, close, "height");
  char *vb = svg_attr(a, close, "viewBox");
  double W = svg_length(sw), H = svg_length(sh), vw = 0, vh = 0;
  if (vb) {
    double v[4];
    int k = 0;
    char *p = vb;
    for (; k < 4; k++) {
      while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
      char *q;
      v[k] = g_ascii_strtod(p, &q);
      if (q == p || !isfinite(v[k]))
        break;
      p = q;
    }
    if (k == 4 && v[2] > 0 && v[3] > 0)
      vw = v[2], vh = v[3];
  }
  if (W > 0 && H <= 0 && vw > 0)
    H = W * vh / vw;
  else if (H > 0 && W <= 0 && vh > 0)
    W = H * vw / vh;
  else if (W <= 0 && H <= 0)
    W = vw, H = vh;
  if (W > 0 && H > 0 && W < G_MAXINT && H < G_MAXINT) {
    *w = MAX(1, (int)lround(W));
    *h = MAX(1, (int)lround(H));
  }
  g_free(sw);
  g_free(sh);
  g_free(vb);
}

/* The start of the root <svg> element in the first 4 KiB of text, or NULL. */
static const char *find_svg(const guchar *d, gsize len)
{
  gsize i = 0;
  if (len >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0)
    i = 3;
  while (i < len && g_ascii_isspace(d[i]))
    i++;
  if (i >= len || d[i] != '<')
    return NULL;
  gsize look = MIN(len - i, 4096);
  return g_strstr_len((const char *)d + i, (gssize)look, "<svg");
}

static BookImageKind sniff(const Bytes *b, int *w, int *h)
{
  const guchar *d = b->d;
  gsize len = b->len;
  *w = *h = 0;
  if (len >= 24 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0) {
    if (memcmp(d + 12, "IHDR", 4) == 0) {
      *w = (int)be32(d + 16);
      *h = (int)be32(d + 20);
    }
    return BOOK_IMAGE_PNG;
  }
  if (len >= 10 && (memcmp(d, "GIF87a", 6) == 0 || memcmp(d, "GIF89a", 6) == 0)) {
    *w = d[6] | d[7] << 8;
    *h = d[8] | d[9] << 8;
    return BOOK_IMAGE_GIF;
  }
  if (len >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) {
    jpeg_size(b, w, h);
    return BOOK_IMAGE_JPEG;
  }
  if (len >= 16 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0) {
    webp_size(d, len, w, h);
    return BOOK_IMAGE_WEBP;
  }
  const char *svg = find_svg(d, len);
  if (svg) {
    svg_size(svg, (const char *)d + len, w, h);
    return BOOK_IMAGE_SVG;
  }
  return BOOK_IMAGE_NONE;
}

BookImageKind book_image_sniff(const guchar *data, gsize len, int *width_px, int *height_px)
{
  Bytes b = {data, len, NULL};
  return sniff(&b, width_px, height_px);
}

BookImageKind book_image_probe(const char *path, int *width_px, int *height_px)
{
  *width_px = *height_px = 0;
  FILE *f = path ? fopen(path, "rb") : NULL;
  if (!f)
    return BOOK_IMAGE_NONE;
  guchar *head = g_malloc(65536);
  gsize got = fread(head, 1, 65536, f);
  Bytes b = {head, got, f};
  BookImageKind k = sniff(&b, width_px, height_px);
  fclose(f);
  g_free(head);
  return k;
}

/* Why gdk-pixbuf cannot decode all of the file at path (g_free), or NULL. */
static char *pixbuf_why(const char *path)
{
  GError *err = NULL;
  bool cut_short;
  char *why = NULL;
  if (!imagelibs_pixbuf_check(path, &cut_short, &err))
    why = cut_short ? g_strdup_printf("the file ends before the image does: %s",
                                      err ? err->message : "truncated")
                    : g_strdup(err ? err->message : "unreadable");
  if (err)
    g_error_free(err);
  return why;
}

bool book_image_decodes(const char *path, BookImageKind kind, char **why)
{
  *why = NULL;
  if (kind == BOOK_IMAGE_PNG) {
    /* row by row: one row in memory, not the image */
    GError *err = NULL;
    if (!imagelibs_png_check(path, &err))
      *why = g_strdup(err ? err->message : "unreadable");
    if (err)
      g_error_free(err);
  } else if (kind == BOOK_IMAGE_JPEG || kind == BOOK_IMAGE_GIF) {
    *why = pixbuf_why(path);
  }
  return *why == NULL;
}

const char *book_image_media_type(BookImageKind kind)
{
  switch (kind) {
  case BOOK_IMAGE_PNG: return "image/png";
  case BOOK_IMAGE_JPEG: return "image/jpeg";
  case BOOK_IMAGE_GIF: return "image/gif";
  case BOOK_IMAGE_SVG: return "image/svg+xml";
  case BOOK_IMAGE_WEBP: return "image/webp";
  default: return NULL;
  }
}

const char *book_image_ext(BookImageKind kind)
{
  switch (kind) {
  case BOOK_IMAGE_PNG: return "png";
  case BOOK_IMAGE_JPEG: return "jpg";
  case BOOK_IMAGE_GIF: return "gif";
  case BOOK_IMAGE_SVG: return "svg";
  case BOOK_IMAGE_WEBP: return "webp";
  default: return NULL;
  }
}
