#!/bin/sh
# t-highlight.sh: code's tokens, one tokenizer for both books (src/highlight.c).
#
# On tests/books/highlight (one listing per language octavo highlights) and
# on the corpus's mdBooks (embedded-book, f3discovery: Rust, C, TOML,
# console, diff, shell, Python):
# - every listing whose info string names a known language has tokens (the
#   model's, --dump-model); in the generated book, of at least three classes
#   each, and the listings' text is the source's, byte for byte;
# - the EPUB: each <pre><code>'s text is the model's, byte for byte, and its
#   <span class="tok-CLASS"> are the model's tokens, exactly;
# - the PDF: each listing's characters (mutool's stext, in the code face at
#   the code size, or the smaller one a wide listing is set at) are the model's, in order, and each is drawn in the colour
#   that styles/print.ini gives its token's class (black where plain);
#   copying gives no continuation mark;
# - styles/book.css: every token class at 4.5:1 or more against the
#   listing's background, light and dark; print.ini's against the band;
# - EPUBCheck silent on the generated book.
# On tests/books/highlight/lines.md (line numbers and marked lines, in the
# forms README.md lists), with print.ini's default and with [code]
# line-numbers = true:
# - the model reads each listing's numbering, first number and marked lines;
# - the EPUB: a <span class="line"> per line (its text the line's), the
#   class "marked" on exactly the marked ones, pre.numbered/unnumbered, the
#   first number as counter-reset; EPUBCheck silent;
# - the PDF: the numbers in the layout (--dump-layout), one per source
#   line, none on a continuation, but never in its text (pdftotext gives
#   each line alone; mutool finds no code character more than the
#   listings'); a marked line's band in print.ini's colour (mutool trace),
#   told apart in gray (pdftoppm -gray: its rule, its band); keywords in
#   the bold face and comments in the oblique, as gray print needs;
# - contrast also on a marked line's background, and of the numbers.
set -u
fail() { echo "FAIL: $*"; exit 1; }
: "${OCTAVO:?}" "${TOP:?}" "${TMPROOT:?}"
command -v mutool >/dev/null || { echo "mutool (mupdf-tools) missing"; exit 77; }
T=$TMPROOT

build() { # name dir args...
  name=$1; dir=$2; shift 2
  (cd "$dir" && "$OCTAVO" "$@" -o "$T/$name.epub" -o "$T/$name.pdf") 2>"$T/$name.err" ||
    { cat "$T/$name.err"; fail "$name: octavo exited $?"; }
  (cd "$dir" && "$OCTAVO" --dump-model "$@") >"$T/$name.model" 2>/dev/null ||
    fail "$name: --dump-model failed"
  mutool draw -F stext -o "$T/$name.stext" "$T/$name.pdf" 2>/dev/null || fail "$name: mutool"
  pdftotext -layout "$T/$name.pdf" "$T/$name.txt" || fail "$name: pdftotext"
  mkdir -p "$T/$name.x" && (cd "$T/$name.x" && unzip -qo "$T/$name.epub") || fail "$name: unzip"
}

# Pathological listings (deep nesting, long chains, deep Markdown quotes and
# lists) in linear time, and plain past the limits (highlight.h): before
# the limits, 100,000 nested Rust parentheses took 76 s, a chain of 100,000
# Python additions 3 minutes, 500 nested Markdown quotes crashed tree-sitter.
# Timed as a ratio in one run, never against a clock (a sanitizer build or a
# busy machine breaks a clock bound): the same listings twice as deep or as
# long take at most 3 times as long (linear: 2; before the limits the time
# grew with the square and worse).
deep() {
  python3 - "$1" <<'PY'
import sys
k = int(sys.argv[1])
print("```rust\nfn f() { " + "(" * 100000 * k + ")" * 100000 * k + " }\n```\n")
print("```python\nx = " + '"a" + ' * 100000 * k + "1\n```\n")
print("```c\nint x = " + "{" * 50000 * k + "}" * 50000 * k + ";\n```\n")
print("```markdown\n" + "> " * 5000 * k + "*a*\n```\n")
print("```markdown\n" + "".join("  " * i + "- a\n" for i in range(600 * k)) + "```\n")
print("```rust\nfn ok() {}\n```")
PY
}
deep 1 >"$T/deep.md"
deep 2 >"$T/deep2.md"
ratio=$(python3 - "$OCTAVO" "$T/deep.md" "$T/deep2.md" "$T/deep.model" <<'PY'
import subprocess, sys, time
octavo, one, two, model = sys.argv[1:]
def run(src, out=subprocess.DEVNULL):
    t = time.perf_counter()
    r = subprocess.run([octavo, '-q', '--dump-model', src], stdout=out, timeout=600)
    if r.returncode:
        sys.exit('exit %d' % r.returncode)
    return time.perf_counter() - t
with open(model, 'w') as f:
    run(one, f)
t1 = min(run(one) for _ in range(3))
t2 = min(run(two) for _ in range(3))
print('%.2f (%.2f s, %.2f s)' % (t2 / t1, t1, t2))
PY
) || fail "deep listings: $ratio"
echo "deep listings twice as deep: ${ratio}"
python3 -c "import sys; sys.exit(float(sys.argv[1]) > 3)" "${ratio%% *}" || fail "deep listings: twice as deep took ${ratio}"
[ "$(grep -c 'tokens=keyword' "$T/deep.model")" = 1 ] || fail "deep listings: not plain, or the last one not highlighted"

H="$TOP/tests/books/highlight"
build langs "$H" langs.md
java -jar /usr/share/java/epubcheck.jar -q "$T/langs.epub" >"$T/epubcheck.log" 2>&1 ||
  { cat "$T/epubcheck.log"; fail "EPUBCheck on the generated book"; }
[ -s "$T/epubcheck.log" ] && { cat "$T/epubcheck.log"; fail "EPUBCheck says something"; }
# Line numbers and marked lines (lines.md): with the style's default (no
# numbers unless asked), and with print.ini's [code] line-numbers = true.
build lines "$H" lines.md
sed 's/^line-numbers = false/line-numbers = true/' "$TOP/styles/print.ini" >"$T/numbered.ini"
grep -q '^line-numbers = true' "$T/numbered.ini" || fail "styles/print.ini: no [code] line-numbers key"
(cd "$H" && "$OCTAVO" -q --style "$T/numbered.ini" lines.md -o "$T/linesall.pdf") || fail "linesall: octavo"
(cd "$H" && "$OCTAVO" --dump-layout lines.md) >"$T/lines.trace" 2>/dev/null || fail "lines: --dump-layout"
(cd "$H" && "$OCTAVO" --dump-layout --style "$T/numbered.ini" lines.md) >"$T/linesall.trace" 2>/dev/null ||
  fail "linesall: --dump-layout"
for b in lines linesall; do
  mutool trace "$T/$b.pdf" >"$T/$b.fills" 2>/dev/null || fail "$b: mutool trace"
done
pdftoppm -r 144 -gray "$T/lines.pdf" "$T/lines-gray" || fail "pdftoppm -gray"
java -jar /usr/share/java/epubcheck.jar -q "$T/lines.epub" >"$T/epubcheck2.log" 2>&1 ||
  { cat "$T/epubcheck2.log"; fail "EPUBCheck on the line-numbered book"; }
[ -s "$T/epubcheck2.log" ] && { cat "$T/epubcheck2.log"; fail "EPUBCheck says something (lines)"; }
C="$TOP/tests/corpus"
for b in embedded-book f3discovery; do
  # shellcheck disable=SC2046
  build "$b" "$C/$b" $(cat "$C/$b/book.args" 2>/dev/null) $(cat "$C/$b/book.list")
done

python3 - "$T" "$TOP" <<'PY' || exit 1
import html, json, os, re, sys
import xml.etree.ElementTree as ET
from difflib import SequenceMatcher

T, TOP = sys.argv[1], sys.argv[2]
bad = []
KNOWN = {"rust", "c", "cpp", "python", "javascript", "typescript", "tsx", "go", "java", "bash", "console",
         "toml", "json", "yaml", "html", "xml", "css", "sql", "diff", "markdown"}

# ---- the print theme, and the contrast of both themes ----
def hexrgb(h):
    h = h.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))

def lum(rgb):
    c = [x / 255 for x in rgb]
    c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

def contrast(a, b):
    la, lb = sorted((lum(a), lum(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)

ini = open(os.path.join(TOP, "styles/print.ini")).read()
sect = re.search(r"^\[code-tokens\]\n(.*?)(?=^\[)", ini, re.S | re.M).group(1)
theme = {}
for k, v in re.findall(r"^([a-z]+) = (#[0-9a-f]{6})", sect, re.M):
    theme[k] = hexrgb(v)
band = re.search(r"^\[code\]\n(?:.*\n)*?background = ([0-9.]+)", ini, re.M)
g = round(float(band.group(1)) * 255)
for k, rgb in theme.items():
    if contrast(rgb, (g, g, g)) < 4.5:
        bad.append(f"print.ini [code-tokens] {k}: {contrast(rgb, (g, g, g)):.2f}:1 on the band")

css = open(os.path.join(TOP, "styles/book.css")).read()
dark_at = css.index("prefers-color-scheme: dark")
def rules(text):
    toks = {m.group(1): hexrgb(m.group(2))
            for m in re.finditer(r"\.tok-([a-z]+) \{ color: (#[0-9a-f]{6});", text)}
    pre = re.search(r"pre \{[^}]*background-color: (#[0-9a-f]{6});\s*color: (#[0-9a-f]{6});", text)
    num = re.search(r"\.line::before \{[^}]*?[^-]color: (#[0-9a-f]{6});", text)
    mark = re.search(r"\.line\.marked \{[^}]*background-color: (#[0-9a-f]{6});", text)
    if not num or not mark:
        bad.append("book.css: no colour for the line numbers or the marked lines' background")
        return toks, hexrgb(pre.group(1)), hexrgb(pre.group(2)), (0, 0, 0), hexrgb(pre.group(1))
    return (toks, hexrgb(pre.group(1)), hexrgb(pre.group(2)), hexrgb(num.group(1)),
            hexrgb(mark.group(1)))
modes = {"light": rules(css[:dark_at]), "dark": rules(css[dark_at:])}
for mode, (toks, bg, fg, num, mark) in modes.items():
    # every class, plain code and the line numbers on the listing's
    # background and on a marked line's
    for where, b in (("", bg), (" on a marked line", mark)):
        if contrast(fg, b) < 4.5:
            bad.append(f"book.css {mode}: plain code{where} {contrast(fg, b):.2f}:1")
        if contrast(num, b) < 4.5:
            bad.append(f"book.css {mode}: line numbers{where} {contrast(num, b):.2f}:1")
        for k in theme:
            if k not in toks:
                bad.append(f"book.css {mode}: no colour for tok-{k}")
            elif contrast(toks[k], b) < 4.5:
                bad.append(f"book.css {mode}: tok-{k}{where} {contrast(toks[k], b):.2f}:1")
    if contrast(mark, bg) < 1.08:
        bad.append(f"book.css {mode}: a marked line's background is not told from the listing's")
def ini_rgb(key):
    m = re.search(r"^\[code\]\n(?:.*\n)*?" + key + r" = (#[0-9a-f]{6})", ini, re.M)
    if not m:
        bad.append(f"print.ini [code]: no {key}")
        return (0, 0, 0)
    return hexrgb(m.group(1))
pmark, pnum = ini_rgb("mark-background"), ini_rgb("line-number-color")
for k, rgb in list(theme.items()) + [("plain", (0, 0, 0))]:
    if contrast(rgb, pmark) < 4.5:
        bad.append(f"print.ini [code-tokens] {k}: {contrast(rgb, pmark):.2f}:1 on a marked line")
for where, b in (("the band", (g, g, g)), ("a marked line", pmark)):
    if contrast(pnum, b) < 4.5:
        bad.append(f"print.ini [code] line-number-color: {contrast(pnum, b):.2f}:1 on {where}")
print(f"contrast: {len(theme)} classes, light min "
      f"{min(contrast(c, modes['light'][1]) for c in modes['light'][0].values()):.2f}:1, dark min "
      f"{min(contrast(c, modes['dark'][1]) for c in modes['dark'][0].values()):.2f}:1; "
      f"on a marked line, light min "
      f"{min(contrast(c, modes['light'][4]) for c in modes['light'][0].values()):.2f}:1, dark min "
      f"{min(contrast(c, modes['dark'][4]) for c in modes['dark'][0].values()):.2f}:1, "
      f"print min {min(contrast(c, pmark) for c in theme.values()):.2f}:1")

# ---- the model's listings ----
CODE = re.compile(r'^\s*code_block (?:info=("(?:[^"\\]|\\.)*") )?("(?:[^"\\]|\\.)*")'
                  r'(?: lang=(\S+) tokens=(\S*))?')
def model(name):
    blocks, in_note = [], False
    for line in open(os.path.join(T, name + ".model"), encoding="utf-8"):
        if line.startswith("chapter "):
            in_note = False
        elif line.startswith("footnote "):
            in_note = True
        m = CODE.match(line)
        if not m:
            continue
        info = json.loads(m.group(1), strict=False) if m.group(1) else None
        text = json.loads(m.group(2), strict=False)
        toks = []
        for t in (m.group(4) or "").split(","):
            if t:
                c, r = t.split("@")
                s, n = map(int, r.split("+"))
                toks.append((c, s, n))
        rest = line[m.end():]
        num = re.search(r" linenos=(on|off)", rest)
        start = re.search(r" from=(-?[0-9]+)", rest)
        marked = set()
        mk = re.search(r" marked=([0-9,-]+)", rest)
        for r in (mk.group(1).split(",") if mk else []):
            a, _, z = r.partition("-")
            marked.update(range(int(a), int(z or a) + 1))
        blocks.append(dict(info=info, text=text, lang=m.group(3), toks=toks, note=in_note,
                           linenos=num.group(1) if num else None,
                           first=int(start.group(1)) if start else 1, marked=marked))
    return blocks

# ---- the EPUB's listings: text and spans ----
XH = "{http://www.w3.org/1999/xhtml}"
def epub_listings(name):
    root = os.path.join(T, name + ".x")
    opf = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".opf")][0]
    o = ET.parse(opf).getroot()
    ns = {"o": "http://www.idpf.org/2007/opf"}
    items = {i.get("id"): i.get("href") for i in o.iterfind(".//o:manifest/o:item", ns)}
    out = []
    for ref in o.iterfind(".//o:spine/o:itemref", ns):
        doc = ET.parse(os.path.join(os.path.dirname(opf), items[ref.get("idref")])).getroot()
        for pre in doc.iter(XH + "pre"):
            code = pre.find(XH + "code")
            if code is None:
                continue
            parts, spans = [], []
            def walk(e):
                if e.text:
                    parts.append(e.text.encode())
                for ch in e:
                    cls = ch.get("class", "")
                    if ch.tag == XH + "span" and cls.startswith("tok-"):
                        start = sum(map(len, parts))
                        txt = "".join(ch.itertext()).encode()
                        spans.append((cls[4:], start, len(txt)))
                        parts.append(txt)
                    else:
                        walk(ch)  # a page break: empty
                    if ch.tail:
                        parts.append(ch.tail.encode())
            walk(code)
            merged = []  # a token cut by a page break is two spans
            for sp in spans:
                if merged and merged[-1][0] == sp[0] and merged[-1][1] + merged[-1][2] == sp[1]:
                    merged[-1] = (sp[0], merged[-1][1], merged[-1][2] + sp[2])
                else:
                    merged.append(sp)
            out.append((b"".join(parts), merged))
    return out

# ---- the PDF's listings: characters of the code face at the code size ----
# (8.3 pt, or smaller when a wide listing is set to fit the measure, in
# twentieths of a point, layout/blocks.c's code_fit_size, down to 6.5 pt:
# never the sizes of inline code, 0.86 of the table's 9 pt or a note's
# 8.5 pt, nor a note's listing's 7.82 pt)
def listing_size(s):
    s = float(s)
    return abs(s - 8.3) < 0.05 or (6.45 <= s < 8.3 and abs(s * 20 - round(s * 20)) < 0.04)

CH = re.compile(r'<font name="([^"]*)" size="([0-9.]+)"|<char [^>]*color="(#[0-9a-f]{6})" c="([^"]*)"')
def pdf_chars(name):
    chars, mono = [], False
    for m in CH.finditer(open(os.path.join(T, name + ".stext"), encoding="utf-8").read()):
        if m.group(1):
            mono = "DejaVuSansMono" in m.group(1) and listing_size(m.group(2))
        elif mono:
            c = html.unescape(m.group(4))
            if c.strip():
                chars.append((c, hexrgb(m.group(3))))
    return chars

def near(a, b):
    return all(abs(x - y) <= 3 for x, y in zip(a, b))

def check(name, generated):
    blocks = model(name)
    known = [b for b in blocks if b["lang"]]
    named = [b for b in blocks if b["info"] and b["info"].split(",")[0].strip("{.").lower()
             not in ("text", "txt", "", "plain", "ignore", "no_run", "console-output")]
    classes = [len({c for c, _, _ in b["toks"]}) for b in known]
    few = sum(1 for n in classes if n < 3)
    print(f"{name}: {len(blocks)} listings, {len(known)} in a known language "
          f"({', '.join(sorted({b['lang'] for b in known}))}); "
          f"{few} with fewer than three classes, {sum(1 for n in classes if n == 0)} with none")
    for b in known:
        if not b["toks"]:
            bad.append(f"{name}: a {b['lang']} listing without tokens: {b['text'][:60]!r}")
        if generated and len({c for c, _, _ in b["toks"]}) < 3:
            bad.append(f"{name}: a {b['lang']} listing with fewer than three classes")
    # the EPUB: text and spans, listing by listing (matched by their text:
    # notes' listings come at the chapter's end there)
    want = {}
    for b in blocks:
        want.setdefault(b["text"].encode(), []).append([(c, s, n) for c, s, n in b["toks"]])
    for text, spans in epub_listings(name):
        if text not in want:
            bad.append(f"{name}: an EPUB listing whose text is no model listing's: {text[:60]!r}")
        elif spans not in want[text]:
            bad.append(f"{name}: an EPUB listing whose spans are not its tokens: {text[:60]!r}")
    # the PDF: the chapters' listings, character by character, in order
    exp = []
    for b in blocks:
        if b["note"]:
            continue
        raw = b["text"].encode()
        cls = bytearray(len(raw))
        names = [""] + sorted(theme)
        for c, s, n in b["toks"]:
            cls[s:s + n] = bytes([names.index(c) if c in names else 0]) * n
        i = 0
        for ch in b["text"]:
            k = len(ch.encode())
            if ch.strip():
                tok = names[cls[i]]
                exp.append((ch, theme.get(tok, (0, 0, 0))))
            i += k
    got = pdf_chars(name)
    sm = SequenceMatcher(None, [c for c, _ in exp], [c for c, _ in got], autojunk=False)
    same = wrong = 0
    for a, b2, n in sm.get_matching_blocks():
        for k in range(n):
            same += 1
            if not near(exp[a + k][1], got[b2 + k][1]):
                wrong += 1
                if wrong <= 5:
                    bad.append(f"{name}: PDF character {exp[a + k][0]!r} drawn in "
                               f"{got[b2 + k][1]}, its token's colour is {exp[a + k][1]}")
    print(f"{name}: PDF: {same} of {len(exp)} listing characters found in order, "
          f"{wrong} in another colour than their token's")
    if wrong:
        bad.append(f"{name}: {wrong} PDF characters in the wrong colour")
    if same < len(exp) * (1 if generated else 0.995):
        bad.append(f"{name}: only {same} of {len(exp)} listing characters in the PDF")
    return blocks

blocks = check("langs", True)
# the generated book: one listing per language, its text the source's
langs = {b["lang"] for b in blocks if b["lang"]}
missing = KNOWN - langs
if missing:
    bad.append(f"langs: no tokens for {sorted(missing)}")
src = open(os.path.join(TOP, "tests/books/highlight/langs.md"), encoding="utf-8").read()
fenced = re.findall(r"^```[^\n]*\n(.*?)^```", src, re.S | re.M)
if [b["text"] for b in blocks] != fenced:
    bad.append("langs: the model's listings are not the source's, byte for byte")
plain = [b for b in blocks if b["info"] in (None, "brainfuck")]
if len(plain) != 2 or any(b["toks"] or b["lang"] for b in plain):
    bad.append("langs: a listing without a known language is not plain")
txt = open(os.path.join(T, "langs.txt"), encoding="utf-8").read()
if "\u21aa" in txt:
    bad.append("langs: the PDF's text has a continuation mark (copying gives it)")
if "highlighted_count, total_listing_count" not in txt.replace("\n", " ") and \
   "highlighted_count," not in txt:
    bad.append("langs: the wrapped line is not in the PDF's text")
for b in ("embedded-book", "f3discovery"):
    check(b, False)

# ---- line numbers and marked lines (lines.md) ----
# What the source asks, as the model must read it: numbered (None: the
# style decides), the first number, the marked lines.
WANT = [("on", 10, {2, 4, 5}), ("on", 1, {2}), (None, 1, {3}), ("off", 1, set()),
        (None, 1, set()), (None, 1, {1, 3}), ("on", 1, {1, 3}), ("on", 0, set())]
blocks = check("lines", True)
got = [(b["linenos"], b["first"], b["marked"]) for b in blocks]
if got != WANT:
    bad.append(f"lines: the model's line options {got}, expected {WANT}")
src = open(os.path.join(TOP, "tests/books/highlight/lines.md"), encoding="utf-8").read()
if [b["text"] for b in blocks] != re.findall(r"^```[^\n]*\n(.*?)^```", src, re.S | re.M):
    bad.append("lines: the model's listings are not the source's, byte for byte")

def numbered(b, default):
    return b["linenos"] == "on" or (b["linenos"] is None and default)

# the EPUB: a pre's class, a line span per line (its newline in it), the
# marked lines' class, the first number as the counter-reset; numbers are
# CSS's generated content, so none is in the text
root = os.path.join(T, "lines.x")
for f in sorted(os.listdir(os.path.join(root, "EPUB"))):
    if f.startswith("ch") and f.endswith(".xhtml"):
        doc = ET.parse(os.path.join(root, "EPUB", f)).getroot()
pres = list(doc.iter(XH + "pre"))
if len(pres) != len(blocks):
    bad.append(f"lines: {len(pres)} listings in the EPUB, {len(blocks)} in the model")
for b, pre in zip(blocks, pres):
    code = pre.find(XH + "code")
    want_cls = {"on": "numbered", "off": "unnumbered", None: None}[b["linenos"]]
    if pre.get("class") != want_cls:
        bad.append(f"lines: <pre class={pre.get('class')!r}>, expected {want_cls!r}: {b['text'][:30]!r}")
    lines = [sp for sp in code if sp.tag == XH + "span" and sp.get("class", "").startswith("line")]
    texts = ["".join(sp.itertext()) for sp in lines]
    if texts != b["text"].splitlines(keepends=True):
        bad.append(f"lines: the EPUB's line spans are not the listing's lines: {b['text'][:30]!r}")
    marked = {i + 1 for i, sp in enumerate(lines) if sp.get("class") == "line marked"}
    if marked != b["marked"]:
        bad.append(f"lines: EPUB lines {sorted(marked)} marked, expected {sorted(b['marked'])}")
    reset = re.search(r"counter-reset: line (-?[0-9]+)", code.get("style") or "")
    if (int(reset.group(1)) + 1 if reset else 1) != b["first"]:
        bad.append(f"lines: the EPUB numbers {b['text'][:20]!r} from {code.get('style')!r}, "
                   f"expected {b['first']}")

# the PDF: the layout's lines (--dump-layout, outlines included) carry the
# numbers, one per source line, none on a continuation; a marked line's
# band is in print.ini's colour (mutool trace), its rule shows in gray
def trace_lines(name):
    return [m.group(1) for m in re.finditer(r"^  y=[0-9.]+ x=[0-9.]+ \|(.*)\|$",
            open(os.path.join(T, name + ".trace"), encoding="utf-8").read(), re.M)]
for name, default in (("lines", False), ("linesall", True)):
    tr, at = trace_lines(name), 0
    for b in blocks:
        for i, line in enumerate(b["text"].splitlines()):
            want = (str(b["first"] + i) if numbered(b, default) else "") + line
            j = at
            while j < len(tr) and not (tr[j] == want or (want.startswith(tr[j]) and
                                       j + 1 < len(tr) and tr[j + 1].startswith("\u21aa"))):
                j += 1
            if j == len(tr):
                bad.append(f"{name}: no layout line {want!r} after line {at} of the trace")
                break
            at = j + 1
    fills = open(os.path.join(T, name + ".fills"), encoding="utf-8").read()
    cols = [tuple(float(x) for x in c.split()) for c in re.findall(
        r'<fill_path [^>]*colorspace="DeviceRGB" color="([0-9. ]+)"', fills)]
    nmark = sum(1 for c in cols if near(tuple(round(x * 255) for x in c), pmark))
    want_marks = sum(len(b["marked"]) for b in blocks)
    if nmark != want_marks:
        bad.append(f"{name}: {nmark} bands in the marked lines' colour, expected {want_marks}")
    print(f"{name}: {sum(1 for b in blocks if numbered(b, default))} listings numbered, "
          f"{nmark} marked bands")
# copying from the PDF gives the code: no number, no mark
txt = open(os.path.join(T, "lines.txt"), encoding="utf-8").read()
if "\u21aa" in txt:
    bad.append("lines: the PDF's text has a continuation mark")
squash = lambda t: " ".join(t.split())  # pdftotext -layout pads with spaces
copied = {squash(t) for t in txt.splitlines()}
for b in blocks:
    for i, line in enumerate(b["text"].splitlines()):
        if not line.strip() or len(line) > 60:
            continue
        if squash(line) not in copied:
            bad.append(f"lines: copying the PDF does not give the line {line!r} alone")
# grayscale: a marked line's rule stands out, its band differs from the
# listing's; keywords bold and comments oblique, by their faces
import glob
pages = {}
for f in glob.glob(os.path.join(T, "lines-gray-*.pgm")):
    data = open(f, "rb").read()
    hdr = data.split(maxsplit=4)
    w, h = int(hdr[1]), int(hdr[2])
    pages[int(re.search(r"-([0-9]+)\.pgm$", f).group(1))] = (w, data[len(data) - w * h:])
page, checked = 0, 0
for line in open(os.path.join(T, "lines.trace"), encoding="utf-8"):
    m = re.match(r"page ([0-9]+)", line)
    if m:
        page = int(m.group(1))
    m = re.match(r"  rule x=([0-9.]+) y=([0-9.]+)\.\.([0-9.]+)", line)
    if not m or page not in pages:
        continue
    x, y0, y1 = map(float, m.groups())
    w, px = pages[page]
    at = lambda xp, yp: px[int(yp * 2) * w + int(xp * 2)]
    rule, band, plain = at(x + 0.7, (y0 + y1) / 2), at(x + 2.5, (y0 + y1) / 2), at(x + 2.5, y1 + 2)
    checked += 1
    if rule > 150 or band > plain - 8:
        bad.append(f"lines: in gray, page {page} y={y0}: rule {rule}, marked band {band}, "
                   f"band {plain}: the marked line is not told apart")
if checked != sum(1 for b in blocks for k in b["marked"] if k - 1 not in b["marked"]):
    bad.append(f"lines: {checked} marked runs found in gray")
faces = re.findall(r'<font name="([^"]*)" size="([0-9.]+)"|<char [^>]*c="([^"]*)"',
                   open(os.path.join(T, "lines.stext"), encoding="utf-8").read())
font, seq = "", []
for fn, size, ch in faces:
    if fn:
        font = fn if listing_size(size) else ""
    elif font.startswith("DejaVuSansMono") and html.unescape(ch).strip():
        seq.append(font)
exp_cls = []
for b in blocks:
    raw = b["text"].encode()
    cls = [""] * len(raw)
    for c, s0, n in b["toks"]:
        cls[s0:s0 + n] = [c] * n
    i = 0
    for ch in b["text"]:
        if ch.strip():
            exp_cls.append(cls[i])
        i += len(ch.encode())
if len(seq) != len(exp_cls):
    bad.append(f"lines: {len(seq)} code characters in the PDF, {len(exp_cls)} in the listings "
               "(a number or a mark copied as text?)")
else:
    for want_cls, face in (("keyword", "-Bold"), ("comment", "-Oblique")):
        miss = sum(1 for c, f in zip(exp_cls, seq) if c == want_cls and not f.endswith(face))
        if miss or not any(c == want_cls for c in exp_cls):
            bad.append(f"lines: {miss} {want_cls} characters not in the {face[1:]} face")

for m in bad:
    print("FAIL:", m)
sys.exit(1 if bad else 0)
PY
