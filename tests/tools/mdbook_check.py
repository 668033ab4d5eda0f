#!/usr/bin/env python3
"""mdbook_check.py: an mdBook built by octavo, as mdBook renders it.

  mdbook_check.py SUMMARY.md EPUB PDF [--no-numbers]

Checks, each printed as "PASS|FAIL name: numbers" (details indented):

  summary   every entry of SUMMARY.md (parts, prefix, numbered and suffix
            chapters; drafts left out) in the EPUB's nav, its NCX, the PDF's
            bookmarks and its printed contents, in order, at SUMMARY's depth,
            numbered as mdBook numbers them ("1.", "2.3."; drafts take their
            numbers; parts do not reset them); with --no-numbers, none
  headings  every chapter document of the EPUB: its <title> is its first
            heading's text, and no heading skips a level (h2 -> h4)
  hidden    no line that mdBook hides in Rust code (`# x`, `#`) in the
            EPUB's Rust code, and no more such lines in the PDF's text than
            the EPUB shows in its other code (shell comments and the like)

SUMMARY.md is read with libcmark-gfm (corpus_check.cmark_html), as octavo
reads it. Exits 0 when every check holds.
"""
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_check as cc  # noqa: E402
import pdf_check  # noqa: E402

HIDDEN = re.compile(r"^[ \t]*#( |$)")


class Summary(HTMLParser):
    """(depth, title) of SUMMARY.md's entries as the contents should show
    them, and whether it has parts."""

    def __init__(self, numbers):
        super().__init__(convert_charrefs=True)
        self.numbers = numbers
        self.lists = 0
        self.blocks = 0       # top-level blocks seen (the first heading is the title)
        self.heading = None   # text of an open heading
        self.link = None      # [href, text] of an open link
        self.li_linked = []   # per open list item: has it had its link
        self.count = []
        self.raw = []         # (kind, depth, number, title): kind part|prefix|numbered
        self.title_seen = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if re.fullmatch(r"h[1-6]", tag) and self.lists == 0:
            self.heading = ""
        elif tag in ("ul", "ol"):
            self.lists += 1
        elif tag == "li":
            self.li_linked.append(False)
        elif tag == "a":
            self.link = [a.get("href") or "", ""]

    def handle_endtag(self, tag):
        if re.fullmatch(r"h[1-6]", tag) and self.heading is not None:
            t = " ".join(self.heading.split())
            if self.blocks == 0:
                self.title_seen = True
            else:
                self.raw.append(("part", 0, None, t))
            self.heading = None
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6", "p", "ul", "ol", "hr") and self.lists == 0:
            self.blocks += 1
        if tag in ("ul", "ol"):
            self.lists -= 1
            if self.lists == 0:
                self.blocks += 1
        elif tag == "li":
            self.li_linked.pop()
        elif tag == "a" and self.link is not None:
            href, text = self.link
            self.link = None
            text = " ".join(text.split())
            if self.lists == 0:
                if href:
                    self.raw.append(("prefix", 0, None, text))
                return
            depth = self.lists - 1
            number = None
            if self.li_linked and not self.li_linked[-1]:
                self.li_linked[-1] = True
                del self.count[depth + 1:]
                while len(self.count) <= depth:
                    self.count.append(0)
                self.count[depth] += 1
                number = "".join(f"{n}." for n in self.count[:depth + 1])
            if href:
                self.raw.append(("numbered", depth, number, text))

    def handle_startendtag(self, tag, attrs):
        if tag == "hr" and self.lists == 0:
            self.blocks += 1

    def handle_data(self, data):
        if self.heading is not None:
            self.heading += data
        if self.link is not None:
            self.link[1] += data

    def entries(self):
        parts = any(k == "part" for k, _, _, _ in self.raw)
        out = []
        for kind, depth, number, title in self.raw:
            d = depth + 1 if parts and kind == "numbered" else depth
            shown = f"{number} {title}" if number and self.numbers else title
            out.append((d, shown))
        return out


def subsequence(want, got):
    """Index into want of the first entry not found in got, in order, at
    its depth (titles compared by their word characters), or None."""
    key = lambda e: (e[0], cc.squeeze(e[1]))
    g = [key(e) for e in got]
    j = 0
    for i, w in enumerate(want):
        kw = key(w)
        while j < len(g) and g[j] != kw:
            j += 1
        if j == len(g):
            return i
        j += 1
    return None


def check_summary(summary, epub, pdf, numbers):
    with open(summary, encoding="utf-8") as f:
        p = Summary(numbers)
        p.feed(cc.cmark_html(f.read()))
    want = p.entries()
    ep = cc.open_epub(epub)
    objs = pdf_check.qpdf_objects(pdf)
    views = {"nav": cc.nav_entries(ep), "NCX": cc.ncx_entries(ep) or [],
             "PDF bookmarks": [(d, t) for d, t, _ in cc.outline_pages(objs)],
             "PDF contents": cc.pdf_contents(pdf, objs)}
    bad = 0
    for name, got in views.items():
        k = subsequence(want, got)
        if k is not None:
            bad += 1
            print(f"  {name}: SUMMARY entry {k + 1} {want[k]} missing (at that depth, in order)",
                  file=sys.stderr)
    numbered = sum(1 for k, _, n, _ in p.raw if n)
    print(f"{len(want)} SUMMARY entries ({numbered} numbered, "
          f"{max((d for d, _ in want), default=-1) + 1} levels) in "
          f"{len(views) - bad} of {len(views)} views")
    return bad == 0 and want


class Doc(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.title = None
        self.in_title = False
        self.levels = []
        self.first = None
        self.cur = None   # text of the open heading
        self.pre = 0
        self.code_rust = False
        self.code = []    # (rust, text) of <pre> blocks

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "title":
            self.in_title, self.title = True, ""
        elif re.fullmatch(r"h[1-6]", tag):
            self.levels.append(int(tag[1]))
            if self.first is None:
                self.cur = ""
        elif tag == "pre":
            self.pre += 1
            self.code.append([False, ""])
        elif tag == "code" and self.pre:
            cls = (a.get("class") or "").split()
            self.code[-1][0] = any(re.match(r"language-rust(,|$)", c) for c in cls)

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif re.fullmatch(r"h[1-6]", tag) and self.cur is not None:
            self.first, self.cur = " ".join(self.cur.split()), None
        elif tag == "pre":
            self.pre -= 1

    def handle_data(self, data):
        if self.in_title:
            self.title += data
        if self.cur is not None:
            self.cur += data
        if self.pre:
            self.code[-1][1] += data


def chapter_docs(epub):
    ep = cc.open_epub(epub)
    out = []
    for item in ep.spine:
        href = item.get("href")
        if "nav" in (item.get("properties") or "").split() or re.search(r"cover|title", href):
            continue
        d = Doc()
        d.feed(ep.read(ep.item_path(item)).decode("utf-8"))
        out.append((href, d))
    return out


def check_headings(epub):
    bad = []
    docs = chapter_docs(epub)
    for href, d in docs:
        title = " ".join((d.title or "").split())
        if d.first is None or title != d.first:
            bad.append(f"{href}: <title> {title!r}, first heading {d.first!r}")
        for a, b in zip(d.levels, d.levels[1:]):
            if b > a + 1:
                bad.append(f"{href}: h{a} then h{b}")
                break
    for b in bad[:10]:
        print("  " + b, file=sys.stderr)
    levels = sorted({lv for _, d in docs for lv in d.levels})
    print(f"{len(docs)} chapter documents, headings h{levels[0] if levels else 0}..h"
          f"{levels[-1] if levels else 0}, {len(bad)} wrong")
    return not bad and docs


def check_hidden(epub, pdf):
    docs = chapter_docs(epub)
    rust = other = 0
    for href, d in docs:
        for is_rust, text in d.code:
            n = sum(1 for line in text.split("\n") if HIDDEN.match(line))
            if is_rust:
                rust += n
                if n:
                    print(f"  {href}: {n} hidden lines shown in Rust code", file=sys.stderr)
            else:
                other += n
    text = subprocess.run(["pdftotext", "-layout", pdf, "-"], capture_output=True,
                          text=True).stdout
    # -layout keeps a code line's indentation; the margin's is taken off
    lines = text.split("\n")
    margin = min((len(l) - len(l.lstrip(" ")) for l in lines if l.strip()), default=0)
    in_pdf = sum(1 for line in lines if HIDDEN.match(line[margin:].lstrip(" ")) and line.strip())
    print(f"EPUB: {rust} hidden lines in Rust code, {other} '#' lines in other code; "
          f"PDF: {in_pdf} '#' lines")
    if in_pdf > other:
        print(f"  PDF: {in_pdf - other} '#' lines more than the EPUB's other code", file=sys.stderr)
    return rust == 0 and in_pdf <= other


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    summary, epub, pdf = args
    numbers = "--no-numbers" not in argv
    import contextlib
    import io
    ok_all = True
    for name, run in (("summary", lambda: check_summary(summary, epub, pdf, numbers)),
                      ("headings", lambda: check_headings(epub)),
                      ("hidden", lambda: check_hidden(epub, pdf))):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            ok = bool(run())
        ok_all &= ok
        last = (out.getvalue().strip().splitlines() or [""])[-1]
        print(f"{'PASS' if ok else 'FAIL'} {name}: {last}", flush=True)
        for line in err.getvalue().splitlines()[:12]:
            print("    " + line.strip(), flush=True)
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
