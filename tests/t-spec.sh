#!/bin/sh
# t-spec.sh: octavo's own Markdown behaviours, one file per feature in
# tests/spec/*.txt (cmark's spec format: Markdown, ".", the exact HTML of
# `octavo -t html -o -`), run by tests/tools/spec_run.py. No skip: a missing
# spec file or one without examples fails.
set -u
: "${TOP:=$(pwd)}" "${OCTAVO:=build/octavo}"
set -- "$TOP"/tests/spec/*.txt
[ -f "$1" ] || { echo "FAIL: no tests/spec/*.txt"; exit 1; }
python3 "$TOP/tests/tools/spec_run.py" "$OCTAVO" "$@"
