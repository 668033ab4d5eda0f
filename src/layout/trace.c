/* layout/trace.c: lay_trace, a text dump of a layout for golden tests and
 * --dump-layout. */
#include "layout/internal.h"

#include <math.h>

/* A page's vertical rules (block quotes' side rules: thin and taller than
 * wide), each run of touching pieces at one x merged into one, so that a
 * rule broken between blocks shows as two. */
typedef struct {
  double x, y0, y1;
} VRule;

static void trace_rules(GString *s, const LayPage *p)
{
  GArray *r = g_array_new(FALSE, FALSE, sizeof(VRule));
  for (guint k = 0; k < p->items->len; k++) {
    const LayItem *it = &g_array_index(p->items, LayItem, k);
    if (it->kind != LAY_RULE || it->w_pt >= 2 || it->h_pt <= it->w_pt)
      continue;
    gboolean merged = FALSE;
    for (guint q = 0; q < r->len && !merged; q++) {
      VRule *e = &g_array_index(r, VRule, q);
      if (fabs(e->x - it->x_pt) < 0.01 && fabs(e->y1 - it->y_pt) < 0.01) {
        e->y1 = it->y_pt + it->h_pt;
        merged = TRUE;
      }
    }
    if (!merged) {
      VRule e = {it->x_pt, it->y_pt, it->y_pt + it->h_pt};
      g_array_append_val(r, e);
    }
  }
  for (guint q = 0; q < r->len; q++) {
    VRule *e = &g_array_index(r, VRule, q);
    g_string_append_printf(s, "  rule x=%.1f y=%.1f..%.1f\n", e->x, e->y0, e->y1);
  }
  g_array_free(r, TRUE);
}

char *lay_trace(const Layout *lay)
{
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
          g_string_append_printf(s, "%s  y=%.1f x=%.1f |", y > -1e9 ? "|\n" : "", it->y_pt,
                                 it->x_pt);
          y = it->y_pt;
        }
        g_string_append(s, it->text);
      } else if (it->kind == LAY_IMAGE) {
        g_string_append_printf(s, "%s  image %.1f,%.1f %.1fx%.1f\n", y > -1e9 ? "|\n" : "",
                               it->x_pt, it->y_pt, it->w_pt, it->h_pt);
        y = -1e9;
      }
    }
    if (y > -1e9)
      g_string_append(s, "|\n");
    trace_rules(s, p);
  }
  return g_string_free(s, FALSE);
}
