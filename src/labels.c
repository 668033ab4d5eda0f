/* labels.c: octavo's own words per language (labels.h). The table is the
 * only place they are spelled; the writers ask for them by id. */
#include "labels.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *lang;
  const char *l[LABEL_COUNT];
  const char *months[12];
  const char *date_fmt; /* printf: day, month name, year */
  bool serial_comma;    /* "A, B, and C" */
} Language;

static const Language languages[] = {
    {"en",
     {"Contents", "By", "and", "Cover", "Title page", "Start of content", "Back to reference",
      "Links", "Landmarks", "Print pages", "Untitled section", "Colophon", "Source", "Identifier",
      "Built", "Typefaces", "Made with", "page %d of %d", "Dated"},
     {"January", "February", "March", "April", "May", "June", "July", "August", "September",
      "October", "November", "December"},
     "%d %s %d",
     true},
    {"fr",
     {"Table des matières", "Par", "et", "Couverture", "Page de titre", "Début du texte",
      "Retour à l’appel", "Liens", "Repères", "Pages imprimées", "Section sans titre", "Colophon",
      "Source", "Identifiant", "Date de fabrication", "Polices", "Réalisé avec", "page %d sur %d", "Daté du"},
     {"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
      "octobre", "novembre", "décembre"},
     "%d %s %d",
     false},
    {"de",
     {"Inhalt", "Von", "und", "Umschlag", "Titelseite", "Textbeginn", "Zurück zum Verweis", "Links",
      "Orientierungspunkte", "Druckseiten", "Abschnitt ohne Titel", "Kolophon", "Quelle", "Kennung",
      "Erstellt am", "Schriften", "Erstellt mit", "Seite %d von %d", "Datiert"},
     {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
      "November", "Dezember"},
     "%d. %s %d",
     false},
    {"es",
     {"Índice", "Por", "y", "Cubierta", "Portada", "Inicio del texto", "Volver a la referencia",
      "Enlaces", "Puntos de referencia", "Páginas impresas", "Sección sin título", "Colofón",
      "Fuente", "Identificador", "Fecha de producción", "Tipografías", "Hecho con",
      "página %d de %d", "Fechado el"},
     {"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
      "octubre", "noviembre", "diciembre"},
     "%d de %s de %d",
     false},
    {"it",
     {"Indice", "Di", "e", "Copertina", "Frontespizio", "Inizio del testo", "Torna al richiamo",
      "Collegamenti", "Punti di riferimento", "Pagine a stampa", "Sezione senza titolo", "Colophon",
      "Fonte", "Identificativo", "Data di produzione", "Caratteri", "Realizzato con",
      "pagina %d di %d", "Datato"},
     {"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
      "ottobre", "novembre", "dicembre"},
     "%d %s %d",
     false},
    {"pt",
     {"Sumário", "Por", "e", "Capa", "Folha de rosto", "Início do texto", "Voltar à referência",
      "Ligações", "Marcos", "Páginas impressas", "Seção sem título", "Colofão", "Fonte",
      "Identificador", "Data de produção", "Tipos de letra", "Feito com", "página %d de %d", "Datado de"},
     {"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro",
      "outubro", "novembro", "dezembro"},
     "%d de %s de %d",
     false},
    {"nl",
     {"Inhoud", "Door", "en", "Omslag", "Titelpagina", "Begin van de tekst",
      "Terug naar de verwijzing", "Koppelingen", "Oriëntatiepunten", "Gedrukte pagina’s",
      "Naamloze sectie", "Colofon", "Bron", "Identificatie", "Gemaakt op", "Lettertypen",
      "Gemaakt met", "pagina %d van %d", "Gedateerd"},
     {"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september",
      "oktober", "november", "december"},
     "%d %s %d",
     false},
};

static const Language *language(const char *lang)
{
  size_t n = 0;
  while (lang && lang[n] && lang[n] != '-' && lang[n] != '_')
    n++;
  for (size_t i = 0; i < G_N_ELEMENTS(languages); i++)
    if (n == strlen(languages[i].lang) && g_ascii_strncasecmp(lang, languages[i].lang, n) == 0)
      return &languages[i];
  return &languages[0];
}

const char *labels_get(const char *lang, LabelId id)
{
  const char *l = language(lang)->l[id];
  return l ? l : languages[0].l[id]; /* a label a language lacks: the English */
}

char *labels_join(const char *lang, const GPtrArray *names)
{
  const Language *l = language(lang);
  GString *s = g_string_new(NULL);
  for (guint i = 0; names && i < names->len; i++) {
    if (i && i + 1 == names->len)
      g_string_append_printf(s, "%s%s ", names->len > 2 && l->serial_comma ? ", " : " ",
                             l->l[LABEL_AND]);
    else if (i)
      g_string_append(s, ", ");
    g_string_append(s, names->pdata[i]);
  }
  return g_string_free(s, FALSE);
}

char *labels_byline(const char *lang, const GPtrArray *authors)
{
  if (!authors || !authors->len)
    return NULL;
  char *names = labels_join(lang, authors);
  char *s = g_strdup_printf("%s %s", labels_get(lang, LABEL_BY), names);
  g_free(names);
  return s;
}

char *labels_date(const char *lang, const char *date)
{
  if (!date)
    return NULL;
  int y, m, d;
  if (sscanf(date, "%4d-%2d-%2d", &y, &m, &d) == 3 && y > 0 && m >= 1 && m <= 12 && d >= 1 &&
      g_date_valid_dmy((GDateDay)d, (GDateMonth)m, (GDateYear)y)) {
    const Language *l = language(lang);
    return g_strdup_printf(l->date_fmt, d, l->months[m - 1], y);
  }
  return g_strdup(date);
}

char *labels_page_of(const char *lang, int page, int pages)
{
  /* the table's formats are literals with two %d each */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  return g_strdup_printf(labels_get(lang, LABEL_PAGE_OF), page, pages);
#pragma GCC diagnostic pop
}
