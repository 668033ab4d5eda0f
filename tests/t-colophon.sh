#!/bin/sh
# t-colophon.sh: the colophon in print (issue 14) and the handout's running
# head (issue 13). The book PDF's last page is the colophon: the same lines,
# in the same order, as the EPUB's colophon.xhtml (one build writes both),
# with the source's address as a link annotation; in French with --lang fr;
# kept out of the bookmarks and the contents (the EPUB keeps it out of the
# nav), tagged, with no Figure. The handout ends with the colophon's words
# after its text, stays within three A4 pages for the report (--smart), and
# heads its pages from page 2 with the title and "page N of M".
set -u
: "${OCTAVO:=build/octavo}" "${TOP:=$(pwd)}" "${TMPROOT:=$(mktemp -d)}"
export SOURCE_DATE_EPOCH=1700000000
tool="$TOP/tests/tools/colophon_check.py"
for c in pdftotext pdfinfo qpdf python3; do
  command -v $c >/dev/null 2>&1 || { echo "SKIP: no $c"; exit 77; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }
report="$TOP/content/lsfmm-bpf-2023.md"
src=https://lwn.net/Articles/lsfmmbpf2023/
T="$TMPROOT/colophon"
mkdir -p "$T"

# --- the book: the EPUB and the PDF from one run ----------------------------
"$OCTAVO" -q --smart -M source=$src "$report" -o "$T/book.epub" -o "$T/book.pdf" || bad "octavo (book)"
python3 "$tool" epub-lines "$T/book.epub" > "$T/epub.lines" || bad "epub-lines"
python3 "$tool" pdf-lines "$T/book.pdf" > "$T/pdf.lines" || bad "pdf-lines"
# the last page is the colophon and nothing else (no running head, no folio)
if diff -u "$T/epub.lines" "$T/pdf.lines" > "$T/lines.diff"; then
  echo "ok   the PDF's last page lists the EPUB colophon's $(wc -l < "$T/epub.lines") lines"
else
  bad "the PDF's last page and the EPUB's colophon differ:"; cat "$T/lines.diff"
fi
grep -qx "Source $src" "$T/pdf.lines" || bad "no 'Source $src' line"
grep -q "^Identifier urn:uuid:" "$T/pdf.lines" || bad "no identifier line"
grep -qx "Built 14 November 2023" "$T/pdf.lines" || bad "the build date is not SOURCE_DATE_EPOCH's"
grep -qx "Typefaces Charis SIL and DejaVu Sans Mono" "$T/pdf.lines" || bad "typefaces"
grep -q "^Made with octavo [0-9]" "$T/pdf.lines" || bad "made with"
python3 "$tool" link "$T/book.pdf" "$src" || bad "the source is not a link on the last page"
python3 "$tool" not-in-outline "$T/book.pdf" Colophon || bad "the colophon is a bookmark"
pdftotext -f 2 -l 2 "$T/book.pdf" - | grep -q Colophon && bad "the contents list the colophon"
# tagged as paragraphs in a section, no Figure (archive.c maps Figures to images in order)
if pdfinfo -struct-text "$T/book.pdf" > "$T/struct.txt" 2>/dev/null && [ -s "$T/struct.txt" ]; then
  awk '/^  Sect/ { s = NR } END { print s }' "$T/struct.txt" > "$T/last-sect"
  tail -n +"$(cat "$T/last-sect")" "$T/struct.txt" > "$T/col-struct.txt"
  grep -q '"Colophon"' "$T/col-struct.txt" || bad "the last Sect is not the colophon"
  grep -q 'P (block)' "$T/col-struct.txt" || bad "the colophon has no P tags"
  grep -q 'Figure' "$T/col-struct.txt" && bad "the colophon has a Figure"
  grep -q '"Made with octavo' "$T/col-struct.txt" || bad "the made-with line is not tagged"
fi
# the identifier is the EPUB's dc:identifier
id=$(unzip -p "$T/book.epub" EPUB/package.opf | sed -n 's:.*<dc\:identifier id="uid">\(.*\)</dc\:identifier>.*:\1:p')
grep -qx "Identifier $id" "$T/pdf.lines" || bad "the identifier is not the EPUB's ($id)"
# -M identifier: both books name it
"$OCTAVO" -q -M identifier=urn:isbn:9780000000002 "$report" -o "$T/isbn.epub" -o "$T/isbn.pdf" || bad "octavo (isbn)"
python3 "$tool" pdf-lines "$T/isbn.pdf" | grep -qx "Identifier urn:isbn:9780000000002" || bad "-M identifier"

# --- French ------------------------------------------------------------------
"$OCTAVO" -q --lang fr -M source=$src "$report" -o "$T/fr.epub" -o "$T/fr.pdf" || bad "octavo (fr)"
python3 "$tool" pdf-lines "$T/fr.pdf" > "$T/fr.lines"
python3 "$tool" epub-lines "$T/fr.epub" | diff -u - "$T/fr.lines" || bad "fr: the PDF's and the EPUB's colophons differ"
for w in "Colophon" "Source $src" "Identifiant urn:uuid:" "Date de fabrication 14 novembre 2023" \
         "Polices Charis SIL et DejaVu Sans Mono" "Réalisé avec octavo"; do
  grep -q "^$w" "$T/fr.lines" || bad "fr: no '$w'"
done

# --- the handout ---------------------------------------------------------------
"$OCTAVO" -q --smart --layout handout -M source=$src "$report" -o "$T/handout.pdf" || bad "octavo (handout)"
n=$(pdfinfo "$T/handout.pdf" | awk '/^Pages:/ { print $2 }')
[ "${n:-9}" -le 3 ] && echo "ok   the handout is $n A4 pages" || bad "the handout is $n pages (at most 3)"
# it ends with the colophon block: the same words as the EPUB's, last on the page
want=$(python3 "$tool" words "$T/book.epub")
got=$(python3 "$tool" words "$T/handout.pdf")
[ "$want" = "$got" ] && echo "ok   the handout ends with the colophon's words" \
  || bad "the handout's end: '$got', want '$want'"
python3 "$tool" link "$T/handout.pdf" "$src" || bad "handout: the source is not a link on the last page"
# the running head from page 2: the title and "page N of M"; none on page 1
pdftotext -f 2 -l 2 "$T/handout.pdf" - | head -n 3 > "$T/head2"
grep -q "page 2 of $n" "$T/head2" && grep -q "LSFMM+BPF Summit" "$T/head2" \
  && echo "ok   page 2's head: title and 'page 2 of $n'" || { bad "page 2's head"; cat "$T/head2"; }
pdftotext -f 1 -l 1 "$T/handout.pdf" - | grep -q "page 1 of" && bad "page 1 has a running head"
"$OCTAVO" -q --lang fr --layout handout "$report" -o "$T/handout-fr.pdf" || bad "octavo (handout fr)"
pdftotext -f 2 -l 2 "$T/handout-fr.pdf" - | head -n 3 | grep -q "page 2 sur " || bad "fr: 'page 2 sur N'"
# two columns: the block after the text, at most 2 pages
"$OCTAVO" -q --smart --layout handout --columns 2 -M source=$src "$report" -o "$T/handout2.pdf" || bad "octavo (handout 2 col)"
got2=$(python3 "$tool" words "$T/handout2.pdf")
[ "$want" = "$got2" ] || bad "two columns: the handout's end: '$got2'"
n2=$(pdfinfo "$T/handout2.pdf" | awk '/^Pages:/ { print $2 }')
[ "${n2:-9}" -le 2 ] || bad "the two-column handout is $n2 pages (at most 2)"

[ $fail = 0 ] && echo "PASS t-colophon"
exit $fail
