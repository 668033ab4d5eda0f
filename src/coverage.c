/* coverage.c: the characters no face has, reported once each, and the
 * emoji sequences (joined by ZWJ, with a skin tone, a flag's two letters, a
 * keycap, tags) that the emoji face does not draw as one glyph. Only asks
 * fonts.c which face would draw a character, and harfbuzz what that face
 * makes of a sequence; the PDF's placeholder for a missing character
 * (U+FFFD) is shape.c's. */
#include "coverage.h"

#include <hb.h>
#include <string.h>

#define NCHARS 0x110000

typedef struct {
  Book *book;
  const Fonts *fonts;
  const char *text_face, *code_face;
  guint32 *seen[2];   /* bit sets of the characters checked already: [0] text, [1] code */
  GHashTable *warned; /* gunichar: reported */
  GHashTable *seqs;   /* the emoji sequences checked (UTF-8, owned) */
  GHashTable *hb;     /* face path -> hb_font_t * (NULL: unreadable) */
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

/* The source position of byte p of text t starting at pos (NULL: none):
 * a column only on the text's first line. */
static BookPos pos_in(const BookPos *pos, const char *t, const char *p)
{
  BookPos at = {0};
  if (!pos)
    return at;
  at = *pos;
  if (at.line <= 0)
    return at;
  int line = 0;
  const char *line_start = t;
  for (const char *q = t; q < p; q++)
    if (*q == '\n') {
      line++;
      line_start = q + 1;
    }
  at.line += line;
  at.col = line == 0 && at.col > 0 ? at.col + (int)(p - line_start) : 0;
  return at;
}

/* ---- emoji sequences ---- */

static bool regional(gunichar c)
{
  return c >= 0x1F1E6 && c <= 0x1F1FF;
}

/* What continues an emoji sequence after its base: a variation selector,
 * a skin tone, a keycap's mark, a tag (a subdivision flag). */
static bool extends(gunichar c)
{
  return c == 0xFE0F || c == 0xFE0E || (c >= 0x1F3FB && c <= 0x1F3FF) || c == 0x20E3 ||
         (c >= 0xE0020 && c <= 0xE007F);
}

/* A sequence's base: a character outside ASCII, or a keycap's digit, #
 * or * (followed by U+20E3). */
static bool base(gunichar c, gunichar next)
{
  return c >= 0xA9 || ((g_ascii_isdigit((char)c) || c == '#' || c == '*') && next == 0xFE0F);
}

/* The end of the emoji sequence at p (after its base), and whether it is
 * more than one emoji character with what a font may join (a ZWJ, a skin
 * tone, a flag's second letter, a keycap's mark, tags). */
static const char *sequence_end(const char *p, bool *joined)
{
  gunichar c = g_utf8_get_char(p);
  const char *q = g_utf8_next_char(p);
  *joined = false;
  if (regional(c) && regional(g_utf8_get_char(q))) {
    *joined = true;
    return g_utf8_next_char(q);
  }
  for (;;) {
    gunichar n = g_utf8_get_char(q);
    if (extends(n)) {
      *joined |= n != 0xFE0F && n != 0xFE0E;
      q = g_utf8_next_char(q);
    } else if (n == 0x200D && g_utf8_get_char(g_utf8_next_char(q)) >= 0xA9) {
      *joined = true;
      q = g_utf8_next_char(g_utf8_next_char(q));
    } else {
      return q;
    }
  }
}

/* The harfbuzz font of face (NULL: the file cannot be read), once. */
static hb_font_t *hb_font_of(Check *k, const FontsFace *face)
{
  gpointer v;
  if (g_hash_table_lookup_extended(k->hb, face->path, NULL, &v))
    return v;
  hb_font_t *font = NULL;
  hb_blob_t *blob = hb_blob_create_from_file_or_fail(face->path);
  if (blob) {
    hb_face_t *f = hb_face_create(blob, (unsigned)face->index);
    font = hb_font_create(f);
    hb_face_destroy(f);
    hb_blob_destroy(blob);
  }
  g_hash_table_insert(k->hb, (gpointer)face->path, font);
  return font;
}

/* How many glyphs with an advance harfbuzz makes of seq in font. */
static unsigned visible_glyphs(hb_font_t *font, const char *seq, int len)
{
  hb_buffer_t *buf = hb_buffer_create();
  hb_buffer_add_utf8(buf, seq, len, 0, len);
  hb_buffer_guess_segment_properties(buf);
  hb_shape(font, buf, NULL, 0);
  unsigned n = 0, count = 0;
  hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buf, &n);
  hb_glyph_position_t *gp = hb_buffer_get_glyph_positions(buf, &n);
  for (unsigned i = 0; i < n; i++)
    count += gp[i].x_advance != 0 || info[i].codepoint == 0;
  hb_buffer_destroy(buf);
  return count;
}

/* Each emoji sequence of t (set in face) that its face (the face pango
 * takes for emoji: fonts/fallback.conf's family "emoji") does not draw as
 * one glyph: one warning per distinct sequence, at its first position. */
static void check_sequences(Check *k, const char *t, const BookPos *pos)
{
  const char *lang = k->book->meta.lang;
  for (const char *p = t; *p;) {
    if ((guchar)*p < 0xC2 && !(g_ascii_isdigit(*p) || *p == '#' || *p == '*')) {
      p++;
      continue;
    }
    gunichar c = g_utf8_get_char(p);
    const char *n = g_utf8_next_char(p);
    if (!base(c, g_utf8_get_char(n))) {
      p = n;
      continue;
    }
    bool joined;
    const char *end = sequence_end(p, &joined);
    const FontsFace *face = joined ? fonts_face_for(k->fonts, "emoji", lang, c) : NULL;
    char *seq = face ? g_strndup(p, (gsize)(end - p)) : NULL;
    if (seq && !g_hash_table_contains(k->seqs, seq)) {
      g_hash_table_add(k->seqs, seq);
      hb_font_t *font = hb_font_of(k, face);
      unsigned glyphs = font ? visible_glyphs(font, seq, (int)(end - p)) : 0;
      if (glyphs > 1) {
        GString *cps = g_string_new(NULL);
        for (const char *q = seq; *q; q = g_utf8_next_char(q))
          g_string_append_printf(cps, "%sU+%04X", cps->len ? " " : "", g_utf8_get_char(q));
        BookPos at = pos_in(pos, t, p);
        book_diag(k->book, BOOK_WARNING, pos ? &at : NULL,
                  "emoji sequence %s '%s' is not one glyph in %s: drawn as its %u parts", cps->str,
                  seq, face->family, glyphs);
        g_string_free(cps, TRUE);
      }
    } else {
      g_free(seq);
    }
    p = end;
  }
}

/* Check the characters of t, set in face, from source position pos (NULL:
 * unknown). A column is reported for characters on the text's first line. */
static void check_text(Check *k, const char *t, const char *face, const BookPos *pos)
{
  if (!t)
    return;
  if (k->fonts)
    for (const char *q = t; *q; q++)
      if ((guchar)*q >= 0xE2) { /* U+2000 and above: where emoji are */
        check_sequences(k, t, pos);
        break;
      }
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
             g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
             g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)hb_font_destroy),
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
  g_hash_table_destroy(k.seqs);
  g_hash_table_destroy(k.hb);
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
