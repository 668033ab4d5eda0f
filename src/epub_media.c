/* epub_media.c: what the e-book carries besides its text: the fonts,
 * subset to the book's characters (subset.c over fonts.c's faces), the
 * images (SVG parsed and cleaned of scripts and outside references), and
 * the cover image (given with -M cover=FILE, or drawn by cover.c). */
#include "epub_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cover.h"
#include "fonts.h"
#include "fontstack.h"
#include "sanitize.h"
#include "subset.h"

/* octavo's own cover: 1000 x 1500 pixels, a 2:3 face, sharp on phones and
 * readers. */
enum { COVER_W = 1000, COVER_H = 1500 };

/* ---- fonts ---- */

void ep_add_codepoints(GHashTable *set, const char *s)
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

static void add_chars(GHashTable *set, const GArray *chars)
{
  for (guint i = 0; i < chars->len; i++)
    g_hash_table_add(set, GUINT_TO_POINTER(g_array_index(chars, gunichar, i)));
}

/* The characters of the text (text_set: the writers' own words; and the
 * book's text) and of the code, each with printable ASCII and the
 * punctuation the writers add, as sorted arrays (caller frees). */
static void font_sets(Epub *e, GHashTable *text_set, GArray **all_text, GArray **all_mono)
{
  GHashTable *mono_set = g_hash_table_new(g_direct_hash, g_direct_equal);
  add_chars(text_set, e->chars->text);
  add_chars(mono_set, e->chars->code);
  /* Always: printable ASCII and the punctuation the writers add. */
  const char *always = "\u00a0\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u2022\u2191";
  for (gunichar c = 0x20; c < 0x7f; c++) {
    g_hash_table_add(text_set, GUINT_TO_POINTER(c));
    g_hash_table_add(mono_set, GUINT_TO_POINTER(c));
  }
  ep_add_codepoints(text_set, always);
  ep_add_codepoints(mono_set, always);
  *all_text = sorted_set(text_set);
  *all_mono = sorted_set(mono_set);
  g_hash_table_destroy(mono_set);
}

/* The first text and the first monospace family of the book's faces. */
static void book_families(const GArray *all, const char **text_family, const char **mono_family)
{
  *text_family = *mono_family = NULL;
  for (guint i = 0; i < all->len; i++) {
    const FontsFace *f = &g_array_index(all, FontsFace, i);
    if (f->mono && !*mono_family)
      *mono_family = f->family;
    else if (!f->mono && !*text_family)
      *text_family = f->family;
  }
}

/* Subset and add every face of the text, and the upright regular face of
 * the code (code is set in it alone; in a book with highlighted code, the
 * code face's bold and oblique too), each with its @font-face rule in
 * faces; n counts the font items. False with a diagnostic when a face
 * cannot be subset. */
static bool add_book_faces(Epub *e, const GArray *all, const GArray *text_cps,
                           const GArray *mono_cps, GString *faces, size_t *n)
{
  bool ok = true;
  for (guint i = 0; i < all->len && ok; i++) {
    const FontsFace *f = &g_array_index(all, FontsFace, i);
    if (f->mono && (f->italic || f->weight != 400) && !e->book->code_tokens)
      continue; /* only highlighted code is set in the code face's bold or oblique */
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
      g_snprintf(id, sizeof id, "font-%zu", ++*n);
      ep_add_entry(e, name, font);
      ep_add_item(e, id, href, "font/ttf", NULL);
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
  return ok;
}

/* Add the fallback faces fontstack_build subset (FontstackFile, cleared
 * here); n counts the font items. */
static void add_fallback_faces(Epub *e, GArray *files, size_t *n)
{
  for (guint i = 0; i < files->len; i++) {
    FontstackFile *f = &g_array_index(files, FontstackFile, i);
    char *name = g_strdup_printf("EPUB/fonts/%s", f->file);
    char *href = g_strdup_printf("fonts/%s", f->file);
    char id[32];
    g_snprintf(id, sizeof id, "font-%zu", ++*n);
    ep_add_entry(e, name, g_bytes_ref(f->data));
    ep_add_item(e, id, href, f->media_type, NULL);
    g_free(name);
    g_free(href);
    fontstack_file_clear(f);
  }
}

/* Subset and add the fonts; prepend their @font-face rules to css, and add
 * the font stacks of the fallback faces. The text set holds every
 * character of the content documents. */
bool ep_add_fonts(Epub *e, GHashTable *text_set, GString *css)
{
  GArray *all_text, *all_mono;
  font_sets(e, text_set, &all_text, &all_mono);
  /* The book's faces get the characters they draw (Charis SIL not its few
   * Greek letters: fonts/fallback.conf); the fallback faces the rest. */
  const GArray *all = fonts_faces(e->fonts);
  const char *text_family, *mono_family;
  book_families(all, &text_family, &mono_family);
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
  if (ok)
    ok = add_book_faces(e, all, text_cps, mono_cps, faces, &n);
  add_fallback_faces(e, files, &n);
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
  return ok;
}

/* ---- images ---- */

bool ep_add_images(Epub *e)
{
  Book *b = e->book;
  for (guint i = 0; i < b->resources->len; i++) {
    BookResource *r = b->resources->pdata[i];
    char *data = NULL;
    gsize len = 0;
    GError *err = NULL;
    if (!sandbox_read_known(b->sandbox, r->path, &data, &len, &err)) {
      book_diag(b, BOOK_ERROR, NULL, "cannot read image %s: %s", r->path, err->message);
      g_error_free(err);
      return false;
    }
    GBytes *bytes;
    bool svg = g_strcmp0(r->media_type, "image/svg+xml") == 0;
    if (svg) {
      bytes = san_svg_clean(data, len);
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
    /* copied as they are, never decoded (resolve.c probed them); a PNG,
     * JPEG or GIF is compressed already: stored */
    if (svg)
      ep_add_entry(e, name, bytes);
    else
      ep_add_entry_stored(e, name, bytes);
    ep_add_item(e, id, r->href, r->media_type, NULL);
    g_free(name);
  }
  return true;
}

/* Whether the book has images, and whether each has a text alternative. */
void ep_survey_images(Epub *e)
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

/* The cover image: the book's cover as the front end decided it
 * (book->cover: a PNG or JPEG, its bytes copied), else octavo's design
 * drawn by cover.c; the PDF opens on the same (layout/front.c). Sets
 * *media_type and the size in pixels (0 when the file does not say). NULL
 * (with a warning) when there is none. */
static GBytes *cover_image(Book *b, const Style *style, const Fonts *fonts, const char **media_type,
                           int *width, int *height)
{
  const BookResource *r = b->cover;
  if (r) {
    char *data = NULL;
    gsize len = 0;
    GError *err = NULL;
    if (sandbox_read_known(b->sandbox, r->path, &data, &len, &err)) {
      *media_type = r->media_type;
      *width = r->width_px;
      *height = r->height_px;
      return g_bytes_new_take(data, len);
    }
    book_diag(b, BOOK_WARNING, NULL, "cover %s: %s; using octavo's cover", r->src, err->message);
    g_error_free(err);
  }
  if (!fonts) {
    book_diag(b, BOOK_WARNING, NULL, "no cover: no fonts to draw it");
    return NULL;
  }
  GError *err = NULL;
  GBytes *png = cover_png(b, fonts, &style->cover, COVER_W, COVER_H, &err);
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

/* A cover drawn ahead (epub_cover_prefetch): what cover_image gave, and the
 * warnings it made, to be given again where the EPUB asks for its cover. */
typedef struct {
  Book *book;
  const Style *style;
  const Fonts *fonts;
  RunPlan *plan;
  RunThread *thread;
  GBytes *image;
  const char *media_type;
  int width, height;
  GArray *diags; /* BookDiag */
} Prefetch;

/* The plan keeps the one cover drawn ahead under this key until the EPUB
 * takes it, or the run ends (runplan_end: prefetch_free). */
#define PREFETCH_KEY "epub-cover"

static gpointer draw_ahead(gpointer data)
{
  Prefetch *f = data;
  book_diag_capture(f->book, f->diags);
  f->image = cover_image(f->book, f->style, f->fonts, &f->media_type, &f->width, &f->height);
  book_diag_capture(f->book, NULL);
  return NULL;
}

/* f's thread joined (giving up fontlock: the cover is drawn holding it). */
static void prefetch_join(Prefetch *f)
{
  if (f->thread)
    runplan_join(f->plan, f->thread);
  f->thread = NULL;
}

static void prefetch_free(Prefetch *f)
{
  prefetch_join(f);
  if (f->image)
    g_bytes_unref(f->image);
  for (guint i = 0; i < f->diags->len; i++)
    g_free(g_array_index(f->diags, BookDiag, i).message);
  g_array_free(f->diags, TRUE);
  g_free(f);
}

void epub_cover_prefetch(RunPlan *plan, Book *book, const Style *style, const Fonts *fonts)
{
  Prefetch *f = g_new0(Prefetch, 1);
  f->book = book;
  f->style = style;
  f->fonts = fonts;
  f->plan = plan;
  f->diags = g_array_new(FALSE, TRUE, sizeof(BookDiag));
  f->thread = runplan_spawn(plan, "octavo-cover", draw_ahead, f);
  /* a second call's replaces the first's, which is joined and freed */
  runplan_keep(plan, PREFETCH_KEY, f, (GDestroyNotify)prefetch_free);
}

/* The cover drawn ahead for e's book, style and fonts, its thread joined,
 * or NULL (none, or another's: freed). */
static Prefetch *take_prefetch(Epub *e)
{
  Prefetch *f = e->opts->plan ? runplan_take(e->opts->plan, PREFETCH_KEY) : NULL;
  if (f && (f->book != e->book || f->style != e->style || f->fonts != e->fonts)) {
    prefetch_free(f);
    return NULL;
  }
  if (f)
    prefetch_join(f);
  return f;
}

GBytes *ep_cover_image(Epub *e, const char **media_type, int *width, int *height)
{
  Prefetch *f = take_prefetch(e);
  if (!f)
    return cover_image(e->book, e->style, e->fonts, media_type, width, height);
  /* its warnings where they would have been made */
  GArray *sink = book_diag_capturing(e->book);
  for (guint i = 0; i < f->diags->len; i++)
    g_array_append_val(sink ? sink : e->book->diags, g_array_index(f->diags, BookDiag, i));
  g_array_set_size(f->diags, 0);
  GBytes *image = f->image;
  f->image = NULL;
  *media_type = f->media_type;
  *width = f->width;
  *height = f->height;
  prefetch_free(f);
  return image;
}
