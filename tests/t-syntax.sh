#!/bin/sh
# t-syntax.sh: pandoc's syntax read as its authors mean it (issue 27; the
# cmark-gfm extensions of src/ext*.c and the title block of src/meta.c), on
# a pandoc-style manual written for this test (tests/books/pandoc/manual.md:
# a % title block, {#id .class} headings, {-} and .unlisted, definition
# lists with several blocks, fenced divs nested) and on a real one nobody
# wrote for octavo (tests/corpus/citeproc-man: pandoc-citeproc's man page,
# 18 definitions).  For each: both books built; no "{#", no ": "/"~ "
# definition marker and no ":::" in the EPUB's text (the XHTML without
# tags) nor in the PDF's (pdftotext); EPUBCheck 0 errors, 0 warnings.  The
# manual: title and authors from the title block in the OPF and the PDF;
# [Options](#options) a working link in the EPUB (to the heading that has
# id="options") and in the PDF (a link annotation to the named destination
# "options", which the PDF's name tree holds); <dl>/<dt>/<dd> and the divs
# in the XHTML; the unlisted section out of the contents.  Then the same
# manual with --syntax=none: the markers are text again (the off switch).
set -u
fail() { echo "FAIL: $*"; exit 1; }
JAR=/usr/share/java/epubcheck.jar
for t in pdftotext qpdf unzip java; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
[ -f "$JAR" ] || { echo "SKIP: no $JAR"; exit 77; }
case $OCTAVO in /*) ;; *) OCTAVO=$TOP/$OCTAVO ;; esac
cd "$TMPROOT" || exit 1
export SOURCE_DATE_EPOCH=1700000000

# book NAME DIR FILE [OPTIONS]: NAME.epub, NAME.pdf, NAME.epub.txt, NAME.pdf.txt
book() {
  n=$1 dir=$2 file=$3
  shift 3
  (cd "$dir" && "$OCTAVO" -q "$@" "$file" -o "$TMPROOT/$n.epub" -o "$TMPROOT/$n.pdf") ||
    fail "$n: octavo failed"
  unzip -p "$n.epub" 'EPUB/ch*.xhtml' | sed 's/<[^>]*>//g' > "$n.epub.txt"
  pdftotext "$n.pdf" "$n.pdf.txt" || fail "$n: pdftotext"
}

# clean NAME: no marker of the syntax left in either book's text
clean() {
  for f in "$1.epub.txt" "$1.pdf.txt"; do
    k=$(grep -c -e '{#' -e ':::' -e '^ *[:~][[:space:]]' -e ' : ' "$f")
    [ "$k" -eq 0 ] || { grep -n -e '{#' -e ':::' -e '^ *[:~][[:space:]]' -e ' : ' "$f" | head -5;
                        fail "$f: $k lines with {#, :::, or a : or ~ definition marker"; }
  done
}

# epubcheck NAME: 0 errors, 0 warnings
epubcheck() {
  java -jar "$JAR" "$1.epub" > "$1.check" 2>&1
  grep -q "No errors or warnings detected" "$1.check" || { tail -20 "$1.check"; fail "$1.epub: EPUBCheck"; }
}

# ---- the pandoc-style manual ----
book man "$TOP/tests/books/pandoc" manual.md
clean man
epubcheck man
unzip -p man.epub 'EPUB/*.opf' > man.opf
grep -q '<dc:title>A Pandoc-Style Manual</dc:title>' man.opf || fail "title block: title not in the OPF"
[ "$(grep -c '<dc:creator' man.opf)" -eq 2 ] || fail "title block: not two authors in the OPF"
grep -q '<dc:date>2024-05-01</dc:date>' man.opf || fail "title block: date not in the OPF"
qpdf --show-object=trailer man.pdf > /dev/null 2>&1 || fail "man.pdf: qpdf"
qpdf --qdf --object-streams=disable man.pdf man.qdf || fail "man.pdf: qpdf --qdf"
info=$(pdfinfo man.pdf 2>/dev/null)
echo "$info" | grep -q '^Title: *A Pandoc-Style Manual$' || fail "title block: PDF /Title"
echo "$info" | grep -q '^Author: *Ann Writer, Bob Editor$' || fail "title block: PDF /Author"
x=$(unzip -p man.epub 'EPUB/ch*.xhtml')
echo "$x" | grep -q '<h[12] id="options" class="reference"' || fail "no heading with id options and its class"
echo "$x" | grep -q 'href="ch[0-9]*.xhtml#options"' || fail "[Options](#options) is no link to the heading"
echo "$x" | grep -q 'href="#defaults-note"' || fail "[the note](#defaults-note) is no link to the div"
echo "$x" | grep -q '<div id="defaults-note" class="warning"' || fail "the fenced div is no <div id class>"
echo "$x" | grep -q '<div class="aside" data-lang="en"' || fail "the nested div is no <div>"
[ "$(echo "$x" | grep -c '<dl>')" -eq 2 ] || fail "not two <dl> in the EPUB"
[ "$(echo "$x" | grep -c '<dt>')" -eq 7 ] || fail "not 7 <dt> in the EPUB"
[ "$(echo "$x" | grep -c '<dd>')" -eq 6 ] || fail "not 6 <dd> in the EPUB"
unzip -p man.epub EPUB/nav.xhtml | grep -q 'Unlisted details' && fail ".unlisted section in the nav"
unzip -p man.epub EPUB/nav.xhtml | grep -q 'Exit status' || fail "the {.unnumbered} section not in the nav"
# the PDF: a link annotation to the named destination "options", and the
# name tree holds it
links=$(grep -a -c '/Dest (options)' man.qdf)
[ "$links" -ge 2 ] || fail "man.pdf: $links link annotations to (options), want 2 (and the contents')"
grep -a -q '^ *(options)$\|(options) [0-9]* 0 R' man.qdf || fail "man.pdf: no destination named options"
grep -q 'Write the book to FILE.' man.pdf.txt || fail "man.pdf: a definition's text missing"

# ---- the same with --syntax=none: every marker is text again ----
book off "$TOP/tests/books/pandoc" manual.md --syntax=none
grep -q '{#options .reference}' off.epub.txt || fail "--syntax=none: the attribute block is not text"
grep -q '^:::' off.epub.txt || fail "--syntax=none: the fence is not text"
grep -q '^:   Say nothing but errors.' off.epub.txt || fail "--syntax=none: the definition marker is not text"

# ---- a real pandoc-syntax manual: pandoc-citeproc(1) ----
book cite "$TOP/tests/corpus/citeproc-man" pandoc-citeproc.1.md
clean cite
epubcheck cite
dt=$(unzip -p cite.epub 'EPUB/ch*.xhtml' | grep -c '<dt>')
[ "$dt" -eq 18 ] || fail "pandoc-citeproc(1): $dt terms, want 18"
echo "ok: pandoc-style manual (title block, {#options} linked in both books, 7 terms, 2 divs) and pandoc-citeproc(1) (18 terms): no {#, ::: or : markers, EPUBCheck silent"
