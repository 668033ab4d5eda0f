/* layout/trace.c: lay_trace, a text dump of a layout for golden tests and
 * --dump-layout. */
#include "layout/internal.h"

#include <math.h>

char *lay_trace(const Layout *lay) {
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "paper %.1f x %.1f, %u pages\n", lay->page_w_pt, lay->page_h_pt,
                         lay->pages->len);
  for (guint i = 0; i < lay->pages->len; i++) {
    const LayPage *p = lay->pages->pdata[i];
    g_string_append_printf(s, "page %u [%s]\n", i + 1, p->label ? p->label : "");
    double y = -1e9;
    for (guint k = 0; k < p->items->len; k++) {
      const LayItem *it = &g_array_index(p->items, LayItem, k);
      if (it->kind == LAY_GLYPHS) {
        if (fabs(it->y_pt - y) > 3) {
          g_string_append_printf(s, "%s  y=%.1f x=%.1f |", y > -1e9 ? "|\n" : "", it->y_pt, it->x_pt);
          y = it->y_pt;
        }
        g_string_append(s, it->text);
      } else if (it->kind == LAY_IMAGE) {
        g_string_append_printf(s, "%s  image %.1f,%.1f %.1fx%.1f\n", y > -1e9 ? "|\n" : "", it->x_pt,
                               it->y_pt, it->w_pt, it->h_pt);
        y = -1e9;
      }
    }
    if (y > -1e9)
      g_string_append(s, "|\n");
  }
  return g_string_free(s, FALSE);
}
