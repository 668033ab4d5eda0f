#!/bin/sh
# tests/corpus/run.sh: build every real book of tests/corpus into an EPUB and a
# PDF and run the corpus checks on each (issue 16). Not a tests/t-*.sh yet:
# most checks fail on today's octavo (see STATUS.md).
#
#   tests/corpus/run.sh [BOOK...]      (BOOK: a directory name under tests/corpus)
#
# Env: OCTAVO (default build/octavo), OUT (default a fresh temporary directory,
# kept), TOP (default the repository). Each book directory holds book.list
# (its Markdown files in reading order, relative to it; for an mdBook the
# order of src/SUMMARY.md) and optionally book.args (extra octavo options).
# Prints "PASS|FAIL check book: numbers"; exits 1 when any check fails.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OCTAVO=${OCTAVO:-$TOP/build/octavo}
CORPUS=$TOP/tests/corpus
TOOL=$TOP/tests/tools/corpus_check.py
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/octavo-corpus.XXXXXX")}
mkdir -p "$OUT"
failed=0
npass=0
nfail=0

result() { # check book ok numbers
  if [ "$3" = 0 ]; then echo "PASS $1 $2: $4"; npass=$((npass + 1))
  else echo "FAIL $1 $2: $4"; nfail=$((nfail + 1)); failed=1; fi
}

# run a corpus_check.py subcommand: its last stdout line is the numbers,
# its details go to $OUT/BOOK.CHECK.log
py_check() { # label book subcommand args...
  c=$1 b=$2; shift 2
  python3 "$TOOL" "$@" > "$OUT/$b.$c.out" 2> "$OUT/$b.$c.log"
  rc=$?
  result "$c" "$b" $rc "$(tail -n 1 "$OUT/$b.$c.out")"
}

build() { # book: writes $OUT/BOOK.epub and .pdf, BOOK.build.log; times in BOOK.time
  b=$1 d=$CORPUS/$1
  start=$(date +%s.%N)
  # shellcheck disable=SC2046
  (cd "$d" && "$OCTAVO" $(cat book.args 2>/dev/null) $(grep -v '^#' book.list) \
      -o "$OUT/$b.epub" -o "$OUT/$b.pdf") > "$OUT/$b.build.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  secs=$(echo "$end - $start" | bc 2>/dev/null || python3 -c "print(round($end - $start, 2))")
  echo "$secs" > "$OUT/$b.time"
  warnings=$(grep -c 'warning:' "$OUT/$b.build.log")
  [ $rc = 0 ] && [ -s "$OUT/$b.epub" ] && [ -s "$OUT/$b.pdf" ]
  result build "$b" $? "exit $rc, ${secs}s, $warnings warnings, $(pdfinfo "$OUT/$b.pdf" 2>/dev/null | awk '/^Pages:/ {print $2}') pages"
}

# EPUBCheck silent: one JVM for every book (EpubCheckMany)
check_epubcheck() { # books...
  files=""
  for b in "$@"; do files="$files $OUT/$b.epub"; done
  # shellcheck disable=SC2086
  java -cp /usr/share/java/epubcheck.jar "$TOP/tests/tools/EpubCheckMany.java" $files \
    > "$OUT/epubcheck.log" 2>&1
  for b in "$@"; do
    line=$(grep -F "$OUT/$b.epub: " "$OUT/epubcheck.log" | grep -E '[0-9]+ errors, [0-9]+ warnings$' | tail -n 1)
    echo "$line" | grep -q ': 0 errors, 0 warnings$'
    result epubcheck "$b" $? "${line#"$OUT/"}"
  done
}

# qpdf --check: the PDF is sound (no damage, no repaired cross-reference)
check_qpdf() { # book
  qpdf --check "$OUT/$1.pdf" > "$OUT/$1.qpdf.log" 2>&1
  rc=$?
  n=$(grep -c 'WARNING' "$OUT/$1.qpdf.log")
  [ $rc = 0 ] && [ "$n" = 0 ] && grep -q 'No syntax or stream encoding errors' "$OUT/$1.qpdf.log"
  result qpdf "$1" $? "qpdf exit $rc, $n warnings$(grep -m1 WARNING "$OUT/$1.qpdf.log" | sed 's/^WARNING: [^:]*:/ (/; s/$/)/')"
}

check_words_epub() { py_check words-epub "$1" words "$CORPUS/$1" "$OUT/$1.epub"; }
check_words_pdf() { py_check words-pdf "$1" words "$CORPUS/$1" "$OUT/$1.pdf"; }
check_images() { py_check images "$1" images "$CORPUS/$1" "$OUT/$1.epub" "$OUT/$1.pdf"; }
check_glyphs() { py_check glyphs "$1" glyphs "$OUT/$1.pdf"; }
check_blank() { py_check blank "$1" blank "$OUT/$1.pdf"; }
check_chapters() { py_check chapters "$1" chapters "$OUT/$1.epub" "$OUT/$1.pdf" "$CORPUS/$1"; }
check_outline() { py_check outline "$1" outline "$OUT/$1.epub" "$OUT/$1.pdf"; }
check_bbox() { py_check bbox "$1" bbox "$OUT/$1.pdf"; }

for t in python3 qpdf pdftotext pdfimages pdfinfo java; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
[ -x "$OCTAVO" ] || { echo "no $OCTAVO: make octavo first"; exit 2; }

if [ $# -gt 0 ]; then books="$*"
else books=$(cd "$CORPUS" && for d in */; do [ -f "$d/book.list" ] && echo "${d%/}"; done); fi

t0=$(date +%s)
built=""
for b in $books; do
  build "$b" && built="$built $b"
done
# shellcheck disable=SC2086
[ -n "$built" ] && check_epubcheck $built
for b in $built; do
  python3 "$TOOL" srcinfo "$CORPUS/$b" > "$OUT/$b.src"
  echo "---- $b: $(cat "$OUT/$b.src")"
  check_qpdf "$b"
  check_words_epub "$b"
  check_words_pdf "$b"
  check_images "$b"
  check_glyphs "$b"
  check_blank "$b"
  check_chapters "$b"
  check_outline "$b"
  check_bbox "$b"
done
echo "corpus: $npass passed, $nfail failed in $(( $(date +%s) - t0 ))s; outputs and logs in $OUT"
exit $failed
