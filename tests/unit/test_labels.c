/* test_labels.c: octavo's own words per language, for both books. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "labels.h"

static void test_words(void **state)
{
  (void)state;
  assert_string_equal(labels_get("en", LABEL_CONTENTS), "Contents");
  assert_string_equal(labels_get("fr", LABEL_CONTENTS), "Table des matières");
  assert_string_equal(labels_get("fr-CA", LABEL_CONTENTS), "Table des matières");
  assert_string_equal(labels_get("FR", LABEL_LINKS), "Liens");
  assert_string_equal(labels_get("de", LABEL_BY), "Von");
  /* unknown and missing languages: English */
  assert_string_equal(labels_get("tlh", LABEL_CONTENTS), "Contents");
  assert_string_equal(labels_get(NULL, LABEL_COVER), "Cover");
  assert_string_equal(labels_get("f", LABEL_CONTENTS), "Contents");
  /* the colophon's words */
  assert_string_equal(labels_get("en", LABEL_COLOPHON), "Colophon");
  assert_string_equal(labels_get("en", LABEL_MADE_WITH), "Made with");
  assert_string_equal(labels_get("fr", LABEL_IDENTIFIER), "Identifiant");
  assert_string_equal(labels_get("de", LABEL_SOURCE), "Quelle");
  assert_string_equal(labels_get("nl", LABEL_TYPEFACES), "Lettertypen");
  /* every word of every language is there */
  const char *langs[] = {"en", "fr", "de", "es", "it", "pt", "nl", "ar", "bn", "el", "fa", "he",
                         "hi", "ja", "ko", "ru", "th", "tr", "uk", "vi", "zh", "zh-Hant"};
  for (size_t i = 0; i < G_N_ELEMENTS(langs); i++)
    assert_true(labels_known(langs[i]));
  assert_false(labels_known("tlh"));
  assert_false(labels_known("km"));
  /* Chinese by script, or by a region that writes traditional characters */
  assert_string_equal(labels_get("zh", LABEL_CONTENTS), "目录");
  assert_string_equal(labels_get("zh-Hans-CN", LABEL_CONTENTS), "目录");
  assert_string_equal(labels_get("zh-Hant", LABEL_CONTENTS), "目錄");
  assert_string_equal(labels_get("zh-TW", LABEL_CONTENTS), "目錄");
  assert_string_equal(labels_get("fa-IR", LABEL_CONTENTS), "فهرست مطالب");
  /* direction */
  assert_true(labels_rtl("fa"));
  assert_true(labels_rtl("ar-EG"));
  assert_true(labels_rtl("he"));
  assert_true(labels_rtl("az-Arab"));
  assert_false(labels_rtl("ku-Latn"));
  assert_false(labels_rtl("en"));
  assert_false(labels_rtl("fr-CA"));
  assert_false(labels_rtl(NULL));
  for (size_t i = 0; i < G_N_ELEMENTS(langs); i++)
    for (int l = 0; l < LABEL_COUNT; l++) {
      const char *w = labels_get(langs[i], (LabelId)l);
      assert_non_null(w);
      assert_true(*w && g_utf8_validate(w, -1, NULL));
    }
}

static void test_names(void **state)
{
  (void)state;
  GPtrArray *a = g_ptr_array_new();
  char *s = labels_join("en", a);
  assert_string_equal(s, "");
  g_free(s);
  assert_null(labels_byline("en", a));
  g_ptr_array_add(a, "Ada");
  s = labels_byline("fr", a);
  assert_string_equal(s, "Par Ada");
  g_free(s);
  g_ptr_array_add(a, "Charles");
  s = labels_join("en", a);
  assert_string_equal(s, "Ada and Charles");
  g_free(s);
  s = labels_join("fr", a);
  assert_string_equal(s, "Ada et Charles");
  g_free(s);
  s = labels_byline("en", a);
  assert_string_equal(s, "By Ada and Charles");
  g_free(s);
  s = labels_byline("ja", a);
  assert_string_equal(s, "Ada と Charles 著");
  g_free(s);
  g_ptr_array_add(a, "Grace");
  s = labels_join("en", a);
  assert_string_equal(s, "Ada, Charles, and Grace");
  g_free(s);
  s = labels_join("de", a);
  assert_string_equal(s, "Ada, Charles und Grace");
  g_free(s);
  g_ptr_array_free(a, TRUE);
}

static void test_dates(void **state)
{
  (void)state;
  char *s = labels_date("en", "2023-05-11");
  assert_string_equal(s, "11 May 2023");
  g_free(s);
  s = labels_date("zh", "2023-05-11");
  assert_string_equal(s, "2023年5月11日");
  g_free(s);
  s = labels_date("ko", "2023-05-11");
  assert_string_equal(s, "2023년 5월 11일");
  g_free(s);
  s = labels_date("fa", "2023-05-11");
  assert_string_equal(s, "11 مه 2023");
  g_free(s);
  s = labels_date("fr", "2024-02-29");
  assert_string_equal(s, "29 février 2024");
  g_free(s);
  s = labels_date("de", "2023-05-01");
  assert_string_equal(s, "1. Mai 2023");
  g_free(s);
  s = labels_date("es", "2023-05-11");
  assert_string_equal(s, "11 de mayo de 2023");
  g_free(s);
  /* not a valid YYYY-MM-DD: as given */
  s = labels_date("en", "Spring 2023");
  assert_string_equal(s, "Spring 2023");
  g_free(s);
  s = labels_date("en", "2023-02-30");
  assert_string_equal(s, "2023-02-30");
  g_free(s);
  assert_null(labels_date("en", NULL));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_words),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_dates),
  };
  return cmocka_run_group_tests_name("labels", tests, NULL, NULL);
}
