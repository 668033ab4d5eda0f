#!/bin/sh
# t-model.sh: --dump-model of the seed and of the multi-file book against the
# golden dumps in tests/golden/, and a words test: every word of the seed's
# source is in the model, in order.
# To accept a deliberate change of the model: OCTAVO_UPDATE_GOLDEN=1 sh tests/t-model.sh
set -u
fail() { echo "FAIL: $*"; exit 1; }
: "${OCTAVO:?}" "${TOP:?}" "${TMPROOT:?}"
G="$TOP/tests/golden"
compare() { # name, dir, inputs...
  name=$1; dir=$2; shift 2
  (cd "$dir" && "$OCTAVO" --dump-model "$@") >"$TMPROOT/$name.model" 2>"$TMPROOT/$name.err" ||
    { cat "$TMPROOT/$name.err"; fail "$name: --dump-model exited $?"; }
  if [ -n "${OCTAVO_UPDATE_GOLDEN:-}" ]; then
    cp "$TMPROOT/$name.model" "$G/$name.model"; echo "updated $G/$name.model"
  fi
  diff -u "$G/$name.model" "$TMPROOT/$name.model" || fail "$name: the model differs from tests/golden/$name.model"
}

# The seed: title, byline, an opening chapter and five chapters.
compare lsfmm-bpf-2023 "$TOP" content/lsfmm-bpf-2023.md
[ -s "$TMPROOT/lsfmm-bpf-2023.err" ] && { cat "$TMPROOT/lsfmm-bpf-2023.err"; fail "the seed gives diagnostics"; }
m="$TMPROOT/lsfmm-bpf-2023.model"
grep -qx '  title: "The 2023 LSFMM+BPF Summit"' "$m" || fail "seed title"
grep -qx '  author: "Jonathan Corbet"' "$m" || fail "seed author"
grep -qx '  date: "2023-05-11"' "$m" || fail "seed date"
grep '^chapter' "$m" | sed 's/.* title=\("[^"]*"\|(opening)\) .*/\1/' >"$TMPROOT/titles"
cat >"$TMPROOT/want" <<'T'
(opening)
"Plenary sessions"
"Combined storage and filesystem sessions"
"Combined filesystem and BPF sessions"
"Memory-management sessions"
"Filesystem sessions"
T
diff -u "$TMPROOT/want" "$TMPROOT/titles" || fail "seed chapters"

# Every word of the seed, in order (the byline's "By" is syntax: it goes).
python3 - "$TOP/content/lsfmm-bpf-2023.md" "$m" <<'PY' || fail "words of the seed missing from the model"
import re, sys
src = open(sys.argv[1], encoding="utf-8").read()
src = re.sub(r"^By (?=[^\n]*, \d{4}-\d\d-\d\d$)", "", src, flags=re.M)
src = re.sub(r"\]\([^)]*\)", "]", src)            # link destinations
src = re.sub(r"</?[A-Za-z][^>]*>", " ", src)        # raw HTML tags
words = re.findall(r"\w+", src)
model = []
for line in open(sys.argv[2], encoding="utf-8"):
    for s in re.findall(r'"((?:[^"\\]|\\.)*)"', line):
        if re.match(r"^\s*(chapter|resource|footnote) ", line) and not line.lstrip().startswith("chapter"):
            continue
        model.extend(re.findall(r"\w+", s.replace("\\n", " ")))
i = 0
for w in words:
    while i < len(model) and model[i] != w:
        i += 1
    if i == len(model):
        print("missing (in order):", w); sys.exit(1)
    i += 1
print(len(words), "words in order")
PY

# A multi-file book with cross-file links (.md and .html style).
MULTI="$TOP/tests/books/multi"
compare multi "$MULTI" $(cd "$MULTI" && ls *.md | sort)
mm="$TMPROOT/multi.model"
grep -q 'link href="02-features.md#tables" -> ch[0-9]*#tables' "$mm" || fail "multi: .md#fragment link"
grep -q 'link href="03-long.html" -> ch[0-9]*' "$mm" || fail "multi: .html link"
grep -q 'warning: image images/missing.png not found' "$TMPROOT/multi.err" || fail "multi: missing image warned"

# A book of our own: two files that link to each other.
X="$TOP/tests/books/xref"
compare xref "$X" one.md two.md
xm="$TMPROOT/xref.model"
grep -q 'link href="two.md" -> ch04 ' "$xm" || fail "xref: link to two.md"
grep -q 'link href="two.html#second-section" -> ch05#second-section' "$xm" || fail "xref: two.html#fragment"
grep -q 'link href="one.md#intro" -> ch02#intro' "$xm" || fail "xref: back to one.md#intro"
grep -q 'link href="./one.html" -> ch01 ' "$xm" || fail "xref: ./one.html"
grep -q 'one.md:.*warning: link to .#no-such-heading. matches no heading' "$TMPROOT/xref.err" || fail "xref: unresolved warned"
echo ok
