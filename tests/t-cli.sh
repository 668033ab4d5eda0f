#!/bin/sh
# t-cli.sh: the command line's contract — usage errors exit 2, input and
# output errors exit 1 with a message, --help and --version work.
set -u
fail() { echo "FAIL: $*"; exit 1; }
expect_rc() { # rc, command...
  want=$1; shift
  "$@" >"$TMPROOT/cli.out" 2>"$TMPROOT/cli.err"; got=$?
  [ "$got" -eq "$want" ] || { cat "$TMPROOT/cli.err"; fail "'$*' exited $got, wanted $want"; }
}
cd "$TMPROOT" || exit 1
expect_rc 0 "$OCTAVO" --version
grep -q '^octavo [0-9]' cli.out || fail "--version prints 'octavo VERSION'"
for lib in cmark-gfm libxml2 libzip cairo pango harfbuzz libhyphen; do
  grep -Eq "^  $lib +[0-9]" cli.out || fail "--version names the $lib it runs on"
done
expect_rc 0 "$OCTAVO" --help
grep -q -- '--split-level' cli.out || fail "--help lists the options"
grep -q 'Exit status' cli.out || fail "--help documents the exit status"
expect_rc 2 "$OCTAVO"
grep -q 'error: no input file' cli.err || fail "no input: message"
expect_rc 2 "$OCTAVO" --no-such-option x.md
expect_rc 2 "$OCTAVO" --split-level 9 x.md
expect_rc 2 "$OCTAVO" --paper b5 x.md
expect_rc 2 "$OCTAVO" -t docx x.md
expect_rc 2 "$OCTAVO" -M novalue x.md
expect_rc 2 "$OCTAVO" x.md -o book.unknown
printf '# T\n\nText.\n' > in.md
expect_rc 1 "$OCTAVO" missing.md -o x.epub
grep -q 'missing.md' cli.err || fail "an unreadable input is named"
expect_rc 1 "$OCTAVO" in.md -o no/such/dir/x.epub
grep -q 'does not exist' cli.err || fail "a missing output directory is reported"
expect_rc 1 "$OCTAVO" in.md -t epub -o in.md
grep -q 'also an input' cli.err || fail "an output that is an input is refused"
[ "$(cat in.md)" = "$(printf '# T\n\nText.\n')" ] || fail "the input was overwritten"
expect_rc 1 "$OCTAVO" in.md --style no-such.ini -o x.pdf
grep -q 'no-such.ini' cli.err || fail "a missing print style is named"
[ -e x.pdf ] && fail "a failed build left x.pdf"
# An EPUB-only build does not need the print style: a broken one is a
# warning and the EPUB goes without its print page list (issue 12).
printf '[page]\nmargin-top = lots\n' > broken.ini
expect_rc 0 "$OCTAVO" in.md --style broken.ini -o x.epub
grep -q 'warning:.*broken.ini.*no print page list' cli.err || fail "a broken print style is a warning for the EPUB"
unzip -p x.epub EPUB/nav.xhtml | grep -q 'page-list' && fail "an EPUB without layout has no page list"
expect_rc 1 "$OCTAVO" in.md --style broken.ini -o x.pdf
grep -q 'error:.*broken.ini' cli.err || fail "a broken print style is an error for the PDF"
# The style's [page] paper takes effect unless --paper is given.
printf '[page]\npaper = letter\n' > letter.ini
expect_rc 0 "$OCTAVO" in.md --style letter.ini -o letter.pdf
pdfinfo letter.pdf | grep -q 'Page size: *612 x 792' || fail "a style with paper = letter gives Letter pages"
expect_rc 0 "$OCTAVO" in.md --style letter.ini --paper a5 -o a5.pdf
pdfinfo a5.pdf | grep -q 'Page size: *419.5' || fail "--paper overrides the style's paper"
printf '[page]\npaper = b5\n' > b5.ini
expect_rc 1 "$OCTAVO" in.md --style b5.ini -o b5.pdf
grep -q "unknown paper 'b5'" cli.err || fail "an unknown paper in the style is named"
expect_rc 1 "$OCTAVO" in.md --css no-such.css -o x.epub
grep -q 'no-such.css' cli.err || fail "a missing stylesheet is named"
# A target that is not a regular file is written into, never replaced: a
# rename over it (as for a file) once turned /dev/null into a regular file.
mkfifo out.fifo && {
  timeout 120 cat out.fifo > from-fifo.epub &
  reader=$!
  expect_rc 0 "$OCTAVO" in.md -o out.fifo -t epub
  wait $reader
  [ -p out.fifo ] || fail "-o FIFO replaced the FIFO"
  unzip -tq from-fifo.epub >/dev/null 2>&1 || fail "-o FIFO: what came through is not the EPUB"
}
# -v prints the run plan (src/runplan.c), decided once from the outputs and
# the threads; tests/unit/test_runplan.c asserts it case by case.
# plan.md: two # chapters, two flows in print (each opens a page), which the
# chapter threads can share; article.md: a # title over ## sections, which
# run on (one flow): its helper shapes paragraphs ahead instead.
printf -- '---\ntitle: T\n---\n\n# One\n\nText.\n\n# Two\n\nMore.\n' > plan.md
printf '# T\n\n## One\n\nText.\n\n## Two\n\nMore.\n' > article.md
plan() { # expected-line octavo-arguments...: -v's plan holds the line
  want=$1; shift
  "$OCTAVO" -v "$@" >/dev/null 2>plan.err || fail "-v $*: failed: $(cat plan.err)"
  grep -qx "octavo: plan: $want" plan.err || fail "-v $*: no 'plan: $want' in: $(grep plan: plan.err)"
}
plan "outputs epub=1 pdf=1 other=0 preview=no dump=no" -j1 plan.md -o p.epub -o p.pdf
plan "threads=4 epub-thread=yes draw-thread=yes chapter-threads=0 shape-ahead=yes" -j4 article.md -o p.epub -o p.pdf
plan "layout=stream handout=no counted=no marks=yes passes=1" -j1 plan.md -o p.epub -o p.pdf
plan "threads=1 epub-thread=no draw-thread=no chapter-threads=0 shape-ahead=no" -j1 plan.md -o p.epub -o p.pdf
plan "threads=4 epub-thread=yes draw-thread=yes chapter-threads=1 shape-ahead=no" -j4 plan.md -o p.epub -o p.pdf
plan "preload hyphen=yes qpdf=yes cover=yes sources-thread=yes" -j4 plan.md -o p.epub -o p.pdf
plan "layout=page-list handout=no counted=no marks=no passes=1" -j4 plan.md -o p.epub
plan "threads=4 epub-thread=no draw-thread=no chapter-threads=1 shape-ahead=no" -j4 plan.md -o p.epub
plan "layout=stream handout=yes counted=yes marks=no passes=2" -j4 --layout handout plan.md -o p.pdf
plan "threads=4 epub-thread=no draw-thread=yes chapter-threads=0 shape-ahead=yes" -j4 --layout handout plan.md -o p.pdf
plan "layout=none handout=no counted=no marks=no passes=0" -j2 --no-page-list plan.md -o p.epub
plan "layout=whole handout=no counted=no marks=no passes=1" -j2 --preview prev plan.md -o p.pdf
OCTAVO_THREADS=3 plan "threads=3 epub-thread=yes draw-thread=yes chapter-threads=1 shape-ahead=no" plan.md -o p.epub -o p.pdf
"$OCTAVO" -q plan.md -o p.epub 2>plan.err && ! grep -q 'plan:' plan.err || fail "the plan printed without -v"
# The layout passes the plan says are the ones the layout driver made
# (-v's "layout passes: N", counted by the driver: one per Run), for EPUB
# only, PDF only, both, the handout (counted first), its page list, the
# whole handout with its contents (a pass for their numbers), --preview
# (kept whole), no layout, at -j1 and -j4.
passes() { # N octavo-arguments...
  n=$1; shift
  "$OCTAVO" -v "$@" >/dev/null 2>plan.err || fail "-v $*: failed: $(cat plan.err)"
  grep -qx "octavo: layout passes: $n" plan.err || fail "-v $*: not 'layout passes: $n': $(grep 'passes' plan.err)"
  grep -q "^octavo: plan: layout=.* passes=$n\$" plan.err || fail "-v $*: the plan does not say passes=$n: $(grep 'passes' plan.err)"
}
for j in 1 4; do
  passes 1 -j$j plan.md -o p.epub
  passes 1 -j$j plan.md -o p.pdf
  passes 1 -j$j plan.md -o p.epub -o p.pdf
  passes 2 -j$j --layout handout plan.md -o p.pdf
  passes 2 -j$j --layout handout plan.md -o p.epub -o p.pdf
  passes 1 -j$j --layout handout plan.md -o p.epub
  passes 2 -j$j --layout handout --toc --preview prev plan.md -o p.pdf
  passes 1 -j$j --preview prev plan.md -o p.pdf
  passes 0 -j$j --no-page-list plan.md -o p.epub
done
plan "threads=4 as asked (-j or OCTAVO_THREADS)" -j4 plan.md -o p.epub
# neither -j nor OCTAVO_THREADS: the threads from the cores not busy (runplan_threads), and
# -v says from what (test_runplan asserts the decision for given cores and loads)
env -u OCTAVO_THREADS "$OCTAVO" -v plan.md -o p.epub >/dev/null 2>plan.err || fail "-v: failed"
grep -Eq '^octavo: plan: cores=[1-9][0-9]* load=[0-9]+\.[0-9]{2} -> threads=[1-9][0-9]* ' plan.err ||
  fail "-v without -j: no 'cores=N load=L -> threads=T' in: $(grep plan: plan.err)"
chosen=$(sed -n 's/^octavo: plan: cores=.* -> threads=\([0-9]*\) .*/\1/p' plan.err)
grep -q "^octavo: plan: threads=$chosen epub-thread=" plan.err ||
  fail "-v without -j: the plan's threads are not the ones chosen ($chosen): $(grep plan: plan.err)"

# Every option --help lists is documented in the manual page and in README.
"$OCTAVO" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u > options.txt
[ -s options.txt ] || fail "--help lists no options"
while read -r o; do
  grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$TOP/man/octavo.1" || fail "man/octavo.1 does not document $o"
  grep -q -- "$o\\([^a-z-]\\|\$\\)" "$TOP/README.md" || fail "README.md does not document $o"
done < options.txt
exit 0
