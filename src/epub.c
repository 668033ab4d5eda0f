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
 * drawing the cover (cover.c). */
#include "epub.h"

#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlwriter.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "cover.h"
#include "fonts.h"
#include "fontstack.h"
#include "labels.h"
#include "outline.h"
#include "subset.h"
#include "util.h"
#include "xhtml.h"

#define CSS_HREF "styles/book.css"
/* octavo's own cover: 1000 x 1500 pixels, a 2:3 face, sharp on phones and
 * readers. */
enum { COVER_W = 1000, COVER_H = 1500 };

typedef struct {
  char *name; /* path in the container */
  GBytes *data;
} Entry;

typedef struct {
  char *id, *href, *media_type, *properties; /* href relative to EPUB/ */
} Item;

typedef struct {
  Book *book;
  const OctavoOptions *opts;
  const Style *style; /* the print style: the cover's colours */
  const Fonts *fonts; /* NULL: no fonts to embed, no generated cover */
  GArray *entries;    /* Entry, in container order after mimetype */
  GArray *items;      /* Item: the manifest */
  GPtrArray *spine;   /* item ids (borrowed from items) */
  XhtmlWriter *x;
  char *identifier;
  gint64 time;
  bool has_images, all_alt;
  char *first_chapter_href;
  char *cover_href; /* the cover page, or NULL */
} Epub;

/* ---- entries and manifest ---- */

static void add_entry(Epub *e, const char *name, GBytes *data)
{
  Entry en = {g_strdup(name), data};
  g_array_append_val(e->entries, en);
}

static void add_entry_str(Epub *e, const char *name, char *owned_text)
{
  add_entry(e, name, g_bytes_new_take(owned_text, strlen(owned_text)));
}

static Item *add_item(Epub *e, const char *id, const char *href, const char *media_type,
                      const char *props)
{
  Item it = {g_strdup(id), g_strdup(href), g_strdup(media_type), g_strdup(props)};
  g_array_append_val(e->items, it);
  return &g_array_index(e->items, Item, e->items->len - 1);
}

/* ---- writers of the package documents ---- */

static xmlTextWriterPtr wr_open(xmlBufferPtr *buf)
{
  *buf = xmlBufferCreate();
  xmlBufferSetAllocationScheme(*buf, XML_BUFFER_ALLOC_DOUBLEIT);
  xmlTextWriterPtr w = xmlNewTextWriterMemory(*buf, 0);
  xmlTextWriterSetIndent(w, 1);
  xmlTextWriterSetIndentString(w, BAD_CAST "  ");
  xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL);
  return w;
}

static char *wr_close(xmlTextWriterPtr w, xmlBufferPtr buf)
{
  xmlTextWriterEndDocument(w);
  xmlTextWriterFlush(w);
  xmlFreeTextWriter(w);
  char *s = g_strndup((const char *)xmlBufferContent(buf), (gsize)xmlBufferLength(buf));
  xmlBufferFree(buf);
  return s;
}

#define START(w, tag) xmlTextWriterStartElement(w, BAD_CAST(tag))
#define END(w) xmlTextWriterEndElement(w)
#define ATTR(w, name, value) put_attr(w, name, value)
#define TEXT(w, s) put_text(w, s)

/* Text and attribute values from the book (titles, headings, metadata)
 * pass through xhtml_xml_text: libxml2 escapes, but cannot carry what XML
 * forbids. */
static void put_text(xmlTextWriterPtr w, const char *s)
{
  char *c = xhtml_xml_text(s);
  xmlTextWriterWriteString(w, BAD_CAST c);
  g_free(c);
}

static void put_attr(xmlTextWriterPtr w, const char *name, const char *value)
{
  char *c = xhtml_xml_text(value);
  xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST c);
  g_free(c);
}

static void elem(xmlTextWriterPtr w, const char *tag, const char *text)
{
  START(w, tag);
  TEXT(w, text);
  xmlTextWriterFullEndElement(w);
}

/* ---- the table of contents ---- */

typedef struct {
  int level;
  char *label;
  char *href;
  char *number; /* the entry's number under -N (the start of label), or NULL */
} TocEntry;

/* The contents: the outline's entries at --toc-depth (outline.h), with
 * their depth as the level to nest by. */
static GArray *toc_entries(Epub *e)
{
  GArray *toc = g_array_new(FALSE, TRUE, sizeof(TocEntry));
  const char *lang = xhtml_book_lang(e->book, e->opts);
  Outline *o = outline_new(e->book, e->opts->split_level, e->opts->toc_depth,
                           labels_get(lang, LABEL_UNTITLED_SECTION));
  for (guint i = 0; i < o->entries->len; i++) {
    const OutlineEntry *oe = outline_entry(o, i);
    if (!oe->in_toc)
      continue;
    char *file = xhtml_chapter_href(oe->chapter);
    TocEntry t = {oe->depth, g_strdup(oe->title),
                  oe->chapter_start ? g_strdup(file) : g_strdup_printf("%s#%s", file, oe->id),
                  oe->number && g_str_has_prefix(oe->title, oe->number) ? g_strdup(oe->number)
                                                                        : NULL};
    g_array_append_val(toc, t);
    g_free(file);
  }
  outline_free(o);
  return toc;
}

static void toc_free(GArray *toc)
{
  for (guint i = 0; i < toc->len; i++) {
    g_free(g_array_index(toc, TocEntry, i).label);
    g_free(g_array_index(toc, TocEntry, i).href);
    g_free(g_array_index(toc, TocEntry, i).number);
  }
  g_array_free(toc, TRUE);
}

/* Nest the entries by level into <ol>/<li> (nav) or <navPoint> (ncx),
 * without recursion: a stack of the levels of the open items. Returns the
 * maximum depth. */
static int write_toc_tree(xmlTextWriterPtr w, const GArray *toc, bool ncx)
{
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(int));
  int maxdepth = 0, order = 0;
  if (!ncx)
    START(w, "ol");
  for (guint i = 0; i < toc->len; i++) {
    const TocEntry *t = &g_array_index(toc, TocEntry, i);
    int top = stack->len ? g_array_index(stack, int, stack->len - 1) : 0;
    if (stack->len && t->level > top) {
      if (!ncx)
        START(w, "ol");
      g_array_append_val(stack, t->level);
    } else if (stack->len) {
      while (stack->len >= 2 && g_array_index(stack, int, stack->len - 2) >= t->level) {
        END(w); /* li or navPoint */
        if (!ncx)
          END(w); /* ol */
        g_array_set_size(stack, stack->len - 1);
      }
      END(w);
      g_array_index(stack, int, stack->len - 1) = t->level;
    } else {
      g_array_append_val(stack, t->level);
    }
    if ((int)stack->len > maxdepth)
      maxdepth = (int)stack->len;
    if (ncx) {
      char id[32], po[16];
      order++;
      g_snprintf(id, sizeof id, "np-%d", order);
      g_snprintf(po, sizeof po, "%d", order);
      START(w, "navPoint");
      ATTR(w, "id", id);
      ATTR(w, "playOrder", po);
      START(w, "navLabel");
      elem(w, "text", t->label);
      END(w);
      START(w, "content");
      ATTR(w, "src", t->href);
      END(w);
    } else {
      START(w, "li");
      START(w, "a");
      ATTR(w, "href", t->href);
      if (t->number) {
        /* the number in a span of its own, so that the stylesheet lines
         * the numbers up and hangs the titles after them; no indentation
         * inside the link, where it would be a space of the title */
        xmlTextWriterSetIndent(w, 0);
        START(w, "span");
        ATTR(w, "class", "toc-number");
        TEXT(w, t->number);
        END(w);
        TEXT(w, t->label + strlen(t->number));
        END(w);
        xmlTextWriterSetIndent(w, 1);
      } else {
        TEXT(w, t->label);
        END(w);
      }
    }
  }
  while (stack->len) {
    END(w);
    if (!ncx && stack->len > 1)
      END(w);
    g_array_set_size(stack, stack->len - 1);
  }
  if (!ncx)
    END(w);
  g_array_free(stack, TRUE);
  return maxdepth;
}

static char *nav_document(Epub *e, const GArray *toc)
{
  const char *lang = xhtml_book_lang(e->book, e->opts);
  xmlBufferPtr buf;
  xmlTextWriterPtr w = wr_open(&buf);
  xmlTextWriterWriteDTD(w, BAD_CAST "html", NULL, NULL, NULL);
  START(w, "html");
  ATTR(w, "xmlns", "http://www.w3.org/1999/xhtml");
  ATTR(w, "xmlns:epub", "http://www.idpf.org/2007/ops");
  ATTR(w, "xml:lang", lang);
  ATTR(w, "lang", lang);
  START(w, "head");
  START(w, "meta");
  ATTR(w, "charset", "utf-8");
  END(w);
  const char *contents = labels_get(lang, LABEL_CONTENTS);
  elem(w, "title", contents);
  START(w, "link");
  ATTR(w, "rel", "stylesheet");
  ATTR(w, "type", "text/css");
  ATTR(w, "href", CSS_HREF);
  END(w);
  END(w);
  START(w, "body");
  ATTR(w, "epub:type", "frontmatter");

  START(w, "nav");
  ATTR(w, "epub:type", "toc");
  ATTR(w, "role", "doc-toc");
  ATTR(w, "id", "toc");
  ATTR(w, "aria-labelledby", "toc-title");
  START(w, "h1");
  ATTR(w, "id", "toc-title");
  TEXT(w, contents);
  xmlTextWriterFullEndElement(w);
  write_toc_tree(w, toc, false);
  END(w);

  START(w, "nav");
  ATTR(w, "epub:type", "landmarks");
  ATTR(w, "aria-label", labels_get(lang, LABEL_LANDMARKS));
  ATTR(w, "hidden", "hidden");
  START(w, "ol");
  const char *marks[][3] = {{"cover", e->cover_href, labels_get(lang, LABEL_COVER)},
                            {"titlepage", "title.xhtml", labels_get(lang, LABEL_TITLEPAGE)},
                            {"toc", "nav.xhtml#toc", contents},
                            {"bodymatter", e->first_chapter_href, labels_get(lang, LABEL_START)}};
  for (size_t i = 0; i < G_N_ELEMENTS(marks); i++) {
    if (!marks[i][1])
      continue;
    START(w, "li");
    START(w, "a");
    ATTR(w, "epub:type", marks[i][0]);
    ATTR(w, "href", marks[i][1]);
    TEXT(w, marks[i][2]);
    END(w);
    END(w);
  }
  END(w);
  END(w);

  const GArray *pages = xhtml_writer_pages(e->x);
  if (pages->len) {
    START(w, "nav");
    ATTR(w, "epub:type", "page-list");
    ATTR(w, "aria-label", labels_get(lang, LABEL_PRINT_PAGES));
    ATTR(w, "hidden", "hidden");
    START(w, "ol");
    for (guint i = 0; i < pages->len; i++) {
      const XhtmlPage *p = &g_array_index(pages, XhtmlPage, i);
      char *file = xhtml_chapter_href(p->chapter);
      char *href = g_strdup_printf("%s#%s", file, p->id);
      START(w, "li");
      START(w, "a");
      ATTR(w, "href", href);
      TEXT(w, p->label);
      END(w);
      END(w);
      g_free(href);
      g_free(file);
    }
    END(w);
    END(w);
  }
  END(w); /* body */
  END(w); /* html */
  return wr_close(w, buf);
}

/* The number of a print page whose label is arabic ("7"), or 0 (front
 * matter, "ii"): an NCX pageTarget's value. */
static long page_value(const char *label)
{
  char *end = NULL;
  long v = label && g_ascii_isdigit(*label) ? strtol(label, &end, 10) : 0;
  return end && !*end && v > 0 ? v : 0;
}

static char *ncx_document(Epub *e, const GArray *toc)
{
  /* The depth is known only after nesting: write the tree first into its
   * own buffer. */
  xmlBufferPtr tbuf = xmlBufferCreate();
  xmlTextWriterPtr tw = xmlNewTextWriterMemory(tbuf, 0);
  START(tw, "navMap");
  int depth = write_toc_tree(tw, toc, true);
  END(tw);
  xmlTextWriterFlush(tw);
  xmlFreeTextWriter(tw);

  xmlBufferPtr buf;
  xmlTextWriterPtr w = wr_open(&buf);
  START(w, "ncx");
  ATTR(w, "xmlns", "http://www.daisy.org/z3986/2005/ncx/");
  ATTR(w, "version", "2005-1");
  ATTR(w, "xml:lang", xhtml_book_lang(e->book, e->opts));
  START(w, "head");
  char d[16], total[16], maxnum[16];
  g_snprintf(d, sizeof d, "%d", depth > 0 ? depth : 1);
  /* the print pages (the page-list nav's, for EPUB 2 reading systems):
   * arabic labels are normal pages with their number as value, others
   * (roman front matter) front pages */
  const GArray *pages = xhtml_writer_pages(e->x);
  long maxpage = 0;
  for (guint i = 0; i < pages->len; i++)
    maxpage = MAX(maxpage, page_value(g_array_index(pages, XhtmlPage, i).label));
  g_snprintf(total, sizeof total, "%u", pages->len);
  g_snprintf(maxnum, sizeof maxnum, "%ld", maxpage);
  const char *metas[][2] = {{"dtb:uid", e->identifier},
                            {"dtb:depth", d},
                            {"dtb:totalPageCount", total},
                            {"dtb:maxPageNumber", maxnum}};
  for (size_t i = 0; i < G_N_ELEMENTS(metas); i++) {
    START(w, "meta");
    ATTR(w, "name", metas[i][0]);
    ATTR(w, "content", metas[i][1]);
    END(w);
  }
  END(w);
  START(w, "docTitle");
  elem(w, "text", e->book->meta.title);
  END(w);
  /* The navMap was written by libxml2 (escaped): splice it in as is. */
  xmlTextWriterWriteRaw(w, xmlBufferContent(tbuf));
  if (pages->len) {
    START(w, "pageList");
    START(w, "navLabel");
    elem(w, "text", labels_get(xhtml_book_lang(e->book, e->opts), LABEL_PRINT_PAGES));
    END(w);
    for (guint i = 0; i < pages->len; i++) {
      const XhtmlPage *p = &g_array_index(pages, XhtmlPage, i);
      char id[64];
      long v = page_value(p->label);
      bool normal = v > 0;
      g_snprintf(id, sizeof id, "pt-%s", p->id);
      char *file = xhtml_chapter_href(p->chapter);
      char *href = g_strdup_printf("%s#%s", file, p->id);
      START(w, "pageTarget");
      ATTR(w, "id", id);
      ATTR(w, "type", normal ? "normal" : "front");
      if (normal) {
        char val[24];
        g_snprintf(val, sizeof val, "%ld", v);
        ATTR(w, "value", val);
      }
      START(w, "navLabel");
      elem(w, "text", p->label ? p->label : "");
      END(w);
      START(w, "content");
      ATTR(w, "src", href);
      END(w);
      END(w); /* pageTarget */
      g_free(href);
      g_free(file);
    }
    END(w); /* pageList */
  }
  END(w);
  xmlBufferFree(tbuf);
  return wr_close(w, buf);
}

static bool valid_w3cdtf(const char *s)
{
  return s && g_regex_match_simple("^[0-9]{4}(-[0-9]{2}(-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?(Z|"
                                   "[+-][0-9]{2}:[0-9]{2}))?)?)?$",
                                   s, 0, 0);
}

static char *opf_document(Epub *e)
{
  const BookMeta *m = &e->book->meta;
  const char *lang = xhtml_book_lang(e->book, e->opts);
  bool pages = xhtml_writer_pages(e->x)->len > 0;
  xmlBufferPtr buf;
  xmlTextWriterPtr w = wr_open(&buf);
  START(w, "package");
  ATTR(w, "xmlns", "http://www.idpf.org/2007/opf");
  ATTR(w, "version", "3.0");
  ATTR(w, "unique-identifier", "uid");
  ATTR(w, "xml:lang", lang);
  START(w, "metadata");
  ATTR(w, "xmlns:dc", "http://purl.org/dc/elements/1.1/");
  START(w, "dc:identifier");
  ATTR(w, "id", "uid");
  TEXT(w, e->identifier);
  END(w);
  elem(w, "dc:title", m->title);
  for (guint i = 0; i < m->authors->len; i++) {
    char id[32];
    g_snprintf(id, sizeof id, "creator-%u", i + 1);
    START(w, "dc:creator");
    ATTR(w, "id", id);
    TEXT(w, m->authors->pdata[i]);
    END(w);
    char ref[40];
    g_snprintf(ref, sizeof ref, "#%s", id);
    START(w, "meta");
    ATTR(w, "refines", ref);
    ATTR(w, "property", "role");
    ATTR(w, "scheme", "marc:relators");
    TEXT(w, "aut");
    END(w);
  }
  elem(w, "dc:language", lang);
  if (valid_w3cdtf(m->date))
    elem(w, "dc:date", m->date);
  else if (m->date && *m->date)
    book_diag(e->book, BOOK_WARNING, NULL,
              "date '%s' is not YYYY[-MM[-DD]]: the EPUB has no dc:date", m->date);
  if (m->publisher && *m->publisher)
    elem(w, "dc:publisher", m->publisher);
  if (m->description && *m->description)
    elem(w, "dc:description", m->description);
  for (guint i = 0; i < m->subjects->len; i++)
    elem(w, "dc:subject", m->subjects->pdata[i]);
  if (m->rights && *m->rights)
    elem(w, "dc:rights", m->rights);
  if (m->source && *m->source && !pages)
    elem(w, "dc:source", m->source);

  GDateTime *dt = g_date_time_new_from_unix_utc(e->time);
  char *modified = g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ");
  g_date_time_unref(dt);
  START(w, "meta");
  ATTR(w, "property", "dcterms:modified");
  TEXT(w, modified);
  END(w);
  g_free(modified);

  /* The rendition defaults, said outright: a reflowable book, any
   * orientation, spreads as the reader likes. Without rendition:layout
   * epub.js 0.3 asks for Apple's display-options file to learn it. */
  const char *rendition[][2] = {{"rendition:layout", "reflowable"},
                                {"rendition:orientation", "auto"},
                                {"rendition:spread", "auto"}};
  for (size_t i = 0; i < G_N_ELEMENTS(rendition); i++) {
    START(w, "meta");
    ATTR(w, "property", rendition[i][0]);
    TEXT(w, rendition[i][1]);
    END(w);
  }

  /* EPUB Accessibility 1.1. */
  const char *a11y[16][2];
  int na = 0;
  a11y[na][0] = "schema:accessMode", a11y[na++][1] = "textual";
  if (e->has_images)
    a11y[na][0] = "schema:accessMode", a11y[na++][1] = "visual";
  if (!e->has_images || e->all_alt)
    a11y[na][0] = "schema:accessModeSufficient", a11y[na++][1] = "textual";
  if (e->has_images)
    a11y[na][0] = "schema:accessModeSufficient", a11y[na++][1] = "textual,visual";
  a11y[na][0] = "schema:accessibilityFeature", a11y[na++][1] = "structuralNavigation";
  a11y[na][0] = "schema:accessibilityFeature", a11y[na++][1] = "tableOfContents";
  a11y[na][0] = "schema:accessibilityFeature", a11y[na++][1] = "readingOrder";
  if (e->has_images && e->all_alt)
    a11y[na][0] = "schema:accessibilityFeature", a11y[na++][1] = "alternativeText";
  if (pages)
    a11y[na][0] = "schema:accessibilityFeature", a11y[na++][1] = "printPageNumbers";
  a11y[na][0] = "schema:accessibilityHazard", a11y[na++][1] = "none";
  for (int i = 0; i < na; i++) {
    START(w, "meta");
    ATTR(w, "property", a11y[i][0]);
    TEXT(w, a11y[i][1]);
    END(w);
  }
  GString *sum =
      g_string_new("A reflowable text with a table of contents, headings that mark its structure, "
                   "and a reading order that follows the source");
  if (e->has_images)
    g_string_append(sum, e->all_alt ? "; every image has a text alternative"
                                    : "; some images lack a text alternative");
  if (pages)
    g_string_append(sum, "; page breaks and a page list follow the print edition");
  g_string_append(sum, ". No known hazards.");
  START(w, "meta");
  ATTR(w, "property", "schema:accessibilitySummary");
  TEXT(w, sum->str);
  END(w);
  g_string_free(sum, TRUE);
  /* The conformance claim (EPUB Accessibility 1.1, section 5.1), made only
   * when octavo can stand behind it: every image has a text alternative
   * (the rest, structure, language, navigation, reading order and
   * contrast, octavo writes the same for every book). The party that
   * claims it is the publisher when the book names one, else octavo, whose
   * writers are what the claim rests on. */
  if (!e->has_images || e->all_alt) {
    START(w, "meta");
    ATTR(w, "property", "dcterms:conformsTo");
    TEXT(w, "EPUB Accessibility 1.1 - WCAG 2.1 Level AA");
    END(w);
    START(w, "meta");
    ATTR(w, "property", "a11y:certifiedBy");
    TEXT(w, m->publisher && *m->publisher ? m->publisher : "octavo");
    END(w);
  }
  if (pages) {
    /* The print edition the page list follows: EPUB 3.2's source-of
     * pagination on a dc:source. EPUB Accessibility 1.1's
     * a11y:pageBreakSource is what newer checkers want, but EPUBCheck 4.2
     * reports it as an undefined property (OPF-027), under any prefix. */
    char *src = m->source && *m->source ? g_strdup(m->source)
                                        : g_strdup_printf("%s (print edition, PDF)", e->identifier);
    START(w, "dc:source");
    ATTR(w, "id", "print-source");
    TEXT(w, src);
    END(w);
    START(w, "meta");
    ATTR(w, "refines", "#print-source");
    ATTR(w, "property", "source-of");
    TEXT(w, "pagination");
    END(w);
    g_free(src);
  }
  if (e->cover_href) {
    START(w, "meta");
    ATTR(w, "name", "cover");
    ATTR(w, "content", "cover-image");
    END(w);
  }
  END(w); /* metadata */

  START(w, "manifest");
  for (guint i = 0; i < e->items->len; i++) {
    const Item *it = &g_array_index(e->items, Item, i);
    START(w, "item");
    ATTR(w, "id", it->id);
    ATTR(w, "href", it->href);
    ATTR(w, "media-type", it->media_type);
    if (it->properties)
      ATTR(w, "properties", it->properties);
    END(w);
  }
  END(w);
  START(w, "spine");
  ATTR(w, "toc", "ncx");
  for (guint i = 0; i < e->spine->len; i++) {
    START(w, "itemref");
    ATTR(w, "idref", e->spine->pdata[i]);
    END(w);
  }
  END(w);
  END(w); /* package */
  return wr_close(w, buf);
}

static char *container_document(void)
{
  xmlBufferPtr buf;
  xmlTextWriterPtr w = wr_open(&buf);
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
  return wr_close(w, buf);
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
  xmlTextWriterPtr w = wr_open(&buf);
  START(w, "display_options");
  START(w, "platform");
  ATTR(w, "name", "*");
  START(w, "option");
  ATTR(w, "name", "specified-fonts");
  TEXT(w, "true");
  END(w);
  END(w);
  END(w);
  return wr_close(w, buf);
}

/* ---- fonts ---- */

static void add_codepoints(GHashTable *set, const char *s)
{
  for (const char *p = s; p && *p; p = g_utf8_next_char(p)) {
    gunichar c = g_utf8_get_char_validated(p, -1);
    if (c == (gunichar)-1 || c == (gunichar)-2)
      break;
    g_hash_table_add(set, GUINT_TO_POINTER(c));
  }
}

static gint cmp_unichar(gconstpointer a, gconstpointer b)
{
  gunichar x = *(const gunichar *)a, y = *(const gunichar *)b;
  return x < y ? -1 : x > y;
}

static GArray *sorted_set(GHashTable *set)
{
  GArray *a = g_array_new(FALSE, FALSE, sizeof(gunichar));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init(&it, set);
  while (g_hash_table_iter_next(&it, &k, NULL)) {
    gunichar c = GPOINTER_TO_UINT(k);
    g_array_append_val(a, c);
  }
  g_array_sort(a, cmp_unichar);
  return a;
}

/* The characters set in code (monospace) across the book. */
static void code_codepoints(Book *b, GHashTable *set)
{
  for (guint pass = 0; pass < 2; pass++) {
    guint n = pass == 0 ? b->chapters->len : b->footnotes->len;
    for (guint i = 0; i < n; i++) {
      BookNode *root = pass == 0 ? ((BookChapter *)b->chapters->pdata[i])->root
                                 : ((BookFootnote *)b->footnotes->pdata[i])->def;
      BookIter it;
      book_iter_init(&it, root);
      BookIterEvent ev;
      while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE)
        if (ev == BOOK_ITER_ENTER && (it.cur->type == BOOK_CODE || it.cur->type == BOOK_CODE_BLOCK))
          add_codepoints(set, it.cur->text);
    }
  }
}

/* Subset and add the fonts; append their @font-face rules to css. The text
 * set holds every character of the content documents. */
static bool add_fonts(Epub *e, GHashTable *text_set, GString *css)
{
  GHashTable *mono_set = g_hash_table_new(g_direct_hash, g_direct_equal);
  code_codepoints(e->book, mono_set);
  /* Always: printable ASCII and the punctuation the writers add. */
  const char *always = "\u00a0\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u2022\u2191";
  for (gunichar c = 0x20; c < 0x7f; c++) {
    g_hash_table_add(text_set, GUINT_TO_POINTER(c));
    g_hash_table_add(mono_set, GUINT_TO_POINTER(c));
  }
  add_codepoints(text_set, always);
  add_codepoints(mono_set, always);
  GArray *all_text = sorted_set(text_set), *all_mono = sorted_set(mono_set);
  /* The book's faces get the characters they draw (Charis SIL not its few
   * Greek letters: fonts/fallback.conf); the fallback faces the rest. */
  const GArray *all = fonts_faces(e->fonts);
  const char *text_family = NULL, *mono_family = NULL;
  for (guint i = 0; i < all->len; i++) {
    const FontsFace *f = &g_array_index(all, FontsFace, i);
    if (f->mono && !mono_family)
      mono_family = f->family;
    else if (!f->mono && !text_family)
      text_family = f->family;
  }
  GArray *text_cps = g_array_new(FALSE, FALSE, sizeof(gunichar));
  GArray *mono_cps = g_array_new(FALSE, FALSE, sizeof(gunichar));
  GArray *files = g_array_new(FALSE, TRUE, sizeof(FontstackFile));
  GString *fb_faces = g_string_new(NULL), *stacks = g_string_new(NULL);
  bool ok = fontstack_build(e->book, e->fonts, text_family ? text_family : "serif",
                            mono_family ? mono_family : "monospace", all_text, all_mono, text_cps,
                            mono_cps, files, fb_faces, stacks);
  g_array_free(all_text, TRUE);
  g_array_free(all_mono, TRUE);
  GString *faces =
      g_string_new("/* Fonts: Charis SIL and DejaVu Sans Mono, subset to this book's characters "
                   "(SIL Open Font License; Bitstream Vera license). */\n");
  if (files->len)
    g_string_append_printf(
        faces,
        "/* Fallback faces for the characters they lack, subset likewise, each when "
        "its subset is at most %d KB (Noto: SIL Open Font License; Symbola: free "
        "for any use). */\n",
        FONTSTACK_MAX_BYTES / 1024);
  size_t n = 0;
  /* Every face of the text, and the upright regular face of the code
   * (code is set in it alone). */
  for (guint i = 0; i < all->len && ok; i++) {
    const FontsFace *f = &g_array_index(all, FontsFace, i);
    if (f->mono && (f->italic || f->weight != 400))
      continue;
    GError *err = NULL;
    GBytes *font = subset_font_file(f->path, f->mono ? mono_cps : text_cps, &err);
    if (!font) {
      book_diag(e->book, BOOK_ERROR, NULL, "%s", err->message);
      g_error_free(err);
      ok = false;
    } else {
      char *file = g_path_get_basename(f->path);
      char *name = g_strdup_printf("EPUB/fonts/%s", file);
      char *href = g_strdup_printf("fonts/%s", file);
      char id[32];
      g_snprintf(id, sizeof id, "font-%zu", ++n);
      add_entry(e, name, font);
      add_item(e, id, href, "font/ttf", NULL);
      g_string_append_printf(
          faces,
          "@font-face {\n  font-family: \"%s\";\n  font-style: %s;\n  font-weight: %d;\n"
          "  src: url(\"../%s\") format(\"truetype\");\n}\n",
          f->family, f->italic ? "italic" : "normal", f->weight, href);
      g_free(name);
      g_free(href);
      g_free(file);
    }
  }
  for (guint i = 0; i < files->len; i++) {
    FontstackFile *f = &g_array_index(files, FontstackFile, i);
    char *name = g_strdup_printf("EPUB/fonts/%s", f->file);
    char *href = g_strdup_printf("fonts/%s", f->file);
    char id[32];
    g_snprintf(id, sizeof id, "font-%zu", ++n);
    add_entry(e, name, g_bytes_ref(f->data));
    add_item(e, id, href, f->media_type, NULL);
    g_free(name);
    g_free(href);
    fontstack_file_clear(f);
  }
  g_array_free(files, TRUE);
  g_string_append(faces, fb_faces->str);
  g_string_prepend(css, faces->str);
  /* after the stylesheet's own font-family, which names the book's faces
   * alone; before a stylesheet of --css, whose choice wins */
  if (e->opts->css)
    g_string_prepend(css, stacks->str);
  else
    g_string_append(css, stacks->str);
  g_string_free(faces, TRUE);
  g_string_free(fb_faces, TRUE);
  g_string_free(stacks, TRUE);
  g_array_free(text_cps, TRUE);
  g_array_free(mono_cps, TRUE);
  g_hash_table_destroy(mono_set);
  return ok;
}

/* ---- images ---- */

/* Parse an SVG without network or entity substitution and write it back
 * without its DOCTYPE, entity references, processing instructions, scripts,
 * event handlers and references to outside files. NULL when it is not a
 * well-formed SVG. */
/* The node after n in pre-order within root (into n's children when
 * descend), or NULL. */
static xmlNodePtr svg_next(xmlNodePtr n, xmlNodePtr root, bool descend)
{
  if (descend && n->type == XML_ELEMENT_NODE && n->children)
    return n->children;
  while (n && n != root && !n->next)
    n = n->parent;
  return n && n != root ? n->next : NULL;
}

static bool svg_url_ok(const xmlChar *v, bool hyperlink)
{
  const char *s = (const char *)v;
  if (s[0] == '#')
    return true;
  if (hyperlink)
    return g_str_has_prefix(s, "http://") || g_str_has_prefix(s, "https://");
  return g_str_has_prefix(s, "data:");
}

/* Event handlers, attributes made of entity references, and references to
 * files outside the image (only hyperlinks may go to the web). */
static void clean_svg_attrs(xmlNodePtr n)
{
  bool hyperlink = xmlStrcmp(n->name, BAD_CAST "a") == 0;
  for (xmlAttrPtr a = n->properties, an; a; a = an) {
    an = a->next;
    bool bad = g_ascii_strncasecmp((const char *)a->name, "on", 2) == 0;
    for (xmlNodePtr c = a->children; c && !bad; c = c->next)
      bad = c->type == XML_ENTITY_REF_NODE;
    if (!bad && xmlStrcmp(a->name, BAD_CAST "href") == 0) {
      xmlChar *v = xmlNodeGetContent((xmlNodePtr)a);
      bad = !v || !svg_url_ok(v, hyperlink);
      xmlFree(v);
    }
    if (bad)
      xmlRemoveProp(a);
  }
}

static GBytes *clean_svg(const char *data, gsize len)
{
  xmlDocPtr doc = xmlReadMemory(data, (int)len, NULL, NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc)
    return NULL;
  xmlNodePtr root = xmlDocGetRootElement(doc);
  if (!root || xmlStrcmp(root->name, BAD_CAST "svg") != 0) {
    xmlFreeDoc(doc);
    return NULL;
  }
  /* Iterative pre-order walk of the root element's subtree. */
  xmlNodePtr n = root;
  while (n) {
    bool drop =
        n != root && (n->type == XML_ENTITY_REF_NODE || n->type == XML_PI_NODE ||
                      (n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, BAD_CAST "script") == 0));
    if (drop) {
      xmlNodePtr next = svg_next(n, root, false);
      xmlUnlinkNode(n);
      xmlFreeNode(n);
      n = next;
      continue;
    }
    if (n->type == XML_ELEMENT_NODE)
      clean_svg_attrs(n);
    n = svg_next(n, root, true);
  }
  /* Then the DOCTYPE with its entity declarations, and PIs before or after
   * the root (xml-stylesheet would fetch an outside file). */
  for (xmlNodePtr c = doc->children, nx; c; c = nx) {
    nx = c->next;
    if (c->type == XML_PI_NODE || c->type == XML_DTD_NODE) {
      xmlUnlinkNode(c);
      xmlFreeNode(c);
    }
  }
  doc->intSubset = NULL;
  xmlChar *out = NULL;
  int outlen = 0;
  xmlDocDumpMemoryEnc(doc, &out, &outlen, "UTF-8");
  xmlFreeDoc(doc);
  if (!out)
    return NULL;
  GBytes *b = g_bytes_new(out, (gsize)outlen);
  xmlFree(out);
  return b;
}

static bool add_images(Epub *e)
{
  Book *b = e->book;
  for (guint i = 0; i < b->resources->len; i++) {
    BookResource *r = b->resources->pdata[i];
    char *data = NULL;
    gsize len = 0;
    GError *err = NULL;
    if (!g_file_get_contents(r->path, &data, &len, &err)) {
      book_diag(b, BOOK_ERROR, NULL, "cannot read image %s: %s", r->path, err->message);
      g_error_free(err);
      return false;
    }
    GBytes *bytes;
    if (g_strcmp0(r->media_type, "image/svg+xml") == 0) {
      bytes = clean_svg(data, len);
      g_free(data);
      if (!bytes) {
        book_diag(b, BOOK_ERROR, NULL, "%s: not a well-formed SVG image", r->path);
        return false;
      }
    } else {
      bytes = g_bytes_new_take(data, len);
    }
    char *name = g_strconcat("EPUB/", r->href, NULL);
    char id[32];
    g_snprintf(id, sizeof id, "img-%u", i + 1);
    add_entry(e, name, bytes);
    add_item(e, id, r->href, r->media_type, NULL);
    g_free(name);
  }
  return true;
}

/* Whether the book has images, and whether each has a text alternative. */
static void survey_images(Epub *e)
{
  Book *b = e->book;
  e->has_images = false;
  e->all_alt = true;
  for (guint i = 0; i < b->chapters->len; i++) {
    BookIter it;
    book_iter_init(&it, ((BookChapter *)b->chapters->pdata[i])->root);
    BookIterEvent ev;
    while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE) {
      if (ev != BOOK_ITER_ENTER || it.cur->type != BOOK_IMAGE || !it.cur->as.image.res)
        continue;
      e->has_images = true;
      GString *alt = g_string_new(NULL);
      book_node_text(it.cur, alt);
      g_strstrip(alt->str);
      if (!*alt->str)
        e->all_alt = false;
      g_string_free(alt, TRUE);
    }
  }
}

/* ---- the cover ---- */

/* The cover image: -M cover=FILE (PNG or JPEG, in the first input's
 * directory or below it, symbolic links resolved), else octavo's typographic cover drawn by
 * cover.c, the face the PDF opens on. Sets *media_type and the size in
 * pixels (0 when the file does not say). NULL (with a warning) when there
 * is none. */
static GBytes *cover_image(Epub *e, const char **media_type, int *width, int *height)
{
  Book *b = e->book;
  const char *given = b->meta.cover;
  if (given && *given) {
    const char *src = b->chapters->len ? ((BookChapter *)b->chapters->pdata[0])->source : NULL;
    char *dir = src && strcmp(src, "-") != 0 ? g_path_get_dirname(src) : g_strdup(".");
    char *path = g_path_is_absolute(given) ? g_strdup(given) : g_build_filename(dir, given, NULL);
    char *lower = g_ascii_strdown(given, -1);
    const char *type = g_str_has_suffix(lower, ".png") ? "image/png"
                       : g_str_has_suffix(lower, ".jpg") || g_str_has_suffix(lower, ".jpeg")
                           ? "image/jpeg"
                           : NULL;
    char *data = NULL;
    gsize len = 0;
    GBytes *bytes = NULL;
    char *real_dir = realpath(dir, NULL), *real = realpath(path, NULL);
    bool inside =
        real_dir && real && g_str_has_prefix(real, real_dir) && real[strlen(real_dir)] == '/';
    free(real_dir);
    free(real);
    if (g_file_test(path, G_FILE_TEST_EXISTS) && !inside) {
      book_diag(b, BOOK_WARNING, NULL, "cover %s: a path outside the input's directory is refused",
                given);
    } else if (!type) {
      book_diag(b, BOOK_WARNING, NULL, "cover %s: not a PNG or JPEG file; using octavo's cover",
                given);
    } else if (!g_file_get_contents(path, &data, &len, NULL)) {
      book_diag(b, BOOK_WARNING, NULL, "cover %s not found; using octavo's cover", path);
    } else {
      bytes = g_bytes_new_take(data, len);
      *media_type = type;
      if (book_image_probe(path, width, height) == BOOK_IMAGE_NONE)
        *width = *height = 0;
    }
    g_free(lower);
    g_free(path);
    g_free(dir);
    if (bytes)
      return bytes;
  }
  if (!e->fonts) {
    book_diag(b, BOOK_WARNING, NULL, "no cover: no fonts to draw it");
    return NULL;
  }
  GError *err = NULL;
  GBytes *png = cover_png(b, e->fonts, &e->style->cover, COVER_W, COVER_H, &err);
  if (!png) {
    book_diag(b, BOOK_WARNING, NULL, "no cover: %s", err->message);
    g_error_free(err);
    return NULL;
  }
  *media_type = "image/png";
  *width = COVER_W;
  *height = COVER_H;
  return png;
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

/* The identifier names the content: the title page and the chapters'
 * bodies without print page breaks, and the resources' names, so that it
 * depends neither on the pagination nor on the fonts. */
char *epub_identifier(Book *book, const OctavoOptions *opts)
{
  if (book->meta.identifier && *book->meta.identifier)
    return g_strdup(book->meta.identifier);
  GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA1);
  XhtmlWriter *x = xhtml_writer_new(book, opts, NULL);
  g_checksum_update(sum, (const guchar *)"octavo-epub\0", 12);
  char *title = xhtml_title_document(x, CSS_HREF);
  g_checksum_update(sum, (const guchar *)title, -1);
  g_free(title);
  xhtml_writer_free(x);
  GString *frag = g_string_new(NULL);
  xhtml_fragment(book, opts, frag);
  g_checksum_update(sum, (const guchar *)frag->str, (gssize)frag->len);
  g_string_free(frag, TRUE);
  for (guint i = 0; i < book->resources->len; i++)
    g_checksum_update(sum, (const guchar *)((BookResource *)book->resources->pdata[i])->href, -1);
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
                               store ? 0 : 9) < 0)
    return false;
  if (zip_file_set_dostime(za, (zip_uint64_t)idx, dt, dd, 0) < 0)
    return false;
  return true;
}

static bool write_zip(Epub *e, const char *path)
{
  GError *err = NULL;
  char *tmp = util_temp_beside(path, &err);
  if (!tmp) {
    book_diag(e->book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
    return false;
  }
  int zerr = 0;
  zip_t *za = zip_open(tmp, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
  if (!za) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, zerr);
    book_diag(e->book, BOOK_ERROR, NULL, "cannot write %s: %s", path, zip_error_strerror(&ze));
    zip_error_fini(&ze);
    unlink(tmp);
    g_free(tmp);
    return false;
  }
  zip_uint16_t dt, dd;
  dos_time(e->time, &dt, &dd);
  static const char mimetype[] = "application/epub+zip";
  GBytes *mt = g_bytes_new_static(mimetype, sizeof mimetype - 1);
  bool ok = put_entry(e, za, "mimetype", mt, true, dt, dd);
  for (guint i = 0; ok && i < e->entries->len; i++) {
    Entry *en = &g_array_index(e->entries, Entry, i);
    ok = put_entry(e, za, en->name, en->data, false, dt, dd);
  }
  if (ok && zip_close(za) < 0)
    ok = false;
  if (!ok) {
    book_diag(e->book, BOOK_ERROR, NULL, "cannot write %s: %s",
              strcmp(path, "-") == 0 ? "standard output" : path, zip_strerror(za));
    zip_discard(za);
    unlink(tmp);
  }
  g_bytes_unref(mt);
  if (ok && !util_commit(tmp, path, &err)) {
    book_diag(e->book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
    ok = false;
  }
  g_free(tmp);
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

bool epub_write(Book *book, const Style *style, const Fonts *fonts, const OctavoOptions *opts,
                const GArray *page_marks, const char *path)
{
  Epub e = {0};
  e.book = book;
  e.style = style;
  e.fonts = fonts;
  e.opts = opts;
  e.entries = g_array_new(FALSE, TRUE, sizeof(Entry));
  e.items = g_array_new(FALSE, TRUE, sizeof(Item));
  e.spine = g_ptr_array_new();
  e.x = xhtml_writer_new(book, opts, opts->page_list ? page_marks : NULL);
  e.time = util_build_time(book->meta.date);
  bool ok = true;
  GHashTable *text_set = g_hash_table_new(g_direct_hash, g_direct_equal);
  GArray *toc = NULL;
  char *css = read_css(&e);
  if (!css) {
    ok = false;
    goto out;
  }
  survey_images(&e);

  char *title = xhtml_title_document(e.x, CSS_HREF);
  add_codepoints(text_set, title);
  GArray *docs = g_array_new(FALSE, TRUE, sizeof(Entry));
  for (guint i = 0; i < book->chapters->len; i++) {
    BookChapter *c = book->chapters->pdata[i];
    char *doc = xhtml_chapter_document(e.x, c, CSS_HREF);
    add_codepoints(text_set, doc);
    char *href = xhtml_chapter_href(c);
    Entry d = {href, g_bytes_new_take(doc, strlen(doc))};
    g_array_append_val(docs, d);
    if (i == 0)
      e.first_chapter_href = g_strdup(href);
  }
  e.identifier = epub_identifier(book, opts);

  /* The cover, before the navigation that lists it. */
  const char *cover_type = NULL;
  int cover_w = 0, cover_h = 0;
  GBytes *cover = cover_image(&e, &cover_type, &cover_w, &cover_h);
  const char *cover_file =
      cover && strcmp(cover_type, "image/jpeg") == 0 ? "cover.jpg" : "cover.png";
  if (cover)
    e.cover_href = g_strdup("cover.xhtml");

  /* The colophon, the last spine item: it names the identifier, so it is
   * not part of what the identifier hashes. It names the typefaces the
   * e-book embeds (none with --no-embed-fonts). */
  Colophon *colophon = colophon_new(book, xhtml_book_lang(book, opts), e.identifier, e.time,
                                    opts->embed_fonts ? fonts : NULL);
  char *colophon_doc = xhtml_colophon_document(e.x, CSS_HREF, colophon);
  colophon_free(colophon);
  add_codepoints(text_set, colophon_doc);

  toc = toc_entries(&e);
  for (guint i = 0; i < toc->len; i++)
    add_codepoints(text_set, g_array_index(toc, TocEntry, i).label);
  for (int l = 0; l < LABEL_COUNT; l++)
    add_codepoints(text_set, labels_get(xhtml_book_lang(book, opts), (LabelId)l));

  /* Manifest and entries in a fixed order. */
  add_entry_str(&e, "META-INF/container.xml", container_document());
  add_entry_str(&e, "META-INF/com.apple.ibooks.display-options.xml", apple_display_options());
  Entry opf_slot = {g_strdup("EPUB/package.opf"), NULL};
  g_array_append_val(e.entries, opf_slot);
  guint opf_index = e.entries->len - 1;
  add_entry_str(&e, "EPUB/nav.xhtml", nav_document(&e, toc));
  add_item(&e, "nav", "nav.xhtml", "application/xhtml+xml", "nav");
  add_entry_str(&e, "EPUB/toc.ncx", ncx_document(&e, toc));
  add_item(&e, "ncx", "toc.ncx", "application/x-dtbncx+xml", NULL);
  if (cover) {
    add_entry_str(&e, "EPUB/cover.xhtml",
                  xhtml_cover_document(e.x, CSS_HREF, cover_file, cover_w, cover_h));
    add_item(&e, "cover", "cover.xhtml", "application/xhtml+xml",
             cover_w > 0 && cover_h > 0 ? "svg" : NULL);
    g_ptr_array_add(e.spine, "cover");
  }
  add_entry_str(&e, "EPUB/title.xhtml", title);
  add_item(&e, "titlepage", "title.xhtml", "application/xhtml+xml", NULL);
  g_ptr_array_add(e.spine, "titlepage");
  g_ptr_array_add(e.spine, "nav");
  for (guint i = 0; i < docs->len; i++) {
    Entry *d = &g_array_index(docs, Entry, i);
    char *name = g_strconcat("EPUB/", d->name, NULL);
    add_entry(&e, name, d->data);
    char id[32];
    g_snprintf(id, sizeof id, "ch-%u", i + 1);
    Item *it = add_item(&e, id, d->name, "application/xhtml+xml", NULL);
    g_ptr_array_add(e.spine, it->id);
    g_free(name);
    g_free(d->name);
  }
  g_array_free(docs, TRUE);
  add_entry_str(&e, "EPUB/colophon.xhtml", colophon_doc);
  add_item(&e, "colophon", "colophon.xhtml", "application/xhtml+xml", NULL);
  g_ptr_array_add(e.spine, "colophon");

  /* The stylesheet, then the fonts its @font-face rules name. */
  Entry css_slot = {g_strdup("EPUB/" CSS_HREF), NULL};
  g_array_append_val(e.entries, css_slot);
  guint css_index = e.entries->len - 1;
  add_item(&e, "css", CSS_HREF, "text/css", NULL);
  GString *sheet = g_string_new(css);
  if (opts->embed_fonts && !fonts)
    book_diag(book, BOOK_WARNING, NULL, "no fonts to embed; the EPUB goes without them");
  if (opts->embed_fonts && fonts && !add_fonts(&e, text_set, sheet))
    ok = false;
  g_array_index(e.entries, Entry, css_index).data = g_bytes_new(sheet->str, sheet->len);
  g_string_free(sheet, TRUE);
  if (cover) {
    char *name = g_strconcat("EPUB/", cover_file, NULL);
    add_entry(&e, name, cover);
    add_item(&e, "cover-image", cover_file, cover_type, "cover-image");
    g_free(name);
    cover = NULL;
  }
  if (ok && !add_images(&e))
    ok = false;
  if (!ok)
    goto out;

  char *opf = opf_document(&e);
  g_array_index(e.entries, Entry, opf_index).data = g_bytes_new_take(opf, strlen(opf));
  ok = write_zip(&e, path);

out:
  for (guint i = 0; i < e.entries->len; i++) {
    Entry *en = &g_array_index(e.entries, Entry, i);
    g_free(en->name);
    if (en->data)
      g_bytes_unref(en->data);
  }
  g_array_free(e.entries, TRUE);
  for (guint i = 0; i < e.items->len; i++) {
    Item *it = &g_array_index(e.items, Item, i);
    g_free(it->id);
    g_free(it->href);
    g_free(it->media_type);
    g_free(it->properties);
  }
  g_array_free(e.items, TRUE);
  g_ptr_array_free(e.spine, TRUE);
  if (toc)
    toc_free(toc);
  g_hash_table_destroy(text_set);
  xhtml_writer_free(e.x);
  g_free(e.identifier);
  g_free(e.first_chapter_href);
  g_free(e.cover_href);
  g_free(css);
  return ok;
}
