/* ext_deflist.c: definition lists, as a cmark-gfm block extension.
 *
 * Pandoc's syntax (PHP Markdown Extra's, with several term lines):
 *
 *     Term                       a paragraph: each of its lines a term
 *     : Definition               ':' or '~', then white space, at most 3
 *                                spaces in; a blank line may come between
 *         More of it.            blocks indented to the definition's text
 *     : Another definition
 *
 * How: the line "`: text`" opens a definition where a paragraph is open (the
 * terms; as GFM's table extension turns a paragraph into a table) or has
 * just ended (one blank line between), or in a list whose definition ended.
 * The definition is a container like a list item: it holds the lines
 * indented to its text (and lazy continuation lines).  Lists that follow
 * one another (a new term after a blank line starts one) are merged.
 * Terms of several lines are split into one term per line by markdown.c.
 *
 * What it does not do: make "`: text`" anything but text after anything
 * other than a paragraph or a definition.
 */
#include "ext.h"

#include <string.h>

static const char *type_string(cmark_syntax_extension *ext, cmark_node *n)
{
  (void)ext;
  switch (ext_node_kind(n)) {
  case EXT_DEFLIST: return "definition_list";
  case EXT_DEFTERM: return "term";
  case EXT_DEFDESC: return "definition";
  default: return "<unknown>";
  }
}

static int can_contain(cmark_syntax_extension *ext, cmark_node *n, cmark_node_type child)
{
  (void)ext;
  switch (ext_node_kind(n)) {
  case EXT_DEFLIST: return child == ext_type(EXT_DEFTERM) || child == ext_type(EXT_DEFDESC);
  case EXT_DEFTERM: return (child & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_INLINE;
  case EXT_DEFDESC:
    return (child & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_BLOCK && child != CMARK_NODE_ITEM &&
           child != ext_type(EXT_DEFTERM) && child != ext_type(EXT_DEFDESC);
  default: return 0;
  }
}

static int contains_inlines(cmark_syntax_extension *ext, cmark_node *n)
{
  (void)ext;
  return ext_node_kind(n) == EXT_DEFTERM;
}

/* A definition's continuation: indented to its text, or blank. */
static int matches(cmark_syntax_extension *ext, cmark_parser *parser, unsigned char *input,
                   int len, cmark_node *container)
{
  (void)ext;
  (void)len;
  switch (ext_node_kind(container)) {
  case EXT_DEFLIST: return 1; /* as a list: its definitions decide */
  case EXT_DEFDESC: {
    int need = GPOINTER_TO_INT(cmark_node_get_user_data(container));
    if (cmark_parser_get_indent(parser) >= need) {
      cmark_parser_advance_offset(parser, (const char *)input, need, 1);
      return 1;
    }
    if (cmark_parser_is_blank(parser) && cmark_node_first_child(container)) {
      cmark_parser_advance_offset(parser, (const char *)input,
                                  cmark_parser_get_first_nonspace(parser) -
                                      cmark_parser_get_offset(parser),
                                  0);
      return 1;
    }
    return 0;
  }
  default: return 0;
  }
}

/* Turn paragraph p into the list's first term (p is closed). */
static void adopt_term(cmark_syntax_extension *ext, cmark_node *p, cmark_node *list)
{
  cmark_node_set_type(p, ext_type(EXT_DEFTERM));
  cmark_node_set_syntax_extension(p, ext);
  cmark_node_prepend_child(list, p);
}

static cmark_node *try_open(cmark_syntax_extension *ext, int indented, cmark_parser *parser,
                            cmark_node *parent, unsigned char *input, int len)
{
  if (indented)
    return NULL;
  int fns = cmark_parser_get_first_nonspace(parser);
  if (fns + 1 >= len || (input[fns] != ':' && input[fns] != '~') ||
      (input[fns + 1] != ' ' && input[fns + 1] != '\t'))
    return NULL;
  cmark_node *list = NULL;
  cmark_node *last = cmark_node_last_child(parent);
  int line = cmark_parser_get_line_number(parser);
  if (cmark_node_get_type(parent) == CMARK_NODE_PARAGRAPH) {
    /* the open paragraph holds the terms; a paragraph starting with '['
     * may be only link reference definitions, which closing it drops */
    const char *content = cmark_node_get_string_content(parent);
    while (content && (*content == ' ' || *content == '\t'))
      content++;
    if (!content || *content == '[' || *content == '\0')
      return NULL;
    cmark_node *p = parent;
    list = cmark_parser_add_child(parser, p, ext_type(EXT_DEFLIST),
                                  cmark_node_get_start_column(p)); /* closes p */
    cmark_node_set_syntax_extension(list, ext);
    adopt_term(ext, p, list);
  } else if (ext_node_kind(parent) == EXT_DEFLIST) {
    list = parent; /* another definition */
  } else if (last && cmark_node_get_type(last) == CMARK_NODE_PARAGRAPH &&
             cmark_node_get_end_line(last) >= line - 2) {
    /* the terms, then one blank line */
    list = cmark_parser_add_child(parser, parent, ext_type(EXT_DEFLIST),
                                  cmark_node_get_start_column(last));
    cmark_node_set_syntax_extension(list, ext);
    adopt_term(ext, last, list);
  } else {
    return NULL;
  }
  /* the definition's text starts after the marker and 1 to 4 columns of
   * white space (more: 1, and the rest is indented code), as a list item's */
  int marker_offset = cmark_parser_get_indent(parser);
  int col0 = cmark_parser_get_column(parser) + marker_offset + 1; /* column after the marker */
  cmark_parser_advance_offset(parser, (const char *)input, fns + 1 - cmark_parser_get_offset(parser),
                              0);
  int cols = 0, j = fns + 1;
  while (j < len && (input[j] == ' ' || input[j] == '\t')) {
    cols += input[j] == '\t' ? 4 - (col0 + cols) % 4 : 1;
    j++;
  }
  bool blank_rest = j >= len || input[j] == '\n' || input[j] == '\r';
  int pad = (cols > 4 || blank_rest) ? 1 : cols;
  cmark_parser_advance_offset(parser, (const char *)input, pad, 1);
  cmark_node *desc = cmark_parser_add_child(parser, list, ext_type(EXT_DEFDESC), fns + 1);
  cmark_node_set_syntax_extension(desc, ext);
  cmark_node_set_user_data(desc, GINT_TO_POINTER(marker_offset + 1 + pad));
  return desc;
}

/* Merge lists that follow one another: a term after a blank line starts a
 * new list where the reader sees one. */
static cmark_node *postprocess(cmark_syntax_extension *ext, cmark_parser *parser,
                               cmark_node *root)
{
  (void)ext;
  (void)parser;
  GPtrArray *lists = g_ptr_array_new();
  cmark_iter *it = cmark_iter_new(root);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node *n = cmark_iter_get_node(it);
    if (ev == CMARK_EVENT_ENTER && ext_node_kind(n) == EXT_DEFLIST)
      g_ptr_array_add(lists, n);
  }
  cmark_iter_free(it);
  for (guint i = 0; i < lists->len; i++) {
    cmark_node *n = lists->pdata[i], *prev = cmark_node_previous(n);
    if (!prev || ext_node_kind(prev) != EXT_DEFLIST)
      continue;
    for (cmark_node *k; (k = cmark_node_first_child(n));)
      cmark_node_append_child(prev, k);
    cmark_node_free(n);
  }
  g_ptr_array_free(lists, TRUE);
  return NULL;
}

cmark_syntax_extension *ext_deflist_new(void)
{
  cmark_syntax_extension *e = cmark_syntax_extension_new("octavo-definition-lists");
  cmark_syntax_extension_set_get_type_string_func(e, type_string);
  cmark_syntax_extension_set_can_contain_func(e, can_contain);
  cmark_syntax_extension_set_contains_inlines_func(e, contains_inlines);
  cmark_syntax_extension_set_match_block_func(e, matches);
  cmark_syntax_extension_set_open_block_func(e, try_open);
  cmark_syntax_extension_set_postprocess_func(e, postprocess);
  return e;
}
