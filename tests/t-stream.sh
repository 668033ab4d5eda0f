#!/bin/sh
# t-stream.sh: the PDF drawn as it is laid out (issue 15; since issue 32 print_pdf and lay_drive streamed,
# the contents drawn last and moved after the title page
# by the archive pass) is the book the whole layout draws. A PDF written
# alone (or beside an EPUB, which waits for its page marks) is streamed;
# with --dump-layout the layout is made whole first and drawn by pdf_write
# (in the same order). For each
# book and options the two must be the same bytes, and (so that a
# difference shows where) have: the same pages drawn pixel for pixel
# (poppler), the same links, outline, page labels and structure tree in
# the same order (tests/tools/pdfa_check.py same), a clean qpdf --check;
# and the streamed one must be reproducible (two builds, -j1 and -j2) and
# show its contents on page 2. Also with --pdf-standard none, where the
# move is the whole update.
set -u
for t in qpdf pdftoppm pdftotext python3; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
tool="$TOP/tests/tools/pdfa_check.py"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
export SOURCE_DATE_EPOCH=1700000000
cd "$TMPROOT" || exit 1

same_pages() { # name a.pdf b.pdf
  rm -f "st-$1-a"-*.pgm "st-$1-b"-*.pgm
  pdftoppm -r 36 -gray "$2" "st-$1-a" && pdftoppm -r 36 -gray "$3" "st-$1-b" || { bad "$1: pdftoppm"; return; }
  na=$(ls "st-$1-a"-*.pgm | wc -l) nb=$(ls "st-$1-b"-*.pgm | wc -l)
  [ "$na" = "$nb" ] || { bad "$1: $na pages against $nb"; return; }
  for f in "st-$1-a"-*.pgm; do
    cmp -s "$f" "st-$1-b${f#"st-$1-a"}" || bad "$1: page ${f##*-} drawn differently"
  done
}

check() { # name, octavo arguments...
  name=$1; shift
  "$OCTAVO" -q -j1 --dump-layout "$@" -o "st-$name-whole.pdf" >/dev/null || { bad "$name: whole layout failed"; return; }
  "$OCTAVO" -q -j1 "$@" -o "st-$name.pdf" || { bad "$name: streamed failed"; return; }
  "$OCTAVO" -q -j2 "$@" -o "st-$name-2.pdf" || bad "$name: streamed -j2 failed"
  cmp -s "st-$name.pdf" "st-$name-2.pdf" || bad "$name: -j1 and -j2 differ"
  "$OCTAVO" -q -j1 "$@" -o "st-$name-again.pdf" && cmp -s "st-$name.pdf" "st-$name-again.pdf" ||
    bad "$name: two streamed builds differ"
  cmp -s "st-$name-whole.pdf" "st-$name.pdf" || bad "$name: not the bytes of the whole layout's PDF"
  qpdf --check "st-$name.pdf" 2>&1 | grep -q "No syntax or stream encoding errors" || bad "$name: qpdf --check"
  python3 "$tool" same "st-$name-whole.pdf" "st-$name.pdf" >/dev/null ||
    bad "$name: links, outline, labels or structure differ from the whole layout's"
  same_pages "$name" "st-$name-whole.pdf" "st-$name.pdf"
  pdftotext -f 2 -l 2 "st-$name.pdf" - | grep -q "Contents" || bad "$name: page 2 is not the contents"
  echo "$name: streamed = whole"
}

S="$TOP/content/lsfmm-bpf-2023.md"
M="$TOP/tests/books/multi/01-intro.md $TOP/tests/books/multi/02-features.md $TOP/tests/books/multi/03-long.md"
check seed --smart "$S"
check seed-none --pdf-standard none "$S"
check seed-a5-N --paper a5 -N "$S"
# shellcheck disable=SC2086
check multi-2col $M --columns 2 -N --link-notes end
# shellcheck disable=SC2086
check multi-none $M --pdf-standard none
check xref "$TOP"/tests/books/xref/one.md "$TOP"/tests/books/xref/two.md
# a real book (images, a long contents), chapters only in the contents
E="$TOP/tests/corpus/embedded-book"
# shellcheck disable=SC2046
check embedded --toc-depth 1 --resource-path "$E/src" $(sed "s|^|$E/|" "$E/book.list")
# beside an EPUB without a page list the PDF is streamed too, the EPUB
# written on a second thread meanwhile: the same bytes with -j1 and -j2,
# and the PDF the one written alone
for j in 1 2; do
  # shellcheck disable=SC2086
  "$OCTAVO" -q -j$j --no-page-list $M -o "st-npl-$j.epub" -o "st-npl-$j.pdf" 2> "st-npl-$j.err" ||
    bad "npl: -j$j failed"
done
cmp -s st-npl-1.epub st-npl-2.epub && cmp -s st-npl-1.pdf st-npl-2.pdf && cmp -s st-npl-1.err st-npl-2.err ||
  bad "npl: -j1 and -j2 differ"
# shellcheck disable=SC2086
"$OCTAVO" -q $M -o st-npl-alone.pdf && cmp -s st-npl-1.pdf st-npl-alone.pdf ||
  bad "npl: the PDF beside the EPUB is not the one written alone"

# The handout (--layout handout: sections running on, "page N of M" in
# every head) is streamed too: a counting pass without glyphs finds M, the
# contents' numbers and the page marks, then the list is built a few pages
# at a time, and each page drawn once no line to come can change it
# (layout/handout.c, paginate.c's PageFeed). --dump-layout lays it out
# whole; both must be the same bytes, with -j1 and -j2, and the -j2 run
# must have streamed (pages drawn on the pipe's thread, no fallback).
check_handout() { # name, octavo arguments...
  name=$1; shift
  "$OCTAVO" -q -j1 --dump-layout --layout handout "$@" -o "sh-$name-whole.pdf" >/dev/null ||
    { bad "handout $name: whole layout failed"; return; }
  "$OCTAVO" -q -j1 --layout handout "$@" -o "sh-$name.pdf" || { bad "handout $name: streamed failed"; return; }
  "$OCTAVO" -v -j2 --layout handout "$@" -o "sh-$name-2.pdf" 2>"sh-$name-2.err" ||
    { bad "handout $name: streamed -j2 failed"; return; }
  grep -q "pages drawn on a second thread" "sh-$name-2.err" && ! grep -q "whole book again" "sh-$name-2.err" ||
    bad "handout $name: not streamed"
  cmp -s "sh-$name-whole.pdf" "sh-$name.pdf" || bad "handout $name: -j1 not the bytes of the whole layout's PDF"
  cmp -s "sh-$name-whole.pdf" "sh-$name-2.pdf" || bad "handout $name: -j2 not the bytes of the whole layout's PDF"
  qpdf --check "sh-$name.pdf" 2>&1 | grep -q "No syntax or stream encoding errors" || bad "handout $name: qpdf --check"
  echo "handout $name: streamed = whole"
}
# a generated book of four chapters: footnotes, tables across pages, URL
# notes at the page foot, links between chapters, lists, code, quotes
python3 "$TOP/bench/gen-book.py" gb 0.2 4 >/dev/null 2>&1 || bad "gen-book.py failed"
G="gb/01-chapter.md gb/02-chapter.md gb/03-chapter.md gb/04-chapter.md"
check_handout seed --smart "$S"
# shellcheck disable=SC2086
check_handout gen-a5 --paper a5 $G
# shellcheck disable=SC2086
check_handout gen-2col-toc --columns 2 --toc --paper letter $G
# shellcheck disable=SC2086
check_handout gen-end-N --link-notes end -N --toc $G
# shellcheck disable=SC2086
check_handout multi-2col $M --columns 2 --paper a5
# shellcheck disable=SC2046
check_handout embedded-toc --toc --resource-path "$E/src" $(sed "s|^|$E/|" "$E/book.list")
# beside an EPUB, whose page list takes the counting pass's page marks:
# both files the whole layout's
# shellcheck disable=SC2086
"$OCTAVO" -q -j1 --dump-layout --layout handout --columns 2 $G -o sh-both-whole.epub -o sh-both-whole.pdf >/dev/null ||
  bad "handout both: whole failed"
for j in 1 2; do
  # shellcheck disable=SC2086
  "$OCTAVO" -q -j$j --layout handout --columns 2 $G -o "sh-both-$j.epub" -o "sh-both-$j.pdf" ||
    bad "handout both: -j$j failed"
  cmp -s sh-both-whole.epub "sh-both-$j.epub" && cmp -s sh-both-whole.pdf "sh-both-$j.pdf" ||
    bad "handout both: -j$j not the whole layout's EPUB and PDF"
done
# a heading whose id looks like a URL note's destination ("url 2": url-2;
# the notes' are named with a space, which no id holds): the same bytes
printf '# A\n\n[a](https://example.com/a) [b](https://example.org/b)\n\n## url 2\n\nEnd.\n' >sh-clash.md
"$OCTAVO" -q -j1 --dump-layout --layout handout sh-clash.md -o sh-clash-whole.pdf >/dev/null &&
  "$OCTAVO" -q -j2 --layout handout sh-clash.md -o sh-clash.pdf && cmp -s sh-clash-whole.pdf sh-clash.pdf ||
  bad "handout clash: not the whole layout's PDF"
# an EPUB alone takes its page list from the counting pass: the one the
# whole layout gives (--dump-layout)
# shellcheck disable=SC2086
"$OCTAVO" -q --dump-layout --layout handout --toc $G -o sh-alone-whole.epub >/dev/null &&
  "$OCTAVO" -q --layout handout --toc $G -o sh-alone.epub && cmp -s sh-alone-whole.epub sh-alone.epub ||
  bad "handout: the EPUB's page list alone is not the whole layout's"
# cairo 1.16 refuses the structure tags of some books: the PDF is drawn
# again with one Part per page (OCTAVO_TEST_REFUSE_TAGS=1 refuses every
# first drawing). Streamed, that is the one case a book is laid out again
# (print.c: 2 passes; a handout's count is kept, 3): the same bytes as the
# whole layout's fallback, a clean file, the warning, and the EPUB beside
# it waiting for marks it is given once.
refused() { # name passes octavo arguments...
  name=$1 n=$2; shift 2
  OCTAVO_TEST_REFUSE_TAGS=1 "$OCTAVO" -q -j1 --dump-layout "$@" -o "rt-$name-whole.pdf" >/dev/null ||
    { bad "refused $name: whole layout failed"; return; }
  for j in 1 2; do
    OCTAVO_TEST_REFUSE_TAGS=1 "$OCTAVO" -v -j$j "$@" -o "rt-$name-$j.pdf" -o "rt-$name-$j.epub" \
      2>"rt-$name-$j.err" || { bad "refused $name -j$j: failed"; continue; }
    grep -q "cairo refused the structure tags; written with one Part per page" "rt-$name-$j.err" ||
      bad "refused $name -j$j: no warning"
    grep -qx "octavo: layout passes: $n" "rt-$name-$j.err" || bad "refused $name -j$j: not $n layout passes"
    cmp -s "rt-$name-whole.pdf" "rt-$name-$j.pdf" || bad "refused $name -j$j: not the whole layout's fallback"
    qpdf --check "rt-$name-$j.pdf" 2>&1 | grep -q "No syntax or stream encoding errors" ||
      bad "refused $name -j$j: qpdf --check"
  done
  cmp -s "rt-$name-1.epub" "rt-$name-2.epub" || bad "refused $name: the EPUBs of -j1 and -j2 differ"
  echo "refused $name: drawn again, $n passes"
}
refused book 2 "$S"
# shellcheck disable=SC2086
refused handout 3 --layout handout --toc $G
exit $fail
