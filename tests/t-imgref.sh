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
# - a PNG that needs every pixel, without alpha or interlacing, is its own
#   IDAT data (FlateDecode, Predictor 15), drawing the pixels the decode path
#   draws; one with alpha, interlaced or shown smaller is decoded;
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

# a PNG copied as it is (pngpass.c): its IDAT chunks are the image's data,
# with the PNG predictors; the ones that cannot be copied (an alpha channel,
# interlaced, shown smaller than its pixels) are decoded; the pixels are the
# same either way (each copied PNG against its interlaced twin, the same
# pixels, which the decode path takes)
python3 - "$D" <<'PY'
import struct, sys, zlib
d = sys.argv[1]
def chunk(t, b): return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b))
def png(name, w, h, depth, ctype, px, plte=None, interlace=0):
    """px(x, y) -> a tuple of samples, packed at depth bits"""
    def row(xs, y):
        bits = "".join(format(v, "0%db" % depth) for x in xs for v in px(x, y))
        bits += "0" * (-len(bits) % 8)
        return b"\0" + int(bits, 2).to_bytes(len(bits) // 8, "big")
    passes = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
              (0, 1, 1, 2)) if interlace else ((0, 0, 1, 1),)
    raw = b"".join(row(range(x0, w, dx), y) for x0, y0, dx, dy in passes if x0 < w
                   for y in range(y0, h, dy))
    z = zlib.compress(raw, 9)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, interlace))
    out += chunk(b"gAMA", struct.pack(">I", 45455)) + chunk(b"sRGB", b"\0")
    if plte: out += chunk(b"PLTE", plte)
    for i in range(0, len(z), 997):  # several IDAT chunks
        out += chunk(b"IDAT", z[i:i + 997])
    open(f"{d}/{name}", "wb").write(out + chunk(b"IEND", b""))
W, H = 240, 160
rgb = lambda x, y: ((x * 255) // W, (y * 255) // H, ((x ^ y) * 3) % 256)
pal = bytes(v for i in range(13) for v in (i * 19 % 256, 255 - i * 11, i * 37 % 256))
for name, depth, ctype, px, plte in (("rgb", 8, 2, rgb, None),
                                     ("pal", 4, 3, lambda x, y: ((x // 9 + y // 7) % 13,), pal),
                                     ("g2", 2, 0, lambda x, y: ((x // 5 + y // 3) % 4,), None),
                                     ("g1", 1, 0, lambda x, y: ((x // 4 + y // 4) % 2,), None),
                                     ("g8", 8, 0, lambda x, y: ((x * 7 + y) % 256,), None)):
    png(f"c-{name}.png", W, H, depth, ctype, px, plte)
    png(f"i-{name}.png", W, H, depth, ctype, px, plte, interlace=1)
png("alpha.png", W, H, 8, 6, lambda x, y: rgb(x, y) + (255 if x < W // 2 else 128,))
PY
kinds="rgb pal g2 g1 g8"
printf -- '---\ntitle: Copies\n---\n\n' > "$D/copy.md"; cp "$D/copy.md" "$D/twin.md"
for k in $kinds; do
  printf '# %s\n\n![%s](c-%s.png)\n\n' $k $k $k >> "$D/copy.md"
  printf '# %s\n\n![%s](i-%s.png)\n\n' $k $k $k >> "$D/twin.md"
done
printf '# Not copied\n\n![a](alpha.png)\n\n![i](i-rgb.png)\n\n<img src="bigp.png" alt="b" width="220">\n' > "$D/nc.md"
"$OCTAVO" -q "$D/copy.md" "$D/nc.md" -o "$D/copy.pdf" -j1 &&
  "$OCTAVO" -q "$D/copy.md" -o "$D/one.pdf" -j1 && "$OCTAVO" -q "$D/twin.md" -o "$D/twin.pdf" -j1 ||
  bad "copy: octavo failed"
qpdf --check "$D/copy.pdf" > "$D/copy.qpdf" 2>&1 && ! grep -q WARNING "$D/copy.qpdf" ||
  bad "copy: qpdf --check: $(grep -m1 -i 'warning\|error' "$D/copy.qpdf")"
# the object id of each image in the order drawn
pdfimages -list "$D/copy.pdf" | awk 'NR > 2 && $3 == "image" { print $11 }' > "$D/copy.list"
i=0
while read -r id; do
  i=$((i + 1))
  qpdf --show-object="$id" "$D/copy.pdf" > "$D/obj-$i.txt" 2>&1
  if [ $i -le 5 ]; then # the copies: the stream is the file's IDAT data
    k=$(echo $kinds | cut -d' ' -f$i)
    grep -q "/Predictor 15" "$D/obj-$i.txt" || bad "copy $k: no /Predictor 15: $(cat "$D/obj-$i.txt")"
    qpdf --show-object="$id" --raw-stream-data "$D/copy.pdf" > "$D/raw-$i.bin"
    python3 - "$D/c-$k.png" "$D/raw-$i.bin" <<'PY' || bad "copy $k: the stream is not the PNG's IDAT data"
import struct, sys
b = open(sys.argv[1], "rb").read()
at, idat = 8, b""
while at < len(b):
    n, t = struct.unpack(">I4s", b[at:at + 8])
    if t == b"IDAT": idat += b[at + 8:at + 8 + n]
    at += 12 + n
sys.exit(0 if open(sys.argv[2], "rb").read() == idat else 1)
PY
  else # alpha, interlaced, shown smaller: decoded (cairo's plain FlateDecode)
    grep -q "/Predictor" "$D/obj-$i.txt" && bad "copy: image $i (alpha, interlaced, smaller) was copied"
  fi
done < "$D/copy.list"
[ $i -eq 8 ] || bad "copy: $i images drawn, want 8"
grep -q "/Indexed" "$D/obj-2.txt" || bad "copy: the palette PNG is not /Indexed"
# an ancillary chunk with a bad CRC (libpng drops it, the file decodes): still
# copied; a file cut inside its IDAT data: a warning, and left out, as before
python3 - "$D" <<'PY'
import sys
d = sys.argv[1]
b = open(f"{d}/c-rgb.png", "rb").read()
bad = b"\0\0\0\x04tEXtabcd\xde\xad\xbe\xef"
open(f"{d}/anc.png", "wb").write(b[:33] + bad + b[33:])
open(f"{d}/cut.png", "wb").write(b[:len(b) // 2])
PY
printf '# Odd\n\n![anc](anc.png)\n\n![cut](cut.png)\n' > "$D/odd.md"
"$OCTAVO" "$D/odd.md" -o "$D/odd.pdf" 2> "$D/odd.err" || bad "odd: octavo failed: $(cat "$D/odd.err")"
grep -q "warning: image cut.png cannot be decoded" "$D/odd.err" ||
  bad "odd: no warning for the cut PNG: $(cat "$D/odd.err")"
grep -q "anc.png" "$D/odd.err" && bad "odd: a warning for anc.png: $(cat "$D/odd.err")"
id=$(pdfimages -list "$D/odd.pdf" | awk 'NR > 2 && $3 == "image" { print $11 }')
[ "$(echo $id | wc -w)" = 1 ] && qpdf --show-object="$id" "$D/odd.pdf" | grep -q "/Predictor 15" ||
  bad "odd: anc.png is not copied (images: '$id')"
qpdf --check "$D/odd.pdf" > "$D/odd.qpdf" 2>&1 && ! grep -q WARNING "$D/odd.qpdf" || bad "odd: qpdf --check"

# the pixels: each copy as its decoded twin
# (the pages with images: the colophon's identifier differs)
pages=$(pdfimages -list "$D/one.pdf" | awk 'NR > 2 { print $1 }' | sort -un)
[ "$(echo $pages | wc -w)" -eq 5 ] || bad "copy: images on pages '$pages', want five pages"
for p in $pages; do
  pdftoppm -r 110 -f $p -l $p -singlefile "$D/one.pdf" "$D/pc-$p" &&
    pdftoppm -r 110 -f $p -l $p -singlefile "$D/twin.pdf" "$D/pt-$p" || bad "copy: pdftoppm"
  cmp -s "$D/pc-$p.ppm" "$D/pt-$p.ppm" || bad "copy: page $p differs from its decoded twin"
done

# the same bytes with one thread or two (all three books, images on every page)
cat "$D/ten.md" "$D/small.md" > "$D/all.md"
export SOURCE_DATE_EPOCH=1700000000
"$OCTAVO" -q "$D/all.md" -o "$D/all-1.pdf" -j1 && "$OCTAVO" -q "$D/all.md" -o "$D/all-2.pdf" -j2 ||
  bad "all: octavo failed"
cmp -s "$D/all-1.pdf" "$D/all-2.pdf" || bad "all: -j1 and -j2 differ"
# no image asks the viewer to interpolate (PDF/A, ISO 19005-2 6.2.8: /Interpolate
# true is forbidden): raster, copied PNG, JPEG, drawn twice on a page, emoji
for f in all-1 copy twice; do
  n=$(qpdf --qdf --object-streams=disable "$D/$f.pdf" - | grep -ac "/Interpolate true")
  [ "$n" = 0 ] || bad "$f: $n image(s) with /Interpolate true"
done
[ $fail -eq 0 ] && echo "t-imgref: ok"
exit $fail
