/* epub.c: the document model -> an EPUB 3 container (libzip).
 *
 * Gathers the parts (content documents from xhtml.c, the stylesheet with
 * @font-face rules for subset fonts, images, nav.xhtml, toc.ncx, the OPF)
 * into a list of entries in a fixed order, then writes the zip under a
 * temporary name beside the target and renames it at the end. Every entry
 * gets the same timestamp (the build time: SOURCE_DATE_EPOCH when set), and
 * the identifier is a hash of the content, so two builds of the same book
 * are byte-identical.
 *
 * Layout of the container:
 *   mimetype, META-INF/container.xml, META-INF/com.apple.ibooks.display-options.xml,
 *   EPUB/package.opf, nav.xhtml, toc.ncx, cover.xhtml, title.xhtml,
 *   <chapter>.xhtml (reading order), colophon.xhtml, styles/book.css,
 *   fonts/NAME.ttf, cover.png (or .jpg), images/NAME (BookResource.href)
 * Spine: cover, title page, contents, chapters, colophon.
 *
 * Not here: the XHTML of chapters (xhtml.c), finding images (markdown.c),
 * drawing the cover (cover.c). The package document is epub_opf.c's, the
 * navigation epub_nav.c's, fonts, images and the cover image
 * epub_media.c's (see epub_internal.h). */
#include "epub_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "colophon.h"
#include "labels.h"
#include "util.h"

/* ---- entries and manifest ---- */

void ep_add_entry(Epub *e, const char *name, GBytes *data)
{
  Entry en = {g_strdup(name), data, false};
  g_array_append_val(e->entries, en);
}

void ep_add_entry_stored(Epub *e, const char *name, GBytes *data)
{
  Entry en = {g_strdup(name), data, true};
  g_array_append_val(e->entries, en);
}

static void add_entry_str(Epub *e, const char *name, char *owned_text)
{
  ep_add_entry(e, name, g_bytes_new_take(owned_text, strlen(owned_text)));
}

Item *ep_add_item(Epub *e, const char *id, const char *href, const char *media_type,
                  const char *props)
{
  Item it = {g_strdup(id), g_strdup(href), g_strdup(media_type), g_strdup(props)};
  g_array_append_val(e->items, it);
  return &g_array_index(e->items, Item, e->items->len - 1);
}

/* ---- writers of the package documents ---- */

xmlTextWriterPtr ep_wr_open(xmlBufferPtr *buf)
{
  *buf = xmlBufferCreate();
  xmlBufferSetAllocationScheme(*buf, XML_BUFFER_ALLOC_DOUBLEIT);
  xmlTextWriterPtr w = xmlNewTextWriterMemory(*buf, 0);
  xmlTextWriterSetIndent(w, 1);
  xmlTextWriterSetIndentString(w, BAD_CAST "  ");
  xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL);
  return w;
}

char *ep_wr_close(xmlTextWriterPtr w, xmlBufferPtr buf)
{
  xmlTextWriterEndDocument(w);
  xmlTextWriterFlush(w);
  xmlFreeTextWriter(w);
  char *s = g_strndup((const char *)xmlBufferContent(buf), (gsize)xmlBufferLength(buf));
  xmlBufferFree(buf);
  return s;
}
static char *container_document(void)
{
  xmlBufferPtr buf;
  xmlTextWriterPtr w = ep_wr_open(&buf);
  START(w, "container");
  ATTR(w, "version", "1.0");
  ATTR(w, "xmlns", "urn:oasis:names:tc:opendocument:xmlns:container");
  START(w, "rootfiles");
  START(w, "rootfile");
  ATTR(w, "full-path", "EPUB/package.opf");
  ATTR(w, "media-type", "application/oebps-package+xml");
  END(w);
  END(w);
  END(w);
  return ep_wr_close(w, buf);
}

/* Apple Books' display options: use the book's embedded fonts
 * (specified-fonts), which it otherwise replaces with its own. Read by
 * epub.js and foliate-js too. Kobo's com.kobobooks.display-options.xml is
 * not written: its readers and foliate-js take Apple's file first, and
 * what it could say (fixed layout, spreads) does not concern a reflowable
 * book. */
static char *apple_display_options(void)
{
  xmlBufferPtr buf;
  xmlTextWriterPtr w = ep_wr_open(&buf);
  START(w, "display_options");
  START(w, "platform");
  ATTR(w, "name", "*");
  START(w, "option");
  ATTR(w, "name", "specified-fonts");
  TEXT(w, "true");
  END(w);
  END(w);
  END(w);
  return ep_wr_close(w, buf);
}

/* ---- identifier ---- */

static char *content_uuid(GChecksum *sum)
{
  guint8 d[20];
  gsize len = sizeof d;
  g_checksum_get_digest(sum, d, &len);
  d[6] = (guint8)((d[6] & 0x0f) | 0x50); /* version 5: name-based, SHA-1 */
  d[8] = (guint8)((d[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  return g_strdup_printf(
      "urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", d[0], d[1],
      d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15]);
}

/* The identifier names the content: the model's text and structure (the
 * metadata, the chapters, the notes, the resources' names), so that it
 * depends neither on the pagination nor on the fonts, nor on where the
 * sources lie; taken from the model (book_digest) rather than from a
 * rendering of the whole book. */
char *epub_identifier(Book *book, const OctavoOptions *opts)
{
  if (book->meta.identifier && *book->meta.identifier)
    return g_strdup(book->meta.identifier);
  GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA1);
  g_checksum_update(sum, (const guchar *)"octavo-epub-model\0", 18);
  g_checksum_update(sum, (const guchar *)xhtml_book_lang(book, opts), -1);
  book_digest(book, sum);
  char *id = content_uuid(sum);
  g_checksum_free(sum);
  return id;
}

/* ---- the container ---- */

/* DOS date and time of t in UTC (not local time, as zip_file_set_mtime
 * would use), so that the bytes do not depend on the time zone. */
static void dos_time(gint64 t, zip_uint16_t *dtime, zip_uint16_t *ddate)
{
  GDateTime *dt = g_date_time_new_from_unix_utc(t);
  int y = g_date_time_get_year(dt);
  if (y < 1980) {
    *ddate = (1 << 5) | 1;
    *dtime = 0;
  } else {
    if (y > 2107)
      y = 2107;
    *ddate = (zip_uint16_t)(((y - 1980) << 9) | (g_date_time_get_month(dt) << 5) |
                            g_date_time_get_day_of_month(dt));
    *dtime = (zip_uint16_t)((g_date_time_get_hour(dt) << 11) | (g_date_time_get_minute(dt) << 5) |
                            (g_date_time_get_second(dt) / 2));
  }
  g_date_time_unref(dt);
}

/* The deflate level of the entries deflated: zlib's default. Against 9,
 * measured on the documents of the bench books (issue 30): the 10 MB
 * book's 14.2 MB of XHTML deflate in 0.20 s instead of 0.25 s for 8 kB
 * more (0.07 % of its EPUB); a real book's prose (functional-light-js) in
 * 7 ms instead of 12 for 1.2 % more; level 5 would cost 3-5 % more bytes. */
#define DEFLATE_LEVEL 6

static bool put_entry(Epub *e, zip_t *za, const char *name, GBytes *data, bool store,
                      zip_uint16_t dt, zip_uint16_t dd)
{
  gsize len = 0;
  const void *p = g_bytes_get_data(data, &len);
  zip_source_t *src = zip_source_buffer(za, p, len, 0);
  if (!src)
    return false;
  zip_int64_t idx = zip_file_add(za, name, src, ZIP_FL_ENC_UTF_8);
  if (idx < 0) {
    zip_source_free(src);
    return false;
  }
  if (zip_set_file_compression(za, (zip_uint64_t)idx, store ? ZIP_CM_STORE : ZIP_CM_DEFLATE,
                               store ? 0 : DEFLATE_LEVEL) < 0)
    return false;
  if (zip_file_set_dostime(za, (zip_uint64_t)idx, dt, dd, 0) < 0)
    return false;
  return true;
}

/* The finished archive of a buffer source written to path (through a
 * temporary file, util_commit), read from the source a block at a time:
 * never copied whole (11 MB of the 10 MB benchmark book's EPUB). False
 * with *err set (ZIP_ER_READ: the archive cannot be read back). */
static bool source_write(zip_source_t *src, const char *path, GError **err)
{
  char *tmp = util_temp_beside(path, err);
  if (!tmp)
    return false;
  FILE *f = fopen(tmp, "wb");
  int e = f ? 0 : errno;
  bool read_ok = zip_source_open(src) == 0;
  if (read_ok) {
    guint8 buf[65536];
    zip_int64_t got;
    while ((got = zip_source_read(src, buf, sizeof buf)) > 0)
      if (f && !e && fwrite(buf, 1, (size_t)got, f) != (size_t)got)
        e = errno ? errno : EIO;
    read_ok = got == 0;
    zip_source_close(src);
  }
  if (f && fclose(f) != 0 && !e)
    e = errno ? errno : EIO;
  const char *shown = strcmp(path, "-") == 0 ? "standard output" : path;
  bool ok = false;
  if (!read_ok)
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_IO,
                "cannot write %s: the archive cannot be read back", shown);
  else if (e)
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write %s: %s", shown,
                g_strerror(e));
  else
    ok = util_commit(tmp, path, err); /* discards tmp */
  if (!ok && (!read_ok || e))
    util_temp_discard(tmp);
  g_free(tmp);
  return ok;
}

/* The archive is made in memory and written to the file (source_write): a
 * libzip archive on a file writes a temporary file of its own, whose name
 * seeds OpenSSL's random generator (8 M instructions, 4% of a small
 * EPUB). */
static bool write_zip(Epub *e, const char *path)
{
  const char *shown = strcmp(path, "-") == 0 ? "standard output" : path;
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *mem = zip_source_buffer_create(NULL, 0, 0, &ze);
  zip_t *za = mem ? zip_open_from_source(mem, ZIP_TRUNCATE, &ze) : NULL;
  if (!za) {
    book_diag(e->book, BOOK_ERROR, NULL, "cannot write %s: %s", shown, zip_error_strerror(&ze));
    zip_error_fini(&ze);
    zip_source_free(mem);
    return false;
  }
  zip_error_fini(&ze);
  zip_source_keep(mem); /* the archive's bytes are read after zip_close */
  zip_uint16_t dt, dd;
  dos_time(e->time, &dt, &dd);
  static const char mimetype[] = "application/epub+zip";
  GBytes *mt = g_bytes_new_static(mimetype, sizeof mimetype - 1);
  bool ok = put_entry(e, za, "mimetype", mt, true, dt, dd);
  for (guint i = 0; ok && i < e->entries->len; i++) {
    Entry *en = &g_array_index(e->entries, Entry, i);
    ok = put_entry(e, za, en->name, en->data, en->store, dt, dd);
  }
  if (ok && zip_close(za) < 0)
    ok = false;
  if (!ok) {
    book_diag(e->book, BOOK_ERROR, NULL, "cannot write %s: %s", shown, zip_strerror(za));
    zip_discard(za);
  }
  g_bytes_unref(mt);
  GError *err = NULL;
  if (ok && !source_write(mem, path, &err)) {
    book_diag(e->book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
    ok = false;
  }
  zip_source_free(mem);
  return ok;
}

static char *read_css(Epub *e)
{
  char *path = octavo_css_path(e->opts);
  char *css = NULL;
  GError *err = NULL;
  if (!g_file_get_contents(path, &css, NULL, &err)) {
    book_diag(e->book, BOOK_ERROR, NULL, "cannot read the stylesheet: %s", err->message);
    g_error_free(err);
  }
  g_free(path);
  return css;
}

void epub_threads_init(void)
{
  xmlInitParser();
}

/* ---- the driver ---- */

/* What the driver makes before it packages it. */
typedef struct {
  char *css;            /* the stylesheet as read */
  GHashTable *text_set; /* the characters the writers add (the book's: Epub.chars) */
  char *title;          /* the title page */
  GArray *docs;         /* Entry: chapter documents, named by their href */
  GBytes *cover;        /* the cover image, or NULL */
  const char *cover_type, *cover_file;
  int cover_w, cover_h;
  char *colophon; /* the colophon page */
  GArray *toc;    /* TocEntry */
} Parts;

/* The title page and the chapter documents, and the identifier
 * (epub_identifier) unless it was given. */
static void write_documents(Epub *e, Parts *p)
{
  Book *book = e->book;
  p->title = xhtml_title_document(e->x, CSS_HREF);
  ep_add_codepoints(p->text_set, p->title);
  p->docs = g_array_new(FALSE, TRUE, sizeof(Entry));
  for (guint i = 0; i < book->chapters->len; i++) {
    BookChapter *c = book->chapters->pdata[i];
    char *doc = xhtml_chapter_document(e->x, c, CSS_HREF);
    char *href = xhtml_chapter_href(c);
    Entry d = {href, g_bytes_new_take(doc, strlen(doc)), false};
    g_array_append_val(p->docs, d);
    if (i == 0)
      e->first_chapter_href = g_strdup(href);
  }
  if (!e->identifier) /* else made already (epub_write_chars) */
    e->identifier = epub_identifier(book, e->opts);
}

/* The cover, before the navigation that lists it. */
static void make_cover(Epub *e, Parts *p)
{
  p->cover = ep_cover_image(e, &p->cover_type, &p->cover_w, &p->cover_h);
  p->cover_file = p->cover && strcmp(p->cover_type, "image/jpeg") == 0 ? "cover.jpg" : "cover.png";
  if (p->cover)
    e->cover_href = g_strdup("cover.xhtml");
}

/* The colophon, the last spine item: it names the identifier, so it is
 * not part of what the identifier hashes. It names the typefaces the
 * e-book embeds (none with --no-embed-fonts). */
static void make_colophon(Epub *e, Parts *p)
{
  Colophon *colophon = colophon_new(e->book, xhtml_book_lang(e->book, e->opts), e->identifier,
                                    e->time, e->opts->embed_fonts ? e->fonts : NULL);
  p->colophon = xhtml_colophon_document(e->x, CSS_HREF, colophon);
  colophon_free(colophon);
  ep_add_codepoints(p->text_set, p->colophon);
}

/* The contents, and the characters of every label the writers may use. */
static void make_toc(Epub *e, Parts *p)
{
  p->toc = ep_toc_entries(e);
  for (guint i = 0; i < p->toc->len; i++)
    ep_add_codepoints(p->text_set, g_array_index(p->toc, TocEntry, i).label);
  for (int l = 0; l < LABEL_COUNT; l++)
    ep_add_codepoints(p->text_set, labels_get(xhtml_book_lang(e->book, e->opts), (LabelId)l));
}

/* The documents' entries, manifest items and spine, in a fixed order; the
 * package document's entry is a slot filled last. Returns the slot's index. */
static guint add_documents(Epub *e, Parts *p)
{
  add_entry_str(e, "META-INF/container.xml", container_document());
  add_entry_str(e, "META-INF/com.apple.ibooks.display-options.xml", apple_display_options());
  Entry opf_slot = {g_strdup("EPUB/package.opf"), NULL, false};
  g_array_append_val(e->entries, opf_slot);
  guint opf_index = e->entries->len - 1;
  add_entry_str(e, "EPUB/nav.xhtml", ep_nav_document(e, p->toc));
  ep_add_item(e, "nav", "nav.xhtml", "application/xhtml+xml", "nav");
  add_entry_str(e, "EPUB/toc.ncx", ep_ncx_document(e, p->toc));
  ep_add_item(e, "ncx", "toc.ncx", "application/x-dtbncx+xml", NULL);
  if (p->cover) {
    add_entry_str(e, "EPUB/cover.xhtml",
                  xhtml_cover_document(e->x, CSS_HREF, p->cover_file, p->cover_w, p->cover_h));
    ep_add_item(e, "cover", "cover.xhtml", "application/xhtml+xml",
                p->cover_w > 0 && p->cover_h > 0 ? "svg" : NULL);
    g_ptr_array_add(e->spine, "cover");
  }
  add_entry_str(e, "EPUB/title.xhtml", p->title);
  p->title = NULL;
  ep_add_item(e, "titlepage", "title.xhtml", "application/xhtml+xml", NULL);
  g_ptr_array_add(e->spine, "titlepage");
  g_ptr_array_add(e->spine, "nav");
  for (guint i = 0; i < p->docs->len; i++) {
    Entry *d = &g_array_index(p->docs, Entry, i);
    char *name = g_strconcat("EPUB/", d->name, NULL);
    ep_add_entry(e, name, d->data);
    char id[32];
    g_snprintf(id, sizeof id, "ch-%u", i + 1);
    Item *it = ep_add_item(e, id, d->name, "application/xhtml+xml", NULL);
    g_ptr_array_add(e->spine, it->id);
    g_free(name);
    g_free(d->name);
  }
  g_array_set_size(p->docs, 0);
  add_entry_str(e, "EPUB/colophon.xhtml", p->colophon);
  p->colophon = NULL;
  ep_add_item(e, "colophon", "colophon.xhtml", "application/xhtml+xml", NULL);
  g_ptr_array_add(e->spine, "colophon");
  return opf_index;
}

/* The stylesheet, then the fonts its @font-face rules name. */
static bool add_stylesheet(Epub *e, Parts *p)
{
  bool ok = true;
  Entry css_slot = {g_strdup("EPUB/" CSS_HREF), NULL, false};
  g_array_append_val(e->entries, css_slot);
  guint css_index = e->entries->len - 1;
  ep_add_item(e, "css", CSS_HREF, "text/css", NULL);
  GString *sheet = g_string_new(p->css);
  if (e->opts->embed_fonts && !e->fonts)
    book_diag(e->book, BOOK_WARNING, NULL, "no fonts to embed; the EPUB goes without them");
  if (e->opts->embed_fonts && e->fonts && !ep_add_fonts(e, p->text_set, sheet))
    ok = false;
  g_array_index(e->entries, Entry, css_index).data = g_bytes_new(sheet->str, sheet->len);
  g_string_free(sheet, TRUE);
  return ok;
}

static void add_cover_image(Epub *e, Parts *p)
{
  if (!p->cover)
    return;
  char *name = g_strconcat("EPUB/", p->cover_file, NULL);
  ep_add_entry(e, name, p->cover);
  ep_add_item(e, "cover-image", p->cover_file, p->cover_type, "cover-image");
  g_free(name);
  p->cover = NULL;
}

static void epub_init(Epub *e, Book *book, const Style *style, const Fonts *fonts,
                      const OctavoOptions *opts, const GArray *page_marks)
{
  *e = (Epub){0};
  e->book = book;
  e->style = style;
  e->fonts = fonts;
  e->opts = opts;
  e->entries = g_array_new(FALSE, TRUE, sizeof(Entry));
  e->items = g_array_new(FALSE, TRUE, sizeof(Item));
  e->spine = g_ptr_array_new();
  e->x = xhtml_writer_new(book, opts, opts->page_list ? page_marks : NULL);
  e->time = util_build_time(book->meta.date);
}

static void epub_clear(Epub *e, Parts *p)
{
  for (guint i = 0; i < e->entries->len; i++) {
    Entry *en = &g_array_index(e->entries, Entry, i);
    g_free(en->name);
    if (en->data)
      g_bytes_unref(en->data);
  }
  g_array_free(e->entries, TRUE);
  for (guint i = 0; i < e->items->len; i++) {
    Item *it = &g_array_index(e->items, Item, i);
    g_free(it->id);
    g_free(it->href);
    g_free(it->media_type);
    g_free(it->properties);
  }
  g_array_free(e->items, TRUE);
  g_ptr_array_free(e->spine, TRUE);
  if (p->toc)
    ep_toc_free(p->toc);
  for (guint i = 0; p->docs && i < p->docs->len; i++) {
    g_free(g_array_index(p->docs, Entry, i).name);
    g_bytes_unref(g_array_index(p->docs, Entry, i).data);
  }
  if (p->docs)
    g_array_free(p->docs, TRUE);
  if (p->cover)
    g_bytes_unref(p->cover);
  g_free(p->title);
  g_free(p->colophon);
  g_hash_table_destroy(p->text_set);
  xhtml_writer_free(e->x);
  g_free(e->identifier);
  g_free(e->first_chapter_href);
  g_free(e->cover_href);
  g_free(p->css);
}

bool epub_write(Book *book, const Style *style, const Fonts *fonts, const OctavoOptions *opts,
                const GArray *page_marks, const char *path)
{
  CoverageChars chars = {0};
  if (fonts && opts->embed_fonts)
    coverage_chars(book, &chars);
  bool ok = epub_write_chars(book, style, fonts, opts, page_marks, &chars, NULL, path);
  coverage_chars_clear(&chars);
  return ok;
}

bool epub_write_chars(Book *book, const Style *style, const Fonts *fonts, const OctavoOptions *opts,
                      const GArray *page_marks, const CoverageChars *chars, const char *identifier,
                      const char *path)
{
  Epub e;
  epub_init(&e, book, style, fonts, opts, page_marks);
  e.chars = chars;
  e.identifier = g_strdup(identifier);
  Parts p = {0};
  p.text_set = g_hash_table_new(g_direct_hash, g_direct_equal);
  p.css = read_css(&e);
  bool ok = p.css != NULL;
  if (ok) {
    ep_survey_images(&e);
    write_documents(&e, &p);
    make_cover(&e, &p);
    make_colophon(&e, &p);
    make_toc(&e, &p);
    guint opf_index = add_documents(&e, &p);
    ok = add_stylesheet(&e, &p);
    add_cover_image(&e, &p);
    ok = ok && ep_add_images(&e);
    if (ok) {
      char *opf = ep_opf_document(&e);
      g_array_index(e.entries, Entry, opf_index).data = g_bytes_new_take(opf, strlen(opf));
      ok = write_zip(&e, path);
    }
  }
  epub_clear(&e, &p);
  return ok;
}
