#!/bin/sh
# t-inline-images.sh: images inside a paragraph's text are drawn in the PDF
# (issue 16). tests/books/inline/inline.md holds Markdown and raw-HTML
# inline images (PNG, SVG; undeclared, width in px and em, 100% wide), a
# missing and a broken one, and icons in table cells. Checked on the PDF:
# each raster is drawn once where it stands (image XObjects with their
# placement, tests/tools/bbox_check.py images): an undeclared icon or badge
# one em (11 pt) tall, standing between the words around it, on their
# line; declared sizes honoured (40 px = 30 pt, 2 em = 22 pt); the 100%
# image (after a space, so on a line of its own after the indented first)
# exactly the measure wide (the old build sized it against the first
# line's room: 96 %), its line grown so that the next line starts below it; all inside the text block. The missing and the broken image (refused at parse time: its pixels do not decode) show their alt text; the missing image's alt text
# is in the text (a framed placeholder); the two warnings carry
# file:line:col; every drawn image (the SVG too) is a Figure element with
# its own alt text (/Alt, in document order); qpdf
# --check is clean (the same image drawn three times on one page).
set -u
for t in pdftotext qpdf python3; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
: "${OCTAVO:=build/octavo}" "${TOP:=$(pwd)}" "${TMPROOT:=$(mktemp -d)}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
src="$TOP/tests/books/inline/inline.md"
pdf="$TMPROOT/inline.pdf" err="$TMPROOT/inline.err"
"$OCTAVO" "$src" -o "$pdf" 2> "$err" || { bad "octavo failed"; cat "$err"; exit 1; }
[ "$(grep -c 'warning:' "$err")" = 2 ] || { bad "not exactly two warnings"; cat "$err"; }
grep -q "inline.md:9:17: warning: image missing.png not found" "$err" || bad "no warning for missing.png at 9:17"
grep -Eq "inline.md:9:63: warning: image broken.png cannot be decoded \(.*IDAT" "$err" ||
  bad "no warning for broken.png at 9:63"
pdftotext -raw "$pdf" - | grep -q "A missing image no such file and a broken one broken keep" ||
  bad "the missing image's alt text is not in the text where the image stands"

python3 "$TOP/tests/tools/bbox_check.py" images "$pdf" > "$TMPROOT/images.txt" || bad "bbox_check images failed"
pdftotext -bbox "$pdf" "$TMPROOT/words.html"
python3 - "$TMPROOT/images.txt" "$TMPROOT/words.html" <<'PY' || bad "inline image placement"
import re, sys
ims = [l.split() for l in open(sys.argv[1])]
ims = [(int(p), float(a), float(b), float(c), float(d), s) for p, a, b, c, d, s in ims]
words = [(float(a), float(b), float(c), float(d), w) for a, b, c, d, w in re.findall(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
    open(sys.argv[2], encoding="utf-8").read())]
fail = []
def word(w, after=0):
    return [x for x in words if x[4] == w][after]
def near(a, b, tol=0.3):
    return abs(a - b) <= tol
want = ["16x16", "88x20", "88x20", "16x16", "800x200", "16x16", "88x20"]
if [i[5] for i in ims] != want:
    fail.append(f"drawn images {[i[5] for i in ims]}, expected {want}")
else:
    icon, badge, badge40, icon2em, wide, cell1, cell2 = ims
    # between the words around it, on their line, one em tall
    for im, before, after, w, h in ((icon, "icon", "in", 11, 11), (badge, "badge", "next", 48.4, 11),
                                   (badge40, "image", "with", 30, 30 * 20 / 88),
                                   (icon2em, "one", "two", 22, 22)):
        b, a = word(before), word(after)
        if not (b[2] <= im[1] and im[3] <= a[0]):
            fail.append(f"image {im} not between {before!r} and {after!r}")
        if not (near(im[3] - im[1], w) and near(im[4] - im[2], h)):
            fail.append(f"image {im} is {im[3] - im[1]:.1f} x {im[4] - im[2]:.1f}, expected {w} x {h:.1f}")
        if not (b[1] <= im[4] <= b[3]):
            fail.append(f"image {im} does not stand on the line of {before!r}")
    if abs(wide[3] - wide[1] - 350.3) > 0.1:  # on the second line: the full measure
        fail.append(f"the 100% image is {wide[3] - wide[1]:.1f} wide, not the measure 350.3")
    if not word("makes")[1] >= wide[4] - 0.5:
        fail.append("the line after the wide image overlaps it")
    for im in ims:
        if im[1] < 100 - 0.1 or im[3] > 450.3 + 0.1:
            fail.append(f"image {im} outside the text block")
for f in fail:
    print(f)
sys.exit(1 if fail else 0)
PY

# cairo 1.16 names an image drawn twice on a page twice in its resources
# (the icon is drawn three times on the page): paint.c draws copies
qpdf --check "$pdf" > "$TMPROOT/qpdf.log" 2>&1; rc=$?
{ [ $rc = 0 ] && ! grep -q WARNING "$TMPROOT/qpdf.log"; } || { bad "qpdf --check"; head -5 "$TMPROOT/qpdf.log"; }

figs=$(qpdf --json=2 --json-key=qpdf "$pdf" | python3 -c '
import json, sys
objs = json.load(sys.stdin)["qpdf"][1].values()
vals = [o.get("value") for o in objs if isinstance(o, dict)]
print(sum(1 for v in vals if isinstance(v, dict) and v.get("/S") == "/Figure" and "/P" in v))')
[ "$figs" = 8 ] || bad "$figs Figure elements, not 8 (7 rasters, the SVG; the missing and the broken PNG are text)"
# each Figure has its own image's alt text (archive_fig.c), in the order
# of the structure tree (document order), not the fallback "Image"
alts=$(qpdf --json=2 --json-key=qpdf "$pdf" | python3 -c '
import json, sys
objs = json.load(sys.stdin)["qpdf"][1]
def get(r):
    return objs.get("obj:" + r, {}).get("value") if isinstance(r, str) and r.endswith(" R") else r
out = []
def walk(o):
    o = get(o)
    if isinstance(o, list):
        for c in o:
            walk(c)
    elif isinstance(o, dict) and "/S" in o:
        if o["/S"] == "/Figure":
            out.append(o.get("/Alt", "")[2:])
        walk(o.get("/K"))
walk(get(get(objs["trailer"]["value"]["/Root"])["/StructTreeRoot"]).get("/K"))
print("|".join(out))')
want="red square|build passing|octavo|badge at 40px|icon|wide|ok|ok"
[ "$alts" = "$want" ] || bad "Figure /Alt values: $alts, expected $want"
[ $fail = 0 ] && echo "ok: 7 rasters and an SVG drawn inline, 8 Figures with their alt text, 2 warnings"
exit $fail
