#!/bin/sh
# t-outline.sh: one outline (outline.h), four views of it. For books whose
# first heading is `#`, books that start at `##`, books that skip a level,
# with --toc-depth 1, 2 and 3, and for a real book (tests/corpus/embedded-book):
# the EPUB nav, the NCX, the PDF's printed contents and its bookmarks list
# the same entries at the same depths (corpus_check.py outline), and the nav
# is the list expected. Code in a heading is in the monospace face in the
# printed contents. The PDF title page (octavo's cover) gives the authors
# and the date as labels.c writes them.
set -u
for t in qpdf pdftotext pdffonts python3 unzip; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
tool="$TOP/tests/tools/corpus_check.py"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
d="$TMPROOT/outline"
mkdir -p "$d"

# name expected-nav octavo-args... (the Markdown is $d/name.md)
check() {
  name=$1 want=$2; shift 2
  "$OCTAVO" -q "$@" "$d/$name.md" -o "$d/$name.epub" -o "$d/$name.pdf" || { bad "$name: octavo failed"; return; }
  python3 "$tool" outline "$d/$name.epub" "$d/$name.pdf" || bad "$name: the four lists differ"
  got=$(python3 -c "
import sys; sys.path.insert(0, '$TOP/tests/tools')
import corpus_check as cc
print(' | '.join(f'{d}:{t}' for d, t in cc.nav_entries(cc.Epub('$d/$name.epub'))))")
  [ "$got" = "$want" ] || bad "$name: nav is '$got', expected '$want'"
}

printf '# Book\n\nIntro.\n\n## One\n\nText one.\n\n#### Deep\n\nDeep text.\n\n## Two `code` here\n\nText two.\n' > "$d/skip.md"
check skip '0:Book | 0:One | 1:Deep | 0:Two code here' --toc-depth 2
check skip '0:Book | 0:One | 0:Two code here' --toc-depth 1
# the code span keeps the monospace face in the printed contents (page 2)
pdffonts -f 2 -l 2 "$d/skip.pdf" | grep -q Mono || bad "skip: no monospace face in the contents"

printf '## One\n\nA.\n\n### One.one\n\nB.\n\n#### One.one.one\n\nC.\n\n## Two\n\nD.\n' > "$d/start2.md"
check start2 '0:One | 1:One.one | 0:Two' --toc-depth 2
check start2 '0:One | 1:One.one | 2:One.one.one | 0:Two' --toc-depth 3

printf '# Part one\n\nA.\n\n## Chapter\n\nB.\n\n### Section\n\nC.\n\n# Part two\n\nD.\n\n#### Deep\n\nE.\n' > "$d/parts.md"
check parts '0:Part one | 1:Chapter | 0:Part two | 1:Deep' --split-level 1 --toc-depth 2
check parts '0:Part one | 1:Chapter | 2:Section | 0:Part two | 1:Deep' --split-level 1 --toc-depth 3

# the title page (the cover, cover.c): the authors and the date as labels.c gives them
printf -- '---\ntitle: T\nauthor: [Ada, Charles]\ndate: 2023-05-11\n---\n\n## One\n\ntext\n' > "$d/title.md"
(cd "$d" && "$OCTAVO" -q --lang fr title.md -o title.pdf) || bad "title: octavo failed"
page1=$(pdftotext -f 1 -l 1 "$d/title.pdf" - | tr -s ' \n' '  ')
case "$page1" in *"Ada et Charles"*"11 mai 2023"*) ;; *) bad "title page reads '$page1'";; esac

# a real book: the one that failed this before (tests/corpus/STATUS.md)
eb="$TOP/tests/corpus/embedded-book"
if [ -d "$eb" ]; then
  # shellcheck disable=SC2046
  (cd "$eb" && "$OCTAVO" -q $(cat book.args 2>/dev/null) $(grep -v '^#' book.list) \
     -o "$d/eb.epub" -o "$d/eb.pdf" 2>/dev/null) || bad "embedded-book: octavo failed"
  python3 "$tool" outline "$d/eb.epub" "$d/eb.pdf" || bad "embedded-book: the four lists differ"
else
  bad "tests/corpus/embedded-book is missing"
fi
exit $fail
