/* frontahead.h: the front end's slow, self-contained work done on a
 * thread beside the parsing (issue 30): the check that an image decodes
 * (book_image_decodes: libpng, gdk-pixbuf) and a code block's tokens
 * (hl_code: tree-sitter). Each job is a pure function of what it copied
 * when queued (a file's real path and kind; a block's info string and
 * text), queued as each source is parsed; its answer is taken where it was
 * always computed (resolve.c's image_resource, hl_book), in the same
 * order, by the main thread, which does a job itself when the other
 * thread has not begun it and, at the end, works through the queue beside
 * it. The warnings, their order and the books' bytes are those of a run
 * without it.
 *
 * Threads: the one thread is the run plan's (RunPlan.front_thread,
 * runplan_spawn); without it (no plan, -j1) nothing is queued and every
 * answer is computed where it is asked for. Only the main thread calls
 * these functions.
 */
#ifndef OCTAVO_FRONTAHEAD_H
#define OCTAVO_FRONTAHEAD_H

#include "book.h"
#include "highlight.h"
#include "runplan.h"

typedef struct FrontAhead FrontAhead;

/* The thread started, when plan has a front thread; else NULL (every
 * function below accepts NULL: nothing ahead). */
FrontAhead *front_ahead_start(RunPlan *plan);

/* Whether the check of the image at real (a real path) is queued. */
bool front_ahead_has_image(const FrontAhead *fa, const char *real);
/* Queue the check that the image at real, of kind, decodes to its end
 * (book_image_decodes); a path queued already is not queued again, one of
 * kind BOOK_IMAGE_NONE (nothing to check) only remembered. */
void front_ahead_image(FrontAhead *fa, const char *real, BookImageKind kind);
/* Queue the tokens of code block n (hl_code on copies of its info string
 * and text); with highlighting off, queue none. */
void front_ahead_code(FrontAhead *fa, const BookNode *n);

/* book_image_decodes(real, kind, why), its answer taken from the queue
 * when the same check was queued (waiting for it, or doing it now when it
 * has not begun). */
bool front_ahead_decodes(FrontAhead *fa, const char *real, BookImageKind kind, char **why);

/* Every job queued done (the main thread doing its share) and the thread
 * joined; then the tokens are taken by hl_book: front_ahead_hl and
 * front_ahead_tokens (an HlAhead, ud the FrontAhead). */
void front_ahead_finish(FrontAhead *fa);
/* The main thread's highlighter (its queries shared with the thread), or
 * NULL without a FrontAhead. */
Hl *front_ahead_hl(FrontAhead *fa);
bool front_ahead_tokens(void *fa, const BookNode *code, HlCode *out);

/* Finish (if not yet) and free. Accepts NULL. */
void front_ahead_free(FrontAhead *fa);

#endif
