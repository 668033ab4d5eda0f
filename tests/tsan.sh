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
# build_book B: corpus book B with -j4; its reports in $ROOT/tsan-B.PID.
build_book() {
  # shellcheck disable=SC2046 # book.args and book.list are word lists
  (cd "tests/corpus/$1" && TSAN_OPTIONS="$TSAN_OPTIONS log_path=$ROOT/tsan-$1" SOURCE_DATE_EPOCH=1 \
    "$OCTAVO" -q -j4 $(cat book.args 2>/dev/null) $(grep -v '^#' book.list) \
    -o "$ROOT/corpus/$1.epub" -o "$ROOT/corpus/$1.pdf") >"$ROOT/corpus/$1.log" 2>&1
}
# runtime_only B: did B's run stop on TSan's own runtime failing to map its
# shadow memory (seen once in 37 runs of one book, errno 12), with no report
# about octavo at all? Only then is the book built once more; a report, or
# the same failure twice, fails as ever.
runtime_only() {
  grep -qs 'ThreadSanitizer failed to allocate\|ThreadSanitizer can not mmap' "$ROOT"/tsan-"$1".* \
    "$ROOT/corpus/$1.log" &&
    ! grep -qs 'WARNING: ThreadSanitizer\|^SUMMARY' "$ROOT"/tsan-"$1".* "$ROOT/corpus/$1.log"
}
for b in $books; do
  s=$(date +%s)
  if build_book "$b"; then
    echo "PASS corpus $b -j4 ($(($(date +%s) - s)) s)"
  elif rc=$? && runtime_only "$b"; then
    mkdir -p "$ROOT/runtime" && { mv "$ROOT"/tsan-"$b".* "$ROOT/runtime/" 2>/dev/null || :; }
    echo "RETRY corpus $b -j4 (exit $rc: $(grep -hs -m1 'ThreadSanitizer failed to allocate\|ThreadSanitizer can not mmap' \
      "$ROOT"/runtime/tsan-"$b".* "$ROOT/corpus/$b.log" | head -n 1))"
    s=$(date +%s)
    if build_book "$b"; then
      echo "PASS corpus $b -j4, second run ($(($(date +%s) - s)) s)"
    else
      echo "FAIL corpus $b -j4, second run (exit $?)"; tail -n 5 "$ROOT/corpus/$b.log" | sed 's/^/    /'; fail=1
    fi
  else
    echo "FAIL corpus $b -j4 (exit $rc)"; tail -n 5 "$ROOT/corpus/$b.log" | sed 's/^/    /'; fail=1
  fi
done
if ls "$ROOT"/tsan[.-]* >/dev/null 2>&1; then
  echo "ThreadSanitizer reports:"
  cat "$ROOT"/tsan[.-]* | grep '^SUMMARY' | sort | uniq -c | sort -rn
  for f in "$ROOT"/tsan[.-]*; do head -n 60 "$f"; break; done
  fail=1
fi
echo "tsan-check: $(($(date +%s) - t0)) s"
exit $fail
