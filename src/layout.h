/* layout.h: document model -> pages of positioned glyph runs, rules, images,
 * links and destinations. Plain data: no cairo calls. */
#ifndef OCTAVO_LAYOUT_H
#define OCTAVO_LAYOUT_H

#include "book.h"
#include "options.h"

typedef struct Layout Layout;

/* Lay out the book for print. Records where each page starts in
 * book->page_marks. Returns NULL with a diagnostic in book on failure. */
Layout *lay_book(Book *book, const OctavoOptions *opts);
/* Free a layout. Accepts NULL. */
void lay_free(Layout *lay);

#endif
