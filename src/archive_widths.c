/* archive_widths.c: each TrueType font cairo embeds given its exact
 * widths, a step of the archival post-pass (archive.c).
 *
 * cairo 1.16 writes a TrueType subset's widths (a simple font's /Widths, a
 * CIDFontType2's /W) as whole thousandths of an em, truncated, but places
 * the glyphs by their exact advances: a viewer, which places them by the
 * widths, draws each glyph up to 1/1000 em left of where cairo meant, and
 * a justified line of 10.5 pt type ends up to 0.5 pt short of the margin.
 * Here each width is the advance of the glyph in the font's own program
 * (/FontFile2, read through qpdf and harfbuzz), to three decimals: what
 * cairo placed, and what PDF/A asks (the dictionary's widths agree with
 * the program's).
 *
 * The code -> glyph map is the viewers' (and so cairo's): a simple font
 * of cairo's is /WinAnsiEncoding over a (3,1) cmap that cairo wrote from
 * the same table (cairo-truetype-subset.c's write_cmap_table), so a code
 * is read as Windows-1252 (iconv) and looked up in the font's cmap; a CID
 * is a glyph by /CIDToGIDMap (cairo's: absent, the identity). A font is
 * rewritten only when every width cairo wrote is its truncation of the
 * advance found: anything else is left as cairo wrote it, with a warning.
 *
 * The fonts are found by a search of cairo's bytes for its font
 * dictionaries' first line (cairo writes them so: "N 0 obj\n<< /Type
 * /Font\n   /Subtype /..."), each then read and judged through qpdf. It
 * does not touch fonts of other kinds (CFF, Type 3: cairo writes their
 * widths otherwise), the glyphs' placement in the pages, or any object
 * but the fonts' dictionaries it changes. */
#include "archive_widths.h"

#include <hb.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* cairo's font dictionary, after "N 0 obj\n" */
static const char font_head[] = "<< /Type /Font\n   /Subtype /";
enum { WINDOW = 4 << 20 }; /* cairo's bytes searched before their pages are dropped */

/* qpdf's error, when a read here failed, cleared: the font is then left
 * as it is and the pass goes on (archive_widths starts only when qpdf has
 * no error of archive.c's to report). */
static void clear_error(qpdf_data q)
{
  if (qpdf_has_error(q))
    qpdf_get_error(q);
}

/* A font program, read by harfbuzz (scale: its units per em). */
typedef struct {
  hb_face_t *face;
  hb_font_t *font;
  unsigned upem, glyphs;
} Program;

static void program_free(Program *p)
{
  hb_font_destroy(p->font);
  hb_face_destroy(p->face);
}

/* The /FontFile2 of font's descriptor, decoded and parsed. */
static bool program_read(qpdf_data q, qpdf_oh font, Program *p)
{
  qpdf_oh desc = qpdf_oh_get_key(q, font, "/FontDescriptor");
  qpdf_oh ff = qpdf_oh_get_key(q, desc, "/FontFile2");
  unsigned char *buf = NULL;
  size_t n = 0;
  QPDF_BOOL filtered = QPDF_FALSE;
  bool ok = qpdf_oh_is_stream(q, ff) &&
            qpdf_oh_get_stream_data(q, ff, qpdf_dl_generalized, &filtered, &buf, &n) ==
                QPDF_SUCCESS &&
            filtered && n > 0 && n <= UINT_MAX;
  clear_error(q);
  qpdf_oh_release(q, ff);
  qpdf_oh_release(q, desc);
  if (!ok) {
    free(buf);
    return false;
  }
  hb_blob_t *blob = hb_blob_create((const char *)buf, (unsigned)n, HB_MEMORY_MODE_READONLY, buf,
                                   free);
  p->face = hb_face_create(blob, 0);
  hb_blob_destroy(blob);
  p->font = hb_font_create(p->face); /* its scale: the face's units per em */
  p->upem = hb_face_get_upem(p->face);
  p->glyphs = hb_face_get_glyph_count(p->face);
  if (p->glyphs == 0 || p->upem == 0) {
    program_free(p);
    return false;
  }
  return true;
}

/* Glyph gid's advance in thousandths of an em (font units: exact). */
static unsigned advance(const Program *p, hb_codepoint_t gid)
{
  return (unsigned)hb_font_get_glyph_h_advance(p->font, gid);
}

/* Does cairo's width `old` (its number in the array) say the advance adv,
 * as cairo computes it (cairo-pdf-surface.c: the advance over the units
 * per em, times 1000, truncated)? */
static bool cairo_says(qpdf_data q, qpdf_oh old, unsigned adv, unsigned upem)
{
  if (!qpdf_oh_is_number(q, old))
    return false;
  return qpdf_oh_get_numeric_value(q, old) == (double)(long)((double)adv / upem * 1000);
}

/* The advance adv as a PDF number in thousandths of an em: an integer
 * when it is one, else to three decimals without trailing zeros (the same
 * bytes on every run: the C locale's digits). */
static qpdf_oh width_number(qpdf_data q, unsigned adv, unsigned upem)
{
  unsigned long milli = (unsigned long)adv * 1000;
  if (milli % upem == 0)
    return qpdf_oh_new_integer(q, (long long)(milli / upem));
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(buf, sizeof buf, "%.3f", (double)milli / upem);
  char *e = buf + strlen(buf);
  while (e[-1] == '0')
    *--e = '\0';
  if (e[-1] == '.')
    e[-1] = '\0';
  return qpdf_oh_new_real_from_string(q, buf);
}

/* The character of WinAnsiEncoding's code c (Windows-1252, as iconv reads
 * it), or 0 when c has none. */
static gunichar winansi_char(GIConv cd, int c)
{
  char in = (char)c, out[8];
  char *ip = &in, *op = out;
  gsize il = 1, ol = sizeof out;
  g_iconv(cd, NULL, NULL, NULL, NULL); /* a fresh state */
  if (g_iconv(cd, &ip, &il, &op, &ol) == (gsize)-1 || il != 0)
    return 0;
  return g_utf8_get_char_validated(out, (gssize)(op - out));
}

/* A simple /TrueType font's /Widths, exact: each code's glyph as the
 * viewers find it (the encoding, then the program's cmap). False when the
 * font is not as cairo writes one or a width is not cairo's truncation of
 * the advance found (*out untouched). */
static bool simple_widths(qpdf_data q, qpdf_oh font, const Program *p, GIConv cd, qpdf_oh *out)
{
  qpdf_oh enc = qpdf_oh_get_key(q, font, "/Encoding");
  qpdf_oh first = qpdf_oh_get_key(q, font, "/FirstChar");
  qpdf_oh widths = qpdf_oh_get_key(q, font, "/Widths");
  bool ok = cd != (GIConv)-1 && qpdf_oh_is_name_and_equals(q, enc, "/WinAnsiEncoding") &&
            qpdf_oh_is_integer(q, first) && qpdf_oh_is_array(q, widths);
  int c0 = ok ? qpdf_oh_get_int_value_as_int(q, first) : 0;
  int n = ok ? qpdf_oh_get_array_n_items(q, widths) : 0;
  ok = ok && c0 >= 0 && c0 + n <= 256;
  qpdf_oh arr = qpdf_oh_new_array(q);
  for (int i = 0; ok && i < n; i++) {
    qpdf_oh old = qpdf_oh_get_array_item(q, widths, i);
    gunichar ch = winansi_char(cd, c0 + i);
    hb_codepoint_t gid = 0;
    if (ch && hb_font_get_nominal_glyph(p->font, ch, &gid) && gid > 0 && gid < p->glyphs) {
      unsigned adv = advance(p, gid);
      ok = cairo_says(q, old, adv, p->upem);
      qpdf_oh w = width_number(q, adv, p->upem);
      qpdf_oh_append_item(q, arr, w);
      qpdf_oh_release(q, w);
    } else { /* a code cairo did not use: its 0 */
      ok = qpdf_oh_is_number(q, old) && qpdf_oh_get_numeric_value(q, old) == 0;
      qpdf_oh_append_item(q, arr, old);
    }
    qpdf_oh_release(q, old);
  }
  qpdf_oh_release(q, widths);
  qpdf_oh_release(q, first);
  qpdf_oh_release(q, enc);
  if (!ok) {
    qpdf_oh_release(q, arr);
    return false;
  }
  *out = arr;
  return true;
}

/* CID cid's glyph by /CIDToGIDMap (map: the stream's bytes, or NULL for
 * /Identity), or -1 past the map. */
static long cid_glyph(const GBytes *map, long cid)
{
  if (!map)
    return cid;
  gsize n;
  const guint8 *m = g_bytes_get_data((GBytes *)map, &n);
  if (cid < 0 || (gsize)cid * 2 + 1 >= n)
    return -1;
  return (long)m[2 * cid] << 8 | m[2 * cid + 1];
}

/* One CID's exact width appended to arr; false when cairo's old is not
 * its truncation. */
static bool cid_width(qpdf_data q, const Program *p, const GBytes *map, long cid, qpdf_oh old,
                      qpdf_oh arr)
{
  long gid = cid_glyph(map, cid);
  if (gid < 0 || (unsigned long)gid >= p->glyphs)
    return false;
  unsigned adv = advance(p, (hb_codepoint_t)gid);
  qpdf_oh w = width_number(q, adv, p->upem);
  qpdf_oh_append_item(q, arr, w);
  qpdf_oh_release(q, w);
  return cairo_says(q, old, adv, p->upem);
}

/* /CIDToGIDMap's bytes in *map (NULL: the identity); false when it is
 * neither a stream nor /Identity. */
static bool cid_map(qpdf_data q, qpdf_oh font, GBytes **map)
{
  *map = NULL;
  if (!qpdf_oh_has_key(q, font, "/CIDToGIDMap"))
    return true;
  qpdf_oh m = qpdf_oh_get_key(q, font, "/CIDToGIDMap");
  bool ok = qpdf_oh_is_name_and_equals(q, m, "/Identity");
  unsigned char *buf = NULL;
  size_t n = 0;
  QPDF_BOOL filtered = QPDF_FALSE;
  if (!ok && qpdf_oh_is_stream(q, m) &&
      qpdf_oh_get_stream_data(q, m, qpdf_dl_generalized, &filtered, &buf, &n) == QPDF_SUCCESS &&
      filtered) {
    *map = g_bytes_new(buf, n);
    ok = true;
  }
  clear_error(q);
  free(buf);
  qpdf_oh_release(q, m);
  return ok;
}

/* A CIDFontType2's /W, exact: each form `c [w ...]` with the same CIDs,
 * each `c1 c2 w` written as `c1 [w ...]` (each CID's own width). False
 * as simple_widths. */
static bool cid_widths(qpdf_data q, qpdf_oh font, const Program *p, qpdf_oh *out)
{
  GBytes *map = NULL;
  qpdf_oh w = qpdf_oh_get_key(q, font, "/W");
  bool ok = qpdf_oh_is_array(q, w) && cid_map(q, font, &map);
  int n = ok ? qpdf_oh_get_array_n_items(q, w) : 0;
  qpdf_oh arr = qpdf_oh_new_array(q);
  for (int i = 0; ok && i < n;) {
    qpdf_oh c = qpdf_oh_get_array_item(q, w, i), next = qpdf_oh_get_array_item(q, w, i + 1);
    long cid = qpdf_oh_is_integer(q, c) ? (long)qpdf_oh_get_int_value(q, c) : -1;
    qpdf_oh list = qpdf_oh_new_array(q);
    if (cid < 0) {
      ok = false;
    } else if (qpdf_oh_is_array(q, next)) { /* c [w1 w2 ...] */
      int k = qpdf_oh_get_array_n_items(q, next);
      for (int j = 0; ok && j < k; j++) {
        qpdf_oh old = qpdf_oh_get_array_item(q, next, j);
        ok = cid_width(q, p, map, cid + j, old, list);
        qpdf_oh_release(q, old);
      }
      i += 2;
    } else { /* c1 c2 w */
      qpdf_oh old = qpdf_oh_get_array_item(q, w, i + 2);
      long last = qpdf_oh_is_integer(q, next) ? (long)qpdf_oh_get_int_value(q, next) : -1;
      ok = last >= cid && last - cid < 65536 && i + 2 < n;
      for (long k = cid; ok && k <= last; k++)
        ok = cid_width(q, p, map, k, old, list);
      qpdf_oh_release(q, old);
      i += 3;
    }
    if (ok) {
      qpdf_oh_append_item(q, arr, c);
      qpdf_oh_append_item(q, arr, list);
    }
    qpdf_oh_release(q, list);
    qpdf_oh_release(q, next);
    qpdf_oh_release(q, c);
  }
  qpdf_oh_release(q, w);
  if (map)
    g_bytes_unref(map);
  if (!ok) {
    qpdf_oh_release(q, arr);
    return false;
  }
  *out = arr;
  return true;
}

/* Font object id, when it is a TrueType font of cairo's: its widths
 * exact, or a warning. */
static void font_widths(qpdf_data q, PdfUpdate *u, int id, GIConv cd, Book *book,
                        const char *name)
{
  qpdf_oh font = qpdf_get_object_by_id(q, id, 0);
  qpdf_oh sub = qpdf_oh_get_key(q, font, "/Subtype");
  bool simple = qpdf_oh_is_name_and_equals(q, sub, "/TrueType");
  bool cid = qpdf_oh_is_name_and_equals(q, sub, "/CIDFontType2");
  qpdf_oh_release(q, sub);
  Program p;
  if (!qpdf_oh_is_dictionary(q, font) || !(simple || cid) || !program_read(q, font, &p)) {
    qpdf_oh_release(q, font); /* not a TrueType font cairo embedded */
    clear_error(q);
    return;
  }
  qpdf_oh widths = 0;
  bool ok = simple ? simple_widths(q, font, &p, cd, &widths) : cid_widths(q, font, &p, &widths);
  if (ok && qpdf_has_error(q)) { /* an object it refers to could not be read */
    qpdf_oh_release(q, widths);
    ok = false;
  }
  clear_error(q);
  if (ok) {
    qpdf_oh_replace_key(q, font, simple ? "/Widths" : "/W", widths);
    qpdf_oh_release(q, widths);
    pdfupdate_changed(u, font);
  } else {
    qpdf_oh base = qpdf_oh_get_key(q, font, "/BaseFont");
    char *fname = qpdf_oh_is_name(q, base) ? g_strdup(qpdf_oh_get_name(q, base)) : NULL;
    qpdf_oh_release(q, base);
    book_diag(book, BOOK_WARNING, NULL,
              "%s: font %s: its widths are not its program's as cairo writes them: left as they "
              "are (viewers may place its glyphs up to 1/1000 em apart)",
              name, fname ? fname + 1 : "?");
    g_free(fname);
  }
  program_free(&p);
  qpdf_oh_release(q, font);
}

/* The object number written just before hit ("N 0 obj\n" on a line of
 * its own, as cairo writes an object), or 0. */
static int object_at(const char *base, const char *hit)
{
  static const char obj[] = " 0 obj\n";
  const char *p = hit - (sizeof obj - 1);
  if (p <= base || memcmp(p, obj, sizeof obj - 1) != 0)
    return 0;
  const char *d = p;
  while (d > base && g_ascii_isdigit(d[-1]))
    d--;
  if (d == p || p - d > 9 || (d > base && d[-1] != '\n' && d[-1] != '\r'))
    return 0;
  return (int)g_ascii_strtoull(d, NULL, 10);
}

void archive_widths(qpdf_data q, PdfUpdate *u, const char *base, gsize len, Book *book,
                    const char *name)
{
  if (qpdf_has_error(q))
    return; /* archive.c's to report */
  gsize hn = sizeof font_head - 1;
  GArray *ids = g_array_new(FALSE, FALSE, sizeof(int));
  /* window by window, each dropped from memory once searched */
  for (gsize at = 0; at < len; at += WINDOW) {
    gsize wend = MIN(at + WINDOW, len), lim = MIN(wend + hn - 1, len);
    for (const char *p = base + at;
         (p = memmem(p, (gsize)(base + lim - p), font_head, hn)) != NULL && p < base + wend; p++) {
      int id = object_at(base, p);
      const char *sub = p + hn, *end = base + len;
      /* TrueType or CIDFontType2 (not Type0, Type3, ...) */
      if (id > 0 && ((end - sub > 9 && !memcmp(sub, "TrueType\n", 9)) ||
                     (end - sub > 13 && !memcmp(sub, "CIDFontType2\n", 13))))
        g_array_append_val(ids, id);
    }
    pdfupdate_drop_pages(u);
  }
  GIConv cd = ids->len ? g_iconv_open("UTF-8", "WINDOWS-1252") : (GIConv)-1;
  for (guint i = 0; i < ids->len; i++)
    font_widths(q, u, g_array_index(ids, int, i), cd, book, name);
  if (cd != (GIConv)-1)
    g_iconv_close(cd);
  g_array_free(ids, TRUE);
}
