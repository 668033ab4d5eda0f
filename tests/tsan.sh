#!/bin/sh
# tests/tsan.sh: the threaded tests under ThreadSanitizer (make tsan-check).
# t-threads and t-stream with a -fsanitize=thread octavo, then every corpus
# book (tests/corpus/*/book.list) built with -j4 into an EPUB and a PDF
# (the chapter pool, the drawing thread, the EPUB's thread, the
# preloaders and the sources' thread all running). A report makes octavo
# exit 66, so a test or a build with one fails; the reports are printed.
# tests/tsan.supp names the library-internal reports and why they are not
# octavo's. Env: OCTAVO (default build-tsan/octavo), BUILD, BOOKS (the
# corpus books: default all).
set -u
: "${OCTAVO:=build-tsan/octavo}" "${BUILD:=build-tsan}"
TOP=$(pwd)
case $OCTAVO in /*) ;; *) OCTAVO=$TOP/$OCTAVO ;; esac
[ -x "$OCTAVO" ] || { echo "FAIL: no $OCTAVO"; exit 1; }
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/octavo-tsan.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT
# GSlice (GLib 2.74) hands memory freed on one thread to another under a
# GMutex TSan cannot see: plain malloc instead (TSan sees malloc and free).
export G_SLICE=always-malloc
# ignore_noninstrumented_modules=1: the races looked for are octavo's, in
# its own (instrumented) code and the libc calls it makes itself; what the
# uninstrumented libraries do inside, on threads of their own too (pango's
# "[pango] FcFontSetSort", whose stacks end in GLib and which no
# suppression can name), is ordered by locks TSan cannot see. What still
# shows of the libraries is named in tests/tsan.supp.
export TSAN_OPTIONS="suppressions=$TOP/tests/tsan.supp ignore_noninstrumented_modules=1 log_path=$ROOT/tsan exitcode=66 second_deadlock_stack=1 ${TSAN_EXTRA:-}"
export OCTAVO BUILD TOP
fail=0 t0=$(date +%s)
for t in threads stream; do
  s=$(date +%s)
  mkdir "$ROOT/t-$t"
  if TMPROOT="$ROOT/t-$t" sh "tests/t-$t.sh" >"$ROOT/t-$t.log" 2>&1; then
    echo "PASS t-$t ($(($(date +%s) - s)) s)"
  else
    echo "FAIL t-$t ($(($(date +%s) - s)) s)"; tail -n 5 "$ROOT/t-$t.log" | sed 's/^/    /'; fail=1
  fi
done
books=${BOOKS:-$(cd tests/corpus && for d in */; do [ -f "$d/book.list" ] && echo "${d%/}"; done)}
mkdir "$ROOT/corpus"
for b in $books; do
  s=$(date +%s)
  # shellcheck disable=SC2046 # book.args and book.list are word lists
  if (cd "tests/corpus/$b" && SOURCE_DATE_EPOCH=1 "$OCTAVO" -q -j4 $(cat book.args 2>/dev/null) \
      $(grep -v '^#' book.list) -o "$ROOT/corpus/$b.epub" -o "$ROOT/corpus/$b.pdf") >"$ROOT/corpus/$b.log" 2>&1; then
    echo "PASS corpus $b -j4 ($(($(date +%s) - s)) s)"
  else
    echo "FAIL corpus $b -j4 (exit $?)"; tail -n 5 "$ROOT/corpus/$b.log" | sed 's/^/    /'; fail=1
  fi
done
if ls "$ROOT"/tsan.* >/dev/null 2>&1; then
  echo "ThreadSanitizer reports:"
  cat "$ROOT"/tsan.* | grep '^SUMMARY' | sort | uniq -c | sort -rn
  for f in "$ROOT"/tsan.*; do head -n 60 "$f"; break; done
  fail=1
fi
echo "tsan-check: $(($(date +%s) - t0)) s"
exit $fail
