/* archive.c: the archival post-pass (PDF/A-3u, PDF/UA-1) on cairo's PDF,
 * with libqpdf's C API. cairo 1.16 writes the pages, fonts, links,
 * outline, page labels and structure tree; this adds what it cannot:
 *
 *   - XMP metadata (libxml2's writer) matching the Info dictionary, whose
 *     dates are rewritten from the same instant (SOURCE_DATE_EPOCH or the
 *     book's date);
 *   - on the catalog /Lang, /ViewerPreferences /DisplayDocTitle,
 *     /MarkInfo /Marked, an sRGB /OutputIntents (an ICC profile read from
 *     icc-profiles-free's or colord-data's installed file), the Markdown
 *     sources as embedded files (/AF, /Names /EmbeddedFiles);
 *   - /Tabs /S on every page, /F 4 (print) on every annotation, /Contents
 *     on every link annotation, /Alt on every Figure structure element;
 *   - a trailer /ID hashed from the content (pdfupdate.c says how).
 *
 * Each PNG the painter drew as a placeholder (pngpass.h) is written in its
 * place: the PNG's own IDAT data and an image dictionary for it. Each
 * TrueType font's widths, which cairo truncates to whole thousandths of an
 * em, are written exact (archive_widths.c).
 *
 * Else it only adds keys and objects: page content, annotations' targets, the
 * outline, page labels and the structure tree stay as cairo wrote them;
 * but when pdf.c drew the contents last (it streams the pages: PdfMove),
 * their pages are moved after the title page in /Pages, and their
 * structure elements after the title page's under Document (the page
 * labels were drawn in the book's order already). With --pdf-standard
 * none that move, the PNGs, the widths and the compact writing are the
 * whole pass.
 * The file is then written anew, compact (pdfupdate_write): each object
 * once, the changed ones as changed, every object but the streams in
 * compressed object streams, so that a link or a note costs a few hundred
 * bytes rather than cairo's 1-2 KB of plain text (issue 26); cairo's
 * bytes are read once through, not held. This runs for every PDF, with
 * --pdf-standard none too. qpdf reads the file from memory and lazily: the
 * catalog, Info, the page tree, the structure tree's root and Document.
 * What is only given keys (each page's /Tabs, each annotation's /F and
 * /Contents, each Figure's /Alt) is not parsed by qpdf, whose parser costs
 * ~200 instructions a byte: a scan of cairo's bytes (pdfupdate_base_dict,
 * pdfupdate_find_name...) reads what they need (a page's /Annots, a link's
 * /URI or /Dest, the parent tree's entries for the pages with figures and
 * their elements' /S and /P: archive_fig.c) and the keys are added to
 * those bytes as they are written (pdfupdate_add_keys). An object the scan
 * cannot read (not as cairo writes it: a string or comment where cairo has
 * none, an indirect action...) goes through qpdf instead: an annotation as
 * a direct copy (pdfupdate_read_direct), which qpdf does not keep. The
 * pages are taken one by one from the flat page tree (pdfupdate_page),
 * the mapped file's pages dropped as they are read; what the changed
 * dictionaries refer to and nothing reads (cairo's /Dests name tree, each
 * page's resources and contents, /PageLabels, /Outlines) is never read
 * (pdfupdate_unread): qpdf would read it only to write a reference.
 * Every stream the pass compresses goes through pdfupdate_deflate
 * (libdeflate, one level). */
#include "archive.h"

#include <libxml/xmlwriter.h>
#include "qpdflib.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "archive_fig.h"
#include "archive_src.h"
#include "archive_widths.h"
#include "pdfupdate.h"
#include "pngpass.h"
#include "util.h"

/* The sRGB profile, from the Debian packages the Makefile installs. */
static const char *const icc_paths[] = {
    "/usr/share/color/icc/sRGB.icc",        /* icc-profiles-free */
    "/usr/share/color/icc/colord/sRGB.icc", /* colord-data */
};

bool archive_standard_parse(const char *spec, ArchiveStandard *out)
{
  *out = (ArchiveStandard){0};
  if (!spec)
    spec = "a-3u,ua-1";
  if (!g_ascii_strcasecmp(spec, "none"))
    return true;
  char **parts = g_strsplit(spec, ",", -1);
  bool ok = parts[0] != NULL;
  for (char **p = parts; *p && ok; p++) {
    char *t = g_strstrip(*p);
    if (!g_ascii_strcasecmp(t, "a-3u") || !g_ascii_strcasecmp(t, "pdf/a-3u"))
      out->pdfa3u = true;
    else if (!g_ascii_strcasecmp(t, "ua-1") || !g_ascii_strcasecmp(t, "pdf/ua-1"))
      out->pdfua1 = true;
    else
      ok = false;
  }
  g_strfreev(parts);
  if (!ok)
    *out = (ArchiveStandard){0};
  return ok;
}

/* ---- dates ---- */

/* t as a PDF date (D:YYYYMMDDHHmmSS+00'00') or an XMP date. */
static char *date_str(gint64 t, bool xmp)
{
  GDateTime *dt = g_date_time_new_from_unix_utc(t);
  if (!dt)
    dt = g_date_time_new_from_unix_utc(0);
  char *s = g_date_time_format(dt, xmp ? "%Y-%m-%dT%H:%M:%S+00:00" : "D:%Y%m%d%H%M%S+00'00'");
  g_date_time_unref(dt);
  return s;
}

/* ---- XMP ---- */

typedef struct {
  const char *title, *author, *subject, *keywords, *creator, *producer; /* as in Info */
  char *xmp_date;
} XmpValues;

#define NS_RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

static void xmp_lang_alt(xmlTextWriterPtr w, const char *prop, const char *value)
{
  xmlTextWriterStartElement(w, BAD_CAST prop);
  xmlTextWriterStartElement(w, BAD_CAST "rdf:Alt");
  xmlTextWriterStartElement(w, BAD_CAST "rdf:li");
  xmlTextWriterWriteAttribute(w, BAD_CAST "xml:lang", BAD_CAST "x-default");
  xmlTextWriterWriteString(w, BAD_CAST value);
  xmlTextWriterEndElement(w);
  xmlTextWriterEndElement(w);
  xmlTextWriterEndElement(w);
}

/* An rdf:Seq or rdf:Bag of n items (strings or a GPtrArray). */
static void xmp_list(xmlTextWriterPtr w, const char *prop, const char *kind, const GPtrArray *items,
                     const char *one)
{
  if ((!items || !items->len) && !one)
    return;
  xmlTextWriterStartElement(w, BAD_CAST prop);
  xmlTextWriterStartElement(w, BAD_CAST kind);
  guint n = items ? items->len : 1;
  for (guint i = 0; i < n; i++)
    xmlTextWriterWriteElement(w, BAD_CAST "rdf:li", BAD_CAST(items ? items->pdata[i] : one));
  xmlTextWriterEndElement(w);
  xmlTextWriterEndElement(w);
}

static void xmp_text(xmlTextWriterPtr w, const char *prop, const char *value)
{
  if (value && *value)
    xmlTextWriterWriteElement(w, BAD_CAST prop, BAD_CAST value);
}

/* The pdfuaid schema is not one PDF/A predefines: it must be declared. */
static void xmp_pdfua_extension(xmlTextWriterPtr w)
{
  xmlTextWriterStartElement(w, BAD_CAST "rdf:Description");
  xmlTextWriterWriteAttribute(w, BAD_CAST "rdf:about", BAD_CAST "");
  xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:pdfaExtension",
                              BAD_CAST "http://www.aiim.org/pdfa/ns/extension/");
  xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:pdfaSchema",
                              BAD_CAST "http://www.aiim.org/pdfa/ns/schema#");
  xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:pdfaProperty",
                              BAD_CAST "http://www.aiim.org/pdfa/ns/property#");
  xmlTextWriterStartElement(w, BAD_CAST "pdfaExtension:schemas");
  xmlTextWriterStartElement(w, BAD_CAST "rdf:Bag");
  xmlTextWriterStartElement(w, BAD_CAST "rdf:li");
  xmlTextWriterWriteAttribute(w, BAD_CAST "rdf:parseType", BAD_CAST "Resource");
  xmp_text(w, "pdfaSchema:schema", "PDF/UA Universal Accessibility Schema");
  xmp_text(w, "pdfaSchema:namespaceURI", "http://www.aiim.org/pdfua/ns/id/");
  xmp_text(w, "pdfaSchema:prefix", "pdfuaid");
  xmlTextWriterStartElement(w, BAD_CAST "pdfaSchema:property");
  xmlTextWriterStartElement(w, BAD_CAST "rdf:Seq");
  xmlTextWriterStartElement(w, BAD_CAST "rdf:li");
  xmlTextWriterWriteAttribute(w, BAD_CAST "rdf:parseType", BAD_CAST "Resource");
  xmp_text(w, "pdfaProperty:name", "part");
  xmp_text(w, "pdfaProperty:valueType", "Integer");
  xmp_text(w, "pdfaProperty:category", "internal");
  xmp_text(w, "pdfaProperty:description",
           "Indicates, which part of ISO 14289 standard is followed");
  for (int i = 0; i < 6; i++)
    xmlTextWriterEndElement(w);
  xmlTextWriterEndElement(w); /* rdf:Description */
}

/* The XMP packet (caller frees with g_free; *len its length). */
static char *xmp_packet(const Book *book, const XmpValues *v, const ArchiveStandard *std,
                        gsize *len)
{
  const BookMeta *m = &book->meta;
  xmlBufferPtr buf = xmlBufferCreate();
  xmlTextWriterPtr w = xmlNewTextWriterMemory(buf, 0);
  xmlTextWriterSetIndent(w, 1);
  xmlTextWriterSetIndentString(w, BAD_CAST " ");
  xmlTextWriterWritePI(w, BAD_CAST "xpacket",
                       BAD_CAST "begin=\"\xEF\xBB\xBF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"");
  xmlTextWriterStartElement(w, BAD_CAST "x:xmpmeta");
  xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:x", BAD_CAST "adobe:ns:meta/");
  xmlTextWriterStartElement(w, BAD_CAST "rdf:RDF");
  xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:rdf", BAD_CAST NS_RDF);

  xmlTextWriterStartElement(w, BAD_CAST "rdf:Description");
  xmlTextWriterWriteAttribute(w, BAD_CAST "rdf:about", BAD_CAST "");
  xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:dc", BAD_CAST "http://purl.org/dc/elements/1.1/");
  xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:xmp", BAD_CAST "http://ns.adobe.com/xap/1.0/");
  xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:pdf", BAD_CAST "http://ns.adobe.com/pdf/1.3/");
  if (std->pdfa3u)
    xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:pdfaid",
                                BAD_CAST "http://www.aiim.org/pdfa/ns/id/");
  if (std->pdfua1)
    xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns:pdfuaid",
                                BAD_CAST "http://www.aiim.org/pdfua/ns/id/");
  xmlTextWriterWriteElement(w, BAD_CAST "dc:format", BAD_CAST "application/pdf");
  if (v->title)
    xmp_lang_alt(w, "dc:title", v->title);
  xmp_list(w, "dc:creator", "rdf:Seq", m->authors, NULL);
  if (v->subject)
    xmp_lang_alt(w, "dc:description", v->subject);
  xmp_list(w, "dc:subject", "rdf:Bag", m->subjects, NULL);
  xmp_list(w, "dc:date", "rdf:Seq", NULL, v->xmp_date);
  xmp_list(w, "dc:language", "rdf:Bag", NULL, m->lang && *m->lang ? m->lang : "en");
  xmp_text(w, "dc:identifier", m->identifier);
  if (m->publisher && *m->publisher)
    xmp_list(w, "dc:publisher", "rdf:Bag", NULL, m->publisher);
  if (m->rights && *m->rights)
    xmp_lang_alt(w, "dc:rights", m->rights);
  xmp_text(w, "dc:source", m->source);
  xmp_text(w, "xmp:CreateDate", v->xmp_date);
  xmp_text(w, "xmp:ModifyDate", v->xmp_date);
  xmp_text(w, "xmp:MetadataDate", v->xmp_date);
  xmp_text(w, "xmp:CreatorTool", v->creator);
  xmp_text(w, "pdf:Producer", v->producer);
  xmp_text(w, "pdf:Keywords", v->keywords);
  if (std->pdfa3u) {
    xmp_text(w, "pdfaid:part", "3");
    xmp_text(w, "pdfaid:conformance", "U");
  }
  if (std->pdfua1)
    xmp_text(w, "pdfuaid:part", "1");
  xmlTextWriterEndElement(w); /* rdf:Description */
  if (std->pdfua1 && std->pdfa3u)
    xmp_pdfua_extension(w);
  xmlTextWriterEndElement(w); /* rdf:RDF */
  xmlTextWriterEndElement(w); /* x:xmpmeta */
  xmlTextWriterWriteString(w, BAD_CAST "\n");
  xmlTextWriterWritePI(w, BAD_CAST "xpacket", BAD_CAST "end=\"r\"");
  xmlTextWriterFlush(w);
  xmlFreeTextWriter(w);
  *len = (gsize)xmlBufferLength(buf);
  char *s = g_strndup((const char *)xmlBufferContent(buf), *len);
  xmlBufferFree(buf);
  return s;
}

/* ---- small qpdf helpers ---- */

/* A string value of dict[key] as UTF-8 (owned by qpdf until the next
 * call), or NULL. */
static const char *dict_utf8(qpdf_data q, qpdf_oh dict, const char *key)
{
  if (!qpdf_oh_has_key(q, dict, key))
    return NULL;
  qpdf_oh v = qpdf_oh_get_key(q, dict, key);
  const char *s = qpdf_oh_is_string(q, v) ? qpdf_oh_get_utf8_value(q, v) : NULL;
  qpdf_oh_release(q, v);
  return s;
}

static void set_key(qpdf_data q, qpdf_oh dict, const char *key, qpdf_oh value)
{
  qpdf_oh_replace_key(q, dict, key, value);
  qpdf_oh_release(q, value);
}

/* dict[key] as a dictionary, created (direct) when absent; named as
 * changed when it is an object of its own (dict's holder is the caller's
 * to name). */
static qpdf_oh sub_dict(qpdf_data q, PdfUpdate *u, qpdf_oh dict, const char *key)
{
  qpdf_oh d = qpdf_oh_get_key(q, dict, key);
  if (!qpdf_oh_is_dictionary(q, d)) {
    qpdf_oh_release(q, d);
    set_key(q, dict, key, qpdf_oh_new_dictionary(q));
    d = qpdf_oh_get_key(q, dict, key);
  }
  pdfupdate_changed(u, d);
  return d;
}

/* A new stream object holding bytes (flate-compressed data when
 * deflated), with dict_src (a PDF dictionary in PDF syntax) as its other
 * entries. */
static qpdf_oh add_stream(qpdf_data q, PdfUpdate *u, GBytes *bytes, const char *dict_src,
                          bool deflated)
{
  qpdf_oh dict = qpdf_oh_parse(q, dict_src);
  if (deflated)
    set_key(q, dict, "/Filter", qpdf_oh_new_name(q, "/FlateDecode"));
  qpdf_oh s = pdfupdate_add_stream(u, dict, bytes);
  qpdf_oh_release(q, dict);
  return s;
}

/* The same from data, flate-compressed (pdfupdate_deflate) when
 * compress. */
static qpdf_oh new_stream(qpdf_data q, PdfUpdate *u, const void *data, size_t len,
                          const char *dict_src, bool compress)
{
  GBytes *bytes = compress ? pdfupdate_deflate(data, len) : g_bytes_new(data, len);
  qpdf_oh s = add_stream(q, u, bytes, dict_src, compress);
  g_bytes_unref(bytes);
  return s;
}

/* ---- link descriptions ---- */

/* Destination name (util_pdf_dest_name) -> what a link there goes to (for
 * /Contents). */
static GHashTable *dest_texts(const Book *book)
{
  GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < book->chapters->len; i++) {
    const BookChapter *ch = book->chapters->pdata[i];
    if (ch->id)
      g_hash_table_replace(t, util_pdf_dest_name(ch->id),
                           ch->title          ? g_strdup(ch->title)
                           : book->meta.title ? g_strdup(book->meta.title)
                                              : g_strdup_printf("Chapter %u", i + 1));
    BookIter it;
    book_iter_init(&it, ch->root);
    BookIterEvent ev;
    while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
      if (ev != BOOK_ITER_ENTER || it.cur->type != BOOK_HEADING)
        continue;
      if (it.cur->as.heading.id) {
        GString *s = g_string_new(NULL);
        book_node_text(it.cur, s);
        g_hash_table_replace(t, util_pdf_dest_name(it.cur->as.heading.id), g_string_free(s, FALSE));
      }
      book_iter_skip_children(&it);
    }
  }
  for (guint i = 0; i < book->footnotes->len; i++) {
    const BookFootnote *fn = book->footnotes->pdata[i];
    g_hash_table_replace(t, util_pdf_dest_name(fn->id), g_strdup_printf("Footnote %d", fn->number));
    for (int k = 1; k <= fn->nrefs; k++) {
      char *ref = book_fnref_dest(fn, k);
      g_hash_table_replace(t, util_pdf_dest_name(ref),
                           g_strdup_printf("Back to the reference to footnote %d", fn->number));
      g_free(ref);
    }
  }
  return t;
}

/* What a link to uri, or else to the named destination dest, goes to (for
 * its /Contents): the URI, or the destination's text. Both ways of reading
 * an annotation (link_contents, annot_keys) take it from here. */
static char *contents_text(const char *uri, const char *dest, GHashTable *dests)
{
  if (uri)
    return g_strdup(uri);
  const char *text = dest ? g_hash_table_lookup(dests, dest) : NULL;
  return text ? g_strdup_printf("Go to %s", text) : g_strdup("Go to another place in this book");
}

/* /Contents for a link annotation read through qpdf. */
static char *link_contents(qpdf_data q, qpdf_oh annot, GHashTable *dests)
{
  char *uri = NULL;
  qpdf_oh a = qpdf_oh_get_key(q, annot, "/A");
  if (qpdf_oh_is_dictionary(q, a))
    uri = g_strdup(dict_utf8(q, a, "/URI"));
  qpdf_oh_release(q, a);
  char *dest = uri ? NULL : g_strdup(dict_utf8(q, annot, "/Dest"));
  char *out = contents_text(uri, dest, dests);
  g_free(uri);
  g_free(dest);
  return out;
}

/* ---- pages and annotations ---- */

/* /F 4 (print) and, for PDF/UA, /Contents on a link: on the annotation
 * dictionary a (a direct copy or the object itself). */
static void fix_annot(qpdf_data q, qpdf_oh a, bool ua, GHashTable *dests)
{
  set_key(q, a, "/F", qpdf_oh_new_integer(q, 4));
  qpdf_oh sub = qpdf_oh_get_key(q, a, "/Subtype");
  if (ua && qpdf_oh_is_name_and_equals(q, sub, "/Link") && !qpdf_oh_has_key(q, a, "/Contents")) {
    char *c = link_contents(q, a, dests);
    set_key(q, a, "/Contents", qpdf_oh_new_unicode_string(q, c));
    g_free(c);
  }
  qpdf_oh_release(q, sub);
}

/* ---- annotations, by a scan of cairo's bytes ---- */

/* The links' /Contents as PDF strings, each written once by qpdf: a
 * destination's by its name, a URI's by itself. */
typedef struct {
  qpdf_data q;
  GHashTable *dests;            /* dest_texts */
  GHashTable *by_dest, *by_uri; /* name or URI -> the PDF string (qpdf_oh_unparse's) */
} LinkTexts;

static const char *link_string(LinkTexts *lt, const char *uri, const char *dest)
{
  GHashTable *cache = uri ? lt->by_uri : lt->by_dest;
  const char *key = uri ? uri : dest;
  char *s = g_hash_table_lookup(cache, key);
  if (!s) {
    char *text = contents_text(uri, dest, lt->dests);
    qpdf_oh str = qpdf_oh_new_unicode_string(lt->q, text);
    s = g_strdup(qpdf_oh_unparse(lt->q, str));
    qpdf_oh_release(lt->q, str);
    g_free(text);
    g_hash_table_insert(cache, g_strdup(key), s);
  }
  return s;
}

/* Whether p is in the dictionary opened just before `in` (not in one
 * inside it, not after its end), in pdfupdate_plain's text. */
static bool within(const char *in, const char *p)
{
  int d = 0;
  for (const char *c = in; c + 1 < p; c++)
    if ((c[0] == '<' && c[1] == '<') || (c[0] == '>' && c[1] == '>')) {
      d += c[0] == '<' ? 1 : -1;
      c++;
      if (d < 0)
        return false;
    }
  return d == 0;
}

/* Whether the name (e.g. "/URI") is the token before p, after t. */
static bool name_before(const char *t, const char *p, const char *name)
{
  while (p > t && g_ascii_isspace(p[-1]))
    p--;
  gsize k = strlen(name);
  return (gsize)(p - t) >= k && !memcmp(p - k, name, k);
}

/* The name's first place in t[0..na) or else b[0..nb). */
static const char *find_in(const char *t, gsize na, const char *b, gsize nb, const char *name)
{
  const char *p = pdfupdate_find_name(t, na, name);
  return p ? p : pdfupdate_find_name(b, nb, name);
}

/* The keys fix_annot adds to the annotation whose dictionary is t[0..n)
 * as the file has it (pdfupdate_base_dict), found by a scan of its bytes
 * rather than qpdf's parse of it (the 5,000 annotations of the 2 MB bench
 * book cost 0.75 G instructions through qpdf): "/F 4" and, for PDF/UA, a
 * link's /Contents from its one string, the /URI of its /A or its /Dest.
 * NULL, for the caller to read it through qpdf, unless it is as cairo
 * writes one: at most one string, a literal of printable ASCII without
 * escapes, which is the value of /Dest or of /URI in /A << >>; no hex
 * string, comment, /F or /Contents; /A a dictionary, /Dest that string. */
static char *annot_keys(const char *t, gsize n, bool ua, LinkTexts *lt)
{
  const char *end = t + n, *open = memchr(t, '(', n), *close = NULL;
  if (open) {
    close = memchr(open, ')', (gsize)(end - open));
    if (!close)
      return NULL;
    for (const char *p = open + 1; p < close; p++)
      if (*p < 0x20 || *p > 0x7e || *p == '(' || *p == '\\')
        return NULL;
  }
  /* the text outside the string: t[0..na) and b[0..nb) */
  const char *b = close ? close + 1 : end;
  gsize na = (gsize)((open ? open : end) - t), nb = (gsize)(end - b);
  if (!pdfupdate_plain(t, na) || !pdfupdate_plain(b, nb) || find_in(t, na, b, nb, "/F") ||
      find_in(t, na, b, nb, "/Contents"))
    return NULL;
  const char *sub = find_in(t, na, b, nb, "/Subtype"), *v = NULL;
  if (sub) { /* its value: "/Link" as a name of its own? */
    v = sub + strlen("/Subtype");
    while (v < end && g_ascii_isspace(*v))
      v++;
  }
  bool link =
      v && end - v >= 5 && !memcmp(v, "/Link", 5) && (v + 5 == end || pdfupdate_delim(v[5]));
  if (!ua || !link)
    return g_strdup("/F 4");
  const char *a = find_in(t, na, b, nb, "/A"), *d = find_in(t, na, b, nb, "/Dest");
  if ((a && !pdfupdate_followed_by(a + 2, end, "<<")) ||
      (d && !pdfupdate_followed_by(d + 5, end, "(")))
    return NULL; /* an indirect action or destination: qpdf resolves it */
  bool uri = false, dest = false;
  if (open && d) { /* d's value is the one string */
    dest = within(t + 2, d);
  } else if (open && a && a < open && within(t + 2, a)) { /* /A << ... /URI (...) ... >> */
    const char *in = a + 2;
    while (g_ascii_isspace(*in))
      in++;
    in += 2;
    uri = within(in, open) && name_before(in, open, "/URI");
  }
  if (open && !uri && !dest)
    return NULL;
  char *s = open ? g_strndup(open + 1, (gsize)(close - open - 1)) : NULL;
  char *keys =
      g_strdup_printf("/F 4 /Contents %s", link_string(lt, uri ? s : NULL, dest ? s : NULL));
  g_free(s);
  return keys;
}

/* The annotation that is the file's object id (generation 0) fixed by a
 * scan of its bytes (annot_keys): false when the scan cannot tell. */
static bool annot_scan(PdfUpdate *u, int id, bool ua, LinkTexts *lt)
{
  gsize len = 0;
  const char *text = id > 0 ? pdfupdate_base_dict(u, id, &len) : NULL;
  char *keys = text ? annot_keys(text, len, ua, lt) : NULL;
  if (keys)
    pdfupdate_add_keys(u, id, keys);
  return keys != NULL;
}

/* The annotation a (a reference, or a direct dictionary in the page's
 * /Annots array annots) fixed through qpdf: read as a direct copy from
 * the file's bytes when it can be (pdfupdate_read_direct), so that qpdf
 * keeps nothing of it, else resolved. */
static void annot_qpdf(qpdf_data q, PdfUpdate *u, qpdf_oh page, qpdf_oh annots, qpdf_oh a, bool ua,
                       LinkTexts *lt)
{
  qpdf_oh d = qpdf_oh_is_indirect(q, a) ? pdfupdate_read_direct(u, a) : 0;
  if (d) {
    fix_annot(q, d, ua, lt->dests);
    pdfupdate_replace(u, a, d);
    qpdf_oh_release(q, d);
  } else if (qpdf_oh_is_dictionary(q, a)) {
    fix_annot(q, a, ua, lt->dests);
    if (qpdf_oh_is_indirect(q, a)) {
      pdfupdate_changed(u, a);
    } else { /* a direct annotation: its holder is written */
      pdfupdate_changed(u, annots);
      pdfupdate_changed(u, page);
    }
  }
}

/* Whether t[0..n) (a page dictionary as cairo writes it) holds nothing
 * the scan cannot read: no string, no escape, and no comment but cairo's
 * page number ("% 12" to the end of its line). */
static bool plain_page(const char *t, gsize n)
{
  for (gsize i = 0; i < n; i++) {
    char c = t[i];
    if (c == '(' || c == ')' || c == '\\')
      return false;
    if (c == '<' && (i + 1 == n || t[++i] != '<'))
      return false;
    if (c == '%') /* digits and blanks to the end of the line */
      for (i++; i < n && t[i] != '\n' && t[i] != '\r'; i++)
        if (!g_ascii_isdigit(t[i]) && t[i] != ' ')
          return false;
  }
  return true;
}

/* The page (the file's object page_id) fixed from a scan of its bytes: its
 * /Annots array's references and /Tabs /S added (pdfupdate_add_keys), so
 * that qpdf never parses it (~140 k instructions a page of the 2 MB bench
 * book). False, for the caller to do it through qpdf, when the scan
 * cannot tell: not a dictionary of the file's, a string or comment in it,
 * /Tabs there already, /Annots not a direct array of references. */
static bool fix_page_scan(qpdf_data q, PdfUpdate *u, int page_id, bool ua, LinkTexts *lt)
{
  gsize n = 0;
  const char *t = page_id > 0 ? pdfupdate_base_dict(u, page_id, &n) : NULL;
  if (!t || !plain_page(t, n) || pdfupdate_find_name(t, n, "/Tabs"))
    return false;
  const char *end = t + n, *annots = pdfupdate_find_name(t, n, "/Annots");
  GArray *refs = g_array_new(FALSE, FALSE, sizeof(int) * 2);
  bool ok = true;
  if (annots) {
    const char *p = annots + strlen("/Annots");
    ok = pdfupdate_followed_by(p, end, "[");
    p = ok ? (const char *)memchr(p, '[', (gsize)(end - p)) + 1 : p;
    int ref[2];
    while (ok && pdfupdate_scan_ref(&p, end, &ref[0], &ref[1]))
      g_array_append_val(refs, ref);
    ok = ok && pdfupdate_followed_by(p, end, "]");
  }
  if (ok) {
    if (ua)
      pdfupdate_add_keys(u, page_id, g_strdup("/Tabs /S"));
    for (guint k = 0; k < refs->len; k++) {
      const int *ref = &g_array_index(refs, int, 2 * k);
      if (ref[1] != 0 || !annot_scan(u, ref[0], ua, lt)) {
        qpdf_oh a = qpdf_get_object_by_id(q, ref[0], ref[1]);
        annot_qpdf(q, u, 0, 0, a, ua, lt); /* a reference: page and annots unused */
        qpdf_oh_release(q, a);
      }
    }
  }
  g_array_free(refs, TRUE);
  return ok;
}

/* /Tabs /S on every page (PDF/UA), and every annotation fixed: by a scan
 * of the page's bytes when it can tell (fix_page_scan), else through
 * qpdf. */
static void fix_pages(qpdf_data q, PdfUpdate *u, const Book *book, bool ua)
{
  LinkTexts lt = {q, ua ? dest_texts(book) : NULL,
                  g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
                  g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)};
  int n = pdfupdate_page_count(u);
  for (int i = 0; i < n; i++) {
    qpdf_oh page = pdfupdate_page(u, i);
    int page_id = qpdf_oh_is_indirect(q, page) && qpdf_oh_get_generation(q, page) == 0
                      ? qpdf_oh_get_object_id(q, page)
                      : 0;
    if (!fix_page_scan(q, u, page_id, ua, &lt)) {
      if (ua) {
        set_key(q, page, "/Tabs", qpdf_oh_new_name(q, "/S"));
        pdfupdate_changed(u, page);
        pdfupdate_unread(u, page, "/Resources"); /* copied as they are */
        pdfupdate_unread(u, page, "/Contents");
      }
      qpdf_oh annots = qpdf_oh_get_key(q, page, "/Annots");
      int na = qpdf_oh_is_array(q, annots) ? qpdf_oh_get_array_n_items(q, annots) : 0;
      for (int k = 0; k < na; k++) {
        qpdf_oh a = qpdf_oh_get_array_item(q, annots, k);
        bool ref0 = qpdf_oh_is_indirect(q, a) && qpdf_oh_get_generation(q, a) == 0;
        if (!ref0 || !annot_scan(u, qpdf_oh_get_object_id(q, a), ua, &lt))
          annot_qpdf(q, u, page, annots, a, ua, &lt);
        qpdf_oh_release(q, a);
      }
      qpdf_oh_release(q, annots);
    }
    qpdf_oh_release(q, page);
    if (i % 512 == 511) /* the file's pages read so far: not kept resident */
      pdfupdate_drop_pages(u);
  }
  if (lt.dests)
    g_hash_table_destroy(lt.dests);
  g_hash_table_destroy(lt.by_dest);
  g_hash_table_destroy(lt.by_uri);
}

/* ---- output intent ---- */

/* The sRGB profile's bytes, checked (header size, 'acsp', RGB); NULL with
 * a diagnostic when no usable profile is installed. */
static GBytes *read_icc(Book *book)
{
  for (size_t i = 0; i < G_N_ELEMENTS(icc_paths); i++) {
    gchar *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(icc_paths[i], &data, &len, NULL))
      continue;
    const guchar *d = (const guchar *)data;
    guint32 size =
        len >= 128 ? (guint32)d[0] << 24 | (guint32)d[1] << 16 | (guint32)d[2] << 8 | d[3] : 0;
    if (len >= 128 && size == len && !memcmp(d + 36, "acsp", 4) && !memcmp(d + 16, "RGB ", 4))
      return g_bytes_new_take(data, len);
    book_diag(book, BOOK_WARNING, NULL, "%s: not a valid RGB ICC profile", icc_paths[i]);
    g_free(data);
  }
  book_diag(book, BOOK_ERROR, NULL,
            "PDF/A needs an sRGB ICC profile: none at %s (Debian package icc-profiles-free) or %s "
            "(colord-data); install one, or use --pdf-standard none",
            icc_paths[0], icc_paths[1]);
  return NULL;
}

static void add_output_intent(qpdf_data q, PdfUpdate *u, qpdf_oh root, GBytes *icc)
{
  gsize len = 0;
  const void *data = g_bytes_get_data(icc, &len);
  qpdf_oh prof = new_stream(q, u, data, len, "<< /N 3 >>", true);
  qpdf_oh intent =
      qpdf_oh_parse(q, "<< /Type /OutputIntent /S /GTS_PDFA1 "
                       "/OutputConditionIdentifier (sRGB IEC61966-2.1) "
                       "/RegistryName (http://www.color.org) /Info (sRGB IEC61966-2.1) >>");
  qpdf_oh_replace_key(q, intent, "/DestOutputProfile", prof);
  qpdf_oh arr = qpdf_oh_new_array(q);
  qpdf_oh_append_item(q, arr, intent);
  set_key(q, root, "/OutputIntents", arr);
  qpdf_oh_release(q, intent);
  qpdf_oh_release(q, prof);
}

/* ---- attached sources ---- */

/* /AF and /Names /EmbeddedFiles: the sources as embedded files. */
static bool attach_sources(qpdf_data q, PdfUpdate *u, qpdf_oh root, Book *book, ArchiveSources *as)
{
  const GArray *srcs = archive_sources_wait(as);
  if (!srcs->len)
    return true;
  qpdf_oh af = qpdf_oh_new_array(q), names = qpdf_oh_new_array(q);
  bool ok = true;
  for (guint i = 0; i < srcs->len && ok; i++) {
    const ArchiveSource *s = &g_array_index(srcs, ArchiveSource, i);
    if (!s->data) {
      book_diag(book, BOOK_ERROR, NULL, "cannot attach %s: %s", s->path, s->error);
      ok = false;
      break;
    }
    char *date = date_str(s->time, false);
    char *dict =
        g_strdup_printf("<< /Type /EmbeddedFile /Subtype /text#2Fmarkdown "
                        "/Params << /ModDate (%s) /Size %" G_GSIZE_FORMAT " /CheckSum <%s> >> >>",
                        date, s->len, s->md5);
    qpdf_oh efi = add_stream(q, u, s->data, dict, true);
    qpdf_oh spec = qpdf_oh_parse(q, "<< /Type /Filespec /AFRelationship /Source "
                                    "/Desc (The Markdown source of this book) >>");
    set_key(q, spec, "/F", qpdf_oh_new_unicode_string(q, s->name));
    set_key(q, spec, "/UF", qpdf_oh_new_unicode_string(q, s->name));
    qpdf_oh efd = qpdf_oh_new_dictionary(q);
    qpdf_oh_replace_key(q, efd, "/F", efi);
    qpdf_oh_replace_key(q, efd, "/UF", efi);
    set_key(q, spec, "/EF", efd);
    qpdf_oh spec_i = pdfupdate_add(u, spec);
    qpdf_oh_append_item(q, af, spec_i);
    qpdf_oh key = qpdf_oh_new_unicode_string(q, s->name);
    qpdf_oh_append_item(q, names, key);
    qpdf_oh_append_item(q, names, spec_i);
    qpdf_oh_release(q, key);
    qpdf_oh_release(q, spec_i);
    qpdf_oh_release(q, spec);
    qpdf_oh_release(q, efi);
    g_free(dict);
    g_free(date);
  }
  if (ok) {
    set_key(q, root, "/AF", af);
    qpdf_oh nd = sub_dict(q, u, root, "/Names");
    qpdf_oh tree = qpdf_oh_new_dictionary(q);
    set_key(q, tree, "/Names", names);
    set_key(q, nd, "/EmbeddedFiles", tree);
    pdfupdate_unread(u, nd, "/Dests"); /* cairo's name tree, copied as it is */
    qpdf_oh_release(q, nd);
  } else {
    qpdf_oh_release(q, af);
    qpdf_oh_release(q, names);
  }
  return ok;
}

/* ---- the contents moved after the title page ---- */

/* /Kids of the page tree: the last mv->pages pages after the first.
 * cairo's page tree is flat (its /Count is the number of its /Kids): the
 * kids are moved without qpdf reading a page (qpdf_get_num_pages reads
 * them all, which is most of this pass with --pdf-standard none); the
 * pages are read after the move (pdfupdate_page), in the new order. */
static bool move_pages(qpdf_data q, PdfUpdate *u, qpdf_oh root, const PdfMove *mv)
{
  qpdf_oh pages = qpdf_oh_get_key(q, root, "/Pages");
  qpdf_oh kids = qpdf_oh_get_key(q, pages, "/Kids");
  qpdf_oh count = qpdf_oh_get_key(q, pages, "/Count");
  int n = qpdf_oh_is_array(q, kids) ? qpdf_oh_get_array_n_items(q, kids) : 0;
  bool ok =
      qpdf_oh_is_integer(q, count) && qpdf_oh_get_int_value_as_int(q, count) == n && mv->pages < n;
  qpdf_oh_release(q, count);
  if (ok) {
    qpdf_oh out = qpdf_oh_new_array(q);
    for (int i = 0; i < n; i++) {
      int from = i == 0 ? 0 : i <= mv->pages ? n - mv->pages + i - 1 : i - mv->pages;
      qpdf_oh k = qpdf_oh_get_array_item(q, kids, from);
      qpdf_oh_append_item(q, out, k);
      qpdf_oh_release(q, k);
    }
    set_key(q, pages, "/Kids", out);
    pdfupdate_changed(u, pages);
  }
  qpdf_oh_release(q, kids);
  qpdf_oh_release(q, pages);
  return ok;
}

/* Is the kid k of a structure element another element (not marked
 * content)? cairo writes a child element as a reference and marked
 * content as an MCID or a direct /MCR or /OBJR dictionary, never as a
 * reference: a reference is taken for an element without qpdf reading the
 * object (which costs a parse of each of the Document's ~1,000 kids). */
static bool is_element(qpdf_data q, qpdf_oh k)
{
  return qpdf_oh_is_indirect(q, k) || (qpdf_oh_is_dictionary(q, k) && qpdf_oh_has_key(q, k, "/S"));
}

/* Under the Document element, the last mv->moved_elements elements after
 * the first mv->title_elements (marked content stays where it is). */
static bool move_elements(qpdf_data q, PdfUpdate *u, qpdf_oh root, const PdfMove *mv)
{
  qpdf_oh tree = qpdf_oh_get_key(q, root, "/StructTreeRoot");
  qpdf_oh top = qpdf_oh_get_key(q, tree, "/K");
  qpdf_oh doc =
      qpdf_oh_is_array(q, top) ? qpdf_oh_get_array_item(q, top, 0) : qpdf_oh_get_key(q, tree, "/K");
  qpdf_oh kids = qpdf_oh_get_key(q, doc, "/K");
  int n = qpdf_oh_is_array(q, kids) ? qpdf_oh_get_array_n_items(q, kids) : 0, elems = 0;
  for (int i = 0; i < n; i++) {
    qpdf_oh k = qpdf_oh_get_array_item(q, kids, i);
    elems += is_element(q, k);
    qpdf_oh_release(q, k);
  }
  int first_moved = elems - mv->moved_elements;
  bool ok = qpdf_oh_is_indirect(q, doc) && mv->title_elements <= first_moved;
  if (ok && mv->moved_elements > 0) {
    qpdf_oh out = qpdf_oh_new_array(q), moved = qpdf_oh_new_array(q);
    for (int i = 0, e = 0; i < n; i++) {
      qpdf_oh k = qpdf_oh_get_array_item(q, kids, i);
      bool el = is_element(q, k);
      qpdf_oh_append_item(q, el && e >= first_moved ? moved : out, k);
      e += el;
      qpdf_oh_release(q, k);
    }
    /* the moved ones after the title_elements-th element of out */
    qpdf_oh res = qpdf_oh_new_array(q);
    int m = qpdf_oh_get_array_n_items(q, out), e = 0;
    bool placed = false;
    for (int i = 0; i <= m; i++) {
      if (!placed && (e == mv->title_elements || i == m)) {
        for (int j = 0; j < mv->moved_elements; j++) {
          qpdf_oh k = qpdf_oh_get_array_item(q, moved, j);
          qpdf_oh_append_item(q, res, k);
          qpdf_oh_release(q, k);
        }
        placed = true;
      }
      if (i == m)
        break;
      qpdf_oh k = qpdf_oh_get_array_item(q, out, i);
      qpdf_oh_append_item(q, res, k);
      e += is_element(q, k);
      qpdf_oh_release(q, k);
    }
    set_key(q, doc, "/K", res);
    pdfupdate_changed(u, doc);
    qpdf_oh_release(q, out);
    qpdf_oh_release(q, moved);
  }
  qpdf_oh_release(q, kids);
  qpdf_oh_release(q, doc);
  qpdf_oh_release(q, top);
  qpdf_oh_release(q, tree);
  return ok;
}

/* ---- the pass ---- */

static bool qpdf_failed(qpdf_data q, Book *book, const char *name, const char *what)
{
  if (!qpdf_has_error(q))
    return false;
  qpdf_error e = qpdf_get_error(q);
  book_diag(book, BOOK_ERROR, NULL, "%s: archival PDF: %s: %s", name, what,
            qpdf_get_error_full_text(q, e));
  return true;
}

/* Info's dates from the one instant the XMP gives too, and the XMP
 * stream as the catalog's /Metadata. */
static void add_info_and_xmp(qpdf_data q, PdfUpdate *u, qpdf_oh root, const Book *book,
                             const ArchiveStandard *std)
{
  qpdf_oh trailer = qpdf_get_trailer(q), info = qpdf_oh_get_key(q, trailer, "/Info");
  if (!qpdf_oh_is_dictionary(q, info)) {
    qpdf_oh_release(q, info);
    qpdf_oh nd = qpdf_oh_new_dictionary(q);
    info = pdfupdate_add(u, nd);
    qpdf_oh_release(q, nd);
    qpdf_oh_replace_key(q, trailer, "/Info", info);
  }
  pdfupdate_changed(u, info);
  gint64 t = util_build_time(book->meta.date);
  char *pdf_date = date_str(t, false);
  set_key(q, info, "/CreationDate", qpdf_oh_new_string(q, pdf_date));
  set_key(q, info, "/ModDate", qpdf_oh_new_string(q, pdf_date));
  g_free(pdf_date);
  if (!qpdf_oh_has_key(q, info, "/Producer"))
    set_key(q, info, "/Producer", qpdf_oh_new_string(q, "octavo " OCTAVO_VERSION));
  /* dict_utf8's strings live until the next qpdf call: copy */
  const char *keys[6] = {"/Title", "/Author", "/Subject", "/Keywords", "/Creator", "/Producer"};
  char *vals[6];
  for (int i = 0; i < 6; i++)
    vals[i] = g_strdup(dict_utf8(q, info, keys[i]));
  XmpValues v = {vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], date_str(t, true)};
  gsize xmp_len = 0;
  char *xmp = xmp_packet(book, &v, std, &xmp_len);
  /* not compressed: PDF/A wants the XMP readable without PDF tools */
  set_key(q, root, "/Metadata",
          new_stream(q, u, xmp, xmp_len, "<< /Type /Metadata /Subtype /XML >>", false));
  g_free(xmp);
  g_free(v.xmp_date);
  for (int i = 0; i < 6; i++)
    g_free(vals[i]);
  qpdf_oh_release(q, info);
  qpdf_oh_release(q, trailer);
}

/* /Lang, /MarkInfo, /ViewerPreferences, /Version on the catalog. */
static void fix_catalog(qpdf_data q, PdfUpdate *u, qpdf_oh root, const Book *book,
                        const ArchiveStandard *std)
{
  pdfupdate_changed(u, root);
  const char *lang = book->meta.lang && *book->meta.lang ? book->meta.lang : "en";
  set_key(q, root, "/Lang", qpdf_oh_new_unicode_string(q, lang));
  qpdf_oh mark = sub_dict(q, u, root, "/MarkInfo");
  set_key(q, mark, "/Marked", qpdf_oh_new_bool(q, QPDF_TRUE));
  qpdf_oh_release(q, mark);
  if (std->pdfua1) {
    qpdf_oh vp = sub_dict(q, u, root, "/ViewerPreferences");
    set_key(q, vp, "/DisplayDocTitle", qpdf_oh_new_bool(q, QPDF_TRUE));
    qpdf_oh_release(q, vp);
  }
  if (book->meta.rtl) { /* bound on the right: a viewer shows spreads right to left */
    qpdf_oh vp = sub_dict(q, u, root, "/ViewerPreferences");
    set_key(q, vp, "/Direction", qpdf_oh_new_name(q, "/R2L"));
    qpdf_oh_release(q, vp);
  }
  /* PDF/A-3 and PDF/UA-1 are on ISO 32000-1 (PDF 1.7); cairo's header says
   * 1.5 and stays: the catalog's /Version overrides it (§7.7.2) */
  const char *v = qpdf_get_pdf_version(q);
  if (!v || strcmp(v, "1.7") < 0)
    set_key(q, root, "/Version", qpdf_oh_new_name(q, "/1.7"));
  pdfupdate_unread(u, root, "/PageLabels"); /* cairo's, copied as they are */
  pdfupdate_unread(u, root, "/Outlines");
}

/* ---- PNGs copied as they are (pngpass.h) ---- */

/* A PNG's data, read when the archive pass writes its image (so that the
 * pass never holds every PNG's at once). */
typedef struct {
  const PngPass *pngs;
  int entry;
} PngSource;

static GBytes *png_data(gpointer user, gsize len, GError **err)
{
  const PngSource *src = user;
  GBytes *data = pngpass_data(src->pngs, src->entry, len, err);
  if (!data)
    g_prefix_error(err, "image %s cannot be copied into the PDF: ",
                   pngpass_path(src->pngs, src->entry));
  return data;
}

/* Each placeholder cairo wrote for a PNG of pngs replaced by the PNG's own
 * data and dictionary (keeping cairo's /Interpolate). False with a
 * diagnostic when a PNG cannot be read again as it was drawn (cut,
 * corrupt or changed since) or a placeholder is missing: the PDF is then
 * not written, rather than written with a blank image. */
static bool copy_pngs(qpdf_data q, PdfUpdate *u, const PngPass *pngs, Book *book, const char *name)
{
  guint n = pngpass_count(pngs);
  if (n == 0)
    return true;
  bool *done = g_new0(bool, n), ok = true;
  GArray *found = pdfupdate_find_streams(u, PNGPASS_MARKER);
  for (guint i = 0; ok && i < found->len; i++) {
    const PdfStreamBytes *sb = &g_array_index(found, PdfStreamBytes, i);
    int e = pngpass_entry(pngs, sb->data, sb->data_len);
    if (e < 0 || !g_strstr_len(sb->dict, (gssize)sb->dict_len, "/CCITTFaxDecode") ||
        !g_strstr_len(sb->dict, (gssize)sb->dict_len, "/Image"))
      continue;
    char *dict = NULL;
    gsize len = 0;
    GError *err = NULL;
    bool interpolate = g_strstr_len(sb->dict, (gssize)sb->dict_len, "/Interpolate true") != NULL;
    if (!pngpass_image(pngs, e, interpolate, &dict, &len, &err)) {
      book_diag(book, BOOK_ERROR, NULL, "%s: image %s cannot be copied into the PDF: %s", name,
                pngpass_path(pngs, e), err->message);
      g_error_free(err);
      ok = false;
      break;
    }
    qpdf_oh d = qpdf_oh_parse(q, dict);
    PngSource *src = g_new(PngSource, 1);
    *src = (PngSource){pngs, e};
    pdfupdate_replace_stream_from(u, sb->id, d, len, png_data, src, g_free);
    qpdf_oh_release(q, d);
    g_free(dict);
    done[e] = true;
  }
  for (guint e = 0; ok && e < n; e++)
    if (!done[e]) {
      book_diag(book, BOOK_ERROR, NULL, "%s: image %s: its place in cairo's output was not found",
                name, pngpass_path(pngs, (int)e));
      ok = false;
    }
  g_array_free(found, TRUE);
  g_free(done);
  return ok;
}

/* CPU time of the process, in microseconds (the pass's cost for -v). */
static gint64 cpu_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (gint64)ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

bool archive_pdf(Book *book, const Layout *lay, const OctavoOptions *opts, const PdfMove *move,
                 const PngPass *pngs, char **pdf, const char *name)
{
  char *fresh = NULL; /* the file written anew (pdfupdate_write), to replace *pdf */
  ArchiveStandard std;
  if (!archive_standard_parse(opts->pdf_standard, &std)) {
    book_diag(book, BOOK_ERROR, NULL, "unknown --pdf-standard '%s' (a-3u, ua-1, none)",
              opts->pdf_standard);
    return false;
  }
  bool moving = move && move->pages > 0;
  GBytes *icc = NULL;
  if (std.pdfa3u && !(icc = read_icc(book)))
    return false;

  GError *err = NULL;
  if (!qpdflib_open(&err)) {
    book_diag(book, BOOK_ERROR, NULL, "%s: archival PDF: %s", name, err->message);
    g_error_free(err);
    if (icc)
      g_bytes_unref(icc);
    return false;
  }
  gint64 t0 = g_get_monotonic_time(), c0 = cpu_us();
  bool ok = false;
  /* the sources, read on the other core while qpdf reads the file */
  ArchiveSources *srcs =
      std.pdfa3u && opts->attach_source
          ? archive_sources_start(book, util_build_time(book->meta.date), opts->plan)
          : NULL;
  PdfUpdate *u = NULL;
  qpdf_data q = qpdf_init();
  qpdf_silence_errors(q);
  qpdf_set_suppress_warnings(q, QPDF_TRUE);
  /* from memory: qpdf reading a file seeks for every token it reads */
  GMappedFile *map = g_mapped_file_new(*pdf, FALSE, &err);
  if (!map) {
    book_diag(book, BOOK_ERROR, NULL, "%s: archival PDF: %s", name, err->message);
    g_error_free(err);
    goto done;
  }
  const char *base = g_mapped_file_get_contents(map);
  gsize base_len = g_mapped_file_get_length(map);
  if (qpdf_read_memory(q, name, base, base_len, NULL) & QPDF_ERRORS) {
    qpdf_failed(q, book, name, "cannot read cairo's output");
    goto done;
  }
  if (!(u = pdfupdate_new(q, base, base_len, &err))) {
    book_diag(book, BOOK_ERROR, NULL, "%s: archival PDF: %s", name, err->message);
    g_error_free(err);
    goto done;
  }
  qpdf_oh root = qpdf_get_root(q);
  if (moving && (!move_pages(q, u, root, move) || !move_elements(q, u, root, move))) {
    book_diag(book, BOOK_ERROR, NULL, "%s: cannot move the contents' pages in cairo's output",
              name);
    goto done;
  }
  pdfupdate_drop_pages(u); /* the page tree read through */
  if (!copy_pngs(q, u, pngs, book, name))
    goto done;
  archive_widths(q, u, base, base_len, book, name);
  if (!std.pdfa3u && !std.pdfua1)
    goto append;
  add_info_and_xmp(q, u, root, book, &std);
  fix_catalog(q, u, root, book, &std);
  if (std.pdfua1) {
    archive_figure_alts(q, u, root, book, lay);
    pdfupdate_drop_pages(u);
  }
  fix_pages(q, u, book, std.pdfua1);
  if (std.pdfa3u)
    add_output_intent(q, u, root, icc);
  if (srcs && !attach_sources(q, u, root, book, srcs))
    goto done;
append:
  if (qpdf_failed(q, book, name, "cannot edit the PDF"))
    goto done;
  if (!pdfupdate_write(u, *pdf, name, &fresh, &err)) {
    book_diag(book, BOOK_ERROR, NULL, "cannot write %s: %s", name, err->message);
    g_error_free(err);
    goto done;
  }
  ok = true;
  if (opts->verbose)
    fprintf(stderr, "octavo: archival pass on %s: %.0f ms (%.0f ms CPU)\n", name,
            (g_get_monotonic_time() - t0) / 1000.0, (cpu_us() - c0) / 1000.0);
done:
  archive_sources_free(srcs);
  pdfupdate_free(u);
  qpdf_cleanup(&q);
  if (map)
    g_mapped_file_unref(map);
  if (icc)
    g_bytes_unref(icc);
  if (fresh) { /* written anew: cairo's file goes, the new one is the output */
    util_temp_discard(*pdf);
    g_free(*pdf);
    *pdf = fresh;
  }
  return ok;
}
