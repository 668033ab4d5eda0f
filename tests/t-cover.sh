#!/bin/sh
# t-cover.sh: the cover is decided once (resolve.c's md_resolve_cover, into
# Book.cover) and both books agree, in every case:
#   given     a PNG (front matter) and a JPEG (-M cover=): the EPUB's cover
#             image is the file, byte for byte, its cover.xhtml first in the
#             spine; the PDF's page 1 is that image, at its size, and nothing
#             else (no text)
#   missing   front matter names a file that is not there
#   outside   a symbolic link out of the book's folder
#   not-image a text file named cover.png
#   none      no cover named
# Each of the last four: octavo's drawn cover in both books (the EPUB's
# cover.png 1000 x 1500, the PDF's page 1 the title and authors, no image),
# the same covers as with none (the EPUB's image byte for byte, the PDF's
# page 1 pixel for pixel), and for the three refused
# ones one warning at the front matter's line, saying what was refused and
# "using octavo's cover"; a cover refused from -M has no place to name.
# Every EPUB passes EPUBCheck.
set -u
for t in pdfimages pdftotext pdftoppm python3; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cd "$TMPROOT" || exit 1
export SOURCE_DATE_EPOCH=1700000000

mkdir -p book/img outside
cp "$TOP/tests/books/multi/images/diagram.png" book/img/cover.png # 320 x 180
cp "$TOP/tests/corpus/f3discovery/src/assets/bluetooth.jpg" book/photo.jpg
cp "$TOP/tests/books/multi/images/diagram.png" outside/real.png
ln -s ../outside/real.png book/link.png
printf 'not an image\n' > book/text.png
jw=$(python3 -c "
import struct,sys
d=open('book/photo.jpg','rb').read(); i=2
while i < len(d):
    m=d[i+1]; n=struct.unpack('>H',d[i+2:i+4])[0]
    if m in (0xc0,0xc1,0xc2):
        h,w=struct.unpack('>HH',d[i+5:i+9]); print(w,h); break
    i+=2+n")
[ -n "$jw" ] || { bad "cannot read the JPEG's size"; exit 1; }

# name cover-line octavo-args...: book/NAME.md with front matter naming the
# cover (or none), built into NAME.epub and NAME.pdf, warnings in NAME.err
build() {
  name=$1 line=$2; shift 2
  printf -- '---\ntitle: Cover Test\nauthor: Ada Lovelace\n%b---\n\n# One\n\nText.\n' "$line" > "book/$name.md"
  (cd book && "$OCTAVO" "$@" "$name.md" -o "../$name.epub" -o "../$name.pdf") 2> "$name.err" ||
    bad "$name: octavo failed: $(cat "$name.err")"
}

# name: what the EPUB says its cover is: "image WxH BYTES-SHA" or "none",
# and that cover.xhtml is first in the spine when there is one
epub_cover() {
  python3 - "$1.epub" <<'EOF'
import hashlib, re, struct, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
opf = z.read('EPUB/package.opf').decode()
m = re.search(r'<item id="cover-image" href="([^"]+)" media-type="([^"]+)" properties="cover-image"/>', opf)
if not m:
    print('none'); sys.exit(0)
spine = re.findall(r'<itemref idref="([^"]+)"', opf)
if not spine or spine[0] != 'cover':
    print('cover not first in the spine: %s' % spine[:2]); sys.exit(0)
doc = z.read('EPUB/cover.xhtml').decode()
if m.group(1) not in doc:
    print('cover.xhtml does not show %s' % m.group(1)); sys.exit(0)
data = z.read('EPUB/' + m.group(1))
if data[:8] == b'\x89PNG\r\n\x1a\n':
    w, h = struct.unpack('>II', data[16:24])
else:
    i = 2
    while i < len(data):
        mk = data[i + 1]; n = struct.unpack('>H', data[i + 2:i + 4])[0]
        if mk in (0xc0, 0xc1, 0xc2):
            h, w = struct.unpack('>HH', data[i + 5:i + 9]); break
        i += 2 + n
print('image %dx%d %s %s' % (w, h, m.group(2), hashlib.sha1(data).hexdigest()[:12]))
EOF
}

# name: the images on the PDF's page 1 ("WxH" each, or "none") and its text
pdf_page1_images() {
  pdfimages -list -f 1 -l 1 "$1.pdf" | awk 'NR > 2 { printf "%s%sx%s", sep, $4, $5; sep = " " } END { if (!NR || NR <= 2) printf "none" }'
}
pdf_page1_text() { pdftotext -f 1 -l 1 "$1.pdf" - 2>/dev/null | tr -s ' \n\f' '   ' | sed 's/^ //; s/ $//'; }
# name: the PDF's page 1 drawn (a digest of its pixels)
page1_png() { pdftoppm -r 24 -f 1 -l 1 -singlefile -png "$1.pdf" "$1-p1" && sha "$1-p1.png"; }
sha() { python3 -c "import hashlib,sys; print(hashlib.sha1(open(sys.argv[1],'rb').read()).hexdigest()[:12])" "$1"; }

# --- none: octavo's cover in both ---------------------------------------
build none ''
e=$(epub_cover none)
case "$e" in "image 1000x1500 image/png "*) ;; *) bad "none: the EPUB's cover is '$e', not octavo's 1000 x 1500 PNG";; esac
[ "$(pdf_page1_images none)" = none ] || bad "none: the PDF's page 1 has images: $(pdf_page1_images none)"
t=$(pdf_page1_text none)
case "$t" in *"Cover Test"*"Ada Lovelace"*) ;; *) bad "none: the PDF's page 1 reads '$t', not the drawn cover";; esac
[ -s none.err ] && bad "none: warnings: $(cat none.err)"

# --- given: the image in both -------------------------------------------
build given 'cover: img/cover.png\n'
e=$(epub_cover given)
[ "$e" = "image 320x180 image/png $(sha book/img/cover.png)" ] || bad "given: the EPUB's cover is '$e', not img/cover.png"
[ "$(pdf_page1_images given)" = 320x180 ] || bad "given: the PDF's page 1 has '$(pdf_page1_images given)', not the 320 x 180 cover"
[ -z "$(pdf_page1_text given)" ] || bad "given: the PDF's page 1 has text: '$(pdf_page1_text given)'"
[ "$(pdfimages -list given.pdf | awk 'NR > 2' | wc -l)" = 1 ] || bad "given: the cover is not the PDF's one image"
[ -s given.err ] && bad "given: warnings: $(cat given.err)"

build jpeg '' -M cover=photo.jpg
e=$(epub_cover jpeg)
[ "$e" = "image $(echo "$jw" | tr ' ' x) image/jpeg $(sha book/photo.jpg)" ] || bad "jpeg: the EPUB's cover is '$e', not photo.jpg ($jw)"
[ "$(pdf_page1_images jpeg)" = "$(echo "$jw" | tr ' ' x)" ] || bad "jpeg: the PDF's page 1 has '$(pdf_page1_images jpeg)', not the cover"
[ -s jpeg.err ] && bad "jpeg: warnings: $(cat jpeg.err)"

# --- refused: octavo's cover in both, one warning -----------------------
# name cover-line warning
refused() {
  name=$1; build "$name" "$2"
  [ "$(epub_cover "$name")" = "$(epub_cover none)" ] || bad "$name: the EPUB's cover is '$(epub_cover "$name")', not octavo's"
  [ "$(pdf_page1_images "$name")" = none ] || bad "$name: the PDF's page 1 has images: $(pdf_page1_images "$name")"
  [ "$(pdf_page1_text "$name")" = "$(pdf_page1_text none)" ] || bad "$name: the PDF's page 1 reads '$(pdf_page1_text "$name")'"
  [ "$(page1_png "$name")" = "$(page1_png none)" ] || bad "$name: the PDF's page 1 is not drawn as without a cover"
  [ "$(cat "$name.err")" = "$3" ] || bad "$name: the warnings are '$(cat "$name.err")', expected '$3'"
}
refused missing 'cover: nothere.png\n' \
  "missing.md:4:8: warning: cover nothere.png not found; using octavo's cover"
refused outside 'cover: link.png\n' \
  "outside.md:4:8: warning: cover link.png is outside the book's folder; refused (see --resource-path); using octavo's cover"
refused notimage 'cover: text.png\n' \
  "notimage.md:4:8: warning: cover text.png is not a PNG, JPEG, GIF or SVG file; using octavo's cover"
# from -M: no line to name
build option '' -M cover=nothere.png
[ "$(cat option.err)" = "octavo: warning: cover nothere.png not found; using octavo's cover" ] ||
  bad "option: the warning is '$(cat option.err)'"
[ "$(epub_cover option)" = "$(epub_cover none)" ] && [ "$(page1_png option)" = "$(page1_png none)" ] ||
  bad "option: the covers are not octavo's"

# every EPUB valid (EPUBCheck, one JVM for all: tests/tools/EpubCheckMany.java)
JAR=/usr/share/java/epubcheck.jar
if [ -f "$JAR" ] && command -v java >/dev/null; then
  books="none given jpeg missing outside notimage option"
  # shellcheck disable=SC2046
  java -cp "$JAR" "$TOP/tests/tools/EpubCheckMany.java" $(for b in $books; do echo "$b.epub"; done) > epubcheck.out 2>&1
  for b in $books; do
    grep -q "^$b.epub: 0 errors, 0 warnings$" epubcheck.out || bad "$b: EPUBCheck: $(grep -m3 -E '^(FATAL|ERROR|WARNING)' epubcheck.out)"
  done
else
  echo "no EPUBCheck: the EPUBs are not validated"
fi
exit $fail
