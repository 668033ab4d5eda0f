/* pdf.c: the layout's pages -> a PDF through cairo. Draws only: every
 * position, link and tag comes from the layout. Adds what belongs to the
 * file: metadata, outline, page labels, the Document structure tag.
 *
 * cairo 1.16 pitfalls (DESIGN.md): links by named destination only; a tag
 * error shows only in cairo_surface_status() after cairo_surface_finish();
 * numbers are written with the C locale only if LC_NUMERIC is "C". */
#include "pdf.h"

#include <cairo-pdf.h>
#include <errno.h>
#include <cairo.h>
#include <hb.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "cover.h"
#include "util.h"

/* A string as a cairo attribute value: quoted, with ' and \ escaped. */
static void attr_str(GString *out, const char *s) {
  g_string_append_c(out, '\'');
  for (; *s; s++) {
    if (*s == '\'' || *s == '\\')
      g_string_append_c(out, '\\');
    g_string_append_c(out, *s);
  }
  g_string_append_c(out, '\'');
}

/* cairo 1.16 writes a font's widths (/Widths, /W) truncated to whole
 * thousandths of an em, but places glyphs by their exact advances: a viewer
 * then draws each glyph up to 1/1000 em left of where cairo meant, and the
 * error adds up along a line (about 0.5 pt at the end of a justified line
 * of 10.5 pt type, so the right margin is not straight). Drift models what
 * a viewer will do: from the last position cairo set exactly (a Tm or Td:
 * a new text object, a new font size, another baseline, a jump of more
 * than 10 em), the error of the glyphs shown since; each glyph is handed
 * to cairo that much further right. Only TrueType faces (cairo's TrueType
 * subsetter is the one that truncates like this). */
typedef struct {
  bool in_text;         /* a text object is open and its position known */
  double y, gray;        /* of the last glyphs shown */
  cairo_matrix_t scale; /* their scaled font's matrix (cairo sets a Tm when it changes) */
  double next_x;        /* where cairo expects the next glyph (points) */
  double err;           /* the viewer is this many points left of cairo */
  GHashTable *units;    /* hb_face_t * -> hb_font_t * in font units (NULL: not TrueType) */
} Drift;

static void drift_font_free(gpointer f) {
  if (f)
    hb_font_destroy(f);
}

static hb_font_t *drift_units_font(Drift *d, PangoFont *font) {
  hb_font_t *hf = pango_font_get_hb_font(font);
  if (!hf)
    return NULL;
  hb_face_t *face = hb_font_get_face(hf);
  gpointer v;
  if (g_hash_table_lookup_extended(d->units, face, NULL, &v))
    return v;
  hb_blob_t *glyf = hb_face_reference_table(face, HB_TAG('g', 'l', 'y', 'f'));
  hb_font_t *uf = hb_blob_get_length(glyf) > 0 ? hb_font_create(face) : NULL; /* scale: upem */
  hb_blob_destroy(glyf);
  g_hash_table_insert(d->units, hb_face_reference(face), uf); /* the key lives as long */
  return uf;
}

static void draw_glyphs(cairo_t *cr, const LayItem *it, Drift *d) {
  if (!it->font || !it->glyphs || !it->text)
    return;
  PangoGlyphString *gs = pango_glyph_string_copy(it->glyphs);
  hb_font_t *uf = drift_units_font(d, it->font);
  cairo_matrix_t m = {0};
  cairo_scaled_font_t *sf = pango_cairo_font_get_scaled_font(PANGO_CAIRO_FONT(it->font));
  if (sf)
    cairo_scaled_font_get_scale_matrix(sf, &m);
  double size = m.xx; /* the type's size in points: the page is drawn at 1 pt per unit */
  bool same_scale = m.xx == d->scale.xx && m.xy == d->scale.xy && m.yx == d->scale.yx &&
                    m.yy == d->scale.yy;
  if (!d->in_text || !same_scale || it->y_pt != d->y || it->gray != d->gray ||
      fabs(it->x_pt - d->next_x) > 10 * size)
    d->err = 0; /* cairo sets this position exactly */
  double x = it->x_pt, upem = uf ? hb_face_get_upem(hb_font_get_face(uf)) : 0;
  int prev_dy = 0;
  for (int i = 0; i < gs->num_glyphs; i++) {
    PangoGlyphInfo *g = &gs->glyphs[i];
    if (g->geometry.y_offset != prev_dy)
      d->err = 0; /* another baseline: a Td */
    prev_dy = g->geometry.y_offset;
    double gx = x + g->geometry.x_offset / (double)PANGO_SCALE + d->err;
    g->geometry.x_offset += (int)lround(d->err * PANGO_SCALE);
    double exact = 0;
    if (uf && !(g->glyph & PANGO_GLYPH_UNKNOWN_FLAG) && g->glyph != PANGO_GLYPH_EMPTY) {
      double em = hb_font_get_glyph_h_advance(uf, g->glyph) / upem;
      exact = em * size;
      d->err += (em - (double)(long)(em * 1000) / 1000) * size;
    }
    d->next_x = gx + exact;
    x += g->geometry.width / (double)PANGO_SCALE;
  }
  d->in_text = true;
  d->scale = m;
  d->y = it->y_pt;
  d->gray = it->gray;

  PangoItem *item = pango_item_new();
  item->offset = 0;
  item->length = (int)strlen(it->text);
  item->num_chars = (int)g_utf8_strlen(it->text, -1);
  item->analysis.font = it->font; /* borrowed: cleared before pango_item_free */
  PangoGlyphItem gi = {.item = item, .glyphs = gs};
  cairo_set_source_rgb(cr, it->gray, it->gray, it->gray);
  cairo_move_to(cr, it->x_pt, it->y_pt);
  pango_cairo_show_glyph_item(cr, it->text, &gi);
  item->analysis.font = NULL;
  pango_item_free(item);
  pango_glyph_string_free(gs);
}

static cairo_surface_t *load_image(const BookResource *r, GHashTable *cache) {
  cairo_surface_t *s = g_hash_table_lookup(cache, r);
  if (s)
    return s;
  if (!r->path)
    return NULL;
  if (r->kind == BOOK_IMAGE_PNG) {
    s = cairo_image_surface_create_from_png(r->path);
  } else if (r->kind == BOOK_IMAGE_JPEG && r->width_px > 0 && r->height_px > 0) {
    /* cairo embeds JPEG data as it is; the surface only gives the size */
    gchar *data = NULL;
    gsize len = 0;
    if (g_file_get_contents(r->path, &data, &len, NULL)) {
      s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, r->width_px, r->height_px);
      cairo_surface_set_mime_data(s, CAIRO_MIME_TYPE_JPEG, (unsigned char *)data, len, g_free, data);
    } else
      g_free(data);
  }
  if (s && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    s = NULL;
  }
  if (s)
    g_hash_table_insert(cache, (gpointer)r, s);
  return s;
}

static void draw_image(cairo_t *cr, const LayItem *it, GHashTable *cache) {
  cairo_surface_t *s = load_image(it->res, cache);
  if (!s) {
    cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
    cairo_set_line_width(cr, 0.5);
    cairo_rectangle(cr, it->x_pt, it->y_pt, it->w_pt, it->h_pt);
    cairo_stroke(cr);
    return;
  }
  double sw = cairo_image_surface_get_width(s), sh = cairo_image_surface_get_height(s);
  if (sw <= 0 || sh <= 0)
    return;
  cairo_save(cr);
  cairo_translate(cr, it->x_pt, it->y_pt);
  cairo_scale(cr, it->w_pt / sw, it->h_pt / sh);
  cairo_set_source_surface(cr, s, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
  /* fill the image's rectangle, never cairo_paint(): cairo 1.16 fails the
   * whole file with a tag error at cairo_surface_finish() when an (unbounded)
   * paint of a surface pattern stands inside a structure tag (a Figure) */
  cairo_rectangle(cr, 0, 0, sw, sh);
  cairo_fill(cr);
  cairo_restore(cr);
}

static void draw_link(cairo_t *cr, const LayItem *it) {
  GString *a = g_string_new(NULL);
  g_string_append_printf(a, "rect=[%.2f %.2f %.2f %.2f] ", it->x_pt, it->y_pt, it->w_pt, it->h_pt);
  if (it->uri) {
    g_string_append(a, "uri=");
    attr_str(a, it->uri);
  } else {
    g_string_append(a, "dest=");
    attr_str(a, it->dest);
  }
  cairo_tag_begin(cr, CAIRO_TAG_LINK, a->str);
  cairo_tag_end(cr, CAIRO_TAG_LINK);
  g_string_free(a, TRUE);
}

static void draw_dest(cairo_t *cr, const LayItem *it) {
  GString *a = g_string_new("name=");
  attr_str(a, it->dest);
  g_string_append_printf(a, " x=%.2f y=%.2f", it->x_pt, it->y_pt);
  cairo_tag_begin(cr, CAIRO_TAG_DEST, a->str);
  cairo_tag_end(cr, CAIRO_TAG_DEST);
  g_string_free(a, TRUE);
}

static char *pdf_date(gint64 t) {
  GDateTime *dt = g_date_time_new_from_unix_utc(t);
  char *s = dt ? g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ") : g_strdup("1970-01-01T00:00:00Z");
  if (dt)
    g_date_time_unref(dt);
  return s;
}

static char *joined(const GPtrArray *a, const char *sep) {
  if (!a || !a->len)
    return NULL;
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < a->len; i++) {
    if (i)
      g_string_append(s, sep);
    g_string_append(s, a->pdata[i]);
  }
  return g_string_free(s, FALSE);
}

/* The PDF file cairo writes through: cairo 1.16 drops write errors that
 * happen while it finishes the surface (fonts, outline, cross-reference
 * table), so the first failure is kept here. */
typedef struct {
  FILE *f;
  int err; /* errno of the first failed write, 0 if none */
} PdfOut;

static cairo_status_t out_write(void *closure, const unsigned char *data, unsigned int len) {
  PdfOut *o = closure;
  if (!o->err && fwrite(data, 1, len, o->f) != len)
    o->err = errno ? errno : EIO;
  return o->err ? CAIRO_STATUS_WRITE_ERROR : CAIRO_STATUS_SUCCESS;
}

/* How much structure render() writes. */
typedef enum {
  TAGS_ALL,   /* the layout's structure tags */
  TAGS_PAGES, /* Document > Part per page only: cairo 1.16 writes a damaged
               * cross-reference table (the Annots array names an object never
               * written) for links without structure tags around them, and for
               * links after a page with no tagged content, so the fallback
               * still wraps every page's content */
} TagMode;

/* Draw every page into a PDF at tmp with the structure of mode. Returns
 * cairo's status after finishing the surface. */
static cairo_status_t render(Book *book, const Layout *lay, const Style *style, const char *tmp,
                             TagMode mode, int *write_errno) {
  bool structure = mode == TAGS_ALL;
  PdfOut out = {fopen(tmp, "wb"), 0};
  if (!out.f) {
    *write_errno = errno;
    return CAIRO_STATUS_WRITE_ERROR;
  }
  cairo_surface_t *surf = cairo_pdf_surface_create_for_stream(out_write, &out, lay->page_w_pt, lay->page_h_pt);
  cairo_pdf_surface_restrict_to_version(surf, CAIRO_PDF_VERSION_1_5);
  const BookMeta *m = &book->meta;
  cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_TITLE, lay->title);
  char *authors = joined(m->authors, ", ");
  if (authors)
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_AUTHOR, authors);
  const char *subject = m->description ? m->description : m->subtitle;
  if (subject)
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_SUBJECT, subject);
  char *keywords = joined(m->subjects, ", ");
  if (keywords)
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_KEYWORDS, keywords);
  cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATOR, "octavo " OCTAVO_VERSION);
  char *date = pdf_date(util_build_time(m->date));
  cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATE_DATE, date);
  cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_MOD_DATE, date);

  cairo_t *cr = cairo_create(surf);
  GHashTable *images = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)cairo_surface_destroy);
  int depth = 0; /* open structure tags */
  Drift drift = {.units = g_hash_table_new_full(NULL, NULL, (GDestroyNotify)hb_face_destroy,
                                                drift_font_free)};
  /* the title page is the generated cover, the same design as the e-book's */
  PangoContext *pctx = lay->fonts ? fonts_context(lay->fonts) : NULL;
  cairo_tag_begin(cr, "Document", "");
  for (guint i = 0; i < lay->pages->len; i++) {
    const LayPage *p = lay->pages->pdata[i];
    if (p->label)
      cairo_pdf_surface_set_page_label(surf, p->label);
    bool cover = p->cover && pctx;
    if (cover) {
      /* untagged (inside Document only): in cairo 1.16 a Sect around it
       * failed the whole file with a tag error on Letter paper */
      cover_draw(cr, pctx, book, &style->cover, lay->page_w_pt, lay->page_h_pt);
    }
    if (mode == TAGS_PAGES)
      cairo_tag_begin(cr, "Part", "");
    drift.in_text = false;
    for (guint k = 0; k < p->items->len; k++) {
      const LayItem *it = &g_array_index(p->items, LayItem, k);
      if (cover && it->kind != LAY_DEST)
        continue;
      if (it->kind != LAY_GLYPHS)
        drift.in_text = false; /* drawing, a tag or a link ends cairo's text object */
      switch (it->kind) {
      case LAY_GLYPHS:
        draw_glyphs(cr, it, &drift);
        break;
      case LAY_RULE:
        cairo_set_source_rgb(cr, it->gray, it->gray, it->gray);
        cairo_rectangle(cr, it->x_pt, it->y_pt, it->w_pt, it->h_pt);
        cairo_fill(cr);
        break;
      case LAY_FRAME:
        cairo_set_source_rgb(cr, it->gray, it->gray, it->gray);
        cairo_set_line_width(cr, 0.5);
        cairo_rectangle(cr, it->x_pt, it->y_pt, it->w_pt, it->h_pt);
        cairo_stroke(cr);
        break;
      case LAY_IMAGE:
        draw_image(cr, it, images);
        break;
      case LAY_LINK:
        draw_link(cr, it);
        break;
      case LAY_DEST:
        draw_dest(cr, it);
        break;
      case LAY_TAG_BEGIN:
        if (!structure)
          break;
        cairo_tag_begin(cr, it->tag, "");
        depth++;
        break;
      case LAY_TAG_END:
        if (structure && depth > 0) {
          cairo_tag_end(cr, it->tag);
          depth--;
        }
        break;
      }
    }
    if (mode == TAGS_PAGES)
      cairo_tag_end(cr, "Part");
    cairo_show_page(cr);
  }
  cairo_tag_end(cr, "Document");
  /* the outline: cairo ids for the layout's entries */
  int *ids = g_new0(int, lay->outline->len + 1);
  for (guint i = 0; i < lay->outline->len; i++) {
    const LayOutline *o = &g_array_index(lay->outline, LayOutline, i);
    GString *a = g_string_new("dest=");
    attr_str(a, o->dest);
    int parent = o->parent >= 0 ? ids[o->parent] : CAIRO_PDF_OUTLINE_ROOT;
    ids[i] = cairo_pdf_surface_add_outline(surf, parent, o->title, a->str, 0);
    g_string_free(a, TRUE);
  }
  g_free(ids);
  if (pctx)
    g_object_unref(pctx);
  cairo_destroy(cr);
  cairo_surface_finish(surf);
  cairo_status_t st = cairo_surface_status(surf);
  cairo_surface_destroy(surf);
  if (fclose(out.f) != 0 && !out.err)
    out.err = errno ? errno : EIO;
  *write_errno = out.err;
  if (out.err)
    st = CAIRO_STATUS_WRITE_ERROR;
  g_hash_table_destroy(images);
  g_hash_table_destroy(drift.units);
  g_free(authors);
  g_free(keywords);
  g_free(date);
  if (depth != 0 && st == CAIRO_STATUS_SUCCESS)
    st = CAIRO_STATUS_TAG_ERROR;
  return st;
}

bool pdf_write(Book *book, const Layout *lay, const Style *style, const OctavoOptions *opts,
               const char *path) {
  if (!lay) {
    book_diag(book, BOOK_ERROR, NULL, "%s: no layout to write", path);
    return false;
  }
  GError *err = NULL;
  char *tmp = util_temp_beside(path, &err);
  if (!tmp) {
    book_diag(book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
    return false;
  }
  int werr = 0;
  cairo_status_t st = render(book, lay, style, tmp, TAGS_ALL, &werr);
  if (st == CAIRO_STATUS_TAG_ERROR) {
    /* cairo 1.16 refuses some tag trees it should take: a PDF with one
     * Part per page is better than none */
    book_diag(book, BOOK_WARNING, NULL,
              "%s: cairo refused the structure tags; written with one Part per page", path);
    st = render(book, lay, style, tmp, TAGS_PAGES, &werr);
  }
  if (werr) {
    book_diag(book, BOOK_ERROR, NULL, "cannot write %s: %s", strcmp(path, "-") == 0 ? "standard output" : path,
              g_strerror(werr));
    unlink(tmp);
    g_free(tmp);
    return false;
  }
  if (st != CAIRO_STATUS_SUCCESS) {
    book_diag(book, BOOK_ERROR, NULL, "%s: cairo could not write the PDF: %s", path,
              cairo_status_to_string(st));
    unlink(tmp);
    g_free(tmp);
    return false;
  }
  if (!archive_pdf(book, lay, opts, tmp, path)) { /* XMP, /Lang, /Alt, sources...: archive.c */
    unlink(tmp);
    g_free(tmp);
    return false;
  }
  bool ok = util_commit(tmp, path, &err);
  if (!ok) {
    book_diag(book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
  }
  g_free(tmp);
  return ok;
}
