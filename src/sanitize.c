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
 *
 * The element table and what it keeps are sanitize_elements.c's, the
 * content models sanitize_repair.c's (sanitize_internal.h).
 */
#include "sanitize_internal.h"

#include <libxml/HTMLparser.h>
#include <math.h>
#include <string.h>

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
    const ElemInfo *ei = san_elem_info((const char *)n->name);
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
  const ElemInfo *ei = el ? san_elem_info((const char *)el->name) : NULL;
  if (block) {
    if (ei && (ei->flags & E_CONTAINER) && !self_closing) {
      bool leaf;
      *node = san_make_element(book, el, ei, pos, &leaf);
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
    *node = san_make_element(book, el, ei, pos, &leaf);
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
  const ElemInfo *ei = san_elem_info((const char *)n->name);
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
    const ElemInfo *ei = san_elem_info(n->as.html.tag);
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
  const ElemInfo *ei = san_elem_info((const char *)n->name);
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
    BookNode *m = san_make_element(book, n, ei, p, &leaf);
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
    const ElemInfo *pi = san_elem_info(cur->as.html.tag);
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

void san_svg_image_refs(const char *path, GPtrArray *refs)
{
  xmlDocPtr doc =
      xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
  for (xmlNodePtr n = root; n;) {
    if (n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, BAD_CAST "a") != 0)
      for (xmlAttrPtr a = n->properties; a; a = a->next) {
        if (xmlStrcmp(a->name, BAD_CAST "href") != 0)
          continue; /* href and xlink:href */
        xmlChar *v = xmlNodeGetContent((xmlNodePtr)a);
        if (v && v[0] != '#' && v[0])
          g_ptr_array_add(refs, g_strdup((const char *)v));
        xmlFree(v);
      }
    /* pre-order: children, else the next sibling of the nearest ancestor */
    if (n->type == XML_ELEMENT_NODE && n->children) {
      n = n->children;
      continue;
    }
    while (n && n != root && !n->next)
      n = n->parent;
    n = n && n != root ? n->next : NULL;
  }
  xmlFreeDoc(doc);
}

/* A CSS font-size value in user units (px), against the inherited size
 * parent; parent when it is none of the units read (a keyword, junk). */
static double svg_font_px(const char *v, double parent)
{
  static const struct {
    const char *unit;
    double px; /* 0: relative to the parent */
  } units[] = {{"", 1}, {"px", 1}, {"pt", 96.0 / 72}, {"pc", 16}, {"in", 96},
               {"cm", 96 / 2.54}, {"mm", 96 / 25.4}, {"em", 0}, {"%", 0}};
  char *end;
  double x = g_ascii_strtod(v, &end);
  if (end == v || !isfinite(x) || x <= 0)
    return parent;
  while (*end == ' ')
    end++;
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
    if (g_ascii_strncasecmp(end, units[i].unit, strlen(units[i].unit)) != 0 ||
        (end[strlen(units[i].unit)] && !g_ascii_isspace(end[strlen(units[i].unit)]) &&
         end[strlen(units[i].unit)] != '!'))
      continue;
    if (units[i].px > 0)
      return x * units[i].px;
    return units[i].unit[0] == '%' ? x / 100 * parent : x * parent;
  }
  return parent;
}

/* Element n's font-size, from its style property (which wins) or its
 * attribute, against the inherited size parent. */
static double svg_elem_font(xmlNodePtr n, double parent)
{
  double px = parent;
  xmlChar *a = xmlGetProp(n, BAD_CAST "font-size");
  if (a)
    px = svg_font_px((const char *)a, parent);
  xmlFree(a);
  xmlChar *st = xmlGetProp(n, BAD_CAST "style");
  if (st) {
    char **decl = g_strsplit((const char *)st, ";", -1);
    for (char **d = decl; *d; d++) {
      char *colon = strchr(*d, ':');
      if (!colon)
        continue;
      *colon = '\0';
      if (g_ascii_strcasecmp(g_strstrip(*d), "font-size") == 0)
        px = svg_font_px(g_strstrip(colon + 1), parent);
    }
    g_strfreev(decl);
  }
  xmlFree(st);
  return px;
}

/* The area scale of n's transform attribute (sqrt of the determinant of
 * its matrix(), scale() factors; translate, rotate and skew keep sizes). */
static double svg_transform_scale(xmlNodePtr n)
{
  xmlChar *t = xmlGetProp(n, BAD_CAST "transform");
  double scale = 1;
  for (const char *p = (const char *)t; p && *p;) {
    while (*p && !g_ascii_isalpha(*p))
      p++;
    const char *name = p;
    while (g_ascii_isalpha(*p))
      p++;
    gsize nlen = (gsize)(p - name);
    double v[6];
    int k = 0;
    while (*p && *p != '(')
      p++;
    while (*p && *p != ')') {
      p++;
      while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n')
        p++;
      char *end;
      double x = g_ascii_strtod(p, &end);
      if (end == p)
        break;
      if (k < 6)
        v[k++] = x;
      p = end;
    }
    if (nlen == 6 && strncmp(name, "matrix", 6) == 0 && k == 6)
      scale *= sqrt(fabs(v[0] * v[3] - v[1] * v[2]));
    else if (nlen == 5 && strncmp(name, "scale", 5) == 0 && k >= 1)
      scale *= sqrt(fabs(v[0] * (k > 1 ? v[1] : v[0])));
    if (*p)
      p++;
  }
  xmlFree(t);
  return isfinite(scale) ? scale : 1;
}

static bool svg_holds_text(xmlNodePtr n)
{
  for (xmlNodePtr k = n->children; k; k = k->next)
    if (k->type == XML_TEXT_NODE || k->type == XML_CDATA_SECTION_NODE) {
      for (const xmlChar *c = k->content; c && *c; c++)
        if (!g_ascii_isspace(*c))
          return true;
    }
  return false;
}

/* The largest text under n (in root user units), n's font px and scale
 * inherited. libxml2 refuses documents deeper than 256: the recursion is
 * bounded. */
static double svg_text_walk(xmlNodePtr n, double font, double scale)
{
  double most = 0;
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    double f = svg_elem_font(n, font), s = scale * svg_transform_scale(n);
    if ((!xmlStrcmp(n->name, BAD_CAST "text") || !xmlStrcmp(n->name, BAD_CAST "tspan") ||
         !xmlStrcmp(n->name, BAD_CAST "textPath")) &&
        svg_holds_text(n))
      most = MAX(most, f * s);
    most = MAX(most, svg_text_walk(n->children, f, s));
  }
  return most;
}

double san_svg_text_px(const char *path, int width_px)
{
  xmlDocPtr doc =
      xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
  double px = 0;
  if (root) {
    double f = svg_elem_font(root, 16), s = svg_transform_scale(root);
    px = svg_text_walk(root->children, f, s);
    /* the viewBox's user units to the px of the image's own width */
    xmlChar *vb = xmlGetProp(root, BAD_CAST "viewBox");
    if (vb && width_px > 0) {
      double v[4];
      const char *p = (const char *)vb;
      int k = 0;
      for (; k < 4; k++) {
        while (*p == ' ' || *p == ',')
          p++;
        char *end;
        v[k] = g_ascii_strtod(p, &end);
        if (end == p)
          break;
        p = end;
      }
      if (k == 4 && v[2] > 0 && isfinite(v[2]))
        px *= width_px / v[2];
    }
    xmlFree(vb);
  }
  xmlFreeDoc(doc);
  return isfinite(px) ? px : 0;
}
