#!/bin/sh
# t-images.sh: images in the PDF. Two ordinary PNG figures give a clean,
# tagged PDF (cairo 1.16 used to refuse the tags when a Figure held a
# cairo_paint of an image, and its untagged fallback wrote a damaged
# cross-reference table); every figure is a Figure structure element.
set -u
for t in qpdf pdfinfo pdfimages python3; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }
D="$TMPROOT/images"
mkdir -p "$D"
A="$TOP/tests/corpus/f3discovery/src/assets"
cp "$A/gdb-layout-split-1.png" "$D/a.png" || exit 1
cp "$A/gdb-layout-split-2.png" "$D/b.png" || exit 1
printf '## Images\n\n![first](a.png)\n\n![second](b.png)\n' > "$D/two.md"

# structure_count PDF TAG: how many structure elements of type TAG
structure_count() {
  qpdf --json=2 --json-key=qpdf "$1" | python3 -c '
import json, sys
objs = json.load(sys.stdin)["qpdf"][1].values()
vals = [o.get("value") for o in objs if isinstance(o, dict)]
print(sum(1 for v in vals if isinstance(v, dict) and v.get("/S") == "/" + sys.argv[1] and "/P" in v))' "$2"
}

for std in none default; do
  pdf="$D/two-$std.pdf"
  if [ $std = none ]; then set -- --pdf-standard none; else set --; fi
  "$OCTAVO" "$@" "$D/two.md" -o "$pdf" 2> "$D/two-$std.err" || { bad "$std: octavo failed"; cat "$D/two-$std.err"; continue; }
  grep -q "cairo refused" "$D/two-$std.err" && bad "$std: $(grep cairo "$D/two-$std.err")"
  qpdf --check "$pdf" > "$D/two-$std.qpdf" 2>&1 || bad "$std: qpdf --check failed"
  grep -q "WARNING\|damaged" "$D/two-$std.qpdf" && { bad "$std: qpdf warnings"; head -3 "$D/two-$std.qpdf"; }
  pdfinfo "$pdf" | grep -q "^Tagged: *yes" || bad "$std: not tagged"
  n=$(pdfimages -list "$pdf" | awk 'NR > 2 && $3 == "image"' | wc -l)
  [ "$n" -eq 2 ] || bad "$std: $n images drawn, want 2"
  f=$(structure_count "$pdf" Figure)
  [ "$f" -eq 2 ] || bad "$std: $f Figure elements, want 2"
done

# every kind: PNG and GIF as rasters (the GIF's first frame), SVG as vectors
# (a Figure, no raster), a raw-HTML width in percent of the measure
cp "$A/f3-led-roulette.gif" "$D/anim.gif" || exit 1
cp "$TOP/tests/books/multi/images/logo.svg" "$D/logo.svg" || exit 1
printf '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="10"</svg>\n' > "$D/bad.svg"
cat > "$D/kinds.md" <<'MD'
# Kinds

![an animation](anim.gif)

![a logo](logo.svg)

<img src="a.png" alt="half" style="width: 50%">

Text between.

![A broken
drawing whose alternative text is much longer than any frame could hold on one line, so it wraps inside](bad.svg)
MD
pdf="$D/kinds.pdf"
"$OCTAVO" "$D/kinds.md" -o "$pdf" -o "$D/kinds.epub" 2> "$D/kinds.err"
rc=$?
[ $rc -eq 0 ] || bad "kinds: exit $rc (a malformed SVG must not stop the build)"
grep -q "kinds.md:11:1: warning: image bad.svg is not a well-formed SVG" "$D/kinds.err" \
  || { bad "kinds: no positioned warning for bad.svg"; cat "$D/kinds.err"; }
grep -q "cannot be drawn\|cairo refused" "$D/kinds.err" && bad "kinds: $(cat "$D/kinds.err")"
qpdf --check "$pdf" 2>&1 | grep -q "WARNING" && bad "kinds: qpdf warnings"
pdfimages -list "$pdf" | awk 'NR > 2 && $3 == "image" { print $4 "x" $5 }' > "$D/kinds.imgs"
grep -qx "320x194" "$D/kinds.imgs" || bad "kinds: the GIF is not drawn ($(tr '\n' ' ' < "$D/kinds.imgs"))"
# the PNG at half the measure needs fewer pixels than it has: at the 300 ppi
# ceiling (--image-dpi), about 730 x 322
grep -qx "7[23][0-9]x3[12][0-9]" "$D/kinds.imgs" || bad "kinds: the PNG is not drawn ($(tr '\n' ' ' < "$D/kinds.imgs"))"
[ "$(wc -l < "$D/kinds.imgs")" -eq 2 ] || bad "kinds: $(wc -l < "$D/kinds.imgs") rasters, want 2 (the SVG is vectors)"
f=$(structure_count "$pdf" Figure)
[ "$f" -eq 4 ] || bad "kinds: $f Figure elements, want 4"
# the 50% image: half the measure wide (its width in inches: pixels over
# pdfimages' x-ppi), against two.md's, which is the whole measure
half=$(pdfimages -list "$pdf" | awk 'NR > 2 && $5 < 400 && $5 > 300 { printf "%d", 1000 * $4 / $13 }')
full=$(pdfimages -list "$D/two-none.pdf" | awk 'NR > 2 && $4 == 1120 { printf "%d", 1000 * $4 / $13 }')
[ -n "$half" ] && [ -n "$full" ] && [ $((2 * half - full)) -le 15 ] && [ $((full - 2 * half)) -le 15 ] \
  || bad "kinds: the 50% image is ${half:-?} thousandths of an inch wide, want half of ${full:-?}"
ppi=$(pdfimages -list "$pdf" | awk 'NR > 2 && $5 < 400 && $5 > 300 { print int($13 + 0.5) }')
[ "${ppi:-0}" -le 300 ] && [ "${ppi:-0}" -ge 298 ] || bad "kinds: the 50% image at ${ppi:-?} ppi, want 300"
# the SVG is drawn as vectors on its page: some paths, no raster
pdftotext -raw "$pdf" - | tr '\n' ' ' > "$D/kinds.txt"
grep -q "A broken drawing whose alternative text is much longer" "$D/kinds.txt" \
  || bad "kinds: the placeholder's alt text is not there (or not with a space for the newline)"
grep -q "↵" "$D/kinds.txt" && bad "kinds: a newline drawn as ↵"
# the placeholder text wraps inside its frame: every word box of the page
# with the alt text lies within the text block (A4: 86 .. 509 pt)
pdftotext -bbox "$pdf" - | python3 -c '
import re, sys
out = [float(m.group(1)) for m in re.finditer(r"xMax=\"([0-9.]+)\"[^>]*>(?:frame|hold|line|wraps|inside)<", sys.stdin.read())]
sys.exit(0 if out and max(out) < 510 else 1)' || bad "kinds: the alt text runs out of its frame"
[ $fail -eq 0 ] && echo "t-images: ok"
exit $fail
