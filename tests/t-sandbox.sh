#!/bin/sh
# t-sandbox.sh: a book is untrusted input (issue 26). Each attack is a small
# generated book beside a stand-in secret outside it; for each: octavo's exit
# status and message, the secret's bytes in no output (EPUB unzipped, PDF
# decompressed by qpdf, its text), time and peak memory within bounds, and
# the sources unchanged.
set -u
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPROOT" || exit 1
export SOURCE_DATE_EPOCH=1683763200
SECRET=SECRET-9c1e4b-do-not-publish
mkdir -p outside && printf 'root:x:0:0:%s\n' "$SECRET" > outside/passwd
printf '# Stolen\n\n%s\n' "$SECRET" > outside/stolen.md
printf 'title: %s\n' "$SECRET" > outside/meta.yaml

# run NAME TIMEOUT ARGS...: octavo's status in $rc, stderr in NAME.err, peak
# RSS in KiB in $rss.
run() {
  name=$1; secs=$2; shift 2
  /usr/bin/time -f '%M' -o "$name.rss" timeout "$secs" "$OCTAVO" "$@" 2> "$name.err"
  rc=$?
  rss=$(tail -n 1 "$name.rss" 2>/dev/null | grep -E '^[0-9]+$' || echo 0)
  [ $rc -ne 124 ] || fail "$name: still running after $secs s"
}
# expect NAME STATUS REGEX: the run's status and a message matching REGEX.
expect() {
  [ "$rc" -eq "$2" ] || { cat "$1.err"; fail "$1: exit status $rc, expected $2"; }
  grep -Eq "$3" "$1.err" || { cat "$1.err"; fail "$1: no message matching /$3/"; }
  echo "$1: exit $rc, $(grep -E "$3" "$1.err" | head -n 1 | cut -c 1-150), ${rss} KiB"
}
# clean FILE...: the secret in none of the outputs that exist.
clean() {
  for f in "$@"; do
    [ -f "$f" ] || continue
    case $f in
    *.epub) unzip -p "$f" | grep -q "$SECRET" && fail "$f holds the secret" ;;
    *.pdf)
      qpdf --qdf --object-streams=disable "$f" "$f.qdf" 2>/dev/null
      grep -aq "$SECRET" "$f.qdf" && fail "$f holds the secret"
      pdftotext "$f" - 2>/dev/null | grep -q "$SECRET" && fail "$f's text holds the secret"
      for n in $(qpdf --list-attachments "$f" 2>/dev/null | awk '/->/ { print $1 }'); do
        qpdf --show-attachment="$n" "$f" | grep -q "$SECRET" && fail "$f attaches the secret"
      done
      rm -f "$f.qdf" ;;
    *) grep -aq "$SECRET" "$f" && fail "$f holds the secret" ;;
    esac
  done
  return 0
}

# 1. A folder of chapters: a *.md that is a link out of the book.
mkdir -p folder && printf '# Book\n\nText.\n' > folder/a.md
ln -s ../outside/stolen.md folder/b.md
run folder 60 -q folder -o folder.epub -o folder.pdf
expect folder 1 'b\.md.*outside the book.s folder'
clean folder.epub folder.pdf
[ ! -e folder.epub ] && [ ! -e folder.pdf ] || fail "folder: an output was written after an error"
rm folder/b.md

# 2. metadata.yaml that is a link out of the book.
ln -s ../outside/meta.yaml folder/metadata.yaml
run meta-link 60 -q folder -o meta.epub
expect meta-link 1 '^folder/metadata\.yaml: error: .*metadata\.yaml is outside the book.s folder'
clean meta.epub
rm folder/metadata.yaml

# 3. book.toml's src above the book.
mkdir -p up/book && printf '[book]\nsrc = "../.."\n' > up/book/book.toml
printf -- '- [x](outside/stolen.md)\n' > SUMMARY.md
run toml-src 60 -q up/book -o up.epub
expect toml-src 1 'src = "\.\./\.\." is outside the book.s folder'
clean up.epub
rm SUMMARY.md

# An mdBook to attack from within.
mk_book() {
  rm -rf md && mkdir -p md/src
  printf '[book]\ntitle = "Attacked"\n' > md/book.toml
  printf '# Summary\n\n- [One](one.md)\n' > md/src/SUMMARY.md
  printf '# One\n\nText of one.\n' > md/src/one.md
}

# 4. An include cycle: a chapter that includes itself ten times.
mk_book
printf '# One\n\n{{#include one.md}}\n{{#include one.md}}\n{{#include one.md}}\n{{#include one.md}}\n{{#include one.md}}\n{{#include one.md}}\n{{#include one.md}}\n{{#include one.md}}\n{{#include one.md}}\n{{#include one.md}}\n' > md/src/one.md
run cycle 20 -q md -o cycle.epub
expect cycle 1 'one\.md:3:1: error: include cycle: .*one\.md includes .*one\.md'
[ ! -e cycle.epub ] || fail "cycle: an output was written"

# 5. Fan-out without a cycle: ten levels of ten includes, stopped by the
# text budget (1 MiB here).
mk_book
i=0
while [ $i -lt 10 ]; do
  n=$((i + 1))
  : > "md/src/l$i.md"
  for _ in 1 2 3 4 5 6 7 8 9 10; do printf '{{#include l%d.md}}\n' $n >> "md/src/l$i.md"; done
  i=$n
done
printf 'leaf line of the bomb\n' > md/src/l10.md
printf '# One\n\n{{#include l0.md}}\n' > md/src/one.md
run fanout 30 -q --max-text-size 1 md -o fanout.epub
expect fanout 1 'error: include file l[0-9]+\.md: the book.s text passes 1048576 bytes'
[ "$rss" -lt 200000 ] || fail "fanout: peak RSS $rss KiB"

# 6. Three lines of a large include: read no further than the third.
mk_book
yes 'a line of a very large include file' | head -c 100000000 > md/src/big.txt
printf '# One\n\n```\n{{#include big.txt:1:3}}\n```\n' > md/src/one.md
run lines 60 -q md -o lines.epub
[ $rc -eq 0 ] || { cat lines.err; fail "lines: exit status $rc"; }
[ "$rss" -lt 150000 ] || fail "lines: three lines of a 100 MB include took $rss KiB"
echo "lines: three lines of a 100 MB include, exit 0, ${rss} KiB"
rm md/src/big.txt

# 7. FIFOs: as a chapter in SUMMARY.md, in a folder, as the cover.
mk_book
mkfifo md/src/fifo.md
printf '# Summary\n\n- [One](one.md)\n- [Fifo](fifo.md)\n' > md/src/SUMMARY.md
run fifo-summary 20 -q md -o fifo.epub
expect fifo-summary 1 'SUMMARY\.md:4:3: error: chapter fifo\.md is not a regular file'
mkdir -p ff && printf '# A\n' > ff/a.md && mkfifo ff/b.md
run fifo-folder 20 -q ff -o ff.epub
expect fifo-folder 1 'b\.md is not a regular file'
mkdir -p cv && printf '# A\n\nText.\n' > cv/a.md && mkfifo cv/cover.png
run fifo-cover 20 cv/a.md -M cover=cover.png -o cv.epub
expect fifo-cover 0 'warning: cover cover\.png is not a regular file'

# 8. An image that is a link out of the book; an SVG that draws one, and an
# SVG that draws a 30000 x 30000 PNG (a header is enough to say so).
mkdir -p img
python3 - <<'EOF'
import struct, zlib
def png(path, w, h, body=b""):
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    raw = b"".join(b"\0" + b"\0" * w for _ in range(h)) if body is None else body
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
                           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
png("img/huge.png", 30000, 30000, b"")
png("outside/secret.png", 4, 4, None)
EOF
ln -s ../outside/secret.png img/link.png
cat > img/bomb.svg <<'EOF'
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"><image xlink:href="huge.png" width="100" height="100"/></svg>
EOF
cat > img/steal.svg <<'EOF'
<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><image href="link.png" width="100" height="100"/></svg>
EOF
printf '# Pictures\n\n![a link](link.png)\n\n![a bomb](bomb.svg)\n\n![a thief](steal.svg)\n' > img/book.md
run images 60 img/book.md -o img.epub -o img.pdf
expect images 0 'book\.md:3:1: warning: image link\.png is outside the book.s folder'
grep -Eq 'book\.md:5:1: warning: image bomb\.svg: it draws huge\.png, 30000 x 30000 pixels, too large' images.err ||
  { cat images.err; fail "images: the SVG that draws a 30000 x 30000 PNG is not refused"; }
grep -Eq 'book\.md:7:1: warning: image steal\.svg: it draws link\.png, which is outside the book.s folder' images.err ||
  { cat images.err; fail "images: the SVG that draws a file outside is not refused"; }
[ "$rss" -lt 300000 ] || fail "images: peak RSS $rss KiB"
qpdf --check img.pdf > /dev/null 2>&1 || fail "images: qpdf --check fails"
clean img.epub img.pdf
echo "images: the link, the SVG bomb and the SVG thief refused, ${rss} KiB"

# 9. Outputs aimed at the book's own files: refused before anything is
# written, every source unchanged.
mk_book
printf '# One\n\n![pic](pic.png)\n\n```\n{{#include code.txt}}\n```\n' > md/src/one.md
printf 'fn main() {}\n' > md/src/code.txt
cp outside/secret.png md/src/pic.png
sums() { find md -type f -exec sha256sum {} + | sort; }
before=$(sums)
for target in md/src/one.md md/src/SUMMARY.md md/book.toml md/src/code.txt md/src/pic.png; do
  for ext in epub pdf; do
    run overwrite 60 -q md -o "$target" -t $ext
    expect overwrite 1 "output $target is a file the book reads; refusing to overwrite it"
  done
done
[ "$(sums)" = "$before" ] || fail "a source changed"
mkdir -p fm && printf '# A\n\nText.\n' > fm/a.md && printf 'title: T\n' > fm/metadata.yaml
run overwrite-meta 60 -q fm -o fm/metadata.yaml -t epub
expect overwrite-meta 1 'output fm/metadata\.yaml is a file the book reads'
grep -q '^title: T$' fm/metadata.yaml || fail "metadata.yaml was overwritten"

# 10. 20 MB of metadata: refused at once.
mkdir -p bigmeta && printf '# A\n\nText.\n' > bigmeta/a.md
python3 -c "
import sys
sys.stdout.write('title: T\ndescription: ' + 'x' * 20000000 + '\n')" > bigmeta/metadata.yaml
run bigmeta 30 -q bigmeta -o bigmeta.epub
expect bigmeta 1 'metadata\.yaml is 200000[0-9]+ bytes; the limit is 1048576'
[ "$rss" -lt 200000 ] || fail "bigmeta: peak RSS $rss KiB"
python3 -c "
import sys
sys.stdout.write('---\ntitle: T\ndescription: ' + 'x' * 20000000 + '\n---\n\n# A\n\nText.\n')" > bigfm.md
run bigfm 30 -q bigfm.md -o bigfm.epub
expect bigfm 1 'bigfm\.md:1:1: error: front matter is [0-9]+ bytes; the limit is 1048576'

# 11. An mdBook reached through a symbolic link is the book it points to.
mk_book
ln -s md linked
run linked 60 -q linked -o linked.epub
[ $rc -eq 0 ] || { cat linked.err; fail "linked: exit status $rc"; }
unzip -p linked.epub | grep -q 'Text of one' || fail "linked: the chapter is missing"
echo "linked: an mdBook through a symbolic link builds"
echo "all attacks refused"
