#!/bin/sh
# t-preview.sh: --preview DIR writes PNG thumbnails of the chosen pages
# (--pages) and a contact sheet of every page, drawn by the painter; the
# files have the expected sizes, page 1 (the cover) is not blank, a body
# page has dark text pixels and white paper, the bytes are the same on two
# runs, and bad --pages lists are refused.
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
D="$TMPROOT/preview"
S="$TOP/content/lsfmm-bpf-2023.md"
"$OCTAVO" -q "$S" --preview "$D/a" --pages 1-3 || bad "octavo --preview failed"
for f in page-001.png page-002.png page-003.png contact.png; do
  [ -s "$D/a/$f" ] || bad "no $f"
done
[ -e "$D/a/page-004.png" ] && bad "page 4 drawn though --pages 1-3"
[ "$(ls -A "$D/a" | wc -l)" -eq 4 ] || bad "other files left in DIR: $(ls -A "$D/a" | tr '\n' ' ')"
pages=$("$OCTAVO" -q "$S" -o "$D/s.pdf" && pdfinfo "$D/s.pdf" 2>/dev/null | awk '/^Pages:/ {print $2}')
# png_stats FILE: width height distinct-colours ink-fraction white-fraction
png_stats() {
  python3 - "$1" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n"
i, idat = 8, b""
while i < len(d):
    n, = struct.unpack(">I", d[i:i + 4]); t = d[i + 4:i + 8]; c = d[i + 8:i + 8 + n]; i += 12 + n
    if t == b"IHDR": w, h, bd, ct = struct.unpack(">IIBB", c[:10])
    elif t == b"IDAT": idat += c
bpp = {2: 3, 6: 4}[ct]; st = w * bpp; raw = zlib.decompress(idat); prev = bytearray(st); p = 0
cols, dark, white = set(), 0, 0
for y in range(h):
    f = raw[p]; ln = bytearray(raw[p + 1:p + 1 + st]); p += 1 + st
    for x in range(st):
        a = ln[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: ln[x] = (ln[x] + a) & 255
        elif f == 2: ln[x] = (ln[x] + b) & 255
        elif f == 3: ln[x] = (ln[x] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            ln[x] = (ln[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = ln
    for x in range(0, st, bpp * 2):
        px = bytes(ln[x:x + 3]); cols.add(px)
        s = sum(px)
        dark += s < 600; white += s > 750
n = w * h / 2
print(w, h, len(cols), round(dark / n, 4), round(white / n, 4))
PY
}
set -- $(png_stats "$D/a/page-001.png")
[ "$1" = 400 ] && [ "$2" = 566 ] || bad "page 1 is $1 x $2, want 400 x 566 (A4 at 400 px wide)"
[ "$3" -ge 20 ] || bad "page 1 (the cover) has $3 colours: blank?"
set -- $(png_stats "$D/a/page-003.png")
python3 -c "import sys; sys.exit(0 if $4 > 0.005 and $5 > 0.8 else 1)" \
  || bad "page 3 has $4 dark and $5 white pixels: no text, or no white paper"
# the contact sheet: every page, 8 a row, 150 px wide, 12 px gaps
set -- $(png_stats "$D/a/contact.png")
rows=$(( (pages + 7) / 8 )); cols=$(( pages < 8 ? pages : 8 ))
[ "$1" -eq $((cols * 162 + 12)) ] && [ "$2" -eq $((rows * (213 + 12) + 12)) ] \
  || bad "contact sheet $1 x $2 for $pages pages, want $((cols * 162 + 12)) x $((rows * 225 + 12))"
# deterministic, and all pages by default
"$OCTAVO" -q "$S" --preview "$D/b" || bad "second run"
cmp -s "$D/a/page-002.png" "$D/b/page-002.png" || bad "two runs differ"
cmp -s "$D/a/contact.png" "$D/b/contact.png" || bad "two contact sheets differ"
[ "$(ls "$D/b" | grep -c '^page-')" -eq "$pages" ] || bad "default: not every page ($pages)"
# bad lists are usage errors, and --pages needs --preview
for l in 0 3-2 x "1-$((pages + 1))"; do
  "$OCTAVO" -q "$S" --preview "$D/c" --pages "$l" 2>/dev/null; rc=$?
  [ $rc -eq 2 ] || bad "--pages $l: exit $rc, want 2"
done
"$OCTAVO" -q "$S" --pages 1 -o "$D/x.pdf" 2>/dev/null; [ $? -eq 2 ] || bad "--pages without --preview accepted"
[ $fail -eq 0 ] && echo "t-preview: ok ($pages pages)"
exit $fail
