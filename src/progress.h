/* progress.h: one updating line on a terminal while a long build runs.
 *
 * Shown on stderr only when stderr is a terminal, the build is not quiet
 * and CI is not set, and only once the build has run for half a second: a
 * short build prints nothing. Stages report what they have done; the line
 * is redrawn at most ten times a second and erased at the end. */
#ifndef OCTAVO_PROGRESS_H
#define OCTAVO_PROGRESS_H

#include <stdbool.h>

/* Decide once whether progress is shown (quiet: -q) and start the clock.
 * OCTAVO_PROGRESS_AFTER_MS overrides the half-second delay (tests). */
void progress_init(bool quiet);
/* The current step: "parsing", "laying out", "writing EPUB", ...; total is
 * the number of units it has (0 when unknown: a count without a bar). */
void progress_step(const char *what, long total);
/* done units of the current step are finished. */
void progress_update(long done);
/* Erase the line (before diagnostics are printed, and at the end). */
void progress_clear(void);

#endif
