#!/bin/sh
# t-margins.sh: lines stay inside the text block (issue 16), measured on the
# drawn text with pdftotext -bbox-layout (tests/tools/bbox_check.py).
#
# Right-to-left lines stay inside and start at the right. tests/books/fonts/rtl-overflow.md (one justified Arabic
# paragraph) must fill the measure exactly: every line ends at the right
# edge and every line but the last starts at the left edge;
# tests/books/fonts/rtl-mixed.md (a Hebrew heading, an Arabic paragraph with
# an English word and a link, an English paragraph with Hebrew and Arabic
# phrases, an Arabic list and quote) must keep every word inside the text
# block, end its right-to-left lines at the right edge or, in a list or a
# quote, short of it by the mirrored indent, with each list mark at the
# right of its line (the old build drew them at the left); in A4 and in
# two-column Letter; tests/layout/rtl-list.md (Hebrew numbered, nested and
# task lists and a quote) too.
#
# A word broken at a last resort is measured with the mark drawn at its end
# in the font it is drawn in: tests/books/margins/code-mark.md (a word that
# starts in prose and goes on in code; the old build measured the mark in
# the prose font and drew a wider one: 2 pt past the margin in A5).
set -u
for t in pdftotext qpdf python3; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
: "${OCTAVO:=build/octavo}" "${TOP:=$(pwd)}" "${TMPROOT:=$(mktemp -d)}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
check() { # mode name args...
  mode=$1 name=$2; shift 2
  pdf="$TMPROOT/margins-$name.pdf"
  "$OCTAVO" -q "$@" -o "$pdf" 2> "$TMPROOT/margins-$name.err" || { bad "$name: octavo failed"; cat "$TMPROOT/margins-$name.err"; return; }
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
check rtl rtl-list-a5 --paper a5 "$TOP/tests/layout/rtl-list.md"
check "--columns 2 rtl" rtl-list-2col --paper letter --columns 2 "$TOP/tests/layout/rtl-list.md"
for paper in a4 a5 letter; do
  check inside "code-mark-$paper" --paper $paper "$TOP/tests/books/margins/code-mark.md"
done
exit $fail
