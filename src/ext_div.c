/* ext_div.c: pandoc's fenced divs, as a cmark-gfm block extension.
 *
 *     ::: {#id .class key=value}      a run of 3 or more colons, then an
 *     Blocks, nested divs too.        attribute block or one word (a class),
 *     :::                             optionally more colons; the closing
 *                                     fence: colons alone
 *
 * How: the opening fence opens a container (it may interrupt a paragraph,
 * as a code fence may); the container takes every line, unindented, until a
 * closing fence that no div nested in it, open code fence or HTML block
 * claims (one walk of the open blocks per fence line, however deep divs
 * nest); that fence line is consumed.  A div never closed ends with its
 * container (markdown.c warns).
 *
 * The one use of cmark-gfm's internal node.h (as its own table extension
 * does): whether a node is still open, which the public API does not say.
 */
#include "ext.h"

#include <cmark-gfm/node.h>
#include <string.h>

#define MAX_DIVS 32 /* open divs nested in one another, at most */

static bool line_end(unsigned char c)
{
  return c == '\n' || c == '\r';
}

static int skip_ws(const unsigned char *in, int len, int i)
{
  while (i < len && (in[i] == ' ' || in[i] == '\t'))
    i++;
  return i;
}

/* Colons at in[i..]: how many. */
static int colons(const unsigned char *in, int len, int i)
{
  int n = 0;
  while (i + n < len && in[i + n] == ':')
    n++;
  return n;
}

/* Is the line from i a closing fence (3+ colons, then nothing)? */
static bool closing_fence(const unsigned char *in, int len, int i)
{
  int n = colons(in, len, i);
  if (n < 3)
    return false;
  int j = skip_ws(in, len, i + n);
  return j >= len || line_end(in[j]);
}

/* The opening fence from i: its attributes, or NULL. */
static ExtAttrs *opening_fence(const unsigned char *in, int len, int i)
{
  int n = colons(in, len, i);
  if (n < 3)
    return NULL;
  int a = skip_ws(in, len, i + n), b;
  if (a >= len || line_end(in[a]))
    return NULL; /* a closing fence */
  ExtAttrs *attrs;
  if (in[a] == '{') {
    b = a;
    while (b < len && in[b] != '}' && !line_end(in[b]))
      b++;
    if (b >= len || in[b] != '}')
      return NULL;
    b++;
    attrs = ext_attrs_parse((const char *)in + a, (size_t)(b - a));
    if (!attrs)
      return NULL;
  } else {
    b = a;
    while (b < len && in[b] != ' ' && in[b] != '\t' && !line_end(in[b]))
      b++;
    while (b > a && in[b - 1] == ':') /* "::: name :::" */
      b--;
    if (b == a || !g_utf8_validate((const char *)in + a, b - a, NULL))
      return NULL;
    attrs = g_new0(ExtAttrs, 1);
    attrs->classes = g_ptr_array_new_with_free_func(g_free);
    attrs->kv = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(attrs->classes, g_strndup((const char *)in + a, (gsize)(b - a)));
  }
  int c = skip_ws(in, len, b);
  c = skip_ws(in, len, c + colons(in, len, c));
  if (c < len && !line_end(in[c])) {
    ext_attrs_free(attrs);
    return NULL; /* more text after the attributes: not a fence */
  }
  return attrs;
}

/* Consume the rest of the line: the fence is no text. */
static void consume_line(cmark_parser *parser, unsigned char *input, int len)
{
  int e = cmark_parser_get_offset(parser);
  while (e < len && !line_end(input[e]))
    e++;
  cmark_parser_advance_offset(parser, (const char *)input, e - cmark_parser_get_offset(parser), 0);
}

static const char *type_string(cmark_syntax_extension *ext, cmark_node *n)
{
  (void)ext;
  (void)n;
  return "div";
}

static int can_contain(cmark_syntax_extension *ext, cmark_node *n, cmark_node_type child)
{
  (void)ext;
  (void)n;
  return (child & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_BLOCK && child != CMARK_NODE_ITEM &&
         child != ext_type(EXT_DEFTERM) && child != ext_type(EXT_DEFDESC);
}

/* Which open div a closing fence closes: the innermost one not yet closed
 * on the chain of open blocks from div, or none when an open code fence or
 * HTML block on it takes the line as text. */
static cmark_node *claimant(cmark_node *div)
{
  int flen, foff;
  char fch;
  cmark_node *best = NULL;
  for (cmark_node *n = div; n && (n == div || (n->flags & CMARK_NODE__OPEN)); n = n->last_child) {
    if (ext_node_kind(n) == EXT_DIV) {
      const ExtAttrs *a = cmark_node_get_user_data(n);
      if (a && !a->closed)
        best = n;
    }
    if (cmark_node_get_type(n) == CMARK_NODE_HTML_BLOCK ||
        (cmark_node_get_type(n) == CMARK_NODE_CODE_BLOCK &&
         cmark_node_get_fenced(n, &flen, &foff, &fch)))
      return NULL;
  }
  return best;
}

/* The claimant of the line being matched: found once per line, by the
 * outermost open div (the first asked), so that a line costs one walk of
 * the open blocks however deep divs nest. */
typedef struct {
  int line;
  cmark_node *claimant;
} DivState;

static int matches(cmark_syntax_extension *ext, cmark_parser *parser, unsigned char *input,
                   int len, cmark_node *div)
{
  ExtAttrs *a = cmark_node_get_user_data(div);
  if (!a || a->closed)
    return 0; /* its closing fence was the line before */
  if (cmark_parser_get_indent(parser) < 4 &&
      closing_fence(input, len, cmark_parser_get_first_nonspace(parser))) {
    DivState *st = cmark_syntax_extension_get_private(ext);
    int line = cmark_parser_get_line_number(parser);
    if (st->line != line) {
      st->line = line;
      st->claimant = claimant(div);
    }
    if (st->claimant == div) {
      a->closed = true;
      consume_line(parser, input, len);
    }
  }
  return 1;
}

static void state_free(cmark_mem *mem, void *p)
{
  (void)mem;
  g_free(p);
}

static cmark_node *try_open(cmark_syntax_extension *ext, int indented, cmark_parser *parser,
                            cmark_node *parent, unsigned char *input, int len)
{
  if (indented)
    return NULL;
  int fns = cmark_parser_get_first_nonspace(parser);
  if (fns >= len || input[fns] != ':')
    return NULL;
  /* A div consumes no prefix, so cmark's walk of the open blocks on each
   * line would grow with the nesting however short the lines: past
   * MAX_DIVS open divs a fence is text (the model flattens far less deep
   * nesting anyway, book.h) and parsing stays linear. */
  int depth = 0;
  for (cmark_node *a = parent; a && depth < MAX_DIVS; a = cmark_node_parent(a))
    depth += ext_node_kind(a) == EXT_DIV;
  if (depth >= MAX_DIVS)
    return NULL;
  ExtAttrs *attrs = opening_fence(input, len, fns);
  if (!attrs)
    return NULL;
  cmark_node *div = cmark_parser_add_child(parser, parent, ext_type(EXT_DIV), fns + 1);
  cmark_node_set_syntax_extension(div, ext);
  cmark_node_set_user_data(div, attrs);
  cmark_node_set_user_data_free_func(div, ext_attrs_free_node);
  consume_line(parser, input, len);
  return div;
}

cmark_syntax_extension *ext_div_new(void)
{
  cmark_syntax_extension *e = cmark_syntax_extension_new("octavo-fenced-divs");
  cmark_syntax_extension_set_private(e, g_new0(DivState, 1), state_free);
  cmark_syntax_extension_set_get_type_string_func(e, type_string);
  cmark_syntax_extension_set_can_contain_func(e, can_contain);
  cmark_syntax_extension_set_match_block_func(e, matches);
  cmark_syntax_extension_set_open_block_func(e, try_open);
  return e;
}
