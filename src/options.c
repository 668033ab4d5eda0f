/* options.c: the defaults of every option, for main.c and for programs
 * (tests, fuzzers) that drive the stages without the command line. */
#include "options.h"

#include <string.h>

void octavo_options_init(OctavoOptions *o) {
  memset(o, 0, sizeof *o);
  o->split_level = 2;
  o->toc_depth = 2;
  o->embed_fonts = true;
  o->page_list = true;
  o->paper = "a4";
  o->columns = 1;
  o->linebreak = "optimal";
  o->link_notes = "foot";
  o->pdf_standard = "a-3u,ua-1";
  o->attach_source = true;
}
