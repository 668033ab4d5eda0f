/* util.c: atomic output files, the data directory, the build time, PDF
 * destination names. */
#include "util.h"

#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pthread.h>

/* An existing target that is not a regular file (/dev/null, a FIFO, a
 * terminal) is written into, never replaced by a rename: renaming over
 * /dev/null would turn the device into a regular file for everyone. */
static bool is_special(const char *path)
{
  struct stat st;
  return strcmp(path, "-") != 0 && stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
         !S_ISDIR(st.st_mode);
}

/* ---- temporary files ----
 *
 * An output is written into a temporary file beside it and renamed into
 * place when it is whole, so that a failed or killed build never leaves a
 * half-written output. The temporary file itself must not outlive the
 * process either:
 *
 * - Where the file system can (O_TMPFILE: ext4, xfs, btrfs, tmpfs), it
 *   has no name while it is written: the kernel frees it when the process
 *   ends, however it ends. Writers reach it by the name
 *   /proc/self/fd/N (fopen, cairo, GMappedFile all open it there), and
 *   util_commit links it into the folder (linkat) under a temporary name,
 *   which it renames over the output at once.
 * - Elsewhere (or without /proc) it is a named file, .NAME.tmp-XXXXXX.
 *
 * Either way the file is locked (flock) for as long as the process that
 * writes it lives, and every build of an output first removes the
 * .NAME.tmp-* files beside it that no process holds and that were last
 * written STALE_SECONDS ago or more: what a killed build left there (in
 * the named case, or in the moment between link and rename), and files of
 * older octavos. The age spares a file another build has just created and
 * not yet locked. */

enum { STALE_SECONDS = 10 };

/* The open temporary files: name (as given to the writer) -> fd + 1. */
static pthread_mutex_t temps_lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *temps;

static void temp_register(const char *name, int fd)
{
  pthread_mutex_lock(&temps_lock);
  if (!temps)
    temps = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_insert(temps, g_strdup(name), GINT_TO_POINTER(fd + 1));
  pthread_mutex_unlock(&temps_lock);
}

/* The fd of temporary file name (and forget it when take), or -1. */
static int temp_fd(const char *name, bool take)
{
  pthread_mutex_lock(&temps_lock);
  int fd = temps ? GPOINTER_TO_INT(g_hash_table_lookup(temps, name)) - 1 : -1;
  if (take && fd >= 0)
    g_hash_table_remove(temps, name);
  pthread_mutex_unlock(&temps_lock);
  return fd;
}

/* Is name (a file name in a folder) one of the temporary files of the
 * output named base: ".BASE.tmp-" and at least six more characters? */
static bool is_temp_of(const char *name, const char *base)
{
  size_t n = strlen(base);
  return name[0] == '.' && strncmp(name + 1, base, n) == 0 &&
         strncmp(name + 1 + n, ".tmp-", 5) == 0 && strlen(name + 1 + n + 5) >= 6;
}

/* Remove the temporary files of the output at path that no living process
 * holds (see above). Quietly: they are no one's. */
static void remove_stale(const char *path)
{
  char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
  GDir *d = g_dir_open(dir, 0, NULL);
  const char *name;
  gint64 now = g_get_real_time() / G_USEC_PER_SEC;
  while (d && (name = g_dir_read_name(d))) {
    if (!is_temp_of(name, base))
      continue;
    char *full = g_build_filename(dir, name, NULL);
    int fd = open(full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st, now_st;
    /* unlocked, a regular file, old enough, and still the file at that
     * name once locked (no one replaced it meanwhile) */
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 &&
        S_ISREG(st.st_mode) && now - st.st_mtime >= STALE_SECONDS &&
        lstat(full, &now_st) == 0 && now_st.st_ino == st.st_ino && now_st.st_dev == st.st_dev)
      unlink(full);
    if (fd >= 0)
      close(fd);
    g_free(full);
  }
  if (d)
    g_dir_close(d);
  g_free(dir);
  g_free(base);
}

char *util_temp_beside(const char *path, GError **err)
{
  bool beside = strcmp(path, "-") != 0 && !is_special(path);
  char *dir = beside ? g_path_get_dirname(path) : g_strdup(g_get_tmp_dir());
  if (beside)
    remove_stale(path);
  char *tmpl = NULL;
  /* unnamed, where the file system and /proc allow it */
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  if (fd >= 0) {
    tmpl = g_strdup_printf("/proc/self/fd/%d", fd);
    if (access(tmpl, W_OK) != 0) { /* no /proc */
      close(fd);
      fd = -1;
      g_clear_pointer(&tmpl, g_free);
    }
  }
  if (fd < 0) {
    if (beside) {
      char *base = g_path_get_basename(path);
      char *name = g_strdup_printf(".%s.tmp-XXXXXX", base);
      tmpl = g_build_filename(dir, name, NULL);
      g_free(base);
      g_free(name);
    } else {
      tmpl = g_build_filename(dir, "octavo-stdout-XXXXXX", NULL);
    }
    fd = g_mkstemp_full(tmpl, O_RDWR | O_CLOEXEC, 0644);
  }
  g_free(dir);
  if (fd < 0) {
    int e = errno;
    char *shown = strcmp(path, "-") == 0 ? g_strdup("standard output") : g_strdup(path);
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write %s: %s", shown,
                g_strerror(e));
    g_free(shown);
    g_free(tmpl);
    return NULL;
  }
  (void)flock(fd, LOCK_EX); /* held until the process ends: see remove_stale */
  temp_register(tmpl, fd);
  return tmpl;
}

void util_temp_discard(const char *tmp)
{
  int fd = temp_fd(tmp, true);
  if (!g_str_has_prefix(tmp, "/proc/self/fd/"))
    unlink(tmp);
  if (fd >= 0)
    close(fd);
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
    if (out == stdout)
      util_stdout_drop();
  }
  g_free(data);
  util_temp_discard(tmp);
  return ok;
}

void util_stdout_drop(void)
{
  __fpurge(stdout);
  clearerr(stdout);
}

/* Give the unnamed temporary file tmp the name path: linked under a new
 * temporary name beside path (linkat cannot replace), then renamed over
 * it. */
static int link_into_place(const char *tmp, const char *path)
{
  char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
  int e = 0;
  for (int tries = 0; tries < 100; tries++) {
    char *name = g_strdup_printf("%s/.%s.tmp-%08x%08x", dir, base, g_random_int(), g_random_int());
    if (linkat(AT_FDCWD, tmp, AT_FDCWD, name, AT_SYMLINK_FOLLOW) != 0) {
      e = errno;
      g_free(name);
      if (e == EEXIST)
        continue;
      break;
    }
    e = rename(name, path) == 0 ? 0 : errno;
    if (e)
      unlink(name);
    g_free(name);
    break;
  }
  g_free(dir);
  g_free(base);
  return e;
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
      util_temp_discard(tmp);
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
  int e = g_str_has_prefix(tmp, "/proc/self/fd/") ? link_into_place(tmp, path)
          : rename(tmp, path) == 0                 ? 0
                                                   : errno;
  util_temp_discard(tmp);
  if (e) {
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot write %s: %s", path,
                g_strerror(e));
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
    util_temp_discard(tmp);
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

static bool sde_taken;
static char *sde_value; /* lives until exit */

void util_env_take(void)
{
  sde_value = g_strdup(g_getenv("SOURCE_DATE_EPOCH"));
  sde_taken = true;
  g_unsetenv("SOURCE_DATE_EPOCH");
}

const char *util_source_date_epoch(void)
{
  return sde_taken ? sde_value : g_getenv("SOURCE_DATE_EPOCH");
}

gint64 util_build_time(const char *fallback_date)
{
  const char *sde = util_source_date_epoch();
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
