/* epub_opf.c: the package document (EPUB/package.opf): the metadata
 * (Dublin Core, rendition, EPUB Accessibility 1.1, the print edition the
 * page list follows), the manifest and the spine, from what epub.c has
 * gathered in the Epub. */
#include "epub_internal.h"
#include "labels.h"

static bool valid_w3cdtf(const char *s)
{
  return s && g_regex_match_simple("^[0-9]{4}(-[0-9]{2}(-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?(Z|"
                                   "[+-][0-9]{2}:[0-9]{2}))?)?)?$",
                                   s, 0, 0);
}

/* <meta property="name">value</meta> */
static void meta_property(xmlTextWriterPtr w, const char *property, const char *value)
{
  START(w, "meta");
  ATTR(w, "property", property);
  TEXT(w, value);
  END(w);
}

/* The identifier, title, authors (with their role), language. */
static void opf_names(Epub *e, xmlTextWriterPtr w, const char *lang)
{
  const BookMeta *m = &e->book->meta;
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
}

/* Date, publisher, description, subjects, rights, source (when no page
 * list claims dc:source), and the modification time. */
static void opf_details(Epub *e, xmlTextWriterPtr w, bool pages)
{
  const BookMeta *m = &e->book->meta;
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
  meta_property(w, "dcterms:modified", modified);
  g_free(modified);
}

/* The rendition defaults, said outright: a reflowable book, any
 * orientation, spreads as the reader likes. Without rendition:layout
 * epub.js 0.3 asks for Apple's display-options file to learn it. */
static void opf_rendition(xmlTextWriterPtr w)
{
  const char *rendition[][2] = {{"rendition:layout", "reflowable"},
                                {"rendition:orientation", "auto"},
                                {"rendition:spread", "auto"}};
  for (size_t i = 0; i < G_N_ELEMENTS(rendition); i++)
    meta_property(w, rendition[i][0], rendition[i][1]);
}

/* EPUB Accessibility 1.1: access modes, features, hazards, the summary,
 * and the conformance claim when octavo can stand behind it. */
static void opf_accessibility(Epub *e, xmlTextWriterPtr w, bool pages)
{
  const BookMeta *m = &e->book->meta;
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
  for (int i = 0; i < na; i++)
    meta_property(w, a11y[i][0], a11y[i][1]);
  GString *sum =
      g_string_new("A reflowable text with a table of contents, headings that mark its structure, "
                   "and a reading order that follows the source");
  if (e->has_images)
    g_string_append(sum, e->all_alt ? "; every image has a text alternative"
                                    : "; some images lack a text alternative");
  if (pages)
    g_string_append(sum, "; page breaks and a page list follow the print edition");
  g_string_append(sum, ". No known hazards.");
  meta_property(w, "schema:accessibilitySummary", sum->str);
  g_string_free(sum, TRUE);
  /* The conformance claim (EPUB Accessibility 1.1, section 5.1), made only
   * when octavo can stand behind it: every image has a text alternative
   * (the rest, structure, language, navigation, reading order and
   * contrast, octavo writes the same for every book). The party that
   * claims it is the publisher when the book names one, else octavo, whose
   * writers are what the claim rests on. */
  if (!e->has_images || e->all_alt) {
    meta_property(w, "dcterms:conformsTo", "EPUB Accessibility 1.1 - WCAG 2.1 Level AA");
    meta_property(w, "a11y:certifiedBy", m->publisher && *m->publisher ? m->publisher : "octavo");
  }
}

/* The print edition the page list follows: EPUB 3.2's source-of
 * pagination on a dc:source. EPUB Accessibility 1.1's
 * a11y:pageBreakSource is what newer checkers want, but EPUBCheck 4.2
 * reports it as an undefined property (OPF-027), under any prefix. */
static void opf_print_source(Epub *e, xmlTextWriterPtr w)
{
  const BookMeta *m = &e->book->meta;
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

static void opf_metadata(Epub *e, xmlTextWriterPtr w, const char *lang)
{
  bool pages = xhtml_writer_pages(e->x)->len > 0;
  START(w, "metadata");
  ATTR(w, "xmlns:dc", "http://purl.org/dc/elements/1.1/");
  opf_names(e, w, lang);
  opf_details(e, w, pages);
  opf_rendition(w);
  opf_accessibility(e, w, pages);
  if (pages)
    opf_print_source(e, w);
  if (e->cover_href) {
    START(w, "meta");
    ATTR(w, "name", "cover");
    ATTR(w, "content", "cover-image");
    END(w);
  }
  END(w); /* metadata */
}

static void opf_manifest(Epub *e, xmlTextWriterPtr w)
{
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
}

static void opf_spine(Epub *e, xmlTextWriterPtr w)
{
  START(w, "spine");
  ATTR(w, "toc", "ncx");
  if (e->book->meta.rtl)
    ATTR(w, "page-progression-direction", "rtl");
  for (guint i = 0; i < e->spine->len; i++) {
    START(w, "itemref");
    ATTR(w, "idref", e->spine->pdata[i]);
    END(w);
  }
  END(w);
}

char *ep_opf_document(Epub *e)
{
  const char *lang = xhtml_book_lang(e->book, e->opts);
  xmlBufferPtr buf;
  xmlTextWriterPtr w = ep_wr_open(&buf);
  START(w, "package");
  ATTR(w, "xmlns", "http://www.idpf.org/2007/opf");
  ATTR(w, "version", "3.0");
  ATTR(w, "unique-identifier", "uid");
  ATTR(w, "xml:lang", lang);
  opf_metadata(e, w, lang);
  opf_manifest(e, w);
  opf_spine(e, w);
  END(w); /* package */
  return ep_wr_close(w, buf);
}
