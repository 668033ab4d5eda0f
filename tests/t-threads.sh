#!/bin/sh
# t-threads.sh: the outputs do not depend on the thread count. Each book is
# built with -j1 (one thread) and with -j2 (the EPUB written on a second
# thread while the PDF is drawn, its pages drawn on a third while the next
# are laid out), and with OCTAVO_THREADS=2: the EPUB, the
# PDF and the diagnostics (warnings written while each book is written:
# a missing cover for the EPUB; an undecodable image, refused at parse time
# before any writer starts) must be byte-identical. Bad thread counts are usage errors.
set -u
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPROOT" || exit 1
export SOURCE_DATE_EPOCH=1700000000

# A book that warns: the EPUB's writer of a date it cannot use (-M date=soon),
# the parser of a GIF whose frame cannot be decoded (its header gives a size)
# and of a cover that is not there.
mkdir warn
python3 -c "
import struct
open('warn/bad.gif', 'wb').write(b'GIF89a' + struct.pack('<HH', 20, 20) + b'\0\0\0' + b',' + b'\xff' * 30)"
printf '# Warnings\n\nText.\n\n![a GIF that cannot be decoded](bad.gif)\n\nMore text.\n' >warn/w.md

M="$TOP/tests/books/multi"
build() { # name j-option outputs-prefix inputs...: build EPUB and PDF, stderr to prefix.err
  name=$1 jopt=$2 out=$3; shift 3
  # shellcheck disable=SC2086 # jopt is one word or none
  "$OCTAVO" $jopt "$@" -o "$out.epub" -o "$out.pdf" 2>"$out.err" || fail "$name: build ($jopt) failed: $(cat "$out.err")"
}
check() { # name inputs...
  name=$1; shift
  build "$name" -j1 "$name-1" "$@"
  build "$name" -j2 "$name-2" "$@"
  OCTAVO_THREADS=2 build "$name" "" "$name-env" "$@"
  for v in 2 env; do
    for f in epub pdf err; do
      cmp -s "$name-1.$f" "$name-$v.$f" || fail "$name: the $f differs between -j1 and ${v} (-j2, or OCTAVO_THREADS=2: env)"
    done
  done
  [ -s "$name-1.epub" ] && [ -s "$name-1.pdf" ] || fail "$name: no books"
}
check seed "$TOP/content/lsfmm-bpf-2023.md"
check multi "$M/01-intro.md" "$M/02-features.md" "$M/03-long.md"
check warn -M cover=nothere.png -M date=soon warn/w.md
grep -q "date 'soon' is not" warn-2.err || fail "warn: the EPUB's warning is missing: $(cat warn-2.err)"
grep -q "cover nothere.png not found" warn-2.err || fail "warn: the parser's cover warning is missing: $(cat warn-2.err)"
grep -q "bad.gif cannot be decoded" warn-2.err || fail "warn: the parser's warning is missing: $(cat warn-2.err)"
# the parser's diagnostics come before the writers', whatever the threads and the outputs' order
"$OCTAVO" -j2 -M cover=nothere.png -M date=soon warn/w.md -o r.pdf -o r.epub 2>r.err || fail "reversed outputs"
[ "$(tail -n 1 r.err | grep -c "date 'soon' is not")" = 1 ] || fail "-j2: the writer's warning is not last: $(cat r.err)"
[ "$(wc -l < r.err)" = 3 ] || fail "-j2: not exactly three warnings: $(cat r.err)"

# The PDF alone: with two threads or more its pages are drawn on a thread of
# their own while the next are laid out (src/pagepipe.c); the bytes and the
# messages must be those of one thread. Books with images (inline: PNG, SVG,
# a page drawn with the same icon twice), scripts and right-to-left text
# (fonts), cross-references, a real book (embedded-book), and the papers,
# two columns, section numbers and the handout.
E="$TOP/tests/corpus/embedded-book"
I="$TOP/tests/books/inline/inline.md"
F="$TOP/tests/books/fonts"
X="$TOP/tests/books/xref"
pdfs() { # name octavo-arguments...: -j1, -j2, -j4 the same PDF and messages
  name=$1; shift
  for j in 1 2 4; do
    "$OCTAVO" -j$j "$@" -o "p-$name-$j.pdf" 2>"p-$name-$j.err" || fail "$name: -j$j failed: $(cat "p-$name-$j.err")"
  done
  for j in 2 4; do
    cmp -s "p-$name-1.pdf" "p-$name-$j.pdf" || fail "$name: the PDF differs between -j1 and -j$j"
    cmp -s "p-$name-1.err" "p-$name-$j.err" || fail "$name: the messages differ between -j1 and -j$j"
  done
}
pdfs seed "$TOP/content/lsfmm-bpf-2023.md"
pdfs seed-a5 --paper a5 -N "$TOP/content/lsfmm-bpf-2023.md"
pdfs seed-letter-2col --paper letter --columns 2 "$TOP/content/lsfmm-bpf-2023.md"
pdfs seed-handout --layout handout "$TOP/content/lsfmm-bpf-2023.md"
pdfs multi-2col-a4 --paper a4 --columns 2 --link-notes end "$M/01-intro.md" "$M/02-features.md" "$M/03-long.md"
pdfs inline --resource-path "$TOP/tests/books/inline" "$I"
pdfs fonts "$F/scripts.md" "$F/rtl-mixed.md" "$F/rtl-overflow.md"
pdfs xref "$X/one.md" "$X/two.md"
pdfs warn -M cover=nothere.png -M date=soon warn/w.md
# shellcheck disable=SC2046
pdfs embedded --toc-depth 1 --resource-path "$E/src" $(sed "s|^|$E/|" "$E/book.list")

# A book of 30 languages (tests/corpus/fpb-howto) and an SVG with text:
# more fonts than the ten FreeType faces cairo keeps open at once, which it
# closed under a thread drawing from one (src/fontlock.c; before it, one
# two-column build in ten crashed). Built again and again, each time the
# bytes of one thread.
H="$TOP/tests/corpus/fpb-howto"
# shellcheck disable=SC2046
set -- --columns 2 --resource-path "$TOP/tests/books/inline" $(sed -n "/^[^#]/s|^|$H/|p" "$H/book.list") "$I"
"$OCTAVO" -q -j1 "$@" -o many-1.pdf -o many-1.epub || fail "many scripts: -j1 failed"
for k in 1 2 3 4 5 6; do
  "$OCTAVO" -q -j2 "$@" -o many-2.pdf -o many-2.epub 2>many.err || fail "many scripts: -j2 build $k failed: $(tail -n 2 many.err)"
  cmp -s many-1.pdf many-2.pdf && cmp -s many-1.epub many-2.epub || fail "many scripts: -j2 build $k differs from -j1"
done

# Both books from one run: with two threads the PDF is streamed and the
# EPUB's thread waits for its page marks; the EPUB must be the one written
# alone, the PDF the one written alone (and -j1's, laid out whole).
both() { # name octavo-arguments...
  name=$1; shift
  "$OCTAVO" -q -j1 "$@" -o "b-$name-alone.epub" || fail "$name: the EPUB alone failed"
  "$OCTAVO" -q -j1 "$@" -o "b-$name-alone.pdf" || fail "$name: the PDF alone failed"
  for j in 1 2 4; do
    "$OCTAVO" -q -j$j "$@" -o "b-$name-$j.epub" -o "b-$name-$j.pdf" || fail "$name: both -j$j failed"
    cmp -s "b-$name-alone.epub" "b-$name-$j.epub" || fail "$name: both -j$j: not the EPUB written alone"
    cmp -s "b-$name-alone.pdf" "b-$name-$j.pdf" || fail "$name: both -j$j: not the PDF written alone"
  done
}
both multi "$M/01-intro.md" "$M/02-features.md" "$M/03-long.md"
both seed-a5 --paper a5 "$TOP/content/lsfmm-bpf-2023.md"
both seed-handout --layout handout "$TOP/content/lsfmm-bpf-2023.md"
# shellcheck disable=SC2046
both embedded --toc-depth 1 --resource-path "$E/src" $(sed "s|^|$E/|" "$E/book.list")
# the PDF first on the command line: the EPUB's thread waits for the marks
timeout 120 "$OCTAVO" -q -j2 "$M/01-intro.md" -o rev.pdf -o rev.epub || fail "reversed both failed"
"$OCTAVO" -q -j1 "$M/01-intro.md" -o rev-alone.epub && cmp -s rev.epub rev-alone.epub ||
  fail "reversed both: not the EPUB written alone"

# The EPUB alone, with its page list: with two threads a book's chapters
# are set on a second thread beside the page list's layout (src/layout/
# pool.c), a handout's paragraphs shaped on one ahead of it (ahead.c),
# each on a pango font map of its own; the bytes must be those of one
# thread, and the thread must really have done the work (-v).
epubs() { # name octavo-arguments...
  name=$1; shift
  for j in 1 2 4; do
    "$OCTAVO" -v -j$j "$@" -o "e-$name-$j.epub" 2>"e-$name-$j.err" || fail "$name: EPUB -j$j failed: $(cat "e-$name-$j.err")"
  done
  for j in 2 4; do
    cmp -s "e-$name-1.epub" "e-$name-$j.epub" || fail "$name: the EPUB differs between -j1 and -j$j"
    grep -v '^octavo: ' "e-$name-1.err" >e1.err; grep -v '^octavo: ' "e-$name-$j.err" >ej.err
    cmp -s e1.err ej.err || fail "$name: the messages differ between -j1 and -j$j"
  done
  ! grep -q "on a second thread\|beside the layout's turn" "e-$name-1.err" || fail "$name: -j1 used a second thread"
  n=$(sed -n -e 's/^octavo: \([0-9]*\) of [0-9]* paragraphs shaped on a second thread.*/\1/p' \
    -e "s/^octavo: \\([0-9]*\\) of [0-9]* chapters set beside the layout's turn.*/\\1/p" "e-$name-2.err" | head -n 1)
  [ "${n:-0}" -gt 0 ] || fail "$name: -j2 set nothing on a second thread: $(grep 'paragraphs\|chapters' "e-$name-2.err")"
}
epubs seed "$TOP/content/lsfmm-bpf-2023.md"
epubs seed-handout --layout handout "$TOP/content/lsfmm-bpf-2023.md"
epubs multi --link-notes end "$M/01-intro.md" "$M/02-features.md" "$M/03-long.md"
epubs inline --resource-path "$TOP/tests/books/inline" "$I"
epubs fonts "$F/scripts.md" "$F/rtl-mixed.md" "$F/rtl-overflow.md"
epubs xref "$X/one.md" "$X/two.md"
# shellcheck disable=SC2046
epubs many --resource-path "$TOP/tests/books/inline" $(sed -n "/^[^#]/s|^|$H/|p" "$H/book.list") "$I"
# the handout's PDF with a core over for the shaping (-j3: layout, drawing, shaping)
"$OCTAVO" -q -j1 --layout handout "$@" -o many-h1.pdf || fail "many scripts: handout -j1 failed"
for k in 1 2 3; do
  "$OCTAVO" -q -j3 --layout handout "$@" -o many-h3.pdf || fail "many scripts: handout -j3 build $k failed"
  cmp -s many-h1.pdf many-h3.pdf || fail "many scripts: the handout -j3 build $k differs from -j1"
done

# A book's chapters set on other threads (pool.c) make the URL notes and
# destinations one thread makes: each chapter's notes lettered and named
# from its first ("url <chapter>-<n>"), a URL repeated in a later chapter
# noted again, a footnote's URL, a heading "url 1 1" (id url-1-1, which the
# first URL note's destination took until they were named with a space:
# the contents then sent it to the note's page). Foot and end notes, the
# EPUB alone, the PDF streamed (-j3: layout, drawing, one chapter thread)
# and laid out whole (--dump-layout).
mkdir pool
printf '# One\n\nText [a link](https://example.com/one) and [b](https://example.org/b).\n\nMore.\n' >pool/1.md
printf '# Two\n\nText [again](https://example.com/one).\n\nMore[^n].\n\n[^n]: A note with [c](https://example.net/c).\n' >pool/2.md
printf '# Three\n\n## url 1 1\n\nText [x](https://example.com/x).\n' >pool/3.md
printf '# Four\n\nSee [the heading](#url-1-1) and [one](https://example.com/one).\n' >pool/4.md
for notes in foot end; do
  set -- --link-notes $notes pool/1.md pool/2.md pool/3.md pool/4.md
  "$OCTAVO" -q -j1 "$@" -o "p-$notes-1.epub" -o "p-$notes-1.pdf" || fail "pool $notes: -j1 failed"
  "$OCTAVO" -q -j1 --dump-layout "$@" -o "p-$notes-whole.pdf" >"p-$notes.dump" || fail "pool $notes: whole failed"
  for j in 2 3 4; do
    "$OCTAVO" -v -j$j "$@" -o "p-$notes-$j.epub" 2>"p-$notes-$j.err" || fail "pool $notes: EPUB -j$j failed"
    cmp -s "p-$notes-1.epub" "p-$notes-$j.epub" || fail "pool $notes: the EPUB differs between -j1 and -j$j"
    grep -q "[1-9][0-9]* of [0-9]* chapters set beside the layout's turn" "p-$notes-$j.err" ||
      fail "pool $notes: -j$j set no chapter on another thread: $(cat "p-$notes-$j.err")"
    "$OCTAVO" -q -j$j "$@" -o "p-$notes-$j.pdf" || fail "pool $notes: PDF -j$j failed"
    cmp -s "p-$notes-1.pdf" "p-$notes-$j.pdf" || fail "pool $notes: the PDF differs between -j1 and -j$j"
    "$OCTAVO" -q -j$j --dump-layout "$@" -o "p-$notes-w$j.pdf" >"p-$notes-$j.dump" || fail "pool $notes: whole -j$j failed"
    cmp -s "p-$notes-whole.pdf" "p-$notes-w$j.pdf" && cmp -s "p-$notes.dump" "p-$notes-$j.dump" ||
      fail "pool $notes: the whole layout differs between -j1 and -j$j"
  done
  # the contents' number of "url 1 1" is the page its heading is on
  awk '/^page /{lab=$3; gsub(/[][]/,"",lab)} /[|]url 1 1[.] /{n=$0; sub(/.*[.]/,"",n); sub(/[|]$/,"",n); toc=n}
    /[|]url 1 1[|]$/{at=lab} END{exit !(toc != "" && toc == at)}' "p-$notes.dump" ||
    fail "pool $notes: the contents send \"url 1 1\" to another page than its heading's"
done

# bad counts
"$OCTAVO" -j -1 warn/w.md -o bad.pdf 2>/dev/null
[ $? = 2 ] || fail "-j -1 is not a usage error"
OCTAVO_THREADS=many "$OCTAVO" warn/w.md -o bad.pdf 2>/dev/null
[ $? = 2 ] || fail "OCTAVO_THREADS=many is not a usage error"
echo ok
