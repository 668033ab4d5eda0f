/* hyphen.c: hyphenation points over libhyphen. Picks the dictionary by
 * language (hyph_ll_CC.dic, then hyph_ll.dic, in $OCTAVO_HYPHENDIR and
 * /usr/share/hyphen), caches it, and filters what must never be hyphenated
 * (digits, acronyms, identifiers, code, URLs). Standard hyphenation only:
 * non-standard points (German "Schiff=fahrt" replacements) are skipped. */
#include "hyphenate.h"

#include <hyphen.h> /* libhyphen */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

/* The run's dictionaries, shared by every thread of the run under its
 * lock (libhyphen's parsed patterns are immutable once loaded). */
struct Hyphenator {
  pthread_mutex_t lock;
  GHashTable *dicts; /* normalised language -> HyphenDict* (a sentinel when none) */
};
static const char none_sentinel = 0; /* its address only: no dictionary */
#define NONE ((gpointer)&none_sentinel)

static void free_dict(gpointer p)
{
  if (p && p != NONE)
    hnj_hyphen_free(p);
}

/* "en-us" -> ll "en", cc "US". */
static void split_lang(const char *lang, char ll[8], char cc[8])
{
  size_t i = 0, j = 0;
  ll[0] = cc[0] = 0;
  for (; lang[i] && lang[i] != '-' && lang[i] != '_' && i < 7; i++)
    ll[i] = g_ascii_tolower(lang[i]);
  ll[i] = 0;
  while (lang[i] && lang[i] != '-' && lang[i] != '_')
    i++;
  if (lang[i]) {
    i++;
    for (; lang[i] && lang[i] != '-' && lang[i] != '_' && j < 7; i++, j++)
      cc[j] = g_ascii_toupper(lang[i]);
    cc[j] = 0;
    if (j != 2) /* a script subtag ("Latn") or a variant: ignore */
      cc[0] = 0;
  }
}

static HyphenDict *try_load(const char *name)
{
  const char *dirs[] = {g_getenv("OCTAVO_HYPHENDIR"), "/usr/share/hyphen"};
  for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++) {
    if (!dirs[i] || !*dirs[i])
      continue;
    char *path = g_build_filename(dirs[i], name, NULL);
    HyphenDict *d = NULL;
    if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
      d = hnj_hyphen_load(path);
    g_free(path);
    if (d)
      return d;
  }
  return NULL;
}

/* The dictionary for lang, loaded on first use; NULL when none. Call with
 * the lock held. */
static HyphenDict *dict_for(Hyphenator *h, const char *lang)
{
  if (!lang || !*lang)
    return NULL;
  char ll[8], cc[8];
  split_lang(lang, ll, cc);
  if (!ll[0])
    return NULL;
  char *key = g_strdup_printf("%s_%s", ll, cc);
  gpointer v = g_hash_table_lookup(h->dicts, key);
  if (v) {
    g_free(key);
    return v == NONE ? NULL : v;
  }
  HyphenDict *d = NULL;
  char *name;
  if (cc[0]) {
    name = g_strdup_printf("hyph_%s_%s.dic", ll, cc);
    d = try_load(name);
    g_free(name);
  }
  if (!d) {
    name = g_strdup_printf("hyph_%s.dic", ll);
    d = try_load(name);
    g_free(name);
  }
  if (!d) {
    /* The language's main country: en -> en_US, de -> de_DE, es-419 -> es_ES
     * (the patterns are the language's, the country's spelling aside). */
    static const char *const main_cc[][2] = {
        {"en", "US"}, {"de", "DE"}, {"fr", "FR"}, {"it", "IT"}, {"es", "ES"}, {"nl", "NL"},
        {"pt", "PT"}, {"ru", "RU"}, {"uk", "UA"}, {"el", "GR"}, {"hi", "IN"}, {"bn", "IN"}};
    for (size_t i = 0; i < G_N_ELEMENTS(main_cc) && !d; i++)
      if (strcmp(ll, main_cc[i][0]) == 0) {
        name = g_strdup_printf("hyph_%s_%s.dic", ll, main_cc[i][1]);
        d = try_load(name);
        g_free(name);
      }
  }
  g_hash_table_insert(h->dicts, key, d ? (gpointer)d : NONE);
  return d;
}

bool hyphen_unhyphenated(const char *lang)
{
  /* Arabic-script, Hebrew, the CJK languages, Thai, Lao, Khmer, Burmese,
   * Tibetan and Vietnamese (one syllable a word) */
  static const char *const none[] = {"ar", "fa", "ur", "ps", "ckb", "sd", "ug", "ks",
                                     "he", "iw", "yi", "ja", "zh",  "ko", "th", "lo",
                                     "km", "my", "bo", "vi", "dv",  "syr"};
  if (!lang)
    return true;
  size_t n = strcspn(lang, "-_");
  for (size_t i = 0; i < G_N_ELEMENTS(none); i++)
    if (strlen(none[i]) == n && g_ascii_strncasecmp(lang, none[i], n) == 0)
      return true;
  return false;
}

char *hyphen_missing(Hyphenator *h, const char *lang)
{
  if (!lang || !*lang || hyphen_unhyphenated(lang) || hyphen_has_language(h, lang))
    return NULL;
  return g_strdup_printf("no hyphenation patterns for language '%s': its lines break between "
                         "words only (libhyphen's hyph_*.dic in /usr/share/hyphen or "
                         "$OCTAVO_HYPHENDIR)",
                         lang);
}

bool hyphen_has_language(Hyphenator *h, const char *lang)
{
  if (hyphen_unhyphenated(lang))
    return false;
  pthread_mutex_lock(&h->lock);
  bool ok = dict_for(h, lang) != NULL;
  pthread_mutex_unlock(&h->lock);
  return ok;
}

Hyphenator *hyphenator_new(void)
{
  Hyphenator *h = g_new0(Hyphenator, 1);
  pthread_mutex_init(&h->lock, NULL);
  h->dicts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, free_dict);
  return h;
}

void hyphenator_free(Hyphenator *h)
{
  if (!h)
    return;
  g_hash_table_destroy(h->dicts);
  pthread_mutex_destroy(&h->lock);
  g_free(h);
}

static Hyphenator *left; /* hyphenator_leave's: reachable until exit */

void hyphenator_leave(Hyphenator *h)
{
  if (!h)
    return;
  hyphenator_free(left); /* a second run in one process: the first's */
  left = h;
}

typedef struct {
  Hyphenator *h;
  char *lang;
} Preload;

static gpointer preload(gpointer data)
{
  Preload *p = data;
  hyphen_has_language(p->h, p->lang);
  g_free(p->lang);
  g_free(p);
  return NULL;
}

void hyphen_preload(RunPlan *plan, Hyphenator *h, const char *lang)
{
  if (!lang || !*lang)
    return;
  Preload *p = g_new(Preload, 1);
  *p = (Preload){h, g_strdup(lang)};
  runplan_spawn(plan, "octavo-hyphen", preload, p); /* joined by runplan_end */
}

/* Characters that make a word code, a path or a URL when inside it: a
 * table (the same set as before, "/\\_@.:=<>{}[]()#$%&*+~|^`;,!?\"", without
 * a strchr a character). */
static const bool codeish_ascii[128] = {
    ['/'] = 1, ['\\'] = 1, ['_'] = 1, ['@'] = 1, ['.'] = 1, [':'] = 1, ['='] = 1, ['<'] = 1,
    ['>'] = 1, ['{'] = 1,  ['}'] = 1, ['['] = 1, [']'] = 1, ['('] = 1, [')'] = 1, ['#'] = 1,
    ['$'] = 1, ['%'] = 1,  ['&'] = 1, ['*'] = 1, ['+'] = 1, ['~'] = 1, ['|'] = 1, ['^'] = 1,
    ['`'] = 1, [';'] = 1,  [','] = 1, ['!'] = 1, ['?'] = 1, ['"'] = 1};

static bool codeish(gunichar c)
{
  return c < 128 && codeish_ascii[c];
}

/* The character at *p (valid UTF-8), *p moved past it: ASCII without a
 * call. */
static inline gunichar next_char(const char **p)
{
  guchar b = (guchar) * *p;
  if (b < 128) {
    (*p)++;
    return b;
  }
  gunichar c = g_utf8_get_char(*p);
  *p = g_utf8_next_char(*p);
  return c;
}

/* Opening and closing punctuation to strip around a word. (ASCII without
 * GLib's tables: the same answers, g_unichar_isspace's \t \n \f \r and
 * space, not \v.) */
static bool wrapper(gunichar c)
{
  if (c < 128)
    return g_ascii_ispunct(c) || (g_ascii_isspace(c) && c != '\v');
  return g_unichar_ispunct(c) || g_unichar_isspace(c);
}

static bool letter(gunichar c)
{
  return c < 128 ? g_ascii_isalpha(c) : g_unichar_isalpha(c) || g_unichar_ismark(c);
}

/* What a hyphenation reuses from word to word: its language's dictionary
 * (looked up once, under the lock: dict_for) and the buffers of a letter
 * run lower-cased. A HyphenCache keeps one; hyphen_points makes one a
 * call. */
typedef struct {
  Hyphenator *run; /* the run's dictionaries */
  const char *lang;
  HyphenDict *dict;
  bool looked_up;
  GString *low;   /* the run lower-cased (in the dictionary's character set) */
  GArray *orig;   /* size_t: per byte of low, its offset in the word; one past the end */
  GByteArray *hy; /* libhyphen's answer, a byte per byte of low */
} Hyph;

static void hyph_init(Hyph *h, Hyphenator *run, const char *lang)
{
  *h = (Hyph){.run = run, .lang = lang};
  h->low = g_string_sized_new(64);
  h->orig = g_array_sized_new(FALSE, FALSE, sizeof(size_t), 64);
  h->hy = g_byte_array_sized_new(72);
}

static void hyph_clear(Hyph *h)
{
  g_string_free(h->low, TRUE);
  g_array_free(h->orig, TRUE);
  g_byte_array_free(h->hy, TRUE);
}

/* A dictionary in a single-byte character set (Debian's German, Dutch and
 * Portuguese patterns are ISO-8859-1, Greek ISO-8859-7, Russian KOI8-R;
 * the first line of the .dic names it): the lower-cased UTF-8 run `low`
 * converted in place to it (GLib's iconv), `orig` (a source offset per
 * byte, and one past the end) made one per character. False when a
 * character has no byte there, or the set is not one byte a character. */
static bool to_dict_charset(const HyphenDict *d, GString *low, GArray *orig)
{
  gsize written = 0;
  char *enc = g_convert(low->str, (gssize)low->len, d->cset, "UTF-8", NULL, &written, NULL);
  glong nchars = g_utf8_strlen(low->str, (gssize)low->len);
  if (!enc || (glong)written != nchars) {
    g_free(enc);
    return false;
  }
  guint k = 0; /* orig's entry for each character's first byte */
  for (const char *p = low->str; p < low->str + low->len; p = g_utf8_next_char(p))
    g_array_index(orig, size_t, k++) = g_array_index(orig, size_t, (guint)(p - low->str));
  g_array_index(orig, size_t, k++) = g_array_index(orig, size_t, orig->len - 1);
  g_array_set_size(orig, k);
  g_string_truncate(low, 0);
  g_string_append_len(low, enc, (gssize)written);
  g_free(enc);
  return true;
}

/* Hyphenate one letter run word[a,b) with h's dictionary; append points. */
static void hyphenate_run(Hyph *h, const char *word, size_t a, size_t b, GArray *out)
{
  HyphenDict *d = h->dict;
  /* Skip acronyms and camel case: any capital after the first letter. */
  size_t nchars = 0;
  for (const char *p = word + a; p < word + b;) {
    gunichar c = next_char(&p);
    if (nchars > 0 && (c < 128 ? g_ascii_isupper(c) : g_unichar_isupper(c)))
      return;
    nchars++;
  }
  if (nchars < HYPHEN_MIN_LEFT + HYPHEN_MIN_RIGHT)
    return;

  /* Lower-case it, remembering where each lower-case character came from. */
  GString *low = h->low;
  GArray *orig = h->orig; /* per low byte: source offset */
  g_string_truncate(low, 0);
  /* sized once: a character lower-cased takes at most twice its bytes
   * (U+023A, two, becomes U+2C65, three), and one past the end */
  g_array_set_size(orig, (guint)(2 * (b - a) + 1));
  size_t *o = (size_t *)(void *)orig->data;
  guint no = 0;
  for (const char *p = word + a; p < word + b; p = g_utf8_next_char(p)) {
    size_t src = (size_t)(p - word);
    if ((guchar)*p < 128) {
      g_string_append_c(low, *p >= 'A' && *p <= 'Z' ? *p + ('a' - 'A') : *p);
      o[no++] = src;
      continue;
    }
    gunichar c = g_unichar_tolower(g_utf8_get_char(p));
    char buf[8];
    int k = g_unichar_to_utf8(c, buf);
    for (int j = 0; j < k; j++)
      o[no++] = src;
    g_string_append_len(low, buf, k);
  }
  o[no++] = b;
  g_array_set_size(orig, no);
  if (!d->utf8 && !to_dict_charset(d, low, orig)) /* a letter the patterns cannot hold */
    return;
  if (low->len >= 1000) /* libhyphen's own word limit is far lower in practice */
    return;

  g_byte_array_set_size(h->hy, (guint)low->len + 5);
  char *hy = (char *)h->hy->data;
  memset(hy, 0, low->len + 5);
  char **rep = NULL;
  int *pos = NULL, *cut = NULL;
  if (hnj_hyphen_hyphenate2(d, low->str, (int)low->len, hy, NULL, &rep, &pos, &cut) == 0) {
    /* hy[i] odd: a break after byte i. Count letters on each side. */
    size_t left = 0;
    for (size_t i = 0; i + 1 < low->len; i++) {
      bool char_end = !d->utf8 || ((unsigned char)low->str[i + 1] & 0xC0) != 0x80;
      if (!char_end)
        continue;
      left++;
      if (!(hy[i] & 1) || (rep && rep[i]))
        continue;
      if (left < HYPHEN_MIN_LEFT || nchars - left < HYPHEN_MIN_RIGHT)
        continue;
      size_t off = g_array_index(orig, size_t, i + 1);
      g_array_append_val(out, off);
    }
  }
  if (rep) {
    for (size_t i = 0; i < low->len; i++)
      free(rep[i]); /* allocated by libhyphen */
    free(rep);
  }
  free(pos);
  free(cut);
}

/* hyphen_points with h's language, dictionary and buffers. */
static size_t points(Hyph *h, const char *word, gssize len, GArray *offsets)
{
  g_array_set_size(offsets, 0);
  if (!word)
    return 0;
  size_t n = len < 0 ? strlen(word) : (size_t)len;
  if (n == 0 || !g_utf8_validate(word, (gssize)n, NULL))
    return 0;

  /* Strip punctuation around the word. */
  const char *s = word, *e = word + n;
  for (const char *q = s; s < e && wrapper(next_char(&q));)
    s = q;
  while (e > s) {
    const char *prev = (guchar)e[-1] < 128 ? e - 1 : g_utf8_prev_char(e);
    if (!wrapper(g_utf8_get_char(prev)))
      break;
    e = prev;
  }
  /* Soft hyphens in the source are the author's choice: exactly those. */
  if (e > s && memmem(s, (size_t)(e - s), "\xc2\xad", 2)) {
    for (const char *p = s; p < e; p = g_utf8_next_char(p))
      if (g_utf8_get_char(p) == 0xAD && p > s && p + 2 < e) {
        size_t off = (size_t)(p + 2 - word);
        g_array_append_val(offsets, off);
      }
    return offsets->len;
  }
  if (e - s < HYPHEN_MIN_LEFT + HYPHEN_MIN_RIGHT)
    return 0;
  for (const char *p = s; p < e;) {
    gunichar c = next_char(&p);
    if (c < 128 ? g_ascii_isdigit(c) || codeish(c) : g_unichar_isdigit(c))
      return 0;
  }

  pthread_mutex_lock(&h->run->lock);
  if (!h->looked_up) {
    h->dict = dict_for(h->run, h->lang);
    h->looked_up = true;
  }
  if (h->dict) {
    /* Letter runs, split at hyphens, apostrophes and other non-letters. */
    const char *p = s;
    while (p < e) {
      for (const char *r = p; p < e && !letter(next_char(&r));)
        p = r;
      const char *q = p;
      for (const char *r = q; q < e && letter(next_char(&r));)
        q = r;
      if (q > p)
        hyphenate_run(h, word, (size_t)(p - word), (size_t)(q - word), offsets);
      p = q;
    }
  }
  pthread_mutex_unlock(&h->run->lock);
  return offsets->len;
}

size_t hyphen_points(Hyphenator *run, const char *lang, const char *word, gssize len,
                     GArray *offsets)
{
  Hyph h;
  hyph_init(&h, run, lang);
  size_t n = points(&h, word, len, offsets);
  hyph_clear(&h);
  return n;
}

/* ---- the cache ---- */

/* One word and its points, in one allocation: the points, then the word's
 * bytes. The key of the cache's set is the entry itself; a lookup passes a
 * stack entry pointing into the caller's text (no copy, no allocation). */
typedef struct {
  const char *word;
  guint32 len, n;
  size_t pts[];
} Entry;

struct HyphenCache {
  char *lang;
  Hyph hyph;         /* the dictionary, looked up at the first miss; buffers */
  GHashTable *words; /* Entry * (owned) */
  GArray *scratch;   /* size_t: hyphen_points' output on a miss */
};

static guint entry_hash(gconstpointer p)
{
  const Entry *e = p;
  guint32 h = 2166136261u; /* FNV-1a */
  for (guint32 i = 0; i < e->len; i++)
    h = (h ^ (guchar)e->word[i]) * 16777619u;
  return h;
}

static gboolean entry_equal(gconstpointer a, gconstpointer b)
{
  const Entry *x = a, *y = b;
  return x->len == y->len && memcmp(x->word, y->word, x->len) == 0;
}

HyphenCache *hyphen_cache_new(Hyphenator *h, const char *lang)
{
  HyphenCache *c = g_new0(HyphenCache, 1);
  c->lang = g_strdup(lang);
  hyph_init(&c->hyph, h, c->lang);
  c->words = g_hash_table_new_full(entry_hash, entry_equal, g_free, NULL);
  c->scratch = g_array_new(FALSE, FALSE, sizeof(size_t));
  return c;
}

const size_t *hyphen_cache_points(HyphenCache *c, const char *word, size_t len, guint *n)
{
  Entry probe = {word, (guint32)len, 0};
  Entry *e = len <= G_MAXUINT32 ? g_hash_table_lookup(c->words, &probe) : NULL;
  if (!e) {
    points(&c->hyph, word, (gssize)len, c->scratch);
    if (len > G_MAXUINT32) { /* not cached: answered from the scratch array */
      *n = c->scratch->len;
      return (const size_t *)(void *)c->scratch->data;
    }
    gsize pts = c->scratch->len * sizeof(size_t);
    e = g_malloc(sizeof(Entry) + pts + len);
    e->len = (guint32)len;
    e->n = c->scratch->len;
    if (pts) /* an empty GArray's data may be NULL */
      memcpy(e->pts, c->scratch->data, pts);
    char *copy = (char *)e->pts + pts;
    memcpy(copy, word, len);
    e->word = copy;
    g_hash_table_add(c->words, e);
  }
  *n = e->n;
  return e->pts;
}

void hyphen_cache_free(HyphenCache *c)
{
  if (!c)
    return;
  g_hash_table_destroy(c->words);
  g_array_free(c->scratch, TRUE);
  hyph_clear(&c->hyph);
  g_free(c->lang);
  g_free(c);
}
