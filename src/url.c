/* url.c: the one classification of URLs (see book.h).
 *
 * What it does: reads a URL's scheme (case-insensitive, RFC 3986; white
 * space and controls ignored as browsers ignore them, so that no dangerous
 * scheme slips through), sorts URLs into relative, web, mailto, data and
 * other, and says which may be written as an external link.  sanitize_elements.c
 * (allowed attributes), resolve.c (which links and images are kept) and the
 * writers all ask here.  What it does not do: escape or resolve URLs.
 */
#include "book.h"

#include <string.h>

char *book_url_scheme(const char *url)
{
  GString *s = g_string_new(NULL);
  for (const char *p = url ? url : ""; *p; p++)
    if ((guchar)*p > 0x20 && *p != 0x7f)
      g_string_append_c(s, *p);
  char *scheme = g_strdup(g_uri_peek_scheme(s->str)); /* lower case */
  g_string_free(s, TRUE);
  return scheme;
}

BookUrlKind book_url_kind(const char *url)
{
  char *scheme = book_url_scheme(url);
  BookUrlKind k = !scheme                                                       ? BOOK_URL_RELATIVE
                  : strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0 ? BOOK_URL_WEB
                  : strcmp(scheme, "mailto") == 0                               ? BOOK_URL_MAILTO
                  : strcmp(scheme, "data") == 0                                 ? BOOK_URL_DATA
                                                                                : BOOK_URL_OTHER;
  g_free(scheme);
  return k;
}

bool book_url_is_external(const char *url)
{
  if (!url || !g_ascii_isalpha(*url))
    return false;
  const char *p = url; /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
  while (g_ascii_isalnum(*p) || *p == '+' || *p == '-' || *p == '.')
    p++;
  if (*p != ':')
    return false;
  size_t n = (size_t)(p - url);
  if (n == 6 && g_ascii_strncasecmp(url, "mailto", 6) == 0)
    return true;
  bool web = (n == 4 && g_ascii_strncasecmp(url, "http", 4) == 0) ||
             (n == 5 && g_ascii_strncasecmp(url, "https", 5) == 0);
  return web && p[1] == '/' && p[2] == '/';
}

guchar *book_data_url_head(const char *url, gsize max, gsize *len)
{
  *len = 0;
  const char *comma = url ? strchr(url, ',') : NULL;
  if (book_url_kind(url) != BOOK_URL_DATA || !comma)
    return NULL;
  char *params = g_ascii_strdown(url, comma - url);
  bool b64 = g_str_has_suffix(params, ";base64");
  g_free(params);
  const char *p = comma + 1;
  if (!b64) { /* percent-encoded bytes */
    char *head = g_strndup(p, max * 3);
    char *raw = g_uri_unescape_string(head, NULL);
    g_free(head);
    if (!raw)
      return NULL;
    *len = MIN(strlen(raw), max);
    return (guchar *)raw;
  }
  /* whole groups of four characters, white space left out */
  GString *s = g_string_new(NULL);
  for (; *p && s->len < (max + 2) / 3 * 4; p++)
    if (!g_ascii_isspace(*p))
      g_string_append_c(s, *p);
  g_string_truncate(s, s->len / 4 * 4);
  guchar *bytes = g_base64_decode(s->str, len);
  g_string_free(s, TRUE);
  return bytes;
}
