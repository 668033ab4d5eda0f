#!/bin/sh
# tests/readers/run.sh (make check-readers): builds each test book's EPUB and
# PDF under $BUILD/readers/books/, installs the pinned npm packages when the
# lock file changed, makes the selftest's broken copies of the xref book, and
# runs run.mjs once over all of them (one Chromium, $READERS_JOBS checks at
# once, default the number of CPUs): epub.js 0.3 and 0.4 and foliate-js in
# headless Chromium, Ace by DAISY, pdftoppm and mutool draw; then
# selftest.py judges that each check failed on its broken copy, for the
# right reason. Prints how long each step took.
# Environment: OCTAVO (the binary), BUILD (build dir), READERS_JOBS.
set -e
: "${OCTAVO:=build/octavo}" "${BUILD:=build}"
R=tests/readers
OUT=$BUILD/readers
# Nothing downloads a browser: /usr/bin/chromium (Debian's) is the only one.
export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export PUPPETEER_EXECUTABLE_PATH=/usr/bin/chromium CHROMIUM=/usr/bin/chromium
now() { date +%s; }
t0=$(now)

# npm packages, exactly as locked; install scripts off (puppeteer's would fetch Chrome).
stamp="$R/node_modules/.octavo-lock"
if ! cmp -s "$R/package-lock.json" "$stamp" 2>/dev/null; then
  echo "readers: npm ci (tests/readers/package-lock.json)"
  (cd "$R" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || exit 1
  cp "$R/package-lock.json" "$stamp"
fi
t1=$(now)

TOPDIR=$(pwd)
case "$OCTAVO" in /*) ;; *) OCTAVO=$TOPDIR/$OCTAVO ;; esac
rm -rf "$OUT"
mkdir -p "$OUT/books"
# Each book is built in the background, two at a time; a failed build is
# marked by NAME.failed.
names=""
specs="" # NAME, or NAME:CHECKS for a corpus book whose readers.checks names its checks
running=0
book() { # dir name, octavo arguments... (run in dir)
  d=$1 n=$2; shift 2
  (cd "$d" && "$OCTAVO" -q "$@" -o "$TOPDIR/$OUT/books/$n.epub" -o "$TOPDIR/$OUT/books/$n.pdf") \
    >"$OUT/books/$n.log" 2>&1 || : >"$OUT/books/$n.failed" &
  names="$names $n"
  specs="$specs $n"
  running=$((running + 1))
  if [ $running -ge 2 ]; then wait; running=0; fi
}
book . report --smart content/lsfmm-bpf-2023.md
book . multi tests/books/multi/0*.md
book . xref tests/books/xref/one.md tests/books/xref/two.md
# tests/corpus/: each folder is one book, its chapters listed in book.list
# (in reading order, relative to the folder) with its options in book.args.
if [ -d tests/corpus ]; then
  for e in tests/corpus/*/; do
    e=${e%/}
    [ -f "$e/book.list" ] || continue
    # shellcheck disable=SC2046 # one word per option and per chapter file
    book "$e" "corpus-$(basename "$e")" $(cat "$e/book.args" 2>/dev/null) $(cat "$e/book.list")
    # readers.checks: the checks this book is held to (a known failure left
    # out, its reason in the file's comments and in STATUS.md)
    if [ -f "$e/readers.checks" ]; then
      specs="${specs% corpus-$(basename "$e")} corpus-$(basename "$e"):$(grep -v '^#' "$e/readers.checks" | tr -d ' \n')"
    fi
  done
fi
wait
for n in $names; do
  if [ -f "$OUT/books/$n.failed" ]; then
    echo "FAIL $n: octavo could not build it"; cat "$OUT/books/$n.log"; exit 1
  fi
done
t2=$(now)

python3 "$R/selftest.py" make "$OUT/books" "$OUT/selftest"
rc=0
# shellcheck disable=SC2086
node "$R/run.mjs" --selftest "$OUT/selftest" "$OUT/books" "$OUT" $specs || rc=1
t3=$(now)
echo "readers: selftest (broken copies of the xref book: each check must fail on its own)"
python3 "$R/selftest.py" judge "$OUT/report.json" || rc=1
t4=$(now)
echo "readers: $((t4 - t0)) s: npm $((t1 - t0)) s, octavo $((t2 - t1)) s, run.mjs $((t3 - t2)) s, selftest verdicts $((t4 - t3)) s"
exit $rc
