/* input.c: reading the inputs.
 *
 * What it does: reads files and standard input whole, repairs invalid
 * UTF-8 and noncharacters (reported with line:col) and NUL bytes, converts UTF-16 with a BOM,
 * strips a UTF-8 BOM, and indexes the lines (cmark-gfm's positions are
 * checked against it).  What it does not do: parse anything.
 */
#include "front.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Where repair_utf8 is in its text, to report a position. */
typedef struct {
  Book *book;
  const char *file;
  int line;
  const char *line_start, *counted; /* lines are counted up to counted */
  int reported;
} Repair;

/* A warning at p (up to ten per file; the rest are counted). */
static void report_at(Repair *r, const char *p, const char *fmt, unsigned value)
{
  if (r->reported >= 10)
    return;
  for (const char *q; (q = memchr(r->counted, '\n', (size_t)(p - r->counted))); r->counted = q + 1) {
    r->line++; /* only when a position is reported */
    r->line_start = q + 1;
  }
  BookPos pos = {r->file, r->line, (int)(p - r->line_start) + 1};
  book_diag(r->book, BOOK_WARNING, &pos, fmt, value);
  r->reported++;
}

/* Replace invalid UTF-8 and Unicode's noncharacters (U+FFFE and the like,
 * which XML and cairo's PDF strings refuse) with U+FFFD, each reported with
 * line:col, and NUL bytes with U+FFFD (silently, as cmark would); drop a
 * leading BOM. */
static char *repair_utf8(Book *b, const char *file, const char *text, gsize len, gsize *out_len)
{
  /* A UTF-16 file (with its BOM) is text too: convert it (g_convert keeps
   * the BOM as U+FEFF, dropped below). */
  if (len >= 2 && (((guchar)text[0] == 0xFF && (guchar)text[1] == 0xFE) ||
                   ((guchar)text[0] == 0xFE && (guchar)text[1] == 0xFF))) {
    gsize got = 0;
    char *u8 = g_convert(text, (gssize)len, "UTF-8",
                         (guchar)text[0] == 0xFF ? "UTF-16LE" : "UTF-16BE", NULL, &got, NULL);
    if (u8) {
      char *r = repair_utf8(b, file, u8, got, out_len);
      g_free(u8);
      return r;
    }
  }
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    text += 3;
    len -= 3;
  }
  GString *o = g_string_sized_new(len + 1);
  const char *p = text, *end = text + len;
  Repair r = {b, file, 1, text, text, 0};
  int bad = 0, nonchars = 0;
  while (p < end) {
    const char *valid_end, *nc;
    gsize nc_len;
    gunichar c;
    g_utf8_validate_len(p, (gsize)(end - p), &valid_end);
    while ((nc = book_utf8_find_nonchar(p, valid_end, &nc_len, &c))) {
      g_string_append_len(o, p, nc - p);
      nonchars++;
      report_at(&r, nc, "noncharacter U+%04X replaced with U+FFFD", c);
      g_string_append(o, "\xEF\xBF\xBD");
      p = nc + nc_len;
    }
    g_string_append_len(o, p, valid_end - p);
    p = valid_end;
    if (p >= end)
      break;
    if (*p != '\0') {
      bad++;
      report_at(&r, p, "invalid UTF-8 (byte 0x%02X) replaced with U+FFFD", (guchar)*p);
    }
    g_string_append(o, "\xEF\xBF\xBD");
    p++;
  }
  if (bad + nonchars > r.reported) {
    BookPos pos = {file, 0, 0};
    book_diag(b, BOOK_WARNING, &pos,
              "%d more invalid UTF-8 bytes or noncharacters replaced with U+FFFD",
              bad + nonchars - r.reported);
  }
  *out_len = o->len;
  return g_string_free(o, FALSE);
}

void md_src_init(Ctx *c, Src *s, const MdSource *in)
{
  bool is_stdin = !in->name || strcmp(in->name, "-") == 0;
  s->file = book_intern(c->book, is_stdin ? "<stdin>" : in->name);
  char *cwd = g_get_current_dir();
  if (is_stdin) {
    s->dir = g_strdup(cwd);
  } else {
    s->canon = g_canonicalize_filename(in->name, cwd);
    s->dir = g_path_get_dirname(s->canon);
    s->stem = md_strip_doc_ext(s->canon);
  }
  g_free(cwd);
  sandbox_add_root(c->book->sandbox, s->dir); /* its images and links may come from there */
  s->heading_shift = in->heading_shift;
  s->chapter = in->chapter;
  s->nest = in->nest;
  s->number = in->number;
  s->title = in->title;
  s->mdbook = in->mdbook;
  s->notes = g_ptr_array_new();
  s->slugs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  s->text =
      repair_utf8(c->book, s->file, in->text ? in->text : "", in->text ? in->len : 0, &s->len);
  s->lines = g_array_new(FALSE, FALSE, sizeof(gsize));
  gsize zero = 0;
  g_array_append_val(s->lines, zero);
  for (gsize i = 0; i < s->len; i++)
    if (s->text[i] == '\n') {
      gsize next = i + 1;
      g_array_append_val(s->lines, next);
    }
}

void md_src_free(Src *s)
{
  g_free(s->canon);
  g_free(s->stem);
  g_free(s->dir);
  g_free(s->text);
  md_layer_clear(&s->fm);
  g_free(s->cover_src);
  book_node_free(s->root);
  g_ptr_array_free(s->notes, TRUE);
  g_hash_table_destroy(s->slugs);
  g_array_free(s->lines, TRUE);
}

static char *read_stream(FILE *f, gsize *len)
{
  GString *s = g_string_new(NULL);
  char buf[65536];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    g_string_append_len(s, buf, (gssize)got);
  if (ferror(f)) {
    int e = errno;
    g_string_free(s, TRUE);
    errno = e ? e : EIO;
    return NULL;
  }
  *len = s->len;
  return g_string_free(s, FALSE);
}

bool md_parse_files(Book *book, const char *const *files, int n, const OctavoOptions *opts)
{
  MdSource *srcs = g_new0(MdSource, n > 0 ? n : 1);
  char **texts = g_new0(char *, n > 0 ? n : 1);
  bool ok = true;
  for (int i = 0; i < n; i++) {
    bool is_stdin = strcmp(files[i], "-") == 0;
    errno = 0;
    FILE *f = is_stdin ? stdin : fopen(files[i], "rb");
    gsize len = 0;
    char *text = f ? read_stream(f, &len) : NULL;
    int err = errno;
    if (!text) {
      BookPos pos = {book_intern(book, is_stdin ? "<stdin>" : files[i]), 0, 0};
      book_diag(book, BOOK_ERROR, &pos, "cannot read: %s", g_strerror(err ? err : EIO));
      ok = false;
    }
    if (f && !is_stdin)
      fclose(f);
    texts[i] = text;
    srcs[i] = (MdSource){.name = files[i], .text = text, .len = len};
  }
  if (ok)
    ok = md_parse_sources(book, srcs, n, opts);
  for (int i = 0; i < n; i++)
    g_free(texts[i]);
  g_free(texts);
  g_free(srcs);
  return ok;
}
