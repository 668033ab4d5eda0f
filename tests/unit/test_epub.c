/* test_epub.c: the EPUB package on hand-built models (sample_book.h): the
 * container (mimetype first and stored, reproducible bytes, no file left
 * behind on failure), the package document's metadata, manifest and
 * spine, the navigation (nav.xhtml and toc.ncx) from the outline at
 * --toc-depth, the print page list, and cleaned SVG images. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>
#include <glib/gstdio.h>

#include "book.h"
#include "epub.h"
#include "options.h"

#include "sample_book.h"

static OctavoOptions opts;
static Style style;  /* the default print style (the cover's colours) */
static Fonts *fonts; /* octavo's fonts, loaded once as main.c does */

/* The entry name of the EPUB at path, NUL-terminated, or NULL. */
static char *read_entry(const char *path, const char *name)
{
  int zerr = 0;
  zip_t *za = zip_open(path, ZIP_RDONLY, &zerr);
  assert_non_null(za);
  zip_stat_t st;
  char *out = NULL;
  if (zip_stat(za, name, 0, &st) == 0) {
    out = g_malloc0(st.size + 1);
    zip_file_t *zf = zip_fopen(za, name, 0);
    assert_int_equal(zip_fread(zf, out, st.size), (zip_int64_t)st.size);
    zip_fclose(zf);
  }
  zip_close(za);
  return out;
}

/* Write b as an EPUB with o into a new temporary directory; returns the
 * EPUB's path (free with done()). */
static char *write_epub(Book *b, const OctavoOptions *o, const GArray *marks)
{
  const char *root = getenv("TMPROOT");
  char *tmpl = g_build_filename(root && *root ? root : g_get_tmp_dir(), "epub-XXXXXX", NULL);
  char *dir = g_mkdtemp(tmpl);
  assert_non_null(dir);
  char *path = g_build_filename(dir, "book.epub", NULL);
  g_free(dir);
  assert_true(epub_write(b, &style, fonts, o, marks, path));
  return path;
}

static void done(char *path)
{
  char *dir = g_path_get_dirname(path);
  g_unlink(path);
  g_rmdir(dir);
  g_free(dir);
  g_free(path);
}

/* s holds each of the strings in order. */
static void assert_in_order(const char *s, const char *const *want, size_t n)
{
  const char *at = s;
  for (size_t i = 0; i < n; i++) {
    const char *f = strstr(at, want[i]);
    if (!f)
      print_error("'%s' missing (or out of order) in:\n%s\n", want[i], s);
    assert_non_null(f);
    at = f + strlen(want[i]);
  }
}

static char *tmp_dir(void)
{
  const char *root = getenv("TMPROOT");
  char *tmpl = g_build_filename(root && *root ? root : g_get_tmp_dir(), "epub-XXXXXX", NULL);
  char *d = g_mkdtemp(tmpl);
  assert_non_null(d);
  return d;
}

static void test_epub_container(void **state)
{
  (void)state;
  g_setenv("SOURCE_DATE_EPOCH", "1683763200", TRUE);
  char *dir = tmp_dir();
  char *p1 = g_build_filename(dir, "a.epub", NULL), *p2 = g_build_filename(dir, "b.epub", NULL);
  Book *b = sample_book();
  assert_true(epub_write(b, &style, fonts, &opts, NULL, p1));
  book_free(b);
  b = sample_book();
  assert_true(epub_write(b, &style, fonts, &opts, NULL, p2));
  book_free(b);
  char *d1, *d2;
  gsize l1, l2;
  assert_true(g_file_get_contents(p1, &d1, &l1, NULL));
  assert_true(g_file_get_contents(p2, &d2, &l2, NULL));
  assert_int_equal(l1, l2);
  assert_memory_equal(d1, d2, l1);
  /* mimetype: first, stored, no extra field (local header at offset 0). */
  assert_memory_equal(d1, "PK\3\4", 4);
  assert_int_equal(d1[8] | (d1[9] << 8), 0);   /* method: stored */
  assert_int_equal(d1[26] | (d1[27] << 8), 8); /* name length */
  assert_int_equal(d1[28] | (d1[29] << 8), 0); /* extra length */
  assert_memory_equal(d1 + 30, "mimetypeapplication/epub+zip", 28);
  g_free(d1);
  g_free(d2);

  int zerr = 0;
  zip_t *za = zip_open(p1, ZIP_RDONLY, &zerr);
  assert_non_null(za);
  assert_true(zip_name_locate(za, "EPUB/package.opf", 0) >= 0);
  assert_true(zip_name_locate(za, "EPUB/fonts/CharisSIL-Regular.ttf", 0) >= 0);
  assert_true(zip_name_locate(za, "EPUB/images/img-2.svg", 0) >= 0);
  zip_stat_t st;
  assert_int_equal(zip_stat(za, "EPUB/fonts/CharisSIL-Regular.ttf", 0, &st), 0);
  assert_true(st.size < 200000); /* subset: the whole font is 1 MB */
  zip_close(za);

  /* Without fonts. */
  OctavoOptions o2 = opts;
  o2.embed_fonts = false;
  b = sample_book();
  assert_true(epub_write(b, &style, fonts, &o2, NULL, p2));
  book_free(b);
  za = zip_open(p2, ZIP_RDONLY, &zerr);
  assert_true(zip_name_locate(za, "EPUB/fonts/CharisSIL-Regular.ttf", 0) < 0);
  zip_close(za);

  /* A failure (an image that cannot be read) leaves the old file alone and
   * no temporary file behind. */
  b = sample_book();
  BookResource *r = b->resources->pdata[0];
  g_free(r->path);
  r->path = g_strdup("/nonexistent/diagram.png");
  assert_false(epub_write(b, &style, fonts, &opts, NULL, p2));
  assert_true(book_diag_count(b, BOOK_ERROR) > 0);
  book_free(b);
  za = zip_open(p2, ZIP_RDONLY, &zerr);
  assert_non_null(za); /* still the fontless book */
  zip_close(za);
  GDir *gd = g_dir_open(dir, 0, NULL);
  int files = 0;
  while (g_dir_read_name(gd))
    files++;
  g_dir_close(gd);
  assert_int_equal(files, 2);

  const char *keep = getenv("OCTAVO_KEEP_EPUB");
  if (keep && *keep) {
    char *d;
    gsize l;
    g_file_get_contents(p1, &d, &l, NULL);
    g_file_set_contents(keep, d, (gssize)l, NULL);
    g_free(d);
  }
  g_unlink(p1);
  g_unlink(p2);
  g_rmdir(dir);
  g_free(p1);
  g_free(p2);
  g_free(dir);
}

/* Page marks make a page-list, printPageNumbers and pageBreakSource. */
static void test_epub_page_list(void **state)
{
  (void)state;
  char *dir = tmp_dir();
  char *path = g_build_filename(dir, "pages.epub", NULL);
  Book *b = sample_book();
  BookChapter *c1 = b->chapters->pdata[1], *c2 = b->chapters->pdata[2];
  BookPageMark marks[] = {{1, "1", ((BookChapter *)b->chapters->pdata[0])->root->first_child, 0},
                          {2, "2", c1->root->first_child->next->first_child, 3},
                          {3, "3", c2->heading, 0}};
  GArray *pm = g_array_new(FALSE, TRUE, sizeof(BookPageMark));
  g_array_append_vals(pm, marks, 3);
  assert_true(epub_write(b, &style, fonts, &opts, pm, path));
  g_array_free(pm, TRUE);
  book_free(b);
  int zerr = 0;
  zip_t *za = zip_open(path, ZIP_RDONLY, &zerr);
  assert_non_null(za);
  zip_stat_t st;
  assert_int_equal(zip_stat(za, "EPUB/nav.xhtml", 0, &st), 0);
  char *nav = g_malloc0(st.size + 1);
  zip_file_t *zf = zip_fopen(za, "EPUB/nav.xhtml", 0);
  assert_int_equal(zip_fread(zf, nav, st.size), (zip_int64_t)st.size);
  zip_fclose(zf);
  assert_non_null(strstr(nav, "epub:type=\"page-list\""));
  assert_non_null(strstr(nav, "<a href=\"c1.xhtml#page-2\">2</a>"));
  g_free(nav);
  zip_close(za);
  const char *keep = getenv("OCTAVO_KEEP_PAGES");
  if (keep && *keep) {
    char *d;
    gsize l;
    g_file_get_contents(path, &d, &l, NULL);
    g_file_set_contents(keep, d, (gssize)l, NULL);
    g_free(d);
  }
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

/* A hostile SVG: DOCTYPE, entities (one external), a script, an event
 * handler, a stylesheet PI and an outside image leave the EPUB clean. */
static void test_epub_svg_cleaned(void **state)
{
  (void)state;
  char *dir = tmp_dir();
  char *svg = g_build_filename(dir, "bad.svg", NULL);
  const char *text =
      "<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"http://example.com/x.css\"?>\n"
      "<!DOCTYPE svg [ <!ENTITY xxe SYSTEM \"file:///etc/passwd\"> <!ENTITY lol \"lol\"> ]>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
      "width=\"10\" height=\"10\" onload=\"alert(1)\"><title>&lol;</title><script>alert(2)</script>"
      "<text>&xxe;</text><image xlink:href=\"file:///etc/passwd\" width=\"1\" height=\"1\"/>"
      "<rect width=\"10\" height=\"10\" fill=\"red\"/></svg>\n";
  assert_true(g_file_set_contents(svg, text, -1, NULL));
  char *path = g_build_filename(dir, "svg.epub", NULL);
  Book *b = sample_book();
  BookResource *r = b->resources->pdata[1];
  g_free(r->path);
  r->path = g_strdup(svg);
  sandbox_add_root(b->sandbox, dir); /* as the front end lets a book's image through */
  g_free(sandbox_resolve(b->sandbox, svg, NULL));
  assert_true(epub_write(b, &style, fonts, &opts, NULL, path));
  book_free(b);
  int zerr = 0;
  zip_t *za = zip_open(path, ZIP_RDONLY, &zerr);
  assert_non_null(za);
  zip_stat_t st;
  assert_int_equal(zip_stat(za, "EPUB/images/img-2.svg", 0, &st), 0);
  char *out = g_malloc0(st.size + 1);
  zip_file_t *zf = zip_fopen(za, "EPUB/images/img-2.svg", 0);
  assert_int_equal(zip_fread(zf, out, st.size), (zip_int64_t)st.size);
  zip_fclose(zf);
  zip_close(za);
  const char *banned[] = {"DOCTYPE", "ENTITY", "passwd", "script", "onload", "xml-stylesheet", "&"};
  for (size_t i = 0; i < G_N_ELEMENTS(banned); i++) {
    if (strstr(out, banned[i]))
      print_error("%s left in:\n%s\n", banned[i], out);
    assert_null(strstr(out, banned[i]));
  }
  assert_non_null(strstr(out, "<rect"));
  g_free(out);
  g_unlink(path);
  g_unlink(svg);
  g_rmdir(dir);
  g_free(path);
  g_free(svg);
  g_free(dir);
}

/* The package document: Dublin Core metadata with the authors' roles, a
 * date that is not W3CDTF dropped with a warning, the rendition and
 * accessibility claims, a manifest of every part and the spine in reading
 * order. */
static void test_epub_opf_metadata(void **state)
{
  (void)state;
  Book *b = sample_book();
  g_free(b->meta.date);
  b->meta.date = g_strdup("May 2023");
  b->meta.publisher = g_strdup("Hand & Press");
  g_ptr_array_add(b->meta.subjects, g_strdup("Testing"));
  g_ptr_array_add(b->meta.authors, g_strdup("Bo Second"));
  char *path = write_epub(b, &opts, NULL);
  assert_int_equal(book_diag_count(b, BOOK_WARNING), 1);
  const BookDiag *d = &g_array_index(b->diags, BookDiag, 0);
  assert_non_null(strstr(d->message, "date 'May 2023'"));
  book_free(b);
  char *opf = read_entry(path, "EPUB/package.opf");
  assert_non_null(opf);
  const char *meta[] = {
      "<dc:identifier id=\"uid\">urn:uuid:",
      "<dc:title>A Hand-Made Book</dc:title>",
      "<dc:creator id=\"creator-1\">Ada Writer</dc:creator>",
      "<meta refines=\"#creator-1\" property=\"role\" scheme=\"marc:relators\">aut</meta>",
      "<dc:creator id=\"creator-2\">Bo Second</dc:creator>",
      "<dc:language>en</dc:language>",
      "<dc:publisher>Hand &amp; Press</dc:publisher>",
      "<dc:subject>Testing</dc:subject>",
      "<meta property=\"dcterms:modified\">",
      "<meta property=\"rendition:layout\">reflowable</meta>",
      "<meta property=\"schema:accessMode\">visual</meta>",
      "<meta property=\"schema:accessibilityFeature\">alternativeText</meta>",
      "<meta property=\"dcterms:conformsTo\">EPUB Accessibility 1.1 - WCAG 2.1 Level AA</meta>",
      "<meta property=\"a11y:certifiedBy\">Hand &amp; Press</meta>",
      "<meta name=\"cover\" content=\"cover-image\"/>",
      "</metadata>",
  };
  assert_in_order(opf, meta, G_N_ELEMENTS(meta));
  assert_null(strstr(opf, "<dc:date>"));
  assert_null(strstr(opf, "printPageNumbers")); /* no page marks */
  const char *manifest[] = {
      "<item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" "
      "properties=\"nav\"/>",
      "<item id=\"ncx\" href=\"toc.ncx\" media-type=\"application/x-dtbncx+xml\"/>",
      "<item id=\"cover\" href=\"cover.xhtml\"",
      "<item id=\"titlepage\" href=\"title.xhtml\"",
      "<item id=\"ch-1\" href=\"opening.xhtml\"",
      "<item id=\"ch-3\" href=\"c2.xhtml\"",
      "<item id=\"colophon\" href=\"colophon.xhtml\"",
      "<item id=\"css\" href=\"styles/book.css\" media-type=\"text/css\"/>",
      "<item id=\"font-1\" href=\"fonts/",
      "<item id=\"cover-image\" href=\"cover.png\" media-type=\"image/png\" "
      "properties=\"cover-image\"/>",
      "<item id=\"img-2\" href=\"images/img-2.svg\" media-type=\"image/svg+xml\"/>",
  };
  assert_in_order(opf, manifest, G_N_ELEMENTS(manifest));
  const char *spine[] = {"<spine toc=\"ncx\">", "idref=\"cover\"",    "idref=\"titlepage\"",
                         "idref=\"nav\"",       "idref=\"ch-1\"",     "idref=\"ch-2\"",
                         "idref=\"ch-3\"",      "idref=\"colophon\"", "</spine>"};
  assert_in_order(opf, spine, G_N_ELEMENTS(spine));
  g_free(opf);
  done(path);
}

/* A book whose second chapter has a section and a subsection. */
static Book *outline_book(void)
{
  Book *b = sample_book();
  BookChapter *c1 = b->chapters->pdata[1];
  heading(b, c1, 3, "A Section");
  heading(b, c1, 4, "A Subsection");
  return b;
}

/* The contents come from the outline: chapters, and their sections down
 * to --toc-depth, nested in the nav and in the NCX, whose depth says how
 * deep they go; the landmarks point at the parts. */
static void test_epub_nav_ncx(void **state)
{
  (void)state;
  Book *b = outline_book();
  char *path = write_epub(b, &opts, NULL);
  book_free(b);
  char *nav = read_entry(path, "EPUB/nav.xhtml"), *ncx = read_entry(path, "EPUB/toc.ncx");
  assert_non_null(nav);
  assert_non_null(ncx);
  const char *toc[] = {"<nav epub:type=\"toc\"",
                       "<h1 id=\"toc-title\">Contents</h1>",
                       "<a href=\"opening.xhtml\">",
                       "<a href=\"c1.xhtml\">Chapter One</a>",
                       "<ol>",
                       "<a href=\"c1.xhtml#a-section\">A Section</a>",
                       "</ol>",
                       "<a href=\"c2.xhtml\">Section Two</a>",
                       "</nav>",
                       "<nav epub:type=\"landmarks\"",
                       "<a epub:type=\"cover\" href=\"cover.xhtml\">",
                       "<a epub:type=\"titlepage\" href=\"title.xhtml\">",
                       "<a epub:type=\"toc\" href=\"nav.xhtml#toc\">",
                       "<a epub:type=\"bodymatter\" href=\"opening.xhtml\">"};
  assert_in_order(nav, toc, G_N_ELEMENTS(toc));
  assert_null(strstr(nav, "a-subsection")); /* below --toc-depth 2 */
  assert_null(strstr(nav, "page-list"));
  const char *points[] = {"<meta name=\"dtb:depth\" content=\"2\"/>",
                          "<meta name=\"dtb:totalPageCount\" content=\"0\"/>",
                          "<docTitle>",
                          "<text>A Hand-Made Book</text>",
                          "<navMap>",
                          "<navPoint id=\"np-1\" playOrder=\"1\">",
                          "<content src=\"opening.xhtml\"/>",
                          "<navPoint id=\"np-2\" playOrder=\"2\">",
                          "<text>Chapter One</text>",
                          "<navPoint id=\"np-3\" playOrder=\"3\">",
                          "<text>A Section</text>",
                          "<content src=\"c1.xhtml#a-section\"/>",
                          "</navPoint>",
                          "</navPoint>",
                          "<navPoint id=\"np-4\" playOrder=\"4\">",
                          "<text>Section Two</text>",
                          "</navMap>"};
  assert_in_order(ncx, points, G_N_ELEMENTS(points));
  assert_null(strstr(ncx, "pageList"));
  g_free(nav);
  g_free(ncx);
  done(path);

  /* --toc-depth 1: chapters only, one level deep. */
  OctavoOptions o1 = opts;
  o1.toc_depth = 1;
  b = outline_book();
  path = write_epub(b, &o1, NULL);
  book_free(b);
  nav = read_entry(path, "EPUB/nav.xhtml");
  ncx = read_entry(path, "EPUB/toc.ncx");
  assert_non_null(strstr(nav, "<a href=\"c1.xhtml\">Chapter One</a>"));
  assert_null(strstr(nav, "a-section"));
  assert_non_null(strstr(ncx, "<meta name=\"dtb:depth\" content=\"1\"/>"));
  assert_null(strstr(ncx, "a-section"));
  g_free(nav);
  g_free(ncx);
  done(path);
}

/* Print page marks give the NCX a pageList as well as the nav's: arabic
 * labels are normal pages with their number, others front pages. */
static void test_epub_ncx_page_list(void **state)
{
  (void)state;
  Book *b = sample_book();
  BookChapter *c1 = b->chapters->pdata[1], *c2 = b->chapters->pdata[2];
  BookPageMark marks[] = {{1, "ii", ((BookChapter *)b->chapters->pdata[0])->root->first_child, 0},
                          {2, "7", c1->root->first_child->next->first_child, 3},
                          {3, "8", c2->heading, 0}};
  GArray *pm = g_array_new(FALSE, TRUE, sizeof(BookPageMark));
  g_array_append_vals(pm, marks, 3);
  char *path = write_epub(b, &opts, pm);
  g_array_free(pm, TRUE);
  book_free(b);
  char *ncx = read_entry(path, "EPUB/toc.ncx"), *opf = read_entry(path, "EPUB/package.opf");
  const char *want[] = {"<meta name=\"dtb:totalPageCount\" content=\"3\"/>",
                        "<meta name=\"dtb:maxPageNumber\" content=\"8\"/>",
                        "<pageList>",
                        "<pageTarget id=\"pt-page-1\" type=\"front\">",
                        "<text>ii</text>",
                        "<content src=\"opening.xhtml#page-1\"/>",
                        "<pageTarget id=\"pt-page-2\" type=\"normal\" value=\"7\">",
                        "<content src=\"c1.xhtml#page-2\"/>",
                        "<pageTarget id=\"pt-page-3\" type=\"normal\" value=\"8\">",
                        "</pageList>"};
  assert_in_order(ncx, want, G_N_ELEMENTS(want));
  const char *claims[] = {
      "<meta property=\"schema:accessibilityFeature\">printPageNumbers</meta>",
      "<dc:source id=\"print-source\">",
      "<meta refines=\"#print-source\" property=\"source-of\">pagination</meta>"};
  assert_in_order(opf, claims, G_N_ELEMENTS(claims));
  g_free(ncx);
  g_free(opf);
  done(path);
}

/* The identifier names the content, not the pagination: the same with and
 * without print page marks, the one the package document carries, a
 * name-based UUID (version 5) that changes with the text; the metadata's
 * identifier when there is one. */
static void test_epub_identifier(void **state)
{
  (void)state;
  Book *b = sample_book();
  char *id = epub_identifier(b, &opts);
  assert_true(g_str_has_prefix(id, "urn:uuid:"));
  assert_int_equal(strlen(id), strlen("urn:uuid:") + 36);
  assert_int_equal(id[strlen("urn:uuid:") + 14], '5');
  BookChapter *c1 = b->chapters->pdata[1];
  BookPageMark mark = {1, "7", c1->root->first_child, 0};
  GArray *pm = g_array_new(FALSE, TRUE, sizeof(BookPageMark));
  g_array_append_val(pm, mark);
  char *path = write_epub(b, &opts, pm);
  g_array_free(pm, TRUE);
  char *opf = read_entry(path, "EPUB/package.opf");
  char *want = g_strdup_printf(">%s</dc:identifier>", id);
  assert_non_null(strstr(opf, want));
  g_free(want);
  g_free(opf);
  done(path);
  char *again = epub_identifier(b, &opts);
  assert_string_equal(id, again);
  g_free(again);
  para(b, c1->root, "One more paragraph.");
  char *other = epub_identifier(b, &opts);
  assert_string_not_equal(id, other);
  g_free(other);
  /* the content, not where it lies: another source file and other
   * positions name the same book */
  char *before = epub_identifier(b, &opts);
  c1->source = "elsewhere/moved.md"; /* interned by the book: not freed */
  c1->root->first_child->pos.line += 10;
  char *moved = epub_identifier(b, &opts);
  assert_string_equal(before, moved);
  g_free(before);
  g_free(moved);
  b->meta.identifier = g_strdup("isbn:9780000000000");
  char *given = epub_identifier(b, &opts);
  assert_string_equal(given, "isbn:9780000000000");
  g_free(given);
  g_free(id);
  book_free(b);
}

int main(void)
{
  octavo_options_init(&opts);
  char *datadir = g_strdup(top());
  opts.datadir = datadir;
  style_load(&style, NULL, opts.paper, 1, NULL);
  fonts = fonts_load(datadir, NULL);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_epub_container),   cmocka_unit_test(test_epub_page_list),
      cmocka_unit_test(test_epub_svg_cleaned), cmocka_unit_test(test_epub_opf_metadata),
      cmocka_unit_test(test_epub_nav_ncx),     cmocka_unit_test(test_epub_ncx_page_list),
      cmocka_unit_test(test_epub_identifier),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  fonts_free(fonts);
  style_clear(&style);
  g_free(datadir);
  return rc;
}
