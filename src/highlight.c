/* highlight.c: a code block's tokens from tree-sitter, once, in the front
 * end (see highlight.h).
 *
 * A grammar parses the block; its highlight query (the grammar's own
 * queries/highlights.scm, as published, compiled into octavo by make)
 * names nodes: @keyword, @string, @function.method, ... . Those names map
 * to octavo's token classes (class_of). A node inside another is painted
 * over it. Where several patterns capture one node, the grammars' queries
 * disagree on which wins (C's opens with `(identifier) @variable` and names
 * calls later, as if the last won; Rust's puts all-caps constants before
 * capitalised constructors, as if the first won), so the most specific
 * wins: a class over plain (@variable), then the longer pattern, comments
 * and white space aside (a call's
 * `(call_expression function: (identifier) @function)` over a bare
 * `(identifier)`), then the first. Predicates (#match?,
 * #eq?, #any-of? and their negations) are evaluated here: the library
 * leaves them to its callers. Bytes no capture covers are plain, and so is
 * a block whose grammar fails: the text is never touched.
 *
 * Console sessions and diffs are line formats, not languages with a
 * grammar: their lines are classified first (prompt, command, output; +,
 * -, headers), and a session's commands are then parsed as one shell
 * script (tree-sitter's included ranges) and highlighted as bash.
 *
 * Markdown is two grammars: the blocks, then the inline text of every
 * `inline` node of the block tree (included ranges again).
 */
#include "highlight.h"

#include <pthread.h>
#include <string.h>
#include <tree_sitter/api.h>

/* The grammars and their queries (build/grammars/, see grammars/). */
const TSLanguage *tree_sitter_rust(void);
const TSLanguage *tree_sitter_c(void);
const TSLanguage *tree_sitter_cpp(void);
const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);
const TSLanguage *tree_sitter_go(void);
const TSLanguage *tree_sitter_java(void);
const TSLanguage *tree_sitter_bash(void);
const TSLanguage *tree_sitter_toml(void);
const TSLanguage *tree_sitter_json(void);
const TSLanguage *tree_sitter_yaml(void);
const TSLanguage *tree_sitter_html(void);
const TSLanguage *tree_sitter_xml(void);
const TSLanguage *tree_sitter_css(void);
const TSLanguage *tree_sitter_sql(void);
const TSLanguage *tree_sitter_markdown(void);
const TSLanguage *tree_sitter_markdown_inline(void);
extern const char hl_query_rust[], hl_query_c[], hl_query_cpp[], hl_query_python[],
    hl_query_javascript[], hl_query_typescript[], hl_query_tsx[], hl_query_go[], hl_query_java[], hl_query_bash[],
    hl_query_toml[], hl_query_json[], hl_query_yaml[], hl_query_html[], hl_query_xml[],
    hl_query_css[], hl_query_sql[], hl_query_markdown[], hl_query_markdown_inline[];

typedef struct {
  const char *name;    /* canonical: as.code.lang */
  const char *aliases; /* the info strings that name it, lower case, space-separated */
  const TSLanguage *(*grammar)(void); /* NULL: a line format (console, diff) */
  const char *query;
} Lang;

enum {
  L_BASH = 9,
  L_MARKDOWN = 17,
  L_MARKDOWN_INLINE = 18,
  L_CONSOLE = 19,
  L_DIFF = 20,
  L_COUNT = 21
};

static const Lang langs[L_COUNT] = {
    {"rust", "rust rs", tree_sitter_rust, hl_query_rust},
    {"c", "c h", tree_sitter_c, hl_query_c},
    {"cpp", "cpp c++ cxx cc hpp hh hxx", tree_sitter_cpp, hl_query_cpp},
    {"python", "python py python3 py3 gyp", tree_sitter_python, hl_query_python},
    {"javascript", "javascript js jsx mjs cjs node", tree_sitter_javascript, hl_query_javascript},
    {"typescript", "typescript ts mts cts", tree_sitter_typescript, hl_query_typescript},
    {"tsx", "tsx", tree_sitter_tsx, hl_query_tsx},
    {"go", "go golang", tree_sitter_go, hl_query_go},
    {"java", "java", tree_sitter_java, hl_query_java},
    [L_BASH] = {"bash", "bash sh shell zsh ksh", tree_sitter_bash, hl_query_bash},
    {"toml", "toml", tree_sitter_toml, hl_query_toml},
    {"json", "json jsonc json5 jsonl", tree_sitter_json, hl_query_json},
    {"yaml", "yaml yml", tree_sitter_yaml, hl_query_yaml},
    {"html", "html htm xhtml", tree_sitter_html, hl_query_html},
    {"xml", "xml svg xsd xsl xslt rss atom plist", tree_sitter_xml, hl_query_xml},
    {"css", "css", tree_sitter_css, hl_query_css},
    {"sql", "sql mysql postgresql postgres psql pgsql sqlite plpgsql", tree_sitter_sql,
     hl_query_sql},
    [L_MARKDOWN] = {"markdown", "markdown md mkd", tree_sitter_markdown, hl_query_markdown},
    [L_MARKDOWN_INLINE] = {"markdown_inline", "", tree_sitter_markdown_inline,
                           hl_query_markdown_inline},
    [L_CONSOLE] = {"console", "console shell-session shellsession sh-session terminal", NULL, NULL},
    [L_DIFF] = {"diff", "diff patch udiff", NULL, NULL},
};

#define IGNORED 0xFF /* a capture that paints nothing (@_name, @spell) */

/* A capture name's class: the longest dotted prefix the table knows
 * ("function.method.call" -> "function"); unknown names are plain. */
static guint8 class_of(const char *name)
{
  static const struct {
    const char *name;
    guint8 cls;
  } map[] = {
      {"keyword", BOOK_TOK_KEYWORD},
      {"conditional", BOOK_TOK_KEYWORD},
      {"repeat", BOOK_TOK_KEYWORD},
      {"include", BOOK_TOK_KEYWORD},
      {"exception", BOOK_TOK_KEYWORD},
      {"storageclass", BOOK_TOK_KEYWORD},
      {"variable.builtin", BOOK_TOK_KEYWORD}, /* self, this */
      {"type", BOOK_TOK_TYPE},
      {"constructor", BOOK_TOK_TYPE},
      {"module", BOOK_TOK_TYPE},
      {"namespace", BOOK_TOK_TYPE},
      {"function.macro", BOOK_TOK_MACRO},
      {"function", BOOK_TOK_FUNCTION},
      {"method", BOOK_TOK_FUNCTION},
      {"string.escape", BOOK_TOK_ESCAPE},
      {"escape", BOOK_TOK_ESCAPE},
      {"string.special.key", BOOK_TOK_PROPERTY},
      {"string", BOOK_TOK_STRING},
      {"character", BOOK_TOK_STRING},
      {"number", BOOK_TOK_NUMBER},
      {"float", BOOK_TOK_NUMBER},
      {"constant.numeric", BOOK_TOK_NUMBER},
      {"boolean", BOOK_TOK_CONSTANT},
      {"constant", BOOK_TOK_CONSTANT},
      {"label", BOOK_TOK_CONSTANT},
      {"comment", BOOK_TOK_COMMENT},
      {"operator", BOOK_TOK_OPERATOR},
      {"punctuation", BOOK_TOK_PUNCTUATION},
      {"delimiter", BOOK_TOK_PUNCTUATION},
      {"attribute", BOOK_TOK_ATTRIBUTE},
      {"tag.attribute", BOOK_TOK_ATTRIBUTE},
      {"tag.error", BOOK_TOK_PLAIN},
      {"tag", BOOK_TOK_TAG},
      {"property", BOOK_TOK_PROPERTY},
      {"field", BOOK_TOK_PROPERTY},
      {"variable.member", BOOK_TOK_PROPERTY},
      {"text.title", BOOK_TOK_HEADING},
      {"markup.heading", BOOK_TOK_HEADING},
      {"text.emphasis", BOOK_TOK_EMPHASIS},
      {"markup.italic", BOOK_TOK_EMPHASIS},
      {"text.strong", BOOK_TOK_STRONG},
      {"markup.bold", BOOK_TOK_STRONG},
      {"text.literal", BOOK_TOK_STRING},
      {"markup.raw", BOOK_TOK_STRING},
      {"text.uri", BOOK_TOK_LINK},
      {"text.reference", BOOK_TOK_LINK},
      {"markup.link", BOOK_TOK_LINK},
      {"spell", IGNORED},
      {"nospell", IGNORED},
      {"conceal", IGNORED},
  };
  if (name[0] == '_')
    return IGNORED;
  size_t len = strlen(name);
  for (;;) {
    for (size_t i = 0; i < G_N_ELEMENTS(map); i++)
      if (strlen(map[i].name) == len && strncmp(map[i].name, name, len) == 0)
        return map[i].cls;
    while (len > 0 && name[len - 1] != '.')
      len--;
    if (len == 0)
      return BOOK_TOK_PLAIN;
    len--; /* the dot */
  }
}

const char *hl_language(const char *info)
{
  if (!info)
    return NULL;
  const char *s = info;
  while (*s == '{' || *s == '.' || *s == ' ')
    s++;
  if (g_str_has_prefix(s, "language-"))
    s += strlen("language-");
  size_t n = strcspn(s, ",} \t{");
  char word[34];
  if (n == 0 || n + 2 > sizeof word)
    return NULL;
  word[0] = ' ';
  for (size_t i = 0; i < n; i++)
    word[i + 1] = g_ascii_tolower(s[i]);
  word[n + 1] = ' ';
  word[n + 2] = '\0';
  for (int i = 0; i < L_COUNT; i++) {
    if (i == L_MARKDOWN_INLINE)
      continue;
    char *list = g_strconcat(" ", langs[i].aliases, " ", NULL);
    bool hit = strstr(list, word) != NULL;
    g_free(list);
    if (hit)
      return langs[i].name;
  }
  return NULL;
}

/* ---- the run's state ---- */

/* A language's query, compiled on first use and only read afterwards (by
 * every thread that highlights: tree-sitter's matching reads a TSQuery,
 * its state is the cursor's). */
typedef struct {
  TSQuery *q;    /* NULL until first used, or when it did not compile */
  bool tried;    /* compiled (or failed) already */
  guint8 *cls;   /* per capture id: its class, or IGNORED */
  guint32 *plen; /* per pattern: its specificity (pattern_weight) */
  GRegex **re;   /* per string id: the regex of a #match? (compiled with the query), or NULL
                  * (none, or it did not compile: the predicate fails) */
  guint nstrings;
} Query;

struct HlQueries {
  pthread_mutex_t lock; /* held while a query is compiled */
  Query q[L_COUNT];
};

/* One capture that passed its predicates: bytes [start, end). */
typedef struct {
  guint32 start, end, pattern;
  guint32 plen; /* its pattern's specificity */
  guint8 cls;
} Rec;

struct Hl {
  HlQueries *queries;
  bool own_queries; /* made by hl_book for itself */
  TSParser *parser;
  TSQueryCursor *cursor;
  GArray *recs;   /* Rec */
  GArray *ranges; /* TSRange */
  GByteArray *paint;
  GArray *toks; /* BookToken */
};

/* A pattern's specificity: the characters of its text [a, b) other than
 * white space and comments (the comments and blank lines before the next
 * pattern are not its own). */
static guint32 pattern_weight(const char *a, const char *b)
{
  guint32 n = 0;
  bool comment = false, in_string = false;
  for (const char *p = a; p < b; p++) {
    if (comment) {
      comment = *p != '\n';
      continue;
    }
    if (*p == '"' && (p == a || p[-1] != '\\'))
      in_string = !in_string;
    if (*p == ';' && !in_string) {
      comment = true;
      continue;
    }
    if (!g_ascii_isspace(*p))
      n++;
  }
  return n;
}

/* The regexes of pattern i's #match? and #not-match? predicates, compiled
 * into Q->re. */
static void compile_regexes(Query *Q, uint32_t i)
{
  uint32_t n, len;
  const TSQueryPredicateStep *st = ts_query_predicates_for_pattern(Q->q, i, &n);
  for (uint32_t k = 0; k < n;) {
    uint32_t j = k;
    while (j < n && st[j].type != TSQueryPredicateStepTypeDone)
      j++;
    if (j - k == 3 && st[k].type == TSQueryPredicateStepTypeString &&
        st[k + 1].type == TSQueryPredicateStepTypeCapture &&
        st[k + 2].type == TSQueryPredicateStepTypeString) {
      const char *name = ts_query_string_value_for_id(Q->q, st[k].value_id, &len);
      uint32_t id = st[k + 2].value_id;
      if ((strcmp(name, "match?") == 0 || strcmp(name, "not-match?") == 0) && !Q->re[id]) {
        const char *pat = ts_query_string_value_for_id(Q->q, id, &len);
        /* no G_REGEX_OPTIMIZE: PCRE's JIT code is what valgrind cannot
         * follow, and these few short patterns gain nothing from it */
        Q->re[id] = g_regex_new(pat, 0, 0, NULL);
      }
    }
    k = j + 1;
  }
}

/* Language li's query, compiled by the first thread that asks (under the
 * lock: a second one waits for it), or NULL when it does not compile. */
static Query *query_for(Hl *h, int li)
{
  HlQueries *qs = h->queries;
  pthread_mutex_lock(&qs->lock);
  Query *Q = &qs->q[li];
  if (Q->tried) {
    pthread_mutex_unlock(&qs->lock);
    return Q->q ? Q : NULL;
  }
  Q->tried = true;
  uint32_t err_off = 0;
  TSQueryError err = TSQueryErrorNone;
  const char *src = langs[li].query;
  Q->q = ts_query_new(langs[li].grammar(), src, (uint32_t)strlen(src), &err_off, &err);
  if (!Q->q) {
    /* a query the library cannot read: a build problem, not the book's */
    g_printerr("octavo: the %s highlight query does not compile (error %d at byte %u): "
               "its code stays plain\n",
               langs[li].name, (int)err, err_off);
    pthread_mutex_unlock(&qs->lock);
    return NULL;
  }
  uint32_t nc = ts_query_capture_count(Q->q);
  Q->cls = g_new(guint8, nc ? nc : 1);
  for (uint32_t i = 0; i < nc; i++) {
    uint32_t len;
    const char *name = ts_query_capture_name_for_id(Q->q, i, &len);
    char *z = g_strndup(name, len);
    Q->cls[i] = class_of(z);
    g_free(z);
  }
  uint32_t np = ts_query_pattern_count(Q->q);
  Q->plen = g_new(guint32, np ? np : 1);
  for (uint32_t i = 0; i < np; i++) {
    uint32_t end = i + 1 < np ? ts_query_start_byte_for_pattern(Q->q, i + 1) : (uint32_t)strlen(src);
    Q->plen[i] = pattern_weight(src + ts_query_start_byte_for_pattern(Q->q, i), src + end);
  }
  Q->nstrings = ts_query_string_count(Q->q);
  Q->re = g_new0(GRegex *, Q->nstrings ? Q->nstrings : 1);
  for (uint32_t i = 0; i < np; i++)
    compile_regexes(Q, i);
  pthread_mutex_unlock(&qs->lock);
  return Q;
}

/* The first node of capture `id` in match m, or false when it has none. */
static bool capture_node(const TSQueryMatch *m, uint32_t id, TSNode *out)
{
  for (uint16_t i = 0; i < m->capture_count; i++)
    if (m->captures[i].index == id) {
      *out = m->captures[i].node;
      return true;
    }
  return false;
}

static bool text_is(const char *src, TSNode n, const char *s, size_t slen)
{
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  return b - a == slen && memcmp(src + a, s, slen) == 0;
}

/* One predicate, steps st[0..n) (st[0] its name): true when it holds or is
 * one highlighting does not evaluate (#is-not? local, #set!). */
static bool predicate_holds(Query *Q, const char *src, const TSQueryMatch *m,
                            const TSQueryPredicateStep *st, uint32_t n)
{
  uint32_t len;
  if (n < 2 || st[0].type != TSQueryPredicateStepTypeString ||
      st[1].type != TSQueryPredicateStepTypeCapture)
    return true;
  const char *name = ts_query_string_value_for_id(Q->q, st[0].value_id, &len);
  bool neg = g_str_has_prefix(name, "not-");
  if (neg)
    name += 4;
  TSNode node;
  if (!capture_node(m, st[1].value_id, &node))
    return true; /* an optional capture that did not match */
  bool r;
  if (strcmp(name, "eq?") == 0 && n == 3) {
    if (st[2].type == TSQueryPredicateStepTypeCapture) {
      TSNode other;
      if (!capture_node(m, st[2].value_id, &other))
        return true;
      uint32_t a = ts_node_start_byte(other), b = ts_node_end_byte(other);
      r = text_is(src, node, src + a, b - a);
    } else {
      const char *s = ts_query_string_value_for_id(Q->q, st[2].value_id, &len);
      r = text_is(src, node, s, len);
    }
  } else if (strcmp(name, "match?") == 0 && n == 3 &&
             st[2].type == TSQueryPredicateStepTypeString) {
    uint32_t id = st[2].value_id;
    if (!Q->re[id]) /* it did not compile (compile_regexes) */
      return false;
    uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
    r = g_regex_match_full(Q->re[id], src + a, (gssize)(b - a), 0, 0, NULL, NULL);
  } else if (strcmp(name, "any-of?") == 0) {
    r = false;
    for (uint32_t i = 2; i < n && !r; i++) {
      if (st[i].type != TSQueryPredicateStepTypeString)
        continue;
      const char *s = ts_query_string_value_for_id(Q->q, st[i].value_id, &len);
      r = text_is(src, node, s, len);
    }
  } else {
    return true;
  }
  return neg ? !r : r;
}

static bool predicates_hold(Query *Q, const char *src, const TSQueryMatch *m)
{
  uint32_t n;
  const TSQueryPredicateStep *st = ts_query_predicates_for_pattern(Q->q, m->pattern_index, &n);
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i;
    while (j < n && st[j].type != TSQueryPredicateStepTypeDone)
      j++;
    if (!predicate_holds(Q, src, m, st + i, j - i))
      return false;
    i = j + 1;
  }
  return true;
}

/* Whether the tree is deeper than HL_MAX_DEPTH: matching a query over a
 * chain of 100,000 Python additions (as deep) took minutes. */
static bool tree_too_deep(TSTree *tree)
{
  TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(tree));
  int depth = 0;
  bool deep = false;
  for (;;) {
    if (ts_tree_cursor_goto_first_child(&c)) {
      if (++depth > HL_MAX_DEPTH) {
        deep = true;
        break;
      }
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&c)) {
      if (!ts_tree_cursor_goto_parent(&c))
        goto done;
      depth--;
    }
  }
done:
  ts_tree_cursor_delete(&c);
  return deep;
}

/* Parse src[0..len) with language li (only the ranges in h->ranges when
 * there are any) and add its captures to h->recs, their pattern numbers
 * from `base` on. Returns the tree (the caller deletes it), or NULL. */
static TSTree *run_query(Hl *h, int li, const char *src, size_t len, guint32 base)
{
  Query *Q = query_for(h, li);
  if (!Q || !ts_parser_set_language(h->parser, langs[li].grammar()))
    return NULL;
  if (!ts_parser_set_included_ranges(h->parser, (const TSRange *)(void *)h->ranges->data,
                                     h->ranges->len)) {
    ts_parser_set_included_ranges(h->parser, NULL, 0);
    return NULL;
  }
  TSTree *tree = ts_parser_parse_string(h->parser, NULL, src, (uint32_t)len);
  ts_parser_set_included_ranges(h->parser, NULL, 0);
  if (!tree)
    return NULL;
  if (tree_too_deep(tree)) {
    ts_tree_delete(tree);
    return NULL;
  }
  ts_query_cursor_exec(h->cursor, Q->q, ts_tree_root_node(tree));
  TSQueryMatch m;
  while (ts_query_cursor_next_match(h->cursor, &m)) {
    if (!predicates_hold(Q, src, &m))
      continue;
    for (uint16_t i = 0; i < m.capture_count; i++) {
      guint8 cls = Q->cls[m.captures[i].index];
      uint32_t a = ts_node_start_byte(m.captures[i].node), b = ts_node_end_byte(m.captures[i].node);
      if (cls == IGNORED || b <= a || b > len)
        continue;
      Rec r = {a, b, base + m.pattern_index, Q->plen[m.pattern_index], cls};
      g_array_append_val(h->recs, r);
    }
  }
  return tree;
}

static gint rec_cmp(gconstpointer pa, gconstpointer pb)
{
  const Rec *a = pa, *b = pb;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->end != b->end)
    return a->end > b->end ? -1 : 1; /* outer first: the inner paints over it */
  /* one node: the most specific first */
  if ((a->cls != BOOK_TOK_PLAIN) != (b->cls != BOOK_TOK_PLAIN))
    return a->cls != BOOK_TOK_PLAIN ? -1 : 1;
  if (a->plen != b->plen)
    return a->plen > b->plen ? -1 : 1;
  return a->pattern < b->pattern ? -1 : a->pattern > b->pattern;
}

/* h->recs painted over h->paint (one class a byte, PLAIN where none):
 * outer nodes first, the most specific capture of one node only. */
static void paint_recs(Hl *h)
{
  g_array_sort(h->recs, rec_cmp);
  guint32 ps = G_MAXUINT32, pe = 0;
  for (guint i = 0; i < h->recs->len; i++) {
    const Rec *r = &g_array_index(h->recs, Rec, i);
    if (r->start == ps && r->end == pe)
      continue; /* an earlier pattern had this node */
    ps = r->start;
    pe = r->end;
    memset(h->paint->data + r->start, r->cls, r->end - r->start);
  }
}

static void paint_range(Hl *h, size_t a, size_t b, guint8 cls)
{
  if (b > a)
    memset(h->paint->data + a, cls, b - a);
}

static void add_range(Hl *h, size_t a, size_t b)
{
  TSRange r = {{0, 0}, {0, 0}, (uint32_t)a, (uint32_t)b};
  /* tree-sitter wants rows and columns too: only their order matters to it */
  r.start_point.row = r.end_point.row = h->ranges->len;
  r.end_point.column = (uint32_t)(b - a);
  g_array_append_val(h->ranges, r);
}

/* The length of a shell prompt at the start of line s[0..n), 0 for none:
 * "$ " and "% " (a user's), "user@host:dir$ " and "root@host:~# ",
 * "PS C:\dir> " (PowerShell), and after a command line "> " (the shell's
 * continuation prompt). A bare "# " is no prompt: in tests/corpus's 163
 * console blocks it is always a comment or a file's text, never root's
 * prompt. */
static size_t prompt_len(const char *s, size_t n, bool after_command)
{
  if (n >= 1 && (s[0] == '$' || s[0] == '%' || (s[0] == '>' && after_command)))
    return n == 1 ? 1 : s[1] == ' ' ? 2 : 0;
  if (n > 4 && strncmp(s, "PS ", 3) == 0) {
    const char *gt = memchr(s, '>', n);
    if (gt && (size_t)(gt - s) + 1 < n && gt[1] == ' ')
      return (size_t)(gt - s) + 2;
  }
  /* a word with '@', then '$' or '#' and a space */
  bool at = false;
  for (size_t i = 0; i < n && s[i] != ' ' && s[i] != '\t'; i++) {
    if (s[i] == '@')
      at = true;
    else if ((s[i] == '$' || s[i] == '#') && at && i + 1 < n && s[i + 1] == ' ')
      return i + 2;
  }
  return 0;
}

/* A console session: prompts and what follows them (and the lines a
 * trailing backslash continues) are commands, parsed as one shell script;
 * the other lines are output. A session without any prompt is all commands
 * (as most of tests/corpus's are: ```console, then the commands). */
static void console(Hl *h, const char *src, size_t len)
{
  bool any = false;
  for (size_t ls = 0; ls < len && !any;) {
    const char *nl = memchr(src + ls, '\n', len - ls);
    size_t le = nl ? (size_t)(nl - src) : len;
    any = prompt_len(src + ls, le - ls, false) > 0;
    ls = le + 1;
  }
  bool cont = false, after = false;
  for (size_t ls = 0; ls < len;) {
    const char *nl = memchr(src + ls, '\n', len - ls);
    size_t le = nl ? (size_t)(nl - src) : len;
    size_t p = cont || !any ? 0 : prompt_len(src + ls, le - ls, after);
    if (cont || !any || p > 0) {
      paint_range(h, ls, ls + p, BOOK_TOK_PROMPT);
      add_range(h, ls + p, nl ? le + 1 : le);
      cont = le > ls + p && src[le - 1] == '\\';
      after = true;
    } else {
      paint_range(h, ls, le, BOOK_TOK_OUTPUT);
      after = false;
    }
    ls = le + 1;
  }
  if (h->ranges->len > 0) {
    TSTree *t = run_query(h, L_BASH, src, len, 0);
    if (t)
      ts_tree_delete(t);
    g_array_set_size(h->ranges, 0);
    /* the commands' tokens over the prompts' and output's: they are disjoint */
    paint_recs(h);
  }
}

/* A unified diff by lines: file and hunk headers, insertions, deletions;
 * context lines plain. */
static void diff(Hl *h, const char *src, size_t len)
{
  for (size_t ls = 0; ls < len;) {
    const char *nl = memchr(src + ls, '\n', len - ls);
    size_t le = nl ? (size_t)(nl - src) : len;
    const char *s = src + ls;
    size_t n = le - ls;
    guint8 cls = BOOK_TOK_PLAIN;
    if ((n >= 4 && (strncmp(s, "+++ ", 4) == 0 || strncmp(s, "--- ", 4) == 0)) ||
        (n >= 2 && strncmp(s, "@@", 2) == 0) || (n >= 5 && strncmp(s, "diff ", 5) == 0) ||
        (n >= 6 && strncmp(s, "index ", 6) == 0))
      cls = BOOK_TOK_META;
    else if (n >= 1 && (s[0] == '+' || s[0] == '>'))
      cls = BOOK_TOK_INSERTED;
    else if (n >= 1 && (s[0] == '-' || s[0] == '<'))
      cls = BOOK_TOK_DELETED;
    else if (n >= 1 && s[0] == '\\')
      cls = BOOK_TOK_COMMENT;
    paint_range(h, ls, le, cls);
    ls = le + 1;
  }
}

/* Markdown: the block grammar, then the inline grammar over the block
 * tree's `inline` nodes. */
static void markdown(Hl *h, const char *src, size_t len)
{
  TSTree *t = run_query(h, L_MARKDOWN, src, len, 0);
  if (!t)
    return;
  Query *Q = query_for(h, L_MARKDOWN);
  guint32 base = Q ? ts_query_pattern_count(Q->q) : 0;
  TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    if (strcmp(ts_node_type(n), "inline") == 0) {
      add_range(h, ts_node_start_byte(n), ts_node_end_byte(n));
    } else if (ts_tree_cursor_goto_first_child(&c)) {
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&c))
      if (!ts_tree_cursor_goto_parent(&c))
        goto done;
  }
done:
  ts_tree_cursor_delete(&c);
  ts_tree_delete(t);
  if (h->ranges->len > 0) {
    TSTree *ti = run_query(h, L_MARKDOWN_INLINE, src, len, base);
    if (ti)
      ts_tree_delete(ti);
    g_array_set_size(h->ranges, 0);
  }
  paint_recs(h);
}

/* h->paint over text as tokens: runs of one class other than PLAIN. */
static void tokens_of(Hl *h, const char *text, size_t len, HlCode *out)
{
  g_array_set_size(h->toks, 0);
  const guint8 *p = h->paint->data;
  for (size_t i = 0; i < len;) {
    size_t j = i + 1;
    while (j < len && p[j] == p[i])
      j++;
    size_t k = i;
    while (k < j && (text[k] == ' ' || text[k] == '\n' || text[k] == '\t'))
      k++;
    if (p[i] != BOOK_TOK_PLAIN && k < j) { /* no token of white space alone */
      BookToken t = {(guint32)i, (guint32)(j - i), p[i]};
      g_array_append_val(h->toks, t);
    }
    i = j;
  }
  out->ntokens = h->toks->len;
  out->tokens = h->toks->len ? g_memdup2(h->toks->data, h->toks->len * sizeof(BookToken)) : NULL;
}

/* Whether src[0..len) nests deeper than the grammars are safe with: more
 * than HL_MAX_DEPTH open brackets (tree-sitter took 76 s on 100,000 nested
 * parentheses of Rust); for Markdown, a line whose run of container marks
 * (quotes, list markers, indentation) passes 128 bytes (tree-sitter-markdown's
 * scanner aborts on 500 nested quotes or lists). Such a block stays plain:
 * decided from the text alone, so the books stay the same from run to run. */
static bool too_deep(const char *src, size_t len, bool markdown)
{
  long depth = 0, max = 0;
  size_t prefix = 0;
  bool at_start = true;
  for (size_t i = 0; i < len; i++) {
    char ch = src[i];
    if (ch == '(' || ch == '[' || ch == '{')
      max = MAX(max, ++depth);
    else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0)
      depth--;
    if (ch == '\n') {
      at_start = true;
      prefix = 0;
    } else if (at_start && strchr(" \t>-*+.)0123456789", ch)) {
      if (markdown && ++prefix > 128)
        return true;
    } else {
      at_start = false;
    }
  }
  return max > HL_MAX_DEPTH;
}

void hl_code(Hl *h, const char *info, const char *text, HlCode *out)
{
  *out = (HlCode){0};
  const char *name = hl_language(info);
  const char *src = text ? text : "";
  size_t len = strlen(src);
  if (!name || len > HL_MAX_BYTES || too_deep(src, len, strcmp(name, "markdown") == 0))
    return;
  int li = 0;
  while (strcmp(langs[li].name, name) != 0)
    li++;
  out->lang = langs[li].name;
  g_byte_array_set_size(h->paint, (guint)len);
  memset(h->paint->data, BOOK_TOK_PLAIN, len);
  g_array_set_size(h->recs, 0);
  if (li == L_CONSOLE) {
    console(h, src, len);
  } else if (li == L_DIFF) {
    diff(h, src, len);
  } else if (li == L_MARKDOWN) {
    markdown(h, src, len);
  } else {
    TSTree *t = run_query(h, li, src, len, 0);
    if (t)
      ts_tree_delete(t);
    paint_recs(h);
  }
  tokens_of(h, src, len, out);
}

HlQueries *hl_queries_new(void)
{
  HlQueries *qs = g_new0(HlQueries, 1);
  pthread_mutex_init(&qs->lock, NULL);
  return qs;
}

void hl_queries_free(HlQueries *qs)
{
  if (!qs)
    return;
  for (int i = 0; i < L_COUNT; i++) {
    Query *Q = &qs->q[i];
    for (guint k = 0; k < Q->nstrings; k++)
      if (Q->re[k])
        g_regex_unref(Q->re[k]);
    g_free(Q->re);
    g_free(Q->cls);
    g_free(Q->plen);
    if (Q->q)
      ts_query_delete(Q->q);
  }
  pthread_mutex_destroy(&qs->lock);
  g_free(qs);
}

Hl *hl_new(HlQueries *queries)
{
  Hl *h = g_new0(Hl, 1);
  h->own_queries = queries == NULL;
  h->queries = queries ? queries : hl_queries_new();
  h->parser = ts_parser_new();
  h->cursor = ts_query_cursor_new();
  h->recs = g_array_new(FALSE, FALSE, sizeof(Rec));
  h->ranges = g_array_new(FALSE, FALSE, sizeof(TSRange));
  h->paint = g_byte_array_new();
  h->toks = g_array_new(FALSE, FALSE, sizeof(BookToken));
  return h;
}

void hl_free(Hl *h)
{
  if (!h)
    return;
  ts_query_cursor_delete(h->cursor);
  ts_parser_delete(h->parser);
  g_array_free(h->recs, TRUE);
  g_array_free(h->ranges, TRUE);
  g_byte_array_free(h->paint, TRUE);
  g_array_free(h->toks, TRUE);
  if (h->own_queries)
    hl_queries_free(h->queries);
  g_free(h);
}

typedef struct {
  Hl *h;
  HlAhead ahead;
  void *ud;
  bool any; /* a block has tokens */
} Walk;

static void highlight_block(Walk *w, BookNode *n)
{
  HlCode code;
  if (!w->ahead || !w->ahead(w->ud, n, &code))
    hl_code(w->h, n->as.code.info, n->text, &code);
  if (!code.lang)
    return; /* plain: as it was */
  g_free(n->as.code.lang);
  n->as.code.lang = g_strdup(code.lang);
  n->as.code.tokens = code.tokens;
  n->as.code.ntokens = code.ntokens;
  w->any |= code.ntokens > 0;
}

static void highlight_tree(Walk *w, BookNode *root)
{
  BookIter it;
  book_iter_init(&it, root);
  BookIterEvent ev;
  while ((ev = book_iter_next(&it)) != BOOK_ITER_DONE)
    if (ev == BOOK_ITER_ENTER && it.cur->type == BOOK_CODE_BLOCK)
      highlight_block(w, it.cur);
}

void hl_book(Book *book, Hl *h, HlAhead ahead, void *ud)
{
  Walk w = {h ? h : hl_new(NULL), ahead, ud, false};
  for (guint i = 0; i < book->chapters->len; i++)
    highlight_tree(&w, ((BookChapter *)book->chapters->pdata[i])->root);
  for (guint i = 0; i < book->footnotes->len; i++)
    highlight_tree(&w, ((BookFootnote *)book->footnotes->pdata[i])->def);
  book->code_tokens = w.any;
  if (!h)
    hl_free(w.h);
}
