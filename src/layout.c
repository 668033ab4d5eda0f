/* layout.c: placeholder until this stage is written. */
#include "layout.h"

Layout *lay_book(Book *book, const OctavoOptions *opts) { return NULL; }
void lay_free(Layout *lay) {}
