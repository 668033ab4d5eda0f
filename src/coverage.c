/* coverage.c: the characters no face has, reported once each. Only asks
 * fonts.c which face would draw a character; the PDF's placeholder for
 * them (U+FFFD) is shape.c's. */
#include "coverage.h"

#include <string.h>

#define NCHARS 0x110000

typedef struct {
  Book *book;
  const Fonts *fonts;
  const char *text_face, *code_face;
  guint32 *seen[2];   /* bit sets of the characters checked already: [0] text, [1] code */
  GHashTable *warned; /* gunichar: reported */
  guint missing;
} Check;

/* Set bit ch of set; whether it was set before. */
static bool test_and_set(guint32 *set, gunichar ch)
{
  guint32 bit = 1u << (ch & 31);
  bool was = set[ch >> 5] & bit;
  set[ch >> 5] |= bit;
  return was;
}

/* Drawn as nothing, whatever the font: no glyph is needed. */
static bool invisible(gunichar ch)
{
  switch (g_unichar_type(ch)) {
  case G_UNICODE_CONTROL:
  case G_UNICODE_FORMAT:
  case G_UNICODE_SPACE_SEPARATOR:
  case G_UNICODE_LINE_SEPARATOR:
  case G_UNICODE_PARAGRAPH_SEPARATOR: return true;
  default: return (ch >= 0xFE00 && ch <= 0xFE0F) || (ch >= 0xE0100 && ch <= 0xE01EF);
  }
}

static bool drawable(const Check *k, const char *face, gunichar ch)
{
  const char *lang = k->book->meta.lang;
  if (invisible(ch) || fonts_face_for(k->fonts, face, lang, ch))
    return true;
  /* harfbuzz composes a precomposed letter from its parts when the font
   * lacks it (an accented letter from the letter and the accent) */
  gunichar parts[G_UNICHAR_MAX_DECOMPOSITION_LENGTH];
  gsize n = g_unichar_fully_decompose(ch, FALSE, parts, G_N_ELEMENTS(parts));
  if (n < 2)
    return false;
  for (gsize i = 0; i < n; i++)
    if (!invisible(parts[i]) && !fonts_face_for(k->fonts, face, lang, parts[i]))
      return false;
  return true;
}

/* Check the characters of t, set in face, from source position pos (NULL:
 * unknown). A column is reported for characters on the text's first line. */
static void check_text(Check *k, const char *t, const char *face, const BookPos *pos)
{
  if (!t)
    return;
  int line = 0;
  const char *line_start = t;
  guint32 *seen = k->seen[face == k->code_face];
  for (const char *p = t; *p; p = g_utf8_next_char(p)) {
    /* ASCII checked already (nearly all of a Latin text): skipped in a
     * tight loop; a line break is counted below */
    guchar b;
    while ((b = (guchar)*p) && b < 0x80 && b != '\n' && (seen[b >> 5] >> (b & 31) & 1))
      p++;
    if (!b)
      break;
    gunichar ch = (guchar)*p < 0x80 ? (gunichar)*p : g_utf8_get_char_validated(p, -1);
    if (ch == '\n') {
      line++;
      line_start = p + 1;
      continue;
    }
    if (ch >= NCHARS || test_and_set(seen, ch) || !k->fonts)
      continue;
    if (drawable(k, face, ch) || g_hash_table_contains(k->warned, GUINT_TO_POINTER(ch)))
      continue;
    g_hash_table_add(k->warned, GUINT_TO_POINTER(ch));
    k->missing++;
    BookPos at = {0};
    if (pos) {
      at = *pos;
      if (at.line > 0) {
        at.line += line;
        at.col = line == 0 && at.col > 0 ? at.col + (int)(p - line_start) : 0;
      }
    }
    char c[8] = {0};
    g_unichar_to_utf8(ch, c);
    book_diag(k->book, BOOK_WARNING, pos ? &at : NULL,
              "no font has U+%04X '%s'; drawn as U+FFFD '\xEF\xBF\xBD' in the PDF, left to the "
              "reader's fonts in the EPUB",
              ch, c);
  }
}

static bool in_code(const BookNode *n)
{
  for (; n; n = n->parent) {
    if (n->type == BOOK_CODE || n->type == BOOK_CODE_BLOCK)
      return true;
    if (n->type == BOOK_HTML_INLINE && n->as.html.tag &&
        (!strcmp(n->as.html.tag, "code") || !strcmp(n->as.html.tag, "kbd") ||
         !strcmp(n->as.html.tag, "samp") || !strcmp(n->as.html.tag, "tt")))
      return true;
  }
  return false;
}

static void check_tree(Check *k, BookNode *root)
{
  BookIter it;
  book_iter_init(&it, root);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE)
    if (ev == BOOK_ITER_ENTER && it.cur->text)
      check_text(k, it.cur->text, in_code(it.cur) ? k->code_face : k->text_face, &it.cur->pos);
}

/* The characters of the bit sets as sorted arrays: text (either set) and
 * code. */
static void take_chars(const Check *k, CoverageChars *chars)
{
  chars->text = g_array_new(FALSE, FALSE, sizeof(gunichar));
  chars->code = g_array_new(FALSE, FALSE, sizeof(gunichar));
  for (gunichar w = 0; w < NCHARS / 32; w++) {
    guint32 any = k->seen[0][w] | k->seen[1][w];
    for (gunichar b = 0; any && b < 32; b++) {
      gunichar ch = w * 32 + b;
      if (any & (1u << b))
        g_array_append_val(chars->text, ch);
      if (k->seen[1][w] & (1u << b))
        g_array_append_val(chars->code, ch);
    }
  }
}

guint coverage_check_chars(Book *book, const Fonts *fonts, const char *text_face,
                           const char *code_face, CoverageChars *chars)
{
  Check k = {book,
             fonts,
             text_face,
             code_face,
             {g_new0(guint32, NCHARS / 32), g_new0(guint32, NCHARS / 32)},
             g_hash_table_new(g_direct_hash, g_direct_equal),
             0};
  for (guint i = 0; i < book->chapters->len; i++)
    check_tree(&k, ((BookChapter *)book->chapters->pdata[i])->root);
  for (guint i = 0; i < book->footnotes->len; i++)
    check_tree(&k, ((BookFootnote *)book->footnotes->pdata[i])->def);
  /* last: a title taken from a heading is reported at the heading */
  const BookMeta *m = &book->meta;
  const char *meta[] = {m->title, m->subtitle, m->date, m->publisher, m->description, m->rights};
  for (size_t i = 0; i < G_N_ELEMENTS(meta); i++)
    check_text(&k, meta[i], text_face, NULL);
  for (guint i = 0; m->authors && i < m->authors->len; i++)
    check_text(&k, m->authors->pdata[i], text_face, NULL);
  if (chars)
    take_chars(&k, chars);
  g_free(k.seen[0]);
  g_free(k.seen[1]);
  g_hash_table_destroy(k.warned);
  return k.missing;
}

guint coverage_check(Book *book, const Fonts *fonts, const char *text_face, const char *code_face)
{
  return coverage_check_chars(book, fonts, text_face, code_face, NULL);
}

void coverage_chars(const Book *book, CoverageChars *chars)
{
  /* without fonts nothing is checked, so nothing is reported to book */
  coverage_check_chars((Book *)book, NULL, "", "\x01code", chars);
}

void coverage_chars_clear(CoverageChars *chars)
{
  if (chars->text)
    g_array_free(chars->text, TRUE);
  if (chars->code)
    g_array_free(chars->code, TRUE);
  chars->text = chars->code = NULL;
}
