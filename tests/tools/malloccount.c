/* malloccount.c: how many times a program calls malloc, calloc, realloc,
 * posix_memalign/aligned_alloc/memalign and free, printed to stderr
 * (or to $MALLOCCOUNT_OUT, appended) when it exits. Not part of octavo:
 * a measuring tool (issue 30's "malloc counts before and after").
 *
 *   cc -O2 -shared -fPIC -o /tmp/malloccount.so tests/tools/malloccount.c
 *   LD_PRELOAD=/tmp/malloccount.so build/octavo -o x.pdf book.md
 *
 * glibc only: it forwards to __libc_malloc and friends, so that it needs
 * no dlsym (which itself allocates). Counts are atomic: threads too. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_ulong n_malloc, n_calloc, n_realloc, n_align, n_free, bytes;

void *malloc(size_t n)
{
  atomic_fetch_add_explicit(&n_malloc, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&bytes, n, memory_order_relaxed);
  return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
  atomic_fetch_add_explicit(&n_calloc, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&bytes, a * b, memory_order_relaxed);
  return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
  atomic_fetch_add_explicit(&n_realloc, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&bytes, n, memory_order_relaxed);
  return __libc_realloc(p, n);
}

void *memalign(size_t al, size_t n)
{
  atomic_fetch_add_explicit(&n_align, 1, memory_order_relaxed);
  return __libc_memalign(al, n);
}

void *aligned_alloc(size_t al, size_t n)
{
  return memalign(al, n);
}

int posix_memalign(void **out, size_t al, size_t n)
{
  void *p = memalign(al, n);
  if (!p)
    return 12; /* ENOMEM */
  *out = p;
  return 0;
}

void free(void *p)
{
  if (p)
    atomic_fetch_add_explicit(&n_free, 1, memory_order_relaxed);
  __libc_free(p);
}

__attribute__((destructor)) static void report(void)
{
  char line[256];
  unsigned long all = n_malloc + n_calloc + n_realloc + n_align;
  int len = snprintf(line, sizeof line,
                     "malloccount: pid %ld allocs %lu (malloc %lu calloc %lu realloc %lu "
                     "aligned %lu) frees %lu bytes %lu\n",
                     (long)getpid(), all, (unsigned long)n_malloc, (unsigned long)n_calloc,
                     (unsigned long)n_realloc, (unsigned long)n_align, (unsigned long)n_free,
                     (unsigned long)bytes);
  const char *out = getenv("MALLOCCOUNT_OUT");
  FILE *f = out ? fopen(out, "a") : NULL;
  if (f) {
    fputs(line, f);
    fclose(f);
  } else if (len > 0) {
    ssize_t w = write(2, line, (size_t)len);
    (void)w;
  }
}
