/* util.c: atomic output files, the data directory, the build time, PDF
 * destination names. */
#include "util.h"

#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An existing target that is not a regular file (/dev/null, a FIFO, a
 * terminal) is written into, never replaced by a rename: renaming over
 * /dev/null would turn the device into a regular file for everyone. */
static bool is_special(const char *path)
{
  struct stat st;
  return strcmp(path, "-") != 0 && stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
         !S_ISDIR(st.st_mode);
}

char *util_temp_beside(const char *path, GError **err)
{
  char *dir, *tmpl;
  if (strcmp(path, "-") == 0 || is_special(path)) {
    dir = g_strdup(g_get_tmp_dir());
    tmpl = g_build_filename(dir, "octavo-stdout-XXXXXX", NULL);
  } else {
    dir = g_path_get_dirname(path);
    char *base = g_path_get_basename(path);
    char *name = g_strdup_printf(".%s.tmp-XXXXXX", base);
    tmpl = g_build_filename(dir, name, NULL);
    g_free(base);
    g_free(name);
  }
  g_free(dir);
  int fd = g_mkstemp_full(tmpl, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    char *shown = strcmp(path, "-") == 0 ? g_strdup("standard output") : g_strdup(path);
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write %s: %s", shown,
                g_strerror(e));
    g_free(shown);
    g_free(tmpl);
    return NULL;
  }
  close(fd);
  return tmpl;
}

/* Copy the finished temporary file into out (standard output or a special
 * file), then remove it. */
static bool copy_out(const char *tmp, FILE *out, const char *shown, GError **err)
{
  char *data = NULL;
  gsize len = 0;
  bool ok = g_file_get_contents(tmp, &data, &len, err);
  if (ok && (fwrite(data, 1, len, out) != len || fflush(out) != 0)) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write %s: %s", shown,
                g_strerror(errno));
    ok = false;
  }
  g_free(data);
  unlink(tmp);
  return ok;
}

bool util_commit(const char *tmp, const char *path, GError **err)
{
  if (strcmp(path, "-") == 0)
    return copy_out(tmp, stdout, "standard output", err);
  if (is_special(path)) {
    FILE *f = fopen(path, "wb");
    if (!f) {
      int e = errno;
      g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write %s: %s", path,
                  g_strerror(e));
      unlink(tmp);
      return false;
    }
    bool ok = copy_out(tmp, f, path, err);
    if (fclose(f) != 0 && ok) {
      g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write %s: %s", path,
                  g_strerror(errno));
      ok = false;
    }
    return ok;
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write %s: %s", path,
                g_strerror(e));
    unlink(tmp);
    return false;
  }
  return true;
}

bool util_write_atomic(const char *path, const void *data, gsize len, GError **err)
{
  char *tmp = util_temp_beside(path, err);
  if (!tmp)
    return false;
  FILE *f = fopen(tmp, "wb");
  bool ok = f != NULL;
  if (ok && len && fwrite(data, 1, len, f) != len)
    ok = false;
  if (f && fclose(f) != 0)
    ok = false;
  if (!ok) {
    int e = errno;
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write %s: %s",
                strcmp(path, "-") == 0 ? "standard output" : path, g_strerror(e));
    unlink(tmp);
    g_free(tmp);
    return false;
  }
  ok = util_commit(tmp, path, err);
  g_free(tmp);
  return ok;
}

static bool has_data(const char *dir)
{
  char *f = g_build_filename(dir, "styles", "print.ini", NULL);
  bool ok = g_file_test(f, G_FILE_TEST_IS_REGULAR);
  g_free(f);
  return ok;
}

char *util_find_datadir(const char *argv0)
{
  const char *env = g_getenv("OCTAVO_DATADIR");
  if (env && *env)
    return g_strdup(env);
  char *exe = g_file_read_link("/proc/self/exe", NULL);
  if (!exe && argv0)
    exe = g_canonicalize_filename(argv0, NULL);
  if (exe) {
    char *bindir = g_path_get_dirname(exe);
    char *candidates[] = {
        g_build_filename(bindir, "..", NULL),                    /* build/octavo in the tree */
        g_build_filename(bindir, "..", "..", NULL),              /* build-asan/tests/... */
        g_build_filename(bindir, "..", "share", "octavo", NULL), /* installed */
    };
    char *found = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++) {
      if (!found && has_data(candidates[i]))
        found = g_canonicalize_filename(candidates[i], NULL);
      g_free(candidates[i]);
    }
    g_free(bindir);
    g_free(exe);
    if (found)
      return found;
  }
  /* A build outside the tree (make BUILD=/elsewhere) still finds the tree
   * it was built from; then the installed data. */
#ifdef OCTAVO_SRCDIR
  if (has_data(OCTAVO_SRCDIR))
    return g_strdup(OCTAVO_SRCDIR);
#endif
#ifdef OCTAVO_DATADIR
  return g_strdup(OCTAVO_DATADIR);
#else
  return g_strdup(".");
#endif
}

gint64 util_build_time(const char *fallback_date)
{
  const char *sde = g_getenv("SOURCE_DATE_EPOCH");
  if (sde && *sde) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(sde, &end, 10);
    if (errno == 0 && end && *end == '\0' && v >= 0 && v < 253402300800LL)
      return v;
  }
  if (fallback_date) {
    int y, m, d;
    if (sscanf(fallback_date, "%4d-%2d-%2d", &y, &m, &d) == 3 && g_date_valid_dmy(d, m, y)) {
      GDateTime *dt = g_date_time_new_utc(y, m, d, 0, 0, 0);
      if (dt) {
        gint64 t = g_date_time_to_unix(dt);
        g_date_time_unref(dt);
        return t;
      }
    }
  }
  return g_get_real_time() / G_USEC_PER_SEC;
}

char *util_pdf_dest_name(const char *id)
{
  /* printable ASCII but for % ( ) \ and the space (unreserved characters are
   * always kept) */
  return g_uri_escape_string(id, "!\"#$&'*+,/:;<=>?@[]^`{|}", FALSE);
}

void util_heap_init(void)
{
#if defined(M_TOP_PAD) && defined(MADV_HUGEPAGE)
  enum { PAD = 64 << 20, HUGE = 2 << 20 };
  if (!mallopt(M_TOP_PAD, PAD) || !mallopt(M_MMAP_THRESHOLD, 32 << 20) ||
      !mallopt(M_TRIM_THRESHOLD, 32 << 20))
    return;
  char *before = sbrk(0);
  void *volatile grow = malloc(1 << 20); /* more than the heap has free: it grows by PAD */
  free(grow);
  char *after = sbrk(0);
  if (before == (char *)-1 || after == (char *)-1 || after <= before)
    return;
  uintptr_t lo = ((uintptr_t)before + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
  uintptr_t hi = (uintptr_t)after & ~(uintptr_t)(HUGE - 1);
  if (hi > lo)
    madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* best effort: THP may be off */
#endif
}

void util_heap_release(void)
{
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}
