/* fontstack.c: the EPUB's fallback faces (see fontstack.h). Subsets with
 * subset.c, asks fonts.c which face draws what; writes no file itself. */
#include "fontstack.h"

#include <string.h>

#include "subset.h"

void fontstack_file_clear(FontstackFile *f)
{
  g_free(f->file);
  if (f->data)
    g_bytes_unref(f->data);
  memset(f, 0, sizeof *f);
}

/* One fallback face with the characters of both stacks it draws. */
typedef struct {
  const FontsFace *face;
  GArray *cps;
  bool text, mono; /* in the text stack, in the code stack */
} Used;

static Used *used_for(GArray *used, const FontsFace *face)
{
  for (guint i = 0; i < used->len; i++)
    if (g_array_index(used, Used, i).face == face ||
        (!strcmp(g_array_index(used, Used, i).face->path, face->path) &&
         g_array_index(used, Used, i).face->index == face->index))
      return &g_array_index(used, Used, i);
  Used u = {face, g_array_new(FALSE, FALSE, sizeof(gunichar)), false, false};
  g_array_append_val(used, u);
  return &g_array_index(used, Used, used->len - 1);
}

static void collect(GArray *used, GArray *uses, bool mono)
{
  for (guint i = 0; i < uses->len; i++) {
    FontsUse *fu = &g_array_index(uses, FontsUse, i);
    Used *u = used_for(used, fu->face);
    g_array_append_vals(u->cps, fu->cps->data, fu->cps->len);
    if (mono)
      u->mono = true;
    else
      u->text = true;
    g_array_free(fu->cps, TRUE);
  }
  g_array_free(uses, TRUE);
}

/* Subset and describe one face; false on a subset error. */
static bool embed(Book *book, const Used *u, GArray *files, GString *faces, bool *embedded)
{
  *embedded = false;
  /* A colour face (Noto Color Emoji: PNG bitmaps, CBDT) is left to the
   * reader's own emoji font, which every reading system has: Apple's
   * (CoreText) and others draw no CBDT glyph, and each emoji would add
   * a few kilobytes. Named in the stack, for a reader that has it. */
  if (u->face->color)
    return true;
  GError *err = NULL;
  GBytes *data = subset_font_face(u->face->path, u->face->index, u->cps, &err);
  *embedded = false;
  if (!data) {
    book_diag(book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
    return false;
  }
  gsize len = g_bytes_get_size(data);
  if (len > FONTSTACK_MAX_BYTES) {
    book_diag(
        book, BOOK_WARNING, NULL,
        "font %s: the subset of %u characters is %zu KB, over %d KB: not embedded in the EPUB, "
        "named in its font stack for the reader's own copy",
        u->face->family, u->cps->len, len / 1024, FONTSTACK_MAX_BYTES / 1024);
    g_bytes_unref(data);
    return true;
  }
  bool cff = len >= 4 && memcmp(g_bytes_get_data(data, NULL), "OTTO", 4) == 0;
  GString *name = g_string_new(NULL);
  for (const char *p = u->face->family; *p; p++)
    if (g_ascii_isalnum(*p))
      g_string_append_c(name, *p);
  g_string_append(name, cff ? ".otf" : ".ttf");
  FontstackFile f = {g_string_free(name, FALSE), cff ? "font/otf" : "font/ttf", data};
  g_array_append_val(files, f);
  g_string_append_printf(
      faces,
      "@font-face {\n  font-family: \"%s\";\n  font-style: normal;\n  font-weight: 400;\n"
      "  src: url(\"../fonts/%s\") format(\"%s\");\n}\n",
      u->face->family, f.file, cff ? "opentype" : "truetype");
  *embedded = true;
  return true;
}

static void stack_rule(GString *stacks, const char *sel, const char *own, GArray *used, bool mono,
                       const char *generic)
{
  g_string_append_printf(stacks, "%s {\n  font-family: \"%s\"", sel, own);
  for (guint i = 0; i < used->len; i++) {
    const Used *u = &g_array_index(used, Used, i);
    if (mono ? u->mono : u->text)
      g_string_append_printf(stacks, ", \"%s\"", u->face->family);
  }
  g_string_append_printf(stacks, ", %s;\n}\n", generic);
}

bool fontstack_build(Book *book, const Fonts *fonts, const char *text_family,
                     const char *mono_family, const GArray *text_cps, const GArray *mono_cps,
                     GArray *own_text, GArray *own_mono, GArray *files, GString *faces,
                     GString *stacks)
{
  const char *lang = book->meta.lang;
  GArray *used = g_array_new(FALSE, TRUE, sizeof(Used));
  collect(used, fonts_split(fonts, text_family, lang, text_cps, own_text), false);
  collect(used, fonts_split(fonts, mono_family, lang, mono_cps, own_mono), true);
  bool ok = true;
  for (guint i = 0; i < used->len && ok; i++) {
    Used *u = &g_array_index(used, Used, i);
    bool embedded = false;
    ok = embed(book, u, files, faces, &embedded);
  }
  if (ok && used->len) {
    g_string_append_printf(stacks,
                           "/* The faces for the characters %s and %s lack, in the order "
                           "the print book takes them (fonts/fallback.conf). */\n",
                           text_family, mono_family);
    stack_rule(stacks, "html", text_family, used, false, "serif");
    stack_rule(stacks, "code, pre, kbd, samp", mono_family, used, true, "monospace");
  }
  for (guint i = 0; i < used->len; i++)
    g_array_free(g_array_index(used, Used, i).cps, TRUE);
  g_array_free(used, TRUE);
  return ok;
}
