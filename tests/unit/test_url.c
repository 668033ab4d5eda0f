/* test_url.c: the one URL classification (url.c) with cmocka. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <glib.h>

#include "book.h"

static void assert_scheme(const char *url, const char *want)
{
  char *s = book_url_scheme(url);
  if (want)
    assert_string_equal(s, want);
  else
    assert_null(s);
  g_free(s);
}

static void test_scheme(void **state)
{
  (void)state;
  assert_scheme("https://x.org/", "https");
  assert_scheme("HTTP://X.ORG/", "http"); /* RFC 3986: case-insensitive, canonical lower case */
  assert_scheme("MailTo:a@b", "mailto");
  assert_scheme(" JaVa\tScRiPt:alert(1)", "javascript"); /* as a browser reads it */
  assert_scheme("java\nscript:x", "javascript");
  assert_scheme("rel/path.md#x", NULL);
  assert_scheme("#frag", NULL);
  assert_scheme("?q=1", NULL);
  assert_scheme("//host/x", NULL);
  assert_scheme("", NULL);
  assert_scheme(NULL, NULL);
  assert_scheme("1http://x", NULL); /* a scheme starts with a letter */
}

static void test_kind(void **state)
{
  (void)state;
  assert_int_equal(book_url_kind("http://x"), BOOK_URL_WEB);
  assert_int_equal(book_url_kind("HTTPS://x"), BOOK_URL_WEB);
  assert_int_equal(book_url_kind("mailto:a@b"), BOOK_URL_MAILTO);
  assert_int_equal(book_url_kind("DATA:image/png;base64,AA"), BOOK_URL_DATA);
  assert_int_equal(book_url_kind("javascript:x"), BOOK_URL_OTHER);
  assert_int_equal(book_url_kind("ftp://x"), BOOK_URL_OTHER);
  assert_int_equal(book_url_kind("file:///etc/passwd"), BOOK_URL_OTHER);
  assert_int_equal(book_url_kind("img/x.png"), BOOK_URL_RELATIVE);
  assert_int_equal(book_url_kind("#x"), BOOK_URL_RELATIVE);
  assert_int_equal(book_url_kind(NULL), BOOK_URL_RELATIVE);
}

static void test_external(void **state)
{
  (void)state;
  assert_true(book_url_is_external("http://x.org"));
  assert_true(book_url_is_external("https://x.org/a?b#c"));
  assert_true(book_url_is_external("HTTPS://X.ORG")); /* layout.c's copy said no */
  assert_true(book_url_is_external("Mailto:a@b"));
  assert_false(book_url_is_external("http:x")); /* no authority: no web address */
  assert_false(book_url_is_external("ftp://x"));
  assert_false(book_url_is_external("javascript:x"));
  assert_false(book_url_is_external(" http://x")); /* not as written */
  assert_false(book_url_is_external("ch02.xhtml#x"));
  assert_false(book_url_is_external("#x"));
  assert_false(book_url_is_external(""));
  assert_false(book_url_is_external(NULL));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scheme),
      cmocka_unit_test(test_kind),
      cmocka_unit_test(test_external),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
