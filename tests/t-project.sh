#!/bin/sh
# t-project.sh: book projects. An mdBook (SUMMARY.md with a title, a prefix
# chapter, two parts, nested chapters, a draft, a suffix chapter; book.toml
# metadata; include lines; a <Listing>) built from its folder and from its
# SUMMARY.md; a folder of chapters with metadata.yaml; the corpus's mdBook.
set -u
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPROOT" || exit 1
mkdir -p mdb/src/part1 mdb/listings && cd mdb || exit 1
cat > book.toml <<'T'
[book]
title = "Project \"Book\""
authors = ["Ada Lovelace", "Charles Babbage"]
language = "en"
description = "A test of book projects"
[output.html]
title = "not this one"
T
cat > src/SUMMARY.md <<'T'
# Summary

[Preface](preface.md)

# First Part

- [Alpha](part1/alpha.md)
    - [Beta](part1/beta.md)
- [Draft]()

# Second Part

1. [Gamma](gamma.md)

[Appendix](appendix.md)
T
printf '# Preface\n\nPreface words.\n' > src/preface.md
printf '# Alpha\n\nAlpha words.\n\n## Alpha section\n\nMore words.\n' > src/part1/alpha.md
printf '# Beta\n\nBeta words, see [Gamma](../gamma.md).\n' > src/part1/beta.md
cat > src/gamma.md <<'T'
# Gamma

<Listing number="1-1" file-name="src/main.rs" caption="The `main` function">

```rust
{{#include ../listings/main.rs:body}}
```

</Listing>

{{#include ../listings/missing.rs}}
T
printf 'use std::io;\n// ANCHOR: body\nfn main() { println!("included"); }\n// ANCHOR_END: body\n' > listings/main.rs
printf '# Appendix\n\nAppendix words.\n' > src/appendix.md
cd ..
"$OCTAVO" mdb -o mdb.epub -o mdb.pdf 2> mdb.err || { cat mdb.err; fail "the mdBook folder did not build"; }
grep -q "SUMMARY.md:9:3: warning: draft chapter 'Draft'" mdb.err || { cat mdb.err; fail "no warning for the draft"; }
grep -q "gamma.md:11:1: warning: include file ../listings/missing.rs does not exist" mdb.err || { cat mdb.err; fail "no warning for the missing include"; }
unzip -p mdb.epub EPUB/package.opf > opf.xml
grep -q '<dc:title>Project &quot;Book&quot;</dc:title>' opf.xml || fail "title from book.toml"
grep -q '>Ada Lovelace</dc:creator>' opf.xml && grep -q '>Charles Babbage</dc:creator>' opf.xml || fail "authors from book.toml"
unzip -p mdb.epub EPUB/nav.xhtml > nav.xhtml
python3 - nav.xhtml <<'P' || fail "the nav's structure"
import sys, xml.etree.ElementTree as ET
ns = {'h': 'http://www.w3.org/1999/xhtml', 'e': 'http://www.idpf.org/2007/ops'}
root = ET.parse(sys.argv[1]).getroot()
toc = [n for n in root.iter('{http://www.w3.org/1999/xhtml}nav')
       if n.get('{http://www.idpf.org/2007/ops}type') == 'toc'][0]
def walk(ol, depth, out):
    for li in ol.findall('h:li', ns):
        a = li.find('h:a', ns)
        out.append((depth, ''.join(a.itertext()).strip()))
        sub = li.find('h:ol', ns)
        if sub is not None:
            walk(sub, depth + 1, out)
got = []
walk(toc.find('h:ol', ns), 1, got)
# every SUMMARY entry (the nested Beta too, below --toc-depth), numbered as
# mdBook numbers them (the draft takes 2.); Alpha's own section is below it
want = [(1, 'Preface'), (1, 'First Part'), (2, '1.\u2002Alpha'), (3, '1.1.\u2002Beta'),
        (1, 'Second Part'), (2, '3.\u2002Gamma'), (1, 'Appendix')]
if got != want:
    print('nav:', got); sys.exit(1)
P
pdftotext mdb.pdf mdb.txt
for w in "Preface words" "Alpha words" "Beta words" "included" "Listing 1-1" "Appendix words" "First Part" "Second Part"; do
  grep -q "$w" mdb.txt || fail "'$w' is not in the PDF"
done
! grep -q "ANCHOR" mdb.txt || fail "anchor lines leaked into the book"
# The same book from its SUMMARY.md; default output names from the book's folder.
mkdir out && cd out && "$OCTAVO" -q ../mdb/src/SUMMARY.md || fail "SUMMARY.md did not build"
[ -s mdb.epub ] && [ -s mdb.pdf ] || fail "default outputs of a project are named after its folder"
cd ..
# A folder of chapters with metadata.yaml, in name order.
mkdir -p folder && printf 'title: Folder Book\nauthor:\n  - Grace Hopper\n' > folder/metadata.yaml
printf '# Two\n\nSecond file.\n' > folder/02-two.md
printf '# One\n\nFirst file.\n' > folder/01-one.md
"$OCTAVO" -q folder -o folder.epub || fail "the folder did not build"
unzip -p folder.epub EPUB/package.opf | grep -q '<dc:title>Folder Book</dc:title>' || fail "title from metadata.yaml"
unzip -p folder.epub EPUB/package.opf | grep -q '>Grace Hopper</dc:creator>' || fail "author from metadata.yaml"
python3 "$TOP/tests/tools/epub_words.py" folder.epub folder/01-one.md folder/02-two.md >/dev/null 2>&1 ||
  unzip -p folder.epub 'EPUB/ch*.xhtml' | tr -s ' \n' ' ' | grep -q 'First file.*Second file' || fail "files out of name order"
# A missing chapter file is an error, no output.
printf -- '- [Gone](gone.md)\n' > bad-SUMMARY.md && mkdir bad && mv bad-SUMMARY.md bad/SUMMARY.md
"$OCTAVO" bad -o bad.epub 2> bad.err; rc=$?
[ $rc -eq 1 ] || fail "a missing chapter exits $rc, not 1"
grep -q "SUMMARY.md:1:3: error: chapter gone.md does not exist" bad.err || { cat bad.err; fail "missing chapter message"; }
[ ! -e bad.epub ] || fail "a failed project left an output"
# The corpus's mdBook builds from its SUMMARY.md, with its parts of chapters.
"$OCTAVO" -q "$TOP/tests/corpus/embedded-book/src/SUMMARY.md" -o eb.epub || fail "the corpus mdBook did not build"
echo ok
