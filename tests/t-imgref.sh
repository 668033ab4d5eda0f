#!/bin/sh
# t-imgref.sh: images decoded once and drawn by reference (issue 30).
# - a PNG shown ten times on ten pages is one image XObject in the PDF, an
#   SVG shown ten times one form XObject (its text still text, ten times);
# - a 4000 x 3000 photo shown 5.8 cm wide is stored at no more than the dpi
#   ceiling (300 by default, --image-dpi N, 0: every pixel), a JPEG one as a
#   JPEG again, a PNG one deflated;
# - a JPEG that needs every pixel is embedded as it is (DCT, the file's
#   bytes); the EPUB keeps every file as it is;
# - drawn twice on one page, still stored once, and qpdf --check clean;
# - the PDF has the same bytes with one thread or two.
set -u
for t in qpdf pdfimages pdftoppm pdftotext python3 unzip; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }
D="$TMPROOT/imgref"
mkdir -p "$D"
A="$TOP/tests/corpus/f3discovery/src/assets"
cp "$A/gdb-layout-split-1.png" "$D/shot.png" || exit 1
cp "$A/f3.jpg" "$D/f3.jpg" || exit 1
cp "$TOP/tests/books/multi/images/logo.svg" "$D/logo.svg" || exit 1

# a 4000 x 3000 photo: a page of octavo's own PDF rendered by poppler, as a
# JPEG and as a PNG
printf '# Photo\n\nA page to photograph, with some words on it.\n' > "$D/photo.md"
"$OCTAVO" -q "$D/photo.md" -o "$D/photo.pdf" --pdf-standard none || { bad "photo.pdf"; exit 1; }
pdftoppm -f 1 -l 1 -singlefile -scale-to-x 4000 -scale-to-y 3000 -jpeg "$D/photo.pdf" "$D/big" &&
  pdftoppm -f 1 -l 1 -singlefile -scale-to-x 4000 -scale-to-y 3000 -png "$D/photo.pdf" "$D/bigp" ||
  { bad "pdftoppm"; exit 1; }

# image_objects PDF: "IMAGES FORMS", the image and form XObjects stored
image_objects() {
  qpdf --json=2 "$1" | python3 -c '
import json, sys
objs = json.load(sys.stdin)["qpdf"][1].values()
kinds = [o["stream"]["dict"].get("/Subtype") for o in objs if isinstance(o, dict) and "stream" in o]
print(kinds.count("/Image"), kinds.count("/Form"))'
}

# ten of each, each on its own page (a page of text between)
python3 - "$D/ten.md" <<'PY'
import sys
filler = " ".join(["A paragraph of words that fills the page between two figures."] * 40)
out = ["# Ten figures\n"]
for i in range(10):
    out += [filler, filler, f"![screen {i}](shot.png)", f"![logo {i}](logo.svg)"]
open(sys.argv[1], "w").write("\n\n".join(out) + "\n")
PY
"$OCTAVO" -q "$D/ten.md" -o "$D/ten.pdf" -o "$D/ten.epub" -j1 || bad "ten: octavo failed"
qpdf --check "$D/ten.pdf" 2>&1 | grep -q "WARNING" && bad "ten: qpdf warnings"
set -- $(image_objects "$D/ten.pdf")
[ "${1:-}" = 1 ] || bad "ten: ${1:-?} image XObjects for one PNG shown ten times, want 1"
[ "${2:-}" = 1 ] || bad "ten: ${2:-?} form XObjects for one SVG shown ten times, want 1"
draws=$(pdfimages -list "$D/ten.pdf" | awk 'NR > 2 && $3 == "image"' | wc -l)
ids=$(pdfimages -list "$D/ten.pdf" | awk 'NR > 2 && $3 == "image" { print $11 }' | sort -u | wc -l)
[ "$draws" -eq 10 ] && [ "$ids" -eq 1 ] || bad "ten: $draws draws of $ids objects, want 10 of 1"
n=$(pdftotext "$D/ten.pdf" - | grep -c "^octavo$")
[ "$n" -eq 10 ] || bad "ten: the SVG's text found $n times, want 10 (text, not outlines)"
# the EPUB: the files as they are
unzip -p "$D/ten.epub" EPUB/images/img-1.png | cmp -s - "$D/shot.png" || bad "ten: the EPUB's PNG is not the file"

# twice on one page (inline, and as figures): still one of each, and no
# image named twice in the page's resources (a duplicated key: qpdf --check)
printf '# Twice\n\nIcons ![a](shot.png) and ![b](shot.png), ![c](logo.svg) and ![d](logo.svg).\n\n![e](logo.svg)\n\n![f](logo.svg)\n' > "$D/twice.md"
"$OCTAVO" -q "$D/twice.md" -o "$D/twice.pdf" -j1 || bad "twice: octavo failed"
qpdf --check "$D/twice.pdf" > "$D/twice.qpdf" 2>&1
grep -q "WARNING" "$D/twice.qpdf" && bad "twice: $(grep -m1 WARNING "$D/twice.qpdf")"
set -- $(image_objects "$D/twice.pdf")
[ "${1:-}" = 1 ] && [ "${2:-0}" -ge 1 ] || bad "twice: ${1:-?} image XObjects, want 1"
n=$(pdftotext "$D/twice.pdf" - | grep -o "octavo" | wc -l)
[ "$n" -ge 4 ] || bad "twice: the SVG's text found $n times, want 4 or more"

# a 4000 x 3000 photo shown small (220 CSS px: 165 pt, 5.8 cm), JPEG and PNG,
# and a JPEG shown at less than its pixels' size
cat > "$D/small.md" <<'MD'
# Small

<img src="big.jpg" alt="a photo" width="220">

<img src="bigp.png" alt="the same as a PNG" width="220">

![a board](f3.jpg)
MD
for dpi in default 150 0; do
  if [ $dpi = default ]; then set --; want=300; else set -- --image-dpi $dpi; want=$dpi; fi
  pdf="$D/small-$dpi.pdf"
  "$OCTAVO" -q "$D/small.md" "$@" -o "$pdf" -j1 || { bad "small $dpi: octavo failed"; continue; }
  pdfimages -list "$pdf" | awk 'NR > 2 && $3 == "image" { print $4, $5, $9, int($13 + 0.5), int($14 + 0.5) }' > "$D/small-$dpi.list"
  big_jpeg=$(sed -n 1p "$D/small-$dpi.list") big_png=$(sed -n 2p "$D/small-$dpi.list") f3=$(sed -n 3p "$D/small-$dpi.list")
  if [ $dpi = 0 ]; then
    [ "$big_jpeg" = "4000 3000 jpeg 1745 1745" ] || bad "small, every pixel: the JPEG is '$big_jpeg'"
    [ "${big_png% * *}" = "4000 3000 image" ] || bad "small, every pixel: the PNG is '$big_png'"
  else
    for img in "$big_jpeg" "$big_png"; do
      set -- $img
      { [ "$4" -le "$want" ] && [ "$5" -le "$want" ] && [ "$4" -ge $((want - 2)) ]; } ||
        bad "small $dpi: '$img' is not at the ceiling ($want ppi)"
      [ "$1" -le $((165 * want / 72 + 1)) ] || bad "small $dpi: '$img' has more pixels than $want ppi"
    done
    [ "$(echo "$big_jpeg" | cut -d' ' -f3)" = jpeg ] || bad "small $dpi: the large JPEG is not DCT ('$big_jpeg')"
  fi
  [ "${f3% * *}" = "720 477 jpeg" ] || bad "small $dpi: f3.jpg is '$f3', want 720 477 jpeg (as it is)"
done
# the JPEG that needs every pixel: the file's bytes, as they are
(cd "$D" && pdfimages -j -f 1 "small-default.pdf" x) && ls "$D"/x-*.jpg > "$D/x.list" 2>/dev/null
ok=no
for f in $(cat "$D/x.list"); do cmp -s "$f" "$D/f3.jpg" && ok=yes; done
[ $ok = yes ] || bad "small: f3.jpg is not embedded as its own bytes"

# the same bytes with one thread or two (all three books, images on every page)
cat "$D/ten.md" "$D/small.md" > "$D/all.md"
export SOURCE_DATE_EPOCH=1700000000
"$OCTAVO" -q "$D/all.md" -o "$D/all-1.pdf" -j1 && "$OCTAVO" -q "$D/all.md" -o "$D/all-2.pdf" -j2 ||
  bad "all: octavo failed"
cmp -s "$D/all-1.pdf" "$D/all-2.pdf" || bad "all: -j1 and -j2 differ"
[ $fail -eq 0 ] && echo "t-imgref: ok"
exit $fail
