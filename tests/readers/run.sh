#!/bin/sh
# tests/readers/run.sh (make check-readers): builds each test book's EPUB and
# PDF under $BUILD/readers/books/, installs the pinned npm packages when the
# lock file changed, and runs run.mjs over the books: epub.js 0.3 and 0.4 and
# foliate-js in headless Chromium, Ace by DAISY, pdftoppm and mutool draw;
# then selftest.py shows that each of those checks fails on a broken book.
# Environment: OCTAVO (the binary), BUILD (build dir).
set -e
: "${OCTAVO:=build/octavo}" "${BUILD:=build}"
R=tests/readers
OUT=$BUILD/readers
# Nothing downloads a browser: /usr/bin/chromium (Debian's) is the only one.
export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export PUPPETEER_EXECUTABLE_PATH=/usr/bin/chromium CHROMIUM=/usr/bin/chromium

# npm packages, exactly as locked; install scripts off (puppeteer's would fetch Chrome).
stamp="$R/node_modules/.octavo-lock"
if ! cmp -s "$R/package-lock.json" "$stamp" 2>/dev/null; then
  echo "readers: npm ci (tests/readers/package-lock.json)"
  (cd "$R" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || exit 1
  cp "$R/package-lock.json" "$stamp"
fi

TOPDIR=$(pwd)
case "$OCTAVO" in /*) ;; *) OCTAVO=$TOPDIR/$OCTAVO ;; esac
rm -rf "$OUT"
mkdir -p "$OUT/books"
names=""
book() { # name, octavo arguments...
  n=$1; shift
  if ! "$OCTAVO" -q "$@" -o "$OUT/books/$n.epub" -o "$OUT/books/$n.pdf"; then
    echo "FAIL $n: octavo could not build it"; exit 1
  fi
  names="$names $n"
}
book report --smart content/lsfmm-bpf-2023.md
book multi tests/books/multi/0*.md
book xref tests/books/xref/one.md tests/books/xref/two.md
# tests/corpus/: each folder is one book, its chapters listed in book.list
# (in reading order, relative to the folder) with its options in book.args.
if [ -d tests/corpus ]; then
  for e in tests/corpus/*/; do
    e=${e%/}
    [ -f "$e/book.list" ] || continue
    n=corpus-$(basename "$e")
    args=$(cat "$e/book.args" 2>/dev/null || true)
    # shellcheck disable=SC2086
    (cd "$e" && "$OCTAVO" -q $args $(cat book.list) -o "$TOPDIR/$OUT/books/$n.epub" -o "$TOPDIR/$OUT/books/$n.pdf") ||
      { echo "FAIL $n: octavo could not build it"; exit 1; }
    names="$names $n"
  done
fi
# shellcheck disable=SC2086
rc=0
node "$R/run.mjs" "$OUT/books" "$OUT" $names || rc=1
# Each check can fail, and for the right reason: broken copies of the xref book.
echo "readers: selftest (broken copies of the xref book)"
python3 "$R/selftest.py" "$OUT/books" "$BUILD/readers-selftest" || rc=1
exit $rc
