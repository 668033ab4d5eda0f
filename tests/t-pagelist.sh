#!/bin/sh
# t-pagelist.sh: one book in two forms. The e-book carries the print page
# numbers of the PDF built in the same run: for the seed in A4, A5, Letter
# and A4 in two columns, and for the multi-file book, every page-break
# marker sits right before the first words of its PDF page (pagelist.py);
# the NCX carries the same pageList; the OPF names the pagination's source; --no-page-list leaves it all out;
# and EPUBCheck is silent on each variant.
set -u
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPROOT" || exit 1
mkdir -p pagelist && cd pagelist || exit 1
export SOURCE_DATE_EPOCH=1683763200
SEED="$TOP/content/lsfmm-bpf-2023.md"
build() { # name, octavo arguments...
  name=$1; shift
  "$OCTAVO" -q "$@" -o "$name.epub" -o "$name.pdf" || fail "$name does not build"
  python3 "$TOP/tests/tools/pagelist.py" "$name.epub" "$name.pdf" || fail "$name: page markers do not match the PDF"
  opf=$(unzip -p "$name.epub" EPUB/package.opf)
  # EPUB Accessibility 1.1's a11y:pageBreakSource is an "Undefined property"
  # to EPUBCheck 4.2.6 (Debian 12), with the reserved prefix or a declared
  # one; the EPUB 3.0 form says the same: dc:source refined as source-of
  # pagination.
  echo "$opf" | grep -q '<dc:source id="[^"]*">[^<]' || fail "$name: no dc:source for the pagination"
  echo "$opf" | grep -q 'property="source-of">pagination<' || fail "$name: dc:source is not marked source-of pagination"
  echo "$opf" | grep -q 'printPageNumbers' || fail "$name: no printPageNumbers accessibility feature"
}
build a4 "$SEED"
build a5 "$SEED" --paper a5
build letter "$SEED" --paper letter
build twocol "$SEED" --columns 2
build multi "$TOP"/tests/books/multi/0*.md
# The page list follows the print layout: one and two columns paginate
# differently (A4 and A5 no longer need to: both have about 68 characters a
# line and break the seed's chapters at the same places).
unzip -p a4.epub EPUB/nav.xhtml > a4.nav
unzip -p twocol.epub EPUB/nav.xhtml > twocol.nav
cmp -s a4.nav twocol.nav && fail "the two-column page list is the one-column one"
"$OCTAVO" -q "$SEED" --no-page-list -o none.epub || fail "--no-page-list does not build"
unzip -p none.epub 'EPUB/*.xhtml' | grep -q 'pagebreak' && fail "--no-page-list still marks page breaks"
unzip -p none.epub EPUB/nav.xhtml | grep -q 'page-list' && fail "--no-page-list still has a page-list nav"
unzip -p none.epub EPUB/package.opf | grep -q 'printPageNumbers' && fail "--no-page-list still claims printPageNumbers"
unzip -p none.epub EPUB/toc.ncx | grep -q '<pageList' && fail "--no-page-list still has an NCX pageList"
unzip -p none.epub EPUB/toc.ncx | grep -q 'dtb:totalPageCount" content="0"' ||
  fail "--no-page-list: the NCX does not say 0 pages"
# The EPUB alone is laid out only for its page list (no running heads,
# title page, colophon or outline): the same EPUB as beside the PDF, in
# the book layout and in the handout.
M="$TOP/tests/books/multi"
for args in "" "-N" "--columns 2 --paper a5" "--layout handout"; do
  # shellcheck disable=SC2086
  SOURCE_DATE_EPOCH=1700000000 "$OCTAVO" -q $args "$M/01-intro.md" "$M/02-features.md" "$M/03-long.md" \
    -o alone.epub || fail "the EPUB alone ($args) does not build"
  # shellcheck disable=SC2086
  SOURCE_DATE_EPOCH=1700000000 "$OCTAVO" -q $args "$M/01-intro.md" "$M/02-features.md" "$M/03-long.md" \
    -o beside.epub -o beside.pdf || fail "the EPUB and the PDF ($args) do not build"
  cmp -s alone.epub beside.epub || fail "the EPUB alone differs from the EPUB beside the PDF ($args)"
done
JAR=/usr/share/java/epubcheck.jar
[ -f "$JAR" ] && command -v java >/dev/null || { echo "SKIP: EPUBCheck not installed"; exit 77; }
java -cp "$JAR" "$TOP/tests/tools/EpubCheckMany.java" a5.epub letter.epub twocol.epub none.epub > check.out 2>&1
rc=$?
grep -E '^(ERROR|FATAL|WARNING)|: [0-9]+ errors' check.out | grep -v '^WARNING: : ' 
[ $rc -eq 0 ] || fail "EPUBCheck is not silent"
exit 0
