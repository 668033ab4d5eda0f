#!/bin/sh
# t-shape.sh: the book's shape read as its author meant it (issue 27):
# --split-level auto, the title, the levels. Each case is a small book in
# one of the conventions real books use; for each, the title in the OPF and
# the PDF's /Title and running heads, the number of chapter documents and
# printed chapters, the warning that names the overriding option, and no
# skipped heading level in any XHTML. The corpus's books by these
# conventions (tests/corpus, when present) are checked the same way.
set -u
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPROOT" || exit 1
export SOURCE_DATE_EPOCH=1683763200

# build NAME ARGS...: NAME.epub, NAME.pdf, NAME.err
build() {
  name=$1; shift
  "$OCTAVO" "$@" -o "$name.epub" -o "$name.pdf" 2> "$name.err" ||
    { cat "$name.err"; fail "$name: octavo failed"; }
}
opf_title() { unzip -p "$1.epub" EPUB/package.opf | sed -n 's:.*<dc\:title[^>]*>\([^<]*\)<.*:\1:p' | head -n 1; }
pdf_title() { pdfinfo "$1.pdf" | sed -n 's/^Title: *//p'; }
chapters() { unzip -l "$1.epub" | grep -c 'EPUB/ch[0-9]*\.xhtml'; }
# title NAME WANT: the title in the OPF and the PDF's Info.
title() {
  [ "$(opf_title "$1")" = "$2" ] || fail "$1: OPF title '$(opf_title "$1")', expected '$2'"
  [ "$(pdf_title "$1")" = "$2" ] || fail "$1: PDF title '$(pdf_title "$1")', expected '$2'"
}
# levels NAME: no heading level skipped in any chapter document (the first
# heading of a document may be at any level; each next one at most one
# deeper than the deepest before it).
levels() {
  for f in $(unzip -Z1 "$1.epub" 'EPUB/ch*.xhtml'); do
    unzip -p "$1.epub" "$f" | python3 -c '
import re, sys
levels = [int(m) for m in re.findall(r"<h([1-6])[ >]", sys.stdin.read())]
for a, b in zip(levels, levels[1:]):
    if b > a + 1:
        sys.exit("h%d after h%d" % (b, a))
' || fail "$1: $f skips a heading level"
  done
}
# heads NAME TEXT: TEXT is in the running heads of the body (the first line
# of each page's text after the contents), on at least one page.
heads() {
  pdftotext -layout "$1.pdf" - | grep -Fq "$2" || fail "$1: '$2' in no running head"
}

# 1. pandoc's convention: one file, several # chapters with ## sections.
cat > pandoc.md <<'EOF'
# Introduction

Some opening words for the book, long enough to be a paragraph of text.

## Why this book

A section of the introduction.

# Chapter 1 - The Basics

The first chapter's text.

## Variables

A section.

#### Deep

A heading two levels below its section in the source.

# Chapter 2 - Going Further

The second chapter's text.
EOF
build pandoc pandoc.md
[ "$(chapters pandoc)" -eq 3 ] || fail "pandoc: $(chapters pandoc) chapter documents, expected 3"
grep -q 'warning: 3 # headings: each starts a chapter.*--split-level 2' pandoc.err ||
  { cat pandoc.err; fail "pandoc: no warning naming --split-level"; }
grep -q "warning: no title: its 3 # headings start chapters" pandoc.err ||
  { cat pandoc.err; fail "pandoc: no warning about the missing title"; }
title pandoc pandoc
levels pandoc
echo "pandoc: 3 chapters at #, titled after the file, warned"
# With a title from the metadata: no warning about it, the chapters the same.
build pandoc-m pandoc.md -M title="The Basics Book"
title pandoc-m "The Basics Book"
[ "$(chapters pandoc-m)" -eq 3 ] || fail "pandoc-m: $(chapters pandoc-m) chapters"
heads pandoc-m "The Basics Book"
# --split-level 2 still wins.
build pandoc-2 pandoc.md --split-level 2
[ "$(chapters pandoc-2)" -eq 5 ] || fail "pandoc-2: $(chapters pandoc-2) chapters, expected 5"

# 2. Several files that all open with the same series line.
for n in 1 2 3; do
  printf '# A Series: Book One\n\n# Chapter %d: Part %d\n\nText of chapter %d.\n\n## A section\n\nMore.\n' \
    $n $n $n > "s$n.md"
done
build series s1.md s2.md s3.md
title series "A Series: Book One"
[ "$(chapters series)" -eq 3 ] || fail "series: $(chapters series) chapter documents, expected 3"
n=$(unzip -p series.epub EPUB/nav.xhtml | grep -c 'A Series: Book One')
[ "$n" -eq 0 ] || fail "series: the series line is in the nav $n times"
grep -q "warning: all 3 files open with '# A Series: Book One': taken as the book's title" series.err ||
  { cat series.err; fail "series: no warning"; }
heads series "A Series: Book One"
levels series
echo "series: the series line is the title, 3 chapters"

# 3. A README with a row of links before its title.
cat > README.md <<'EOF'
[English](README.md) | [中文](README-zh.md) | [Español](README-es.md)

[![Build](https://example.com/badge.svg)](https://example.com/)

# Widget Maker

Widget Maker makes widgets.

## Install

Run the installer.

## Use

Make a widget.
EOF
build readme README.md
title readme "Widget Maker"
grep -q 'no title' readme.err && { cat readme.err; fail "readme: says there is no title"; }
grep -q "warning: the book's title is 'Widget Maker', its one # heading, after 2 blocks of text" readme.err ||
  { cat readme.err; fail "readme: no warning about the title after text"; }
unzip -p readme.epub 'EPUB/ch*.xhtml' | grep -q 'English.*中文.*Español' || fail "readme: the row of links is lost"
[ "$(chapters readme)" -eq 3 ] || fail "readme: $(chapters readme) chapter documents, expected 3"
echo "readme: titled 'Widget Maker' past its row of links"

# 4. The report's case is unchanged: one # is the title, ## are chapters.
build seed "$TOP/content/lsfmm-bpf-2023.md"
title seed "The 2023 LSFMM+BPF Summit"
grep -q warning seed.err && { cat seed.err; fail "seed: a warning"; }
"$OCTAVO" -v "$TOP/content/lsfmm-bpf-2023.md" -o seed-v.epub 2>&1 |
  grep -q "chapters at level 2 (1 # heading; the title is the # heading" || fail "seed: -v says nothing of the shape"
echo "seed: unchanged"

# 5. The corpus's books by these conventions, as their authors meant them
# (EPUBs alone, no page list: the shape only; t-corpus.sh checks the rest).
C="$TOP/tests/corpus"
corpus() { # NAME: built from its folder's book.list into NAME.epub, NAME.err
  # shellcheck disable=SC2046 # book.list is a word list
  (cd "$C/$1" && "$OCTAVO" --no-page-list $(cat book.args 2>/dev/null) $(grep -v '^#' book.list) \
    -o "$TMPROOT/$1.epub") 2> "$1.err" || { cat "$1.err"; fail "$1: octavo failed"; }
}
# getify's book: every file opens with '# Functional-Light JavaScript'.
corpus functional-light-js
[ "$(opf_title functional-light-js)" = "Functional-Light JavaScript" ] || fail "functional-light-js: title '$(opf_title functional-light-js)'"
[ "$(chapters functional-light-js)" -eq 7 ] || fail "functional-light-js: $(chapters functional-light-js) chapters, expected 7 (one per file)"
n=$(unzip -p functional-light-js.epub EPUB/nav.xhtml | grep -c '>Functional-Light JavaScript<')
[ "$n" -eq 0 ] || fail "functional-light-js: the series line is $n entries of the nav"
levels functional-light-js
# A README with a row of translation links above its title.
corpus system-design-primer
[ "$(opf_title system-design-primer)" = "The System Design Primer" ] || fail "system-design-primer: title '$(opf_title system-design-primer)'"
grep -q 'no title' system-design-primer.err && fail "system-design-primer: says it has no title"
levels system-design-primer
# pandoc's convention: a % title block, six # sections, ## below them.
corpus xmonad-man
[ "$(chapters xmonad-man)" -eq 6 ] || fail "xmonad-man: $(chapters xmonad-man) chapters, expected 6"
[ "$(opf_title xmonad-man)" = "XMONAD(1) Tiling Window Manager" ] || fail "xmonad-man: title from its % block: $(opf_title xmonad-man)"
levels xmonad-man
echo "corpus: functional-light-js 7 chapters under its series title, system-design-primer titled, xmonad-man 6 chapters and the title of its % block"
