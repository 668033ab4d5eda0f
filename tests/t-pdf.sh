#!/bin/sh
# t-pdf.sh: the print PDF of the seed and of tests/books/multi (several
# files, every block type): qpdf --check clean; every font embedded
# (pdffonts); pdfinfo shows the title, the author, the page size and
# "Tagged: yes"; every word of the model in pdftotext -raw output, in
# order (and every word of the seed's Markdown); every link and outline
# entry lands on a destination that exists; an outline entry per chapter;
# the contents' page numbers are the pages where the entries stand; paper
# sizes; two builds with the same SOURCE_DATE_EPOCH are byte-identical.
set -u
for t in qpdf pdffonts pdfinfo pdftotext python3; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
tool="$TOP/tests/tools/pdf_check.py"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

check_book() { # name title author inputs...
  name=$1 title=$2 author=$3; shift 3
  pdf="$TMPROOT/pdf-$name.pdf"
  SOURCE_DATE_EPOCH=1700000000 "$OCTAVO" -q "$@" -o "$pdf" || { bad "$name: octavo failed"; return; }
  [ -s "$pdf" ] || { bad "$name: no PDF"; return; }
  "$OCTAVO" -q "$@" --dump-model > "$TMPROOT/pdf-$name.dump" || bad "$name: --dump-model failed"
  qpdf --check "$pdf" > "$TMPROOT/pdf-$name.qpdf" 2>&1 || { bad "$name: qpdf --check"; cat "$TMPROOT/pdf-$name.qpdf"; }
  grep -q "No syntax or stream encoding errors" "$TMPROOT/pdf-$name.qpdf" || bad "$name: qpdf found errors"
  # every font embedded: the emb column of pdffonts is "yes" on every row
  pdffonts "$pdf" | awk 'NR > 2 { n++; if ($(NF-4) != "yes") bad++ } END { exit !(n > 0 && bad == 0) }' \
    || { bad "$name: a font is not embedded"; pdffonts "$pdf"; }
  info=$(pdfinfo "$pdf")
  if [ -n "$title" ]; then
    echo "$info" | grep -q "^Title: *$title\$" || bad "$name: title (pdfinfo: $(echo "$info" | grep ^Title))"
    echo "$info" | grep -q "^Author: *$author" || bad "$name: author"
  fi
  echo "$info" | grep -q "^Tagged: *yes" || bad "$name: not tagged"
  echo "$info" | grep -q "^Page size: *595.27.* x 841.89 pts (A4)" || bad "$name: not A4"
  echo "$info" | grep -q "^Creator: *octavo " || bad "$name: creator"
  python3 "$tool" links "$pdf" || bad "$name: links"
  python3 "$tool" outline "$pdf" "$TMPROOT/pdf-$name.dump" || bad "$name: outline"
  python3 "$tool" words "$pdf" "$TMPROOT/pdf-$name.dump" || bad "$name: words"
  python3 "$tool" toc "$pdf" || bad "$name: contents page numbers"
  # reproducible
  SOURCE_DATE_EPOCH=1700000000 "$OCTAVO" -q "$@" -o "$TMPROOT/pdf-$name-2.pdf" || bad "$name: second build"
  cmp -s "$pdf" "$TMPROOT/pdf-$name-2.pdf" || bad "$name: two builds differ"
  echo "$name: $(echo "$info" | grep ^Pages: | tr -s ' ') $(wc -c < "$pdf") bytes"
}

check_book seed "The 2023 LSFMM+BPF Summit" "Jonathan Corbet" "$TOP/content/lsfmm-bpf-2023.md"
python3 "$tool" mdwords "$TMPROOT/pdf-seed.pdf" "$TOP/content/lsfmm-bpf-2023.md" || bad "seed: source words"
if [ -d "$TOP/tests/books/multi" ]; then
  check_book multi "A Test Book of Many Parts" "Ada Lovelace, Charles Babbage" "$TOP"/tests/books/multi/*.md
fi
# every other test book: the same checks but title and author
for d in "$TOP"/tests/books/*/; do
  n=$(basename "$d")
  [ "$n" = multi ] && continue
  [ "$n" = fonts ] && continue # t-fonts checks its scripts book; pdftotext reads right-to-left lines in visual order
  ls "$d"*.md >/dev/null 2>&1 || continue
  check_book "$n" "" "" "$d"*.md
done

# URLs printed for paper: a link whose text is not its URL gets it as a
# footnote (or, with --link-notes=end, listed at the chapter's end)
if [ -d "$TOP/tests/books/multi" ]; then
  for m in foot end; do
    "$OCTAVO" -q --link-notes $m "$TOP"/tests/books/multi/*.md -o "$TMPROOT/pdf-url-$m.pdf" || bad "link notes $m: octavo"
    pdftotext -raw "$TMPROOT/pdf-url-$m.pdf" - | grep -q "^a https://commonmark.org/" || bad "link notes $m: URL not printed"
    python3 "$tool" links "$TMPROOT/pdf-url-$m.pdf" >/dev/null || bad "link notes $m: links"
  done
  pdftotext -raw "$TMPROOT/pdf-url-end.pdf" - | grep -q "^Links" || bad "link notes end: no list"
fi

# paper sizes and two columns
for p in a5:"419.52.* x 595.27" letter:"612 x 792"; do
  paper=${p%%:*} size=${p#*:}
  "$OCTAVO" -q --paper "$paper" "$TOP/content/lsfmm-bpf-2023.md" -o "$TMPROOT/pdf-$paper.pdf" || bad "$paper: octavo"
  pdfinfo "$TMPROOT/pdf-$paper.pdf" | grep -q "^Page size: *$size" || bad "$paper: page size"
  python3 "$tool" toc "$TMPROOT/pdf-$paper.pdf" >/dev/null || bad "$paper: contents"
done
"$OCTAVO" -q --columns 2 "$TOP/content/lsfmm-bpf-2023.md" -o "$TMPROOT/pdf-2col.pdf" || bad "2 columns: octavo"
python3 "$tool" words "$TMPROOT/pdf-2col.pdf" "$TMPROOT/pdf-seed.dump" >/dev/null || bad "2 columns: words"
python3 "$tool" toc "$TMPROOT/pdf-2col.pdf" >/dev/null || bad "2 columns: contents"
python3 "$tool" links "$TMPROOT/pdf-2col.pdf" >/dev/null || bad "2 columns: links"

# a note referenced only from another note still reaches the page (after
# its caller), and a link inside a note prints its URL in parentheses
cat > "$TMPROOT/pdf-notes.md" <<'EOF'
# Notes

A paragraph with a note.[^a] And another.[^c]

[^a]: The first note points to [the spec](https://spec.commonmark.org/) and to another note.[^b]
[^b]: A note referenced only from a note, with Zanzibar in it.
[^c]: Plain third note.
EOF
"$OCTAVO" -q "$TMPROOT/pdf-notes.md" -o "$TMPROOT/pdf-notes.pdf" || bad "nested notes: octavo"
pdftotext -raw "$TMPROOT/pdf-notes.pdf" - > "$TMPROOT/pdf-notes.txt"
grep -q '^3 A note referenced only from a note, with Zanzibar in it' "$TMPROOT/pdf-notes.txt" ||
  bad "a note referenced from a note is lost"
grep -q 'the spec (https://spec.commonmark.org/)' "$TMPROOT/pdf-notes.txt" || bad "a link in a note: URL not printed"
python3 "$tool" links "$TMPROOT/pdf-notes.pdf" >/dev/null || bad "nested notes: links"

# destinations named by non-ASCII headings: every link and bookmark lands
# (cairo 1.16 keys its name tree by the name's raw bytes but writes a link's
# name as UTF-16) and mupdf says nothing
cat > "$TMPROOT/pdf-names.md" <<'EOF'
# Names

To [the next one](#szybki-poradnik-na-początek) and [the last](#über-日本語).

## Szybki poradnik na początek

Back to [the first](#names).

## Über 日本語

Text.
EOF
"$OCTAVO" -q "$TMPROOT/pdf-names.md" -o "$TMPROOT/pdf-names.pdf" || bad "names: octavo"
qpdf --check "$TMPROOT/pdf-names.pdf" >/dev/null 2>&1 || bad "names: qpdf --check"
python3 "$tool" links "$TMPROOT/pdf-names.pdf" || bad "names: links"
if command -v mutool >/dev/null 2>&1; then
  out=$(mutool draw -q -o "$TMPROOT/names-%d.png" -r 20 "$TMPROOT/pdf-names.pdf" 2>&1 |
    grep -v '^warning: ICC support is not available$')
  [ -z "$out" ] || bad "names: mutool says: $out"
fi

# tagged headings never skip a level (PDF/UA), though the multi book's
# source goes from # to ###
python3 "$tool" headings "$TMPROOT/pdf-url-foot.pdf" >/dev/null || bad "multi: a tagged heading skips a level"
python3 "$tool" headings "$TMPROOT/pdf-seed.pdf" >/dev/null || bad "seed: a tagged heading skips a level"

# --smart: typographic quotes and dashes in both books; without it the
# source's straight quotes stay (GFM); the words stay either way
"$OCTAVO" -q --smart "$TOP/content/lsfmm-bpf-2023.md" -o "$TMPROOT/pdf-smart.pdf" -o "$TMPROOT/pdf-smart.epub" ||
  bad "--smart: octavo"
pdftotext "$TMPROOT/pdf-smart.pdf" - | grep -q "kernel’s" || bad "--smart: no curly apostrophe in the PDF"
unzip -p "$TMPROOT/pdf-smart.epub" 'EPUB/ch*.xhtml' | grep -q "kernel’s" || bad "--smart: no curly apostrophe in the EPUB"
pdftotext "$TMPROOT/pdf-2col.pdf" - | grep -q "kernel's" || bad "without --smart the apostrophe changed"
python3 "$tool" words "$TMPROOT/pdf-smart.pdf" "$TMPROOT/pdf-seed.dump" >/dev/null || bad "--smart: words"

# chapters are numbered (-N) or not the same way in the EPUB's nav, the
# PDF's contents and its bookmarks
for n in plain:'' numbered:-N; do
  name=${n%%:*} flag=${n#*:}
  # shellcheck disable=SC2086 # flag is empty or one word
  "$OCTAVO" -q $flag "$TOP/content/lsfmm-bpf-2023.md" -o "$TMPROOT/num-$name.epub" \
    -o "$TMPROOT/num-$name.pdf" || bad "numbering $name: octavo"
  python3 "$tool" numbering "$TMPROOT/num-$name.pdf" "$TMPROOT/num-$name.epub" >"$TMPROOT/num.out" ||
    { cat "$TMPROOT/num.out"; bad "numbering $name: nav, contents and bookmarks differ"; }
  if [ "$name" = numbered ]; then
    grep -q '(5 numbered)' "$TMPROOT/num.out" || bad "-N: the seed's five chapters are not numbered"
  else
    grep -q '(0 numbered)' "$TMPROOT/num.out" || bad "without -N, entries are numbered"
  fi
done
if [ -d "$TOP/tests/books/multi" ]; then
  "$OCTAVO" -q -N --toc-depth 3 --columns 2 "$TOP"/tests/books/multi/*.md -o "$TMPROOT/num-multi.epub" \
    -o "$TMPROOT/num-multi.pdf" || bad "numbering multi: octavo"
  python3 "$tool" numbering "$TMPROOT/num-multi.pdf" "$TMPROOT/num-multi.epub" >"$TMPROOT/num.out" ||
    { cat "$TMPROOT/num.out"; bad "numbering multi: nav, contents and bookmarks differ"; }
fi

# octavo's own words in the book's language, as in the EPUB (labels.c)
printf -- '---\ntitle: Livre\nauthor: [Ada, Charles]\n---\n## Un\n\nTexte.\n' > "$TMPROOT/pdf-fr.md"
if "$OCTAVO" -q --lang fr "$TMPROOT/pdf-fr.md" -o "$TMPROOT/pdf-fr.pdf"; then
  pdftotext "$TMPROOT/pdf-fr.pdf" - | grep -q 'Table des matières' || bad "--lang fr: the PDF's contents are not 'Table des matières'"
  pdftotext "$TMPROOT/pdf-fr.pdf" - | grep -q 'Ada et Charles' || bad "--lang fr: the PDF's title page is not 'Ada et Charles'"
else
  bad "--lang fr: no PDF"
fi
# a PDF to an unwritable place fails cleanly and leaves nothing behind
if "$OCTAVO" -q "$TOP/content/lsfmm-bpf-2023.md" -o "$TMPROOT/no/such/dir/x.pdf" 2>/dev/null; then
  bad "writing into a missing directory succeeded"
fi
exit $fail
