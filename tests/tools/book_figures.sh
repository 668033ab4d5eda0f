#!/bin/sh
# book_figures.sh: the closing-note figures of issue 16, per book: pages,
# images drawn / in the source, words lost per format, glyphs per face
# (the book's own, then the fallback faces), warnings printed. Builds each
# corpus book (tests/corpus/*/book.list, book.args) and each test book of
# tests/books/ (one book per directory, the fonts/ files one book each)
# into an EPUB and an A4 PDF under OUT, and prints one block per book.
#
#   sh tests/tools/book_figures.sh [OUT]      (OCTAVO: the binary, default build/octavo)
set -u
: "${OCTAVO:=build/octavo}" "${TOP:=$(pwd)}"
case $OCTAVO in /*) ;; *) OCTAVO=$TOP/$OCTAVO ;; esac
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
export SOURCE_DATE_EPOCH=1700000000
T=$TOP/tests/tools

figures() { # name bookdir (book.list inside) workdir args...
  name=$1 dir=$2 wd=$3
  shift 3
  # shellcheck disable=SC2046 # book.list is a word list
  (cd "$wd" && "$OCTAVO" "$@" $(grep -v '^#' "$dir/book.list") \
    -o "$OUT/$name.epub" -o "$OUT/$name.pdf") > "$OUT/$name.log" 2>&1
  rc=$?
  echo "## $name (exit $rc)"
  echo "pages: $(pdfinfo "$OUT/$name.pdf" 2>/dev/null | awk '/^Pages:/ {print $2}')"
  echo "warnings: $(grep -c 'warning:' "$OUT/$name.log")"
  grep 'warning:' "$OUT/$name.log" | sed 's/.*warning: //' | sort | uniq -c | sort -rn | head -n 5 |
    sed 's/^/  /'
  python3 "$T/corpus_check.py" all "$dir" "$OUT/$name.epub" "$OUT/$name.pdf" \
    words-epub words-pdf images glyphs 2>/dev/null | grep -E '^(PASS|FAIL)'
  echo "raster images drawn (pdfimages -list): $(pdfimages -list "$OUT/$name.pdf" 2>/dev/null | tail -n +3 | wc -l)"
  python3 "$T/font_glyphs.py" "$OUT/$name.pdf" | sed 's/^[^:]*: /glyphs: /'
  echo
}

for d in "$TOP"/tests/corpus/*/; do
  [ -f "$d/book.list" ] || continue
  b=$(basename "$d")
  # shellcheck disable=SC2046 # book.args is a word list
  figures "$b" "${d%/}" "$d" $(cat "$d/book.args" 2>/dev/null)
done
# the test books: a book.list of absolute paths in a directory of its own
testbook() { # name files...
  name=$1
  shift
  mkdir -p "$OUT/$name.src"
  for f in "$@"; do echo "$f"; done > "$OUT/$name.src/book.list"
  figures "$name" "$OUT/$name.src" "$(dirname "$1")"
}
B=$TOP/tests/books
for f in "$B"/fonts/*.md; do
  testbook "fonts-$(basename "$f" .md)" "$f"
done
testbook inline "$B/inline/inline.md"
testbook margins "$B/margins/code-mark.md"
testbook multi "$B"/multi/*.md
testbook xref "$B/xref/one.md" "$B/xref/two.md"
