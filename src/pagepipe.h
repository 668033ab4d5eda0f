/* pagepipe.h: a LaySink that runs another sink on a thread of its own, so
 * that the pages the layout driver (lay_drive) finishes are drawn while the next ones
 * are laid out (-j 2 and more). See pagepipe.c for why it is thread safe. */
#ifndef OCTAVO_PAGEPIPE_H
#define OCTAVO_PAGEPIPE_H

#include "book.h"
#include "layout.h"
#include "runplan.h"

typedef struct PagePipe PagePipe;

/* Start the drawing thread (plan's: runplan_spawn), which runs inner (its page function) on each
 * page the pipe's sink is given, in order; the caller's thread is the
 * layout's. book takes the drawing thread's diagnostics when the caller's
 * thread captures none (book_diag_capture). verbose: page_pipe_finish says
 * on stderr how each thread spent its time. Finish with page_pipe_finish. */
PagePipe *page_pipe_start(RunPlan *plan, Book *book, const LaySink *inner, bool verbose);

/* The sink to hand lay_drive: each page is made ready for the
 * drawing thread and queued (the layout waits while 16 pages are). */
LaySink page_pipe_sink(PagePipe *pp);

/* Wait until every page queued is drawn, end the drawing thread, put its
 * diagnostics where a one-thread run gives them (into the caller's
 * capture, among the layout's) and free the pipe. Accepts NULL. */
void page_pipe_finish(PagePipe *pp);

#endif
