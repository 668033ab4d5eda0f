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
[ $fail -eq 0 ] && echo "t-images: ok"
exit $fail
