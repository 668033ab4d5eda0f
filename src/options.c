/* options.c: the defaults of every option, for main.c and for programs
 * (tests, fuzzers) that drive the stages without the command line; the
 * names of the enumerated options; the paths of the style files. */
#include "options.h"
#include "sandbox.h"

#include <string.h>

void octavo_options_init(OctavoOptions *o)
{
  memset(o, 0, sizeof *o);
  o->split_level = 0; /* auto: md_decide_shape */
  o->toc_depth = 2;
  o->embed_fonts = true;
  o->page_list = true;
  o->highlight = true;
  o->paper = OCTAVO_PAPER_STYLE;
  o->columns = 1;
  o->threads = 1;
  o->linebreak = OCTAVO_BREAK_OPTIMAL;
  o->link_notes = OCTAVO_NOTES_FOOT;
  o->layout = OCTAVO_LAYOUT_BOOK;
  o->pdf_standard = "a-3u,ua-1";
  o->attach_source = true;
  o->image_dpi = 300;
  o->text_max = SANDBOX_TEXT_MAX_DEFAULT;
  o->syntax = OCTAVO_SYNTAX_ALL;
}


typedef struct {
  int value;
  const char *name;
} Name;

static const Name papers[] = {
    {OCTAVO_PAPER_A4, "a4"}, {OCTAVO_PAPER_LETTER, "letter"}, {OCTAVO_PAPER_A5, "a5"}};
static const Name breaks[] = {{OCTAVO_BREAK_OPTIMAL, "optimal"}, {OCTAVO_BREAK_GREEDY, "greedy"}};
static const Name notes[] = {{OCTAVO_NOTES_FOOT, "foot"}, {OCTAVO_NOTES_END, "end"}};
static const Name layouts[] = {{OCTAVO_LAYOUT_BOOK, "book"}, {OCTAVO_LAYOUT_HANDOUT, "handout"}};

static const struct {
  const Name *names;
  size_t n;
  const char *choices;
} tables[] = {
    [OCTAVO_ENUM_PAPER] = {papers, G_N_ELEMENTS(papers), "a4, letter, a5"},
    [OCTAVO_ENUM_LINEBREAK] = {breaks, G_N_ELEMENTS(breaks), "optimal, greedy"},
    [OCTAVO_ENUM_LINK_NOTES] = {notes, G_N_ELEMENTS(notes), "foot, end"},
    [OCTAVO_ENUM_LAYOUT] = {layouts, G_N_ELEMENTS(layouts), "book, handout"},
};

bool octavo_enum_parse(OctavoEnum which, const char *name, int *value)
{
  for (size_t i = 0; name && i < tables[which].n; i++)
    if (g_ascii_strcasecmp(name, tables[which].names[i].name) == 0) {
      *value = tables[which].names[i].value;
      return true;
    }
  return false;
}

const char *octavo_enum_name(OctavoEnum which, int value)
{
  for (size_t i = 0; i < tables[which].n; i++)
    if (tables[which].names[i].value == value)
      return tables[which].names[i].name;
  return NULL;
}

const char *octavo_enum_choices(OctavoEnum which)
{
  return tables[which].choices;
}

static char *data_file(const OctavoOptions *opts, const char *given, const char *name)
{
  if (given)
    return g_strdup(given);
  return g_build_filename(opts->datadir ? opts->datadir : ".", "styles", name, NULL);
}

char *octavo_style_path(const OctavoOptions *opts)
{
  return data_file(opts, opts->style, "print.ini");
}

char *octavo_css_path(const OctavoOptions *opts)
{
  return data_file(opts, opts->css, "book.css");
}

bool octavo_syntax_parse(const char *list, unsigned *syntax, const char **bad)
{
  static const Name names[] = {{OCTAVO_SYNTAX_ATTRS, "heading-attributes"},
                               {OCTAVO_SYNTAX_DEFLISTS, "definition-lists"},
                               {OCTAVO_SYNTAX_DIVS, "fenced-divs"},
                               {OCTAVO_SYNTAX_TITLE_BLOCK, "title-block"},
                               {OCTAVO_SYNTAX_ALL, "all"},
                               {0, "none"},
                               {0, "commonmark"}};
  *bad = "heading-attributes, definition-lists, fenced-divs, title-block, all, none; "
         "'-NAME' or 'no-NAME' turns one off";
  char **parts = g_strsplit(list ? list : "", ",", -1);
  bool ok = true;
  for (char **p = parts; *p && ok; p++) {
    const char *w = g_strstrip(*p);
    if (!*w)
      continue;
    bool off = false;
    if (*w == '-' || *w == '+') {
      off = *w == '-';
      w++;
    } else if (g_str_has_prefix(w, "no-")) {
      off = true;
      w += 3;
    }
    ok = false;
    for (size_t i = 0; i < G_N_ELEMENTS(names) && !ok; i++)
      if (g_ascii_strcasecmp(w, names[i].name) == 0) {
        unsigned bits = (unsigned)names[i].value;
        if (bits == 0) /* none */
          *syntax = off ? OCTAVO_SYNTAX_ALL : 0;
        else if (off)
          *syntax &= ~bits;
        else
          *syntax |= bits;
        ok = true;
      }
  }
  g_strfreev(parts);
  return ok;
}
