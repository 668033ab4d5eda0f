#!/bin/sh
# t-includes.sh: src/README.md's "may call" column is the #include graph
# (every '#include "…"' between modules listed, none more), and every file
# in src/ is in one row of its table (tests/tools/may_call.py).
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
echo ok
