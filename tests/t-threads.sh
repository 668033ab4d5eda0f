#!/bin/sh
# t-threads.sh: the outputs do not depend on the thread count. Each book is
# built with -j1 (one thread) and with -j2 (the EPUB written on a second
# thread while the PDF is drawn), and with OCTAVO_THREADS=2: the EPUB, the
# PDF and the diagnostics (warnings written while each book is written:
# a missing cover for the EPUB; an undecodable image, refused at parse time
# before any writer starts) must be byte-identical. Bad thread counts are usage errors.
set -u
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPROOT" || exit 1
export SOURCE_DATE_EPOCH=1700000000

# A book that warns: the EPUB's writer of a cover that is not there, the
# parser of a GIF whose frame cannot be decoded (its header gives a size).
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
check warn -M cover=nothere.png warn/w.md
grep -q "cover .* not found" warn-2.err || fail "warn: the EPUB's warning is missing: $(cat warn-2.err)"
grep -q "bad.gif cannot be decoded" warn-2.err || fail "warn: the parser's warning is missing: $(cat warn-2.err)"
# the parser's diagnostics come before the writers', whatever the threads and the outputs' order
"$OCTAVO" -j2 -M cover=nothere.png warn/w.md -o r.pdf -o r.epub 2>r.err || fail "reversed outputs"
[ "$(head -n 1 r.err | grep -c 'cannot be decoded')" = 1 ] || fail "-j2: the parser's warning is not first: $(cat r.err)"
[ "$(wc -l < r.err)" = 2 ] || fail "-j2: not exactly two warnings: $(cat r.err)"

# bad counts
"$OCTAVO" -j -1 warn/w.md -o bad.pdf 2>/dev/null
[ $? = 2 ] || fail "-j -1 is not a usage error"
OCTAVO_THREADS=many "$OCTAVO" warn/w.md -o bad.pdf 2>/dev/null
[ $? = 2 ] || fail "OCTAVO_THREADS=many is not a usage error"
echo ok
