/* fonts.c: the private font set. A fontconfig configuration that knows only
 * DATADIR/fonts (never the system fonts), with a cache directory, and a
 * pango cairo font map built on it. Draws nothing and lays out nothing. */
#include "fonts.h"

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <string.h>

struct Fonts {
  FcConfig *config;
  PangoFontMap *map;
  GPtrArray *files;
  GArray *faces;        /* FontsFace */
  GStringChunk *names;  /* the faces' family names */
};

static gint cmp_face(gconstpointer pa, gconstpointer pb) {
  const FontsFace *a = pa, *b = pb;
  if (a->mono != b->mono)
    return a->mono - b->mono;
  if (a->weight != b->weight)
    return a->weight - b->weight;
  if (a->italic != b->italic)
    return a->italic - b->italic;
  return strcmp(a->path, b->path);
}

/* The faces of the files, read from fontconfig's patterns. */
static void read_faces(Fonts *f, FcFontSet *set) {
  f->faces = g_array_new(FALSE, TRUE, sizeof(FontsFace));
  f->names = g_string_chunk_new(256);
  for (guint k = 0; k < f->files->len; k++) {
    const char *path = f->files->pdata[k];
    for (int i = 0; set && i < set->nfont; i++) {
      FcChar8 *file = NULL, *family = NULL;
      int slant = FC_SLANT_ROMAN, spacing = FC_PROPORTIONAL;
      double weight = FC_WEIGHT_REGULAR;
      if (FcPatternGetString(set->fonts[i], FC_FILE, 0, &file) != FcResultMatch ||
          strcmp((const char *)file, path) != 0)
        continue;
      FcPatternGetString(set->fonts[i], FC_FAMILY, 0, &family);
      FcPatternGetInteger(set->fonts[i], FC_SLANT, 0, &slant);
      FcPatternGetInteger(set->fonts[i], FC_SPACING, 0, &spacing);
      FcPatternGetDouble(set->fonts[i], FC_WEIGHT, 0, &weight);
      FontsFace face = {path, g_string_chunk_insert_const(f->names, family ? (const char *)family : ""),
                        (int)FcWeightToOpenTypeDouble(weight), slant != FC_SLANT_ROMAN, spacing == FC_MONO};
      g_array_append_val(f->faces, face);
      break;
    }
  }
  g_array_sort(f->faces, cmp_face);
}

static gint cmp_str(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

Fonts *fonts_load(const char *datadir, GError **err) {
  char *dir = g_build_filename(datadir ? datadir : ".", "fonts", NULL);
  char *abs = g_canonicalize_filename(dir, NULL);
  g_free(dir);
  char *cache = g_build_filename(g_get_user_cache_dir(), "octavo", "fontconfig", NULL);
  g_mkdir_with_parents(cache, 0755); /* best effort: without it fontconfig only rescans */

  FcConfig *config = FcConfigCreate();
  /* The cache directory can only be set through configuration text. */
  GString *conf = g_string_new("<?xml version=\"1.0\"?>\n<fontconfig>\n<cachedir>");
  char *esc = g_markup_escape_text(cache, -1);
  g_string_append(conf, esc);
  g_string_append(conf, "</cachedir>\n</fontconfig>\n");
  g_free(esc);
  FcConfigParseAndLoadFromMemory(config, (const FcChar8 *)conf->str, FcFalse);
  g_string_free(conf, TRUE);
  g_free(cache);

  Fonts *f = g_new0(Fonts, 1);
  f->files = g_ptr_array_new_with_free_func(g_free);
  if (!FcConfigAppFontAddDir(config, (const FcChar8 *)abs)) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT, "cannot read fonts from %s", abs);
    goto fail;
  }
  FcFontSet *set = FcConfigGetFonts(config, FcSetApplication);
  for (int i = 0; set && i < set->nfont; i++) {
    FcChar8 *file = NULL;
    if (FcPatternGetString(set->fonts[i], FC_FILE, 0, &file) == FcResultMatch)
      g_ptr_array_add(f->files, g_strdup((const char *)file));
  }
  if (f->files->len == 0) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT, "no fonts in %s", abs);
    goto fail;
  }
  g_ptr_array_sort(f->files, cmp_str);
  read_faces(f, set);
  f->config = config;
  f->map = pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT);
  pango_fc_font_map_set_config(PANGO_FC_FONT_MAP(f->map), config);
  g_free(abs);
  return f;
fail:
  FcConfigDestroy(config);
  g_ptr_array_free(f->files, TRUE);
  g_free(f);
  g_free(abs);
  return NULL;
}

void fonts_free(Fonts *f) {
  if (!f)
    return;
  g_object_unref(f->map);
  FcConfigDestroy(f->config);
  g_ptr_array_free(f->files, TRUE);
  g_array_free(f->faces, TRUE);
  g_string_chunk_free(f->names);
  g_free(f);
}

PangoFontMap *fonts_font_map(const Fonts *f) { return f->map; }

const GPtrArray *fonts_files(const Fonts *f) { return f->files; }

const GArray *fonts_faces(const Fonts *f) { return f->faces; }

PangoContext *fonts_context(const Fonts *f) {
  PangoContext *ctx = pango_font_map_create_context(f->map);
  /* DESIGN.md: 72 dpi, or 10 pt becomes 13.3; unrounded positions, or
   * justified lines miss the margin. */
  pango_cairo_context_set_resolution(ctx, 72.0);
  pango_context_set_round_glyph_positions(ctx, FALSE);
  cairo_font_options_t *fo = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
  pango_cairo_context_set_font_options(ctx, fo);
  cairo_font_options_destroy(fo);
  return ctx;
}
