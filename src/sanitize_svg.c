/* sanitize_svg.c: an SVG image cleaned for the e-book, as raw HTML is.
 *
 * What it does: parses an SVG (no network, no entities, no XInclude) and
 * writes it back with only what an EPUB may hold and a reading system
 * cannot be made to fetch or run: SVG 1.1's elements (EPUBCheck's
 * schema; others go with their content), no scripts or event handlers, no
 * element that embeds another document (<iframe>, <object>, <embed>,
 * media, forms: also inside <foreignObject>), no reference out of the
 * image (href and the like: a fragment or a data: image; only a hyperlink
 * may go to the web), no CSS @import or url() out of the image (in
 * <style> and in attributes), no animation of a reference or to a URL,
 * no DOCTYPE, entity references, processing instructions or xml:base.
 * A hyperlink without a title gets its text as xlink:title (EPUBCheck
 * asks for one). san_svg_report says what was removed, as warnings at the
 * image's reference. What it does not do: decide whether the SVG is in
 * the book (resolve.c), or draw it (librsvg, which fetches nothing but
 * files beside the image and data: URLs).
 */
#include "sanitize.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>

#define SVG_NS "http://www.w3.org/2000/svg"
#define XHTML_NS "http://www.w3.org/1999/xhtml"
#define XLINK_NS "http://www.w3.org/1999/xlink"

/* SVG 1.1's elements but <script> (the schema EPUBCheck validates with). */
static const char *const svg_elements[] = {
    "a", "altGlyph", "altGlyphDef", "altGlyphItem", "animate", "animateColor", "animateMotion",
    "animateTransform", "circle", "clipPath", "color-profile", "cursor", "defs", "desc", "ellipse",
    "feBlend", "feColorMatrix", "feComponentTransfer", "feComposite", "feConvolveMatrix",
    "feDiffuseLighting", "feDisplacementMap", "feDistantLight", "feFlood", "feFuncA", "feFuncB",
    "feFuncG", "feFuncR", "feGaussianBlur", "feImage", "feMerge", "feMergeNode", "feMorphology",
    "feOffset", "fePointLight", "feSpecularLighting", "feSpotLight", "feTile", "feTurbulence",
    "filter", "font", "font-face", "font-face-format", "font-face-name", "font-face-src",
    "font-face-uri", "foreignObject", "g", "glyph", "glyphRef", "hkern", "image", "line",
    "linearGradient", "marker", "mask", "metadata", "missing-glyph", "mpath", "path", "pattern",
    "polygon", "polyline", "radialGradient", "rect", "set", "stop", "style", "svg", "switch",
    "symbol", "text", "textPath", "title", "tref", "tspan", "use", "view", "vkern", NULL};

/* XHTML elements (in <foreignObject>) that run code, embed another
 * document or media, or send a form. */
static const char *const xhtml_dropped[] = {
    "script", "iframe", "frame", "frameset", "object", "embed", "applet", "audio", "video",
    "source", "track", "picture", "link", "meta", "base", "portal", "form", "input", "button",
    "textarea", "select", "noscript", "template", "slot", NULL};

/* Attributes that hold a URL a reading system would load or follow. */
static const char *const url_attrs[] = {
    "href", "src", "data", "srcset", "poster", "action", "formaction", "codebase", "archive",
    "classid", "background", "longdesc", "cite", "manifest", "ping", "lowsrc", "dynsrc", "usemap",
    "profile", "imagesrcset", NULL};

static const char *const animations[] = {"animate", "animateColor", "animateMotion",
                                         "animateTransform", "set", NULL};

static bool in_list(const char *const *list, const xmlChar *name)
{
  for (; *list; list++)
    if (xmlStrcmp(BAD_CAST * list, name) == 0)
      return true;
  return false;
}

static bool ns_is(const xmlNode *n, const char *uri)
{
  return n->ns && n->ns->href && xmlStrcmp(n->ns->href, BAD_CAST uri) == 0;
}

/* What was removed: "<iframe> (line 14): it embeds another document". */
typedef struct {
  GPtrArray *removed; /* char *, or NULL: nothing is recorded */
  bool bare;          /* the root <svg> has no namespace: nor have its elements */
} Clean;

static void note(Clean *c, const xmlNode *n, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void note(Clean *c, const xmlNode *n, const char *fmt, ...)
{
  if (!c->removed)
    return;
  va_list ap;
  va_start(ap, fmt);
  char *what = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  long line = xmlGetLineNo(n);
  g_ptr_array_add(c->removed, line > 0 ? g_strdup_printf("%s (line %ld)", what, line)
                                       : g_strdup(what));
  g_free(what);
}

/* s without leading blanks and controls (a browser skips them before a
 * scheme: " java\tscript:" is javascript:). */
static char *url_squeeze(const char *s)
{
  GString *o = g_string_new(NULL);
  for (; *s; s++)
    if ((guchar)*s > ' ')
      g_string_append_c(o, *s);
  return g_string_free(o, FALSE);
}

/* May a reference (not a hyperlink) point at url: a fragment of this
 * image, or a data: image. */
static bool ref_ok(const char *url)
{
  char *u = url_squeeze(url);
  bool ok = u[0] == '#' || g_ascii_strncasecmp(u, "data:image/", 11) == 0;
  g_free(u);
  return ok;
}

/* May a hyperlink go to url: a fragment, or the web. */
static bool link_ok(const char *url)
{
  char *u = url_squeeze(url);
  bool ok = u[0] == '#' || g_ascii_strncasecmp(u, "http://", 7) == 0 ||
            g_ascii_strncasecmp(u, "https://", 8) == 0;
  g_free(u);
  return ok;
}

/* The end of a CSS function's arguments starting at p (after its '('):
 * the matching ')' outside strings, or the end of the text. */
static const char *css_args_end(const char *p)
{
  int depth = 1;
  char q = 0;
  for (; *p; p++) {
    if (q) {
      if (*p == q)
        q = 0;
    } else if (*p == '"' || *p == '\'') {
      q = *p;
    } else if (*p == '(') {
      depth++;
    } else if (*p == ')' && --depth == 0) {
      return p;
    }
  }
  return p;
}

/* Does the CSS text s start with word (ASCII, any case) at p? */
static bool css_at(const char *p, const char *word)
{
  return g_ascii_strncasecmp(p, word, strlen(word)) == 0;
}

/* The CSS text css without @import rules, and with every url() that
 * leaves the image, and every image() and image-set() (whose strings are
 * URLs), replaced by none. CSS escapes could spell any of these (\69mport):
 * a text that has one is dropped whole. Returns a new string (g_free);
 * *what gets what was removed (a static string) or NULL. */
static char *clean_css(const char *css, const char **what)
{
  *what = NULL;
  if (strchr(css, '\\')) {
    *what = "a style with CSS escapes";
    return g_strdup("");
  }
  GString *o = g_string_new(NULL);
  const char *p = css;
  char q = 0;
  while (*p) {
    if (q) { /* inside a string: copied as it is */
      if (*p == q)
        q = 0;
      g_string_append_c(o, *p++);
      continue;
    }
    if (*p == '"' || *p == '\'') {
      q = *p;
      g_string_append_c(o, *p++);
    } else if (*p == '/' && p[1] == '*') { /* comments go: they could split a word */
      const char *e = strstr(p + 2, "*/");
      p = e ? e + 2 : p + strlen(p);
      g_string_append_c(o, ' ');
    } else if (*p == '@' && css_at(p + 1, "import")) {
      /* to the rule's end: a ';' outside strings and parentheses */
      const char *e = p;
      char sq = 0;
      int depth = 0;
      for (; *e && (sq || depth || *e != ';'); e++) {
        if (sq)
          sq = *e == sq ? 0 : sq;
        else if (*e == '"' || *e == '\'')
          sq = *e;
        else if (*e == '(')
          depth++;
        else if (*e == ')' && depth)
          depth--;
      }
      p = *e ? e + 1 : e;
      *what = "a CSS @import";
    } else if (css_at(p, "url(") || css_at(p, "image(") || css_at(p, "image-set(")) {
      const char *open = strchr(p, '(');
      const char *close = css_args_end(open + 1);
      char *arg = g_strstrip(g_strndup(open + 1, (gsize)(close - open - 1)));
      size_t n = strlen(arg);
      if (n >= 2 && (arg[0] == '"' || arg[0] == '\'') && arg[n - 1] == arg[0]) {
        arg[n - 1] = '\0';
        memmove(arg, arg + 1, n - 1);
      }
      bool keep = css_at(p, "url(") && ref_ok(arg);
      g_free(arg);
      if (keep) {
        g_string_append_len(o, p, close + (*close ? 1 : 0) - p);
      } else {
        g_string_append(o, "none");
        *what = "a CSS reference out of the image";
      }
      p = *close ? close + 1 : close;
    } else {
      g_string_append_c(o, *p++);
    }
  }
  return g_string_free(o, FALSE);
}

/* Does an attribute value hold a url() (or CSS) reference out of the
 * image? */
static bool value_leaves(const char *v)
{
  const char *what;
  if (!strchr(v, '(') && !strchr(v, '@'))
    return false;
  char *c = clean_css(v, &what);
  g_free(c);
  return what != NULL;
}

/* Its text, flattened, or NULL when blank. */
static char *text_of(xmlNode *n)
{
  xmlChar *t = xmlNodeGetContent(n);
  if (!t)
    return NULL;
  char *s = g_strdup((const char *)t);
  xmlFree(t);
  for (char *p = s; *p; p++)
    if (g_ascii_isspace(*p))
      *p = ' ';
  g_strstrip(s);
  if (!*s) {
    g_free(s);
    return NULL;
  }
  return s;
}

/* Does hyperlink a have a title (xlink:title or a <title> child)? */
static bool has_title(xmlNode *a)
{
  if (xmlHasNsProp(a, BAD_CAST "title", BAD_CAST XLINK_NS))
    return true;
  for (xmlNode *c = a->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && xmlStrcmp(c->name, BAD_CAST "title") == 0)
      return true;
  return false;
}

/* Whether element n goes with its content (noted). */
static bool element_goes(Clean *c, xmlNode *n)
{
  const char *name = (const char *)n->name;
  if (ns_is(n, SVG_NS) || (c->bare && !n->ns)) {
    if (xmlStrcmp(n->name, BAD_CAST "script") == 0) {
      note(c, n, "<script>");
      return true;
    }
    if (!in_list(svg_elements, n->name)) {
      note(c, n, "<%s>, no element of SVG 1.1", name);
      return true;
    }
    if (in_list(animations, n->name)) {
      xmlChar *an = xmlGetProp(n, BAD_CAST "attributeName");
      const char *local = an ? strrchr((const char *)an, ':') : NULL;
      local = local ? local + 1 : (const char *)an;
      bool ref = local && (g_ascii_strcasecmp(g_strstrip((char *)local), "href") == 0 ||
                           g_ascii_strcasecmp(local, "src") == 0);
      xmlFree(an);
      if (ref) {
        note(c, n, "<%s> of a reference", name);
        return true;
      }
      static const char *const vals[] = {"values", "from", "to", "by"};
      for (size_t i = 0; i < G_N_ELEMENTS(vals); i++) {
        xmlChar *v = xmlGetProp(n, BAD_CAST vals[i]);
        bool bad = v && (strchr((const char *)v, ':') || value_leaves((const char *)v));
        xmlFree(v);
        if (bad) {
          note(c, n, "<%s> to a URL", name);
          return true;
        }
      }
    }
    return false;
  }
  if (ns_is(n, XHTML_NS)) {
    if (in_list(xhtml_dropped, n->name)) {
      note(c, n, "<%s>", name);
      return true;
    }
    if (xmlStrcmp(n->name, BAD_CAST "img") == 0) {
      xmlChar *src = xmlGetProp(n, BAD_CAST "src");
      bool ok = src && src[0] != '#' && ref_ok((const char *)src);
      xmlFree(src);
      if (!ok) {
        note(c, n, "<img> of an outside file");
        return true;
      }
    }
    return false;
  }
  if (ns_is(n, "http://www.w3.org/2001/XInclude")) {
    note(c, n, "<%s> (XInclude)", name);
    return true;
  }
  if (!n->ns) { /* no namespace in a namespaced SVG: neither SVG nor XHTML reads it */
    note(c, n, "<%s>, in no namespace", name);
    return true;
  }
  return false; /* metadata of other vocabularies (RDF, Inkscape): inert */
}

/* Event handlers, attributes made of entity references, xml:base,
 * references out of the image, CSS that leaves it. */
static void clean_attrs(Clean *c, xmlNode *n)
{
  bool svg = ns_is(n, SVG_NS) || (c->bare && !n->ns);
  bool hyperlink = xmlStrcmp(n->name, BAD_CAST "a") == 0 && (svg || ns_is(n, XHTML_NS));
  for (xmlAttr *a = n->properties, *an; a; a = an) {
    an = a->next;
    const char *name = (const char *)a->name;
    const char *why = NULL;
    bool entity = false;
    for (xmlNode *ch = a->children; ch; ch = ch->next)
      entity = entity || ch->type == XML_ENTITY_REF_NODE;
    xmlChar *v = xmlNodeGetContent((xmlNode *)a);
    const char *value = v ? (const char *)v : "";
    if (g_ascii_strncasecmp(name, "on", 2) == 0) {
      why = "an event handler";
    } else if (entity) {
      why = "an entity reference";
    } else if (a->ns && xmlStrcmp(a->ns->href, XML_XML_NAMESPACE) == 0 &&
               xmlStrcmp(a->name, BAD_CAST "base") == 0) {
      why = "xml:base";
    } else if (in_list(url_attrs, a->name)) {
      bool ok = hyperlink && strcmp(name, "href") == 0 ? link_ok(value) : ref_ok(value);
      if (!ok)
        why = hyperlink ? "a link that is not to the web" : "a reference out of the image";
    } else if (strcmp(name, "style") == 0 && !a->ns) {
      const char *what;
      char *clean = clean_css(value, &what);
      if (what) {
        note(c, n, "%s in a style attribute", what);
        xmlSetProp(n, BAD_CAST "style", BAD_CAST clean);
      }
      g_free(clean);
    } else if (value_leaves(value)) {
      why = "a CSS reference out of the image";
    } else if (g_ascii_strncasecmp(name, "attributeName", 13) != 0) {
      char *u = url_squeeze(value);
      if (g_ascii_strncasecmp(u, "javascript:", 11) == 0)
        why = "a javascript: URL";
      g_free(u);
    }
    xmlFree(v);
    if (why) {
      note(c, n, "%s (%s=\"…\")", why, name);
      xmlRemoveProp(a);
    }
  }
  if (hyperlink && svg && !has_title(n)) {
    char *t = text_of(n);
    xmlChar *href = xmlGetNsProp(n, BAD_CAST "href", BAD_CAST XLINK_NS);
    if (!href)
      href = xmlGetProp(n, BAD_CAST "href");
    const char *title = t ? t : href ? (const char *)href : NULL;
    if (title) {
      xmlNs *xl = xmlSearchNsByHref(n->doc, n, BAD_CAST XLINK_NS);
      if (!xl)
        xl = xmlNewNs(xmlDocGetRootElement(n->doc), BAD_CAST XLINK_NS, BAD_CAST "xlink");
      xmlSetNsProp(n, xl, BAD_CAST "title", BAD_CAST title);
    }
    xmlFree(href);
    g_free(t);
  }
}

/* A <style> element's CSS, cleaned. */
static void clean_style(Clean *c, xmlNode *n)
{
  xmlChar *css = xmlNodeGetContent(n);
  const char *what;
  char *clean = clean_css(css ? (const char *)css : "", &what);
  if (what) {
    note(c, n, "%s in <style>", what);
    while (n->children) {
      xmlNode *ch = n->children;
      xmlUnlinkNode(ch);
      xmlFreeNode(ch);
    }
    xmlAddChild(n, xmlNewCDataBlock(n->doc, BAD_CAST clean, (int)strlen(clean)));
  }
  xmlFree(css);
  g_free(clean);
}

/* The node after n in pre-order within root (into n's children when
 * descend), or NULL. */
static xmlNode *next_node(xmlNode *n, xmlNode *root, bool descend)
{
  if (descend && n->type == XML_ELEMENT_NODE && n->children)
    return n->children;
  while (n && n != root && !n->next)
    n = n->parent;
  return n && n != root ? n->next : NULL;
}

/* Parse and clean; NULL when not a well-formed SVG. */
static xmlDoc *clean_doc(Clean *c, const char *data, gsize len)
{
  if (len > G_MAXINT)
    return NULL;
  xmlDoc *doc = xmlReadMemory(data, (int)len, NULL, NULL,
                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc)
    return NULL;
  xmlNode *root = xmlDocGetRootElement(doc);
  if (!root || xmlStrcmp(root->name, BAD_CAST "svg") != 0) {
    xmlFreeDoc(doc);
    return NULL;
  }
  c->bare = !root->ns;
  /* An iterative pre-order walk of the root element's subtree. */
  for (xmlNode *n = root; n;) {
    bool drop = false;
    if (n->type == XML_ENTITY_REF_NODE || n->type == XML_PI_NODE)
      drop = n != root;
    else if (n->type == XML_ELEMENT_NODE && n != root)
      drop = element_goes(c, n);
    if (drop) {
      xmlNode *next = next_node(n, root, false);
      xmlUnlinkNode(n);
      xmlFreeNode(n);
      n = next;
      continue;
    }
    if (n->type == XML_ELEMENT_NODE) {
      clean_attrs(c, n);
      if (xmlStrcmp(n->name, BAD_CAST "style") == 0)
        clean_style(c, n);
    }
    n = next_node(n, root, true);
  }
  /* Then the DOCTYPE with its entity declarations, and PIs before or after
   * the root (xml-stylesheet would fetch an outside file). */
  for (xmlNode *ch = doc->children, *nx; ch; ch = nx) {
    nx = ch->next;
    if (ch->type == XML_PI_NODE || ch->type == XML_DTD_NODE) {
      if (ch->type == XML_PI_NODE)
        note(c, ch, "a processing instruction <?%s?>", (const char *)ch->name);
      xmlUnlinkNode(ch);
      xmlFreeNode(ch);
    }
  }
  doc->intSubset = NULL;
  return doc;
}

GBytes *san_svg_clean(const char *data, gsize len)
{
  Clean c = {.removed = NULL};
  xmlDoc *doc = clean_doc(&c, data, len);
  if (!doc)
    return NULL;
  xmlChar *out = NULL;
  int outlen = 0;
  xmlDocDumpMemoryEnc(doc, &out, &outlen, "UTF-8");
  xmlFreeDoc(doc);
  if (!out)
    return NULL;
  GBytes *b = g_bytes_new(out, (gsize)outlen);
  xmlFree(out);
  return b;
}

void san_svg_report(Book *b, const BookPos *pos, const char *src, const char *path)
{
  char *data = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &data, &len, NULL))
    return;
  Clean c = {.removed = g_ptr_array_new_with_free_func(g_free)};
  xmlDoc *doc = clean_doc(&c, data, len);
  xmlFreeDoc(doc);
  g_free(data);
  enum { SHOWN = 10 };
  for (guint i = 0; i < c.removed->len && i < SHOWN; i++)
    book_diag(b, BOOK_WARNING, pos, "image %s: %s removed from the e-book's copy", src,
              (char *)c.removed->pdata[i]);
  if (c.removed->len > SHOWN)
    book_diag(b, BOOK_WARNING, pos, "image %s: %u more removed from the e-book's copy", src,
              c.removed->len - SHOWN);
  g_ptr_array_free(c.removed, TRUE);
}
