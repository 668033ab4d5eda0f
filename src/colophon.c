/* colophon.c: the colophon's lines for both books (colophon.h). */
#include "colophon.h"

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

/* The faces' family names, each once, in the faces' order, joined as the
 * language joins names: "Charis SIL and DejaVu Sans Mono". */
static char *families(const Fonts *fonts, const char *lang)
{
  if (!fonts)
    return NULL;
  const GArray *faces = fonts_faces(fonts);
  GPtrArray *names = g_ptr_array_new();
  for (guint i = 0; i < faces->len; i++) {
    const char *f = g_array_index(faces, FontsFace, i).family;
    bool seen = !f || !*f;
    for (guint k = 0; k < names->len && !seen; k++)
      seen = strcmp(names->pdata[k], f) == 0;
    if (!seen)
      g_ptr_array_add(names, (gpointer)f);
  }
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
    const char *sde = g_getenv("SOURCE_DATE_EPOCH");
    const char *date = book->meta.date;
    bool dated = !(sde && *sde) && date && strncmp(date, ymd, 10) == 0;
    add_line(c, dated ? LABEL_DATED : LABEL_BUILT, labels_date(lang, ymd), false);
    g_free(ymd);
    g_date_time_unref(dt);
  }
  add_line(c, LABEL_TYPEFACES, families(fonts, lang), false);
  c->made_with = g_strdup_printf("%s octavo %s", labels_get(lang, LABEL_MADE_WITH), OCTAVO_VERSION);
  return c;
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
