#!/bin/sh
# t-limits.sh: failure while writing (issue 7). Under a file-size limit
# smaller than the seed's EPUB and PDF (ulimit -f, with SIGXFSZ ignored so
# that write() fails with EFBIG instead of the signal killing octavo),
# writing each output must fail with exit status 1 and an "error:" message
# that names the file, leave no partial file and no temporary file
# (.NAME.tmp-*) in the target directory, and leave an older output of the
# same name byte-identical. The same for standard output (-o - into
# /dev/full and under the limit): exit status 1, nothing left in $TMPDIR.
# And -o - writes the same bytes as a file (SOURCE_DATE_EPOCH set).
set -u
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPROOT" || exit 1
mkdir -p limits && cd limits || exit 1
export SOURCE_DATE_EPOCH=1683763200
SEED="$TOP/content/lsfmm-bpf-2023.md"
# The limit in blocks: 512 bytes in dash's ulimit, 1024 in bash's; both
# outputs must be larger than the larger reading.
LIMIT=40
# Known broken (reported to the lead, not this test's files): cairo 1.16
# drops a write error that happens inside cairo_surface_finish() (fonts,
# outline, xref: most of a PDF), so pdf.c sees CAIRO_STATUS_SUCCESS, exits
# 0 and renames a truncated PDF into place. The fix is in pdf.c: write
# through cairo_pdf_surface_create_for_stream() with a write function that
# keeps the first errno, and check fclose(). Until then the PDF cases under
# the limit are expected failures (XFAIL); set PDF_XFAIL= when it is fixed.
PDF_XFAIL=${PDF_XFAIL-}

"$OCTAVO" -q "$SEED" -o full.epub -o full.pdf || fail "the seed does not build"
for f in full.epub full.pdf; do
  size=$(wc -c < "$f")
  [ "$size" -gt $((LIMIT * 1024)) ] || fail "$f is only $size bytes: the limit of $LIMIT blocks does not cut it"
done
echo "seed: EPUB $(wc -c < full.epub) bytes, PDF $(wc -c < full.pdf) bytes; limit $LIMIT blocks"

xfails=0
# True when this failure is the known PDF one, printed as XFAIL.
xfail() { # ext, what
  [ "$1" = pdf ] && [ $rc -eq 0 ] && [ -n "$PDF_XFAIL" ] || return 1
  xfails=$((xfails + 1))
  echo "XFAIL: pdf $2: exit status 0, a truncated PDF written (cairo 1.16 drops write errors in cairo_surface_finish)"
  rm -f out/book.pdf
}

# The output under the file-size limit: octavo's exit status in $rc, its
# messages in limited.err.
limited() { # octavo arguments...
  (
    trap '' XFSZ
    ulimit -f $LIMIT || exit 125
    exec "$OCTAVO" -q "$@"
  ) 2> limited.err
  rc=$?
  [ $rc -ne 125 ] || fail "ulimit -f $LIMIT is refused"
}

# No file left but the ones named: a partial output or a temporary file
# (ours .NAME.tmp-XXXXXX, or libzip's NAME.XXXXXX beside it) is a failure.
only() { # directory, expected names...
  dir=$1; shift
  got=$(cd "$dir" && ls -A | sort | tr '\n' ' ')
  want=$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ')
  [ "$got" = "$want" ] || fail "$dir holds [$got], expected [$want]"
}

for ext in epub pdf; do
  # 1. Nothing there before: nothing there after.
  rm -rf out && mkdir out
  limited "$SEED" -o out/book.$ext
  if ! xfail $ext "into a new file"; then
    [ $rc -eq 1 ] || { cat limited.err; fail "$ext under ulimit -f: exit status $rc, not 1"; }
    grep -Eq '^(octavo|[^ :]+(:[0-9]+){0,2}): error: .*out/book\.'$ext limited.err ||
      { cat limited.err; fail "$ext under ulimit -f: no error message naming out/book.$ext"; }
    echo "$ext: $(grep 'error:' limited.err | head -n 1)"
  fi
  only out

  # 2. An older output stays byte-identical: an older build of another
  # book, and the tiny file a previous run could have left.
  printf '# Old\n\nThe older book.\n' > old.md
  "$OCTAVO" -q old.md -o out/book.$ext || fail "the older $ext does not build"
  cp out/book.$ext old.$ext
  limited "$SEED" -o out/book.$ext
  if ! xfail $ext "over an older file"; then
    [ $rc -eq 1 ] || fail "$ext over an older file under ulimit -f: exit status $rc, not 1"
    cmp -s out/book.$ext old.$ext || fail "$ext: the older out/book.$ext was changed by a failed write"
    only out book.$ext
  fi

  # 3. Standard output: into /dev/full, and under the limit.
  rm -rf tmp && mkdir tmp
  TMPDIR=$PWD/tmp "$OCTAVO" -q "$SEED" -t $ext -o - > /dev/full 2> full.err
  rc=$?
  [ $rc -eq 1 ] || { cat full.err; fail "$ext -o - > /dev/full: exit status $rc, not 1"; }
  grep -q 'error: .*standard output' full.err || { cat full.err; fail "$ext -o - > /dev/full: no message"; }
  only tmp
  TMPDIR=$PWD/tmp; export TMPDIR
  limited "$SEED" -t $ext -o - > out/stdout.$ext
  unset TMPDIR
  xfail $ext "to standard output" || [ $rc -eq 1 ] || fail "$ext -o - under ulimit -f: exit status $rc, not 1"
  only tmp

  # 4. -o - writes the bytes of the file.
  "$OCTAVO" -q "$SEED" -t $ext -o - > stdout.$ext || fail "$ext -o - fails"
  cmp -s stdout.$ext full.$ext || fail "$ext: -o - differs from the file"
done

# Both outputs in one run: the first that fails stops the run, and neither
# leaves anything.
rm -rf out && mkdir out
limited "$SEED" -o out/b.epub -o out/b.pdf
[ $rc -eq 1 ] || fail "two outputs under ulimit -f: exit status $rc, not 1"
only out
[ -n "$PDF_XFAIL" ] && [ $xfails -eq 0 ] && echo "XPASS: the PDF write errors are reported now: clear PDF_XFAIL in t-limits.sh"
echo "t-limits: ok ($xfails expected failures)"
