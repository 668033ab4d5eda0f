/* main.c: the octavo command line. Reads options, runs the stages in order,
 * prints diagnostics and chooses the exit status. No logic of its own.
 *
 * Exit status: 0 success (warnings allowed), 1 an input or output error,
 * 2 a usage error. */
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "book.h"
#include "epub.h"
#include "layout.h"
#include "markdown.h"
#include "options.h"
#include "pdf.h"
#include "util.h"
#include "xhtml.h"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

typedef enum { FMT_NONE, FMT_EPUB, FMT_PDF, FMT_XHTML, FMT_HTML } Format;

typedef struct {
  char *path;
  Format format;
} Output;

void octavo_options_init(OctavoOptions *o) {
  memset(o, 0, sizeof *o);
  o->split_level = 2;
  o->toc_depth = 2;
  o->embed_fonts = true;
  o->page_list = true;
  o->paper = "a4";
  o->columns = 1;
  o->linebreak = "optimal";
  o->link_notes = "foot";
}

static Format format_from_name(const char *name) {
  if (!name)
    return FMT_NONE;
  if (g_ascii_strcasecmp(name, "epub") == 0 || g_ascii_strcasecmp(name, "epub3") == 0)
    return FMT_EPUB;
  if (g_ascii_strcasecmp(name, "pdf") == 0)
    return FMT_PDF;
  if (g_ascii_strcasecmp(name, "xhtml") == 0)
    return FMT_XHTML;
  if (g_ascii_strcasecmp(name, "html") == 0)
    return FMT_HTML;
  return FMT_NONE;
}

static Format format_from_path(const char *path) {
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash))
    return FMT_NONE;
  if (g_ascii_strcasecmp(dot, ".xhtml") == 0)
    return FMT_XHTML;
  if (g_ascii_strcasecmp(dot, ".html") == 0 || g_ascii_strcasecmp(dot, ".htm") == 0)
    return FMT_HTML;
  return format_from_name(dot + 1);
}

static int usage_error(GOptionContext *ctx, const char *fmt, const char *arg) {
  fprintf(stderr, "octavo: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'octavo --help' for more information.\n");
  g_option_context_free(ctx);
  return EXIT_USAGE;
}

/* True when a and b name the same existing file. */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static bool write_output(Book *book, const Layout *lay, const OctavoOptions *opts, const Output *out) {
  switch (out->format) {
  case FMT_EPUB:
    return epub_write(book, opts, out->path);
  case FMT_PDF:
    return pdf_write(book, lay, opts, out->path);
  case FMT_XHTML:
    return xhtml_write_file(book, opts, out->path);
  case FMT_HTML:
    return xhtml_write_fragment_file(book, opts, out->path);
  default:
    return false;
  }
}

int main(int argc, char **argv) {
  /* Only LC_CTYPE: cairo prints numbers with the C locale only when
   * LC_NUMERIC is "C" (DESIGN.md). */
  setlocale(LC_CTYPE, "");

  char **outputs = NULL, **metadata = NULL, **inputs = NULL;
  char *to = NULL, *lang = NULL, *paper = NULL, *linebreak = NULL, *link_notes = NULL;
  char *resource_path = NULL, *style = NULL, *css = NULL;
  int split_level = 2, toc_depth = 2, columns = 1;
  gboolean quiet = FALSE, verbose = FALSE, version = FALSE, dump = FALSE;
  gboolean no_fonts = FALSE, no_page_list = FALSE;

  GOptionEntry entries[] = {
      {"output", 'o', 0, G_OPTION_ARG_FILENAME_ARRAY, &outputs,
       "Write FILE (repeatable; format from the extension: .epub .pdf .xhtml .html; - is stdout)", "FILE"},
      {"to", 't', 0, G_OPTION_ARG_STRING, &to, "Output format for every -o: epub, pdf, xhtml, html", "FORMAT"},
      {"metadata", 'M', 0, G_OPTION_ARG_STRING_ARRAY, &metadata,
       "Set metadata (title, subtitle, author, date, lang, publisher, description, subject, rights, "
       "identifier, source, cover)",
       "KEY=VALUE"},
      {"lang", 0, 0, G_OPTION_ARG_STRING, &lang, "The book's language (BCP 47; default en)", "LANG"},
      {"split-level", 0, 0, G_OPTION_ARG_INT, &split_level,
       "Headings at this level or above start a chapter (default 2)", "N"},
      {"toc-depth", 0, 0, G_OPTION_ARG_INT, &toc_depth, "Heading levels in the contents (default 2)", "N"},
      {"paper", 0, 0, G_OPTION_ARG_STRING, &paper, "PDF paper: a4 (default), letter, a5", "SIZE"},
      {"columns", 0, 0, G_OPTION_ARG_INT, &columns, "PDF text columns: 1 (default) or 2", "N"},
      {"linebreak", 0, 0, G_OPTION_ARG_STRING, &linebreak, "PDF line breaking: optimal (default) or greedy",
       "MODE"},
      {"link-notes", 0, 0, G_OPTION_ARG_STRING, &link_notes,
       "PDF: print URLs of links as footnotes (foot, default) or at the chapter's end (end)", "WHERE"},
      {"no-embed-fonts", 0, 0, G_OPTION_ARG_NONE, &no_fonts, "EPUB: do not embed the fonts", NULL},
      {"no-page-list", 0, 0, G_OPTION_ARG_NONE, &no_page_list, "EPUB: leave out the print page list", NULL},
      {"resource-path", 0, 0, G_OPTION_ARG_FILENAME, &resource_path,
       "Also allow images and links from DIR", "DIR"},
      {"style", 0, 0, G_OPTION_ARG_FILENAME, &style, "Print style file (default styles/print.ini)", "FILE"},
      {"css", 0, 0, G_OPTION_ARG_FILENAME, &css, "E-book stylesheet (default styles/book.css)", "FILE"},
      {"dump-model", 0, 0, G_OPTION_ARG_NONE, &dump, "Print the document model as a tree", NULL},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print no warnings", NULL},
      {"verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Say what is written", NULL},
      {"version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &inputs, NULL, "INPUT.md..."},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};

  GOptionContext *ctx = g_option_context_new("- turn Markdown into an EPUB 3 and a print PDF");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_description(
      ctx, "Without -o, writes NAME.epub and NAME.pdf in the current directory, NAME being the first\n"
           "input's base name. Several inputs make one book, each starting a chapter; - reads stdin.\n\n"
           "Exit status: 0 success (warnings allowed), 1 an input or output error, 2 a usage error.\n");
  GError *err = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
    int rc = usage_error(ctx, "%s", err->message);
    g_error_free(err);
    return rc;
  }
  if (version) {
    printf("octavo %s\n", OCTAVO_VERSION);
    g_option_context_free(ctx);
    return EXIT_OK;
  }
  if (!inputs || !inputs[0])
    return usage_error(ctx, "%s", "no input file");
  char num[32];
  if (split_level < 1 || split_level > 6)
    return usage_error(ctx, "--split-level must be 1 to 6, not %s", (g_snprintf(num, sizeof num, "%d", split_level), num));
  if (toc_depth < 1 || toc_depth > 6)
    return usage_error(ctx, "--toc-depth must be 1 to 6, not %s", (g_snprintf(num, sizeof num, "%d", toc_depth), num));
  if (columns < 1 || columns > 2)
    return usage_error(ctx, "--columns must be 1 or 2, not %s", (g_snprintf(num, sizeof num, "%d", columns), num));
  if (paper && strcmp(paper, "a4") && strcmp(paper, "letter") && strcmp(paper, "a5"))
    return usage_error(ctx, "unknown paper '%s' (a4, letter, a5)", paper);
  if (linebreak && strcmp(linebreak, "optimal") && strcmp(linebreak, "greedy"))
    return usage_error(ctx, "unknown line breaking '%s' (optimal, greedy)", linebreak);
  if (link_notes && strcmp(link_notes, "foot") && strcmp(link_notes, "end"))
    return usage_error(ctx, "unknown --link-notes '%s' (foot, end)", link_notes);
  Format forced = FMT_NONE;
  if (to && (forced = format_from_name(to)) == FMT_NONE)
    return usage_error(ctx, "unknown output format '%s' (epub, pdf, xhtml, html)", to);
  for (char **m = metadata; m && *m; m++)
    if (!strchr(*m, '='))
      return usage_error(ctx, "-M wants KEY=VALUE, not '%s'", *m);

  /* The outputs. */
  GArray *outs = g_array_new(FALSE, TRUE, sizeof(Output));
  if (outputs && outputs[0]) {
    for (char **o = outputs; *o; o++) {
      Output out = {g_strdup(*o), forced ? forced : format_from_path(*o)};
      if (out.format == FMT_NONE)
        return usage_error(ctx, "cannot tell the format of '%s': use -t or .epub, .pdf, .xhtml, .html", *o);
      g_array_append_val(outs, out);
    }
  } else if (!dump) {
    const char *first = strcmp(inputs[0], "-") == 0 ? "stdin.md" : inputs[0];
    char *base = g_path_get_basename(first);
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
      *dot = '\0';
    Format fmts[2] = {FMT_EPUB, FMT_PDF};
    for (int i = 0; i < 2; i++) {
      if (forced && fmts[i] != forced)
        continue;
      const char *ext = fmts[i] == FMT_EPUB ? "epub" : "pdf";
      Output out = {g_strdup_printf("%s.%s", base, ext), fmts[i]};
      g_array_append_val(outs, out);
    }
    if (forced == FMT_XHTML || forced == FMT_HTML) {
      Output out = {g_strdup_printf("%s.%s", base, forced == FMT_XHTML ? "xhtml" : "html"), forced};
      g_array_append_val(outs, out);
    }
    g_free(base);
  }
  g_option_context_free(ctx);

  OctavoOptions opts;
  octavo_options_init(&opts);
  opts.split_level = split_level;
  opts.toc_depth = toc_depth;
  opts.lang = lang;
  opts.paper = paper ? paper : "a4";
  opts.columns = columns;
  opts.linebreak = linebreak ? linebreak : "optimal";
  opts.link_notes = link_notes ? link_notes : "foot";
  opts.embed_fonts = !no_fonts;
  opts.page_list = !no_page_list;
  opts.resource_path = resource_path;
  opts.style = style;
  opts.css = css;
  opts.quiet = quiet;
  opts.verbose = verbose;
  opts.metadata = g_ptr_array_new();
  for (char **m = metadata; m && *m; m++)
    g_ptr_array_add(opts.metadata, *m);
  char *datadir = util_find_datadir(argv[0]);
  opts.datadir = datadir;

  int rc = EXIT_OK;
  Book *book = book_new();
  /* An output must not overwrite an input, and its directory must exist. */
  for (guint i = 0; i < outs->len && rc == EXIT_OK; i++) {
    const Output *o = &g_array_index(outs, Output, i);
    if (strcmp(o->path, "-") == 0)
      continue;
    for (char **in = inputs; *in; in++)
      if (strcmp(*in, "-") != 0 && same_file(*in, o->path)) {
        book_diag(book, BOOK_ERROR, NULL, "output %s is also an input; refusing to overwrite it", o->path);
        rc = EXIT_INPUT;
      }
    char *dir = g_path_get_dirname(o->path);
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
      book_diag(book, BOOK_ERROR, NULL, "cannot write %s: directory %s does not exist", o->path, dir);
      rc = EXIT_INPUT;
    }
    g_free(dir);
  }

  if (rc == EXIT_OK) {
    int n = 0;
    while (inputs[n])
      n++;
    if (!md_parse_files(book, (const char *const *)inputs, n, &opts))
      rc = EXIT_INPUT;
  }
  if (rc == EXIT_OK && dump) {
    GString *s = g_string_new(NULL);
    book_dump(book, s);
    fwrite(s->str, 1, s->len, stdout);
    g_string_free(s, TRUE);
  }

  Layout *lay = NULL;
  if (rc == EXIT_OK) {
    bool need_pdf = false, need_epub = false;
    for (guint i = 0; i < outs->len; i++) {
      Format f = g_array_index(outs, Output, i).format;
      need_pdf |= f == FMT_PDF;
      need_epub |= f == FMT_EPUB;
    }
    if (need_pdf || (need_epub && opts.page_list)) {
      lay = lay_book(book, &opts);
      if (!lay && need_pdf)
        rc = EXIT_INPUT;
    }
  }
  for (guint i = 0; i < outs->len && rc == EXIT_OK; i++) {
    const Output *o = &g_array_index(outs, Output, i);
    if (!write_output(book, lay, &opts, o))
      rc = EXIT_INPUT;
    else if (verbose)
      fprintf(stderr, "octavo: wrote %s\n", o->path);
  }

  /* Diagnostics: with -q only errors. */
  book_diag_print(book, 0, quiet, stderr);
  if (book_diag_count(book, BOOK_ERROR) > 0 && rc == EXIT_OK)
    rc = EXIT_INPUT;

  lay_free(lay);
  book_free(book);
  for (guint i = 0; i < outs->len; i++)
    g_free(g_array_index(outs, Output, i).path);
  g_array_free(outs, TRUE);
  g_ptr_array_free(opts.metadata, TRUE);
  g_free(datadir);
  g_strfreev(outputs);
  g_strfreev(metadata);
  g_strfreev(inputs);
  g_free(to);
  g_free(lang);
  g_free(paper);
  g_free(linebreak);
  g_free(link_notes);
  g_free(resource_path);
  g_free(style);
  g_free(css);
  return rc;
}
