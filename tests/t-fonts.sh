#!/bin/sh
# t-fonts.sh: every character drawn with a real glyph (issue 16). A book
# in Chinese, Japanese, Korean, Devanagari, Thai, Malayalam, Greek,
# mathematical letters, emoji and one private-use character no face has
# (tests/books/fonts/scripts.md): the PDF shows no .notdef glyph and no hex
# box (corpus_check.py glyphs); its text is in pdftotext in order (the
# missing character kept in the text layer); exactly one warning, with its
# position, for the missing character; pdffonts lists the fallback faces,
# embedded (the emoji: Noto Color Emoji's images, their text in a Type 3
# font); Greek comes from one face (Noto Serif, never Charis SIL or
# DejaVu Sans Mono); the EPUB embeds the fallback subsets, names them in its
# font stack and passes EPUBCheck silently.
set -u
for t in pdffonts pdftotext qpdf python3 unzip; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }
src="$TOP/tests/books/fonts/scripts.md"
pdf="$TMPROOT/fonts.pdf" epub="$TMPROOT/fonts.epub" err="$TMPROOT/fonts.err"
"$OCTAVO" "$src" -o "$pdf" -o "$epub" 2> "$err" || { bad "octavo failed"; cat "$err"; exit 1; }

# one warning, the missing character's first position (line 13, column 14)
n=$(grep -c "warning: no font has" "$err")
[ "$n" = 1 ] || { bad "$n warnings for missing characters, not 1"; cat "$err"; }
grep -q "scripts.md:13:14: warning: no font has U+E000" "$err" || { bad "warning text or position"; cat "$err"; }
[ "$(grep -c warning "$err")" = 1 ] || { bad "other warnings"; cat "$err"; }

python3 "$TOP/tests/tools/corpus_check.py" glyphs "$pdf" || bad "hex boxes or .notdef in the PDF"

pdftotext -raw "$pdf" "$TMPROOT/fonts.txt"
python3 - "$TMPROOT/fonts.txt" <<'PY' || bad "text not in pdftotext in order"
import sys
# lines may break inside a Korean or Thai word: compare without spaces
text = open(sys.argv[1], encoding="utf-8").read().replace("\n", "").replace(" ", "")
want = ["汉字测试", "中文排版", "日本語のテキスト", "ひらがな", "한국어", "텍스트", "हिन्दी", "भाषा",
        "ภาษาไทย", "മലയാളം", "ὁ λόγος ἐστί ψυχή ἀρετή", "αβγδ", "ℋ", "ⅆx", "𝑥", "𝑦", "🚨", "🤯",
        "\ue000 here", "\ue000 there", "漢字"]
at = 0
for w in want:
    w = w.replace(" ", "")
    i = text.find(w, at)
    if i < 0:
        print("missing or out of order:", repr(w)); sys.exit(1)
    at = i + len(w)
PY

fonts=$(pdffonts "$pdf")
for f in NotoSerifCJKsc NotoSerifDevanagari NotoSerifThai NotoSerifMalayalam NotoSerif-Regular \
         NotoSansMath NotoSansMonoCJKsc; do
  echo "$fonts" | grep -q "+$f" || bad "pdffonts lists no $f"
done
# the emoji: Noto Color Emoji's bitmaps as images, their text in a Type 3
# font of empty glyphs (t-emoji.sh checks them further)
echo "$fonts" | grep -q "Type 3" || bad "pdffonts lists no Type 3 font (the emoji's text)"
echo "$fonts" | awk 'NR > 2 && $(NF-4) != "yes" { bad = 1 } END { exit bad }' || bad "a font not embedded"

# Greek from one face: Charis SIL has only some Greek letters (alpha, pi...),
# so a word set in it took others from DejaVu Sans Mono; now Noto Serif
# draws all of them (Charis's Latin text stays in its simple-font subset)
printf '# Greek\n\nThe word \316\273\317\214\316\263\316\277\317\202 and \316\261\316\262\316\263.\n' > "$TMPROOT/greek.md"
"$OCTAVO" -q "$TMPROOT/greek.md" -o "$TMPROOT/greek.pdf" || bad "greek: octavo failed"
# the text pages only: the last page is the colophon, whose labels may take a CID subset
last=$(pdfinfo "$TMPROOT/greek.pdf" | awk '/^Pages:/ {print $2}')
g=$(pdffonts -l $((last - 1)) "$TMPROOT/greek.pdf")
echo "$g" | grep -q "+NotoSerif-Regular" || bad "Greek not from Noto Serif"
if echo "$g" | grep -q "DejaVu\|CharisSIL.*CID"; then bad "Greek from more than one face"; echo "$g"; fi

# the EPUB: fallback subsets embedded and named in the font stack
unzip -l "$epub" > "$TMPROOT/fonts.list"
for f in NotoSerifCJKSC.otf NotoSerifDevanagari.ttf NotoSansMath.ttf NotoSerif.ttf; do
  grep -q "EPUB/fonts/$f" "$TMPROOT/fonts.list" || bad "EPUB has no fonts/$f"
done
# the colour emoji face is left to the reader's emoji font: named, not embedded
! grep -q "EPUB/fonts/NotoColorEmoji" "$TMPROOT/fonts.list" || bad "EPUB embeds Noto Color Emoji"
unzip -p "$epub" EPUB/styles/book.css | grep -q 'font-family: "Charis SIL", .*"Noto Color Emoji"' ||
  bad "EPUB font stack does not name Noto Color Emoji"
unzip -p "$epub" EPUB/styles/book.css | grep -q 'font-family: "Charis SIL", "Noto Serif", .*"Noto Serif CJK SC"' ||
  bad "EPUB font stack"
jar=/usr/share/java/epubcheck.jar
if [ -f "$jar" ] && command -v java >/dev/null 2>&1; then
  java -jar "$jar" "$epub" > "$TMPROOT/fonts.epubcheck" 2>&1
  grep -q "0 fatals / 0 errors / 0 warnings" "$TMPROOT/fonts.epubcheck" || { bad "EPUBCheck"; cat "$TMPROOT/fonts.epubcheck"; }
fi
exit $fail
