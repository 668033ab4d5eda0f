#!/bin/sh
# tests/run.sh: runs every unit test binary and every shell test, then prints
# "N passed, N failed". Environment: OCTAVO (the binary), BUILD (build dir).
# A test is a file tests/t-*.sh (exit 0 pass, 77 skip, else fail) or a cmocka
# binary $BUILD/tests/test_*.
: "${OCTAVO:=build/octavo}" "${BUILD:=build}"
export OCTAVO BUILD
OCTAVO=$(cd "$(dirname "$OCTAVO")" && pwd)/$(basename "$OCTAVO"); export OCTAVO
TOP=$(pwd); export TOP
TMPROOT=$(mktemp -d "${TMPDIR:-/tmp}/octavo-tests.XXXXXX"); export TMPROOT
trap 'rm -rf "$TMPROOT"' EXIT
pass=0; fail=0; skip=0; failed=""
run() { # name, command...
  name=$1; shift
  log="$TMPROOT/$name.log"
  if "$@" >"$log" 2>&1; then rc=0; else rc=$?; fi
  if [ $rc -eq 0 ]; then pass=$((pass+1)); echo "PASS $name"
  elif [ $rc -eq 77 ]; then skip=$((skip+1)); echo "SKIP $name"
  else fail=$((fail+1)); failed="$failed $name"; echo "FAIL $name (exit $rc)"; tail -n 30 "$log" | sed 's/^/    /'; fi
}
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  case "$t" in *.d) continue;; esac
  run "$(basename "$t")" "$t"
done
for t in tests/t-*.sh; do
  [ -f "$t" ] || continue
  run "$(basename "$t" .sh)" sh "$t"
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
