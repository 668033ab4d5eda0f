/* pdfupdate.c: an incremental update appended to a finished PDF
 * (PDF 32000-1 §7.5.6), for archive.c.
 *
 * qpdf reads the file from memory and lazily: only the objects the caller
 * touches are parsed. The changed and new objects are serialised with
 * qpdf_oh_unparse_resolved (so every string, name and number is written by
 * qpdf), followed by one cross-reference section (classic, not a stream:
 * PDF/A allows either, every reader takes this one) and a trailer whose
 * /Prev is the file's last startxref. /ID is [MD5 of the original bytes,
 * MD5 of the original bytes and the update's objects]: the first stays
 * the document's permanent identifier, the second changes with the
 * content, and both depend on nothing but the bytes (§14.4).
 *
 * New objects are registered in qpdf with qpdf_replace_object under
 * numbers from the trailer's /Size up, never with qpdf_make_indirect_object
 * or qpdf_oh_new_stream: qpdf 11 then resolves every object of the file
 * to find the next free number (3.4 s on the 40 MB benchmark PDF). */
#include "pdfupdate.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>

#include "util.h"

struct PdfUpdate {
  qpdf_data q;
  const char *base;
  gsize base_len;
  guint64 prev_xref; /* the file's last startxref */
  int next_id;       /* the next free object number */
  int size;          /* the file's own /Size */
  GHashTable *objs;  /* object number -> generation + 1, to write */
  GHashTable *data;  /* object number -> GBytes: the new streams' data */
  GHashTable *texts; /* object number -> its serialised text (pdfupdate_replace) */
  GHashTable *sources; /* object number -> Source: data read when written */
  GError *source_err;   /* the first Source that failed */
  GHashTable *unread; /* object numbers qpdf holds a stand-in for (pdfupdate_unread) */
  /* the file's last cross-reference table, when it is a classic one: its
   * first subsection, for pdfupdate_read_direct */
  const char *xref_entries;
  int xref_first, xref_count;
  /* the file's objects in use in the order of their offsets, and where
   * each ends (ends[id]: the next object's offset, or the table's; 0 for
   * a free one): object_index, once */
  GArray *order; /* BaseObj */
  guint64 *ends;
  GHashTable *keys; /* object number -> text added to its dictionary (pdfupdate_add_keys) */
};

/* A stream's data read when its object is written
 * (pdfupdate_replace_stream_from). */
typedef struct {
  PdfUpdateSource fn;
  gpointer user;
  GDestroyNotify free_user;
  gsize len;
} Source;

static void source_free(gpointer v)
{
  Source *src = v;
  if (src->free_user)
    src->free_user(src->user);
  g_free(src);
}

/* Object id's new stream data (a reference for the caller), read now when
 * it comes from a Source; NULL when the update has none for it. A Source
 * that fails leaves its error in u->source_err and gives len zeros, which
 * keep the file's offsets what /Length says while the write goes on to
 * fail. */
static GBytes *take_data(PdfUpdate *u, int id)
{
  GBytes *data = g_hash_table_lookup(u->data, GINT_TO_POINTER(id));
  if (data)
    return g_bytes_ref(data);
  Source *src = g_hash_table_lookup(u->sources, GINT_TO_POINTER(id));
  if (!src)
    return NULL;
  GError *err = NULL;
  data = src->fn(src->user, src->len, &err);
  if (data && g_bytes_get_size(data) != src->len) {
    g_bytes_unref(data);
    data = NULL;
    g_set_error(&err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "a stream's data changed size");
  }
  if (!data) {
    if (!u->source_err)
      u->source_err = err;
    else
      g_error_free(err);
    data = g_bytes_new_take(g_malloc0(src->len), src->len);
  }
  return data;
}

/* The offset after the last "startxref" in the file's tail. */
static bool last_startxref(const char *base, gsize len, guint64 *out)
{
  gsize tail = MIN(len, 1024);
  const char *s = g_strrstr_len(base + len - tail, (gssize)tail, "startxref");
  if (!s)
    return false;
  const char *p = s + strlen("startxref"), *end = base + len;
  while (p < end && g_ascii_isspace(*p))
    p++;
  if (p == end || !g_ascii_isdigit(*p))
    return false;
  char num[24];
  gsize n = 0;
  while (p < end && g_ascii_isdigit(*p) && n < sizeof num - 1)
    num[n++] = *p++;
  num[n] = '\0';
  *out = g_ascii_strtoull(num, NULL, 10);
  return *out < len;
}

/* The first subsection of the classic cross-reference table at
 * u->prev_xref (cairo writes one: "xref", "0 N", N entries of 20 bytes);
 * anything else (a cross-reference stream) leaves the index empty. */
static void index_xref(PdfUpdate *u)
{
  const char *p = u->base + u->prev_xref, *end = u->base + u->base_len;
  if (end - p < 16 || strncmp(p, "xref", 4))
    return;
  char *q = NULL;
  gint64 first = g_ascii_strtoll(p + 4, &q, 10), count = q ? g_ascii_strtoll(q, &q, 10) : -1;
  while (q && q < end && (*q == ' ' || *q == '\r' || *q == '\n') && !g_ascii_isdigit(*q))
    q++;
  if (!q || first < 0 || count <= 0 || first + count > G_MAXINT || (end - q) / 20 < count)
    return;
  u->xref_entries = q;
  u->xref_first = (int)first;
  u->xref_count = (int)count;
}

typedef struct {
  guint64 off;
  int id;
} BaseObj;

static int base_obj_cmp(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const BaseObj *)a)->off, y = ((const BaseObj *)b)->off;
  return (x > y) - (x < y);
}

/* The offset a classic table's 20-byte entry e gives (its first 10
 * digits). */
static guint64 entry_offset(const char *e)
{
  guint64 off = 0;
  for (int i = 0; i < 10 && g_ascii_isdigit(e[i]); i++)
    off = off * 10 + (guint64)(e[i] - '0');
  return off;
}

/* The file's objects in use (by its classic table from object 0) in the
 * order of their offsets (u->order), and where each ends (u->ends[id]:
 * the offset of the next object in the file, or of the cross-reference
 * table; 0 for a free one). The objects follow one another in cairo's
 * file, so an object's "endobj" is the last one before the next object.
 * Computed once, for the search, the dictionaries read and the write. */
static void object_index(PdfUpdate *u)
{
  if (u->order)
    return;
  GArray *objs = g_array_sized_new(FALSE, FALSE, sizeof(BaseObj), (guint)u->xref_count);
  for (int i = 0; i < u->xref_count; i++) {
    const char *e = u->xref_entries + 20 * (gsize)i;
    if (e[17] != 'n')
      continue;
    BaseObj b = {entry_offset(e), i};
    if (b.off < u->prev_xref)
      g_array_append_val(objs, b);
  }
  g_array_sort(objs, base_obj_cmp);
  u->ends = g_new0(guint64, (gsize)u->xref_count);
  for (guint i = 0; i < objs->len; i++) {
    const BaseObj *b = &g_array_index(objs, BaseObj, i);
    u->ends[b->id] = i + 1 < objs->len ? g_array_index(objs, BaseObj, i + 1).off : u->prev_xref;
  }
  u->order = objs;
}

/* The length of "id 0 obj" at p (before end), or 0 when p does not start
 * with it. */
static gsize obj_head(const char *p, const char *end, int id)
{
  const char *s = p;
  gint64 v = 0;
  while (s < end && s - p < 10 && g_ascii_isdigit(*s))
    v = v * 10 + (*s++ - '0');
  if (s == p || (*p == '0' && s - p > 1) || v != id || end - s < 6 || memcmp(s, " 0 obj", 6))
    return 0;
  return (gsize)(s + 6 - p);
}

/* Whether the base is a file pdfupdate_write can rewrite: one classic
 * table from object 0 that covers every object (cairo's). */
static bool rewritable(const PdfUpdate *u)
{
  return u->xref_entries && u->xref_first == 0 && u->xref_count == u->size;
}

/* The last "endobj" in [s, end) (binary: a stream's data may hold NULs). */
static const char *last_endobj(const char *s, const char *end)
{
  for (const char *p = end - 6; p >= s; p--)
    if (*p == 'e' && !memcmp(p, "endobj", 6))
      return p;
  return NULL;
}

static bool pdf_space(char c)
{
  return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\0';
}

/* The value of the file's object id as its bytes have it, from after
 * "id 0 obj" to before its last "endobj", blanks trimmed ([*v, *ve)),
 * and the object's span in the file ([*off, *end)): false when the
 * object is free, not of generation 0, or not where the table says. The
 * file must be rewritable. */
static bool base_value(PdfUpdate *u, int id, const char **v, const char **ve, guint64 *off,
                       guint64 *end)
{
  object_index(u);
  const char *e = u->xref_entries + 20 * (gsize)id;
  if (e[17] != 'n' || memcmp(e + 11, "00000", 5) || !u->ends[id])
    return false;
  *off = entry_offset(e);
  *end = u->ends[id];
  gsize hn = *end <= u->base_len && *end > *off ? obj_head(u->base + *off, u->base + *end, id) : 0;
  const char *s = u->base + *off + hn, *t = hn ? last_endobj(s, u->base + *end) : NULL;
  if (!t)
    return false;
  while (s < t && pdf_space(*s))
    s++;
  while (t > s && pdf_space(t[-1]))
    t--;
  *v = s;
  *ve = t;
  return true;
}

PdfUpdate *pdfupdate_new(qpdf_data q, const char *base, gsize len, GError **err)
{
  guint64 prev = 0;
  if (!last_startxref(base, len, &prev)) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "no startxref at the end of the PDF");
    return NULL;
  }
  qpdf_oh trailer = qpdf_get_trailer(q), size = qpdf_oh_get_key(q, trailer, "/Size");
  int next = qpdf_oh_is_integer(q, size) ? qpdf_oh_get_int_value_as_int(q, size) : 0;
  qpdf_oh_release(q, size);
  qpdf_oh_release(q, trailer);
  if (next <= 0) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "no /Size in the PDF's trailer");
    return NULL;
  }
  PdfUpdate *u = g_new0(PdfUpdate, 1);
  *u = (PdfUpdate){
      .q = q,
      .base = base,
      .base_len = len,
      .prev_xref = prev,
      .next_id = next,
      .size = next,
      .objs = g_hash_table_new(NULL, NULL),
      .data = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_bytes_unref),
      .texts = g_hash_table_new_full(NULL, NULL, NULL, g_free),
      .sources = g_hash_table_new_full(NULL, NULL, NULL, source_free),
      .unread = g_hash_table_new(NULL, NULL),
      .keys = g_hash_table_new_full(NULL, NULL, NULL, g_free),
  };
  index_xref(u);
  return u;
}

void pdfupdate_free(PdfUpdate *u)
{
  if (!u)
    return;
  g_hash_table_destroy(u->objs);
  g_hash_table_destroy(u->data);
  g_hash_table_destroy(u->texts);
  g_hash_table_destroy(u->sources);
  if (u->source_err)
    g_error_free(u->source_err);
  g_hash_table_destroy(u->unread);
  g_hash_table_destroy(u->keys);
  if (u->order)
    g_array_free(u->order, TRUE);
  g_free(u->ends);
  g_free(u);
}

void pdfupdate_changed(PdfUpdate *u, qpdf_oh oh)
{
  int id = qpdf_oh_get_object_id(u->q, oh);
  if (id <= 0)
    return;
  assert(!qpdf_oh_is_stream(u->q, oh)); /* only dictionaries and arrays are edited */
  assert(!g_hash_table_contains(u->unread, GINT_TO_POINTER(id))); /* its stand-in would be written */
  assert(!g_hash_table_contains(u->keys, GINT_TO_POINTER(id))); /* its keys would be lost */
  g_hash_table_insert(u->objs, GINT_TO_POINTER(id),
                      GINT_TO_POINTER(qpdf_oh_get_generation(u->q, oh) + 1));
}

/* The catalog's /Pages /Kids (*kids, the caller's to release) and their
 * number, when the page tree is flat (its /Count is that number). */
static bool page_kids(PdfUpdate *u, qpdf_oh *kids, int *n)
{
  qpdf_data q = u->q;
  qpdf_oh root = qpdf_get_root(q), pages = qpdf_oh_get_key(q, root, "/Pages");
  qpdf_oh count = qpdf_oh_get_key(q, pages, "/Count");
  *kids = qpdf_oh_get_key(q, pages, "/Kids");
  *n = qpdf_oh_is_array(q, *kids) ? qpdf_oh_get_array_n_items(q, *kids) : 0;
  bool flat =
      *n > 0 && qpdf_oh_is_integer(q, count) && qpdf_oh_get_int_value_as_int(q, count) == *n;
  qpdf_oh_release(q, count);
  qpdf_oh_release(q, pages);
  qpdf_oh_release(q, root);
  if (!flat)
    qpdf_oh_release(q, *kids);
  return flat;
}

int pdfupdate_page_count(PdfUpdate *u)
{
  qpdf_oh kids;
  int n;
  if (!page_kids(u, &kids, &n))
    return qpdf_get_num_pages(u->q);
  qpdf_oh_release(u->q, kids);
  return n;
}

qpdf_oh pdfupdate_page(PdfUpdate *u, int i)
{
  qpdf_oh kids;
  int n;
  if (!page_kids(u, &kids, &n))
    return qpdf_get_page_n(u->q, (size_t)i);
  qpdf_oh page = qpdf_oh_get_array_item(u->q, kids, i);
  qpdf_oh_release(u->q, kids);
  return page;
}

void pdfupdate_unread(PdfUpdate *u, qpdf_oh dict, const char *key)
{
  qpdf_oh ref = qpdf_oh_get_key(u->q, dict, key); /* not resolved: a reference stays one */
  int id = qpdf_oh_is_indirect(u->q, ref) ? qpdf_oh_get_object_id(u->q, ref) : 0;
  if (id > 0 && id < u->size && !g_hash_table_contains(u->objs, GINT_TO_POINTER(id))) {
    qpdf_oh stand_in = qpdf_oh_new_integer(u->q, 0);
    qpdf_replace_object(u->q, id, qpdf_oh_get_generation(u->q, ref), stand_in);
    qpdf_oh_release(u->q, stand_in);
    g_hash_table_add(u->unread, GINT_TO_POINTER(id));
  }
  qpdf_oh_release(u->q, ref);
}

qpdf_oh pdfupdate_read_direct(PdfUpdate *u, qpdf_oh ref)
{
  int id = qpdf_oh_get_object_id(u->q, ref);
  if (!u->xref_entries || id < u->xref_first || id - u->xref_first >= u->xref_count ||
      qpdf_has_error(u->q))
    return 0;
  const char *e = u->xref_entries + 20 * (gsize)(id - u->xref_first);
  if (e[17] != 'n' || memcmp(e + 11, "00000", 5) || qpdf_oh_get_generation(u->q, ref) != 0)
    return 0;
  guint64 off = entry_offset(e);
  gsize hn = off < u->base_len ? obj_head(u->base + off, u->base + u->base_len, id) : 0;
  if (!hn)
    return 0;
  const char *s = u->base + off + hn,
             *end = memmem(s, u->base_len - (gsize)(s - u->base), "endobj", 6);
  if (!end)
    return 0;
  /* an "endobj" inside a string cuts the dictionary short: qpdf then
   * fails, as on a stream or an indirect reference, and the caller reads
   * the object through qpdf */
  char *text = g_strndup(s, (gsize)(end - s));
  qpdf_oh o = qpdf_oh_parse(u->q, text);
  g_free(text);
  if (qpdf_has_error(u->q) || !qpdf_oh_is_dictionary(u->q, o)) {
    if (qpdf_has_error(u->q))
      qpdf_get_error(u->q); /* clears it */
    qpdf_oh_release(u->q, o);
    return 0;
  }
  return o;
}

const char *pdfupdate_base_dict(PdfUpdate *u, int id, gsize *len)
{
  gsize n;
  const char *v = pdfupdate_base_value(u, id, &n);
  /* a dictionary (a stream's value is refused there), not given keys yet */
  if (!v || n < 4 || memcmp(v, "<<", 2) || memcmp(v + n - 2, ">>", 2) ||
      g_hash_table_contains(u->keys, GINT_TO_POINTER(id)))
    return NULL;
  *len = n;
  return v;
}

const char *pdfupdate_base_value(PdfUpdate *u, int id, gsize *len)
{
  const char *v, *ve;
  guint64 off, end;
  if (!rewritable(u) || id <= 0 || id >= u->xref_count ||
      g_hash_table_contains(u->objs, GINT_TO_POINTER(id)) ||
      g_hash_table_contains(u->unread, GINT_TO_POINTER(id)) ||
      !base_value(u, id, &v, &ve, &off, &end))
    return NULL;
  if (ve - v >= 9 && !memcmp(ve - 9, "endstream", 9))
    return NULL;
  *len = (gsize)(ve - v);
  return v;
}

void pdfupdate_add_keys(PdfUpdate *u, int id, char *keys)
{
  assert(rewritable(u) && id > 0 && id < u->xref_count);
  assert(!g_hash_table_contains(u->objs, GINT_TO_POINTER(id)));
  g_hash_table_insert(u->keys, GINT_TO_POINTER(id), keys);
}

void pdfupdate_replace(PdfUpdate *u, qpdf_oh ref, qpdf_oh value)
{
  int id = qpdf_oh_get_object_id(u->q, ref);
  g_hash_table_insert(u->texts, GINT_TO_POINTER(id), g_strdup(qpdf_oh_unparse(u->q, value)));
  g_hash_table_insert(u->objs, GINT_TO_POINTER(id), GINT_TO_POINTER(1));
}

qpdf_oh pdfupdate_add(PdfUpdate *u, qpdf_oh value)
{
  int id = u->next_id++;
  qpdf_replace_object(u->q, id, 0, value);
  g_hash_table_insert(u->objs, GINT_TO_POINTER(id), GINT_TO_POINTER(1));
  return qpdf_get_object_by_id(u->q, id, 0);
}

qpdf_oh pdfupdate_add_stream(PdfUpdate *u, qpdf_oh dict, GBytes *data)
{
  qpdf_oh len = qpdf_oh_new_integer(u->q, (long long)g_bytes_get_size(data));
  qpdf_oh_replace_key(u->q, dict, "/Length", len);
  qpdf_oh_release(u->q, len);
  qpdf_oh oh = pdfupdate_add(u, dict);
  g_hash_table_insert(u->data, GINT_TO_POINTER(qpdf_oh_get_object_id(u->q, oh)), g_bytes_ref(data));
  return oh;
}

static int int_cmp(gconstpointer a, gconstpointer b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Where the update goes: the file, the offset reached, the digest of
 * what was written (for /ID) and the first write error. */
typedef struct {
  FILE *f;
  gsize at;
  GChecksum *sum;
  int err;
} Out;

static void out_put(Out *o, const char *s, gsize n)
{
  g_checksum_update(o->sum, (const guchar *)s, (gssize)n);
  o->at += n;
  if (!o->err && fwrite(s, 1, n, o->f) != n)
    o->err = errno ? errno : EIO;
}

static void out_str(Out *o, const char *s)
{
  out_put(o, s, strlen(s));
}

/* A stream's data, written as out_put does, but counted in the digest by
 * its length and its CRC-32 (zlib's crc32: a third of MD5's instructions
 * a byte) rather than byte by byte: the compact file's /ID (write_compact). */
static void out_data(Out *o, const char *s, gsize n)
{
  guint8 sum[12];
  guint64 len = n;
  guint32 crc = 0;
  for (gsize at = 0; at < n; at += MIN(n - at, (gsize)G_MAXUINT32))
    crc = (guint32)crc32_z(crc, (const Bytef *)s + at, MIN(n - at, (gsize)G_MAXUINT32));
  for (int i = 0; i < 8; i++)
    sum[i] = (guint8)(len >> (8 * i));
  for (int i = 0; i < 4; i++)
    sum[8 + i] = (guint8)(crc >> (8 * i));
  g_checksum_update(o->sum, sum, sizeof sum);
  o->at += n;
  if (!o->err && fwrite(s, 1, n, o->f) != n)
    o->err = errno ? errno : EIO;
}

/* The objects, in number order, written as they are serialised (each
 * object's text freed once written); offsets[i] is where the i-th starts
 * in the file. */
static GArray *write_objects(PdfUpdate *u, Out *o, GArray *offsets)
{
  GArray *ids = g_array_sized_new(FALSE, FALSE, sizeof(int), g_hash_table_size(u->objs));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init(&it, u->objs);
  while (g_hash_table_iter_next(&it, &k, NULL)) {
    int id = GPOINTER_TO_INT(k);
    g_array_append_val(ids, id);
  }
  g_array_sort(ids, int_cmp);
  for (guint i = 0; i < ids->len; i++) {
    int id = g_array_index(ids, int, i);
    int gen = GPOINTER_TO_INT(g_hash_table_lookup(u->objs, GINT_TO_POINTER(id))) - 1;
    g_array_append_val(offsets, o->at);
    char head[48];
    g_snprintf(head, sizeof head, "%d %d obj\n", id, gen);
    out_str(o, head);
    const char *text = g_hash_table_lookup(u->texts, GINT_TO_POINTER(id));
    if (text) {
      out_str(o, text);
      g_hash_table_remove(u->texts, GINT_TO_POINTER(id));
    } else {
      qpdf_oh oh = qpdf_get_object_by_id(u->q, id, gen);
      out_str(o, qpdf_oh_unparse_resolved(u->q, oh));
      qpdf_oh_release(u->q, oh);
    }
    out_str(o, "\n");
    GBytes *data = take_data(u, id);
    if (data) {
      gsize n = 0;
      const char *d = g_bytes_get_data(data, &n);
      out_str(o, "stream\n");
      out_put(o, d, n);
      out_str(o, "\nendstream\n");
      g_bytes_unref(data);
      g_hash_table_remove(u->data, GINT_TO_POINTER(id));
      g_hash_table_remove(u->sources, GINT_TO_POINTER(id));
    }
    out_str(o, "endobj\n");
    if (i % 4096 == 4095) /* what qpdf read of the file for them */
      pdfupdate_drop_pages(u);
  }
  return ids;
}

/* The cross-reference section (subsections of consecutive numbers) and
 * the trailer, ending the file. */
static void write_xref(PdfUpdate *u, GString *out, const GArray *ids, const GArray *offsets,
                       gsize xref_at, const guint8 id0[16], const guint8 id1[16])
{
  g_string_append(out, "xref\n");
  for (guint i = 0; i < ids->len;) {
    guint j = i + 1;
    while (j < ids->len && g_array_index(ids, int, j) == g_array_index(ids, int, j - 1) + 1)
      j++;
    g_string_append_printf(out, "%d %u\n", g_array_index(ids, int, i), j - i);
    for (; i < j; i++) {
      int id = g_array_index(ids, int, i);
      int gen = GPOINTER_TO_INT(g_hash_table_lookup(u->objs, GINT_TO_POINTER(id))) - 1;
      g_string_append_printf(out, "%010" G_GSIZE_FORMAT " %05d n \n",
                             g_array_index(offsets, gsize, i), gen);
    }
  }
  qpdf_data q = u->q;
  qpdf_oh old = qpdf_get_trailer(q), t = qpdf_oh_new_dictionary(q);
  qpdf_oh v[5] = {qpdf_oh_new_integer(q, u->next_id), qpdf_get_root(q),
                  qpdf_oh_get_key(q, old, "/Info"), qpdf_oh_new_integer(q, (long long)u->prev_xref),
                  qpdf_oh_new_array(q)};
  const char *keys[5] = {"/Size", "/Root", "/Info", "/Prev", "/ID"};
  qpdf_oh s0 = qpdf_oh_new_binary_string(q, (const char *)id0, 16);
  qpdf_oh s1 = qpdf_oh_new_binary_string(q, (const char *)id1, 16);
  qpdf_oh_append_item(q, v[4], s0);
  qpdf_oh_append_item(q, v[4], s1);
  for (int i = 0; i < 5; i++) {
    if (!qpdf_oh_is_null(q, v[i]))
      qpdf_oh_replace_key(q, t, keys[i], v[i]);
    qpdf_oh_release(q, v[i]);
  }
  g_string_append_printf(out, "trailer\n%s\nstartxref\n%" G_GSIZE_FORMAT "\n%%%%EOF\n",
                         qpdf_oh_unparse(q, t), xref_at);
  qpdf_oh_release(q, s0);
  qpdf_oh_release(q, s1);
  qpdf_oh_release(q, t);
  qpdf_oh_release(q, old);
}

/* The MD5 of the file's bytes, read through in slices whose pages are
 * dropped once read (pdfupdate_drop_pages). */
static GChecksum *base_sum(PdfUpdate *u)
{
  GChecksum *sum = g_checksum_new(G_CHECKSUM_MD5);
  const gsize slice = 8 << 20;
  for (gsize at = 0; at < u->base_len; at += slice) {
    g_checksum_update(sum, (const guchar *)u->base + at, (gssize)MIN(slice, u->base_len - at));
    pdfupdate_drop_pages(u);
  }
  return sum;
}

void pdfupdate_drop_pages(PdfUpdate *u)
{
  long ps = sysconf(_SC_PAGESIZE);
  guintptr b = (guintptr)u->base, start = b - b % (guintptr)(ps > 0 ? ps : 4096);
  if (u->base_len)
    madvise((void *)start, u->base_len + (b - start), MADV_DONTNEED);
}

bool pdfupdate_append(PdfUpdate *u, const char *path, GError **err)
{
  /* the update starts on a line of its own */
  const char *sep =
      u->base_len && (u->base[u->base_len - 1] == '\n' || u->base[u->base_len - 1] == '\r') ? ""
                                                                                            : "\n";
  guint8 id0[16], id1[16];
  gsize n = sizeof id0;
  GChecksum *sum = base_sum(u);
  Out o = {fopen(path, "ab"), u->base_len, g_checksum_copy(sum), 0};
  g_checksum_get_digest(sum, id0, &n);
  g_checksum_free(sum);
  if (!o.f)
    o.err = errno ? errno : EIO;
  GArray *offsets = g_array_new(FALSE, FALSE, sizeof(gsize));
  GArray *ids = NULL;
  if (o.f) {
    out_str(&o, sep);
    ids = write_objects(u, &o, offsets);
  }
  n = sizeof id1;
  g_checksum_get_digest(o.sum, id1, &n);
  g_checksum_free(o.sum);
  if (o.f) {
    GString *tail = g_string_new(NULL);
    write_xref(u, tail, ids, offsets, o.at, id0, id1);
    if (!o.err && fwrite(tail->str, 1, tail->len, o.f) != tail->len)
      o.err = errno ? errno : EIO;
    g_string_free(tail, TRUE);
    if (fclose(o.f) != 0 && !o.err)
      o.err = errno ? errno : EIO;
  }
  if (o.err)
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(o.err), "cannot append the update: %s",
                g_strerror(o.err)); /* path may be /proc/self/fd/N: the caller names the file */
  bool failed = o.err != 0 || u->source_err;
  if (!o.err && u->source_err)
    g_propagate_error(err, g_steal_pointer(&u->source_err));
  g_array_free(offsets, TRUE);
  if (ids)
    g_array_free(ids, TRUE);
  return !failed;
}

/* ------------------------------------------------------------------------ */
/* The compact rewrite                                                      */
/*
 * cairo 1.16 writes every object as plain text: a link costs an annotation
 * (~270 bytes), a Link structure element (~135), its ParentTree and name
 * tree entries and 20 bytes of cross-reference each, and the update above
 * writes every annotation a second time (/F, /Contents). A book of 100,000
 * links or footnotes came to 70-110 KB a page, ten times an ordinary
 * page. pdfupdate_write writes the file anew instead: each object once
 * (the update's version where there is one), the streams as they are, every
 * other object in a compressed object stream (§7.5.7) and the
 * cross-reference table as a compressed stream (§7.5.8), both PDF 1.5 (as
 * cairo's header says), both allowed by PDF/A-3 and PDF/UA-1. It reads
 * cairo's bytes once through, in object order, keeping 16 bytes an object.
 * The file is new: both strings of its /ID are one digest of what it
 * holds before the cross-reference stream, the MD5 of its bytes with each
 * stream's data counted by its length and CRC-32 (out_data; a stream of
 * cairo's, from its first "stream" line on): a function of the content
 * alone, as the threads and runs leave it, for a fifth of the MD5 of
 * cairo's file and of the new one that it was (2 MB bench book: 212 M
 * instructions). */

enum {
  OBJSTM_MAX = 200,           /* objects in one object stream */
  OBJSTM_BYTES = 256 << 10,   /* or this much text */
  DROP_EVERY = 4 << 20,       /* cairo's bytes read before their pages are dropped (they count in RSS) */
};

typedef struct {
  guint8 type; /* 0 free, 1 at an offset, 2 in an object stream */
  guint16 f3;  /* 1: generation; 2: index in its stream */
  guint64 f2;  /* 1: offset; 2: the stream's object number */
} XEntry;

/* What the rewrite has written so far and the object stream being filled. */
typedef struct {
  PdfUpdate *u;
  Out o;
  XEntry *x;       /* next_id + streams + 1 entries, grown as streams are added */
  guint nx;        /* entries allocated */
  int next_stm;    /* the number the next object stream gets */
  GString *head;   /* the stream's "id offset" pairs */
  GString *body;   /* its objects' text */
  GString *text;   /* an object's text with keys added (base_put) */
  int *ids;        /* its objects, OBJSTM_MAX */
  int n;           /* in it */
  gsize unread;    /* cairo's bytes read since their pages were dropped last */
} Rewrite;

static void x_grow(Rewrite *w, guint need)
{
  if (need <= w->nx)
    return;
  guint n = MAX(need, w->nx + w->nx / 4 + 16);
  w->x = g_renew(XEntry, w->x, n);
  memset(w->x + w->nx, 0, (n - w->nx) * sizeof(XEntry));
  w->nx = n;
}

GBytes *pdfupdate_deflate(const void *data, gsize len)
{
  struct libdeflate_compressor *c = libdeflate_alloc_compressor(PDFUPDATE_DEFLATE_LEVEL);
  if (!c)
    g_error("libdeflate could not allocate a compressor"); /* only on no memory */
  gsize bound = libdeflate_zlib_compress_bound(c, len);
  guint8 *z = g_malloc(bound);
  gsize n = libdeflate_zlib_compress(c, data, len, z, bound);
  libdeflate_free_compressor(c);
  if (n == 0) /* the bound is what it needs */
    g_error("libdeflate could not deflate %" G_GSIZE_FORMAT " bytes", len);
  return g_bytes_new_take(g_realloc(z, n), n);
}


/* The object stream filled so far, written as the next object. */
static void stm_flush(Rewrite *w)
{
  if (!w->n)
    return;
  int id = w->next_stm++;
  x_grow(w, (guint)id + 1);
  w->x[id] = (XEntry){1, 0, w->o.at};
  g_string_append_c(w->head, '\n'); /* the last offset ends before the first object */
  gsize first = w->head->len;
  g_string_append_len(w->head, w->body->str, (gssize)w->body->len);
  GBytes *z = pdfupdate_deflate(w->head->str, w->head->len);
  gsize zn = 0;
  const char *zd = g_bytes_get_data(z, &zn);
  char dict[160];
  g_snprintf(dict, sizeof dict,
             "%d 0 obj\n<< /Type /ObjStm /N %d /First %" G_GSIZE_FORMAT
             " /Filter /FlateDecode /Length %" G_GSIZE_FORMAT " >>\nstream\n",
             id, w->n, first, zn);
  out_str(&w->o, dict);
  out_data(&w->o, zd, zn);
  out_str(&w->o, "\nendstream\nendobj\n");
  g_bytes_unref(z);
  for (int i = 0; i < w->n; i++)
    w->x[w->ids[i]] = (XEntry){2, (guint16)i, (guint64)id};
  g_string_truncate(w->head, 0);
  g_string_truncate(w->body, 0);
  w->n = 0;
}

/* n in decimal after s's text (a printf's cost, ~1,700 instructions,
 * once for each of the file's objects, was 2 % of the pass). */
static void append_uint(GString *s, guint64 n)
{
  char d[24];
  gsize k = sizeof d;
  do
    d[--k] = (char)('0' + n % 10);
  while ((n /= 10) > 0);
  g_string_append_len(s, d + k, (gssize)(sizeof d - k));
}

/* Object id (generation 0, not a stream) with the value text[0..len) into
 * the object stream being filled. Its entry is set when the stream is
 * written. */
static void stm_add(Rewrite *w, int id, const char *text, gsize len)
{
  if (w->n)
    g_string_append_c(w->head, ' ');
  append_uint(w->head, (guint64)id);
  g_string_append_c(w->head, ' ');
  append_uint(w->head, w->body->len);
  g_string_append_len(w->body, text, (gssize)len);
  g_string_append_c(w->body, '\n');
  w->ids[w->n++] = id;
  if (w->n == OBJSTM_MAX || w->body->len >= OBJSTM_BYTES)
    stm_flush(w);
}

/* An object written as itself at the current offset: "id gen obj", text,
 * the stream's data if any, "endobj". */
static void obj_put(Rewrite *w, int id, int gen, const char *text, gsize len, GBytes *data)
{
  w->x[id] = (XEntry){1, (guint16)gen, w->o.at};
  char head[48];
  g_snprintf(head, sizeof head, "%d %d obj\n", id, gen);
  out_str(&w->o, head);
  out_put(&w->o, text, len);
  out_str(&w->o, "\n");
  if (data) {
    gsize n = 0;
    const char *d = g_bytes_get_data(data, &n);
    out_str(&w->o, "stream\n");
    out_data(&w->o, d, n);
    out_str(&w->o, "\nendstream\n");
  }
  out_str(&w->o, "endobj\n");
}

/* A stream object of cairo's file written as itself: "id 0 obj", its
 * value text[0..len) (dictionary, "stream", data, "endstream"), "endobj";
 * what follows the first "stream" line counted as data (out_data). */
static void stream_put(Rewrite *w, int id, const char *text, gsize len)
{
  const char *end = text + len, *k = memmem(text, len, "stream", 6), *d = k ? k + 6 : end;
  if (d < end && *d == '\r')
    d++;
  if (d < end && *d == '\n')
    d++;
  w->x[id] = (XEntry){1, 0, w->o.at};
  char head[32];
  g_snprintf(head, sizeof head, "%d 0 obj\n", id);
  out_str(&w->o, head);
  out_put(&w->o, text, (gsize)(d - text));
  out_data(&w->o, d, len - (gsize)(d - text));
  out_str(&w->o, "\nendobj\n");
}

/* cairo's object id as it is in the file (with the keys
 * pdfupdate_add_keys gave it); left out when its entry is free, not
 * generation 0, or not where the table says (a reference to it reads as
 * null, as before). */
static void base_put(Rewrite *w, int id)
{
  PdfUpdate *u = w->u;
  const char *v, *ve;
  guint64 off, end;
  if (!base_value(u, id, &v, &ve, &off, &end))
    return;
  /* a stream: a dictionary, "stream", the data, "endstream" */
  bool stream = ve - v >= 11 && !memcmp(v, "<<", 2) && !memcmp(ve - 9, "endstream", 9);
  const char *keys = g_hash_table_lookup(u->keys, GINT_TO_POINTER(id));
  if (stream) {
    stream_put(w, id, v, (gsize)(ve - v));
  } else if (keys) { /* a dictionary (pdfupdate_base_dict): before its ">>" */
    g_string_truncate(w->text, 0);
    g_string_append_len(w->text, v, ve - v - 2);
    g_string_append_c(w->text, ' ');
    g_string_append(w->text, keys);
    g_string_append(w->text, ">>");
    stm_add(w, id, w->text->str, w->text->len);
  } else {
    stm_add(w, id, v, (gsize)(ve - v));
  }
  w->unread += (gsize)(end - off);
  if (w->unread > DROP_EVERY) {
    pdfupdate_drop_pages(u);
    w->unread = 0;
  }
}

/* Object id, which the update holds (changed or new). */
static void update_put(Rewrite *w, int id, int gen)
{
  PdfUpdate *u = w->u;
  GBytes *data = take_data(u, id);
  const char *text = g_hash_table_lookup(u->texts, GINT_TO_POINTER(id));
  qpdf_oh oh = 0;
  if (!text) {
    oh = qpdf_get_object_by_id(u->q, id, gen);
    text = qpdf_oh_unparse_resolved(u->q, oh);
  }
  if (data || gen != 0)
    obj_put(w, id, gen, text, strlen(text), data);
  else
    stm_add(w, id, text, strlen(text));
  if (oh)
    qpdf_oh_release(u->q, oh);
  g_hash_table_remove(u->texts, GINT_TO_POINTER(id));
  g_hash_table_remove(u->data, GINT_TO_POINTER(id));
  g_hash_table_remove(u->sources, GINT_TO_POINTER(id));
  if (data)
    g_bytes_unref(data);
}

/* An indirect reference's "id gen R", or "null". */
static char *ref_text(qpdf_data q, qpdf_oh oh)
{
  if (!qpdf_oh_is_indirect(q, oh))
    return g_strdup("null");
  return g_strdup_printf("%d %d R", qpdf_oh_get_object_id(q, oh), qpdf_oh_get_generation(q, oh));
}

/* The cross-reference stream (the trailer's keys in its dictionary), ending
 * the file. Its rows go through the PNG "Up" predictor (/Predictor 12, each
 * row a filter byte 2 and its bytes' differences from the row above, as
 * qpdf writes its own; PDF 32000-1 §7.4.4.4) before deflate: the rows are
 * runs of one object stream's number with its index counting up, which
 * deflate alone keeps chasing in long hash chains (2 MB bench book: 64 KB
 * in 28 ms) and the differences make mostly zeros (16 KB in 1.6 ms). A
 * table of under XREF_BOTH rows is deflated both ways, and the way that
 * makes the smaller file (/DecodeParms counted) is kept: there the rows are
 * mostly offsets, whose differences gain little, and the filter bytes and
 * /DecodeParms cost more (8 of tests/books' and the corpus's 22 books, of
 * 91 to 287 entries, stay as they were); both ways cost well under a
 * millisecond there. */
enum { XREF_BOTH = 1024 };

static void xref_stream(Rewrite *w, const guint8 id0[16], const guint8 id1[16])
{
  int id = w->next_stm++;
  x_grow(w, (guint)id + 1);
  gsize at = w->o.at;
  w->x[id] = (XEntry){1, 0, at};
  guint64 most = MAX(at, (guint64)id); /* offsets and object streams' numbers */
  int w2 = 1;
  while (w2 < 8 && most >> (8 * w2))
    w2++;
  gsize cols = 1 + (gsize)w2 + 2, row = 1 + cols, size = (gsize)id + 1;
  guint8 *rows = g_malloc0(row * size);
  for (gsize i = 0; i < size; i++) {
    guint8 *r = rows + i * row + 1;
    const XEntry *x = &w->x[i];
    XEntry free0 = {0, i == 0 ? 65535 : 0, 0};
    if (!x->type)
      x = &free0;
    r[0] = x->type;
    for (int b = 0; b < w2; b++)
      r[1 + b] = (guint8)(x->f2 >> (8 * (w2 - 1 - b)));
    r[1 + w2] = (guint8)(x->f3 >> 8);
    r[2 + w2] = (guint8)x->f3;
  }
  /* the predictor, from the last row up: each row's bytes less the row
   * above's (the first row's "above" is zeros) */
  for (gsize i = size; i-- > 0;) {
    guint8 *r = rows + i * row;
    r[0] = 2; /* PNG filter type Up */
    for (gsize b = 1; i > 0 && b <= cols; b++)
      r[b] = (guint8)(r[b] - r[b - row]);
  }
  GBytes *z = pdfupdate_deflate((const char *)rows, row * size);
  gsize zn = 0;
  char *parms =
      g_strdup_printf(" /DecodeParms << /Columns %" G_GSIZE_FORMAT " /Predictor 12 >>", cols);
  if (size < XREF_BOTH) {
    /* the rows as they were: the filter bytes left out, the sums undone */
    guint8 *plain = g_malloc0(cols * size);
    for (gsize i = 0; i < size; i++)
      for (gsize b = 0; b < cols; b++)
        plain[i * cols + b] =
            (guint8)(rows[i * row + 1 + b] + (i > 0 ? plain[(i - 1) * cols + b] : 0));
    GBytes *zp = pdfupdate_deflate((const char *)plain, cols * size);
    g_free(plain);
    if (g_bytes_get_size(zp) <= g_bytes_get_size(z) + strlen(parms)) { /* the file's bytes */
      g_bytes_unref(z);
      z = zp;
      parms[0] = '\0';
    } else
      g_bytes_unref(zp);
  }
  g_free(rows);
  const char *zd = g_bytes_get_data(z, &zn);
  qpdf_data q = w->u->q;
  qpdf_oh trailer = qpdf_get_trailer(q), root = qpdf_get_root(q),
          info = qpdf_oh_get_key(q, trailer, "/Info");
  char *rt = ref_text(q, root), *it = ref_text(q, info);
  GString *d = g_string_new(NULL);
  g_string_append_printf(d, "%d 0 obj\n<< /Type /XRef /Size %" G_GSIZE_FORMAT " /W [ 1 %d 2 ] /Root %s",
                         id, size, w2, rt);
  if (strcmp(it, "null"))
    g_string_append_printf(d, " /Info %s", it);
  g_string_append(d, " /ID [ <");
  for (int i = 0; i < 16; i++)
    g_string_append_printf(d, "%02x", id0[i]);
  g_string_append(d, "> <");
  for (int i = 0; i < 16; i++)
    g_string_append_printf(d, "%02x", id1[i]);
  g_string_append_printf(d, "> ] /Filter /FlateDecode%s /Length %" G_GSIZE_FORMAT " >>\nstream\n",
                         parms, zn);
  g_free(parms);
  out_put(&w->o, d->str, d->len);
  out_put(&w->o, zd, zn);
  g_string_printf(d, "\nendstream\nendobj\nstartxref\n%" G_GSIZE_FORMAT "\n%%%%EOF\n", at);
  out_put(&w->o, d->str, d->len);
  g_string_free(d, TRUE);
  g_free(rt);
  g_free(it);
  g_bytes_unref(z);
  qpdf_oh_release(q, info);
  qpdf_oh_release(q, root);
  qpdf_oh_release(q, trailer);
}

static bool write_compact(PdfUpdate *u, const char *path, GError **err)
{
  guint8 id[16];
  gsize n = sizeof id;
  Rewrite w = {0};
  w.u = u;
  w.o = (Out){fopen(path, "wb"), 0, g_checksum_new(G_CHECKSUM_MD5), 0};
  if (!w.o.f)
    w.o.err = errno ? errno : EIO;
  else {
    w.next_stm = u->next_id;
    x_grow(&w, (guint)u->next_id + 64);
    w.head = g_string_new(NULL);
    w.body = g_string_new(NULL);
    w.text = g_string_new(NULL);
    w.ids = g_new(int, OBJSTM_MAX);
    /* cairo's header: the version line and the binary comment */
    const char *first = memmem(u->base, MIN(u->base_len, 1024), " 0 obj", 6);
    gsize hlen = 0;
    if (first) {
      while (first > u->base && first[-1] != '\n' && first[-1] != '\r')
        first--;
      hlen = (gsize)(first - u->base);
    }
    if (hlen == 0 || hlen > 64 || memcmp(u->base, "%PDF-1.", 7)) {
      out_str(&w.o, "%PDF-1.5\n%\xb5\xed\xae\xfb\n");
    } else
      out_put(&w.o, u->base, hlen);
    for (int id = 1; id < u->next_id; id++) {
      gpointer g;
      if (g_hash_table_lookup_extended(u->objs, GINT_TO_POINTER(id), NULL, &g))
        update_put(&w, id, GPOINTER_TO_INT(g) - 1);
      else if (id < u->xref_count)
        base_put(&w, id);
      if (id % 4096 == 4095 && w.o.err)
        break;
    }
    stm_flush(&w);
    pdfupdate_drop_pages(u);
  }
  GChecksum *out_sum = g_checksum_copy(w.o.sum);
  g_checksum_get_digest(out_sum, id, &n);
  g_checksum_free(out_sum);
  if (w.o.f) {
    xref_stream(&w, id, id);
    if (fclose(w.o.f) != 0 && !w.o.err)
      w.o.err = errno ? errno : EIO;
  }
  g_checksum_free(w.o.sum);
  if (w.head)
    g_string_free(w.head, TRUE);
  if (w.body)
    g_string_free(w.body, TRUE);
  if (w.text)
    g_string_free(w.text, TRUE);
  g_free(w.ids);
  g_free(w.x);
  if (w.o.err)
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(w.o.err), "%s",
                g_strerror(w.o.err)); /* the caller names the output */
  else if (u->source_err) {
    g_propagate_error(err, g_steal_pointer(&u->source_err));
    return false;
  }
  return !w.o.err;
}

bool pdfupdate_write(PdfUpdate *u, const char *path, const char *beside, char **fresh,
                     GError **err)
{
  *fresh = NULL;
  if (!rewritable(u))
    return pdfupdate_append(u, path, err);
  /* path may be an unnamed temporary file (/proc/self/fd/N): the new one
   * goes beside the output it will become */
  char *tmp = util_temp_beside(beside, err);
  if (!tmp)
    return false;
  if (!write_compact(u, tmp, err)) {
    util_temp_discard(tmp);
    g_free(tmp);
    return false;
  }
  *fresh = tmp;
  return true;
}

/* ------------------------------------------------------------------------ */
/* Streams found by their data and replaced                                 */

/* The stream whose data starts at base + at, in the object that starts
 * at obj->off and ends before `end`; false when the bytes are not
 * "id 0 obj <<...>> stream EOL data EOL endstream". */
static bool stream_at(const PdfUpdate *u, const BaseObj *obj, guint64 end, gsize at,
                      PdfStreamBytes *out)
{
  const char *e = u->xref_entries + 20 * (gsize)obj->id;
  if (memcmp(e + 11, "00000", 5) || end > u->base_len)
    return false;
  const char *s = u->base + obj->off, *data = u->base + at;
  gsize hn = obj_head(s, data, obj->id);
  if (!hn)
    return false;
  const char *kw = data; /* back over the EOL to "stream" */
  if (kw > s && kw[-1] == '\n')
    kw--;
  if (kw > s && kw[-1] == '\r')
    kw--;
  if ((gsize)(kw - s) < hn + 6 + 4 || memcmp(kw - 6, "stream", 6))
    return false;
  const char *d = s + hn, *de = kw - 6;
  while (d < de && pdf_space(*d))
    d++;
  while (de > d && pdf_space(de[-1]))
    de--;
  if (de - d < 4 || memcmp(d, "<<", 2) || memcmp(de - 2, ">>", 2))
    return false;
  const char *t = NULL; /* the last "endstream" of the object */
  for (const char *p = u->base + end - 9; p >= data; p--)
    if (*p == 'e' && !memcmp(p, "endstream", 9)) {
      t = p;
      break;
    }
  if (!t)
    return false;
  if (t > data && t[-1] == '\n')
    t--;
  if (t > data && t[-1] == '\r')
    t--;
  *out = (PdfStreamBytes){obj->id, d, (gsize)(de - d), data, (gsize)(t - data)};
  return true;
}

GArray *pdfupdate_find_streams(PdfUpdate *u, const char *prefix)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(PdfStreamBytes));
  gsize pn = strlen(prefix);
  if (!rewritable(u) || pn == 0)
    return out;
  const char *end = u->base + u->prev_xref;
  /* window by window, each dropped from memory once searched */
  for (const char *win = u->base; win < end; win += MIN((gsize)DROP_EVERY, (gsize)(end - win))) {
    const char *wend = win + MIN((gsize)DROP_EVERY, (gsize)(end - win)),
               *lim = wend + MIN(pn - 1, (gsize)(end - wend));
    for (const char *p = win;
         p < wend && (p = memmem(p, (gsize)(lim - p), prefix, pn)) != NULL && p < wend; p++) {
      gsize at = (gsize)(p - u->base);
      if (at < 7 || (u->base[at - 1] != '\n' && u->base[at - 1] != '\r'))
        continue;
      object_index(u);
      const GArray *objs = u->order;
      guint lo = 0, hi = objs->len; /* the last object starting before at */
      while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (g_array_index(objs, BaseObj, mid).off < at)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == 0)
        continue;
      const BaseObj *obj = &g_array_index(objs, BaseObj, lo - 1);
      guint64 oend = lo < objs->len ? g_array_index(objs, BaseObj, lo).off : u->prev_xref;
      PdfStreamBytes sb;
      if (stream_at(u, obj, oend, at, &sb))
        g_array_append_val(out, sb);
    }
    pdfupdate_drop_pages(u);
  }
  return out;
}

void pdfupdate_replace_stream_from(PdfUpdate *u, int id, qpdf_oh dict, gsize len,
                                   PdfUpdateSource fn, gpointer user, GDestroyNotify free_user)
{
  qpdf_oh l = qpdf_oh_new_integer(u->q, (long long)len);
  qpdf_oh_replace_key(u->q, dict, "/Length", l);
  qpdf_oh_release(u->q, l);
  g_hash_table_insert(u->texts, GINT_TO_POINTER(id), g_strdup(qpdf_oh_unparse(u->q, dict)));
  Source *src = g_new(Source, 1);
  *src = (Source){fn, user, free_user, len};
  g_hash_table_insert(u->sources, GINT_TO_POINTER(id), src);
  g_hash_table_insert(u->objs, GINT_TO_POINTER(id), GINT_TO_POINTER(1));
}

/* ------------------------------------------------------------------------ */
/* Scanning an object's bytes (pdfupdate_base_dict)                         */

bool pdfupdate_delim(char c)
{
  return strchr(" \t\r\n\f/<>[]()%", c) != NULL; /* NUL too: a blank */
}

/* Where the name (e.g. "/F") is in t[0..n) as a name of its own (not the
 * start of a longer one), or NULL. */
const char *pdfupdate_find_name(const char *t, gsize n, const char *name)
{
  gsize k = strlen(name);
  const char *e = t + n;
  for (const char *p = t; p < e && (p = memmem(p, (gsize)(e - p), name, k)); p++)
    if (p + k == e || pdfupdate_delim(p[k]))
      return p;
  return NULL;
}

/* Whether t[0..n) (a dictionary's text outside its one string) holds
 * nothing the scan cannot read: no other string (a hex string is a "<"
 * that does not open a dictionary), no comment, no escape. */
bool pdfupdate_plain(const char *t, gsize n)
{
  for (gsize i = 0; i < n; i++) {
    char c = t[i];
    if (c == '(' || c == ')' || c == '%' || c == '\\')
      return false;
    if (c == '<' && (i + 1 == n || t[++i] != '<'))
      return false;
  }
  return true;
}

/* Whether p (before end), past blanks, starts with what. */
bool pdfupdate_followed_by(const char *p, const char *end, const char *what)
{
  while (p < end && g_ascii_isspace(*p))
    p++;
  gsize k = strlen(what);
  return (gsize)(end - p) >= k && !memcmp(p, what, k);
}

/* "id gen R" at *p (after blanks), before end: the id and gen, *p moved
 * past it; false when the next token is not a reference. */
bool pdfupdate_scan_ref(const char **p, const char *end, int *id, int *gen)
{
  const char *c = *p;
  gint64 v[2];
  for (int k = 0; k < 2; k++) {
    while (c < end && g_ascii_isspace(*c))
      c++;
    const char *start = c;
    v[k] = 0;
    while (c < end && g_ascii_isdigit(*c) && c - start < 10)
      v[k] = v[k] * 10 + (*c++ - '0');
    if (c == start || (c < end && !pdfupdate_delim(*c)))
      return false;
  }
  while (c < end && g_ascii_isspace(*c))
    c++;
  if (c == end || *c != 'R' || (c + 1 < end && !pdfupdate_delim(c[1])) || v[0] > G_MAXINT ||
      v[1] > 65535)
    return false;
  *id = (int)v[0];
  *gen = (int)v[1];
  *p = c + 1;
  return true;
}
