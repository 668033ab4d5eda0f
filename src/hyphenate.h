/* hyphenate.h (the interface of hyphen.c; not "hyphen.h", which would hide
 * libhyphen's own <hyphen.h> behind -Isrc): where a word may be hyphenated, from libhyphen's TeX patterns
 * (Debian's hyphen-* dictionaries in /usr/share/hyphen), chosen by language.
 * Knows nothing of fonts or line breaking: the layout turns the points into
 * flagged penalties. The dictionaries are the run's (a Hyphenator, made by
 * main.c and given to the layout's shapers): loaded once per language,
 * under its lock (callable from any thread), freed with it. */
#ifndef OCTAVO_HYPHEN_H
#define OCTAVO_HYPHEN_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "runplan.h"

#define HYPHEN_MIN_LEFT 2  /* letters before a hyphenation point */
#define HYPHEN_MIN_RIGHT 3 /* letters after it */

/* A run's hyphenation dictionaries, none loaded yet. Free with
 * hyphenator_free, after every thread that uses it is joined. */
typedef struct Hyphenator Hyphenator;
Hyphenator *hyphenator_new(void);
/* Free h and every dictionary it loaded. Accepts NULL. */
void hyphenator_free(Hyphenator *h);
/* At the run's end (main.c), instead of hyphenator_free: h and its
 * dictionaries left to the process's exit, which frees them whole.
 * Freeing libhyphen's states one by one was 5 M instructions, 1.3 % of
 * the seed's two books. They stay reachable (from hyphen.c), so leak
 * checkers (valgrind, LeakSanitizer) count them as still reachable, not
 * lost. After every thread that uses h is joined. Accepts NULL. */
void hyphenator_leave(Hyphenator *h);

/* Whether a dictionary exists for `lang` (a BCP 47 tag: "en", "en-US",
 * "de-DE"; NULL or "" is no language), loaded into h. "en" falls back to
 * en_US. */
bool hyphen_has_language(Hyphenator *h, const char *lang);

/* Whether `lang` is set without hyphens at line ends whatever patterns
 * exist (Arabic-script languages, Hebrew, Chinese, Japanese, Korean, Thai,
 * Lao, Khmer, Burmese, Tibetan, Vietnamese): hyphen_has_language is false
 * for it, and no warning says so. Debian's Thai patterns are not used. */
bool hyphen_unhyphenated(const char *lang);

/* A warning's text when `lang` is hyphenated in print but has no patterns
 * here (its lines then break between words only); NULL when it has them
 * or is set without hyphens. Caller frees. */
char *hyphen_missing(Hyphenator *h, const char *lang);

/* Starts loading the dictionary for `lang` into h on a thread of plan's, so
 * that libhyphen parses its patterns (en_US: 38 M instructions) while the
 * caller loads fonts; the first hyphen_has_language() or hyphen_points()
 * for lang waits for it (h's lock). Joined by runplan_end, which must come
 * before hyphenator_free(h). */
void hyphen_preload(RunPlan *plan, Hyphenator *h, const char *lang);

/* The hyphenation points of `word` (UTF-8, `len` bytes, or -1 when
 * NUL-terminated), as it appears in running text: punctuation, quotes and
 * brackets around it and explicit hyphens or apostrophes inside it are
 * allowed (each letter run is hyphenated on its own). Fills `offsets` (a
 * GArray of size_t, cleared first) in increasing order with byte offsets k,
 * 0 < k < len, at which the word may break as word[0,k) + "-" / word[k,len);
 * each leaves at least HYPHEN_MIN_LEFT letters before and HYPHEN_MIN_RIGHT
 * after it in its run. Returns the number of points: 0 for a language
 * without a dictionary, invalid UTF-8, words with digits, all-capital or
 * camel-case runs (acronyms, identifiers: that run only), and words that
 * look like code, paths or URLs (/ \ _ @ . : = < > { } # etc. inside). A
 * word holding soft hyphens (U+00AD) gets exactly those points, just after
 * each soft hyphen, in any language. The layout should not call it for code
 * spans or link text that is a URL. */
size_t hyphen_points(Hyphenator *h, const char *lang, const char *word, gssize len,
                     GArray *offsets);

/* A cache of hyphen_points() for one language: words repeat, and a lookup
 * must cost much less than libhyphen. Not locked: one per thread. */
typedef struct HyphenCache HyphenCache;

/* A cache for lang (as hyphen_points), from h's dictionaries (h outlives
 * it). It looks lang's dictionary up at its first miss and keeps it. Free
 * with hyphen_cache_free(). */
HyphenCache *hyphen_cache_new(Hyphenator *h, const char *lang);
/* hyphen_points(lang, word, len) through the cache: returns its points
 * (byte offsets, increasing) and sets *n to their number. The array
 * belongs to the cache and lives as long as it. */
const size_t *hyphen_cache_points(HyphenCache *c, const char *word, size_t len, guint *n);
/* Free. Accepts NULL. */
void hyphen_cache_free(HyphenCache *c);

#endif
