/* epub_internal.h: what the files of the EPUB writer share, and nothing
 * outside them (and their unit test) includes; the public API is epub.h.
 *
 *   epub.c        the driver and the container: entries in a fixed order,
 *                 mimetype, META-INF, the identifier, the zip
 *   epub_opf.c    the package document: metadata, manifest, spine
 *   epub_nav.c    the contents from the outline: nav.xhtml and toc.ncx
 *   epub_media.c  what the book carries besides text: subset fonts,
 *                 images (SVG cleaned), the cover image
 *
 * Functions shared between these files carry the prefix ep_. */
#ifndef OCTAVO_EPUB_INTERNAL_H
#define OCTAVO_EPUB_INTERNAL_H

#include <libxml/xmlwriter.h>

#include "coverage.h"
#include "epub.h"
#include "xhtml.h"

#define CSS_HREF "styles/book.css"

typedef struct {
  char *name; /* path in the container */
  GBytes *data;
  bool store; /* written as it is: data compressed already (a PNG, JPEG or GIF) */
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
  char *cover_href;           /* the cover page, or NULL */
  const CoverageChars *chars; /* the characters of the book's text (coverage.h) */
} Epub;

/* One entry of the table of contents. */
typedef struct {
  int level;
  char *label;
  char *href;
  char *number; /* the entry's number under -N (the start of label), or NULL */
} TocEntry;

/* ---- epub.c: entries, manifest, the package documents' writer ---- */

/* Append an entry to the container (takes data) and an item to the
 * manifest (copies the strings; the Item is valid until the next one). */
void ep_add_entry(Epub *e, const char *name, GBytes *data);
/* The same for data deflate would not make smaller (an image compressed
 * already): stored in the container as it is, which saves deflate's time
 * at level 9 on every byte of it. */
void ep_add_entry_stored(Epub *e, const char *name, GBytes *data);
Item *ep_add_item(Epub *e, const char *id, const char *href, const char *media_type,
                  const char *props);

/* A writer of an indented XML document into a new buffer; ep_wr_close
 * ends it and returns the text (caller frees). */
xmlTextWriterPtr ep_wr_open(xmlBufferPtr *buf);
char *ep_wr_close(xmlTextWriterPtr w, xmlBufferPtr buf);

/* Text and attribute values from the book (titles, headings, metadata)
 * pass through xhtml_xml_text: libxml2 escapes, but cannot carry what XML
 * forbids. */
static inline void put_text(xmlTextWriterPtr w, const char *s)
{
  char *c = xhtml_xml_text(s);
  xmlTextWriterWriteString(w, BAD_CAST c);
  g_free(c);
}

static inline void put_attr(xmlTextWriterPtr w, const char *name, const char *value)
{
  char *c = xhtml_xml_text(value);
  xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST c);
  g_free(c);
}

#define START(w, tag) xmlTextWriterStartElement(w, BAD_CAST(tag))
#define END(w) xmlTextWriterEndElement(w)
#define ATTR(w, name, value) put_attr(w, name, value)
#define TEXT(w, s) put_text(w, s)

static inline void elem(xmlTextWriterPtr w, const char *tag, const char *text)
{
  START(w, tag);
  TEXT(w, text);
  xmlTextWriterFullEndElement(w);
}

/* ---- epub_opf.c ---- */

/* The package document (EPUB/package.opf) of e as it stands: metadata
 * (with the accessibility claims), manifest, spine. Caller frees. */
char *ep_opf_document(Epub *e);

/* ---- epub_nav.c ---- */

/* The contents: the outline's entries at --toc-depth (outline.h), with
 * their depth as the level to nest by. Free with ep_toc_free. */
GArray *ep_toc_entries(Epub *e);
void ep_toc_free(GArray *toc);

/* nav.xhtml (contents, landmarks, page list) and toc.ncx (the same for
 * EPUB 2 reading systems). Caller frees. */
char *ep_nav_document(Epub *e, const GArray *toc);
char *ep_ncx_document(Epub *e, const GArray *toc);

/* ---- epub_media.c ---- */

/* Add the characters of s to set (gunichar keys). */
void ep_add_codepoints(GHashTable *set, const char *s);

/* Subset and add the fonts, the book's faces and the fallback faces the
 * book needs (fontstack.c); prepend their @font-face rules to css and add
 * the fallback faces' font stacks. The text set holds every character of
 * the content documents. False with a diagnostic when a font cannot be
 * subset. */
bool ep_add_fonts(Epub *e, GHashTable *text_set, GString *css);

/* Add the book's image resources (SVG cleaned). False with a diagnostic. */
bool ep_add_images(Epub *e);

/* Set e->has_images and e->all_alt. */
void ep_survey_images(Epub *e);

/* The cover image, given or drawn; NULL with a warning (see epub_media.c). */
GBytes *ep_cover_image(Epub *e, const char **media_type, int *width, int *height);

#endif
