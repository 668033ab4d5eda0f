/* main.c: the octavo command line. Reads options, runs the stages in order,
 * prints diagnostics and chooses the exit status. No logic of its own.
 *
 * Exit status: 0 success (warnings allowed), 1 an input or output error,
 * 2 a usage error. */
#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "archive.h"
#include "book.h"
#include "coverage.h"
#include "epub.h"
#include "fonts.h"
#include "hyphenate.h"
#include "layout.h"
#include "markdown.h"
#include "options.h"
#include "pdf.h"
#include "preview.h"
#include "print.h"
#include "progress.h"
#include "qpdflib.h"
#include "project.h"
#include "runplan.h"
#include "style.h"
#include "util.h"
#include "version.h"
#include "xhtml.h"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

typedef enum { FMT_NONE, FMT_EPUB, FMT_PDF, FMT_XHTML, FMT_HTML } Format;

typedef struct {
  char *path;
  Format format;
} Output;

static Format format_from_name(const char *name)
{
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

static Format format_from_path(const char *path)
{
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

/* Everything the options fill in; freed by args_clear(). */
typedef struct {
  char **outputs, **metadata, **inputs;
  char *to, *lang, *paper, *linebreak, *link_notes, *layout, *resource_path, *style, *css;
  char *pdf_standard, *syntax;
  char *preview, *pages; /* --preview DIR, --pages LIST */
  gboolean no_attach_source;
  int toc_depth, columns, max_text_mb;
  int image_dpi;     /* --image-dpi (-1: not given) */
  char *split_level; /* "auto" or 1..6 */
  gboolean number_sections, smart, toc;
  gboolean quiet, verbose, version, dump, dump_layout, no_fonts, no_page_list, no_highlight;
  int jobs;     /* -j: threads (0: OCTAVO_THREADS, else the run plan from the load) */
  GArray *outs; /* Output */
} Args;

static void args_clear(Args *a)
{
  if (a->outs) {
    for (guint i = 0; i < a->outs->len; i++)
      g_free(g_array_index(a->outs, Output, i).path);
    g_array_free(a->outs, TRUE);
  }
  g_strfreev(a->outputs);
  g_strfreev(a->metadata);
  g_strfreev(a->inputs);
  g_free(a->to);
  g_free(a->lang);
  g_free(a->paper);
  g_free(a->syntax);
  g_free(a->linebreak);
  g_free(a->link_notes);
  g_free(a->layout);
  g_free(a->resource_path);
  g_free(a->split_level);
  g_free(a->style);
  g_free(a->css);
  g_free(a->pdf_standard);
  g_free(a->preview);
  g_free(a->pages);
}

static int usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "octavo: error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nTry 'octavo --help' for more information.\n");
  va_end(ap);
  return EXIT_USAGE;
}

/* True when a and b name the same existing file. */
static bool same_file(const char *a, const char *b)
{
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* What the stages share, loaded once: the print style (with the cover's
 * colours) and the fonts. */
typedef struct {
  Style style;
  bool style_ok;       /* the style file was read (else style holds the defaults) */
  Fonts *fonts;        /* NULL when fonts/ is unreadable */
  CoverageChars chars; /* the book's characters, from the coverage check (with fonts) */
  bool stream;         /* the PDF is laid out as it is drawn (print_pdf) */
  PrintMarks *marks;   /* streamed: its page marks for the EPUB's page list (or NULL) */
  Colophon *colophon;  /* for it (NULL: none) */
  char *identifier;    /* epub_identifier, when the print colophon made it (else NULL): the
                        * EPUB's, made once (a digest of the whole model) */
} Loaded;

static bool write_output(Book *book, const Layout *lay, const Loaded *ld, const OctavoOptions *opts,
                         const Output *out)
{
  switch (out->format) {
  case FMT_EPUB: {
    /* streamed beside the PDF: its marks, once its layout is done */
    const GArray *marks = lay ? lay->page_marks : ld->marks ? print_marks_wait(ld->marks) : NULL;
    return ld->chars.text ? epub_write_chars(book, &ld->style, ld->fonts, opts, marks, &ld->chars,
                                             ld->identifier, out->path)
                          : epub_write(book, &ld->style, ld->fonts, opts, marks, out->path);
  }
  case FMT_PDF:
    if (!lay && ld->stream)
      return print_pdf(book, opts, &ld->style, ld->fonts, ld->colophon, out->path, ld->marks);
    return pdf_write(book, lay, opts, out->path);
  case FMT_XHTML: return xhtml_write_file(book, opts, out->path);
  case FMT_HTML: return xhtml_write_fragment_file(book, opts, out->path);
  default: return false;
  }
}

/* Check the options' values and ranges; *forced: the format of -t, or
 * FMT_NONE. Returns EXIT_OK, or EXIT_USAGE after printing the reason. */
static int check_options(const Args *a, Format *forced)
{
  if (!a->inputs || !a->inputs[0])
    return usage_error("no input file");
  if (a->split_level && strcmp(a->split_level, "auto") != 0 &&
      (strlen(a->split_level) != 1 || a->split_level[0] < '1' || a->split_level[0] > '6'))
    return usage_error("--split-level must be auto or 1 to 6, not '%s'", a->split_level);
  if (a->max_text_mb < 1 || a->max_text_mb > 65536)
    return usage_error("--max-text-size must be 1 to 65536 (MiB), not %d", a->max_text_mb);
  if (a->toc_depth < 1 || a->toc_depth > 6)
    return usage_error("--toc-depth must be 1 to 6, not %d", a->toc_depth);
  if (a->image_dpi != -1 && (a->image_dpi < 0 || a->image_dpi > 10000))
    return usage_error("--image-dpi must be 0 (every pixel) or 1 to 10000, not %d", a->image_dpi);
  if (a->columns < 1 || a->columns > 2)
    return usage_error("--columns must be 1 or 2, not %d", a->columns);
  static const struct {
    OctavoEnum which;
    const char *what;
    size_t offset;
  } enums[] = {{OCTAVO_ENUM_PAPER, "paper", offsetof(Args, paper)},
               {OCTAVO_ENUM_LINEBREAK, "line breaking", offsetof(Args, linebreak)},
               {OCTAVO_ENUM_LINK_NOTES, "--link-notes", offsetof(Args, link_notes)},
               {OCTAVO_ENUM_LAYOUT, "--layout", offsetof(Args, layout)}};
  for (size_t i = 0; i < G_N_ELEMENTS(enums); i++) {
    const char *name = *(char **)((char *)a + enums[i].offset);
    int v;
    if (name && !octavo_enum_parse(enums[i].which, name, &v))
      return usage_error("unknown %s '%s' (%s)", enums[i].what, name,
                         octavo_enum_choices(enums[i].which));
  }
  unsigned syn = OCTAVO_SYNTAX_ALL;
  const char *syn_choices;
  if (a->syntax && !octavo_syntax_parse(a->syntax, &syn, &syn_choices))
    return usage_error("unknown --syntax '%s' (%s)", a->syntax, syn_choices);
  ArchiveStandard std;
  if (!archive_standard_parse(a->pdf_standard, &std))
    return usage_error("unknown --pdf-standard '%s' (a-3u, ua-1, a-3u,ua-1, none)",
                       a->pdf_standard);
  if (a->jobs < 0)
    return usage_error("-j must be 1 or more, not %d", a->jobs);
  const char *env = g_getenv("OCTAVO_THREADS");
  guint64 n = 0;
  if (a->jobs == 0 && env && *env && !g_ascii_string_to_unsigned(env, 10, 1, 1024, &n, NULL))
    return usage_error("OCTAVO_THREADS must be a number from 1 to 1024, not '%s'", env);
  if (a->pages && !a->preview)
    return usage_error("--pages chooses the pages of --preview DIR");
  *forced = FMT_NONE;
  if (a->to && (*forced = format_from_name(a->to)) == FMT_NONE)
    return usage_error("unknown output format '%s' (epub, pdf, xhtml, html)", a->to);
  for (char **m = a->metadata; m && *m; m++)
    if (!strchr(*m, '='))
      return usage_error("-M wants KEY=VALUE, not '%s'", *m);
  return EXIT_OK;
}

/* Without -o: NAME.epub and NAME.pdf (or NAME.FORMAT with -t) after the
 * first input. */
static void default_outputs(Args *a, Format forced)
{
  const char *first = strcmp(a->inputs[0], "-") == 0 ? "stdin.md" : a->inputs[0];
  char *base = project_name(first);
  const Format fmts[] = {FMT_EPUB, FMT_PDF, FMT_XHTML, FMT_HTML};
  const char *exts[] = {"epub", "pdf", "xhtml", "html"};
  for (int i = 0; i < 4; i++) {
    if (forced ? fmts[i] != forced : i >= 2)
      continue;
    Output out = {g_strdup_printf("%s.%s", base, exts[i]), fmts[i]};
    g_array_append_val(a->outs, out);
  }
  g_free(base);
}

/* The outputs to write into a->outs. Returns EXIT_OK, or EXIT_USAGE
 * after printing the reason. */
static int list_outputs(Args *a, Format forced)
{
  a->outs = g_array_new(FALSE, TRUE, sizeof(Output));
  if (a->outputs && a->outputs[0]) {
    for (char **o = a->outputs; *o; o++) {
      Output out = {NULL, forced ? forced : format_from_path(*o)};
      if (out.format == FMT_NONE)
        return usage_error("cannot tell the format of '%s': use -t, or .epub, .pdf, .xhtml, .html",
                           *o);
      out.path = g_strdup(*o);
      g_array_append_val(a->outs, out);
    }
  } else if (!a->dump && !a->dump_layout && !a->preview) {
    default_outputs(a, forced);
  }
  return EXIT_OK;
}

/* The command line's options, filling in a (GLib copies the entries). */
static GOptionContext *option_context(Args *a)
{
  GOptionEntry entries[] = {
      {"output", 'o', 0, G_OPTION_ARG_FILENAME_ARRAY, &a->outputs,
       "Write FILE (repeatable; format from the extension: .epub .pdf .xhtml .html; - is stdout)",
       "FILE"},
      {"to", 't', 0, G_OPTION_ARG_STRING, &a->to,
       "Output format for every -o: epub, pdf, xhtml, html", "FORMAT"},
      {"metadata", 'M', 0, G_OPTION_ARG_STRING_ARRAY, &a->metadata,
       "Set metadata (title, subtitle, author, date, lang, publisher, description, subject, "
       "rights, "
       "identifier, source, cover, dir: ltr or rtl)",
       "KEY=VALUE"},
      {"lang", 0, 0, G_OPTION_ARG_STRING, &a->lang, "The book's language (BCP 47; default en)",
       "LANG"},
      {"max-text-size", 0, 0, G_OPTION_ARG_INT, &a->max_text_mb,
       "The book's Markdown, includes expanded, in MiB at most (default 256)", "MIB"},
      {"split-level", 0, 0, G_OPTION_ARG_STRING, &a->split_level,
       "Headings at this level or above start a chapter (default auto: 1 when the book has "
       "several # headings, else 2)",
       "auto|N"},
      {"toc-depth", 0, 0, G_OPTION_ARG_INT, &a->toc_depth,
       "Depth of the contents in outline levels: 1 chapters, 2 and their sections (default 2)",
       "N"},
      {"smart", 0, 0, G_OPTION_ARG_NONE, &a->smart,
       "Typographic punctuation: curly quotes, -- and --- as en and em dashes, ... as an ellipsis",
       NULL},
      {"syntax", 0, 0, G_OPTION_ARG_STRING, &a->syntax,
       "Markdown beyond CommonMark/GFM, all read by default: heading-attributes, "
       "definition-lists, fenced-divs, title-block; -NAME turns one off, none all",
       "LIST"},
      {"number-sections", 'N', 0, G_OPTION_ARG_NONE, &a->number_sections,
       "Number chapters and sections (1, 1.1, ...) in both books", NULL},
      {"paper", 0, 0, G_OPTION_ARG_STRING, &a->paper,
       "PDF paper: a4, letter, a5 (default: the style's [page] paper, else a4)", "SIZE"},
      {"columns", 0, 0, G_OPTION_ARG_INT, &a->columns, "PDF text columns: 1 (default) or 2", "N"},
      {"linebreak", 0, 0, G_OPTION_ARG_STRING, &a->linebreak,
       "PDF line breaking: optimal (default) or greedy", "MODE"},
      {"layout", 0, 0, G_OPTION_ARG_STRING, &a->layout,
       "PDF layout: book (default: title page, contents, chapters on new pages) or handout (a "
       "title "
       "block on page 1, sections running on; the style's [layout.handout])",
       "LAYOUT"},
      {"toc", 0, 0, G_OPTION_ARG_NONE, &a->toc, "PDF handout: print a contents block", NULL},
      {"link-notes", 0, 0, G_OPTION_ARG_STRING, &a->link_notes,
       "PDF: print URLs of links as footnotes (foot, default) or at the chapter's end (end)",
       "WHERE"},
      {"pdf-standard", 0, 0, G_OPTION_ARG_STRING, &a->pdf_standard,
       "PDF: archival standards, a-3u,ua-1 (default), one of them, or none", "LIST"},
      {"image-dpi", 0, 0, G_OPTION_ARG_INT, &a->image_dpi,
       "PDF: raster images at most N pixels per inch of their printed size, fewer decoded and "
       "written (default 300; 0: every pixel); the EPUB keeps the files as they are",
       "N"},
      {"no-attach-source", 0, 0, G_OPTION_ARG_NONE, &a->no_attach_source,
       "PDF: do not attach the Markdown sources", NULL},
      {"no-embed-fonts", 0, 0, G_OPTION_ARG_NONE, &a->no_fonts, "EPUB: do not embed the fonts",
       NULL},
      {"no-page-list", 0, 0, G_OPTION_ARG_NONE, &a->no_page_list,
       "EPUB: leave out the print page list", NULL},
      {"no-highlight", 0, 0, G_OPTION_ARG_NONE, &a->no_highlight,
       "Set every code listing plain, whatever its language", NULL},
      {"resource-path", 0, 0, G_OPTION_ARG_FILENAME, &a->resource_path,
       "Also allow images and links from DIR", "DIR"},
      {"style", 0, 0, G_OPTION_ARG_FILENAME, &a->style,
       "Print style file (default styles/print.ini)", "FILE"},
      {"css", 0, 0, G_OPTION_ARG_FILENAME, &a->css, "E-book stylesheet (default styles/book.css)",
       "FILE"},
      {"dump-model", 0, 0, G_OPTION_ARG_NONE, &a->dump, "Print the document model as a tree", NULL},
      {"dump-layout", 0, 0, G_OPTION_ARG_NONE, &a->dump_layout,
       "Print the print layout's lines and page breaks (lay_trace)", NULL},
      {"preview", 0, 0, G_OPTION_ARG_FILENAME, &a->preview,
       "Write PNG thumbnails of the PDF's pages and a contact sheet (contact.png) into DIR", "DIR"},
      {"pages", 0, 0, G_OPTION_ARG_STRING, &a->pages,
       "--preview: the pages to draw as thumbnails, e.g. 1-3,7 (1 = the title page; default all)",
       "LIST"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &a->jobs,
       "Threads (default: $OCTAVO_THREADS, else one per core not busy with other work: "
       "-v says how many); the outputs are the same whatever the number",
       "N"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &a->quiet, "Print errors only, no warnings", NULL},
      {"verbose", 'v', 0, G_OPTION_ARG_NONE, &a->verbose, "Say what is written", NULL},
      {"version", 0, 0, G_OPTION_ARG_NONE, &a->version, "Print the version and exit", NULL},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->inputs, NULL, "INPUT.md..."},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};

  GOptionContext *ctx = g_option_context_new("- turn Markdown into an EPUB 3 and a print PDF");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_description(
      ctx,
      "Without -o, writes NAME.epub and NAME.pdf in the current directory, NAME being the first\n"
      "input's base name. Several inputs make one book, each starting a chapter; - reads stdin.\n\n"
      "Exit status: 0 success (warnings allowed), 1 an input or output error, 2 a usage error.\n");
  return ctx;
}

/* Parse and check the command line into a. Returns EXIT_OK, or EXIT_USAGE
 * after printing the reason. */
static int parse_args(Args *a, int argc, char **argv)
{
  a->toc_depth = 2;
  a->max_text_mb = (int)(SANDBOX_TEXT_MAX_DEFAULT >> 20);
  a->image_dpi = -1;
  a->columns = 1;
  /* -jN as make writes it (GOption wants -j N): as --jobs=N */
  char **args = g_new0(char *, argc + 1);
  GPtrArray *made = g_ptr_array_new_with_free_func(g_free);
  for (int i = 0; i < argc; i++) {
    args[i] = argv[i];
    if (i > 0 && g_str_has_prefix(argv[i], "-j") && argv[i][2] && g_ascii_isdigit(argv[i][2]))
      g_ptr_array_add(made, args[i] = g_strconcat("--jobs=", argv[i] + 2, NULL));
  }
  GOptionContext *ctx = option_context(a);
  GError *err = NULL;
  char **parse = args;
  gboolean parsed = g_option_context_parse(ctx, &argc, &parse, &err);
  g_option_context_free(ctx);
  g_free(args);
  g_ptr_array_free(made, TRUE);
  if (!parsed) {
    int rc = usage_error("%s", err->message);
    g_error_free(err);
    return rc;
  }
  if (a->version)
    return EXIT_OK;
  Format forced = FMT_NONE;
  int rc = check_options(a, &forced);
  if (rc != EXIT_OK)
    return rc;
  return list_outputs(a, forced);
}

/* Parse a book project (SUMMARY.md, or a folder of chapters): its
 * metadata first (a front-matter source below the chapters' own and -M),
 * then its part titles and chapters in order. Images and links may come
 * from anywhere in the book's folder unless --resource-path says
 * otherwise. */
static bool parse_project(Book *book, const char *path, OctavoOptions *opts)
{
  GError *err = NULL;
  GArray *diags = project_diags_new();
  Project *p = project_load(path, book->sandbox, diags);
  for (guint i = 0; i < diags->len; i++) {
    const ProjectDiag *d = &g_array_index(diags, ProjectDiag, i);
    BookPos pos = {book_intern(book, d->file), d->line, d->col};
    book_diag(book, d->error ? BOOK_ERROR : BOOK_WARNING, &pos, "%s", d->message);
  }
  g_array_free(diags, TRUE);
  if (!p)
    return false;
  const char *fm_name = NULL;
  char *fm = project_front_matter(p, &fm_name, &err);
  if (err) { /* named by its own path, as a chapter's error is */
    BookPos pos = {book_intern(book, p->metadata_file), 0, 0};
    book_diag(book, BOOK_ERROR, p->metadata_file ? &pos : NULL, "%s", err->message);
    g_error_free(err);
    project_free(p);
    return false;
  }
  guint n = p->sources->len + (fm ? 1 : 0), k = 0;
  MdSource *srcs = g_new0(MdSource, n);
  if (fm)
    srcs[k++] = (MdSource){.name = fm_name, .text = fm, .len = strlen(fm)};
  for (guint i = 0; i < p->sources->len; i++) {
    const ProjectSource *ps = &g_array_index(p->sources, ProjectSource, i);
    srcs[k++] = (MdSource){.name = ps->name,
                           .text = ps->text,
                           .len = ps->len,
                           .heading_shift = ps->heading_shift,
                           .chapter = ps->chapter,
                           .nest = ps->nest,
                           .number = ps->number,
                           .title = ps->title,
                           .mdbook = ps->mdbook};
  }
  if (!opts->resource_path)
    opts->resource_path = p->root;
  progress_step("reading", (long)n);
  bool ok = md_parse_sources(book, srcs, (int)n, opts);
  if (opts->resource_path == p->root)
    opts->resource_path = NULL;
  g_free(srcs);
  g_free(fm);
  project_free(p);
  return ok;
}

/* Load the print style and the fonts for the book writers. The PDF needs
 * both (false with an error); the EPUB goes on without the print page list
 * (a warning) and with the default cover colours when the style is
 * unreadable, and without embedded fonts when they are. */
static bool load_shared(Book *book, Loaded *ld, const OctavoOptions *opts, bool need_pdf)
{
  GError *err = NULL;
  char *path = octavo_style_path(opts);
  ld->style_ok =
      style_load_layout(&ld->style, path, opts->paper, opts->columns, opts->layout, &err);
  g_free(path);
  if (!ld->style_ok) {
    book_diag(book, need_pdf ? BOOK_ERROR : BOOK_WARNING, NULL, "%s%s", err->message,
              need_pdf || !opts->page_list ? "" : "; the EPUB has no print page list");
    g_clear_error(&err);
    style_clear(&ld->style);
    style_load_layout(&ld->style, NULL, opts->paper, opts->columns, opts->layout,
                      NULL); /* the defaults */
    if (need_pdf)
      return false;
  }
  ld->fonts = fonts_load(opts->datadir, &err);
  if (!ld->fonts) {
    book_diag(book, need_pdf ? BOOK_ERROR : BOOK_WARNING, NULL, "%s", err->message);
    g_clear_error(&err);
    return !need_pdf;
  }
  coverage_check_chars(book, ld->fonts, ld->style.body_face, ld->style.code_face, &ld->chars);
  return true;
}

/* The stages' options from the command line's; opts->metadata borrows
 * the -M strings (free the array only). */
static void options_from_args(OctavoOptions *opts, const Args *a)
{
  octavo_options_init(opts);
  opts->split_level =
      a->split_level && strcmp(a->split_level, "auto") != 0 ? atoi(a->split_level) : 0;
  opts->text_max = (gint64)a->max_text_mb << 20;
  if (a->image_dpi != -1)
    opts->image_dpi = a->image_dpi;
  opts->toc_depth = a->toc_depth;
  opts->number_sections = a->number_sections;
  opts->smart = a->smart;
  if (a->syntax) {
    const char *unused;
    octavo_syntax_parse(a->syntax, &opts->syntax, &unused);
  }
  opts->lang = a->lang;
  int v;
  if (octavo_enum_parse(OCTAVO_ENUM_PAPER, a->paper, &v))
    opts->paper = (OctavoPaper)v; /* else the style file's, else a4 */
  opts->columns = a->columns;
  if (octavo_enum_parse(OCTAVO_ENUM_LINEBREAK, a->linebreak, &v))
    opts->linebreak = (OctavoLinebreak)v;
  if (octavo_enum_parse(OCTAVO_ENUM_LINK_NOTES, a->link_notes, &v))
    opts->link_notes = (OctavoLinkNotes)v;
  if (octavo_enum_parse(OCTAVO_ENUM_LAYOUT, a->layout, &v))
    opts->layout = (OctavoLayout)v;
  opts->toc = a->toc;
  opts->embed_fonts = !a->no_fonts;
  opts->page_list = !a->no_page_list;
  opts->highlight = !a->no_highlight;
  opts->resource_path = a->resource_path;
  opts->style = a->style;
  opts->css = a->css;
  if (a->pdf_standard)
    opts->pdf_standard = a->pdf_standard;
  opts->attach_source = !a->no_attach_source;
  opts->quiet = a->quiet;
  opts->verbose = a->verbose;
  opts->metadata = g_ptr_array_new();
  for (char **m = a->metadata; m && *m; m++)
    g_ptr_array_add(opts->metadata, *m);
}

/* An output must not overwrite an input, and its directory must exist. */
static int check_outputs(Book *book, const GArray *outs, char **inputs)
{
  int rc = EXIT_OK;
  for (guint i = 0; i < outs->len && rc == EXIT_OK; i++) {
    const Output *o = &g_array_index(outs, Output, i);
    if (strcmp(o->path, "-") == 0)
      continue;
    for (char **in = inputs; *in; in++)
      if (strcmp(*in, "-") != 0 && same_file(*in, o->path)) {
        book_diag(book, BOOK_ERROR, NULL, "output %s is also an input; refusing to overwrite it",
                  o->path);
        rc = EXIT_INPUT;
      }
    char *dir = g_path_get_dirname(o->path);
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
      book_diag(book, BOOK_ERROR, NULL, "cannot write %s: directory %s does not exist", o->path,
                dir);
      rc = EXIT_INPUT;
    }
    g_free(dir);
  }
  return rc;
}

/* No output may replace a file the book read (a chapter, SUMMARY.md,
 * book.toml, metadata.yaml, an include, an image, the cover) or the style
 * and stylesheet it will read: refused before anything is written. */
static int check_sources(Book *book, const GArray *outs, const OctavoOptions *opts)
{
  char *style = octavo_style_path(opts), *css = octavo_css_path(opts);
  sandbox_note(book->sandbox, style);
  sandbox_note(book->sandbox, css);
  g_free(style);
  g_free(css);
  int rc = EXIT_OK;
  for (guint i = 0; i < outs->len; i++) {
    const Output *o = &g_array_index(outs, Output, i);
    if (sandbox_holds(book->sandbox, o->path)) {
      book_diag(book, BOOK_ERROR, NULL,
                "output %s is a file the book reads; refusing to overwrite it", o->path);
      rc = EXIT_INPUT;
    }
  }
  return rc;
}

/* Read the inputs (a book project, or Markdown files) into book. */
static int parse_inputs(Book *book, char **inputs, OctavoOptions *opts)
{
  int n = 0;
  while (inputs[n])
    n++;
  if (n == 1 && project_is_project(inputs[0]))
    return parse_project(book, inputs[0], opts) ? EXIT_OK : EXIT_INPUT;
  progress_step("reading", n);
  return md_parse_files(book, (const char *const *)inputs, n, opts) ? EXIT_OK : EXIT_INPUT;
}

/* At exit: what is still buffered for standard output written, and a
 * write error not yet reported (--help into a full disk) made one, exit
 * status 1 (as coreutils' close_stdout). A writer that reports its own
 * error drops what is buffered (util_stdout_drop). */
static void close_stdout(void)
{
  if (fflush(stdout) == 0 && !ferror(stdout))
    return;
  fprintf(stderr, "octavo: error: cannot write to standard output: %s\n",
          g_strerror(errno ? errno : EIO));
  _exit(EXIT_INPUT);
}

/* Write what (a dump) to standard output, flushed: a write error (a full
 * disk, a closed pipe) is an error of the run. Returns EXIT_OK or
 * EXIT_INPUT. */
static int put_stdout(Book *book, const char *what, const char *data, gsize len)
{
  errno = 0;
  if (fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0)
    return EXIT_OK;
  book_diag(book, BOOK_ERROR, NULL, "cannot write %s to standard output: %s", what,
            g_strerror(errno ? errno : EIO));
  util_stdout_drop();
  return EXIT_INPUT;
}

static int dump_model(Book *book)
{
  GString *s = g_string_new(NULL);
  book_dump(book, s);
  int rc = put_stdout(book, "the model (--dump-model)", s->str, s->len);
  g_string_free(s, TRUE);
  return rc;
}

static int thread_count(const Args *a);

/* The identifier made on a thread of its own (RunPlan.identifier_thread). */
typedef struct {
  Book *book;
  const OctavoOptions *opts;
} IdentifierJob;

static gpointer make_identifier(gpointer data)
{
  const IdentifierJob *j = data;
  return epub_identifier(j->book, j->opts);
}

/* Load the style and fonts the outputs need, and lay out the print pages
 * when the PDF, the EPUB's page list, --dump-layout or --preview wants
 * them (*lay, else NULL). */
static int lay_out(Book *book, const Args *a, const OctavoOptions *opts, Loaded *ld, Layout **lay)
{
  RunPlan *plan = opts->plan;
  bool need_epub = plan->want.epubs > 0;
  bool need_lay = plan->layout != RUN_LAY_NONE;
  /* the pages drawn (a PDF, the previews, --dump-layout), not only counted
   * for the EPUB's page list */
  bool drawn = need_lay && plan->layout != RUN_LAY_PAGE_LIST;
  /* as the plan says (with more than one thread): the hyphenation patterns
   * load on the other core while the style and fonts do, libqpdf (the
   * archive pass) and the EPUB's cover while the book is laid out */
  if (plan->hyphen_preload)
    hyphen_preload(plan, plan->hyphenator, book->meta.lang);
  if (plan->qpdf_preload)
    qpdflib_preload(plan);
  /* the print colophon's identifier, a digest of the whole book, while the
   * style, the fonts and the rest of the colophon are made (the threads
   * only read the book) */
  IdentifierJob ij = {book, opts};
  RunThread *idt = plan->identifier_thread
                       ? runplan_spawn(plan, "octavo-identifier", make_identifier, &ij)
                       : NULL;
  if ((need_lay || need_epub) && !load_shared(book, ld, opts, drawn)) {
    g_free(idt ? runplan_join(plan, idt) : NULL);
    return EXIT_INPUT;
  }
  if (plan->cover_ahead)
    epub_cover_prefetch(plan, book, &ld->style, ld->fonts);
  if (ld->style_ok && ld->fonts && need_lay) {
    progress_step("laying out pages", 0);
    char *nohyph = drawn ? hyphen_missing(plan->hyphenator, book->meta.lang) : NULL;
    if (nohyph)
      book_diag(book, BOOK_WARNING, NULL, "%s", nohyph);
    g_free(nohyph);
    /* only the EPUB's page list: the page breaks, nothing drawn (the
     * handout's colophon runs on after the text: it is set for it too) */
    bool print = drawn || !ld->style.chapter_new_page;
    /* the colophon names what the EPUB's names: its identifier, the
     * build time, the book's faces */
    Colophon *col = NULL;
    if (print && idt) { /* the identifier's line put in once made */
      col = colophon_new(book, book->meta.lang, NULL, util_build_time(book->meta.date), ld->fonts);
      ld->identifier = runplan_join(plan, idt);
      idt = NULL;
      colophon_identify(col, ld->identifier);
    } else if (print) {
      ld->identifier = epub_identifier(book, opts);
      col = colophon_new(book, book->meta.lang, ld->identifier, util_build_time(book->meta.date),
                         ld->fonts);
    }
    g_free(idt ? runplan_join(plan, idt) : NULL); /* not printed after all */
    idt = NULL;
    if (plan->layout == RUN_LAY_STREAM) { /* laid out as it is drawn: print_pdf */
      ld->stream = true;
      ld->colophon = col;
      ld->marks = plan->marks ? print_marks_new() : NULL;
      return EXIT_OK;
    }
    *lay = print_layout(book, opts, &ld->style, ld->fonts, col);
    colophon_free(col);
  }
  g_free(idt ? runplan_join(plan, idt) : NULL); /* no fonts: nothing laid out */
  return EXIT_OK;
}

/* PNG thumbnails of the chosen pages and a contact sheet (--preview). */
static int write_preview(Book *book, const Layout *lay, const Args *a)
{
  GError *err = NULL;
  int rc = EXIT_OK;
  bool *chosen = preview_pages(a->pages, (int)lay->pages->len, &err);
  if (!chosen) {
    book_diag(book, BOOK_ERROR, NULL, "%s", err->message);
    g_error_free(err);
    rc = EXIT_USAGE;
  } else if (!preview_write(book, lay, chosen, a->preview)) {
    rc = EXIT_INPUT;
  }
  g_free(chosen);
  return rc;
}

/* The threads -j or OCTAVO_THREADS ask for (check_options checked them);
 * 0 when neither does: the run plan decides from the machine
 * (runplan_threads). */
static int thread_count(const Args *a)
{
  const char *env = g_getenv("OCTAVO_THREADS");
  if (a->jobs > 0)
    return a->jobs;
  if (env && *env)
    return (int)g_ascii_strtoull(env, NULL, 10);
  return 0;
}

/* The outputs being written, on two threads: the EPUBs on a second one. */
typedef struct {
  Book *book;
  const Layout *lay;
  const Loaded *ld;
  const OctavoOptions *opts;
  const GArray *outs;
  GArray **diags; /* per output: its diagnostics (BookDiag), taken in output order */
  bool *ok;       /* per output: written */
} Writing;

static bool is_epub(const Writing *w, guint i)
{
  return g_array_index(w->outs, Output, i).format == FMT_EPUB;
}

/* Write the outputs of one side (the EPUBs, or the others), each with
 * its diagnostics kept apart. */
static void write_side(Writing *w, bool epubs)
{
  for (guint i = 0; i < w->outs->len; i++) {
    if (is_epub(w, i) != epubs)
      continue;
    if (!epubs)
      progress_update(i);
    book_diag_capture(w->book, w->diags[i]);
    w->ok[i] = write_output(w->book, w->lay, w->ld, w->opts, &g_array_index(w->outs, Output, i));
  }
  book_diag_capture(w->book, NULL);
}

static gpointer write_epubs(gpointer data)
{
  write_side(data, true);
  return NULL;
}

/* Write every output in order; when the plan says so (two threads or
 * more, and an EPUB and something else to write), the EPUBs are written on
 * a second thread while the others (the PDF) are drawn on this one. The diagnostics come out in
 * the outputs' order, so a run prints and writes the same whatever the
 * threads. One thread stops at the first output that fails; two write
 * every output. A streamed PDF whose page marks an EPUB waits for
 * (ld->marks) is written first, also with one thread, and then every
 * output is written, as with two. */
static int write_outputs(Book *book, const Layout *lay, const Loaded *ld, const OctavoOptions *opts,
                         const GArray *outs)
{
  guint n = outs->len, epubs = 0;
  for (guint i = 0; i < n; i++)
    epubs += g_array_index(outs, Output, i).format == FMT_EPUB;
  bool mixed = epubs > 0 && epubs < n;
  if (!opts->plan->epub_thread && !(ld->marks && mixed)) {
    for (guint i = 0; i < n; i++) {
      const Output *o = &g_array_index(outs, Output, i);
      progress_update(i);
      if (!write_output(book, lay, ld, opts, o))
        return EXIT_INPUT;
      if (opts->verbose)
        fprintf(stderr, "octavo: wrote %s\n", o->path);
    }
    return EXIT_OK;
  }
  Writing w = {book, lay, ld, opts, outs, g_new(GArray *, n), g_new0(bool, n)};
  for (guint i = 0; i < n; i++)
    w.diags[i] = g_array_new(FALSE, TRUE, sizeof(BookDiag));
  if (!opts->plan->epub_thread) {
    write_side(&w, false); /* the PDF gives the marks */
    write_side(&w, true);
  } else {
    epub_threads_init();
    RunThread *t = runplan_spawn(opts->plan, "octavo-epub", write_epubs, &w);
    write_side(&w, false);
    runplan_join(opts->plan, t);
  }
  int rc = EXIT_OK;
  for (guint i = 0; i < n; i++) {
    book_diag_take(book, w.diags[i]);
    g_array_free(w.diags[i], TRUE);
    if (!w.ok[i])
      rc = EXIT_INPUT;
    else if (opts->verbose)
      fprintf(stderr, "octavo: wrote %s\n", g_array_index(outs, Output, i).path);
  }
  g_free(w.diags);
  g_free(w.ok);
  return rc;
}

/* The run's threads (runplan_begin), before the book is parsed: -j or
 * OCTAVO_THREADS, else the machine's free cores. */
static RunPlan *begin_plan(const OctavoOptions *opts)
{
  RunWant want = {.threads = opts->threads};
  if (want.threads < 1)
    runplan_probe(&want);
  return runplan_begin(&want);
}

/* The rest of the run's plan (runplan.h), once the book is parsed: its
 * outputs, the options, the book's chapters. */
static void decide_plan(RunPlan *plan, const Book *book, const Args *a, const OctavoOptions *opts)
{
  RunWant want = {0};
  for (guint i = 0; i < a->outs->len; i++) {
    Format f = g_array_index(a->outs, Output, i).format;
    want.epubs += f == FMT_EPUB;
    want.pdfs += f == FMT_PDF;
    want.others += f != FMT_EPUB && f != FMT_PDF;
  }
  want.page_list = opts->page_list;
  want.handout = opts->layout == OCTAVO_LAYOUT_HANDOUT;
  want.preview = a->preview != NULL;
  want.dump_layout = a->dump_layout;
  want.attach_source = opts->attach_source;
  want.toc = opts->toc;
  want.chapters = lay_flows(book); /* what the chapter threads can share */
  want.cover_given = book->cover != NULL;
  want.identifier_given = book->meta.identifier && *book->meta.identifier;
  runplan_settle(plan, &want);
}

/* load -> parse -> layout -> preview -> write -> report. */
static int run(Args *a, const char *argv0)
{
  OctavoOptions opts;
  options_from_args(&opts, a);
  opts.threads = thread_count(a);
  char *datadir = util_find_datadir(argv0);
  opts.datadir = datadir;

  progress_init(a->quiet);
  Book *book = book_new();
  Layout *lay = NULL;
  Loaded ld = {0};
  sandbox_set_text_max(book->sandbox, opts.text_max);
  int rc = check_outputs(book, a->outs, a->inputs);
  /* the threads, before parsing: the front end's may check the images and
   * highlight the code beside it */
  RunPlan *plan = opts.plan = rc == EXIT_OK ? begin_plan(&opts) : NULL;
  if (plan)
    opts.threads = plan->want.threads; /* as decided: every module reads it */
  if (rc == EXIT_OK)
    rc = parse_inputs(book, a->inputs, &opts);
  if (rc == EXIT_OK)
    rc = check_sources(book, a->outs, &opts);
  if (rc == EXIT_OK && opts.verbose && book->shape_note)
    fprintf(stderr, "octavo: %s\n", book->shape_note);
  Hyphenator *hyph = hyphenator_new(); /* the run's dictionaries */
  bool settled = rc == EXIT_OK;
  if (settled) {
    decide_plan(plan, book, a, &opts);
    plan->hyphenator = hyph;
    if (opts.verbose) {
      char *said = runplan_describe(plan);
      fputs(said, stderr);
      g_free(said);
    }
  }
  if (rc == EXIT_OK && a->dump)
    rc = dump_model(book);
  if (rc == EXIT_OK)
    rc = lay_out(book, a, &opts, &ld, &lay);
  if (lay && a->dump_layout) {
    char *t = lay_trace(lay);
    int put = put_stdout(book, "the layout (--dump-layout)", t, strlen(t));
    rc = rc == EXIT_OK ? put : rc;
    g_free(t);
  }
  if (rc == EXIT_OK && lay && a->preview)
    rc = write_preview(book, lay, a);
  progress_step("writing", a->outs->len);
  if (rc == EXIT_OK)
    rc = write_outputs(book, lay, &ld, &opts, a->outs);
  if (settled && opts.verbose)
    fprintf(stderr, "octavo: layout passes: %d\n", runplan_passes(plan));
  runplan_end(plan); /* every thread joined: a preloader, a cover never asked for */
  opts.plan = NULL;

  /* Diagnostics: with -q only errors. */
  progress_clear();
  book_diag_print(book, 0, a->quiet, stderr);
  if (book_diag_count(book, BOOK_ERROR) > 0 && rc == EXIT_OK)
    rc = EXIT_INPUT;

  lay_free(lay);
  colophon_free(ld.colophon);
  g_free(ld.identifier);
  print_marks_free(ld.marks);
  style_clear(&ld.style);
  fonts_free(ld.fonts);
  coverage_chars_clear(&ld.chars);
  book_free(book);
  hyphenator_leave(hyph); /* after runplan_end: no preloader left */
  g_ptr_array_free(opts.metadata, TRUE);
  g_free(datadir);
  return rc;
}

int main(int argc, char **argv)
{
  /* Only LC_CTYPE: cairo prints numbers with the C locale only when
   * LC_NUMERIC is "C" (DESIGN.md). */
  setlocale(LC_CTYPE, "");
  util_heap_init();
  util_env_take();
  atexit(close_stdout);
  Args args = {0};
  int rc = parse_args(&args, argc, argv);
  if (rc == EXIT_OK && args.version) {
    GString *v = g_string_new(NULL);
    octavo_version_text(v);
    fwrite(v->str, 1, v->len, stdout); /* an error: close_stdout */
    g_string_free(v, TRUE);
  } else if (rc == EXIT_OK) {
    rc = run(&args, argv[0]);
  }
  args_clear(&args);
  return rc;
}
