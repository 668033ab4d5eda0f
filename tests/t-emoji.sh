#!/bin/sh
# t-emoji.sh: colour emoji (issue 28), on tests/books/emoji/emoji.md.
#
#   warning  exactly one warning, at the first of the two 🦕‍🍕 (a ZWJ
#            sequence no font joins), none for the sequences Noto Color
#            Emoji draws whole
#   glyphs   each sequence (ZWJ family, skin tone, flag, keycap, rainbow
#            flag, Scotland's tag flag) is ONE glyph: one code of the PDF's
#            emoji text font (a Type 3 font of empty glyphs) maps to the
#            whole sequence in its ToUnicode map; 🦕‍🍕 is two; the colour
#            bitmaps are drawn as RGB images, none with /Interpolate true
#   text     pdftotext gives every sequence's codepoints, in its line
#   pdf      qpdf --check clean; no .notdef; fonts embedded with ToUnicode
#            and nothing forbidden (the PDF/A-3u pass: pdfa_check.py); the
#            same bytes with -j1
#   epub     EPUBCheck silent; the sequences in the XHTML as in the source;
#            Noto Color Emoji named in the font stack, not embedded
set -u
for t in pdftotext pdfimages qpdf python3 unzip; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
: "${OCTAVO:=build/octavo}" "${TOP:=$(pwd)}" "${TMPROOT:=$(mktemp -d)}"
src="$TOP/tests/books/emoji/emoji.md"
T=$TMPROOT/emoji
mkdir -p "$T"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
export SOURCE_DATE_EPOCH=1700000000

"$OCTAVO" "$src" -o "$T/e.pdf" -o "$T/e.epub" 2>"$T/err" || { bad "octavo failed: $(cat "$T/err")"; exit 1; }

# --- the warning ---------------------------------------------------------
n=$(grep -c 'warning:' "$T/err")
grep -q "emoji.md:7:40: warning: emoji sequence U+1F995 U+200D U+1F355 .* is not one glyph" "$T/err" &&
  [ "$n" = 1 ] && ok "one warning, for 🦕‍🍕 at 7:40" || bad "warnings: $(cat "$T/err")"

# --- one glyph per sequence; images --------------------------------------
qpdf --qdf --object-streams=disable "$T/e.pdf" "$T/q.pdf" 2>/dev/null
python3 - "$T/q.pdf" <<'PY' || fails=$((fails + 1))
import re, sys, zlib
d = open(sys.argv[1], "rb").read()
# the Type 3 font's ToUnicode: bfchar entries <code> <utf-16be>
maps = []
for m in re.finditer(rb"/Subtype /Type3.*?/ToUnicode (\d+) 0 R", d, re.S):
    obj = re.search(rb"\n%s 0 obj\n<<.*?>>\nstream\n(.*?)endstream" % m.group(1), d, re.S)
    if obj:
        for a, b in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", obj.group(1)):
            maps.append(bytes.fromhex(b.decode()).decode("utf-16-be", "replace"))
want = ["\U0001F468\u200d\U0001F469\u200d\U0001F467", "\U0001F44D\U0001F3FD", "\U0001F1EF\U0001F1F5",
        "1\ufe0f\u20e3", "\U0001F3F3\ufe0f\u200d\U0001F308",
        "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", "\U0001F602"]
lost = [w for w in want if w not in maps]
joined = "\U0001F995\u200d\U0001F355" in maps
print(("ok" if not lost and not joined and maps else "FAIL") +
      f": {len(want) - len(lost)} of {len(want)} sequences one glyph each (a code of the emoji text font "
      f"mapping to the whole sequence); 🦕‍🍕 {'one glyph (wrong)' if joined else 'not one'}")
for w in lost:
    print("    not one glyph:", " ".join(f"U+{ord(c):04X}" for c in w))
n_interp = len(re.findall(rb"/Interpolate true", d))
print(("ok" if n_interp == 0 else "FAIL") + f": {n_interp} images with /Interpolate true")
sys.exit(1 if lost or joined or not maps or n_interp else 0)
PY
# each drawn glyph an RGB image with its alpha: 11 images (the 7 sequences,
# the two parts of each 🦕‍🍕 and the heart twice: the second a copy)
imgs=$(pdfimages -list "$T/e.pdf" | awk 'NR > 2 && $3 == "image" && $6 == "rgb"' | wc -l)
[ "$imgs" -ge 10 ] && ok "$imgs colour images" || bad "$imgs colour images (10 or more expected)"

# --- text ----------------------------------------------------------------
pdftotext -enc UTF-8 "$T/e.pdf" "$T/e.txt"
python3 - "$T/e.txt" <<'PY' || fails=$((fails + 1))
import sys
t = open(sys.argv[1], encoding="utf-8").read()
want = ["A family \U0001F468\u200d\U0001F469\u200d\U0001F467 here, a thumb \U0001F44D\U0001F3FD there, "
        "a flag \U0001F1EF\U0001F1F5 and a face \U0001F602 in",
        "A keycap 1\ufe0f\u20e3, a rainbow flag \U0001F3F3\ufe0f\u200d\U0001F308 and Scotland "
        "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F",
        # drawn as two glyphs, the joiner between them is a cluster without
        # a glyph, which cairo gives as an empty /ActualText: poppler drops it
        "pizza: \U0001F995\U0001F355, nor", "A heart \u2764\ufe0f twice"]
t = t.replace("\U0001F995\u200d\U0001F355", "\U0001F995\U0001F355")
miss = [w for w in want if w not in t]
print(("ok" if not miss else "FAIL") + f": pdftotext gives {len(want) - len(miss)} of {len(want)} emoji lines' text")
for w in miss:
    print("    missing:", w)
sys.exit(1 if miss else 0)
PY

# --- the PDF's checks ----------------------------------------------------
qpdf --check "$T/e.pdf" >"$T/qpdf" 2>&1 && ! grep -q WARNING "$T/qpdf" && ok "qpdf --check clean" ||
  bad "qpdf --check: $(tail -n 3 "$T/qpdf")"
python3 "$TOP/tests/tools/corpus_check.py" glyphs "$T/e.pdf" >/dev/null 2>&1 && ok "no .notdef, no hex box" ||
  bad "glyphs: $(python3 "$TOP/tests/tools/corpus_check.py" glyphs "$T/e.pdf" 2>&1)"
for c in fonts forbidden; do
  python3 "$TOP/tests/tools/pdfa_check.py" $c "$T/e.pdf" >/dev/null && ok "pdfa_check $c" || bad "pdfa_check $c"
done

# the same bytes on one thread as on several (the colour glyphs are made
# per painter, the PDF's drawing thread's and the layout's)
"$OCTAVO" -q -j1 "$src" -o "$T/e1.pdf" && cmp -s "$T/e.pdf" "$T/e1.pdf" && ok "-j1 gives the same PDF" ||
  bad "-j1 gives another PDF"
# the same emoji in chapters set on other threads (-j4: the chapter pool
# shapes with fonts of its own font maps): still one image a glyph, and the
# bytes of -j1 (fpb-howto stored a glyph twice at -j4)
for i in 1 2 3; do
  printf '# Chapter %s\n\nA smile 😀 and a family 👨‍👩‍👧 in chapter %s.\n' $i $i >"$T/c$i.md"
done
"$OCTAVO" -q -j1 "$T/c1.md" "$T/c2.md" "$T/c3.md" -o "$T/c-1.pdf" &&
  "$OCTAVO" -q -j4 "$T/c1.md" "$T/c2.md" "$T/c3.md" -o "$T/c-4.pdf" || bad "chapters: octavo failed"
cmp -s "$T/c-1.pdf" "$T/c-4.pdf" && ok "three chapters: -j4 gives the PDF of -j1" ||
  bad "three chapters: -j4 gives another PDF than -j1"
ids=$(pdfimages -list "$T/c-4.pdf" | awk 'NR > 2 && $3 == "image" { print $11 }' | sort -u | wc -l)
[ "$ids" = 2 ] && ok "three chapters: two glyphs, two images" ||
  bad "three chapters: $ids images for two glyphs (pdfimages -list)"

# --- the EPUB ------------------------------------------------------------
unzip -p "$T/e.epub" EPUB/ch01.xhtml 'EPUB/*.xhtml' 2>/dev/null | grep -q '👨‍👩‍👧 here' &&
  ok "EPUB: the sequences as in the source" || bad "EPUB: no 👨‍👩‍👧 in the XHTML"
unzip -l "$T/e.epub" | grep -q 'fonts/NotoColorEmoji' && bad "EPUB embeds Noto Color Emoji" ||
  ok "EPUB: no colour face embedded"
unzip -p "$T/e.epub" EPUB/styles/book.css | grep -q 'font-family: "Charis SIL".*"Noto Color Emoji"' &&
  ok "EPUB: Noto Color Emoji in the font stack" || bad "EPUB: Noto Color Emoji not in the font stack"
JAR=/usr/share/java/epubcheck.jar
if [ -f "$JAR" ] && command -v java >/dev/null 2>&1; then
  java -jar "$JAR" "$T/e.epub" >"$T/check" 2>&1
  grep -q 'Messages: 0 fatals / 0 errors / 0 warnings' "$T/check" && ok "EPUBCheck silent" ||
    bad "EPUBCheck: $(grep -E 'ERROR|WARNING' "$T/check" | head -n 3)"
fi

[ $fails = 0 ] && echo "t-emoji: all passed" || echo "t-emoji: $fails failed"
[ $fails = 0 ]
