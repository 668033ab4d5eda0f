/* epub_nav.c: the e-book's navigation from the outline (outline.c): the
 * EPUB 3 navigation document (nav.xhtml: contents, landmarks, the print
 * page list) and the NCX (toc.ncx) for EPUB 2 reading systems. Both nest
 * the same entries, at --toc-depth, without recursion. */
#include "epub_internal.h"

#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "outline.h"

/* The contents: the outline's entries at --toc-depth (outline.h), with
 * their depth as the level to nest by. */
GArray *ep_toc_entries(Epub *e)
{
  GArray *toc = g_array_new(FALSE, TRUE, sizeof(TocEntry));
  const char *lang = xhtml_book_lang(e->book, e->opts);
  Outline *o = outline_new(e->book, e->book->chapter_level, e->opts->toc_depth,
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

void ep_toc_free(GArray *toc)
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

/* <head>: the title and the stylesheet. */
static void nav_head(xmlTextWriterPtr w, const char *title)
{
  START(w, "head");
  START(w, "meta");
  ATTR(w, "charset", "utf-8");
  END(w);
  elem(w, "title", title);
  START(w, "link");
  ATTR(w, "rel", "stylesheet");
  ATTR(w, "type", "text/css");
  ATTR(w, "href", CSS_HREF);
  END(w);
  END(w);
}

/* The contents, headed by their title. */
static void nav_toc(xmlTextWriterPtr w, const GArray *toc, const char *contents)
{
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
}

/* The landmarks: cover, title page, contents, start of the text. */
static void nav_landmarks(Epub *e, xmlTextWriterPtr w, const char *lang, const char *contents)
{
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
}

/* The print pages the chapter documents mark (xhtml_writer_pages), if any. */
static void nav_page_list(Epub *e, xmlTextWriterPtr w, const char *lang)
{
  const GArray *pages = xhtml_writer_pages(e->x);
  if (!pages->len)
    return;
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

char *ep_nav_document(Epub *e, const GArray *toc)
{
  const char *lang = xhtml_book_lang(e->book, e->opts);
  const char *contents = labels_get(lang, LABEL_CONTENTS);
  xmlBufferPtr buf;
  xmlTextWriterPtr w = ep_wr_open(&buf);
  xmlTextWriterWriteDTD(w, BAD_CAST "html", NULL, NULL, NULL);
  START(w, "html");
  ATTR(w, "xmlns", "http://www.w3.org/1999/xhtml");
  ATTR(w, "xmlns:epub", "http://www.idpf.org/2007/ops");
  ATTR(w, "xml:lang", lang);
  ATTR(w, "lang", lang);
  if (e->book->meta.rtl)
    ATTR(w, "dir", "rtl");
  else if (labels_rtl(lang)) /* dir metadata against the language's */
    ATTR(w, "dir", "ltr");
  nav_head(w, contents);
  START(w, "body");
  ATTR(w, "epub:type", "frontmatter");
  nav_toc(w, toc, contents);
  nav_landmarks(e, w, lang, contents);
  nav_page_list(e, w, lang);
  END(w); /* body */
  END(w); /* html */
  return ep_wr_close(w, buf);
}

/* The number of a print page whose label is arabic ("7"), or 0 (front
 * matter, "ii"): an NCX pageTarget's value. */
static long page_value(const char *label)
{
  char *end = NULL;
  long v = label && g_ascii_isdigit(*label) ? strtol(label, &end, 10) : 0;
  return end && !*end && v > 0 ? v : 0;
}

/* The NCX's <head>: identifier, depth and the print pages' count and
 * highest number. */
static void ncx_head(Epub *e, xmlTextWriterPtr w, int depth)
{
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
}

/* The print pages as the NCX's pageList, if any. */
static void ncx_page_list(Epub *e, xmlTextWriterPtr w)
{
  const GArray *pages = xhtml_writer_pages(e->x);
  if (!pages->len)
    return;
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

char *ep_ncx_document(Epub *e, const GArray *toc)
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
  xmlTextWriterPtr w = ep_wr_open(&buf);
  START(w, "ncx");
  ATTR(w, "xmlns", "http://www.daisy.org/z3986/2005/ncx/");
  ATTR(w, "version", "2005-1");
  ATTR(w, "xml:lang", xhtml_book_lang(e->book, e->opts));
  ncx_head(e, w, depth);
  START(w, "docTitle");
  elem(w, "text", e->book->meta.title);
  END(w);
  /* The navMap was written by libxml2 (escaped): splice it in as is. */
  xmlTextWriterWriteRaw(w, xmlBufferContent(tbuf));
  ncx_page_list(e, w);
  END(w);
  xmlBufferFree(tbuf);
  return ep_wr_close(w, buf);
}
