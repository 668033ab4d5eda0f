#!/bin/sh
# t-archive.sh: the archival PDF (src/archive.c: PDF/A-3u, PDF/UA-1 claims),
# one check per claim, on the finished PDFs of the report and of
# tests/books/multi (tests/tools/pdfa_check.py says what each checks):
# qpdf --check clean; XMP present, parsed and consistent with Info
# (pdfinfo: "Metadata Stream: yes"); /Lang; MarkInfo, DisplayDocTitle;
# /Tabs /S; an sRGB output intent with a valid ICC profile; /Alt on every
# Figure; /Contents and the print flag on annotations; the sources
# attached (pdfdetach -list) with AFRelationship; nothing forbidden; fonts
# embedded with ToUnicode; links, outline, page labels and structure tree
# as with --pdf-standard none; the file written compact (object streams and
# a cross-reference stream with /ID, issue 26); two builds byte-identical;
# --pdf-standard none gives the PDF without the archival claims;
# --no-attach-source; bad values.
set -u
for t in qpdf pdfinfo pdfdetach python3; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
[ -f /usr/share/color/icc/sRGB.icc ] || [ -f /usr/share/color/icc/colord/sRGB.icc ] ||
  { echo "SKIP: no sRGB ICC profile (icc-profiles-free)"; exit 77; }
tool="$TOP/tests/tools/pdfa_check.py"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
export SOURCE_DATE_EPOCH=1700000000

check_book() { # name lang nfiles inputs...
  name=$1 lang=$2 nfiles=$3; shift 3
  pdf="$TMPROOT/arch-$name.pdf" plain="$TMPROOT/arch-$name-none.pdf"
  "$OCTAVO" -q "$@" -o "$pdf" || { bad "$name: octavo failed"; return; }
  "$OCTAVO" -q --pdf-standard none "$@" -o "$plain" || { bad "$name: --pdf-standard none failed"; return; }
  qpdf --check "$pdf" > "$TMPROOT/arch-$name.qpdf" 2>&1 || { bad "$name: qpdf --check"; cat "$TMPROOT/arch-$name.qpdf"; }
  grep -q "No syntax or stream encoding errors" "$TMPROOT/arch-$name.qpdf" || bad "$name: qpdf found errors"
  pdfinfo "$pdf" | grep -q "^Metadata Stream: *yes" || bad "$name: pdfinfo shows no metadata stream"
  pdfinfo "$pdf" | grep -q "^Tagged: *yes" || bad "$name: not tagged"
  for c in xmp catalog tabs intent figures annots forbidden fonts; do
    python3 "$tool" $c "$pdf" || bad "$name: $c"
  done
  python3 "$tool" lang "$pdf" "$lang" || bad "$name: lang"
  python3 "$tool" attach "$pdf" "$nfiles" || bad "$name: attachments"
  n=$(pdfdetach -list "$pdf" | grep -c '\.md$')
  [ "$n" = "$nfiles" ] || bad "$name: pdfdetach lists $n .md files, not $nfiles"
  # the attached bytes are the source's
  first=; for a in "$@"; do case $a in *.md) first=$a; break;; esac; done
  pdfdetach -save 1 -o "$TMPROOT/arch-$name-att.md" "$pdf" >/dev/null 2>&1 &&
    cmp -s "$TMPROOT/arch-$name-att.md" "$first" || bad "$name: the first attachment is not $first"
  # the pass undoes nothing
  python3 "$tool" same "$plain" "$pdf" || bad "$name: links, outline, labels or structure changed"
  # and looks the same: every page drawn by poppler (and mupdf, where
  # check-readers installed it) is pixel-identical with and without the pass
  pdftoppm -r 36 -gray "$pdf" "$TMPROOT/arch-$name-a" && pdftoppm -r 36 -gray "$plain" "$TMPROOT/arch-$name-n" ||
    bad "$name: pdftoppm failed"
  for f in "$TMPROOT/arch-$name-a"-*.pgm; do
    cmp -s "$f" "$TMPROOT/arch-$name-n${f#"$TMPROOT/arch-$name-a"}" || bad "$name: poppler draws ${f##*-} differently"
  done
  if command -v mutool >/dev/null 2>&1; then
    mutool draw -q -r 36 -c gray -o "$TMPROOT/arch-$name-ma-%d.pgm" "$pdf" 2>/dev/null
    mutool draw -q -r 36 -c gray -o "$TMPROOT/arch-$name-mn-%d.pgm" "$plain" 2>/dev/null
    for f in "$TMPROOT/arch-$name-ma"-*.pgm; do
      cmp -s "$f" "$TMPROOT/arch-$name-mn${f#"$TMPROOT/arch-$name-ma"}" || bad "$name: mupdf draws ${f##*-} differently"
    done
  fi
  # written compact (pdfupdate_write): every object but the streams in
  # object streams, the cross-reference table a stream whose dictionary
  # has the trailer's /ID; with --pdf-standard none too
  for f in "$pdf" "$plain"; do
    qpdf --show-xref "$f" | grep -q 'compressed; stream = ' || bad "$name: $f has no object streams"
    qpdf --show-xref "$f" | grep -q '^[0-9]*/0: uncompressed' || bad "$name: $f: no objects outside object streams"
  done
  qpdf --show-object=trailer "$pdf" | grep -q '/Type /XRef' || bad "$name: no cross-reference stream"
  qpdf --show-object=trailer "$pdf" | grep -q '/ID \[ *<[0-9a-f]\{32\}> *<[0-9a-f]\{32\}> *\]' || bad "$name: the trailer has no /ID"
  # reproducible
  "$OCTAVO" -q "$@" -o "$TMPROOT/arch-$name-2.pdf" || bad "$name: second build failed"
  cmp -s "$pdf" "$TMPROOT/arch-$name-2.pdf" || bad "$name: two builds differ"
  # --pdf-standard none: cairo's PDF with its pages in order, without a trace
  # of the archival pass
  if pdfinfo "$plain" | grep -q "^Metadata Stream: *yes" ||
    qpdf --qdf --object-streams=disable "$plain" - | grep -aq '/OutputIntents\|/AFRelationship'; then
    bad "$name: --pdf-standard none still archives"
  fi
  # --no-attach-source
  "$OCTAVO" -q --no-attach-source "$@" -o "$TMPROOT/arch-$name-noatt.pdf" || bad "$name: --no-attach-source failed"
  [ "$(pdfdetach -list "$TMPROOT/arch-$name-noatt.pdf" | head -1)" = "0 embedded files" ] ||
    bad "$name: --no-attach-source attached files"
  python3 "$tool" xmp "$TMPROOT/arch-$name-noatt.pdf" || bad "$name: --no-attach-source: xmp"
}

check_book report en 1 --smart "$TOP/content/lsfmm-bpf-2023.md"
check_book multi en 3 "$TOP"/tests/books/multi/*.md
# a language from the command line reaches /Lang and dc:language
check_book lang de 1 --lang de "$TOP/tests/books/multi/01-intro.md"

# the cross-reference stream of a book of thousands of objects goes through
# the PNG Up predictor (pdfupdate.c xref_stream: deflate alone took 28 ms on
# the 2 MB bench book's, for 4 times the bytes), and reads back whole: one
# entry per object, each of them where qpdf finds it
python3 "$TOP/bench/gen-book.py" --no-images "$TMPROOT/gb" 0.2 4 >/dev/null 2>&1 || bad "gen-book.py failed"
if "$OCTAVO" -q "$TMPROOT"/gb/0*-chapter.md -o "$TMPROOT/gb.pdf"; then
  trailer=$(qpdf --show-object=trailer "$TMPROOT/gb.pdf")
  size=$(echo "$trailer" | sed -n 's|.*/Size \([0-9]*\).*|\1|p')
  [ "${size:-0}" -ge 1024 ] || bad "gen-book: only ${size:-no} objects (want 1,024 or more)"
  echo "$trailer" | grep -q '/DecodeParms << /Columns [0-9]* /Predictor 12 >>' ||
    bad "gen-book: the cross-reference stream of $size entries without the predictor"
  [ "$(qpdf --show-xref "$TMPROOT/gb.pdf" | grep -c '^[0-9]*/[0-9]*: ')" = $((size - 1)) ] ||
    bad "gen-book: the cross-reference stream does not read back as $size entries"
  qpdf --check "$TMPROOT/gb.pdf" >/dev/null 2>&1 || bad "gen-book: qpdf --check"
else
  bad "gen-book: octavo failed"
fi

# /Contents as each link says and /Alt on the Figure, whether the pass adds
# them to cairo's bytes by a scan (a plain URI, a destination, the Figure)
# or reads the annotation through qpdf (a URI cairo writes with escapes:
# parentheses); a heading's non-ASCII text in /Contents (issue 30)
mkdir -p "$TMPROOT/odd"
cp "$TOP/tests/books/inline/icon.png" "$TMPROOT/odd/dot.png"
cat > "$TMPROOT/odd/a.md" <<'EOF'
# Héllo wörld {#hello}

See [the wiki](https://en.wikipedia.org/wiki/Foo_(bar)), [plain](https://example.com/plain)
and [the heading](#hello).

![A dot drawn small](dot.png)
EOF
if "$OCTAVO" -q "$TMPROOT/odd/a.md" -o "$TMPROOT/odd.pdf"; then
  qpdf --json=2 --json-key=qpdf "$TMPROOT/odd.pdf" > "$TMPROOT/odd.json"
  python3 - "$TMPROOT/odd.json" <<'PY' || bad "odd links: /Contents, /F or /Alt"
import json, sys
objs = json.load(open(sys.argv[1]))["qpdf"][1].values()
vals = [o["value"] for o in objs if isinstance(o.get("value"), dict)]
# each URI is linked twice (the text and its printed note's mark, whose
# destination has no text of its own)
got = {(v.get("/Contents"), v.get("/F")) for v in vals if v.get("/Subtype") == "/Link"}
want = {("u:https://en.wikipedia.org/wiki/Foo_(bar)", 4), ("u:https://example.com/plain", 4),
        ("u:Go to Héllo wörld", 4), ("u:Go to another place in this book", 4)}
alts = [v.get("/Alt") for v in vals if v.get("/S") == "/Figure"]
ok = got == want and alts == ["u:A dot drawn small"]
if not ok:
    print("links %r (want %r), Figure /Alt %r" % (got, want, alts))
sys.exit(0 if ok else 1)
PY
else
  bad "odd links: octavo failed"
fi

# --pdf-standard: one of the two; a bad value is a usage error
"$OCTAVO" -q --pdf-standard ua-1 "$TOP/tests/books/multi/01-intro.md" -o "$TMPROOT/arch-ua.pdf" ||
  bad "--pdf-standard ua-1 failed"
python3 "$tool" figures "$TMPROOT/arch-ua.pdf" >/dev/null || bad "ua-1: figures"
qpdf --qdf --object-streams=disable "$TMPROOT/arch-ua.pdf" - | grep -aq '/OutputIntents' &&
  bad "ua-1 alone wrote an output intent"
"$OCTAVO" -q --pdf-standard a-4 "$TOP/tests/books/multi/01-intro.md" -o "$TMPROOT/arch-bad.pdf" 2>/dev/null
[ $? -eq 2 ] || bad "--pdf-standard a-4 is not a usage error"
[ -e "$TMPROOT/arch-bad.pdf" ] && bad "--pdf-standard a-4 wrote a file"

# stdin: nothing to attach, still archival
"$OCTAVO" -q -t pdf -o "$TMPROOT/arch-stdin.pdf" - < "$TOP/tests/books/multi/01-intro.md" || bad "stdin failed"
python3 "$tool" xmp "$TMPROOT/arch-stdin.pdf" || bad "stdin: xmp"

exit $fail
