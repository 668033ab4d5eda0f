#!/bin/sh
# t-rtl.sh: right-to-left lines stay inside the text block and start at the
# right (issue 16). tests/books/fonts/rtl-overflow.md (one justified Arabic
# paragraph) must fill the measure exactly: every line ends at the right
# edge and every line but the last starts at the left edge;
# tests/books/fonts/rtl-mixed.md (a Hebrew heading, an Arabic paragraph with
# an English word and a link, an English paragraph with Hebrew and Arabic
# phrases, an Arabic list and quote) must keep every word inside the text
# block and end its right-to-left lines at the right edge. Measured on the
# drawn text with pdftotext -bbox-layout (tests/tools/bbox_check.py), in
# A4 and in two-column Letter.
set -u
for t in pdftotext qpdf python3; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
: "${OCTAVO:=build/octavo}" "${TOP:=$(pwd)}" "${TMPROOT:=$(mktemp -d)}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
check() { # mode name args...
  mode=$1 name=$2; shift 2
  pdf="$TMPROOT/rtl-$name.pdf"
  "$OCTAVO" -q "$@" -o "$pdf" 2> "$TMPROOT/rtl-$name.err" || { bad "$name: octavo failed"; cat "$TMPROOT/rtl-$name.err"; return; }
  # shellcheck disable=SC2086 # mode may carry --columns 2
  if out=$(python3 "$TOP/tests/tools/bbox_check.py" $mode "$pdf" 2>&1); then
    echo "ok   $name: $(echo "$out" | tail -n 1)"
  else
    bad "$name: $out"
  fi
}
B="$TOP/tests/books/fonts"
check justified overflow "$B/rtl-overflow.md"
check rtl mixed "$B/rtl-mixed.md"
check "--columns 2 rtl" mixed-letter-2col --paper letter --columns 2 "$B/rtl-mixed.md"
exit $fail
