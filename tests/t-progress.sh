#!/bin/sh
# t-progress.sh: a build on a terminal shows one updating progress line on
# stderr; nothing when stderr is not a terminal, with -q, or under CI.
# script(1) gives the build a pseudo-terminal; OCTAVO_PROGRESS_AFTER_MS=0
# shows the line on a short build.
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v script >/dev/null || fail "script(1) (bsdutils) is missing"
cd "$TMPROOT" || exit 1
SEED="$TOP/content/lsfmm-bpf-2023.md"
tty_run() { # file, command: run on a pseudo-terminal, output in file
  out=$1; shift
  script -qec "$*" /dev/null > "$out" 2>&1 </dev/null
}
tty_run on.txt "env -u CI OCTAVO_PROGRESS_AFTER_MS=0 '$OCTAVO' '$SEED' -o p1.pdf -o p1.epub"
[ -s p1.pdf ] && [ -s p1.epub ] || fail "the build on a terminal wrote no books"
grep -q 'octavo: laying out pages' on.txt || { cat -v on.txt | head -5; fail "no progress line on a terminal"; }
grep -q 'octavo: writing' on.txt || fail "no 'writing' step on a terminal"
# the line is erased at the end: after the last progress text comes "\r\033[K"
python3 -c "import sys; d=open('on.txt','rb').read(); i=d.rfind(b'octavo: '); sys.exit(0 if d.find(b'\r\x1b[K', i) > i else 1)" ||
  fail "the progress line is not erased at the end"
tty_run ci.txt "env CI=true OCTAVO_PROGRESS_AFTER_MS=0 '$OCTAVO' '$SEED' -o p2.pdf"
! grep -q 'octavo:' ci.txt || fail "progress shown under CI"
tty_run q.txt "env -u CI OCTAVO_PROGRESS_AFTER_MS=0 '$OCTAVO' -q '$SEED' -o p3.pdf"
! grep -q 'octavo:' q.txt || fail "progress shown with -q"
env -u CI OCTAVO_PROGRESS_AFTER_MS=0 "$OCTAVO" "$SEED" -o p4.pdf 2> pipe.txt
! grep -q 'octavo:' pipe.txt || fail "progress shown when stderr is not a terminal"
tty_run slow.txt "env -u CI OCTAVO_PROGRESS_AFTER_MS=600000 '$OCTAVO' '$SEED' -o p5.pdf"
! grep -q 'octavo:' slow.txt || fail "a build shorter than the delay showed progress"
echo ok
