#!/bin/sh
# t-mdbook.sh: mdBooks as mdBook renders them (issue 27), on a real one
# (tests/corpus/tlborm: The Little Book of Rust Macros, chapters nested four
# deep, hundreds of hidden lines) and on generated cases:
#   - lines mdBook hides in Rust code blocks (`# x`, `#`; `##` for a literal
#     `#`; rust,ignore-style info strings) in neither book; other languages'
#     `#` lines, #[attributes] and files outside an mdBook kept;
#   - every SUMMARY.md entry in the nav, the NCX, the PDF's bookmarks and
#     its printed contents, numbered as mdBook numbers them, whatever
#     --toc-depth; none numbered under [output.html] no-section-label;
#   - each chapter document's <title> its own heading, no heading level
#     skipped (tests/tools/mdbook_check.py);
#   - a <Listing> caption read as Markdown; a raw-HTML <figure> with stray
#     <br> a figure, its caption on its image's page;
#   - EPUBCheck silent on every EPUB.
set -u
fail() { echo "FAIL: $*"; exit 1; }
for t in python3 pdftotext pdfimages qpdf java unzip; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
JAR=/usr/share/java/epubcheck.jar
[ -f "$JAR" ] || { echo "SKIP: no $JAR"; exit 77; }
CHECK=$TOP/tests/tools/mdbook_check.py
CC=$TOP/tests/tools/corpus_check.py
cd "$TMPROOT" || exit 1
export SOURCE_DATE_EPOCH=1700000000

# --- the real book ------------------------------------------------------------
"$OCTAVO" "$TOP/tests/corpus/tlborm" -o tl.epub -o tl.pdf 2> tl.err || { cat tl.err; fail "tlborm did not build"; }
[ "$(grep -c 'warning:' tl.err)" -le 16 ] || { cat tl.err; fail "tlborm: more warnings than the 16 known"; }
grep -v 'warning:' tl.err && fail "tlborm: messages other than warnings"
unzip -p tl.epub EPUB/package.opf | grep -q '<dc:title>The Little Book of Rust Macros</dc:title>' || fail "tlborm: title"
python3 "$CHECK" "$TOP/tests/corpus/tlborm/src/SUMMARY.md" tl.epub tl.pdf > tl.check 2>&1
cat tl.check
grep -q '^FAIL' tl.check && fail "tlborm: mdbook_check"
grep -q 'PASS summary: 40 SUMMARY entries (38 numbered, 4 levels)' tl.check || fail "tlborm: SUMMARY's entries"
python3 "$CC" outline tl.epub tl.pdf || fail "tlborm: nav, NCX, PDF contents and bookmarks differ"
# the hidden lines were there to hide: '#' lines in the source, headings
# among them (octavo before issue 27 showed 414 of them in Rust code)
n=$(cat "$TOP"/tests/corpus/tlborm/src/*.md "$TOP"/tests/corpus/tlborm/src/*/*.md "$TOP"/tests/corpus/tlborm/src/*/*/*.md |
  grep -cE '^[ 	]+#( |$)|^#$')
[ "$n" -gt 40 ] || fail "tlborm: only $n indented or bare '#' lines in the source"
# a chapter four deep opens as a chapter, numbered, its running head numbered
pdftotext tl.pdf tl.txt
grep -q '2\.5\.2\.1\..*Abacus Counters' tl.txt || fail "tlborm: the nested chapter's numbered heading"
unzip -p tl.epub 'EPUB/ch*.xhtml' | grep -q '<h2 id="abacus-counters">' || fail "tlborm: the nested chapter's heading is an h2"
unzip -p tl.epub 'EPUB/ch*.xhtml' | grep -q '<title>2\.5\.2\.1\..*Abacus Counters</title>' || fail "tlborm: the nested chapter's <title>"

# --- generated cases ---------------------------------------------------------
mkdir -p g/src/a/b/c && cd g || exit 1
printf '[book]\ntitle = "Hidden Lines"\n' > book.toml
cat > src/SUMMARY.md <<'T'
# Summary

[Foreword](foreword.md)

- [Code](code.md)
    - [Deeper](a/deeper.md)
        - [Deeper still](a/b/still.md)
            - [Deepest](a/b/c/deepest.md)
    - [Draft]()
    - [No heading](a/none.md)
- [Second level](second.md)

[Afterword](after.md)
T
printf '# Foreword\n\nForeword words.\n\n## A foreword section\n\nMore.\n' > src/foreword.md
cat > src/code.md <<'T'
# The code chapter

```rust
# fn main() {
let visible = 1;
#   let indented_hidden = 2;
#
##[derive(Debug)]
#[derive(Clone)]
#![allow(unused)]
#hash_no_space_kept
# }
```

```rust,ignore
# hidden_in_ignore();
shown_in_ignore();
```

```rust,no_run,edition2021
    # hidden_indented();
shown_in_no_run();
```

```sh
# a shell comment stays
echo shell
```

```
# no language: mdBook hides nothing
```

<Listing number="1-1" file-name="Cargo.toml" caption="Contents of *Cargo.toml* with `code`">

```toml
[package]
name = "demo"
```

</Listing>

<figure>
<img src="pic.png" alt="A picture">
<figcaption>The picture's caption</figcaption>
<br>
</figure>

## A section of the code chapter

Words.
T
printf '# Deeper\n\nDeeper words.\n\n### Skipped a level\n\nWords.\n' > src/a/deeper.md
printf '# Deeper still\n\nStill words.\n' > src/a/b/still.md
printf '# Deepest\n\nDeepest words.\n\n## Inside deepest\n\nWords.\n' > src/a/b/c/deepest.md
printf 'This chapter opens with text, not a heading.\n\n# Later heading\n\nWords.\n' > src/a/none.md
printf '## Second level\n\nA chapter whose file opens with ##.\n\n### Its section\n\nWords.\n' > src/second.md
printf '# Afterword\n\nAfter words.\n' > src/after.md
python3 -c "
import zlib, struct
def ch(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
raw = b''.join(b'\x00' + b'\x80\x20\x20' * 240 for _ in range(160))
open('src/pic.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + ch(b'IHDR', struct.pack('>IIBBBBB', 240, 160, 8, 2, 0, 0, 0))
                                + ch(b'IDAT', zlib.compress(raw)) + ch(b'IEND', b''))"
cd ..
"$OCTAVO" g -o g.epub -o g.pdf 2> g.err || { cat g.err; fail "the generated mdBook did not build"; }
grep -q "SUMMARY.md:9:7: warning: draft chapter 'Draft'" g.err || { cat g.err; fail "no warning for the draft"; }
python3 "$CHECK" g/src/SUMMARY.md g.epub g.pdf > g.check 2>&1
cat g.check
grep -q '^FAIL' g.check && fail "generated: mdbook_check"
python3 "$CC" outline g.epub g.pdf || fail "generated: the four views differ"
unzip -p g.epub 'EPUB/ch*.xhtml' > g.xhtml
# (the text without its tags: highlighted code is in <span>s)
sed 's/<[^>]*>//g' g.xhtml > g.text
pdftotext -layout g.pdf g.txt
for f in g.text g.txt; do
  for hidden in 'fn main' indented_hidden hidden_in_ignore hidden_indented; do
    ! grep -q "$hidden" $f || fail "$f: the hidden line '$hidden' is shown"
  done
  for kept in 'let visible = 1;' '#\[derive(Debug)\]' '#\[derive(Clone)\]' '#!\[allow(unused)\]' \
    '#hash_no_space_kept' shown_in_ignore shown_in_no_run '# a shell comment stays' \
    '# no language: mdBook hides nothing'; do
    grep -q "$kept" $f || fail "$f: '$kept' is missing"
  done
  ! grep -q '##\[derive' $f || fail "$f: ## shown, not one #"
  ! grep -q '\*Cargo.toml\*' $f || fail "$f: the Listing caption's asterisks"
done
unzip -p g.epub 'EPUB/ch*.xhtml' |
  grep -q '<figcaption>Listing 1-1: Contents of <em>Cargo.toml</em> with <code>code</code></figcaption>' ||
  fail "the Listing caption is not read as Markdown"
# the chapter that opens with text gets a heading of its SUMMARY title; the
# one that opens with ## a chapter heading; nested chapters h2 like others
grep -q '<title>1\.3\..*No heading</title>' g.xhtml ||
  fail "the chapter without a heading: its title"
[ "$(grep -c '<h2 ' g.xhtml)" -eq 8 ] || fail "not every chapter heading is an h2: $(grep -c '<h2 ' g.xhtml)"
# every SUMMARY entry at --toc-depth 1 too; the sections below
"$OCTAVO" -q --toc-depth 1 g -o d1.epub -o d1.pdf || fail "--toc-depth 1"
python3 "$CHECK" g/src/SUMMARY.md d1.epub d1.pdf > d1.check 2>&1
grep -q 'PASS summary' d1.check || { cat d1.check; fail "--toc-depth 1 lost SUMMARY entries"; }
unzip -p d1.epub EPUB/nav.xhtml | grep -q 'A section of the code chapter' && fail "--toc-depth 1 shows a section"
# the figure: its caption on its image's page
python3 - g.pdf <<'P' || fail "the raw-HTML figure's caption is not on its image's page"
import subprocess, sys
pages = subprocess.run(["pdftotext", sys.argv[1], "-"], capture_output=True, text=True).stdout.split("\f")
imgs = subprocess.run(["pdfimages", "-list", sys.argv[1]], capture_output=True, text=True).stdout.split("\n")[2:]
with_img = {int(l.split()[0]) for l in imgs if l.strip()}
cap = [i + 1 for i, p in enumerate(pages) if "The picture's caption" in p]
sys.exit(0 if cap and cap[0] in with_img else 1)
P
# book.toml's no-section-label: no numbers anywhere
cp -r g gn && printf '[book]\ntitle = "Hidden Lines"\n[output.html]\nno-section-label = true\n' > gn/book.toml
"$OCTAVO" -q gn -o gn.epub -o gn.pdf || fail "no-section-label did not build"
python3 "$CHECK" --no-numbers gn/src/SUMMARY.md gn.epub gn.pdf > gn.check 2>&1
grep -q 'PASS summary' gn.check || { cat gn.check; fail "no-section-label: numbers shown"; }
! unzip -p gn.epub 'EPUB/ch*.xhtml' | grep -q 'secno' || fail "no-section-label: a number in a chapter"
# outside an mdBook, a Rust block's '#' lines are the author's (GitHub and pandoc show them)
cp g/src/code.md plain.md && cp g/src/pic.png . && "$OCTAVO" -q plain.md -o plain.epub || fail "plain file"
unzip -p plain.epub 'EPUB/ch*.xhtml' | sed 's/<[^>]*>//g' | grep -q '# fn main' || fail "a plain file's Rust lines were hidden"
# EPUBCheck, one JVM
java -cp "$JAR" "$TOP/tests/tools/EpubCheckMany.java" tl.epub g.epub d1.epub gn.epub plain.epub > epubcheck.out 2>&1 ||
  { cat epubcheck.out; fail "EPUBCheck"; }
for f in tl.pdf g.pdf; do
  qpdf --check $f > /dev/null 2>&1 || fail "qpdf --check $f"
done
echo ok
