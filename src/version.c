/* version.c: octavo's version and the versions of the libraries it runs on.
 * Each library is asked at run time where it can say (a newer shared
 * library may be loaded than the headers built against); libhyphen has no
 * such call, so its Debian package version comes from the build. */
#include "version.h"

#include <cairo.h>
#include <cmark-gfm.h>
#include <fontconfig/fontconfig.h>
#include <hb.h>
#include <libxml/parser.h>
#include <pango/pango.h>
#include <stdlib.h>
#include <yaml.h>
#include <zip.h>

#ifndef OCTAVO_HYPHEN_VERSION
#define OCTAVO_HYPHEN_VERSION "unknown"
#endif

void octavo_version_text(GString *out)
{
  g_string_append_printf(out, "octavo %s\n", OCTAVO_VERSION);
  int fc = FcGetVersion();
  /* xmlParserVersion is the loaded library's "21004"-style number. */
  long xml = strtol(xmlParserVersion, NULL, 10);
  g_string_append_printf(out,
                         "  cmark-gfm  %s\n"
                         "  libxml2    %ld.%ld.%ld\n"
                         "  libzip     %s\n"
                         "  cairo      %s\n"
                         "  pango      %s\n"
                         "  harfbuzz   %s\n"
                         "  fontconfig %d.%d.%d\n"
                         "  glib       %u.%u.%u\n"
                         "  libyaml    %s\n"
                         "  libhyphen  %s\n",
                         cmark_version_string(), xml / 10000, xml / 100 % 100, xml % 100,
                         zip_libzip_version(), cairo_version_string(), pango_version_string(),
                         hb_version_string(), fc / 10000, fc / 100 % 100, fc % 100,
                         glib_major_version, glib_minor_version, glib_micro_version,
                         yaml_get_version_string(), OCTAVO_HYPHEN_VERSION);
}
