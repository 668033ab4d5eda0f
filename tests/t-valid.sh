#!/bin/sh
# t-valid.sh: outputs that are always valid (issue 26).
# - A JPEG cut short (and a GIF, and a -M cover) is left out with a warning
#   at its reference; the PDF passes qpdf --check (it used to embed the
#   broken JPEG as it was: "invalid jpeg data reading from buffer").
# - Unicode's noncharacters (in the text, from character references, in
#   front matter escapes, in -M, in a file name) become U+FFFD with a
#   warning; the PDF is written (it failed: "cannot move the contents'
#   pages") and holds none of them.
# - A hostile SVG (script, iframe, img, object, @import, url(), animate and
#   set to javascript:, remote use/image) is cleaned in the EPUB's copy,
#   each removal a warning, EPUBCheck silent; neither book fetches anything
#   from a local HTTP server the SVG names.
# - A build killed with -9 while writing its PDF leaves no temporary file;
#   a later build removes the stale .NAME.tmp-* files no process holds.
# - --dump-model, --dump-layout, --version, -o - into /dev/full: exit 1
#   with an error.
set -u
for t in qpdf python3 java pdftotext pdfimages unzip; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
[ -f /usr/share/java/epubcheck.jar ] || { echo "SKIP: no EPUBCheck"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
D="$TMPROOT/valid"
mkdir -p "$D" && cd "$D" || exit 1
A="$TOP/tests/corpus/f3discovery/src/assets"

qpdf_clean() { # pdf what
  qpdf --check "$1" > "$1.qpdf" 2>&1 || { bad "$2: qpdf --check failed: $(grep -m1 -i 'warning\|error' "$1.qpdf")"; return; }
  grep -qi "WARNING\|damaged" "$1.qpdf" && bad "$2: qpdf warnings: $(grep -m1 WARNING "$1.qpdf")"
}
epubcheck_clean() { # epub what
  java -jar /usr/share/java/epubcheck.jar "$1" > "$1.check" 2>&1
  grep -q "0 fatals / 0 errors / 0 warnings" "$1.check" \
    || { bad "$2: EPUBCheck: $(grep -m3 'ERROR\|WARNING\|Messages' "$1.check" | tr '\n' ' ')"; }
}
# expect FILE PATTERN WHAT: a line of FILE matches PATTERN (grep -E)
expect() {
  grep -Eq "$2" "$1" || { bad "$3: no line matching '$2' in $1:"; sed 's/^/    /' "$1" | head -20; }
}

# ---- 1. images cut short ----
cp "$A/jumper-wires.jpg" good.jpg || exit 1
head -c 40000 good.jpg > cut.jpg
n=$(wc -c < good.jpg)
head -c $((n - 2)) good.jpg > noeoi.jpg # only the end-of-image marker missing
n=$(wc -c < "$A/f3-led-roulette.gif")
head -c $((n / 2)) "$A/f3-led-roulette.gif" > cut.gif
cat > img.md <<'MD'
# Images

A whole photograph:

![whole](good.jpg)

![cut short](cut.jpg)

![no end marker](noeoi.jpg)

![a GIF cut short](cut.gif)
MD
"$OCTAVO" img.md -M cover=cut.jpg -o img.pdf -o img.epub 2> img.err
rc=$?
[ $rc -eq 0 ] || { bad "images: exit $rc"; cat img.err; }
expect img.err "^img.md:7:1: warning: image cut.jpg cannot be decoded \(the file ends before the image does" "cut JPEG"
expect img.err "^img.md:9:1: warning: image noeoi.jpg cannot be decoded" "JPEG without EOI"
expect img.err "^img.md:11:1: warning: image cut.gif cannot be decoded" "cut GIF"
expect img.err "warning: cover cut.jpg cannot be decoded .*; using octavo's cover" "cut cover"
grep -q "good.jpg" img.err && bad "images: a warning for the whole JPEG: $(grep good.jpg img.err)"
[ -f img.pdf ] && qpdf_clean img.pdf "images"
n=$(pdfimages -list img.pdf 2>/dev/null | awk 'NR > 2 && $3 == "image"' | wc -l)
[ "$n" -eq 1 ] || bad "images: $n images in the PDF, want 1 (the whole JPEG)"
pdftotext img.pdf - 2>/dev/null | grep -q "cut short" || bad "images: the cut JPEG's alt text is not in its place"
[ "$(unzip -l img.epub | grep -c 'images/img-')" -eq 1 ] || bad "images: the EPUB holds $(unzip -l img.epub | grep -c 'images/img-') images, want 1"

# ---- 2. noncharacters ----
# U+FFFE, U+FFFF, U+FDD0, U+1FFFE, U+10FFFF raw; U+FDEF as a character
# reference; U+FFFE as a YAML escape; U+FFFF in -M; U+FDD0 in a file name.
printf -- '---\nsubtitle: "a \\uFFFE b"\n---\n\n# Non\n\nA \357\277\276 b \357\277\277 c \357\267\220 d \360\237\277\276 e \364\217\277\277 f.\n\nG &#xFDEF; h.\n' > nc.md
"$OCTAVO" nc.md -M "author=X $(printf '\357\277\277') Y" -o nc.pdf -o nc.epub 2> nc.err
rc=$?
[ $rc -eq 0 ] || { bad "noncharacters: exit $rc"; cat nc.err; }
expect nc.err "^nc.md:7:3: warning: noncharacter U\+FFFE replaced with U\+FFFD" "U+FFFE"
expect nc.err "^nc.md:7:9: warning: noncharacter U\+FFFF replaced" "U+FFFF"
expect nc.err "^nc.md:7:15: warning: noncharacter U\+FDD0 replaced" "U+FDD0"
expect nc.err "^nc.md:7:21: warning: noncharacter U\+1FFFE replaced" "U+1FFFE"
expect nc.err "^nc.md:7:28: warning: noncharacter U\+10FFFF replaced" "U+10FFFF"
expect nc.err "^nc.md:9:1: warning: noncharacter U\+FDEF \(from a character reference\)" "&#xFDEF;"
expect nc.err "^nc.md:2:11: warning: front matter: noncharacter U\+FFFE" "front matter"
expect nc.err "warning: -M author=X .* Y: noncharacter U\+FFFF" "-M"
if [ -f nc.pdf ]; then
  qpdf_clean nc.pdf "noncharacters"
  pdftotext nc.pdf nc.txt 2>/dev/null
  for f in nc.txt; do
    python3 - "$f" <<'PY' || bad "noncharacters: one is left in the PDF's text"
import sys
t = open(sys.argv[1], encoding="utf-8", errors="replace").read()
bad = [c for c in t if 0xFDD0 <= ord(c) <= 0xFDEF or (ord(c) & 0xFFFE) == 0xFFFE]
sys.exit(1 if bad else 0)
PY
  done
  grep -q "A � b � c � d � e � f" nc.txt || bad "noncharacters: not U+FFFD in the PDF ($(grep '^A ' nc.txt))"
else
  bad "noncharacters: no PDF"
fi
NAMED="$(printf 'n\357\267\220.md')"
printf 'no heading here\n' > "$NAMED"
"$OCTAVO" "$NAMED" -o named.pdf 2> named.err || { bad "noncharacter in a file name: exit $?"; cat named.err; }

# ---- 3. a hostile SVG ----
# A local HTTP server that logs every request; the SVG names it.
python3 - > http.port 2> http.log <<'PY' &
import http.server, socketserver, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        sys.stderr.write("GET " + self.path + "\n"); sys.stderr.flush()
        self.send_response(404); self.end_headers()
    def log_message(self, *a): pass
import threading
s = socketserver.TCPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
threading.Timer(120, s.shutdown).start()  # never outlives the test
s.serve_forever()
PY
http_pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do [ -s http.port ] && break; sleep 0.2; done
PORT=$(cat http.port)
[ -n "$PORT" ] || { bad "svg: the HTTP server did not start"; PORT=9; }
U="http://127.0.0.1:$PORT"
cat > hostile.svg <<SVG
<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet href="$U/sheet.css"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100" viewBox="0 0 200 100" onload="alert(0)">
  <style>@import url("$U/import.css");
    @IMPORT '$U/import2.css';
    .a { fill: url($U/grad.svg#g); stroke: url(#g) }
    .b { background: url( 'javascript:alert(1)' ) }
  </style>
  <defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>
  <rect class="a" width="200" height="100" style="fill: blue; background-image: url($U/bg.png)"/>
  <rect x="10" y="10" width="20" height="20" fill="url($U/fill.svg#x)"/>
  <rect x="40" y="10" width="20" height="20" fill="url(#g)" style="@import '$U/attr.css'; fill: green"/>
  <foreignObject width="100" height="50">
    <div xmlns="http://www.w3.org/1999/xhtml"><p>Kept text</p>
      <iframe src="$U/frame.html"></iframe>
      <img src="$U/img.png" alt="x"/>
      <object data="$U/object.swf"></object>
      <embed src="$U/embed"/>
      <video src="$U/v.mp4" poster="$U/poster.png"></video>
    </div>
  </foreignObject>
  <a xlink:href="https://example.org/"><text x="10" y="90">link</text>
    <animate attributeName="xlink:href" to="javascript:alert(2)" begin="0s"/>
    <set attributeName="href" to="javascript:alert(3)"/>
  </a>
  <a href="javascript:alert(4)"><text x="60" y="90">js</text></a>
  <animate attributeName="fill" values="red;url($U/anim.svg#x)" dur="1s"/>
  <animateTransform attributeName="transform" type="rotate" from="0" to="javascript:x" dur="1s"/>
  <image x="0" y="0" width="10" height="10" xlink:href="$U/image.png"/>
  <use xlink:href="$U/use.svg#x"/>
  <script>alert(5)</script>
  <handler type="application/ecmascript">alert(6)</handler>
</svg>
SVG
printf '# Drawing\n\n![a hostile drawing](hostile.svg)\n' > svg.md
"$OCTAVO" svg.md -o svg.pdf -o svg.epub 2> svg.err
rc=$?
[ $rc -eq 0 ] || { bad "svg: exit $rc"; cat svg.err; }
expect svg.err "^svg.md:3:1: warning: image hostile.svg: <iframe> \(line 15\) removed from the e-book's copy" "svg iframe"
expect svg.err "^svg.md:3:1: warning: image hostile.svg: .* more removed from the e-book's copy" "svg count"
unzip -p svg.epub EPUB/images/img-1.svg > cleaned.svg 2>/dev/null || bad "svg: no SVG in the EPUB"
for w in "127.0.0.1" "javascript:" "@import" "<iframe" "<img" "<object" "<embed" "<video" "<script" \
  "<handler" "onload" "attributeName=\"xlink:href\"" "attributeName=\"href\"" "xml-stylesheet"; do
  grep -qi "$w" cleaned.svg && bad "svg: the EPUB's copy still holds $w"
done
grep -q "Kept text" cleaned.svg || bad "svg: the foreignObject's text is gone"
grep -q 'url(#g)' cleaned.svg || bad "svg: a reference inside the image is gone"
grep -q 'https://example.org/' cleaned.svg || bad "svg: the web hyperlink is gone"
epubcheck_clean svg.epub "svg"
[ -f svg.pdf ] && qpdf_clean svg.pdf "svg"
kill $http_pid 2>/dev/null
wait $http_pid 2>/dev/null
grep -q "GET" http.log && bad "svg: a book fetched from the network: $(grep GET http.log | tr '\n' ' ')"

# ---- 4. a build killed while writing ----
mkdir -p kill && cd kill || exit 1
python3 - <<'PY'
import random
random.seed(1)
w = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor".split()
with open("big.md", "w") as f:
    f.write("# Big\n\n")
    for c in range(30):
        f.write("## Chapter %d\n\n" % c)
        for p in range(50):
            f.write(" ".join(random.choice(w) for _ in range(120)) + ".\n\n")
PY
here=$(pwd)
"$OCTAVO" -q big.md -o big.pdf 2> /dev/null &
pid=$!
killed=""
i=0
while [ $i -lt 1500 ]; do
  # the temporary file: unnamed (an fd into this folder) or .big.pdf.tmp-*
  if ls -l /proc/$pid/fd 2>/dev/null | grep -q " $here/"; then
    kill -9 $pid; killed=fd; break
  fi
  if ls -a | grep -q '^\.big\.pdf\.tmp-'; then
    kill -9 $pid; killed=named; break
  fi
  kill -0 $pid 2>/dev/null || break
  i=$((i + 1))
  sleep 0.01
done
wait $pid 2>/dev/null
[ -n "$killed" ] || bad "kill: the build ended before its temporary file was seen"
[ -e big.pdf ] && bad "kill: a killed build left big.pdf"
if [ "$killed" = fd ]; then
  left=$(ls -a | grep '\.tmp-')
  [ -z "$left" ] || bad "kill: an unnamed temporary file left a name: $left"
fi
# stale files of older runs: one unheld and old (removed), one unheld and
# fresh (kept: maybe a build that has not locked it yet), one held by a
# living process (kept)
echo x > .small.pdf.tmp-AAAAAA && touch -d '-1 min' .small.pdf.tmp-AAAAAA
echo x > .small.pdf.tmp-BBBBBB
echo x > .small.pdf.tmp-CCCCCC && touch -d '-1 min' .small.pdf.tmp-CCCCCC
echo x > .other.pdf.tmp-DDDDDD && touch -d '-1 min' .other.pdf.tmp-DDDDDD
holder=""
if command -v flock >/dev/null 2>&1; then
  flock .small.pdf.tmp-CCCCCC sleep 30 &
  holder=$!
  sleep 0.3
fi
if [ "$killed" = named ]; then # a killed build's own file, made old
  for f in .big.pdf.tmp-*; do touch -d '-1 min' "$f"; done
  "$OCTAVO" -q "$TOP/tests/books/inline/"*.md -o big.pdf 2> /dev/null
  ls -a | grep -q '^\.big\.pdf\.tmp-' && bad "kill: the next build left the killed one's temporary file"
fi
printf '# Small\n\nText.\n' > small.md
"$OCTAVO" -q small.md -o small.pdf || bad "kill: the small build failed"
[ -e .small.pdf.tmp-AAAAAA ] && bad "kill: a stale temporary file was not removed"
[ -e .small.pdf.tmp-BBBBBB ] || bad "kill: a fresh temporary file was removed"
[ -n "$holder" ] && { [ -e .small.pdf.tmp-CCCCCC ] || bad "kill: a held temporary file was removed"; }
[ -e .other.pdf.tmp-DDDDDD ] || bad "kill: another output's temporary file was removed"
[ -n "$holder" ] && kill $holder 2>/dev/null
ls -a | grep '\.tmp-' | grep -v 'BBBBBB\|CCCCCC\|DDDDDD' | grep -q . && bad "kill: left: $(ls -a | grep '\.tmp-')"
cd "$D" || exit 1

# ---- 5. write errors of dumps and standard output ----
printf '# Dump\n\nText.\n' > dump.md
for o in --dump-model --dump-layout --version "-t epub -o -" "-t pdf -o -" "-t html -o -"; do
  # shellcheck disable=SC2086
  "$OCTAVO" -q $o dump.md > /dev/full 2> full.err
  rc=$?
  [ $rc -eq 1 ] || bad "$o into /dev/full: exit $rc, want 1"
  grep -q "error: cannot write .*standard output: No space left on device" full.err \
    || bad "$o into /dev/full: no error message ($(cat full.err))"
  [ "$(grep -c error: full.err)" -eq 1 ] || bad "$o into /dev/full: $(grep -c error: full.err) errors, want 1"
done
"$OCTAVO" -q --dump-model dump.md > dump.out || bad "--dump-model into a file: exit $?"
grep -q "Text" dump.out || bad "--dump-model: no model written"

[ $fail -eq 0 ] && echo "t-valid: ok"
exit $fail
