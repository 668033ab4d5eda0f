/* floor.c: the least work octavo's libraries must do for a book, timed in
 * one process, as the denominator of bench/'s ratios.
 *
 *   EPUB floor = cmark-gfm parse of every input (octavo's options and GFM
 *                extensions) + cmark's own HTML renderer + deflate of that
 *                HTML into a zip with libzip (default compression level).
 *   PDF floor  = the same parse + pango_itemize and pango_shape_full once on
 *                every paragraph's plain text (paragraphs, headings, table
 *                cells, code blocks, taken from the cmark tree) with
 *                octavo's own font set (fonts_load, fonts_context) at the
 *                body face and size.
 *
 * Usage: floor [-d DATADIR] [-o ZIP] [-n REPEAT] [-m epub|pdf] [-z LEVEL] [-p PDF] INPUT.md...
 * Prints "key value" lines (seconds, wall from CLOCK_MONOTONIC, cpu from
 * CLOCK_PROCESS_CPUTIME_ID); bench/run.sh reads them. With -n the whole
 * measurement is repeated and the median of each figure printed; with -m
 * only one floor is measured, and the PDF one without the break analysis
 * (for instruction counts under callgrind); -z sets the deflate level (0,
 * the default, is zlib's default, 6, as octavo's EPUB). With -p the
 * shaped runs are also drawn into a PDF (lines of about 75 bytes, 50 lines a
 * page, pango_cairo_show_glyph_item), timed apart and not counted: how much
 * of octavo's PDF is cairo's own work.
 *
 * This is a measuring tool, not part of octavo: it reads the inputs into
 * memory before timing (octavo's own reading is a few milliseconds) and does
 * none of octavo's work beyond the libraries' floor. */
#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <cairo-pdf.h>
#include <cairo.h>
#include <pango/pango.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

#include "fonts.h"

typedef struct {
  double wall, cpu;
} Clock;

static Clock now(void) {
  struct timespec w, c;
  clock_gettime(CLOCK_MONOTONIC, &w);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
  return (Clock){w.tv_sec + w.tv_nsec * 1e-9, c.tv_sec + c.tv_nsec * 1e-9};
}

static Clock since(Clock a) {
  Clock b = now();
  return (Clock){b.wall - a.wall, b.cpu - a.cpu};
}

static void add(Clock *sum, Clock d) {
  sum->wall += d.wall;
  sum->cpu += d.cpu;
}

typedef struct {
  char *path;
  char *text;
  gsize len;
} Input;

static const char *const EXTS[] = {"table", "strikethrough", "autolink", "tasklist"};

/* Parse one input as markdown.c does. Returns the document; *parser_out is
 * the parser (its extension list is needed by the HTML renderer). */
static cmark_node *parse(const Input *in, cmark_parser **parser_out) {
  cmark_parser *p = cmark_parser_new(CMARK_OPT_FOOTNOTES | CMARK_OPT_UNSAFE | CMARK_OPT_VALIDATE_UTF8);
  for (size_t i = 0; i < G_N_ELEMENTS(EXTS); i++) {
    cmark_syntax_extension *e = cmark_find_syntax_extension(EXTS[i]);
    if (e)
      cmark_parser_attach_syntax_extension(p, e);
  }
  cmark_parser_feed(p, in->text, in->len);
  cmark_node *doc = cmark_parser_finish(p);
  *parser_out = p;
  return doc;
}

static bool is_text_block(cmark_node *n) {
  cmark_node_type t = cmark_node_get_type(n);
  if (t == CMARK_NODE_PARAGRAPH || t == CMARK_NODE_HEADING)
    return true;
  return strcmp(cmark_node_get_type_string(n), "table_cell") == 0;
}

/* Every paragraph's plain text, appended to paras (char *, caller frees). */
static void paragraphs(cmark_node *doc, GPtrArray *paras) {
  cmark_iter *it = cmark_iter_new(doc);
  cmark_event_type ev;
  GString *cur = NULL;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node *n = cmark_iter_get_node(it);
    cmark_node_type t = cmark_node_get_type(n);
    if (ev == CMARK_EVENT_ENTER && t == CMARK_NODE_CODE_BLOCK) {
      g_ptr_array_add(paras, g_strdup(cmark_node_get_literal(n)));
    } else if (is_text_block(n) && !cur && ev == CMARK_EVENT_ENTER) {
      cur = g_string_new(NULL);
    } else if (is_text_block(n) && cur && ev == CMARK_EVENT_EXIT) {
      if (cur->len)
        g_ptr_array_add(paras, g_string_free(cur, FALSE));
      else
        g_string_free(cur, TRUE);
      cur = NULL;
    } else if (cur && ev == CMARK_EVENT_ENTER) {
      if (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE)
        g_string_append(cur, cmark_node_get_literal(n));
      else if (t == CMARK_NODE_SOFTBREAK)
        g_string_append_c(cur, ' ');
      else if (t == CMARK_NODE_LINEBREAK)
        g_string_append_c(cur, '\n');
    }
  }
  if (cur)
    g_string_free(cur, TRUE);
  cmark_iter_free(it);
}

typedef struct {
  Clock parse, render, zip, total;
  gsize html_bytes, zip_bytes;
} EpubFloor;

static bool epub_floor(const Input *ins, int n, const char *zip_path, int level, EpubFloor *f) {
  memset(f, 0, sizeof *f);
  Clock t0 = now();
  int zerr = 0;
  zip_t *za = zip_open(zip_path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
  if (!za) {
    fprintf(stderr, "floor: cannot create %s (libzip error %d)\n", zip_path, zerr);
    return false;
  }
  for (int i = 0; i < n; i++) {
    Clock a = now();
    cmark_parser *p;
    cmark_node *doc = parse(&ins[i], &p);
    add(&f->parse, since(a));
    a = now();
    char *html = cmark_render_html(doc, CMARK_OPT_UNSAFE | CMARK_OPT_FOOTNOTES, cmark_parser_get_syntax_extensions(p));
    add(&f->render, since(a));
    a = now();
    size_t len = strlen(html);
    f->html_bytes += len;
    char name[64];
    snprintf(name, sizeof name, "OEBPS/ch%03d.xhtml", i + 1);
    /* libzip frees the buffer (freep = 1) with free(); cmark allocated it with malloc. */
    zip_source_t *src = zip_source_buffer(za, html, len, 1);
    zip_int64_t idx = zip_file_add(za, name, src, ZIP_FL_OVERWRITE);
    if (idx < 0 || zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_DEFLATE, (zip_uint32_t)level) < 0) {
      fprintf(stderr, "floor: libzip: %s\n", zip_strerror(za));
      if (idx < 0)
        zip_source_free(src);
      zip_discard(za);
      return false;
    }
    add(&f->zip, since(a));
    cmark_node_free(doc);
    cmark_parser_free(p);
  }
  Clock a = now();
  if (zip_close(za) < 0) { /* the deflate happens here */
    fprintf(stderr, "floor: libzip: %s\n", zip_strerror(za));
    zip_discard(za);
    return false;
  }
  add(&f->zip, since(a));
  f->total = since(t0);
  GStatBuf st;
  if (g_stat(zip_path, &st) == 0)
    f->zip_bytes = (gsize)st.st_size;
  return true;
}

typedef struct {
  Clock parse, extract, shape, log_attrs, emit, total;
  gsize paragraphs, glyphs, items, pdf_bytes;
  int pages;
} PdfFloor;

typedef struct {
  PangoGlyphItem *gi;
  const char *text;
} Run;

/* Not part of the floor: draw the runs once on a PDF surface, as lines of
 * about 75 bytes cut at spaces, 50 lines a page, with
 * pango_cairo_show_glyph_item (glyphs and their text), as octavo's pdf.c
 * draws. Shows how much of the PDF is cairo's own work. */
static void emit_runs(cairo_t *cr, GArray *runs, double *y, PdfFloor *f) {
  for (guint i = 0; i < runs->len; i++) {
    Run *r = &g_array_index(runs, Run, i);
    PangoGlyphItem *gi = r->gi;
    while (gi->item->length > 0) {
      const char *start = r->text + gi->item->offset, *cut = NULL;
      if (gi->item->length > 75)
        cut = memchr(start + 75, ' ', (size_t)(gi->item->length - 75));
      PangoGlyphItem *part = cut && cut > start ? pango_glyph_item_split(gi, r->text, (int)(cut - start)) : gi;
      if (*y > 770) {
        cairo_show_page(cr);
        f->pages++;
        *y = 72;
      }
      cairo_move_to(cr, 72, *y);
      pango_cairo_show_glyph_item(cr, r->text, part);
      *y += 14;
      if (part == gi)
        break;
      pango_glyph_item_free(part);
    }
  }
}

static bool pdf_floor(const Input *ins, int n, const Fonts *fonts, bool log_attrs, const char *pdf_path,
                      PdfFloor *f) {
  memset(f, 0, sizeof *f);
  cairo_surface_t *surf = NULL;
  cairo_t *cr = NULL;
  double y = 72;
  if (pdf_path) {
    surf = cairo_pdf_surface_create(pdf_path, 595.276, 841.89);
    cairo_pdf_surface_restrict_to_version(surf, CAIRO_PDF_VERSION_1_5);
    cr = cairo_create(surf);
    f->pages = 1;
  }
  PangoContext *ctx = fonts_context(fonts);
  PangoFontDescription *d = pango_font_description_from_string("Charis SIL 10.5");
  pango_context_set_font_description(ctx, d);
  pango_context_set_language(ctx, pango_language_from_string("en"));
  PangoAttrList *attrs = pango_attr_list_new();
  Clock t0 = now();
  for (int i = 0; i < n; i++) {
    Clock a = now();
    cmark_parser *p;
    cmark_node *doc = parse(&ins[i], &p);
    add(&f->parse, since(a));
    a = now();
    GPtrArray *paras = g_ptr_array_new_with_free_func(g_free);
    paragraphs(doc, paras);
    cmark_node_free(doc);
    cmark_parser_free(p);
    add(&f->extract, since(a));
    a = now();
    GArray *runs = g_array_new(FALSE, FALSE, sizeof(Run));
    for (guint k = 0; k < paras->len; k++) {
      const char *text = paras->pdata[k];
      int len = (int)strlen(text);
      GList *items = pango_itemize(ctx, text, 0, len, attrs, NULL);
      for (GList *l = items; l; l = l->next) {
        PangoItem *item = l->data;
        PangoGlyphString *g = pango_glyph_string_new();
        pango_shape_full(text + item->offset, item->length, text, len, &item->analysis, g);
        f->glyphs += (gsize)g->num_glyphs;
        f->items++;
        PangoGlyphItem *gi = g_slice_new(PangoGlyphItem);
        gi->item = item;
        gi->glyphs = g;
        g_array_append_val(runs, ((Run){gi, text}));
      }
      g_list_free(items);
    }
    add(&f->shape, since(a));
    if (cr) {
      a = now();
      emit_runs(cr, runs, &y, f);
      add(&f->emit, since(a));
    }
    a = now();
    for (guint k = 0; k < runs->len; k++)
      pango_glyph_item_free(g_array_index(runs, Run, k).gi);
    g_array_free(runs, TRUE);
    add(&f->shape, since(a));
    /* Not part of the floor: the break analysis a line breaker also needs. */
    a = now();
    for (guint k = 0; log_attrs && k < paras->len; k++) {
      const char *text = paras->pdata[k];
      int len = (int)strlen(text);
      int nchars = (int)g_utf8_strlen(text, len);
      PangoLogAttr *la = g_new(PangoLogAttr, nchars + 1);
      pango_get_log_attrs(text, len, -1, pango_language_from_string("en"), la, nchars + 1);
      g_free(la);
    }
    add(&f->log_attrs, since(a));
    f->paragraphs += paras->len;
    g_ptr_array_free(paras, TRUE);
  }
  if (cr) {
    Clock a = now();
    cairo_destroy(cr);
    cairo_surface_finish(surf);
    add(&f->emit, since(a));
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
      fprintf(stderr, "floor: cairo: %s\n", cairo_status_to_string(cairo_surface_status(surf)));
      return false;
    }
    cairo_surface_destroy(surf);
    GStatBuf st;
    if (g_stat(pdf_path, &st) == 0)
      f->pdf_bytes = (gsize)st.st_size;
  }
  f->total = since(t0);
  f->total.wall -= f->log_attrs.wall + f->emit.wall;
  f->total.cpu -= f->log_attrs.cpu + f->emit.cpu;
  pango_attr_list_unref(attrs);
  pango_font_description_free(d);
  g_object_unref(ctx);
  return true;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  const char *datadir = ".", *zip_path = NULL, *pdf_path = NULL;
  int repeat = 1, level = 0, opt;
  bool do_epub = true, do_pdf = true;
  while ((opt = getopt(argc, argv, "d:o:n:m:z:p:")) != -1) {
    if (opt == 'd')
      datadir = optarg;
    else if (opt == 'o')
      zip_path = optarg;
    else if (opt == 'n')
      repeat = MAX(1, atoi(optarg));
    else if (opt == 'p')
      pdf_path = optarg;
    else if (opt == 'z')
      level = CLAMP(atoi(optarg), 0, 9);
    else if (opt == 'm' && (strcmp(optarg, "epub") == 0 || strcmp(optarg, "pdf") == 0))
      do_epub = !(do_pdf = strcmp(optarg, "pdf") == 0);
    else {
      fprintf(stderr, "usage: floor [-d DATADIR] [-o ZIP] [-n REPEAT] [-m epub|pdf] [-z LEVEL] [-p PDF] INPUT.md...\n");
      return 2;
    }
  }
  int n = argc - optind;
  if (n < 1) {
    fprintf(stderr, "usage: floor [-d DATADIR] [-o ZIP] [-n REPEAT] [-m epub|pdf] [-z LEVEL] [-p PDF] INPUT.md...\n");
    return 2;
  }
  char *tmpzip = NULL;
  if (!zip_path)
    zip_path = tmpzip = g_build_filename(g_get_tmp_dir(), "octavo-floor.zip", NULL);
  Input *ins = g_new0(Input, n);
  gsize bytes = 0;
  for (int i = 0; i < n; i++) {
    GError *err = NULL;
    ins[i].path = argv[optind + i];
    if (!g_file_get_contents(ins[i].path, &ins[i].text, &ins[i].len, &err)) {
      fprintf(stderr, "floor: %s\n", err->message);
      return 1;
    }
    bytes += ins[i].len;
  }
  cmark_gfm_core_extensions_ensure_registered();

  Clock a = now();
  GError *err = NULL;
  Fonts *fonts = fonts_load(datadir, &err);
  if (!fonts) {
    fprintf(stderr, "floor: fonts: %s\n", err ? err->message : "?");
    return 1;
  }
  Clock fonts_t = since(a);

  enum { K_EW, K_EC, K_EPARSE, K_ERENDER, K_EZIP, K_PW, K_PC, K_PPARSE, K_PSHAPE, K_PLOG, K_EMW, K_EMC, K_N };
  static const char *const names[K_N] = {
      "epub_floor_wall", "epub_floor_cpu", "epub_parse_wall", "epub_render_wall",   "epub_zip_wall",
      "pdf_floor_wall",  "pdf_floor_cpu",  "pdf_parse_wall",  "pdf_shape_wall",     "pdf_log_attrs_wall",
      "pdf_emit_wall",   "pdf_emit_cpu"};
  double *v[K_N];
  for (int k = 0; k < K_N; k++)
    v[k] = g_new(double, repeat);
  EpubFloor ef = {0};
  PdfFloor pf = {0};
  for (int r = 0; r < repeat; r++) {
    if ((do_epub && !epub_floor(ins, n, zip_path, level, &ef)) ||
        (do_pdf && !pdf_floor(ins, n, fonts, do_epub, pdf_path, &pf)))
      return 1;
    double row[K_N] = {ef.total.wall, ef.total.cpu, ef.parse.wall, ef.render.wall, ef.zip.wall,
                       pf.total.wall, pf.total.cpu, pf.parse.wall, pf.shape.wall, pf.log_attrs.wall,
                       pf.emit.wall,  pf.emit.cpu};
    for (int k = 0; k < K_N; k++)
      v[k][r] = row[k];
  }
  printf("inputs %d\ninput_bytes %zu\n", n, (size_t)bytes);
  printf("fonts_load_wall %.4f\n", fonts_t.wall);
  for (int k = 0; k < K_N; k++)
    printf("%s %.4f\n", names[k], median(v[k], repeat));
  printf("html_bytes %zu\nzip_bytes %zu\n", (size_t)ef.html_bytes, (size_t)ef.zip_bytes);
  printf("paragraphs %zu\nitems %zu\nglyphs %zu\n", (size_t)pf.paragraphs, (size_t)pf.items, (size_t)pf.glyphs);
  printf("emit_pages %d\nemit_pdf_bytes %zu\n", pf.pages, (size_t)pf.pdf_bytes);
  for (int k = 0; k < K_N; k++)
    g_free(v[k]);
  fonts_free(fonts);
  for (int i = 0; i < n; i++)
    g_free(ins[i].text);
  g_free(ins);
  if (tmpzip) {
    unlink(tmpzip);
    g_free(tmpzip);
  }
  return 0;
}
