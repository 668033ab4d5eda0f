#!/bin/sh
# t-page.sh: a page a publisher would print (issue 31), on books in the
# Rust book's conventions (tests/books/captions: alt texts, "Figure N-N:"
# spans, "Filename:" lines, "Listing N-N" captions, <Listing>, captioned and
# wide tables, nested chapters) and on the corpus's mdBooks (embedded-book,
# f3discovery), each built once into an EPUB and a PDF and checked by
# tests/tools/page_check.py:
#
#   alt        no image alt text in either book's visible text
#   captions   every caption of the EPUB in the PDF in a caption style
#              (size or face unlike the body's, from mutool's stext), on the
#              same page as its object
#   filenames  listing file names in the PDF, in the code face, with the code
#   heads      a recto's running head names the chapter current on its page
#              (LaTeX's rule: the first chapter begun there, else the one
#              carried over; nested chapters and an article's sections
#              too), a verso's the book or its part: >= 90 % of body pages
#              (the report's book and tests/books/parts: all)
#   figtext    SVG text (drawn in Liberation) at most 1.1 x the body size;
#              and from the PDF: every text line inside a figure's box (the
#              boxes from --dump-layout of the same build) likewise
#   ligatures  every line ending in a drawn hyphen: its word as the glyphs
#              draw it (mutool trace) equals the text layer's (pdftotext
#              -bbox-layout), so no hyphen splits a ligature (ff, fi, fl)
#   runts      (the corpus's books) no chapter's last page under 5 lines
#              deep, no other page under a third full
#   tables     no word of a table cell broken across lines
#   notes      no page's foot holds two URL notes or two footnotes with the
#              same label (the test book's nested chapter and the chapter
#              it runs on after each have a link and a footnote [^own]; a
#              run-on chapter's URL notes once began again at "a")
#   code-css   (when chromium is installed) code and listings left-aligned in
#              the EPUB, computed by headless Chromium with the book's CSS and
#              a reader's justified body (every book: its chapters with code
#              in one document, one Chromium each); without it the CSS rules
#              are checked directly
#
# Also: the test book's nested chapters run on (no page starts with
# "References and Borrowing" or "The Slice Type").
set -u
fail() { echo "FAIL: $*"; exit 1; }
: "${OCTAVO:=build/octavo}" "${TOP:=$(pwd)}" "${TMPROOT:=$(mktemp -d)}"
for t in python3 mutool qpdf pdftotext; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
case $OCTAVO in /*) ;; *) OCTAVO=$TOP/$OCTAVO ;; esac
export SOURCE_DATE_EPOCH=1700000000
TOOL=$TOP/tests/tools/page_check.py
rc=0
chromium=
command -v chromium >/dev/null 2>&1 && chromium=--chromium

# the test book
"$OCTAVO" "$TOP/tests/books/captions" --dump-layout -o "$TMPROOT/cap.epub" -o "$TMPROOT/cap.pdf" \
  >"$TMPROOT/cap.layout" 2>"$TMPROOT/cap.log" || fail "captions: octavo exited $?"
echo "== captions (test book)"
python3 "$TOOL" --strict-tables --layout "$TMPROOT/cap.layout" $chromium "$TMPROOT/cap.epub" \
  "$TMPROOT/cap.pdf" || rc=1
pages=$(pdfinfo "$TMPROOT/cap.pdf" | awk '/^Pages:/ {print $2}')
for p in $(seq 3 "$pages"); do
  # the page's first line, its mdBook number ("1.1. ") apart
  first=$(pdftotext -f "$p" -l "$p" "$TMPROOT/cap.pdf" - | grep -v '^\s*$' | head -1 |
    sed 's/^[0-9.]* *//')
  case $first in
  "References and Borrowing"* | "The Slice Type"*)
    echo "FAIL: a nested chapter starts page $p"; rc=1 ;;
  esac
done
if [ -z "$chromium" ]; then
  # no Chromium: the rules themselves
  css=$TOP/styles/book.css
  grep -q '^pre, pre code, figure.listing' "$css" && grep -A2 '^pre, pre code, figure.listing' "$css" |
    grep -q 'text-align: left' || { echo "FAIL: book.css: code not left-aligned"; rc=1; }
  awk '/^figure {/,/^}/' "$css" | grep -q 'text-align: center' &&
    { echo "FAIL: book.css: figure { text-align: center } reaches the code"; rc=1; }
  echo "code-css: checked in the CSS rules (no chromium)"
fi

# the report's book: an article, its sections run on after the title
# (11 pages before issue 31's article shape: 7), every head naming the
# section current on its page
"$OCTAVO" --smart "$TOP/content/lsfmm-bpf-2023.md" -o "$TMPROOT/report.epub" \
  -o "$TMPROOT/report.pdf" 2>"$TMPROOT/report.log" || fail "report: octavo exited $?"
pages=$(pdfinfo "$TMPROOT/report.pdf" | awk '/^Pages:/ {print $2}')
echo "== the report ($pages pages)"
python3 "$TOOL" --no-runts --min-heads 1 "$TMPROOT/report.epub" "$TMPROOT/report.pdf" || rc=1
# its sections run on: no page but the title page, the contents and the
# colophon starts with a heading, and the body is at most 5 pages
[ "$pages" -le 8 ] || { echo "FAIL: the report's book has $pages pages (its sections start pages?)"; rc=1; }

# an mdBook in parts (tests/books/parts): a verso names the part it is in,
# a preface's or an afterword's the book, a recto the chapter current there
"$OCTAVO" "$TOP/tests/books/parts" -o "$TMPROOT/parts.epub" -o "$TMPROOT/parts.pdf" \
  2>"$TMPROOT/parts.log" || fail "parts: octavo exited $?"
echo "== parts (test book)"
python3 "$TOOL" --parts --no-runts --min-heads 1 "$TMPROOT/parts.epub" "$TMPROOT/parts.pdf" || rc=1

# the corpus's mdBooks
for b in embedded-book f3discovery tlborm; do
  d=$TOP/tests/corpus/$b
  [ -d "$d" ] || continue
  # shellcheck disable=SC2046 # book.args and book.list are word lists
  if [ -f "$d/book.list" ]; then
    (cd "$d" && "$OCTAVO" $(cat book.args 2>/dev/null) $(grep -v '^#' book.list) --dump-layout \
      -o "$TMPROOT/$b.epub" -o "$TMPROOT/$b.pdf" >"$TMPROOT/$b.layout" 2>"$TMPROOT/$b.log") ||
      fail "$b: octavo exited"
  else # a book project (book.toml)
    "$OCTAVO" "$d" --dump-layout -o "$TMPROOT/$b.epub" -o "$TMPROOT/$b.pdf" >"$TMPROOT/$b.layout" \
      2>"$TMPROOT/$b.log" || fail "$b: octavo exited"
  fi
  echo "== $b ($(pdfinfo "$TMPROOT/$b.pdf" | awk '/^Pages:/ {print $2}') pages)"
  python3 "$TOOL" --no-runts --strict-tables $chromium --layout "$TMPROOT/$b.layout" "$TMPROOT/$b.epub" \
    "$TMPROOT/$b.pdf" || rc=1
done
[ $rc = 0 ] && echo ok
exit $rc
