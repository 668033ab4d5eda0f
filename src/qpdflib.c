/* qpdflib.c: libqpdf through GModule (see qpdflib.h): opened once, kept
 * open, its functions looked up into the table the calls go through. */
#define QPDFLIB_TABLE_ONLY
#include "qpdflib.h"

#include <gmodule.h>
#include <stdlib.h>
#include <pthread.h>

/* The soname of the libqpdf the build found (Makefile), else Debian 12's. */
#ifndef OCTAVO_QPDF_SONAME
#define OCTAVO_QPDF_SONAME "libqpdf.so.29"
#endif

QpdfLib qpdflib;


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

/* pthread_once, not GOnce: a race checker sees what POSIX's once orders. */
static pthread_once_t opened_once = PTHREAD_ONCE_INIT;
static const char *open_failure;
static void open_qpdf(void)
{
  open_failure = open_once(NULL);
}

bool qpdflib_open(GError **err)
{
  pthread_once(&opened_once, open_qpdf);
  const char *why = open_failure;
  if (why)
    g_set_error_literal(err, G_FILE_ERROR, G_FILE_ERROR_NOENT, why);
  return why == NULL;
}

static gpointer preload(gpointer unused)
{
  qpdflib_open(NULL);
  return NULL;
}

void qpdflib_preload(RunPlan *plan)
{
  runplan_spawn(plan, "octavo-qpdf", preload, NULL); /* joined by runplan_end */
}
