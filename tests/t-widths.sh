#!/bin/sh
# t-widths.sh: the TrueType fonts' widths are their programs' (issue 30,
# src/archive_widths.c), so that readers place the glyphs where cairo did
# and justified lines end at the right margin
# (tests/tools/widths_check.py).
#
# cairo 1.16 writes a TrueType subset's /Widths and /W truncated to whole
# thousandths of an em; the archival pass writes each the advance of its
# glyph in the embedded program. For the seed through every way a PDF is
# made (the book; --pdf-standard none; the handout; the book again after
# cairo refused its tags) every simple and CID TrueType font's widths are
# its program's (read here with FreeType, octavo reads them with
# harfbuzz), and the book's justified lines end at the right edge as
# poppler's pdftotext places them. Both checks must refuse the book with its
# widths truncated back to cairo's. -j1 and -j4 write the same bytes.
set -u
for t in qpdf fix-qdf pdftotext python3; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
: "${OCTAVO:=build/octavo}" "${TOP:=$(pwd)}" "${TMPROOT:=$(mktemp -d)}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tool="$TOP/tests/tools/widths_check.py"
seed="$TOP/content/lsfmm-bpf-2023.md"
D="$TMPROOT/widths"
mkdir -p "$D"
export SOURCE_DATE_EPOCH=1

build() { # name args...
  name=$1; shift
  "$OCTAVO" -q "$seed" -o "$D/$name.pdf" "$@" 2>"$D/$name.err" || {
    bad "$name: octavo failed: $(cat "$D/$name.err")"; return 1; }
}
check() { # what name
  if out=$(python3 "$tool" "$1" "$D/$2.pdf" 2>&1); then
    echo "ok   $2 $1: $(echo "$out" | grep -c '^ok') fine"
  else
    bad "$2 $1:"; echo "$out" | grep -v '^ok'
  fi
}

build book -j1 && { check fonts book; check ends book; }
build none --pdf-standard none && check fonts none
build handout --layout handout && { check fonts handout; check ends handout; }
OCTAVO_TEST_REFUSE_TAGS=1 "$OCTAVO" "$seed" -o "$D/refused.pdf" 2>"$D/refused.err"
grep -q "cairo refused the structure tags" "$D/refused.err" || bad "refused: not drawn again"
check fonts refused

# the same bytes whatever the threads
build j4 -j4 && { cmp -s "$D/book.pdf" "$D/j4.pdf" || bad "-j1 and -j4 wrote other bytes"; }

# the checks fail on cairo's truncated widths
python3 "$tool" truncate "$D/book.pdf" "$D/truncated.pdf" || bad "cannot truncate the widths"
python3 "$tool" fonts "$D/truncated.pdf" >/dev/null 2>&1 &&
  bad "widths_check fonts passed truncated widths"
python3 "$tool" ends "$D/truncated.pdf" >/dev/null 2>&1 &&
  bad "widths_check ends passed lines placed by truncated widths"

[ $fail = 0 ] && echo "t-widths: ok"
exit $fail
