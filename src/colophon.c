/* colophon.c: the colophon's lines for both books (colophon.h). */
#include "colophon.h"
#include "util.h"

#include <string.h>

static void add_line(Colophon *c, LabelId label, char *owned_value, bool link)
{
  if (!owned_value || !*owned_value) {
    g_free(owned_value);
    return;
  }
  ColophonLine l = {label, owned_value, link};
  g_array_append_val(c->lines, l);
}

static void add_name(GPtrArray *names, const char *f)
{
  bool seen = !f || !*f;
  for (guint k = 0; k < names->len && !seen; k++)
    seen = strcmp(names->pdata[k], f) == 0;
  if (!seen)
    g_ptr_array_add(names, (gpointer)f);
}

/* The characters of the book's text, each once, in order of first use:
 * code's (code spans and blocks) into mono, the rest into text. */
static void book_chars(const Book *book, GArray *text, GArray *mono)
{
  GHashTable *seen[2] = {g_hash_table_new(NULL, NULL), g_hash_table_new(NULL, NULL)};
  for (guint ci = 0; ci < book->chapters->len; ci++) {
    BookIter it;
    book_iter_init(&it, ((BookChapter *)book->chapters->pdata[ci])->root);
    while (book_iter_next(&it) != BOOK_ITER_DONE) {
      const BookNode *n = it.cur;
      if (it.ev != BOOK_ITER_ENTER || !n->text)
        continue;
      int m = n->type == BOOK_CODE || n->type == BOOK_CODE_BLOCK;
      for (const char *p = n->text; *p;) {
        if ((guchar)*p < 0x80) { /* ASCII, most of a book: not decoded */
          p++;
          continue;
        }
        gunichar ch = g_utf8_get_char(p);
        p = g_utf8_next_char(p);
        if (g_hash_table_contains(seen[m], GUINT_TO_POINTER(ch)))
          continue;
        g_hash_table_add(seen[m], GUINT_TO_POINTER(ch));
        g_array_append_val(m ? mono : text, ch);
      }
    }
  }
  g_hash_table_destroy(seen[0]);
  g_hash_table_destroy(seen[1]);
}

/* The faces' family names, each once, in the faces' order, then the
 * fallback faces (fonts/fallback.conf) that draw characters of the book's
 * text, joined as the language joins names: "Charis SIL, DejaVu Sans Mono
 * and Symbola". */
static char *families(const Book *book, const Fonts *fonts, const char *lang)
{
  if (!fonts)
    return NULL;
  const GArray *faces = fonts_faces(fonts);
  GPtrArray *names = g_ptr_array_new();
  const char *text_family = NULL, *mono_family = NULL;
  for (guint i = 0; i < faces->len; i++) {
    const FontsFace *f = &g_array_index(faces, FontsFace, i);
    add_name(names, f->family);
    if (f->mono && !mono_family)
      mono_family = f->family;
    else if (!f->mono && !text_family)
      text_family = f->family;
  }
  GArray *cps[2] = {g_array_new(FALSE, FALSE, sizeof(gunichar)),
                    g_array_new(FALSE, FALSE, sizeof(gunichar))};
  book_chars(book, cps[0], cps[1]);
  GArray *own = g_array_new(FALSE, FALSE, sizeof(gunichar));
  for (int m = 0; m < 2; m++) {
    const char *family = m ? mono_family : text_family;
    if (!family || !cps[m]->len)
      continue;
    GArray *uses = fonts_split(fonts, family, lang, cps[m], own);
    for (guint u = 0; u < uses->len; u++) {
      FontsUse *fu = &g_array_index(uses, FontsUse, u);
      add_name(names, fu->face->family);
      g_array_free(fu->cps, TRUE);
    }
    g_array_free(uses, TRUE);
  }
  g_array_free(own, TRUE);
  g_array_free(cps[0], TRUE);
  g_array_free(cps[1], TRUE);
  char *s = labels_join(lang, names);
  g_ptr_array_free(names, TRUE);
  return s;
}

Colophon *colophon_new(const Book *book, const char *lang, const char *identifier,
                       gint64 build_time, const Fonts *fonts)
{
  Colophon *c = g_new0(Colophon, 1);
  c->lines = g_array_new(FALSE, TRUE, sizeof(ColophonLine));
  const char *src = book->meta.source;
  if (src && *src)
    add_line(c, LABEL_SOURCE, g_strdup(src), book_url_is_external(src));
  add_line(c, LABEL_IDENTIFIER, g_strdup(identifier), false);
  GDateTime *dt = g_date_time_new_from_unix_utc(build_time);
  if (dt) {
    char *ymd = g_date_time_format(dt, "%Y-%m-%d");
    /* without SOURCE_DATE_EPOCH a build takes the text's date (util_build_time),
     * which is no build date: say what it is */
    const char *sde = util_source_date_epoch();
    const char *date = book->meta.date;
    bool dated = !(sde && *sde) && date && strncmp(date, ymd, 10) == 0;
    add_line(c, dated ? LABEL_DATED : LABEL_BUILT, labels_date(lang, ymd), false);
    g_free(ymd);
    g_date_time_unref(dt);
  }
  add_line(c, LABEL_TYPEFACES, families(book, fonts, lang), false);
  c->made_with = g_strdup_printf("%s octavo %s", labels_get(lang, LABEL_MADE_WITH), OCTAVO_VERSION);
  return c;
}

void colophon_identify(Colophon *c, const char *identifier)
{
  if (!identifier || !*identifier)
    return;
  ColophonLine l = {LABEL_IDENTIFIER, g_strdup(identifier), false};
  guint at = c->lines->len > 0 && g_array_index(c->lines, ColophonLine, 0).label == LABEL_SOURCE;
  g_array_insert_val(c->lines, at, l);
}

void colophon_free(Colophon *c)
{
  if (!c)
    return;
  for (guint i = 0; i < c->lines->len; i++)
    g_free(g_array_index(c->lines, ColophonLine, i).value);
  g_array_free(c->lines, TRUE);
  g_free(c->made_with);
  g_free(c);
}
