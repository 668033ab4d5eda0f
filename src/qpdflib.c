/* qpdflib.c: libqpdf through GModule (see qpdflib.h): opened once, kept
 * open, its functions looked up into the table the calls go through. */
#define QPDFLIB_TABLE_ONLY
#include "qpdflib.h"

#include <gmodule.h>
#include <stdlib.h>

/* The soname of the libqpdf the build found (Makefile), else Debian 12's. */
#ifndef OCTAVO_QPDF_SONAME
#define OCTAVO_QPDF_SONAME "libqpdf.so.29"
#endif

QpdfLib qpdflib;

static GMutex lock;
static GThread *preloader;

/* NULL, or why libqpdf cannot be used (static). */
static gpointer open_once(gpointer unused)
{
  GModule *m = g_module_open(OCTAVO_QPDF_SONAME, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (!m)
    return g_strdup_printf("cannot open %s: %s", OCTAVO_QPDF_SONAME, g_module_error());
  gpointer p;
#define QPDFLIB_LOOKUP(name)                                                                       \
  if (!g_module_symbol(m, #name, &p) || !p) {                                                      \
    g_module_close(m);                                                                             \
    return g_strdup_printf("%s has no %s", OCTAVO_QPDF_SONAME, #name);                             \
  }                                                                                                \
  qpdflib.name = (__typeof__(qpdflib.name))p;
  QPDFLIB_CALLS(QPDFLIB_LOOKUP)
#undef QPDFLIB_LOOKUP
  g_module_make_resident(m);
  return NULL;
}

bool qpdflib_open(GError **err)
{
  static GOnce once = G_ONCE_INIT;
  const char *why = g_once(&once, open_once, NULL);
  if (why)
    g_set_error_literal(err, G_FILE_ERROR, G_FILE_ERROR_NOENT, why);
  return why == NULL;
}

static gpointer preload(gpointer unused)
{
  qpdflib_open(NULL);
  return NULL;
}

static void join_preloader(void)
{
  g_mutex_lock(&lock);
  GThread *t = preloader;
  preloader = NULL;
  g_mutex_unlock(&lock);
  if (t)
    g_thread_join(t);
}

void qpdflib_preload(void)
{
  g_mutex_lock(&lock);
  if (!preloader) {
    preloader = g_thread_new("octavo-qpdf", preload, NULL);
    atexit(join_preloader);
  }
  g_mutex_unlock(&lock);
}
