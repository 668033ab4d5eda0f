#!/bin/sh
# t-valgrind.sh: memcheck on whole runs (issue 7): the seed to EPUB and PDF
# in one run, the multi-file test book (images, tables, notes, raw HTML)
# the same way, each to a PDF alone (streamed: issue 15), and a run that
# stops on an input error. Passes when
# valgrind reports no definite leak and no invalid read or write (or any
# other memcheck error: every error counts). tests/valgrind.supp holds the
# library-internal leaks, each with its reason. Skips without valgrind, and
# for an ASan build (valgrind cannot run one).
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: no valgrind"; exit 77; }
if ldd "$OCTAVO" 2>/dev/null | grep -q 'libasan' || nm "$OCTAVO" 2>/dev/null | grep -q '__asan_init'; then
  echo "SKIP: $OCTAVO is an ASan build"; exit 77
fi
cd "$TMPROOT" || exit 1
mkdir -p valgrind && cd valgrind || exit 1
export SOURCE_DATE_EPOCH=1683763200

# -q: only errors reach the log; --num-callers=40: deep enough to reach
# the frames the suppressions name (fontconfig parses its configuration
# with expat, recursively).
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite
    --error-exitcode=99 --num-callers=40 --suppressions=$TOP/tests/valgrind.supp"

check() { # name, expected octavo exit status, octavo arguments...
  name=$1 want=$2; shift 2
  $VG --log-file="$name.vg" "$OCTAVO" -q "$@" > "$name.out" 2> "$name.err"
  rc=$?
  if [ $rc -eq 99 ] || [ -s "$name.vg" ]; then
    sed -n '1,80p' "$name.vg"
    fail "$name: valgrind reports $(grep -c 'definitely lost in\|^==[0-9]*== [A-Z]' "$name.vg") errors (log above)"
  fi
  [ $rc -eq "$want" ] || { cat "$name.err"; fail "$name: octavo exit status $rc, not $want"; }
  echo "$name: clean"
}

check seed 0 "$TOP/content/lsfmm-bpf-2023.md" -o seed.epub -o seed.pdf
check multi 0 "$TOP"/tests/books/multi/0*.md -o multi.epub -o multi.pdf
# every grammar, scanner and query of src/highlight.c once
check highlight 0 "$TOP/tests/books/highlight/langs.md" -o highlight.epub -o highlight.pdf
# the PDF alone is drawn as it is laid out (print_pdf: lay_drive streamed): each page
# freed once drawn, the layout's records and the archive pass's move
check seed-stream 0 "$TOP/content/lsfmm-bpf-2023.md" -o seed-alone.pdf
check multi-stream 0 "$TOP"/tests/books/multi/0*.md --columns 2 -o multi-alone.pdf
check seed-stream-none 0 "$TOP/content/lsfmm-bpf-2023.md" --pdf-standard none -o seed-none.pdf
# An input error: the run stops early, and what it built is freed.
printf -- '---\ntitle: [unclosed\n---\n\n# T\n\nText.\n' > bad.md
check bad-input 1 bad.md -o bad.epub -o bad.pdf
echo "t-valgrind: ok"
