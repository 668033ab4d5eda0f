/* progress.c: the terminal progress line. One line, redrawn in place with a
 * carriage return and erased with "\r\033[K" at the end; never written when
 * stderr is not a terminal. */
#include "progress.h"

#include <glib.h>
#include <stdio.h>
#include <unistd.h>

#define SHOW_AFTER_US (G_USEC_PER_SEC / 2)
#define REDRAW_US (G_USEC_PER_SEC / 10)
#define BAR_WIDTH 24

static struct {
  bool enabled, shown;
  gint64 start, last, after;
  const char *what;
  long total, done;
} P;

void progress_init(bool quiet)
{
  P.enabled = !quiet && isatty(STDERR_FILENO) && !g_getenv("CI");
  P.shown = false;
  P.start = g_get_monotonic_time();
  /* OCTAVO_PROGRESS_AFTER_MS: how long a build runs before the line shows
   * (500 ms; the tests set 0 to see it on a short build). */
  const char *after = g_getenv("OCTAVO_PROGRESS_AFTER_MS");
  P.after = after ? g_ascii_strtoll(after, NULL, 10) * 1000 : SHOW_AFTER_US;
  P.last = 0;
  P.what = NULL;
}

static void draw(void)
{
  char bar[BAR_WIDTH + 1];
  if (P.total > 0) {
    long fill = P.done >= P.total ? BAR_WIDTH : P.done * BAR_WIDTH / P.total;
    for (int i = 0; i < BAR_WIDTH; i++)
      bar[i] = i < fill ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r\033[Koctavo: %s [%s] %ld/%ld", P.what, bar, P.done, P.total);
  } else {
    fprintf(stderr, "\r\033[Koctavo: %s %ld", P.what, P.done);
  }
  fflush(stderr);
  P.shown = true;
}

static void maybe_draw(void)
{
  if (!P.enabled || !P.what)
    return;
  gint64 now = g_get_monotonic_time();
  if (now - P.start < P.after || (P.last && now - P.last < REDRAW_US))
    return;
  P.last = now;
  draw();
}

void progress_step(const char *what, long total)
{
  P.what = what;
  P.total = total;
  P.done = 0;
  P.last = 0; /* a new step is drawn at once (once the delay has passed) */
  maybe_draw();
}

void progress_update(long done)
{
  P.done = done;
  maybe_draw();
}

void progress_clear(void)
{
  if (P.shown) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
    P.shown = false;
    P.last = 0;
  }
}
