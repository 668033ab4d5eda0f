/* sanitize_elements.c: the one HTML element table (which elements octavo
 * keeps, drops with their content, or passes through, and the attributes
 * each may carry) and the policy around it: safe URLs, attribute values,
 * image sizes from attributes and style. One libxml2 element becomes one
 * model node here (san_make_element); the walks over a fragment are
 * sanitize.c's. */
#include "sanitize_internal.h"

#include <math.h>
#include <string.h>

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

const ElemInfo *san_elem_info(const char *name)
{
  if (!name)
    return NULL;
  for (size_t i = 0; i < G_N_ELEMENTS(elements); i++)
    if (g_ascii_strcasecmp(elements[i].name, name) == 0)
      return &elements[i];
  return NULL;
}

/* True when word is one of the space-separated words of list. */
bool san_in_list(const char *list, const char *word)
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
  const ElemInfo *ei = san_elem_info(tag);
  return ei && (ei->flags & E_VOID);
}

bool san_element_is_allowed(const char *tag)
{
  const ElemInfo *ei = san_elem_info(tag);
  return ei && (ei->flags & (E_BLOCK | E_INLINE));
}

bool san_attr_is_allowed(const char *tag, const char *attr)
{
  const ElemInfo *ei = san_elem_info(tag);
  return ei && (ei->flags & (E_BLOCK | E_INLINE)) && attr &&
         (san_in_list(global_attrs, attr) || san_in_list(ei->attrs, attr));
}

bool san_is_marker(const BookNode *n)
{
  if (!n || n->type != BOOK_HTML_INLINE)
    return false;
  const ElemInfo *ei = san_elem_info(n->as.html.tag);
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
  if (!san_in_list(global_attrs, name) && !san_in_list(ei->attrs, name))
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

/* The book's class for HTML4's align value (align-left, …), or NULL. */
static const char *align_class(const char *v)
{
  static const char *const names[][2] = {{"left", "align-left"},
                                         {"center", "align-center"},
                                         {"right", "align-right"},
                                         {"justify", "align-justify"}};
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    if (g_ascii_strcasecmp(v, names[i][0]) == 0)
      return names[i][1];
  return NULL;
}

/* The allow-listed attributes of el as a NULL-terminated name/value vector
 * (NULL when none), with one warning for everything dropped. */
static char **clean_attrs(Book *book, const xmlNode *el, const ElemInfo *ei, const BookPos *pos,
                          const char *const *skip)
{
  GPtrArray *out = g_ptr_array_new();
  GString *dropped = NULL;
  const char *align = NULL;
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
    if (g_ascii_strcasecmp(name, "align") == 0 && (ei->flags & E_BLOCK) && align_class(value)) {
      /* HTML4's align (a README's <div align="right">): the book's class */
      if (!align)
        align = align_class(value);
      xmlFree(v);
      continue;
    }
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
  if (align) { /* into the class, after the source's own classes */
    guint k = 0;
    while (k < out->len && strcmp(out->pdata[k], "class") != 0)
      k += 2;
    if (k < out->len) {
      char *c = g_strconcat(out->pdata[k + 1], " ", align, NULL);
      g_free(out->pdata[k + 1]);
      out->pdata[k + 1] = c;
    } else {
      g_ptr_array_add(out, g_strdup("class"));
      g_ptr_array_add(out, g_strdup(align));
    }
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
BookNode *san_make_element(Book *book, const xmlNode *el, const ElemInfo *ei, const BookPos *pos,
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
    /* No alt attribute (not an empty one): HTML names the image by its
     * title, so that is its alt text (else a link around it has no name). */
    char *alt = get_attr(el, "alt");
    if (!alt)
      alt = get_attr(el, "title");
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
