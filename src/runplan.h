/* runplan.h: the run decided once, from the options, the outputs and the
 * machine: which outputs, which layout passes, which threads do what. The
 * number of threads, and with it the front end's thread, is decided before
 * parsing (runplan_begin); the rest once the book is parsed
 * (runplan_settle). A plain value (RunPlan) that -v prints and a test
 * asserts, and the one owner of the threads a run starts: every other
 * module asks it for a thread (runplan_spawn) and gives it back
 * (runplan_join); what is still running at the run's end (a preloader, a
 * cover drawn ahead but never asked for) is joined by runplan_end, not by
 * atexit. */
#ifndef OCTAVO_RUNPLAN_H
#define OCTAVO_RUNPLAN_H

#include <glib.h>
#include <stdbool.h>

/* What a run wants, as main.c reads it from the command line and the
 * book (the inputs of runplan_decide). */
typedef struct {
  unsigned epubs, pdfs, others; /* outputs: EPUBs, PDFs, (X)HTML files */
  bool page_list;               /* the EPUB's print page list (--no-page-list: false) */
  bool handout;                 /* --layout handout: the sections run on */
  bool preview, dump_layout;    /* --preview DIR, --dump-layout */
  bool attach_source;           /* the PDF's archive pass embeds the sources */
  bool toc;                     /* --toc: the handout prints its contents */
  unsigned chapters;            /* the book's flows in print (lay_flows): chapters that
                                 * open a page, which threads can set side by side */
  bool cover_given;             /* the book gives its cover (Book.cover): none to draw */
  bool identifier_given;        /* the book gives its identifier: none to digest */
  int threads;                  /* -j, else OCTAVO_THREADS: 1 or more; 0: neither, the plan
                                 * decides from the machine (cpus, load) */
  int cpus;                     /* the CPUs the process may run on (runplan_probe) */
  double load;                  /* how many of them other work keeps busy (runplan_probe) */
} RunWant;

/* How the print pages are laid out. */
typedef enum {
  RUN_LAY_NONE,      /* no layout: no PDF, no page list, no dump */
  RUN_LAY_PAGE_LIST, /* the EPUB's page list only: the page breaks, nothing drawn */
  RUN_LAY_WHOLE,     /* the whole book laid out, then drawn (several PDFs, --preview, --dump-layout) */
  RUN_LAY_STREAM     /* one PDF laid out as it is drawn, each page released once drawn */
} RunLayout;

typedef struct RunThread RunThread;

typedef struct RunPlan {
  RunWant want;        /* as asked, with want.threads the number decided */
  bool threads_chosen; /* want.threads was 0: decided from cpus and load */
  /* the layout */
  RunLayout layout;
  bool marks;   /* the streamed PDF hands its page marks to the EPUB's page list */
  bool counted; /* the handout streamed or for the page list: a counting pass first (its
                 * page count, its contents' numbers, its marks) */
  int passes;   /* the layout passes the run makes (at least: a handout's contents that
                 * lose entries once numbered are counted again; cairo's refused tags
                 * lay a streamed PDF out again): -v's "layout passes" says how many */
  /* the threads, beside the main one (which lays out and draws) */
  bool front_thread;   /* while the book is parsed, its images checked and its code
                        * highlighted on a thread beside (frontahead.c): decided with
                        * the threads, before the book is known */
  bool identifier_thread; /* the print colophon's identifier (a digest of the whole book)
                           * made on a thread while the style, fonts and colophon are */
  bool epub_thread;    /* the EPUBs written on a thread beside the PDF */
  bool draw_thread;    /* a streamed PDF's pages drawn on a thread of their own */
  int helpers;         /* threads the drawn (or kept) layout pass may use beside its own */
  int count_helpers;   /* the same for a counting pass (nothing drawn meanwhile) */
  int chapter_threads; /* a book's chapters set ahead on this many threads (pool.c) */
  bool shape_ahead;    /* else the paragraphs shaped ahead on one thread (ahead.c) */
  bool hyphen_preload; /* the hyphenation patterns loaded while the fonts load */
  bool qpdf_preload;   /* libqpdf opened while the book is laid out */
  bool cover_ahead;    /* the EPUB's cover drawn while the book is laid out (octavo's) */
  bool sources_thread; /* the archive pass's sources read beside qpdf's work */
  /* what the run did: the layout passes made (a pass: the book, or the
   * handout, laid out once from its first page to its last, counted or
   * drawn; runplan_count_pass), read at the run's end (-v: "layout
   * passes: N") */
  int layout_passes; /* atomic */
  /* the run's own state, which its modules are given (no file-scope
   * variable): the hyphenation dictionaries (hyphenate.h), made and freed
   * by main.c (after runplan_end: a preloader may be loading into them) */
  struct Hyphenator *hyphenator;
  /* the threads started and what the run keeps until its end (runplan.c) */
  struct RunRegistry *reg;
} RunPlan;

/* The plan for want. want->threads >= 1 is taken as it is (-j N means N);
 * 0 is runplan_threads(want->cpus, want->load). The plan's want.threads is
 * the number decided. A pure function of want: the machine is read by
 * runplan_probe, before. Free with runplan_end. The same as runplan_begin
 * then runplan_settle with want. */
RunPlan *runplan_decide(const RunWant *want);

/* Before parsing: the plan's threads decided from want's threads, cpus and
 * load (as runplan_decide does), and the front end's thread
 * (front_thread); threads may be started. The rest waits for the book. */
RunPlan *runplan_begin(const RunWant *want);
/* Once the book is parsed: the rest of the plan from want (its outputs and
 * the book's; its threads, cpus and load are the plan's already). */
void runplan_settle(RunPlan *plan, const RunWant *want);

/* The threads for a run given the CPUs it may use and the load other work
 * puts on them: one per CPU not busy, a CPU counted busy when more than
 * half of it is (cpus - round(load), at least 1, at most cpus): two free
 * cores give two threads, a load of 0.5 or more on two give one, where a
 * second thread would wait for a core and hold memory for nothing. */
int runplan_threads(int cpus, double load);

/* The machine as the plan sees it, into want->cpus and want->load: the
 * CPUs of the process's affinity mask (sched_getaffinity), and the load of
 * others: the smaller of the last minute's load average and the runnable
 * tasks at this moment less this process's own (/proc/loadavg's fourth field), so
 * that a run just ended (the average still high, nothing running now) or a
 * short burst (something running now, the average low) does not take a
 * free core away. Without /proc/loadavg, getloadavg's average alone. */
void runplan_probe(RunWant *want);

/* The plan in words, one "key=value" line per group, each line starting
 * with "octavo: plan: " and ending with a newline (what -v prints). Free
 * with g_free. */
char *runplan_describe(const RunPlan *plan);

/* Start fn(arg) on a thread named name, recorded in plan: joined by
 * runplan_join, else by runplan_end. Never NULL (GLib aborts when no
 * thread can be made). Any thread may call it. */
RunThread *runplan_spawn(RunPlan *plan, const char *name, GThreadFunc fn, gpointer arg);

/* Wait for t to end and return what its function returned; t is done
 * with. Any thread may call it, once per thread (never holding fontlock:
 * it is held only inside shape.c, shaper.c, paint.c, cover.c, imagelibs.c
 * and pagepipe.c's readying, none of which waits). */
gpointer runplan_join(RunPlan *plan, RunThread *t);

/* Keep data until the run's end under key (one per key; a second put of
 * a key frees the first's data): free(data) is called by runplan_end
 * before the threads still running are joined, or by whoever takes it. */
void runplan_keep(RunPlan *plan, const char *key, gpointer data, GDestroyNotify free);
/* The data kept under key, no longer kept (the caller frees it), or NULL. */
gpointer runplan_take(RunPlan *plan, const char *key);

/* One more layout pass made (any thread; plan NULL: none counted). */
void runplan_count_pass(RunPlan *plan);
/* The layout passes made so far. */
int runplan_passes(const RunPlan *plan);

/* The threads plan started with name, in all (for -v and the tests). */
unsigned runplan_started(const RunPlan *plan, const char *name);

/* The run's end: what is kept freed (runplan_keep), every thread not yet
 * joined joined, the plan freed. Accepts NULL. */
void runplan_end(RunPlan *plan);

#endif
