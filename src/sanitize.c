/* sanitize.c: raw HTML -> allow-listed model nodes, with libxml2's HTML
 * parser.
 *
 * What it does: parses each raw HTML piece that cmark-gfm passes through
 * (CMARK_OPT_UNSAFE), keeps the elements and attributes of a fixed allow-list
 * as model nodes, keeps the text of unknown elements, drops the content of
 * script-like elements, and reports every drop with a position.  What it does
 * not do: resolve links or images (markdown.c does, for HTML and Markdown
 * alike), or pair inline tags across cmark nodes (markdown.c keeps that
 * stack).  The libxml2 trees are walked without recursion.
 */
#include "sanitize.h"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <math.h>
#include <string.h>

enum {
  E_BLOCK = 1 << 0,       /* a block element: BOOK_HTML_BLOCK */
  E_INLINE = 1 << 1,      /* an inline element: BOOK_HTML_INLINE */
  E_VOID = 1 << 2,        /* never has content */
  E_CONTAINER = 1 << 3,   /* may be opened by a lone tag in an HTML block, holding Markdown */
  E_NOBLANKS = 1 << 4,    /* whitespace-only text inside it is dropped */
  E_SUPPRESS = 1 << 5,    /* dropped with its content */
  E_FORBIDDEN = 1 << 6,   /* dropped (void or content-free) */
  E_TRANSPARENT = 1 << 7, /* html, head, body: the parser's implied wrappers */
};

typedef struct {
  const char *name;
  unsigned flags;
  const char *attrs; /* allowed attributes besides the global ones, space-separated */
} ElemInfo;

static const ElemInfo elements[] = {
    {"html", E_TRANSPARENT, ""},
    {"head", E_TRANSPARENT, ""},
    {"body", E_TRANSPARENT, ""},
    /* blocks */
    {"p", E_BLOCK, ""},
    {"div", E_BLOCK | E_CONTAINER, ""},
    {"section", E_BLOCK | E_CONTAINER, ""},
    {"aside", E_BLOCK | E_CONTAINER, ""},
    {"article", E_BLOCK | E_CONTAINER, ""},
    {"header", E_BLOCK | E_CONTAINER, ""},
    {"footer", E_BLOCK | E_CONTAINER, ""},
    {"blockquote", E_BLOCK | E_CONTAINER, "cite"},
    {"figure", E_BLOCK | E_CONTAINER, ""},
    {"figcaption", E_BLOCK | E_CONTAINER, ""},
    /* mdBook's code listing: tidy.c makes it a BOOK_FIGURE (listing) */
    {"listing", E_BLOCK | E_CONTAINER, "number file-name caption"},
    {"details", E_BLOCK | E_CONTAINER, "open"},
    {"summary", E_BLOCK, ""},
    {"address", E_BLOCK, ""},
    {"ul", E_BLOCK | E_NOBLANKS, ""},
    {"ol", E_BLOCK | E_NOBLANKS, "start type reversed"},
    {"li", E_BLOCK, "value"},
    {"dl", E_BLOCK | E_NOBLANKS, ""},
    {"dt", E_BLOCK, ""},
    {"dd", E_BLOCK, ""},
    {"table", E_BLOCK | E_NOBLANKS, ""},
    {"caption", E_BLOCK, ""},
    {"colgroup", E_BLOCK | E_NOBLANKS, "span"},
    {"col", E_BLOCK | E_VOID, "span"},
    {"thead", E_BLOCK | E_NOBLANKS, ""},
    {"tbody", E_BLOCK | E_NOBLANKS, ""},
    {"tfoot", E_BLOCK | E_NOBLANKS, ""},
    {"tr", E_BLOCK | E_NOBLANKS, ""},
    {"th", E_BLOCK, "colspan rowspan scope abbr"},
    {"td", E_BLOCK, "colspan rowspan"},
    {"h1", E_BLOCK, ""},
    {"h2", E_BLOCK, ""},
    {"h3", E_BLOCK, ""},
    {"h4", E_BLOCK, ""},
    {"h5", E_BLOCK, ""},
    {"h6", E_BLOCK, ""},
    {"pre", E_BLOCK, ""},
    {"hr", E_BLOCK | E_VOID, ""},
    /* inlines */
    {"span", E_INLINE, ""},
    {"em", E_INLINE, ""},
    {"strong", E_INLINE, ""},
    {"b", E_INLINE, ""},
    {"i", E_INLINE, ""},
    {"u", E_INLINE, ""},
    {"s", E_INLINE, ""},
    {"sub", E_INLINE, ""},
    {"sup", E_INLINE, ""},
    {"small", E_INLINE, ""},
    {"mark", E_INLINE, ""},
    {"abbr", E_INLINE, ""},
    {"cite", E_INLINE, ""},
    {"q", E_INLINE, "cite"},
    {"dfn", E_INLINE, ""},
    {"kbd", E_INLINE, ""},
    {"samp", E_INLINE, ""},
    {"var", E_INLINE, ""},
    {"code", E_INLINE, ""},
    {"time", E_INLINE, "datetime"},
    {"bdi", E_INLINE, ""},
    {"bdo", E_INLINE, ""},
    {"ruby", E_INLINE, ""},
    {"rt", E_INLINE, ""},
    {"rp", E_INLINE, ""},
    {"ins", E_INLINE, "cite datetime"},
    {"del", E_INLINE, "cite datetime"},
    {"a", E_INLINE, "href name"},
    {"img", E_INLINE | E_VOID, "src alt width height"},
    {"br", E_INLINE | E_VOID, ""},
    {"wbr", E_INLINE | E_VOID, ""},
    /* dropped with their content */
    {"script", E_SUPPRESS, ""},
    {"style", E_SUPPRESS, ""},
    {"iframe", E_SUPPRESS, ""},
    {"object", E_SUPPRESS, ""},
    {"embed", E_SUPPRESS | E_VOID, ""},
    {"applet", E_SUPPRESS, ""},
    {"template", E_SUPPRESS, ""},
    {"textarea", E_SUPPRESS, ""},
    {"select", E_SUPPRESS, ""},
    {"title", E_SUPPRESS, ""},
    {"svg", E_SUPPRESS, ""},
    {"math", E_SUPPRESS, ""},
    {"frameset", E_SUPPRESS, ""},
    {"noembed", E_SUPPRESS, ""},
    /* dropped, nothing to keep */
    {"input", E_FORBIDDEN | E_VOID, ""},
    {"base", E_FORBIDDEN | E_VOID, ""},
    {"meta", E_FORBIDDEN | E_VOID, ""},
    {"link", E_FORBIDDEN | E_VOID, ""},
    {"param", E_FORBIDDEN | E_VOID, ""},
    {"source", E_FORBIDDEN | E_VOID, ""},
    {"track", E_FORBIDDEN | E_VOID, ""},
    {"area", E_FORBIDDEN | E_VOID, ""},
    {"frame", E_FORBIDDEN | E_VOID, ""},
    {"keygen", E_FORBIDDEN | E_VOID, ""},
};

static const char global_attrs[] = "id class title lang dir";

static const ElemInfo *elem_info(const char *name)
{
  if (!name)
    return NULL;
  for (size_t i = 0; i < G_N_ELEMENTS(elements); i++)
    if (g_ascii_strcasecmp(elements[i].name, name) == 0)
      return &elements[i];
  return NULL;
}

/* True when word is one of the space-separated words of list. */
static bool in_list(const char *list, const char *word)
{
  size_t n = strlen(word);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ' ');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && g_ascii_strncasecmp(p, word, n) == 0)
      return true;
    if (!e)
      break;
    p = e + 1;
  }
  return false;
}

bool san_url_allowed(const char *url)
{
  BookUrlKind k = book_url_kind(url);
  return k == BOOK_URL_RELATIVE || k == BOOK_URL_WEB || k == BOOK_URL_MAILTO;
}

bool san_element_is_void(const char *tag)
{
  const ElemInfo *ei = elem_info(tag);
  return ei && (ei->flags & E_VOID);
}

bool san_element_is_allowed(const char *tag)
{
  const ElemInfo *ei = elem_info(tag);
  return ei && (ei->flags & (E_BLOCK | E_INLINE));
}

bool san_attr_is_allowed(const char *tag, const char *attr)
{
  const ElemInfo *ei = elem_info(tag);
  return ei && (ei->flags & (E_BLOCK | E_INLINE)) && attr &&
         (in_list(global_attrs, attr) || in_list(ei->attrs, attr));
}

bool san_is_marker(const BookNode *n)
{
  if (!n || n->type != BOOK_HTML_INLINE)
    return false;
  const ElemInfo *ei = elem_info(n->as.html.tag);
  return ei && (ei->flags & E_SUPPRESS);
}

/* ---- one element -> one node ---- */

static bool all_digits(const char *s)
{
  if (!s || !*s)
    return false;
  for (; *s; s++)
    if (!g_ascii_isdigit(*s))
      return false;
  return true;
}

static bool has_space(const char *s)
{
  for (; *s; s++)
    if (g_ascii_isspace(*s))
      return true;
  return false;
}

/* A position inside the fragment: libxml2 counts lines from the fragment's
 * start. */
static BookPos node_pos(const BookPos *base, const xmlNode *n)
{
  BookPos p = base ? *base : (BookPos){0};
  long line = n ? xmlGetLineNo(n) : -1;
  if (line > 1 && p.line > 0) {
    p.line += (int)line - 1;
    p.col = 1;
  }
  return p;
}

static char *get_attr(const xmlNode *el, const char *name)
{
  xmlChar *v = xmlGetProp(el, (const xmlChar *)name);
  if (!v)
    return NULL;
  char *s = g_strdup((const char *)v);
  xmlFree(v);
  return s;
}

/* Is attribute (name, value) kept on element ei?  Sets *why for a warning. */
static bool attr_ok(const ElemInfo *ei, const char *name, const char *value, const char **why)
{
  *why = NULL;
  if (!in_list(global_attrs, name) && !in_list(ei->attrs, name))
    return false;
  if (strcmp(name, "dir") == 0)
    return strcmp(value, "ltr") == 0 || strcmp(value, "rtl") == 0 || strcmp(value, "auto") == 0;
  if (strcmp(name, "id") == 0 || strcmp(name, "name") == 0)
    return *value && !has_space(value);
  if (strcmp(name, "colspan") == 0 || strcmp(name, "rowspan") == 0 || strcmp(name, "start") == 0 ||
      strcmp(name, "span") == 0 || strcmp(name, "width") == 0 || strcmp(name, "height") == 0 ||
      strcmp(name, "value") == 0)
    return all_digits(value);
  if (strcmp(name, "cite") == 0 || strcmp(name, "href") == 0) {
    if (!san_url_allowed(value)) {
      *why = "unsafe URL";
      return false;
    }
    return true;
  }
  if (strcmp(name, "src") == 0) {
    BookUrlKind k = book_url_kind(value);
    bool ok = k == BOOK_URL_RELATIVE || k == BOOK_URL_WEB || k == BOOK_URL_DATA;
    if (!ok)
      *why = "unsafe URL";
    return ok;
  }
  return true;
}

/* The allow-listed attributes of el as a NULL-terminated name/value vector
 * (NULL when none), with one warning for everything dropped. */
static char **clean_attrs(Book *book, const xmlNode *el, const ElemInfo *ei, const BookPos *pos,
                          const char *const *skip)
{
  GPtrArray *out = g_ptr_array_new();
  GString *dropped = NULL;
  for (const xmlAttr *a = el->properties; a; a = a->next) {
    const char *name = (const char *)a->name;
    bool skipped = false;
    for (const char *const *s = skip; s && *s; s++)
      if (g_ascii_strcasecmp(*s, name) == 0)
        skipped = true;
    if (skipped)
      continue;
    xmlChar *v = xmlNodeListGetString(el->doc, a->children, 1);
    const char *value = v ? (const char *)v : "";
    const char *why;
    if (attr_ok(ei, name, value, &why)) {
      char *lname = g_ascii_strdown(name, -1);
      if (strcmp(lname, "name") == 0) { /* <a name=x>: an old-style anchor */
        g_free(lname);
        lname = g_strdup("id");
      }
      g_ptr_array_add(out, lname);
      g_ptr_array_add(out, g_strdup(value));
    } else {
      if (!dropped)
        dropped = g_string_new(NULL);
      g_string_append_printf(dropped, "%s%s%s%s", dropped->len ? ", " : "", name, why ? " (" : "",
                             why ? why : "");
      if (why)
        g_string_append_c(dropped, ')');
    }
    xmlFree(v);
  }
  if (dropped) {
    book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped attribute%s %s of <%s>",
              strchr(dropped->str, ',') ? "s" : "", dropped->str, ei->name);
    g_string_free(dropped, TRUE);
  }
  if (out->len == 0) {
    g_ptr_array_free(out, TRUE);
    return NULL;
  }
  g_ptr_array_add(out, NULL);
  return (char **)g_ptr_array_free(out, FALSE);
}

/* ---- image sizes ---- */

/* s with every run of white space (newlines included) as one space, trimmed:
 * alt text is one line of text. Caller frees. */
static char *one_line(const char *s)
{
  GString *o = g_string_new(NULL);
  bool space = false;
  for (const char *p = s; *p; p++) {
    if (g_ascii_isspace(*p)) {
      space = o->len > 0;
      continue;
    }
    if (space)
      g_string_append_c(o, ' ');
    space = false;
    g_string_append_c(o, *p);
  }
  return g_string_free(o, FALSE);
}

/* A CSS length ("50%", "100px", "2.5em"; a plain number is px when
 * unitless is true, as in the width attribute) within the model's bounds
 * (book.h), else false. */
static bool parse_length(const char *text, bool unitless, BookLength *out)
{
  char *t = g_strstrip(g_strdup(text));
  char *end = NULL;
  double v = t[0] == '+' || t[0] == '.' || g_ascii_isdigit(t[0]) ? g_ascii_strtod(t, &end) : 0;
  BookLength l = {v, BOOK_LEN_NONE};
  if (end && end != t) {
    while (g_ascii_isspace(*end))
      end++;
    if (*end == '\0' && unitless)
      l.unit = BOOK_LEN_PX;
    else if (g_ascii_strcasecmp(end, "px") == 0)
      l.unit = BOOK_LEN_PX;
    else if (g_ascii_strcasecmp(end, "em") == 0)
      l.unit = BOOK_LEN_EM;
    else if (strcmp(end, "%") == 0)
      l.unit = BOOK_LEN_PERCENT;
  }
  g_free(t);
  double max = l.unit == BOOK_LEN_PX ? 10000 : l.unit == BOOK_LEN_EM ? 500 : 100;
  if (l.unit == BOOK_LEN_NONE || !isfinite(v) || v <= 0 || v > max)
    return false;
  *out = l;
  return true;
}

/* The size of an <img>: width and height attributes, then width,
 * max-width and height in its style (which win, as in CSS).  What cannot
 * be kept is reported in one warning; "auto" goes silently. */
static void image_size(Book *book, const xmlNode *el, const BookPos *pos, BookNode *img)
{
  GString *dropped = g_string_new(NULL);
  static const char *const attrs[] = {"width", "height"};
  for (size_t i = 0; i < G_N_ELEMENTS(attrs); i++) {
    char *v = get_attr(el, attrs[i]);
    BookLength *l = i == 0 ? &img->as.image.width : &img->as.image.height;
    if (v && !parse_length(v, true, l))
      g_string_append_printf(dropped, "%s%s=\"%s\"", dropped->len ? ", " : "", attrs[i], v);
    g_free(v);
  }
  char *style = get_attr(el, "style");
  char **decls = style ? g_strsplit(style, ";", -1) : NULL;
  for (char **d = decls; d && *d; d++) {
    char *decl = g_strstrip(*d); /* moves the text: find the colon after */
    char *colon = strchr(decl, ':');
    if (!*decl)
      continue;
    if (!colon) {
      g_string_append_printf(dropped, "%s'%s'", dropped->len ? ", " : "", decl);
      continue;
    }
    *colon = '\0';
    char *prop = g_strstrip(decl), *value = g_strstrip(colon + 1);
    char *imp = strstr(value, "!important");
    if (imp) {
      *imp = '\0';
      g_strstrip(value);
    }
    BookLength *l = g_ascii_strcasecmp(prop, "width") == 0       ? &img->as.image.width
                    : g_ascii_strcasecmp(prop, "height") == 0    ? &img->as.image.height
                    : g_ascii_strcasecmp(prop, "max-width") == 0 ? &img->as.image.max_width
                                                                 : NULL;
    if (l && g_ascii_strcasecmp(value, "auto") == 0)
      *l = (BookLength){0, BOOK_LEN_NONE};
    else if (!l || !parse_length(value, false, l))
      g_string_append_printf(dropped, "%s'%s: %s'", dropped->len ? ", " : "", prop, value);
  }
  g_strfreev(decls);
  g_free(style);
  if (dropped->len)
    book_diag(book, BOOK_WARNING, pos,
              "raw HTML: <img> size: dropped %s (kept: width, max-width, height in px, em or %%)",
              dropped->str);
  g_string_free(dropped, TRUE);
}

/* The model node for an allow-listed element, or NULL when it cannot be kept
 * (reported).  *is_leaf says the node takes no children from el. */
static BookNode *make_element(Book *book, const xmlNode *el, const ElemInfo *ei, const BookPos *pos,
                              bool *is_leaf)
{
  *is_leaf = (ei->flags & E_VOID) != 0;
  const char *name = ei->name;
  if (strcmp(name, "br") == 0)
    return book_node_new(book, BOOK_LINEBREAK, pos);
  if (strcmp(name, "img") == 0) {
    char *src = get_attr(el, "src");
    if (!src || !*src) {
      book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped <img> without src");
      g_free(src);
      return NULL;
    }
    const char *why;
    if (!attr_ok(ei, "src", src, &why)) {
      book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped <img> with an unsafe src");
      g_free(src);
      return NULL;
    }
    /* The model's image keeps src, alt, title and a size: report only what
     * the allow-list would not keep anyway (on*, ...). */
    static const char *const sized[] = {"width", "height", "style", NULL};
    char **kept = clean_attrs(book, el, ei, pos, sized);
    g_strfreev(kept);
    BookNode *img = book_node_new(book, BOOK_IMAGE, pos);
    img->as.image.src = src;
    img->as.image.title = get_attr(el, "title");
    image_size(book, el, pos, img);
    char *alt = get_attr(el, "alt");
    char *flat = alt ? one_line(alt) : NULL;
    g_free(alt);
    if (flat && *flat) {
      BookNode *t = book_node_new(book, BOOK_TEXT, pos);
      t->text = flat;
      book_node_append(img, t);
    } else {
      g_free(flat);
    }
    return img;
  }
  if (strcmp(name, "a") == 0) {
    char *href = get_attr(el, "href");
    if (href) {
      /* A link: markdown.c checks its scheme and resolves it like a
       * Markdown link. Other attributes of a linking <a> are not kept. */
      BookNode *link = book_node_new(book, BOOK_LINK, pos);
      link->as.link.href = href;
      link->as.link.title = get_attr(el, "title");
      for (const xmlAttr *a = el->properties; a; a = a->next)
        if (g_ascii_strcasecmp((const char *)a->name, "href") &&
            g_ascii_strcasecmp((const char *)a->name, "title")) {
          book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped attribute %s of a linking <a>",
                    (const char *)a->name);
          break;
        }
      return link;
    }
  }
  BookNode *n =
      book_node_new(book, (ei->flags & E_BLOCK) ? BOOK_HTML_BLOCK : BOOK_HTML_INLINE, pos);
  n->as.html.tag = g_strdup(name);
  n->as.html.attrs = clean_attrs(book, el, ei, pos, NULL);
  return n;
}

/* ---- parsing ---- */

static htmlDocPtr parse_html(const char *html, gsize len)
{
  if (len > G_MAXINT)
    return NULL;
  return htmlReadMemory(html, (int)len, NULL, "UTF-8",
                        HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
                            HTML_PARSE_RECOVER | HTML_PARSE_NODEFDTD);
}

/* The next node of a pre-order walk of the tree under root, skipping the
 * children of n when skip. */
static xmlNode *walk_next(xmlNode *root, xmlNode *n, bool skip)
{
  if (!skip && n->children)
    return n->children;
  while (n && n != root) {
    if (n->next)
      return n->next;
    n = n->parent;
  }
  return NULL;
}

/* The first element of the parsed fragment that is not an implied wrapper. */
static xmlNode *first_element(htmlDocPtr doc)
{
  xmlNode *root = (xmlNode *)doc;
  for (xmlNode *n = doc->children; n; n = walk_next(root, n, false)) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    const ElemInfo *ei = elem_info((const char *)n->name);
    if (!ei || !(ei->flags & E_TRANSPARENT))
      return n;
  }
  return NULL;
}

static char *trimmed(const char *s)
{
  return g_strstrip(g_strdup(s ? s : ""));
}

/* "</name>" -> "name" (lower case), else NULL. */
static char *closing_tag_name(const char *t)
{
  if (t[0] != '<' || t[1] != '/' || !g_ascii_isalpha(t[2]))
    return NULL;
  const char *p = t + 2;
  while (g_ascii_isalnum(*p) || *p == '-' || *p == ':')
    p++;
  const char *end = p;
  while (g_ascii_isspace(*p))
    p++;
  if (p[0] != '>' || p[1] != '\0')
    return NULL;
  return g_ascii_strdown(t + 2, end - (t + 2));
}

char **san_closing_tags(const char *html)
{
  GPtrArray *names = g_ptr_array_new();
  const char *p = html ? html : "";
  bool ok = true;
  while (ok) {
    while (g_ascii_isspace(*p))
      p++;
    if (!*p)
      break;
    const char *gt = strchr(p, '>');
    char *tag = gt ? g_strndup(p, (gsize)(gt - p + 1)) : NULL;
    char *name = tag ? closing_tag_name(tag) : NULL;
    g_free(tag);
    if (name) {
      g_ptr_array_add(names, name);
      p = gt + 1;
    } else {
      ok = false;
    }
  }
  if (!ok || names->len == 0) {
    g_ptr_array_set_free_func(names, g_free);
    g_ptr_array_free(names, TRUE);
    return NULL;
  }
  g_ptr_array_add(names, NULL);
  return (char **)g_ptr_array_free(names, FALSE);
}

static int count_char(const char *s, char c)
{
  int n = 0;
  for (; *s; s++)
    n += *s == c;
  return n;
}

SanKind san_fragment(Book *book, const char *html, bool block, const BookPos *pos, BookNode **node,
                     char **name)
{
  *node = NULL;
  *name = NULL;
  char *t = trimmed(html);
  SanKind kind = SAN_DROP;
  if (g_str_has_prefix(t, "<!--")) {
    kind = block ? SAN_NONE : SAN_DROP; /* comments go silently */
    goto done;
  }
  if ((*name = closing_tag_name(t))) {
    kind = SAN_CLOSE;
    goto done;
  }
  if (t[0] != '<' || t[1] == '!' || t[1] == '?') {
    if (block) {
      kind = SAN_NONE;
    } else {
      book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped %s",
                t[1] == '?' ? "a processing instruction" : "a declaration");
    }
    goto done;
  }
  /* A lone tag: one '<' and one '>' (an attribute value holding them makes
   * a block fall back to san_block(), which is merely less convenient). */
  if (block && (count_char(t, '<') != 1 || count_char(t, '>') != 1 || t[strlen(t) - 1] != '>')) {
    kind = SAN_NONE;
    goto done;
  }
  bool self_closing = g_str_has_suffix(t, "/>");
  htmlDocPtr doc = parse_html(t, strlen(t));
  xmlNode *el = doc ? first_element(doc) : NULL;
  const ElemInfo *ei = el ? elem_info((const char *)el->name) : NULL;
  if (block) {
    if (ei && (ei->flags & E_CONTAINER) && !self_closing) {
      bool leaf;
      *node = make_element(book, el, ei, pos, &leaf);
      kind = *node ? SAN_OPEN : SAN_DROP;
    } else {
      kind = SAN_NONE;
    }
  } else if (!el) {
    book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped '%s'", t);
  } else if (!ei) {
    book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped unknown element <%s> (its text is kept)",
              (const char *)el->name);
  } else if (ei->flags & E_SUPPRESS) {
    book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped <%s> and its content", ei->name);
    if (!self_closing && !(ei->flags & E_VOID)) {
      *node = book_node_new(book, BOOK_HTML_INLINE, pos);
      (*node)->as.html.tag = g_strdup(ei->name);
      kind = SAN_SUPPRESS;
    }
  } else if (ei->flags & E_FORBIDDEN) {
    book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped <%s>", ei->name);
  } else if (ei->flags & E_BLOCK) {
    book_diag(book, BOOK_WARNING, pos, "raw HTML: dropped block element <%s> inside a paragraph",
              ei->name);
  } else if (ei->flags & E_INLINE) {
    bool leaf;
    *node = make_element(book, el, ei, pos, &leaf);
    if (*node)
      kind = (leaf || self_closing) ? SAN_VOID : SAN_OPEN;
  }
  if (doc)
    xmlFreeDoc(doc);
done:
  g_free(t);
  return kind;
}

/* ---- whole blocks ---- */

typedef struct {
  Book *book;
  BookNode *top; /* the caller's block container */
  BookNode *run; /* the paragraph collecting top-level inline content, or NULL */
  const BookPos *pos;
} BlockCtx;

static void put(BlockCtx *c, BookNode *parent, BookNode *node)
{
  if (parent == c->top) {
    if (book_node_is_inline(node->type)) {
      if (!c->run) {
        c->run = book_node_new(c->book, BOOK_PARAGRAPH, &node->pos);
        book_node_append(c->top, c->run);
      }
      book_node_append(c->run, node);
      return;
    }
    c->run = NULL;
  }
  book_node_append(parent, node);
}

static bool blank(const char *s)
{
  for (; s && *s; s++)
    if (!g_ascii_isspace(*s))
      return false;
  return true;
}

static bool is_block_element(const xmlNode *n)
{
  if (!n)
    return true; /* the start or end of the parent */
  if (n->type == XML_COMMENT_NODE)
    return true;
  if (n->type != XML_ELEMENT_NODE)
    return false;
  const ElemInfo *ei = elem_info((const char *)n->name);
  return ei && (ei->flags & (E_BLOCK | E_SUPPRESS | E_FORBIDDEN));
}

/* White space between two blocks (or a block and the parent's edge) is
 * layout of the HTML source, not text. */
static bool blank_between_blocks(const xmlNode *n)
{
  return is_block_element(n->prev) && is_block_element(n->next);
}

/* How many times "<name" (open) or "</name" (close) occurs in html as a
 * tag: the parser closes everything at the end of a fragment, so the source
 * text is what tells an element left open. */
static int count_tags(const char *html, gsize len, const char *name, bool closing)
{
  size_t n = strlen(name);
  int count = 0;
  for (const char *p = html, *end = html + len; p + n + 1 < end; p++) {
    if (*p != '<')
      continue;
    const char *q = p + 1;
    if (closing) {
      if (*q != '/')
        continue;
      q++;
    }
    if ((size_t)(end - q) > n && g_ascii_strncasecmp(q, name, n) == 0 && !g_ascii_isalnum(q[n]) &&
        q[n] != '-')
      count++;
  }
  return count;
}

static BookNode *left_open(const char *html, gsize len, BookNode *parent)
{
  BookNode *open = NULL;
  for (BookNode *n = parent->last_child; n && n->type == BOOK_HTML_BLOCK; n = n->last_child) {
    const ElemInfo *ei = elem_info(n->as.html.tag);
    if (!ei || !(ei->flags & E_CONTAINER) ||
        count_tags(html, len, ei->name, false) <= count_tags(html, len, ei->name, true))
      break;
    open = n;
  }
  return open;
}

/* Would element m, put into cur, pass the model's depth limit (book.h)?
 * Block elements open up to BOOK_MAX_BLOCK_DEPTH, inline ones while a
 * child still fits; top-level inlines go into a paragraph first. */
static bool too_deep(const BookNode *cur, const BookNode *m)
{
  int d = book_node_depth(cur) + 1;
  if (m->type == BOOK_HTML_BLOCK)
    return d > BOOK_MAX_BLOCK_DEPTH;
  return d + 2 > BOOK_MAX_DEPTH;
}

/* An element of the raw HTML at n, to go into cur: its model node (put
 * into cur), or nothing (dropped with a warning, or transparent, or
 * flattened past the depth limit, its content kept). Returns the node that
 * holds n's content, and *descend: whether to walk into n's children. */
static BookNode *put_element(BlockCtx *c, xmlNode *n, BookNode *cur, const BookPos *p, bool *warned,
                             bool *descend)
{
  Book *book = c->book;
  const ElemInfo *ei = elem_info((const char *)n->name);
  BookNode *holder = cur;
  *descend = false;
  if (!ei) {
    book_diag(book, BOOK_WARNING, p, "raw HTML: dropped unknown element <%s> (its text is kept)",
              (const char *)n->name);
    *descend = true;
  } else if (ei->flags & E_TRANSPARENT) {
    *descend = true;
  } else if (ei->flags & E_SUPPRESS) {
    book_diag(book, BOOK_WARNING, p, "raw HTML: dropped <%s> and its content", ei->name);
  } else if (ei->flags & E_FORBIDDEN) {
    book_diag(book, BOOK_WARNING, p, "raw HTML: dropped <%s>", ei->name);
  } else {
    bool leaf;
    BookNode *m = make_element(book, n, ei, p, &leaf);
    if (m && too_deep(cur, m)) {
      /* flattened: its content (an image's alt text) goes into cur */
      if (!*warned)
        book_diag(book, BOOK_WARNING, p,
                  "nesting deeper than the model allows (%d levels): deeper levels flattened "
                  "into this one, their text kept",
                  BOOK_MAX_DEPTH);
      *warned = true;
      BookNode *k;
      while ((k = m->first_child)) {
        book_node_unlink(k);
        put(c, cur, k);
      }
      book_node_free(m);
      *descend = true;
    } else if (m) {
      put(c, cur, m);
      holder = m;
      *descend = !leaf;
    }
  }
  return holder;
}

/* Text of the raw HTML at n into cur, unless it is blank where blanks do
 * not count (between blocks, at the top, in an element without text). */
static void put_text(BlockCtx *c, xmlNode *n, BookNode *cur, const BookPos *p)
{
  const char *text = (const char *)n->content;
  bool drop_blank = cur == c->top || blank_between_blocks(n);
  if (cur->type == BOOK_HTML_BLOCK) {
    const ElemInfo *pi = elem_info(cur->as.html.tag);
    if (pi && (pi->flags & E_NOBLANKS))
      drop_blank = true;
    if (pi && strcmp(pi->name, "pre") == 0)
      drop_blank = false;
  }
  if (text && *text && !(drop_blank && blank(text))) {
    BookNode *tn = book_node_new(c->book, BOOK_TEXT, p);
    tn->text = g_strdup(text);
    put(c, cur, tn);
  }
}

BookNode *san_block(Book *book, const char *html, gsize len, const BookPos *pos, BookNode *parent)
{
  BookNode *before = parent->last_child;
  htmlDocPtr doc = parse_html(html, len);
  if (!doc)
    return NULL;
  BlockCtx c = {book, parent, NULL, pos};
  bool warned = false;
  xmlNode *root = (xmlNode *)doc;
  /* parents[i] is the model node that holds the content of the i-th open
   * libxml2 element on the path from root (the same node for elements that
   * give no node of their own). */
  GPtrArray *parents = g_ptr_array_new();
  GPtrArray *elems = g_ptr_array_new();
  xmlNode *n = doc->children;
  while (n) {
    /* Close the elements we have left. */
    while (elems->len && n->parent != elems->pdata[elems->len - 1]) {
      g_ptr_array_set_size(elems, elems->len - 1);
      g_ptr_array_set_size(parents, parents->len - 1);
    }
    BookNode *cur = parents->len ? parents->pdata[parents->len - 1] : parent;
    bool descend = false;
    BookPos p = node_pos(pos, n);
    switch (n->type) {
    case XML_ELEMENT_NODE: {
      BookNode *holder = put_element(&c, n, cur, &p, &warned, &descend);
      if (descend && n->children) {
        g_ptr_array_add(elems, n);
        g_ptr_array_add(parents, holder);
      } else {
        descend = false;
      }
      break;
    }
    case XML_TEXT_NODE:
    case XML_CDATA_SECTION_NODE: put_text(&c, n, cur, &p); break;
    case XML_PI_NODE:
      book_diag(book, BOOK_WARNING, &p, "raw HTML: dropped a processing instruction");
      break;
    default: /* comments, DOCTYPE */ break;
    }
    n = walk_next(root, n, !descend);
  }
  g_ptr_array_free(parents, TRUE);
  g_ptr_array_free(elems, TRUE);
  xmlFreeDoc(doc);
  return parent->last_child != before ? left_open(html, len, parent) : NULL;
}

/* ---- content models ---- */

static bool tag_is(const BookNode *n, const char *tags)
{
  return n && (n->type == BOOK_HTML_BLOCK || n->type == BOOK_HTML_INLINE) &&
         in_list(tags, n->as.html.tag);
}

/* A parent whose content is phrasing only. */
static bool phrasing_parent(const BookNode *p)
{
  switch (p->type) {
  case BOOK_PARAGRAPH:
  case BOOK_HEADING:
  case BOOK_TABLE_CELL:
  case BOOK_EMPH:
  case BOOK_STRONG:
  case BOOK_STRIKE:
  case BOOK_LINK:
  case BOOK_IMAGE:
  case BOOK_HTML_INLINE: return true;
  case BOOK_HTML_BLOCK: return in_list("p h1 h2 h3 h4 h5 h6 pre summary", p->as.html.tag);
  default: return false;
  }
}

/* The parents an element may have, or NULL for any. */
static const char *required_parent(const char *tag)
{
  static const struct {
    const char *tags, *parents;
  } rules[] = {
      {"li", "ul ol"},
      {"dt dd", "dl"},
      {"tr", "table thead tbody tfoot"},
      {"td th", "tr"},
      {"thead tbody tfoot caption colgroup", "table"},
      {"col", "colgroup table"},
      {"summary", "details"},
      {"figcaption", "figure"},
      {"rt rp", "ruby"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(rules); i++)
    if (in_list(rules[i].tags, tag))
      return rules[i].parents;
  return NULL;
}

/* The children an element may have, or NULL for any. */
static const char *allowed_children(const char *tag)
{
  static const struct {
    const char *tags, *children;
  } rules[] = {
      {"ul ol", "li"},
      {"dl", "dt dd div"},
      {"table", "caption colgroup thead tbody tfoot tr"},
      {"thead tbody tfoot", "tr"},
      {"tr", "td th"},
      {"colgroup", "col"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(rules); i++)
    if (in_list(rules[i].tags, tag))
      return rules[i].children;
  return NULL;
}

/* Why n cannot stay where it is, or NULL. */
static const char *misplaced(const BookNode *n)
{
  const BookNode *p = n->parent;
  if (!p || (n->type != BOOK_HTML_BLOCK && n->type != BOOK_HTML_INLINE))
    return NULL;
  const char *tag = n->as.html.tag;
  if (n->type == BOOK_HTML_BLOCK && phrasing_parent(p))
    return "inside a paragraph, heading or inline element";
  const char *parents = required_parent(tag);
  if (parents && !tag_is(p, parents))
    return "outside its proper parent";
  if (strcmp(tag, "summary") == 0 && p->first_child != n)
    return "not first in <details>";
  const char *kids = p->type == BOOK_HTML_BLOCK ? allowed_children(p->as.html.tag) : NULL;
  if (kids && !in_list(kids, tag))
    return "where its parent does not allow it";
  if (strcmp(tag, "a") == 0)
    for (const BookNode *a = p; a; a = a->parent)
      if (a->type == BOOK_LINK || tag_is(a, "a"))
        return "inside a link";
  return NULL;
}

/* A list or table holding something it may not hold (text, say) cannot be
 * mended child by child: it loses its own tags. */
static bool bad_children(const BookNode *n)
{
  if (n->type != BOOK_HTML_BLOCK)
    return false;
  if (strcmp(n->as.html.tag, "details") == 0) /* summary is required, and first */
    return !tag_is(n->first_child, "summary");
  const char *kids = allowed_children(n->as.html.tag);
  if (!kids)
    return false;
  for (const BookNode *k = n->first_child; k; k = k->next)
    if (!tag_is(k, kids))
      return true;
  return false;
}

void san_repair(Book *book, BookNode *tree)
{
  BookNode *n = tree->first_child;
  while (n) {
    const char *why = misplaced(n);
    if (!why && bad_children(n))
      why = "holding content it may not hold";
    if (why) {
      book_diag(book, BOOK_WARNING, &n->pos,
                "raw HTML: <%s> %s: its tags dropped (its content is kept)", n->as.html.tag, why);
      BookNode *first = n->first_child, *after = n->next, *up = n->parent;
      book_node_unwrap(n);
      if (first) {
        n = first; /* check the moved children in their new place */
        continue;
      }
      n = after;
      while (!n && up && up != tree) {
        n = up->next;
        up = up->parent;
      }
      continue;
    }
    if (n->first_child) {
      n = n->first_child;
      continue;
    }
    while (n && n != tree && !n->next)
      n = n->parent;
    n = (n && n != tree) ? n->next : NULL;
  }
}

bool san_svg_well_formed(const char *path, char **why)
{
  xmlResetLastError();
  xmlDocPtr doc =
      xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
  bool ok = root && xmlStrcmp(root->name, BAD_CAST "svg") == 0;
  if (!ok && why) {
    const xmlError *e = xmlGetLastError();
    if (e && e->message) {
      char *m = g_strstrip(g_strdup(e->message));
      *why = g_strdup_printf("line %d: %s", e->line, m);
      g_free(m);
    } else
      *why = g_strdup(doc ? "its root element is not <svg>" : "it cannot be read");
  }
  xmlFreeDoc(doc);
  return ok;
}
