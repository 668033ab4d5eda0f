#!/bin/sh
# tests/run.sh: runs every unit test binary and every shell test, JOBS at a
# time (default: the number of cores), then prints "N passed, N failed".
# Environment: OCTAVO (the binary), BUILD (build dir), JOBS.
# A test is a file tests/t-*.sh (exit 0 pass, 77 skip, else fail) or a cmocka
# binary $BUILD/tests/test_*. Each test gets its own TMPROOT, so tests that
# run side by side never share a file.

# one NAME COMMAND...: runs one test in its own directory and writes its exit
# status to $ROOT_DIR/NAME.rc; prints its result line.
if [ "$1" = one ]; then
  name=$2; shift 2
  TMPROOT="$ROOT_DIR/$name.d"; mkdir -p "$TMPROOT"; export TMPROOT
  start=$(date +%s)
  if "$@" >"$ROOT_DIR/$name.log" 2>&1; then rc=0; else rc=$?; fi
  secs=$(($(date +%s) - start))
  echo $rc >"$ROOT_DIR/$name.rc"
  case $rc in
  0) echo "PASS $name (${secs} s)" ;;
  77) echo "SKIP $name" ;;
  *) echo "FAIL $name (exit $rc, ${secs} s)"
     [ -s "$TMPROOT/show" ] || tail -n 30 "$ROOT_DIR/$name.log" | sed 's/^/    /' ;;
  esac
  # a test's table to show whatever the result (t-quality.sh)
  if [ "$rc" != 77 ] && [ -s "$TMPROOT/show" ]; then sed 's/^/    /' "$TMPROOT/show"; fi
  rm -rf "$TMPROOT"
  exit 0
fi

: "${OCTAVO:=build/octavo}" "${BUILD:=build}"
: "${JOBS:=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"
export OCTAVO BUILD
OCTAVO=$(cd "$(dirname "$OCTAVO")" && pwd)/$(basename "$OCTAVO"); export OCTAVO
TOP=$(pwd); export TOP
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/octavo-tests.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT

# The list, longest first (measured), so the two slowest do not end up last.
{
  for t in tests/t-valgrind.sh tests/t-quality.sh tests/t-hostile.sh tests/t-typography.sh tests/t-corpus.sh tests/t-*.sh; do
    [ -f "$t" ] && echo "$(basename "$t" .sh) sh $t"
  done | awk '!seen[$1]++'
  for t in "$BUILD"/tests/test_*; do
    case "$t" in *.d) continue ;; esac
    [ -x "$t" ] && echo "$(basename "$t") $t"
  done
} >"$ROOT/list"
export ROOT_DIR="$ROOT"
# xargs runs each line as "sh tests/run.sh one NAME COMMAND..."
xargs -P "$JOBS" -L 1 sh "$0" one <"$ROOT/list"

pass=0; fail=0; skip=0; failed=""
while read -r name _; do
  rc=$(cat "$ROOT/$name.rc" 2>/dev/null || echo 1)
  case $rc in
  0) pass=$((pass + 1)) ;;
  77) skip=$((skip + 1)) ;;
  *) fail=$((fail + 1)); failed="$failed $name" ;;
  esac
done <"$ROOT/list"
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped ($JOBS at a time)"
[ $fail -eq 0 ]
