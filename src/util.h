/* util.h: small helpers every writer shares: atomic output files and the
 * data directory. */
#ifndef OCTAVO_UTIL_H
#define OCTAVO_UTIL_H

#include <glib.h>
#include <stdbool.h>

/* A new temporary file for the output `path`, created empty and locked
 * (for "-" or a device: in the system temporary directory). Where the
 * file system allows, it has no name (O_TMPFILE): the name returned is
 * /proc/self/fd/N, which fopen, cairo and GMappedFile open like any other;
 * else it is .NAME.tmp-XXXXXX beside the output. First removes the
 * .NAME.tmp-* files beside the output that no living process holds (left
 * by a killed build) and that are 10 s old or more. Returns the name to
 * write to (caller frees; util_commit or util_temp_discard ends it), or
 * NULL with *err set. Thread-safe. */
char *util_temp_beside(const char *path, GError **err);

/* Move a finished temporary file into place: rename (or link) it to
 * `path`, or for "-" copy it to standard output. Either way the temporary
 * file is then gone; on failure `path` is untouched and *err is set. */
bool util_commit(const char *tmp, const char *path, GError **err);

/* Remove a temporary file of util_temp_beside that will not be committed. */
void util_temp_discard(const char *tmp);

/* After a write error to standard output that was reported: what is
 * still buffered is dropped and the error cleared, so that the check at
 * exit (main.c) does not report it again. */
void util_stdout_drop(void);

/* Write data to path atomically (temporary file, then util_commit). */
bool util_write_atomic(const char *path, const void *data, gsize len, GError **err);

/* The directory that holds fonts/ and styles/: $OCTAVO_DATADIR, else the
 * source tree beside the executable (build/octavo -> .), else the installed
 * share/octavo. Returns a string the caller frees. */
char *util_find_datadir(const char *argv0);

/* SOURCE_DATE_EPOCH as the run was started with (NULL when unset): what
 * octavo's readers of it read, never the environment itself, because
 * util_env_take() has taken it out of the environment for the run. */
const char *util_source_date_epoch(void);

/* Start-up, before any thread: SOURCE_DATE_EPOCH kept for
 * util_source_date_epoch() and removed from the environment, so that of
 * the libraries only fontconfig, its one reader, no longer sees it:
 * fontconfig writes a font directory's cache dated SOURCE_DATE_EPOCH and
 * then finds that cache older than the directory on every run, so it scans
 * the fonts again (octavo's own fonts/: 14 M instructions, a third of a
 * millisecond to a few; every fallback directory when the cache was
 * first made under it: 0.1 s more per run). The outputs are the same.
 * Without it, util_source_date_epoch() reads the environment (tests). */
void util_env_take(void);

/* The current time for outputs: SOURCE_DATE_EPOCH when set and valid, else
 * `fallback` (a YYYY-MM-DD date, may be NULL), else now. UTC seconds. */
gint64 util_build_time(const char *fallback_date);

/* The PDF name of the destination for an id of the book (UTF-8): the id
 * itself when it is printable ASCII without %, (, ) and \, else with each
 * such byte written %XX. cairo 1.16 writes a link's /Dest as a text string
 * (UTF-16 when it is not ASCII) but the name tree's key as the raw bytes,
 * unescaped: a non-ASCII name matched no destination (mupdf: "undefined link
 * destination"), and a ( ) or \ would break the file. Every writer of a
 * destination, a link or a lookup by name goes through this. Caller frees. */
char *util_pdf_dest_name(const char *id);

/* Start-up: glibc's malloc tuned once for the whole run. The main heap
 * grows in one step of 64 MiB (M_TOP_PAD; blocks under 32 MiB come from
 * it, M_MMAP_THRESHOLD), advised as transparent huge pages; a heap's free
 * top goes back to the kernel only past 32 MiB (M_TRIM_THRESHOLD). With
 * two threads each madvise or munmap also flushes the other CPU's TLB
 * (the 1 MB book's PDF at -j2: 22,000 page faults against 13,500, 20-30%
 * more CPU). On the VMs octavo is measured on a first touch costs 0.4-0.9
 * ms per MiB in 4 KiB pages and 0.1-9 ms per MiB in huge pages (the high
 * end when the host backs the page anew: free pages reported to the host
 * by virtio-balloon): the huge pages' zeroing is the kernel's largest
 * share of a big book (clear_page, up to 0.4 s of the 10 MB book's 11 s
 * at -j1), and still they pay: paired runs without the advice took 2-3%
 * more CPU on the seed and the 2 MB bench book and 0-1% more on the 10 MB
 * one (more user time: TLB misses), and advising 128 MiB instead 0.5%
 * less on the 10 MB book (n=4, within noise; issue 30). Freed memory is
 * still given back once the PDF is drawn (malloc_trim in pdf.c; without
 * it the 2 MB book takes 2,000 fewer faults, the same CPU and 7 MB more).
 * Call first thing in main(); does nothing where malloc or THP differ. */
void util_heap_init(void);

/* Give what is free in the heap back to the kernel (malloc_trim): once
 * a stage that held much is over. */
void util_heap_release(void);

#endif
