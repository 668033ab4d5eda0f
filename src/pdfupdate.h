/* pdfupdate.h: an incremental update (PDF 32000-1 §7.5.6) appended to a
 * finished PDF. The caller reads the file with libqpdf (from memory, the
 * same bytes it gives here), edits objects through qpdf's handles and
 * names the ones it changed; this writes those objects (serialised by
 * qpdf's unparse), the new ones, a cross-reference section for them and a
 * trailer with /Prev and a deterministic /ID after the file's own bytes,
 * which stay as they are. Nothing else of the file is read or written, so
 * the cost follows the number of changed objects, not the file's size. */
#ifndef OCTAVO_PDFUPDATE_H
#define OCTAVO_PDFUPDATE_H

#include <glib.h>
#include "qpdflib.h"
#include <stdbool.h>

typedef struct PdfUpdate PdfUpdate;

/* The one compression level of the archival pass (pdfupdate_deflate),
 * libdeflate's (whole buffers: what the pass compresses). On the 2 MB
 * bench book's object streams and sources, against zlib's level 6 and 3
 * that they had: 610 M instructions and 1,617 KB before; libdeflate's
 * level 1 194 M, 1,695 KB; 4 351 M, 1,623 KB; 6 450 M, 1,515 KB. Level 4
 * keeps the size for 58 % of the instructions. */
enum { PDFUPDATE_DEFLATE_LEVEL = 4 };

/* Start an update of the PDF base[0..len), which q has read with
 * qpdf_read_memory (both must outlive the update). New objects are
 * numbered from the trailer's /Size. Returns NULL with *err set when the
 * file has no final startxref or no /Size. Free with pdfupdate_free. */
PdfUpdate *pdfupdate_new(qpdf_data q, const char *base, gsize len, GError **err);

void pdfupdate_free(PdfUpdate *u);

/* Write the indirect object oh (one of the file's, changed by the caller)
 * in the update. A direct object: nothing (its holder must be named). */
void pdfupdate_changed(PdfUpdate *u, qpdf_oh oh);

/* dict[key], when it refers to an object of the file the update leaves
 * as it is: qpdf is not to read it. The compact file copies such an
 * object's bytes from the file, and the update refers to it by number,
 * but qpdf writes a changed dictionary without its null values, so it
 * reads every object one refers to (the name tree of every destination
 * under /Names, each page's resources: 34 MB kept to the end on the 10 MB
 * benchmark book). Here qpdf is given a stand-in for it (an integer, never
 * written) before it has read it. Call it once dict is changed for good,
 * for objects nothing reads afterwards. */
void pdfupdate_unread(PdfUpdate *u, qpdf_oh dict, const char *key);

/* A direct copy of the dictionary that the indirect reference ref
 * points to, parsed by qpdf_oh_parse from the file's bytes (found through
 * its classic cross-reference table), so that qpdf does not keep it: on a
 * large file reading objects this way costs a third of resolving them.
 * Returns 0 when the object cannot be read so (not in the last table, a
 * stream, or holding indirect references, which qpdf_oh_parse cannot
 * take): then resolve ref itself. The caller releases the copy. */
qpdf_oh pdfupdate_read_direct(PdfUpdate *u, qpdf_oh ref);

/* The text of the dictionary that is the file's object id (generation
 * 0), "<<" to ">>", as the file's bytes have it (*len bytes, in base:
 * valid while the update is; not NUL-terminated), found through its
 * classic cross-reference table without qpdf reading it: for a caller
 * that only adds keys (pdfupdate_add_keys) and judges by a scan of the
 * bytes whether it can. NULL when the file is not one pdfupdate_write
 * rewrites (then pdfupdate_read_direct or qpdf), or the object is free,
 * of another generation, a stream, not a dictionary, or already named to
 * the update. */
const char *pdfupdate_base_dict(PdfUpdate *u, int id, gsize *len);

/* The same for any object of the file's but a stream (an array, say): its
 * value's text, for a caller that reads it by a scan. */
const char *pdfupdate_base_value(PdfUpdate *u, int id, gsize *len);

/* Write the dictionary pdfupdate_base_dict gave for id with keys (PDF
 * text, "/Key value ...", taken) before its closing ">>", and the rest of
 * it as the file has it. The caller has checked that the dictionary holds
 * none of these keys; it names nothing of id to the update afterwards. */
void pdfupdate_add_keys(PdfUpdate *u, int id, char *keys);

/* Write value (a direct object, serialised now: the caller may release
 * it) in the update as the object that ref refers to. */
void pdfupdate_replace(PdfUpdate *u, qpdf_oh ref, qpdf_oh value);

/* A new indirect object holding a copy of `value` (a direct dictionary or
 * array). Returns its indirect handle (the caller releases it). */
qpdf_oh pdfupdate_add(PdfUpdate *u, qpdf_oh value);

/* A new stream: `dict` (direct; /Length is set here) and `data`, written
 * as given (already encoded as dict's /Filter says). Returns its indirect
 * handle (the caller releases it). Its contents cannot be read back
 * through qpdf: qpdf holds only its dictionary. */
qpdf_oh pdfupdate_add_stream(PdfUpdate *u, qpdf_oh dict, GBytes *data);

/* A stream object of the file, as its bytes have it (pointers into base). */
typedef struct {
  int id;                 /* its object number (generation 0) */
  const char *dict;       /* its dictionary's text, "<<" to ">>" */
  gsize dict_len;
  const char *data;       /* its data, between "stream" and "endstream" and their EOLs */
  gsize data_len;
} PdfStreamBytes;

/* The file's stream objects whose data begins with prefix (an ASCII string
 * without line ends), found by a search of the file's bytes for "stream",
 * an EOL and prefix, each placed in its object through the file's classic
 * cross-reference table (cairo's): a GArray of PdfStreamBytes in the
 * file's order (the caller frees it; empty when the table is not a
 * classic one). The caller judges what it finds by its dictionary and
 * data: the search reads bytes, not PDF syntax. */
GArray *pdfupdate_find_streams(PdfUpdate *u, const char *prefix);

/* Where the data of a stream given to pdfupdate_replace_stream_from comes
 * from: called once, when the update writes that object, to return
 * exactly len bytes, or NULL with *err set (then pdfupdate_write or
 * pdfupdate_append fails with that error and its output is not to be
 * used). */
typedef GBytes *(*PdfUpdateSource)(gpointer user, gsize len, GError **err);

/* Write the file's stream object id (generation 0) in the update as a
 * stream of dict (direct; /Length, len, is set here: the caller may release
 * it) and the len bytes fn(user, len, err) gives (already encoded as
 * dict's /Filter says), in place of its own dictionary and data. The data
 * is read only when the object is written, so that the update never holds
 * every replaced stream's at once (a book's PNGs copied as they are,
 * archive.c: 8 MB held from the search to the write on the bench book).
 * free_user (or NULL) releases user after the write. qpdf's handle on the
 * object is left as it was: read nothing of it through qpdf afterwards. */
void pdfupdate_replace_stream_from(PdfUpdate *u, int id, qpdf_oh dict, gsize len,
                                   PdfUpdateSource fn, gpointer user, GDestroyNotify free_user);

/* data[0..len) deflated in zlib's format (what /FlateDecode reads), by
 * libdeflate at PDFUPDATE_DEFLATE_LEVEL: every stream the archival pass
 * compresses (the object streams and the cross-reference stream here, the
 * embedded sources and the ICC profile in archive.c) goes through it.
 * Safe from any thread; aborts only when memory runs out. */
GBytes *pdfupdate_deflate(const void *data, gsize len);

/* The number of pages of the file, and its page i (from 0; the caller
 * releases it), read when asked: from the catalog's /Pages /Kids when the
 * page tree is flat (cairo's: its /Count is the number of its /Kids; the
 * order /Kids has now), else qpdf's page list, which reads every page of
 * the file at once (on the 10 MB benchmark book, 35 MB of the mapped file
 * resident before pdfupdate_drop_pages could drop it). */
int pdfupdate_page_count(PdfUpdate *u);
qpdf_oh pdfupdate_page(PdfUpdate *u, int i);

/* When the file's bytes are a read-only file mapping (GMappedFile): drop
 * the pages of it read so far from the process's memory; they are read
 * again from the file (the page cache) when touched. For a large file
 * read once through, so that it does not stay resident. */
void pdfupdate_drop_pages(PdfUpdate *u);

/* Append the update to the file at path (whose bytes are base): changed
 * and new objects, their cross-reference section, and a trailer with the
 * current /Root and /Info, /Prev and /ID [MD5 of base, MD5 of base and
 * the new objects]. Returns false with *err set on a write error. */
bool pdfupdate_append(PdfUpdate *u, const char *path, GError **err);

/* Write the file at path (whose bytes are base) anew, compact: each
 * object once, the update's version of it where there is one; streams as
 * they are, every other object of generation 0 in compressed object
 * streams, the cross-reference table a compressed stream whose dictionary
 * carries the trailer's /Root, /Info and /ID [h h] (h: the MD5 of what
 * was written before it, each stream's data counted by its length and
 * CRC-32), into a new temporary file beside `beside` (the
 * output's name; util_temp_beside) returned in *fresh for the caller to
 * commit in place of path. A base that is not one classic table from object 0 (not
 * cairo's) gets pdfupdate_append instead. Returns false with *err set on
 * a write error (path then unchanged, *fresh NULL; also NULL when the
 * update was appended to path). */
bool pdfupdate_write(PdfUpdate *u, const char *path, const char *beside, char **fresh,
                     GError **err);

/* A scan of an object's bytes as pdfupdate_base_dict gives them (cairo's
 * objects: plain dictionaries, arrays of references), for the archival
 * pass's callers, which fall back on qpdf when the scan cannot tell: */
/* whether c ends a name or a number (a blank, NUL or a delimiter) */
bool pdfupdate_delim(char c);
/* where the name (e.g. "/F") is in t[0..n) as a name of its own (not the
 * start of a longer one), or NULL */
const char *pdfupdate_find_name(const char *t, gsize n, const char *name);
/* whether t[0..n) holds nothing the scan cannot read: no string (a hex
 * string is a "<" that does not open a dictionary), no comment, no escape */
bool pdfupdate_plain(const char *t, gsize n);
/* whether p (before end), past blanks, starts with what */
bool pdfupdate_followed_by(const char *p, const char *end, const char *what);
/* "id gen R" at *p (after blanks), before end: the id and gen, *p moved
 * past it; false when the next token is not a reference */
bool pdfupdate_scan_ref(const char **p, const char *end, int *id, int *gen);

#endif
