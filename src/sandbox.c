/* sandbox.c: the one door through which octavo reads a book's files (see
 * sandbox.h). What it does: resolves a path with realpath() (every
 * symbolic link on the way), checks it against the roots, opens only
 * regular files (O_NONBLOCK, so that a FIFO swapped in after the check
 * still never blocks; O_NOFOLLOW on the resolved path), bounds what it
 * reads, and remembers each file by device and inode. What it does not do:
 * decide what a file is for, or say where a message goes (callers do). */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct Sandbox {
  GPtrArray *roots;  /* char *, real paths */
  GHashTable *files; /* "dev:ino" of each file let through -> NULL */
  gint64 text_max, text_used;
};

Sandbox *sandbox_new(gint64 text_max)
{
  Sandbox *sb = g_new0(Sandbox, 1);
  sb->roots = g_ptr_array_new_with_free_func(free);
  sb->files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  sb->text_max = text_max > 0 ? text_max : SANDBOX_TEXT_MAX_DEFAULT;
  return sb;
}

void sandbox_set_text_max(Sandbox *sb, gint64 text_max)
{
  sb->text_max = text_max > 0 ? text_max : SANDBOX_TEXT_MAX_DEFAULT;
}

void sandbox_free(Sandbox *sb)
{
  if (!sb)
    return;
  g_ptr_array_free(sb->roots, TRUE);
  g_hash_table_destroy(sb->files);
  g_free(sb);
}

bool sandbox_add_root(Sandbox *sb, const char *dir)
{
  char *real = realpath(dir, NULL);
  struct stat st;
  if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
    free(real);
    return false;
  }
  for (guint i = 0; i < sb->roots->len; i++)
    if (strcmp(sb->roots->pdata[i], real) == 0) {
      free(real);
      return true;
    }
  g_ptr_array_add(sb->roots, real);
  return true;
}

void sandbox_add_roots(Sandbox *sb, const char *search_path)
{
  if (!search_path)
    return;
  char **dirs = g_strsplit(search_path, G_SEARCHPATH_SEPARATOR_S, -1);
  for (char **d = dirs; *d; d++)
    if (**d)
      sandbox_add_root(sb, *d);
  g_strfreev(dirs);
}

static bool under(const char *real, const char *root)
{
  size_t n = strlen(root);
  if (n == 1 && root[0] == '/')
    return true;
  return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

static char *file_key(const struct stat *st)
{
  return g_strdup_printf("%ju:%ju", (uintmax_t)st->st_dev, (uintmax_t)st->st_ino);
}

static void remember(Sandbox *sb, const struct stat *st)
{
  g_hash_table_add(sb->files, file_key(st));
}

static bool in_roots(const Sandbox *sb, const char *real)
{
  for (guint i = 0; i < sb->roots->len; i++)
    if (under(real, sb->roots->pdata[i]))
      return true;
  return false;
}

bool sandbox_contains(const Sandbox *sb, const char *path)
{
  char *abs = g_canonicalize_filename(path, NULL);
  char *r = realpath(abs, NULL);
  g_free(abs);
  bool in = r && in_roots(sb, r);
  free(r);
  return in;
}

/* The verdict on a path; its real path in *real when it may be read. */
static SandboxVerdict judge(const Sandbox *sb, const char *path, char **real, struct stat *st)
{
  *real = NULL;
  char *abs = g_canonicalize_filename(path, NULL);
  char *r = realpath(abs, NULL);
  g_free(abs);
  if (!r)
    return SANDBOX_MISSING;
  if (!in_roots(sb, r)) {
    free(r);
    return SANDBOX_OUTSIDE;
  }
  if (stat(r, st) != 0) {
    free(r);
    return SANDBOX_MISSING;
  }
  if (!S_ISREG(st->st_mode)) {
    free(r);
    return SANDBOX_NOT_REGULAR;
  }
  *real = g_strdup(r);
  free(r);
  return SANDBOX_OK;
}

char *sandbox_resolve(Sandbox *sb, const char *path, SandboxVerdict *verdict)
{
  char *real;
  struct stat st;
  SandboxVerdict v = judge(sb, path, &real, &st);
  if (v == SANDBOX_OK)
    remember(sb, &st);
  if (verdict)
    *verdict = v;
  return real;
}

char *sandbox_peek(const Sandbox *sb, const char *path, SandboxVerdict *verdict)
{
  char *real;
  struct stat st;
  SandboxVerdict v = judge(sb, path, &real, &st);
  if (verdict)
    *verdict = v;
  return real;
}

const char *sandbox_verdict_text(SandboxVerdict v)
{
  switch (v) {
  case SANDBOX_MISSING: return "does not exist";
  case SANDBOX_OUTSIDE: return "is outside the book's folder";
  case SANDBOX_NOT_REGULAR: return "is not a regular file";
  default: return "can be read";
  }
}

/* Open real (already judged) read-only, without blocking and without
 * following a link put there since; -1 with *err set. */
static int open_regular(const char *real, const char *shown, struct stat *st, GError **err)
{
  int fd = open(real, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    int e = errno;
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot read %s: %s", shown,
                g_strerror(e));
    return -1;
  }
  if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is not a regular file", shown);
    close(fd);
    return -1;
  }
  return fd;
}

static bool refuse(SandboxVerdict v, const char *shown, GError **err)
{
  g_set_error(err, G_FILE_ERROR, v == SANDBOX_MISSING ? G_FILE_ERROR_NOENT : G_FILE_ERROR_PERM,
              "%s %s", shown, sandbox_verdict_text(v));
  return false;
}

/* Read fd whole, at most max bytes. */
static bool read_fd(int fd, const char *shown, const struct stat *st, gsize max, char **data,
                    gsize *len, GError **err)
{
  if ((guint64)st->st_size > max) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s is %jd bytes; the limit is %zu", shown,
                (intmax_t)st->st_size, max);
    return false;
  }
  GString *s = g_string_sized_new((gsize)st->st_size + 1);
  char buf[65536];
  for (;;) {
    ssize_t got = read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int e = errno;
      g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot read %s: %s", shown,
                  g_strerror(e));
      g_string_free(s, TRUE);
      return false;
    }
    if (got == 0)
      break;
    if (s->len + (gsize)got > max) { /* it grew while read */
      g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s is over %zu bytes, the limit", shown,
                  max);
      g_string_free(s, TRUE);
      return false;
    }
    g_string_append_len(s, buf, got);
  }
  *len = s->len;
  *data = g_string_free(s, FALSE);
  return true;
}

bool sandbox_read(Sandbox *sb, const char *path, const char *shown, gsize max, char **data,
                  gsize *len, char **real_out, GError **err)
{
  char *real;
  struct stat st;
  SandboxVerdict v = judge(sb, path, &real, &st);
  if (v != SANDBOX_OK)
    return refuse(v, shown, err);
  int fd = open_regular(real, shown, &st, err);
  bool ok = fd >= 0 && read_fd(fd, shown, &st, max ? max : SANDBOX_FILE_MAX, data, len, err);
  if (fd >= 0) {
    remember(sb, &st);
    close(fd);
  }
  if (ok && real_out)
    *real_out = real;
  else
    g_free(real);
  return ok;
}

FILE *sandbox_open(Sandbox *sb, const char *path, const char *shown, char **real_out, GError **err)
{
  char *real;
  struct stat st;
  SandboxVerdict v = judge(sb, path, &real, &st);
  if (v != SANDBOX_OK) {
    refuse(v, shown, err);
    return NULL;
  }
  int fd = open_regular(real, shown, &st, err);
  FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
  if (fd >= 0 && !f) {
    int e = errno;
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot read %s: %s", shown,
                g_strerror(e));
    close(fd);
  }
  if (f) {
    remember(sb, &st);
    if (real_out) {
      *real_out = real;
      real = NULL;
    }
  }
  g_free(real);
  return f;
}

bool sandbox_take_text(Sandbox *sb, gsize len)
{
  if ((gint64)len > sb->text_max - sb->text_used)
    return false;
  sb->text_used += (gint64)len;
  return true;
}

gint64 sandbox_text_max(const Sandbox *sb)
{
  return sb->text_max;
}

bool sandbox_read_known(const Sandbox *sb, const char *real, char **data, gsize *len, GError **err)
{
  char *r;
  struct stat st;
  SandboxVerdict v = judge(sb, real, &r, &st);
  if (v != SANDBOX_OK)
    return refuse(v, real, err);
  char *key = file_key(&st);
  bool known = g_hash_table_contains(sb->files, key);
  g_free(key);
  g_free(r);
  if (!known) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM, "%s was not read with the book", real);
    return false;
  }
  int fd = open_regular(real, real, &st, err);
  bool ok = fd >= 0 && read_fd(fd, real, &st, SANDBOX_FILE_MAX, data, len, err);
  if (fd >= 0)
    close(fd);
  return ok;
}

void sandbox_note(Sandbox *sb, const char *path)
{
  struct stat st;
  if (path && stat(path, &st) == 0)
    remember(sb, &st);
}

bool sandbox_holds(const Sandbox *sb, const char *path)
{
  struct stat st;
  if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0)
    return false;
  char *key = file_key(&st);
  bool held = g_hash_table_contains(sb->files, key);
  g_free(key);
  return held;
}
