#!/bin/sh
# t-layout.sh: the print layout, one behaviour per golden pair, as libraqm's
# tests do: tests/layout/NAME.md is laid out with `octavo --dump-layout`
# (and the options in NAME.args, if any) and the trace (lay_trace: every
# line's position and text, every page break) must equal NAME.trace. The
# fonts are pinned in fonts/, so a difference is a change of behaviour.
#
#   UPDATE=1 sh tests/t-layout.sh     rewrites the .trace files (review the diff)
#   sh tests/t-layout.sh NAME...      only those pairs
set -u
: "${OCTAVO:=build/octavo}" "${TOP:=$(pwd)}"
export SOURCE_DATE_EPOCH=1700000000
D="$TOP/tests/layout"
[ -x "$OCTAVO" ] || { echo "FAIL: no binary $OCTAVO"; exit 1; }
names=${*:-$(cd "$D" && ls *.md | sed 's/\.md$//')}
[ -n "$names" ] || { echo "FAIL: no tests in $D"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-layout.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rc=0
for n in $names; do
  args=""
  [ -f "$D/$n.args" ] && args=$(cat "$D/$n.args")
  # shellcheck disable=SC2086 # the arguments are words
  if ! "$OCTAVO" -q --dump-layout $args "$D/$n.md" >"$tmp/$n.trace"; then
    echo "FAIL $n: octavo exits $?"; rc=1; continue
  fi
  if [ "${UPDATE:-0}" = 1 ]; then
    cp "$tmp/$n.trace" "$D/$n.trace"; echo "wrote $n.trace"
  elif [ ! -f "$D/$n.trace" ]; then
    echo "FAIL $n: no $n.trace (UPDATE=1 writes it)"; rc=1
  elif diff -u "$D/$n.trace" "$tmp/$n.trace" >"$tmp/$n.diff"; then
    echo "ok   $n"
  else
    echo "FAIL $n: the trace differs"; head -n 40 "$tmp/$n.diff"; rc=1
  fi
done
# code-fit's sizes, as the PDF draws them (the trace shows the lines, not
# the type): the drawing set smaller than [code] size (8.3 pt), not below
# min-size (0.8 of it), the far wider listing at 8.3 pt with its wraps
case " $names " in *" code-fit "*)
  if command -v mutool >/dev/null 2>&1 && [ "${UPDATE:-0}" != 1 ]; then
    # shellcheck disable=SC2046 # the arguments are words
    "$OCTAVO" -q $(cat "$D/code-fit.args") "$D/code-fit.md" -o "$tmp/code-fit.pdf" &&
      mutool draw -q -F stext -o "$tmp/code-fit.stext" "$tmp/code-fit.pdf" 3 2>/dev/null
    sizes=$(grep -o '<font name="DejaVuSansMono" size="[0-9.]*"' "$tmp/code-fit.stext" 2>/dev/null |
      sed 's/.*size="//; s/"//' | awk '{ printf "%.2f\n", $1 }' | sort -u | tr '\n' ' ')
    if awk -v s="$sizes" 'BEGIN { n = split(s, a, " "); exit !(n == 2 && a[1] >= 8.3 * 0.8 && a[1] < 8.2 && a[2] == 8.30) }'; then
      echo "ok   code-fit sizes: $sizes(pt)"
    else
      echo "FAIL code-fit: code sizes '$sizes', want one below 8.2 pt and not below 6.64, and 8.30"; rc=1
    fi
  fi ;;
esac
exit $rc
