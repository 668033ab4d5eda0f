/* version.h: what octavo runs on, as pandoc's --version tells it. */
#ifndef OCTAVO_VERSION_H
#define OCTAVO_VERSION_H

#include <glib.h>

/* "octavo VERSION" and one line per library with the version it runs on
 * (the shared library's own answer where it has one, else the version it
 * was built against), appended to out. */
void octavo_version_text(GString *out);

#endif
