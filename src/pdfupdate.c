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

struct PdfUpdate {
  qpdf_data q;
  const char *base;
  gsize base_len;
  guint64 prev_xref; /* the file's last startxref */
  int next_id;       /* the next free object number */
  GHashTable *objs;  /* object number -> generation + 1, to write */
  GHashTable *data;  /* object number -> GBytes: the new streams' data */
  GHashTable *texts; /* object number -> its serialised text (pdfupdate_replace) */
  /* the file's last cross-reference table, when it is a classic one: its
   * first subsection, for pdfupdate_read_direct */
  const char *xref_entries;
  int xref_first, xref_count;
};

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
  *u = (PdfUpdate){q,
                   base,
                   len,
                   prev,
                   next,
                   g_hash_table_new(NULL, NULL),
                   g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_bytes_unref),
                   g_hash_table_new_full(NULL, NULL, NULL, g_free),
                   NULL,
                   0,
                   0};
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
  g_free(u);
}

void pdfupdate_changed(PdfUpdate *u, qpdf_oh oh)
{
  int id = qpdf_oh_get_object_id(u->q, oh);
  if (id <= 0)
    return;
  assert(!qpdf_oh_is_stream(u->q, oh)); /* only dictionaries and arrays are edited */
  g_hash_table_insert(u->objs, GINT_TO_POINTER(id),
                      GINT_TO_POINTER(qpdf_oh_get_generation(u->q, oh) + 1));
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
  guint64 off = g_ascii_strtoull(e, NULL, 10);
  char head[32];
  int hn = snprintf(head, sizeof head, "%d 0 obj", id);
  if (off >= u->base_len || u->base_len - off < (guint64)hn ||
      memcmp(u->base + off, head, (size_t)hn))
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
    GBytes *data = g_hash_table_lookup(u->data, GINT_TO_POINTER(id));
    if (data) {
      gsize n = 0;
      const char *d = g_bytes_get_data(data, &n);
      out_str(o, "stream\n");
      out_put(o, d, n);
      out_str(o, "\nendstream\n");
      g_hash_table_remove(u->data, GINT_TO_POINTER(id));
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
  g_array_free(offsets, TRUE);
  if (ids)
    g_array_free(ids, TRUE);
  return !o.err;
}
