#!/usr/bin/env python3
"""epub_spec.py: run the GFM spec examples through `octavo -t html -o -`.

Usage: epub_spec.py OCTAVO SPEC.txt [SPEC.txt...] [--min N] [--min-policy N]
                    [--show CLASS] [--report FILE] [--jobs N]

Each example (a block fenced by 32 backticks and "example"; Markdown, a
line ".", the expected HTML; "→" is a tab) is fed to octavo on standard
input; its HTML fragment and the expected HTML are compared after the
spec's normalisation (only alt, href, src and title attributes count; white
space next to block tags is folded; entities decoded).

Every fragment must also be well-formed XML (else it is a failure).
Every example lands in one class:
  pass      identical after normalising
  policy    identical once the expected HTML follows octavo's EPUB rules:
            links only to http/https/mailto or resolved targets (others keep
            their text), images without a local file show their alt text,
            else their title, else their address (remote ones as a link),
            footnotes as EPUB notes
  notes     footnote examples: octavo writes EPUB 3 notes (<aside>), not
            cmark-gfm's <section class="footnotes"> list
  raw-html  the Markdown holds raw HTML, which octavo cleans (expected)
  metadata  the first level-1 heading became the book's title, or a leading
            --- block was read as YAML front matter (markdown.c's rules)
  autolink  GFM's autolink extension is on, and the spec's CommonMark
            examples expect it off (cmark-gfm with extensions fails them too)
  fail      anything else: a bug, or a difference to explain

--min and --min-policy make the exit status 1 when fewer examples pass
(strictly, or strictly + policy) than given: the regression guard of
tests/t-epub-spec.sh.
"""
import concurrent.futures
import html
import html.entities
import re
import subprocess
import sys
import urllib.parse
from html.parser import HTMLParser
from xml.etree import ElementTree as ET

FENCE = "`" * 32
SIGNIFICANT = {"alt", "href", "src", "title"}
BLOCK_TAGS = {
    "article", "header", "aside", "hgroup", "blockquote", "hr", "iframe", "body", "li", "map", "button",
    "object", "canvas", "ol", "caption", "output", "col", "p", "colgroup", "pre", "dd", "progress", "div",
    "section", "dl", "table", "td", "dt", "tbody", "embed", "textarea", "fieldset", "tfoot", "figcaption",
    "th", "figure", "thead", "footer", "tr", "form", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "video",
    "script", "style",
}
WS = re.compile(r"\s+")


def read_examples(path):
    """[(number, section, markdown, html)] from a spec file."""
    out = []
    section = ""
    state = 0
    md, ht = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.rstrip("\n")
            if state == 0:
                if s.startswith(FENCE) and s[32:].strip().split(" ")[0] == "example":
                    state, md, ht = 1, [], []
                elif s.startswith("#"):
                    section = s.lstrip("#").strip()
            elif state == 1:
                if s == ".":
                    state = 2
                else:
                    md.append(line)
            elif state == 2:
                if s == FENCE:
                    out.append((len(out) + 1, section, "".join(md).replace("→", "\t"),
                                "".join(ht).replace("→", "\t")))
                    state = 0
                else:
                    ht.append(line)
    return out


class Normaliser(HTMLParser):
    """The spec's normalize.py, keeping only the significant attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.last = "starttag"
        self.last_tag = ""
        self.in_pre = False
        self.out = ""

    def handle_data(self, data):
        after_tag = self.last in ("endtag", "starttag")
        after_block = after_tag and self.last_tag in BLOCK_TAGS
        if after_tag and self.last_tag == "br":
            data = data.lstrip("\n")
        if not self.in_pre:
            data = WS.sub(" ", data)
        if after_block and not self.in_pre:
            data = data.lstrip() if self.last == "starttag" else data.strip()
        self.out += data.replace('"', "&quot;").replace(">", "&gt;")
        self.last = "data"

    def handle_starttag(self, tag, attrs):
        if tag == "pre":
            self.in_pre = True
        if tag == "span" and self.in_pre:
            return  # a listing's line and token spans (octavo's presentation; its text is kept)
        if tag in BLOCK_TAGS:
            self.out = self.out.rstrip()
        self.out += "<" + tag
        for k, v in sorted(a for a in attrs if a[0] in SIGNIFICANT):
            v = v or ""
            if k in ("href", "src"):
                v = urllib.parse.quote(urllib.parse.unquote(v), safe="/")
            else:
                v = html.escape(v, quote=True)
            self.out += ' %s="%s"' % (k, v)
        self.out += ">"
        self.last_tag = tag
        self.last = "starttag"

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.last = "endtag"

    def handle_endtag(self, tag):
        if tag == "span" and self.in_pre:
            return
        if tag == "pre":
            self.in_pre = False
        elif tag in BLOCK_TAGS:
            self.out = self.out.rstrip()
        self.out += "</" + tag + ">"
        self.last_tag = tag
        self.last = "endtag"

    def handle_comment(self, data):
        self.out += "<!--" + data + "-->"
        self.last = "comment"

    def handle_decl(self, data):
        self.out += "<!" + data + ">"
        self.last = "decl"

    def unknown_decl(self, data):
        self.out += "<!" + data + ">"
        self.last = "decl"

    def handle_pi(self, data):
        self.out += "<?" + data + ">"
        self.last = "pi"

    def _char(self, c, fallback):
        self.out += {"<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;"}.get(c, c) if c else fallback
        self.last = "ref"

    def handle_entityref(self, name):
        cp = html.entities.name2codepoint.get(name)
        self._char(chr(cp) if cp else None, "&" + name + ";")

    def handle_charref(self, name):
        try:
            c = chr(int(name[1:], 16)) if name[0] in "xX" else chr(int(name))
        except (ValueError, OverflowError):
            c = None
        self._char(c, "&#" + name + ";")


def normalise(s):
    p = Normaliser()
    p.feed(s)
    p.close()
    return p.out.strip()


def is_web(url):
    u = (url or "").lower()
    return u.startswith("http://") or u.startswith("https://") or u.startswith("mailto:")


class PolicyRewriter(HTMLParser):
    """The expected HTML rewritten the way octavo's EPUB rules change it."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.out = []
        self.a_stack = []  # True for an <a> that is kept
        self.in_kept_a = 0

    def handle_starttag(self, tag, attrs, empty=False):
        d = dict(attrs)
        if tag == "a":
            keep = is_web(d.get("href")) and not self.in_kept_a
            self.a_stack.append(keep)
            if keep:
                self.in_kept_a += 1
                self.out.append(self.get_starttag_text())
            return
        if tag == "img":
            # an image not in the book shows its alt text, else its title, else its address
            src = d.get("src")
            alt = html.escape(d.get("alt") or d.get("title") or src or "", quote=False)
            if is_web(src) and not self.in_kept_a:
                self.out.append('<a href="%s">%s</a>' % (html.escape(src), alt))
            else:
                self.out.append(alt)
            return
        self.out.append(self.get_starttag_text())

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs, True)

    def handle_endtag(self, tag):
        if tag == "a":
            keep = self.a_stack.pop() if self.a_stack else False
            if keep:
                self.in_kept_a -= 1
                self.out.append("</a>")
            return
        self.out.append("</%s>" % tag)

    def handle_data(self, data):
        self.out.append(data)

    def handle_entityref(self, name):
        self.out.append("&%s;" % name)

    def handle_charref(self, name):
        self.out.append("&#%s;" % name)

    def handle_comment(self, data):
        self.out.append("<!--%s-->" % data)


def policy(expected):
    p = PolicyRewriter()
    p.feed(expected)
    p.close()
    return "".join(p.out)


RAW_HTML = re.compile(r"<(/?[A-Za-z][A-Za-z0-9-]*[\s/>]|!--|\?|![A-Z]|!\[CDATA\[)")


def run(octavo, md):
    r = subprocess.run([octavo, "-q", "-t", "html", "-o", "-", "-"], input=md.encode("utf-8"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def classify(octavo, ex):
    num, section, md, expected = ex
    rc, got, err = run(octavo, md)
    if rc not in (0, 1) or "Sanitizer" in err or "runtime error:" in err:
        return "fail", got, "exit %d: %s" % (rc, err.strip()[:300])
    try:  # the fragment must be well-formed XML, as inside a chapter document
        ET.fromstring('<div xmlns:epub="http://www.idpf.org/2007/ops">' + got + "</div>")
    except ET.ParseError as e:
        return "fail", got, "not well-formed: %s" % e
    g = normalise(got)
    if expected.strip().lower() == "<ignore>" or g == normalise(expected):
        return "pass", got, ""
    if g == normalise(policy(expected)):
        return "policy", got, ""
    if "footnote" in section.lower() or "[^" in md:
        return "notes", got, "footnotes as EPUB notes"
    if RAW_HTML.search(md):
        return "raw-html", got, ""
    pe = normalise(policy(expected))
    if md.startswith("---\n"):
        return "metadata", got, "a leading --- block is read as YAML front matter"
    h1 = re.match(r"(.*?)<h1>.*?</h1>(.*)", pe, re.S)
    if h1 and g == (h1.group(1) + h1.group(2)).strip():
        return "metadata", got, "the one level-1 heading is the book's title (title page)"
    # the book's shape (issue 27): no heading level skipped below a chapter's
    # (a ##### alone under the title is set as a section, ###)
    flat = lambda t: re.sub(r"<(/?)h[1-6]>", r"<\1h>", t)
    if flat(g) == flat(pe) or (h1 and flat(g) == flat((h1.group(1) + h1.group(2)).strip())):
        return "metadata", got, "the book's shape: the title taken, a skipped heading level closed"
    if section == "Autolinks" and normalise(strip_links(got)) == normalise(strip_links(expected)):
        return "autolink", got, "the autolink extension is on (cmark-gfm with extensions differs the same way)"
    return "fail", got, err.strip()[:200]


def strip_links(s):
    return re.sub(r"</?a\b[^>]*>", "", s)


def main(argv):
    args, specs = [], []
    opts = {"--min": None, "--min-policy": None, "--show": None, "--report": None, "--jobs": "8"}
    i = 1
    while i < len(argv):
        if argv[i] in opts:
            opts[argv[i]] = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    octavo, specs = args[0], args[1:]
    total = {"pass": 0, "policy": 0, "notes": 0, "raw-html": 0, "metadata": 0, "autolink": 0, "fail": 0}
    report = []
    for spec in specs:
        exs = read_examples(spec)
        with concurrent.futures.ThreadPoolExecutor(int(opts["--jobs"])) as pool:
            results = list(pool.map(lambda ex: classify(octavo, ex), exs))
        counts = {"pass": 0, "policy": 0, "notes": 0, "raw-html": 0, "metadata": 0, "autolink": 0, "fail": 0}
        for ex, (cls, got, note) in zip(exs, results):
            counts[cls] += 1
            total[cls] += 1
            report.append("%s example %d (%s): %s%s" % (spec.split("/")[-1], ex[0], ex[1], cls,
                                                       " — " + note if note else ""))
            if opts["--show"] in (cls, "all"):
                print("=== %s example %d (%s): %s %s" % (spec, ex[0], ex[1], cls, note))
                print("--- markdown\n" + ex[2] + "--- expected\n" + normalise(ex[3]) +
                      "\n--- policy\n" + normalise(policy(ex[3])) + "\n--- got\n" + normalise(got) + "\n")
        print("%s: %d examples: %d pass, %d pass under the EPUB link/image/note policy, "
              "%d footnotes as EPUB notes, %d raw HTML cleaned, %d title/front matter taken as metadata, "
              "%d extended autolinks, %d other" % (
                  spec.split("/")[-1], len(exs), counts["pass"], counts["policy"], counts["notes"],
                  counts["raw-html"], counts["metadata"], counts["autolink"], counts["fail"]))
    if opts["--report"]:
        with open(opts["--report"], "w", encoding="utf-8") as f:
            f.write("\n".join(report) + "\n")
    rc = 0
    if opts["--min"] and total["pass"] < int(opts["--min"]):
        print("regression: %d strict passes, want at least %s" % (total["pass"], opts["--min"]))
        rc = 1
    if opts["--min-policy"] and total["pass"] + total["policy"] < int(opts["--min-policy"]):
        print("regression: %d passes with policy, want at least %s" % (total["pass"] + total["policy"],
                                                                     opts["--min-policy"]))
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
