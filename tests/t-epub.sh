#!/bin/sh
# t-epub.sh: the EPUB on real books. EPUBCheck reports 0 errors and 0
# warnings on the seed, the multi-file test book (tests/books/multi) and a
# book made of the GFM spec itself; every word of the seed reaches the
# EPUB's text in order; two builds with SOURCE_DATE_EPOCH are
# byte-identical; --no-embed-fonts leaves the fonts out; -M identifier=
# overrides the content-derived urn:uuid. Prints the seed EPUB's size.
set -u
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPROOT" || exit 1
mkdir -p epub && cd epub || exit 1
export SOURCE_DATE_EPOCH=1683763200
SEED="$TOP/content/lsfmm-bpf-2023.md"
SPEC="$TOP/tests/data/gfm-spec.txt"
JAR=/usr/share/java/epubcheck.jar


# Without the print page list the EPUB depends on nothing but the input.
"$OCTAVO" "$SEED" --no-page-list -o np1.epub || fail "the seed does not build"
"$OCTAVO" "$SEED" --no-page-list -o np2.epub || fail "the seed does not build twice"
cmp np1.epub np2.epub || fail "two builds with SOURCE_DATE_EPOCH differ (--no-page-list)"
# With it, the page breaks come from the PDF layout, which must be as
# reproducible.
"$OCTAVO" "$SEED" -o seed.epub || fail "the seed does not build"
"$OCTAVO" "$SEED" -o seed2.epub || fail "the seed does not build twice"
cmp seed.epub seed2.epub || fail "two builds with SOURCE_DATE_EPOCH differ"
unzip -p seed.epub EPUB/nav.xhtml | grep -q 'epub:type="page-list"' || fail "no page-list from the layout's page marks"
[ "$(unzip -p np1.epub EPUB/package.opf | grep dc:identifier)" = "$(unzip -p seed.epub EPUB/package.opf | grep dc:identifier)" ] ||
  fail "the identifier depends on the page list"
echo "seed EPUB: $(wc -c < seed.epub) bytes"
unzip -p seed.epub EPUB/package.opf | grep -q '<meta property="dcterms:modified">2023-05-11T00:00:00Z</meta>' ||
  fail "dcterms:modified does not follow SOURCE_DATE_EPOCH"
[ "$(unzip -p seed.epub EPUB/package.opf | grep -c 'dcterms:modified')" -eq 1 ] || fail "not exactly one dcterms:modified"
unzip -p seed.epub EPUB/package.opf | grep -q '<dc:identifier id="uid">urn:uuid:[0-9a-f]\{8\}-[0-9a-f]\{4\}-5' ||
  fail "no content-derived urn:uuid identifier"
unzip -l seed.epub | grep -q 'EPUB/fonts/CharisSIL-Regular.ttf' || fail "fonts not embedded"

python3 "$TOP/tests/tools/epub_words.py" seed.epub "$SEED" || fail "seed words missing from the EPUB"

"$OCTAVO" "$SEED" --no-embed-fonts -o nofonts.epub || fail "--no-embed-fonts build"
unzip -l nofonts.epub | grep -q 'fonts/' && fail "--no-embed-fonts still embeds fonts"
unzip -p nofonts.epub EPUB/styles/book.css | grep -q '^@font-face' && fail "--no-embed-fonts leaves @font-face rules"
echo "seed EPUB without fonts: $(wc -c < nofonts.epub) bytes"

"$OCTAVO" "$SEED" -M identifier=urn:isbn:9780000000002 -o id.epub || fail "-M identifier build"
unzip -p id.epub EPUB/package.opf | grep -q '<dc:identifier id="uid">urn:isbn:9780000000002</dc:identifier>' ||
  fail "-M identifier= does not override"
unzip -p id.epub EPUB/toc.ncx | grep -q 'content="urn:isbn:9780000000002"' || fail "toc.ncx uid differs from the OPF"

# The multi-file book's checks below were written for chapters at ## (its
# files open with a # each): built so; the default (auto) is t-shape.sh's.
"$OCTAVO" --split-level 2 "$TOP"/tests/books/multi/0*.md -o multi.epub 2> multi.err || { cat multi.err; fail "the multi-file book does not build"; }
# The one-document XHTML and the HTML fragment are well-formed XML.
"$OCTAVO" --split-level 2 "$TOP"/tests/books/multi/0*.md -o multi.xhtml -o multi.html 2>/dev/null || fail "-o .xhtml/.html"
python3 - multi.xhtml multi.html <<'PY' || fail "the .xhtml or .html output is not well-formed"
import sys
import xml.etree.ElementTree as ET
doc = ET.parse(sys.argv[1]).getroot()
assert len(doc.findall(".//{http://www.w3.org/1999/xhtml}section")) >= 6, "chapters missing"
ET.fromstring('<div xmlns:epub="http://www.idpf.org/2007/ops">' + open(sys.argv[2], encoding="utf-8").read() + "</div>")
PY
# Small books for what broke before: heading level jumps in the contents,
# notes referenced across chapters and from inside links and notes, ids that
# the writer's own ids would collide with, characters XML cannot carry.
printf '# Book\n\nIntro.\n\n## A\n\n#### deep\n\n### mid\n\n## B\n\n###### six\n\n# Part two\n\n### three\n\n## two\n' > jumps.md
printf '# Notes\n\nA note.[^a] [A link[^b]](https://example.com/).\n\n## Page 3\n\nAgain.[^a] [^c]\n\n## Fnref 1\n\n[^a]: Note A.\n[^b]: Note B.\n[^c]: Note C cites A.[^a]\n' > notes.md
printf -- '---\ntitle: "Con\\x01trol"\n---\n# T\001x\n\na\001b\014c \357\277\276 d [x\002](https://e.com "t\003")\n\n## H\001ead\n\ntext\n' > ctl.md
for b in jumps notes ctl; do
  "$OCTAVO" -q --toc-depth 6 "$b.md" -o "$b.epub" || fail "$b.md does not build"
done
# --toc-depth counts levels of the contents (chapters at 1, their sections at 2).
unzip -p multi.epub EPUB/nav.xhtml | grep -q 'href="ch03.xhtml#lists"' || fail "the contents lack the sections at depth 2"
"$OCTAVO" -q --split-level 2 --toc-depth 1 "$TOP"/tests/books/multi/0*.md -o depth1.epub || fail "--toc-depth 1"
unzip -p depth1.epub EPUB/nav.xhtml | grep -q '#lists"' && fail "--toc-depth 1 still lists sections"
unzip -p depth1.epub EPUB/nav.xhtml | grep -q 'href="ch04.xhtml">Long material<' || fail "--toc-depth 1 lost a chapter"
# One outline (issue 12): with a skipped level the nav and the NCX list
# the same entries, and a skipped level does not use up a depth.
printf -- '---\ntitle: Skip\n---\n## One\n\nText.\n\n#### Deep\n\nText.\n\n## Two\n\nText.\n' > skip.md
"$OCTAVO" -q --toc-depth 2 skip.md -o skip.epub || fail "skip.md does not build"
unzip -p skip.epub EPUB/nav.xhtml | sed -n '/epub:type="toc"/,/<\/nav>/p' | grep -o '<a href="[^"]*">[^<]*' | sed 's/<a href="//; s/">/ /' > skip.nav
unzip -p skip.epub EPUB/toc.ncx | tr -d '\n' | sed 's/.*<navMap>//; s/<\/navMap>.*//' | grep -o '<text>[^<]*</text> *</navLabel> *<content src="[^"]*"' |
  sed 's/<text>\([^<]*\)<\/text> *<\/navLabel> *<content src="\([^"]*\)"/\2 \1/' > skip.ncx
printf 'ch01.xhtml One\nch01.xhtml#deep Deep\nch02.xhtml Two\n' > skip.want
cmp -s skip.nav skip.want || { cat skip.nav; fail "--toc-depth 2: the nav is not the outline's One, Deep, Two"; }
cmp -s skip.ncx skip.want || { cat skip.ncx; fail "--toc-depth 2: the NCX is not the nav"; }
# octavo's own words in the book's language (labels.c).
printf -- '---\ntitle: Livre\nauthor: [Ada, Charles]\n---\n## Un\n\nTexte.\n' > fr.md
"$OCTAVO" -q --lang fr fr.md -o fr.epub || fail "fr.md does not build"
unzip -p fr.epub EPUB/nav.xhtml | grep -q 'Table des matières' || fail "--lang fr: the nav is not 'Table des matières'"
unzip -p fr.epub EPUB/title.xhtml | grep -q 'Par Ada et Charles' || fail "--lang fr: the byline is not 'Par Ada et Charles'"
# The title page reads as the PDF's: byline and date through labels.c.
printf -- '---\ntitle: Livre\nauthor: [Ada, Charles]\ndate: 2023-05-11\n---\n## Un\n\nTexte.\n' > frd.md
"$OCTAVO" -q --lang fr frd.md -o frd.epub || fail "frd.md does not build"
unzip -p frd.epub EPUB/title.xhtml | grep -q '<p class="date">11 mai 2023</p>' || fail "--lang fr: the date is not '11 mai 2023'"
unzip -p seed.epub EPUB/title.xhtml | grep -q '<p class="author">By Jonathan Corbet</p>' || fail "the seed's byline"
unzip -p seed.epub EPUB/title.xhtml | grep -q '<p class="date">11 May 2023</p>' || fail "the seed's date is not '11 May 2023'"

# The package meets the readers' conventions (issue 17).
opf=$(unzip -p seed.epub EPUB/package.opf)
for m in '<meta property="rendition:layout">reflowable</meta>' '<meta property="rendition:orientation">auto</meta>' \
         '<meta property="rendition:spread">auto</meta>' \
         '<meta property="dcterms:conformsTo">EPUB Accessibility 1.1 - WCAG 2.1 Level AA</meta>' \
         '<meta property="a11y:certifiedBy">octavo</meta>' '<meta property="schema:accessibilityHazard">none</meta>'; do
  echo "$opf" | grep -qF "$m" || fail "the OPF lacks $m"
done
unzip -p seed.epub META-INF/com.apple.ibooks.display-options.xml | tr -d ' \n' |
  grep -q '<display_options><platformname="\*"><optionname="specified-fonts">true</option></platform></display_options>' ||
  fail "no Apple display-options file with specified-fonts=true"
# an image without alt text: no conformance claim
cp "$TOP/tests/books/multi/images/diagram.png" noalt.png
printf '# No alt\n\n![](noalt.png)\n' > noalt.md
"$OCTAVO" -q noalt.md -o noalt.epub || fail "noalt.md does not build"
unzip -p noalt.epub EPUB/package.opf | grep -q 'conformsTo' && fail "a book with an image without alt text claims WCAG conformance"
# The cover fills the page: an SVG wrapper at the image's size.
echo "$opf" | grep -qF '<item id="cover" href="cover.xhtml" media-type="application/xhtml+xml" properties="svg"/>' ||
  fail "the cover page is not declared properties=svg"
cover=$(unzip -p seed.epub EPUB/cover.xhtml)
echo "$cover" | grep -qF 'width="100%" height="100%" viewBox="0 0 1000 1500" preserveAspectRatio="xMidYMid meet"' ||
  fail "the cover's SVG wrapper lacks its viewBox or preserveAspectRatio"
echo "$cover" | grep -qF '<image width="1000" height="1500" xlink:href="cover.png"/>' || fail "the cover's SVG has no image"
echo "$cover" | grep -q '<img' && fail "the cover is still an <img>"
# The opening chapter (its # became the title) is headed by the title,
# where the contents' first entry points.
unzip -p seed.epub EPUB/ch01.xhtml | grep -q '<h1 class="opening">.*The 2023 LSFMM+BPF Summit</h1>' ||
  fail "the opening chapter has no heading"
unzip -p seed.epub EPUB/nav.xhtml | grep -m1 '<a href="ch' | grep -q 'href="ch01.xhtml">The 2023 LSFMM+BPF Summit<' ||
  fail "the contents' first entry is not the opening chapter"
# The contents as a book's: under -N the numbers in spans of their own.
"$OCTAVO" -q -N --split-level 2 "$TOP"/tests/books/multi/0*.md -o multiN.epub || fail "-N multi"
unzip -p multiN.epub EPUB/nav.xhtml | grep -q '<a href="ch02.xhtml"><span class="toc-number">1</span>.Background</a>' ||
  fail "-N: the contents' numbers are not in span.toc-number"
css=$(unzip -p seed.epub EPUB/styles/book.css)
echo "$css" | grep -q 'th { font-weight: bold; text-align: start; }' || fail "header cells are centred"
echo "$css" | grep -q 'text-decoration: none' || fail "the contents are underlined"
# The colophon: the last spine item, in the book's language.
echo "$opf" | grep 'itemref' | tail -1 | grep -q 'idref="colophon"' || fail "the colophon is not the last spine item"
id=$(echo "$opf" | sed -n 's/.*<dc:identifier id="uid">\([^<]*\)<.*/\1/p')
col=$(unzip -p seed.epub EPUB/colophon.xhtml)
for w in '<h1 id="colophon-title">Colophon</h1>' "<dt>Identifier</dt>" "<dd>$id</dd>" '<dt>Built</dt>' \
         '<dd>11 May 2023</dd>' '<dt>Typefaces</dt>' '<dd>Charis SIL and DejaVu Sans Mono</dd>' \
         "<p class=\"made-with\">Made with octavo "; do
  echo "$col" | grep -qF "$w" || fail "the colophon lacks $w"
done
echo "$col" | grep -q '<dt>Source</dt>' && fail "a colophon without -M source names a source"
"$OCTAVO" -q "$SEED" -M source=https://lwn.net/Articles/931180/ --no-page-list -o src.epub || fail "-M source"
unzip -p src.epub EPUB/colophon.xhtml | grep -qF '<dt>Source</dt>' || fail "the colophon lacks the source"
unzip -p src.epub EPUB/colophon.xhtml | grep -qF '<dd><a href="https://lwn.net/Articles/931180/">' || fail "the source is not a link"
unzip -p src.epub EPUB/package.opf | grep -qF '<dc:source>https://lwn.net/Articles/931180/</dc:source>' || fail "no dc:source"
unzip -p nofonts.epub EPUB/colophon.xhtml | grep -q 'Typefaces' && fail "--no-embed-fonts: the colophon names fonts"
unzip -p frd.epub EPUB/colophon.xhtml | grep -qF '<dt>Identifiant</dt>' || fail "--lang fr: the colophon's words"
unzip -p frd.epub EPUB/colophon.xhtml | grep -qF 'Réalisé avec octavo' || fail "--lang fr: the colophon's 'made with'"
books="seed multi jumps notes ctl frd noalt src multiN"
if [ -f "$SPEC" ]; then
  "$OCTAVO" "$SPEC" -o spec.epub 2> spec.err || { tail spec.err; fail "the spec book does not build"; }
  books="$books spec"
else
  echo "note: $SPEC absent; the spec book is not checked"
fi

# Heading order (Ace by DAISY's heading-order rule, axe-core): in every
# chapter document a heading is at most one level below the one before it,
# even when the source skips levels (the multi book's `# Features` has
# `###` sections).
for b in $books; do
  python3 - "$b.epub" <<'PY' || fail "$b.epub: a heading skips a level"
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
bad = []
for n in z.namelist():
    if not re.search(r'/ch\d+\.xhtml$', n):
        continue
    prev = 0
    for m in re.finditer(r'<h([1-6])\b', z.read(n).decode('utf-8')):
        lv = int(m.group(1))
        if prev and lv > prev + 1:
            bad.append('%s: h%d after h%d' % (n, lv, prev))
        prev = lv
for b in bad[:10]:
    print(b)
sys.exit(1 if bad else 0)
PY
done

# An older EPUB survives a failed build and no temporary file is left.
cp seed.epub keep.epub
printf '# T\n\n![x](img.png)\n' > bad.md
printf 'not a png' > img.png
chmod 000 img.png
if [ "$(id -u)" -ne 0 ]; then
  "$OCTAVO" bad.md -o keep.epub 2>/dev/null && fail "an unreadable image did not fail the build"
  cmp keep.epub seed.epub || fail "a failed build changed the older EPUB"
fi
chmod 644 img.png
ls -a | grep -q '\.tmp-' && fail "a temporary file was left behind"

[ -f "$JAR" ] && command -v java >/dev/null || { echo "SKIP: EPUBCheck not installed"; exit 77; }
# One JVM for all the books (tests/tools/EpubCheckMany.java): each start
# costs seconds.
files=""
for b in $books; do files="$files $b.epub"; done
# shellcheck disable=SC2086
java -cp "$JAR" "$TOP/tests/tools/EpubCheckMany.java" $files > epubcheck.out 2>&1
status=$?
for b in $books; do
  grep "^$b.epub: " epubcheck.out | sed 's/^/EPUBCheck /'
  grep -q "^$b.epub: 0 errors, 0 warnings$" epubcheck.out || status=1
done
[ $status -eq 0 ] || grep -E '^(FATAL|ERROR|WARNING)' epubcheck.out | head -20
[ $status -eq 0 ] || fail "EPUBCheck is not silent"
echo "ok"
