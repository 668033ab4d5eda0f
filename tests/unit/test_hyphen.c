/* test_hyphen.c: hyphenation points from libhyphen with Debian's en_US
 * patterns: known words, minimum fragments, what must never be hyphenated,
 * languages without a dictionary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hyphenate.h"

/* The run's dictionaries, as main.c makes them (one per test run). */
static Hyphenator *H;

/* The word with '-' at each point. */
static char *marked(const char *lang, const char *word)
{
  GArray *o = g_array_new(FALSE, FALSE, sizeof(size_t));
  hyphen_points(H, lang, word, -1, o);
  GString *s = g_string_new(NULL);
  size_t last = 0;
  for (guint i = 0; i < o->len; i++) {
    size_t off = g_array_index(o, size_t, i);
    assert_true(off > last || (i == 0 && off > 0));
    assert_true(off < strlen(word));
    g_string_append_len(s, word + last, (gssize)(off - last));
    g_string_append_c(s, '-');
    last = off;
  }
  g_string_append(s, word + last);
  g_array_free(o, TRUE);
  return g_string_free(s, FALSE);
}

#define EXPECT(lang, word, want)                                                                   \
  do {                                                                                             \
    char *got_ = marked(lang, word);                                                               \
    assert_string_equal(got_, want);                                                               \
    g_free(got_);                                                                                  \
  } while (0)

static void test_known_words(void **state)
{
  (void)state;
  EXPECT("en", "hyphenation", "hy-phen-ation");
  EXPECT("en-US", "typography", "ty-pog-ra-phy");
  EXPECT("en_US", "congestion", "con-ges-tion");
  EXPECT("en", "development", "de-vel-op-ment");
  EXPECT("en-GB", "hyphenation", "hy-phen-ation"); /* falls back to en_US */
}

static void test_case_and_punctuation(void **state)
{
  (void)state;
  EXPECT("en", "Hyphenation", "Hy-phen-ation");
  EXPECT("en", "(hyphenation),", "(hy-phen-ation),");
  EXPECT("en", "\xe2\x80\x9chyphenation\xe2\x80\x9d", "\xe2\x80\x9chy-phen-ation\xe2\x80\x9d");
  EXPECT("en", "memory-management", "mem-ory-man-age-ment");
  EXPECT("en", "filesystem's", "filesys-tem's");
}

static void test_soft_hyphens(void **state)
{
  (void)state;
  /* The author's soft hyphens win over the patterns, even without a
   * dictionary; the break comes just after each one. */
  GArray *o = g_array_new(FALSE, FALSE, sizeof(size_t));
  const char *w = "hyphen\xc2\xad"
                  "ation";
  assert_int_equal(hyphen_points(H, "en", w, -1, o), 1);
  assert_int_equal(g_array_index(o, size_t, 0), 8);
  assert_int_equal(hyphen_points(H, NULL, w, -1, o), 1);
  assert_int_equal(hyphen_points(H, "en", "\xc2\xadword", -1, o), 0);
  g_array_free(o, TRUE);
}

static void test_minimum_fragments(void **state)
{
  (void)state;
  GArray *o = g_array_new(FALSE, FALSE, sizeof(size_t));
  const char *words[] = {"hyphenation",     "typography", "development", "abbreviation",
                         "uncopyrightable", "kernel",     "memory",      "allocation"};
  for (size_t w = 0; w < G_N_ELEMENTS(words); w++) {
    size_t n = hyphen_points(H, "en", words[w], -1, o);
    size_t len = strlen(words[w]);
    assert_true(n > 0);
    for (guint i = 0; i < o->len; i++) {
      size_t off = g_array_index(o, size_t, i);
      assert_true(off >= HYPHEN_MIN_LEFT);
      assert_true(len - off >= HYPHEN_MIN_RIGHT);
    }
  }
  /* Too short to break at all. */
  assert_int_equal(hyphen_points(H, "en", "into", -1, o), 0);
  assert_int_equal(hyphen_points(H, "en", "a", -1, o), 0);
  assert_int_equal(hyphen_points(H, "en", "", -1, o), 0);
  g_array_free(o, TRUE);
}

static void test_never(void **state)
{
  (void)state;
  GArray *o = g_array_new(FALSE, FALSE, sizeof(size_t));
  const char *never[] = {"LSFMM",
                         "BPF",
                         "CONFIGURATION",
                         "eBPF",
                         "JavaScript",
                         "x86",
                         "2023",
                         "configuration2",
                         "folio.c",
                         "mm/filemap.c",
                         "https://lwn.net/Articles/",
                         "user@example.com",
                         "page_cache_ra",
                         "a=b+configuration",
                         "\xff\xfe"};
  for (size_t i = 0; i < G_N_ELEMENTS(never); i++)
    if (hyphen_points(H, "en", never[i], -1, o) != 0)
      fail_msg("\"%s\" got %u points", never[i], o->len);
  /* An explicit length: only the first word counts. */
  assert_int_equal(hyphen_points(H, "en", "hyphenation and more", 11, o), 2);
  g_array_free(o, TRUE);
}

/* The character classes points() reads (ASCII without GLib's tables):
 * each code character inside a word keeps it whole; other punctuation,
 * ASCII and not, splits it into runs hyphenated on their own or is
 * stripped around it. */
static void test_character_classes(void **state)
{
  (void)state;
  GArray *o = g_array_new(FALSE, FALSE, sizeof(size_t));
  const char *code = "/\\_@.:=<>{}[]()#$%&*+~|^`;,!?\"";
  for (const char *c = code; *c; c++) {
    char *w = g_strdup_printf("hyphenation%cconfiguration", *c);
    if (hyphen_points(H, "en", w, -1, o) != 0)
      fail_msg("\"%s\" got %u points", w, o->len);
    g_free(w);
  }
  EXPECT("en", "hyphenation-configuration", "hy-phen-ation-con-fig-u-ra-tion");
  EXPECT("en", "\xc2\xabhyphenation\xc2\xbb,", "\xc2\xabhy-phen-ation\xc2\xbb,");
  EXPECT("en", "'hyphenation'", "'hy-phen-ation'");
  EXPECT("en", "HYPHENATION", "HYPHENATION");
  EXPECT("en", "hyphenATION", "hyphenATION");
  EXPECT("en",
         "hyphenation\xe2\x80\x94"
         "configuration",
         "hy-phen-ation\xe2\x80\x94"
         "con-fig-u-ra-tion");
  EXPECT("en", "\xe2\x80\x9e\xe2\x80\x9chyphenation!\xe2\x80\x9d",
         "\xe2\x80\x9e\xe2\x80\x9chy-phen-ation!\xe2\x80\x9d");
  EXPECT("de", "Silbentrennung", "Sil-ben-tren-nung");
  EXPECT("de",
         "\xc3\x9c"
         "berm\xc3\xa4\xc3\x9fig",
         "\xc3\x9c"
         "ber-m\xc3\xa4-\xc3\x9fig");
  g_array_free(o, TRUE);
}

static void test_languages(void **state)
{
  (void)state;
  assert_true(hyphen_has_language(H, "en"));
  assert_true(hyphen_has_language(H, "en-US"));
  assert_false(hyphen_has_language(H, NULL));
  assert_false(hyphen_has_language(H, ""));
  assert_false(hyphen_has_language(H, "zz"));
  EXPECT(NULL, "hyphenation", "hyphenation");
  EXPECT("zz", "hyphenation", "hyphenation");
  /* Freed, then a new run's: the dictionary loads again. */
  hyphenator_free(H);
  H = hyphenator_new();
  EXPECT("en", "hyphenation", "hy-phen-ation");
}

/* The label languages' patterns (Makefile: HYPHEN_PKGS), those in a
 * single-byte character set included (de ISO-8859-1, el ISO-8859-7, ru
 * KOI8-R): letters outside ASCII hyphenated where the patterns say. */
static void test_other_languages(void **state)
{
  (void)state;
  EXPECT("de", "Überwachungsmaßnahmen", "Über-wa-chungs-maß-nah-men");
  EXPECT("ru", "Человеконенавистничество", "Че-лове-коне-на-вист-ни-че-ство");
  EXPECT("el", "ηλεκτρομαγνητική", "ηλε-κτρο-μα-γνη-τική");
  EXPECT("fr", "anticonstitutionnellement", "an-ti-cons-ti-tu-tion-nel-le-ment");
  EXPECT("nl", "verantwoordelijkheid", "ver-ant-woor-de-lijk-heid");
  EXPECT("es-MX", "electrodoméstico", "elec-tro-do-mé-st-ico"); /* es_ES's patterns */
  /* a letter the patterns' character set has not: that run stays whole */
  EXPECT("de", "Überwachungsmaßnahmenǅ", "Überwachungsmaßnahmenǅ");
  /* set without hyphens whatever is installed, and no warning */
  assert_true(hyphen_unhyphenated("fa"));
  assert_true(hyphen_unhyphenated("zh-Hant"));
  assert_false(hyphen_unhyphenated("de-AT"));
  assert_false(hyphen_has_language(H, "th"));
  assert_null(hyphen_missing(H, "fa"));
  assert_null(hyphen_missing(H, "de"));
  char *w = hyphen_missing(H, "zz");
  assert_non_null(w);
  assert_non_null(strstr(w, "'zz'"));
  g_free(w);
}

/* The cache answers as hyphen_points does, word by word, for words that
 * share prefixes, differ in length by a byte, run past eight bytes (the
 * hash's steps), repeat, or are taken from inside a longer text (len, not
 * NUL: the cache's key is the bytes given). */
static void test_cache(void **state)
{
  (void)state;
  const char *words[] = {"hyphenation",
                         "hyphenations",
                         "hyphen",
                         "typography",
                         "typographer",
                         "extraordinarily",
                         "incomprehensibilities",
                         "characteristically",
                         "abc",
                         "",
                         "NASA",
                         "page_cache_ra",
                         "co\xc2\xadoperate",
                         "r\xc3\xa9sum\xc3\xa9s",
                         "encyclopaedia",
                         "encyclopaedias,",
                         "(parenthesised)",
                         "well-established",
                         "hyphenation"};
  HyphenCache *c = hyphen_cache_new(H, "en-US");
  GArray *o = g_array_new(FALSE, FALSE, sizeof(size_t));
  for (int round = 0; round < 2; round++)
    for (size_t i = 0; i < G_N_ELEMENTS(words); i++) {
      size_t len = strlen(words[i]);
      hyphen_points(H, "en-US", words[i], (gssize)len, o);
      /* the word inside a longer text: only its bytes count */
      char *text = g_strconcat(words[i], "xyzzy", NULL);
      guint n = 99;
      const size_t *pts = hyphen_cache_points(c, text, len, &n);
      assert_int_equal(n, o->len);
      for (guint k = 0; k < n; k++)
        assert_int_equal(pts[k], g_array_index(o, size_t, k));
      g_free(text);
    }
  guint n = 0;
  const size_t *pts = hyphen_cache_points(c, "hyphenation", 11, &n);
  assert_true(n >= 2); /* hy-phen-ation */
  assert_int_equal(pts[0], 2);
  g_array_free(o, TRUE);
  hyphen_cache_free(c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_known_words),       cmocka_unit_test(test_case_and_punctuation),
      cmocka_unit_test(test_minimum_fragments), cmocka_unit_test(test_never),
      cmocka_unit_test(test_soft_hyphens),      cmocka_unit_test(test_languages),
      cmocka_unit_test(test_other_languages),   cmocka_unit_test(test_cache),
      cmocka_unit_test(test_character_classes),
  };
  H = hyphenator_new();
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  hyphenator_free(H);
  return rc;
}
