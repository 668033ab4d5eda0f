/* archive_src.c: the Markdown sources an archival PDF embeds (PDF/A-3's
 * /AF), read, digested and compressed (pdfupdate_deflate). On the 2 MB
 * bench book this is 0.14 G of the archival pass's 0.98 G instructions,
 * all of it independent of the PDF: with two threads it runs beside
 * qpdf's work on the file, on the core the drawing has left idle. Either
 * way the bytes are the same. */
#include "archive_src.h"
#include "pdfupdate.h"
#include "runplan.h"
#include "util.h"

#include <string.h>
#include <sys/stat.h>

struct ArchiveSources {
  GArray *srcs; /* ArchiveSource */
  gint64 build_time;
  bool have_sde;
  RunPlan *plan;
  RunThread *thread; /* reading them, until waited for */
};

static int source_cmp(const void *a, const void *b)
{
  return strcmp(((const ArchiveSource *)a)->name, ((const ArchiveSource *)b)->name);
}

/* The book's source files, named and sorted, not read yet. */
static GArray *book_sources(const Book *book)
{
  GArray *out = g_array_new(FALSE, TRUE, sizeof(ArchiveSource));
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < book->chapters->len; i++) {
    const char *src = ((BookChapter *)book->chapters->pdata[i])->source;
    if (!src || !strcmp(src, "-") || g_hash_table_contains(seen, src) ||
        !g_file_test(src, G_FILE_TEST_IS_REGULAR))
      continue;
    g_hash_table_add(seen, (gpointer)src);
    char *base = g_path_get_basename(src);
    char *name = g_strdup(base);
    for (int k = 2; g_hash_table_contains(names, name); k++) {
      g_free(name);
      name = g_strdup_printf("%d-%s", k, base);
    }
    g_free(base);
    ArchiveSource s = {.name = name, .path = g_strdup(src)};
    g_array_append_val(out, s);
    g_hash_table_add(names, name);
  }
  g_hash_table_destroy(seen);
  g_hash_table_destroy(names);
  g_array_sort(out, source_cmp);
  return out;
}

/* Read one file, its digest and its compressed bytes. */
static void source_read(ArchiveSource *s, gint64 build_time, bool have_sde)
{
  gchar *text = NULL;
  gsize len = 0;
  GError *err = NULL;
  if (!g_file_get_contents(s->path, &text, &len, &err)) {
    s->error = g_strdup(err->message);
    g_error_free(err);
    return;
  }
  struct stat st;
  s->time = have_sde || stat(s->path, &st) != 0 ? build_time : (gint64)st.st_mtime;
  s->len = len;
  GChecksum *sum = g_checksum_new(G_CHECKSUM_MD5);
  g_checksum_update(sum, (const guchar *)text, (gssize)len);
  g_strlcpy(s->md5, g_checksum_get_string(sum), sizeof s->md5);
  g_checksum_free(sum);
  for (char *p = s->md5; *p; p++)
    *p = g_ascii_toupper(*p);
  /* held until the PDF is written, compressed (the benchmark's sources
   * deflate to a third: 3 MB at the archive pass's peak) */
  s->data = pdfupdate_deflate(text, len);
  g_free(text);
}

static gpointer read_all(gpointer data)
{
  ArchiveSources *as = data;
  for (guint i = 0; i < as->srcs->len; i++)
    source_read(&g_array_index(as->srcs, ArchiveSource, i), as->build_time, as->have_sde);
  return NULL;
}

ArchiveSources *archive_sources_start(const Book *book, gint64 build_time, RunPlan *plan)
{
  ArchiveSources *as = g_new0(ArchiveSources, 1);
  as->srcs = book_sources(book);
  as->build_time = build_time;
  const char *sde = util_source_date_epoch();
  as->have_sde = sde && *sde;
  as->plan = plan;
  if (plan && plan->sources_thread && as->srcs->len)
    as->thread = runplan_spawn(plan, "octavo-sources", read_all, as);
  else
    read_all(as);
  return as;
}

const GArray *archive_sources_wait(ArchiveSources *as)
{
  if (as->thread) {
    runplan_join(as->plan, as->thread);
    as->thread = NULL;
  }
  return as->srcs;
}

void archive_sources_free(ArchiveSources *as)
{
  if (!as)
    return;
  archive_sources_wait(as);
  for (guint i = 0; i < as->srcs->len; i++) {
    ArchiveSource *s = &g_array_index(as->srcs, ArchiveSource, i);
    g_free(s->name);
    g_free(s->path);
    g_free(s->error);
    if (s->data)
      g_bytes_unref(s->data);
  }
  g_array_free(as->srcs, TRUE);
  g_free(as);
}
