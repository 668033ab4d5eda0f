/* resolve.c: links and resources, across all inputs.
 *
 * What it does: makes hrefs valid URIs, keeps external links whose scheme
 * is allowed, resolves internal links (#id, other.md, other.html#id) to a
 * chapter and fragment, and turns local images into BookResources (inside
 * the input's directory or --resource-path; type and size read once, here).
 * What it does not do: read images beyond their headers.
 */
#include "front.h"

#include "frontahead.h"
#include "sanitize.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static Src *src_of(Ctx *c, const char *file)
{
  for (int i = 0; i < c->n; i++)
    if (c->srcs[i].file == file)
      return &c->srcs[i];
  return c->n ? &c->srcs[0] : NULL;
}

static const char *const doc_exts[] = {".md",  ".markdown", ".mdown", ".html",
                                       ".htm", ".xhtml",    NULL};

char *md_strip_doc_ext(const char *path)
{
  for (const char *const *e = doc_exts; *e; e++)
    if (g_str_has_suffix(path, *e) && strlen(path) > strlen(*e))
      return g_strndup(path, strlen(path) - strlen(*e));
  return g_strdup(path);
}

/* The input that path (relative to from's directory) names, as ch02.md or
 * ch02.html, or NULL. */
static Src *find_input(Ctx *c, const Src *from, const char *path)
{
  char *target = g_canonicalize_filename(path, from->dir);
  char *stem = md_strip_doc_ext(target);
  Src *found = NULL;
  for (int i = 0; i < c->n && !found; i++) {
    Src *s = &c->srcs[i];
    if (!s->canon)
      continue;
    if (strcmp(s->canon, target) == 0 || strcmp(s->stem, stem) == 0)
      found = s;
  }
  g_free(stem);
  g_free(target);
  return found;
}

static const char *find_anchor(Ctx *c, Src *s, const char *frag, BookChapter **ch)
{
  const char *id = s ? g_hash_table_lookup(s->slugs, frag) : NULL;
  if (!id)
    id = frag;
  *ch = g_hash_table_lookup(c->anchors, id);
  return *ch ? id : NULL;
}

/* href as a valid URI: percent-encode what RFC 3986 does not allow (white
 * space, controls, non-ASCII, "<>\^`{|}", brackets outside the host, a
 * second '#', a '%' that starts no escape).  cmark-gfm's autolinks can hold
 * any of these. Caller frees. */
static char *uri_escape(const char *href)
{
  GString *o = g_string_new(NULL);
  const char *auth = strstr(href, "//");
  const char *auth_end = auth ? auth + 2 + strcspn(auth + 2, "/?#") : NULL;
  bool hash = false;
  for (const char *p = href; *p; p++) {
    guchar ch = (guchar)*p;
    if (auth && auth[2] != '[' && p >= auth + 2 && p < auth_end && ch && strchr("[]^|\\", ch)) {
      /* A character no host may hold, even percent-encoded (WHATWG's
       * forbidden host code points): the host ends here (an autolink such
       * as "www.x.org[1]") and the rest is the path. Others, such as '`',
       * stay in the host escaped, as cmark-gfm writes them. */
      g_string_append_c(o, '/');
      auth_end = p;
    }
    bool in_host = auth && auth[2] == '[' && p >= auth && p < auth_end; /* an IPv6 literal */
    bool bad = ch <= 0x20 || ch >= 0x7f || strchr("\"<>\\^`{|}", ch) ||
               ((ch == '[' || ch == ']') && !in_host) || (ch == '#' && hash) ||
               (ch == '%' && !(g_ascii_isxdigit(p[1]) && g_ascii_isxdigit(p[2])));
    if (ch == '#')
      hash = true;
    if (bad)
      g_string_append_printf(o, "%%%02X", ch);
    else
      g_string_append_c(o, (char)ch);
  }
  return g_string_free(o, FALSE);
}

static void resolve_link(Ctx *c, BookNode *n, BookChapter *ch)
{
  Book *b = c->book;
  if (n->as.link.href) {
    char *clean = uri_escape(n->as.link.href);
    g_free(n->as.link.href);
    n->as.link.href = clean;
  }
  const char *href = n->as.link.href ? n->as.link.href : "";
  BookUrlKind kind = book_url_kind(href);
  if (kind != BOOK_URL_RELATIVE) {
    if (kind != BOOK_URL_WEB && kind != BOOK_URL_MAILTO) {
      char *scheme = book_url_scheme(href);
      book_diag(b, BOOK_WARNING, &n->pos, "link with a %s: URL dropped (its text is kept)", scheme);
      g_free(scheme);
      book_node_unwrap(n);
    }
    return;
  }
  if (!*href || g_str_has_prefix(href, "//")) {
    book_diag(b, BOOK_WARNING, &n->pos, "%s link dropped (its text is kept)",
              *href ? "scheme-relative" : "empty");
    book_node_unwrap(n);
    return;
  }
  Src *from = src_of(c, n->pos.file);
  const char *hash = strchr(href, '#');
  char *path_part = g_strndup(href, hash ? (gsize)(hash - href) : strlen(href));
  char *q = strchr(path_part, '?');
  if (q)
    *q = '\0';
  char *path = g_uri_unescape_string(path_part, NULL);
  if (!path)
    path = g_strdup(path_part);
  char *frag = hash && hash[1] ? g_uri_unescape_string(hash + 1, NULL) : NULL;
  if (hash && hash[1] && !frag)
    frag = g_strdup(hash + 1);
  Src *target = *path ? find_input(c, from, path) : from;
  BookChapter *tch = NULL;
  const char *id = NULL;
  if (!target) {
    book_diag(b, BOOK_WARNING, &n->pos, "link to '%s' matches no input file", href);
  } else if (!frag) {
    tch = *path ? target->first : ch;
    if (!tch)
      book_diag(b, BOOK_WARNING, &n->pos, "link to '%s': that file has no text", href);
  } else if ((id = find_anchor(c, target, frag, &tch))) {
    /* resolved */
  } else if (*path && target->first) {
    book_diag(b, BOOK_WARNING, &n->pos,
              "link to '%s': no heading or id '%s' there; linking to the file's start", href, frag);
    tch = target->first;
  } else {
    book_diag(b, BOOK_WARNING, &n->pos, "link to '#%s' matches no heading or id", frag);
  }
  if (tch) {
    n->as.link.internal = true;
    n->as.link.chapter = tch;
    n->as.link.fragment = g_strdup(id);
  }
  g_free(frag);
  g_free(path);
  g_free(path_part);
}

/* ---- images ---- */

/* Images larger than this are refused (their decoded size). */
enum { MAX_IMAGE_SIDE_PX = 20000 };
#define MAX_IMAGE_PIXELS ((gint64)100 * 1000 * 1000)

static bool too_large(int w, int h)
{
  return w > MAX_IMAGE_SIDE_PX || h > MAX_IMAGE_SIDE_PX || (gint64)w * h > MAX_IMAGE_PIXELS;
}

/* Why the images an SVG draws (<image href>, local files or data: URLs)
 * make it unusable: one outside the book, not a regular file, or past the
 * pixel limit that a direct reference meets (librsvg would decode it
 * whole). NULL when they are all fine. Caller frees. */
static char *svg_refs_why(Sandbox *sb, const char *real)
{
  GPtrArray *refs = g_ptr_array_new_with_free_func(g_free);
  san_svg_image_refs(real, refs);
  char *dir = g_path_get_dirname(real), *why = NULL;
  for (guint i = 0; i < refs->len && !why; i++) {
    const char *href = refs->pdata[i];
    int w = 0, h = 0;
    if (book_url_kind(href) == BOOK_URL_DATA) {
      gsize n = 0;
      guchar *bytes = book_data_url_head(href, 64 << 10, &n); /* a header is enough */
      if (bytes && book_image_sniff(bytes, n, &w, &h) != BOOK_IMAGE_NONE && too_large(w, h))
        why = g_strdup_printf("it draws a data: image of %d x %d pixels, too large", w, h);
      g_free(bytes);
      continue;
    }
    if (book_url_kind(href) != BOOK_URL_RELATIVE)
      continue; /* librsvg fetches nothing from the web */
    char *raw = g_strndup(href, strcspn(href, "?#"));
    char *path = g_uri_unescape_string(raw, NULL);
    char *cand = g_path_is_absolute(path ? path : raw)
                     ? g_strdup(path ? path : raw)
                     : g_build_filename(dir, path ? path : raw, NULL);
    SandboxVerdict v;
    char *ref = sandbox_resolve(sb, cand, &v);
    if (!ref && v != SANDBOX_MISSING)
      why = g_strdup_printf("it draws %s, which %s", href, sandbox_verdict_text(v));
    else if (ref && book_image_probe(ref, &w, &h) != BOOK_IMAGE_NONE && too_large(w, h))
      why = g_strdup_printf("it draws %s, %d x %d pixels, too large", href, w, h);
    g_free(ref);
    g_free(cand);
    g_free(path);
    g_free(raw);
  }
  g_free(dir);
  g_ptr_array_free(refs, TRUE);
  return why;
}

/* What a book shows instead of an image neither can use: for an image its
 * alt text (said where it is drawn), for the cover octavo's own. */
static const char *instead(const char *what)
{
  return strcmp(what, "cover") == 0 ? "; using octavo's cover" : "";
}

/* The file an image source names, through the book's sandbox: relative to
 * the Markdown file's folder, else to each --resource-path folder. Its real
 * path (caller frees), or NULL with *v saying why. peek: the sandbox is
 * only asked (sandbox_peek), the file does not count as read. */
static char *ask(Sandbox *sb, const char *path, bool peek, SandboxVerdict *v)
{
  return peek ? sandbox_peek(sb, path, v) : sandbox_resolve(sb, path, v);
}

static char *locate_image(Ctx *c, const char *dir, const char *src, bool peek, SandboxVerdict *v)
{
  Sandbox *sb = c->book->sandbox;
  char *raw = g_strndup(src, strcspn(src, "?#"));
  char *path = g_uri_unescape_string(raw, NULL);
  if (!path)
    path = g_strdup(raw);
  char *cand = g_path_is_absolute(path) ? g_strdup(path) : g_build_filename(dir, path, NULL);
  char *real = ask(sb, cand, peek, v);
  if (!real && *v == SANDBOX_MISSING && c->opts->resource_path && !g_path_is_absolute(path)) {
    char **dirs = g_strsplit(c->opts->resource_path, G_SEARCHPATH_SEPARATOR_S, -1);
    for (char **d = dirs; *d && !real && *v == SANDBOX_MISSING; d++) {
      char *cand2 = g_build_filename(*d, path, NULL);
      real = ask(sb, cand2, peek, v);
      g_free(cand2);
    }
    g_strfreev(dirs);
  }
  g_free(cand);
  g_free(path);
  g_free(raw);
  return real;
}

/* The file an image source names (locate_image): its real path (caller
 * frees), or NULL with a warning at pos. */
static char *find_image(Ctx *c, const BookPos *pos, const char *dir, const char *src,
                        const char *what)
{
  Book *b = c->book;
  SandboxVerdict v;
  char *real = locate_image(c, dir, src, false, &v);
  if (!real && v == SANDBOX_MISSING)
    book_diag(b, BOOK_WARNING, pos, "%s %s not found%s", what, src, instead(what));
  else if (!real && v == SANDBOX_OUTSIDE)
    book_diag(b, BOOK_WARNING, pos,
              "%s %s is outside the book's folder; refused (see --resource-path)%s", what, src,
              instead(what));
  else if (!real)
    book_diag(b, BOOK_WARNING, pos, "%s %s %s; refused%s", what, src, sandbox_verdict_text(v),
              instead(what));
  return real;
}

/* The resource for the image file real (src as written), probed and
 * checked once: NULL with a warning at pos when neither book can use it. */
static BookResource *image_resource(Ctx *c, const BookPos *pos, const char *src, const char *real,
                                    const char *what)
{
  Book *b = c->book;
  int w, h;
  char *why = NULL;
  BookResource *r = NULL;
  const char *then = *instead(what) ? instead(what) + 2 : "left out";
  BookImageKind kind = book_image_probe(real, &w, &h);
  if (kind == BOOK_IMAGE_NONE || kind == BOOK_IMAGE_WEBP) { /* WebP: neither format draws it yet */
    book_diag(b, BOOK_WARNING, pos, "%s %s is not a PNG, JPEG, GIF or SVG file; %s", what, src,
              then);
  } else if (kind == BOOK_IMAGE_SVG && !san_svg_well_formed(real, &why)) {
    /* neither format can use it: both show a placeholder */
    book_diag(b, BOOK_WARNING, pos, "%s %s is not a well-formed SVG file (%s); %s", what, src, why,
              then);
  } else if (too_large(w, h)) {
    /* Decoding it would take gigabytes: a decompression bomb or a mistake. */
    book_diag(b, BOOK_WARNING, pos, "%s %s is %d x %d pixels, too large; %s", what, src, w, h,
              then);
  } else if (kind == BOOK_IMAGE_SVG && (why = svg_refs_why(b->sandbox, real))) {
    book_diag(b, BOOK_WARNING, pos, "%s %s: %s; %s", what, src, why, then);
  } else if (!front_ahead_decodes(c->ahead, real, kind, &why)) {
    /* its header reads, its pixels do not: neither book can show it */
    book_diag(b, BOOK_WARNING, pos, "%s %s cannot be decoded (%s); %s", what, src, why, then);
  } else {
    r = g_new0(BookResource, 1);
    r->src = g_strdup(src);
    r->path = g_strdup(real);
    r->kind = kind;
    r->media_type = g_strdup(book_image_media_type(kind));
    r->width_px = w;
    r->height_px = h;
    if (kind == BOOK_IMAGE_SVG)
      r->text_px = san_svg_text_px(real, w);
  }
  g_free(why);
  return r;
}

/* Whether image_resource decodes a file of kind and size to check it. */
static bool checked_by_decoding(BookImageKind kind, int w, int h)
{
  return (kind == BOOK_IMAGE_PNG || kind == BOOK_IMAGE_JPEG || kind == BOOK_IMAGE_GIF) &&
         !too_large(w, h);
}

void md_resolve_ahead(Ctx *c, const BookNode *n)
{
  const char *src = n->as.image.src ? n->as.image.src : "";
  if (!c->ahead || book_url_kind(src) != BOOK_URL_RELATIVE || !*src)
    return;
  SandboxVerdict v;
  char *real = locate_image(c, src_of(c, n->pos.file)->dir, src, true, &v);
  if (real && !front_ahead_has_image(c->ahead, real)) {
    int w, h;
    BookImageKind kind = book_image_probe(real, &w, &h);
    front_ahead_image(c->ahead, real, checked_by_decoding(kind, w, h) ? kind : BOOK_IMAGE_NONE);
  }
  g_free(real);
}

static void resolve_image(Ctx *c, BookNode *n)
{
  Book *b = c->book;
  const char *src = n->as.image.src ? n->as.image.src : "";
  BookUrlKind kind = book_url_kind(src);
  if (kind == BOOK_URL_WEB) {
    book_diag(b, BOOK_WARNING, &n->pos, "remote image %s is not fetched", src);
    return;
  } else if (kind == BOOK_URL_DATA) {
    book_diag(b, BOOK_WARNING, &n->pos, "data: image is not embedded; only local files are");
    return;
  } else if (kind != BOOK_URL_RELATIVE) {
    char *scheme = book_url_scheme(src);
    book_diag(b, BOOK_WARNING, &n->pos, "image with a %s: URL refused", scheme);
    g_free(scheme);
    return;
  }
  if (!*src) {
    book_diag(b, BOOK_WARNING, &n->pos, "image without a source");
    return;
  }
  Src *s = src_of(c, n->pos.file);
  char *real = find_image(c, &n->pos, s->dir, src, "image");
  if (!real)
    return;
  if (!(n->as.image.res = g_hash_table_lookup(c->res_by_path, real))) {
    BookResource *r = image_resource(c, &n->pos, src, real, "image");
    if (r) {
      r->href = g_strdup_printf("images/img-%u.%s", b->resources->len + 1, book_image_ext(r->kind));
      g_ptr_array_add(b->resources, r);
      g_hash_table_insert(c->res_by_path, r->path, r);
      n->as.image.res = r;
      if (r->kind == BOOK_IMAGE_SVG) /* what the EPUB's copy loses */
        san_svg_report(b, &n->pos, src, real);
    }
  }
  g_free(real);
}

/* Whether a -M option names the cover (it wins over every front matter). */
static bool option_gives_cover(const OctavoOptions *o)
{
  for (guint i = 0; o->metadata && i < o->metadata->len; i++) {
    const char *kv = o->metadata->pdata[i];
    while (g_ascii_isspace(*kv))
      kv++;
    if (g_ascii_strncasecmp(kv, "cover", 5) == 0) {
      for (kv += 5; g_ascii_isspace(*kv); kv++)
        ;
      if (*kv == '=')
        return true;
    }
  }
  return false;
}

void md_resolve_cover(Ctx *c)
{
  Book *b = c->book;
  const char *given = b->meta.cover;
  if (!given || !*given || c->n == 0)
    return;
  /* where it was named: the last front matter that names it (md_finish_meta
   * applies them in order), unless -M does; a relative name from -M is
   * relative to the first input's folder, as the book's other images */
  BookPos pos = {NULL, 0, 0};
  const char *written = given, *dir = c->srcs[0].dir;
  for (int i = c->n - 1; i >= 0 && !option_gives_cover(c->opts); i--)
    if (c->srcs[i].fm.v[K_COVER]) {
      if (c->srcs[i].cover_src) { /* relative to that file's folder */
        pos = c->srcs[i].cover_at;
        written = c->srcs[i].cover_src;
        dir = c->srcs[i].dir;
      }
      break;
    }
  char *real = find_image(c, &pos, dir, written, "cover");
  BookResource *r = real ? image_resource(c, &pos, written, real, "cover") : NULL;
  if (r && r->kind != BOOK_IMAGE_PNG && r->kind != BOOK_IMAGE_JPEG) {
    book_diag(b, BOOK_WARNING, &pos, "cover %s: not a PNG or JPEG file; using octavo's cover",
              written);
    g_clear_pointer(&r, book_resource_free);
  }
  if (r)
    r->href = g_strdup_printf("cover.%s", book_image_ext(r->kind));
  b->cover = r;
  g_free(real);
}

/* An image that is not in the book shows its alt text in both books (a
 * framed placeholder in the PDF, text or a link to it in the EPUB). Without
 * alt text that was nothing at all, and a link around it was left with no
 * text: no accessible name, no visible trace. Its title, else its address,
 * stands in. */
static void missing_image_text(Book *b, BookNode *n)
{
  GString *alt = g_string_new(NULL);
  book_node_text(n, alt);
  bool has_alt = alt->len > 0;
  g_string_free(alt, TRUE);
  if (has_alt)
    return;
  const char *s = n->as.image.title && *n->as.image.title ? n->as.image.title
                  : n->as.image.src && *n->as.image.src   ? n->as.image.src
                                                          : "image";
  BookNode *t = book_node_new(b, BOOK_TEXT, &n->pos);
  t->text = g_strdup(s);
  book_node_append(n, t);
}

static bool is_html_a(const BookNode *n)
{
  return n->type == BOOK_HTML_INLINE && strcmp(n->as.html.tag, "a") == 0;
}

/* Links, images and dropped-content markers of one tree. */
void md_resolve_tree(Ctx *c, BookNode *tree, BookChapter *ch)
{
  GPtrArray *todo = g_ptr_array_new();
  GHashTable *nested = g_hash_table_new(NULL, NULL); /* links inside links (raw HTML makes them) */
  int link_depth = 0;
  BookIter it;
  book_iter_init(&it, tree);
  /* Collected on EXIT: document order, children before parents, so that
   * unwrapping a link never frees a node still to do. */
  while (book_iter_next(&it) != BOOK_ITER_DONE) {
    BookNode *n = it.cur;
    if (it.ev == BOOK_ITER_ENTER && san_is_marker(n)) {
      book_iter_skip_children(&it);
    } else if ((n->type == BOOK_LINK || is_html_a(n)) && it.ev == BOOK_ITER_ENTER) {
      if (link_depth++ > 0 && n->type == BOOK_LINK)
        g_hash_table_add(nested, n);
    } else if ((n->type == BOOK_LINK || is_html_a(n)) && it.ev == BOOK_ITER_EXIT) {
      link_depth--;
    }
    if (it.ev == BOOK_ITER_EXIT &&
        (san_is_marker(n) || n->type == BOOK_LINK || n->type == BOOK_IMAGE))
      g_ptr_array_add(todo, n);
  }
  for (guint i = 0; i < todo->len; i++) {
    BookNode *n = todo->pdata[i];
    if (g_hash_table_contains(nested, n)) {
      book_diag(c->book, BOOK_WARNING, &n->pos,
                "a link inside a link's text: the inner link dropped (its text is kept)");
      book_node_unwrap(n);
    } else if (san_is_marker(n)) {
      book_node_unlink(n);
      book_node_free(n);
    } else if (n->type == BOOK_LINK) {
      resolve_link(c, n, ch);
    } else {
      resolve_image(c, n);
      if (!n->as.image.res)
        missing_image_text(c->book, n);
    }
  }
  g_ptr_array_free(todo, TRUE);
  g_hash_table_destroy(nested);
}
