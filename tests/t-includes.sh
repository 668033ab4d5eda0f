#!/bin/sh
# t-includes.sh: src/README.md's "may call" column is the #include graph
# (every '#include "…"' between modules listed, none more), and every file
# in src/ is in one row of its table (tests/tools/may_call.py); and the state
# a run keeps is what its "Threads, locks and the state a run keeps" says
# (tests/tools/state_check.py, over the sources and $BUILD/obj's objects):
# threads started by runplan.c only, no GLib lock, no atexit but main.c's,
# every mutable static (local ones too) in the README's table.
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
out=$(python3 "$TOP/tests/tools/may_call.py" "$TOP/src/README.md") || {
  echo "FAIL: src/README.md's table does not match the includes:"; echo "$out"; exit 1; }
# the check fails on a wrong row (the tool is not a no-op)
cp "$TOP/src/README.md" "$TMPROOT/README.md"
mkdir -p "$TMPROOT/layout"
sed 's/^| main.c | \([^|]*\)| [^|]*|/| main.c | \1| book.h |/' "$TOP/src/README.md" >"$TMPROOT/README.md"
for f in "$TOP"/src/*.[ch] "$TOP"/src/layout/*.[ch]; do
  case $f in */layout/*) ln -s "$f" "$TMPROOT/layout/" ;; *) ln -s "$f" "$TMPROOT/" ;; esac
done
python3 "$TOP/tests/tools/may_call.py" "$TMPROOT/README.md" | grep -q '^main.c: may call "book.h"' ||
  { echo "FAIL: may_call.py did not see a wrong row"; exit 1; }

case $BUILD in /*) obj="$BUILD/obj" ;; *) obj="$TOP/$BUILD/obj" ;; esac
out=$(python3 "$TOP/tests/tools/state_check.py" "$TOP/src" "$obj") || {
  echo "FAIL: the state a run keeps is not src/README.md's:"; echo "$out"; exit 1; }
# the check fails on a static counter, a thread started elsewhere, a GLib lock
st="$TMPROOT/state"
mkdir -p "$st/src" "$st/obj"
ln -s "$TOP"/src/* "$st/src/"
for o in "$obj"/*.o; do ln -s "$o" "$st/obj/"; done
printf 'static int counter;\nint extra_count(void) { return ++counter; }\n' >"$st/src/extra.c"
${CC:-cc} -c -o "$st/obj/extra.o" "$st/src/extra.c" || { echo "FAIL: cannot compile the probe"; exit 1; }
printf '/* GMutex in a comment */ static GMutex m; void g(void) { g_thread_new("t", 0, 0); }\n' >"$st/src/extra.h"
out=$(python3 "$TOP/tests/tools/state_check.py" "$st/src" "$st/obj") && {
  echo "FAIL: state_check.py passed a static counter"; exit 1; }
for want in "^extra.c: mutable file-scope 'counter'" "^extra.h:1: starts a thread" "^extra.h:1: GLib's GMutex"; do
  echo "$out" | grep -q "$want" || { echo "FAIL: state_check.py did not say '$want':"; echo "$out"; exit 1; }
done
[ "$(echo "$out" | wc -l)" = 3 ] || { echo "FAIL: state_check.py said more than the probe's three:"; echo "$out"; exit 1; }
echo ok
