/* fonts.c: the private font set. A fontconfig configuration that knows only
 * DATADIR/fonts and the fallback faces DATADIR/fonts/fallback.conf names
 * (never the system's configuration), with a cache directory, and a pango
 * cairo font map built on it. Draws nothing and lays out nothing. */
#include "fonts.h"

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <string.h>
#include <pthread.h>

struct Fonts {
  FcConfig *config;
  PangoFontMap *map;
  GPtrArray *files;
  GArray *faces;       /* FontsFace */
  GStringChunk *names; /* the faces' family names */
  GHashTable *chains;  /* "family\x1flang" -> Chain: the order fonts are tried in */
  GArray *kept;        /* Kept: what lives until fonts_free (fonts_keep) */
  pthread_mutex_t kept_lock; /* kept: fonts_keep is called on any thread */
};

typedef struct {
  gpointer data;
  GDestroyNotify destroy;
} Kept;

/* The faces tried for a family, in pango's order (fontconfig's sort of
 * the family with its fallbacks), with each face's coverage. */
typedef struct {
  FcFontSet *sorted;
  FcCharSet *all; /* the union of their coverage */
  GArray *faces;  /* FontsFace per entry of sorted (family, path, index filled) */
} Chain;

static void chain_free(gpointer p)
{
  Chain *c = p;
  FcFontSetDestroy(c->sorted);
  FcCharSetDestroy(c->all);
  g_array_free(c->faces, TRUE);
  g_free(c);
}

static gint cmp_face(gconstpointer pa, gconstpointer pb)
{
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
static void read_faces(Fonts *f, FcFontSet *set)
{
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
      FontsFace face = {path,
                        g_string_chunk_insert_const(f->names, family ? (const char *)family : ""),
                        (int)FcWeightToOpenTypeDouble(weight),
                        slant != FC_SLANT_ROMAN,
                        spacing == FC_MONO,
                        0,
                        false};
      g_array_append_val(f->faces, face);
      break;
    }
  }
  g_array_sort(f->faces, cmp_face);
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The configuration text: the cache directory, then the fallback faces of
 * DATADIR/fonts/fallback.conf (may be absent: then the book's faces only).
 * The cache directory is named after a checksum of that text, because
 * fontconfig keeps in its cache what the file's scan rules made of each
 * font (Charis SIL's coverage) and checks only the directories' times. */
static bool load_config(FcConfig *config, const char *fontdir, GError **err)
{
  char *path = g_build_filename(fontdir, "fallback.conf", NULL);
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, NULL))
    text = g_strdup("<fontconfig/>");
  char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA1, text, -1);
  sum[12] = '\0';
  char *cache = g_strdup_printf("%s/octavo/fontconfig-%s", g_get_user_cache_dir(), sum);
  g_free(sum);
  g_mkdir_with_parents(cache, 0755); /* best effort: without it fontconfig only rescans */
  /* The cache directory can only be set through configuration text. */
  GString *conf = g_string_new("<?xml version=\"1.0\"?>\n<fontconfig>\n<cachedir>");
  char *esc = g_markup_escape_text(cache, -1);
  g_string_append(conf, esc);
  g_string_append(conf, "</cachedir>\n</fontconfig>\n");
  g_free(esc);
  bool ok = FcConfigParseAndLoadFromMemory(config, (const FcChar8 *)conf->str, FcFalse) &&
            FcConfigParseAndLoadFromMemory(config, (const FcChar8 *)text, FcTrue) &&
            FcConfigBuildFonts(config);
  if (!ok)
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not a usable fontconfig file", path);
  g_string_free(conf, TRUE);
  g_free(cache);
  g_free(text);
  g_free(path);
  return ok;
}

/* A font map on the private configuration. Its resolution is the
 * contexts' 72 dpi (context_on) too: pango makes contexts of its own on a
 * map, at the map's resolution (a font's metrics, pango_fc_font_get_metrics,
 * lay out sample text on one), and the pattern pango asks fontconfig for
 * carries the dpi and the size in points, so at the default 96 dpi each
 * font's metrics made a second pattern of the same pixel size, and each
 * pattern costs a sort of the whole font set (FcFontSetSort, 2.3 M
 * instructions, on a thread pango starts): 13 of the report's 30 sorts.
 * The fonts are the same: the pixel size decides them. */
static PangoFontMap *map_on(FcConfig *config)
{
  PangoFontMap *map = pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT);
  pango_fc_font_map_set_config(PANGO_FC_FONT_MAP(map), config);
  pango_cairo_font_map_set_resolution(PANGO_CAIRO_FONT_MAP(map), 72.0);
  return map;
}

Fonts *fonts_load(const char *datadir, GError **err)
{
  char *dir = g_build_filename(datadir ? datadir : ".", "fonts", NULL);
  char *abs = g_canonicalize_filename(dir, NULL);
  g_free(dir);
  FcConfig *config = FcConfigCreate();
  Fonts *f = g_new0(Fonts, 1);
  pthread_mutex_init(&f->kept_lock, NULL);
  f->files = g_ptr_array_new_with_free_func(g_free);
  if (!load_config(config, abs, err))
    goto fail;
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
  f->chains = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, chain_free);
  /* The private configuration is also fontconfig's current one, before
   * the first font map: pango's font maps start a thread that calls
   * FcInit(), which otherwise loads the system's configuration and the
   * caches of all its fonts (a fifth of a small book's time), never used. */
  FcConfigSetCurrent(config);
  f->map = map_on(config);
  g_free(abs);
  return f;
fail:
  FcConfigDestroy(config);
  g_ptr_array_free(f->files, TRUE);
  pthread_mutex_destroy(&f->kept_lock);
  g_free(f);
  g_free(abs);
  return NULL;
}

/* The chain of a family for a language, made once: the pattern pango makes
 * (family, language, regular weight, upright), substituted by the private
 * configuration (the fallback aliases) and sorted by fontconfig. */
static Chain *chain_for(const Fonts *cf, const char *family, const char *lang)
{
  Fonts *f = (Fonts *)cf; /* the cache only */
  char *key = g_strconcat(family, "\x1f", lang ? lang : "", NULL);
  Chain *c = g_hash_table_lookup(f->chains, key);
  if (c) {
    g_free(key);
    return c;
  }
  FcPattern *pat = FcPatternCreate();
  FcPatternAddString(pat, FC_FAMILY, (const FcChar8 *)family);
  if (lang && *lang)
    FcPatternAddString(pat, FC_LANG, (const FcChar8 *)lang);
  FcPatternAddInteger(pat, FC_SLANT, FC_SLANT_ROMAN);
  FcPatternAddDouble(pat, FC_WEIGHT, FC_WEIGHT_REGULAR);
  FcConfigSubstitute(f->config, pat, FcMatchPattern);
  FcDefaultSubstitute(pat);
  FcResult res;
  FcCharSet *all = NULL;
  c = g_new0(Chain, 1);
  c->sorted = FcFontSort(f->config, pat, FcTrue, &all, &res);
  c->all = all ? all : FcCharSetCreate();
  if (!c->sorted)
    c->sorted = FcFontSetCreate();
  c->faces = g_array_new(FALSE, TRUE, sizeof(FontsFace));
  for (int i = 0; i < c->sorted->nfont; i++) {
    FcPattern *p = c->sorted->fonts[i];
    FcChar8 *file = NULL, *fam = NULL;
    int index = 0, spacing = FC_PROPORTIONAL;
    FcBool color = FcFalse;
    FcPatternGetBool(p, FC_COLOR, 0, &color);
    FcPatternGetString(p, FC_FILE, 0, &file);
    FcPatternGetString(p, FC_FAMILY, 0, &fam);
    FcPatternGetInteger(p, FC_INDEX, 0, &index);
    FcPatternGetInteger(p, FC_SPACING, 0, &spacing);
    FontsFace face = {g_string_chunk_insert_const(f->names, file ? (const char *)file : ""),
                      g_string_chunk_insert_const(f->names, fam ? (const char *)fam : ""),
                      400,
                      false,
                      spacing == FC_MONO,
                      index,
                      color != FcFalse};
    g_array_append_val(c->faces, face);
  }
  FcPatternDestroy(pat);
  g_hash_table_insert(f->chains, key, c);
  return c;
}

const FontsFace *fonts_face_for(const Fonts *f, const char *family, const char *lang, gunichar ch)
{
  Chain *c = chain_for(f, family, lang);
  if (!FcCharSetHasChar(c->all, ch))
    return NULL;
  for (int i = 0; i < c->sorted->nfont; i++) {
    FcCharSet *cs = NULL;
    if (FcPatternGetCharSet(c->sorted->fonts[i], FC_CHARSET, 0, &cs) == FcResultMatch &&
        FcCharSetHasChar(cs, ch))
      return &g_array_index(c->faces, FontsFace, i);
  }
  return NULL;
}

GArray *fonts_split(const Fonts *f, const char *family, const char *lang, const GArray *cps,
                    GArray *own)
{
  Chain *c = chain_for(f, family, lang);
  GArray *uses = g_array_new(FALSE, TRUE, sizeof(FontsUse));
  GHashTable *at = g_hash_table_new(g_direct_hash, g_direct_equal); /* face -> index + 1 */
  for (guint i = 0; i < cps->len; i++) {
    gunichar ch = g_array_index(cps, gunichar, i);
    const FontsFace *face = fonts_face_for(f, family, lang, ch);
    if (!face)
      continue;
    if (fonts_is_own(f, face)) {
      g_array_append_val(own, ch);
      continue;
    }
    guint k = GPOINTER_TO_UINT(g_hash_table_lookup(at, face));
    if (!k) {
      FontsUse u = {face, g_array_new(FALSE, FALSE, sizeof(gunichar))};
      g_array_append_val(uses, u);
      k = uses->len;
      g_hash_table_insert(at, (gpointer)face, GUINT_TO_POINTER(k));
    }
    g_array_append_val(g_array_index(uses, FontsUse, k - 1).cps, ch);
  }
  g_hash_table_destroy(at);
  /* in the chain's order, the order of a CSS font stack */
  GArray *sorted = g_array_new(FALSE, TRUE, sizeof(FontsUse));
  for (guint j = 0; j < c->faces->len; j++)
    for (guint i = 0; i < uses->len; i++)
      if (g_array_index(uses, FontsUse, i).face == &g_array_index(c->faces, FontsFace, j))
        g_array_append_val(sorted, g_array_index(uses, FontsUse, i));
  g_array_free(uses, TRUE);
  return sorted;
}

bool fonts_is_own(const Fonts *f, const FontsFace *face)
{
  for (guint i = 0; i < f->files->len; i++)
    if (strcmp(f->files->pdata[i], face->path) == 0)
      return true;
  return false;
}

void fonts_free(Fonts *f)
{
  if (!f)
    return;
  for (guint i = 0; f->kept && i < f->kept->len; i++) {
    Kept *k = &g_array_index(f->kept, Kept, i);
    k->destroy(k->data);
  }
  if (f->kept)
    g_array_free(f->kept, TRUE);
  g_object_unref(f->map);
  FcConfigDestroy(f->config);
  g_ptr_array_free(f->files, TRUE);
  g_array_free(f->faces, TRUE);
  g_string_chunk_free(f->names);
  g_hash_table_destroy(f->chains);
  pthread_mutex_destroy(&f->kept_lock);
  g_free(f);
}

void fonts_keep(const Fonts *cf, gpointer data, GDestroyNotify destroy)
{
  Fonts *f = (Fonts *)cf; /* what it keeps only */
  Kept k = {data, destroy};
  pthread_mutex_lock(&f->kept_lock);
  if (!f->kept)
    f->kept = g_array_new(FALSE, FALSE, sizeof(Kept));
  g_array_append_val(f->kept, k);
  pthread_mutex_unlock(&f->kept_lock);
}

PangoFontMap *fonts_font_map(const Fonts *f)
{
  return f->map;
}

const GPtrArray *fonts_files(const Fonts *f)
{
  return f->files;
}

const GArray *fonts_faces(const Fonts *f)
{
  return f->faces;
}

/* A print-layout context on map. */
static PangoContext *context_on(PangoFontMap *map)
{
  PangoContext *ctx = pango_font_map_create_context(map);
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

PangoContext *fonts_context(const Fonts *f)
{
  return context_on(f->map);
}

PangoContext *fonts_context_own_map(const Fonts *f)
{
  PangoFontMap *map = map_on(f->config);
  PangoContext *ctx = context_on(map);
  g_object_unref(map); /* the context keeps it */
  return ctx;
}
