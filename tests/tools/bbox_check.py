#!/usr/bin/env python3
"""bbox_check.py: the drawn extent of a PDF's text, from pdftotext -bbox-layout.

  bbox_check.py [--columns 2] inside PDF [STYLE]
                                       every word box of the body pages
                                       within the text block (its column)
  bbox_check.py rtl PDF [STYLE]        the same, and the lines of a block set
                                       right to left (mostly Arabic or Hebrew
                                       letters) end at the right edge or
                                       short of it by a mirrored indent (a
                                       list, a quote), with each list mark
                                       (bullet, ".1") at the line's right
  bbox_check.py justified PDF [STYLE]  rtl, and in each block of right-to-left
                                       lines every line ends at the right
                                       edge and every line but the last
                                       starts at the text block's left edge

  bbox_check.py images PDF            each image XObject drawn, per page:
                                       "PAGE x0 y0 x1 y1 WxH" (points from
                                       the page's top left; the image's
                                       pixel size)

The body pages are those numbered in arabic numerals (the PDF's page
labels): the cover is a design of its own, the contents set their lines
left to right with leader dots.
The text block comes from the style file (default styles/print.ini,
[page] margins, A4 unless the PDF's page size says Letter or A5 and the
style has a section for it); odd physical pages have the inner margin on
the left. Running heads and folios lie outside the block vertically and
are not checked horizontally beyond the page. Prints the failures and one
line of numbers; exit 1 on a failure."""
import configparser
import json
import os
import re
import subprocess
import sys
import unicodedata
from html.parser import HTMLParser

TOL = 0.6  # points: pdftotext rounds boxes, glyphs overhang a little
MARK = re.compile(r"^([\u2022\u2013\u25e6]|\d+[.)]|[.)]\d+)$")  # octavo's list marks


class Boxes(HTMLParser):
    """Pages of blocks of lines of words: (xMin, yMin, xMax, yMax, text)."""

    def __init__(self):
        super().__init__()
        self.pages, self.word = [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "page":
            self.pages.append({"w": float(a["width"]), "h": float(a["height"]), "blocks": []})
        elif tag == "block":
            self.pages[-1]["blocks"].append([])
        elif tag == "line":
            self.pages[-1]["blocks"][-1].append(
                {"box": [float(a[k]) for k in ("xmin", "ymin", "xmax", "ymax")], "words": []})
        elif tag == "word":
            self.word = [float(a[k]) for k in ("xmin", "ymin", "xmax", "ymax")] + [""]

    def handle_data(self, data):
        if self.word is not None:
            self.word[4] += data

    def handle_endtag(self, tag):
        if tag == "word" and self.word is not None:
            self.pages[-1]["blocks"][-1][-1]["words"].append(self.word)
            self.word = None


def geometry(style, page_w, columns):
    """top, bottom, inner, outer margins and the column gap, the style's
    sections layered as octavo does: [page], [page.PAPER], [page.columns],
    [page.PAPER.columns] (the paper from the page's width)."""
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    cp.read(style)
    paper = "letter" if abs(page_w - 612) < 2 else "a5" if abs(page_w - 419.5) < 2 else "a4"
    secs = ["page", "page." + paper]
    if columns > 1:
        secs += ["page.columns", "page." + paper + ".columns"]
    g = {}
    for sec in secs:
        if cp.has_section(sec):
            g.update({k: float(v) for k, v in cp.items(sec) if k != "paper"})
    return (g["margin-top"], g["margin-bottom"], g["margin-inner"], g["margin-outer"],
            g.get("column-gap", 0))


def body_pages(pdf):
    """Physical page numbers (1-based) whose page label is decimal (/S /D)."""
    out = subprocess.run(["qpdf", "--json=2", "--json-key=pagelabels", pdf], capture_output=True,
                         check=True).stdout
    ranges = sorted((r["index"], r["label"].get("/S")) for r in json.loads(out)["pagelabels"])
    body = set()
    n = int(subprocess.run(["qpdf", "--show-npages", pdf], capture_output=True,
                           check=True).stdout)
    for i in range(n):
        style = None
        for idx, st in ranges:
            if idx <= i:
                style = st
        if style == "/D" or not ranges:
            body.add(i + 1)
    return body


def mul(m, n):
    """The PDF matrix m then n (m x n)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D,
            e * A + f * C + E, e * B + f * D + F]


def drawn_images(pdf):
    """(page, x0, y0, x1, y1, w_px, h_px) of every image XObject drawn, in
    page coordinates from the top left, following q/Q/cm and form
    XObjects' matrices."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import corpus_check as cc
    objs = cc.qpdf_full(pdf)
    out = []
    for n, ref in enumerate(cc.pdf_pages(objs), 1):
        page = cc.sval(objs, ref)
        height = cc.page_size(objs, ref)[3]

        def xobjects(d):
            r = cc.sval(objs, d.get("/Resources")) or {}
            return dict(cc.sval(objs, r.get("/XObject")) or {})

        def visit(data, xobjs, ctm, depth):
            stack = []
            for op, args in cc.content_ops(data):
                if op == "q":
                    stack.append(ctm)
                elif op == "Q" and stack:
                    ctm = stack.pop()
                elif op == "cm" and len(args) == 6:
                    ctm = mul([float(x) for x in args], ctm)
                elif op == "Do" and args and args[-1] in xobjs and depth < 8:
                    xref = xobjs[args[-1]]
                    d = cc.sval(objs, xref) or {}
                    if d.get("/Subtype") == "/Image":
                        pts = [(ctm[0] * u + ctm[2] * v + ctm[4], ctm[1] * u + ctm[3] * v + ctm[5])
                               for u, v in ((0, 0), (1, 0), (0, 1), (1, 1))]
                        xs, ys = [p[0] for p in pts], [height - p[1] for p in pts]
                        out.append((n, min(xs), min(ys), max(xs), max(ys),
                                    int(d.get("/Width", 0)), int(d.get("/Height", 0))))
                    elif d.get("/Subtype") == "/Form":
                        m = [float(x) for x in d.get("/Matrix", [1, 0, 0, 1, 0, 0])]
                        visit(cc.stream_data(objs, xref), {**xobjs, **xobjects(d)}, mul(m, ctm),
                              depth + 1)
        contents = page.get("/Contents")
        refs = contents if isinstance(contents, list) else [contents]
        visit(b"\n".join(cc.stream_data(objs, r) for r in refs if r), xobjects(page),
              [1, 0, 0, 1, 0, 0], 0)
    return out


def merge_pieces(blocks):
    """Blocks of lines, the pieces of one drawn line joined: a right-to-left
    run is drawn in reading order, a glyph per pdftotext word, and pdftotext
    may cut its line into pieces, in one block or in blocks of their own.
    Lines on the same baseline whose boxes touch or overlap horizontally (a
    gap under 3 pt, as between two words) are one line; a block left empty
    goes."""
    lines = [(bi, ln) for bi, b in enumerate(blocks) for ln in b]
    owner = {}
    for i, (bi, a) in enumerate(lines):
        for j in range(i):
            bj, b = lines[j]
            if abs(a["box"][1] - b["box"][1]) < 1 and abs(a["box"][3] - b["box"][3]) < 1 and \
                    a["box"][0] < b["box"][2] + 3 and b["box"][0] < a["box"][2] + 3:
                owner[i] = owner.get(j, j)
                break
    for i, k in sorted(owner.items()):
        a, b = lines[i][1], lines[k][1]
        b["words"] = sorted(b["words"] + a["words"], key=lambda w: w[0])
        b["box"] = [min(a["box"][0], b["box"][0]), min(a["box"][1], b["box"][1]),
                    max(a["box"][2], b["box"][2]), max(a["box"][3], b["box"][3])]
        a["gone"] = True
    out = [[ln for ln in b if not ln.get("gone")] for b in blocks]
    return [b for b in out if b]


def rtl_text(t):
    letters = [c for c in t if unicodedata.category(c).startswith("L")]
    rtl = [c for c in letters if unicodedata.bidirectional(c) in ("R", "AL")]
    return letters and len(rtl) * 2 > len(letters)


def main():
    args = sys.argv[1:]
    columns = 1
    if "--columns" in args:
        k = args.index("--columns")
        columns = int(args[k + 1])
        del args[k:k + 2]
    mode, pdf = args[0], args[1]
    if mode == "images":
        for im in drawn_images(pdf):
            print("%d %.1f %.1f %.1f %.1f %dx%d" % im)
        return 0
    style = args[2] if len(args) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "styles", "print.ini")
    html = subprocess.run(["pdftotext", "-bbox-layout", pdf, "-"], capture_output=True,
                          check=True).stdout.decode("utf-8")
    html = re.sub(r"<(/?)(\w+)", lambda m: "<" + m.group(1) + m.group(2).lower(), html)
    p = Boxes()
    p.feed(html)
    for page in p.pages:
        page["blocks"] = merge_pieces(page["blocks"])
    bad, words, rtl_lines = [], 0, 0
    body_n = body_pages(pdf)
    for n, page in enumerate(p.pages, 1):
        if n not in body_n:
            continue
        top, bottom, inner, outer, gap = geometry(style, page["w"], columns)
        t_left = inner if n % 2 else outer
        t_right = page["w"] - (outer if n % 2 else inner)
        cw = (t_right - t_left - (columns - 1) * gap) / columns
        cols = [(t_left + k * (cw + gap), t_left + k * (cw + gap) + cw) for k in range(columns)]
        rtl_ends = []  # (top, bottom, end x, text) of each right-to-left line
        for block in page["blocks"]:
            body = [ln for ln in block if top - 2 < ln["box"][1] and ln["box"][3] < page["h"] - bottom + 2]
            if not body:
                continue
            # the column the block is in: the one its first line starts in
            x = body[0]["box"][0]
            left, right = min(cols, key=lambda c: 0 if c[0] - TOL <= x <= c[1] else abs(x - c[0]))
            for ln in body:
                for w in ln["words"]:
                    words += 1
                    if w[0] < left - TOL or w[2] > right + TOL:
                        bad.append(f"p. {n}: word {w[4]!r} at x {w[0]:.1f}..{w[2]:.1f}, "
                                   f"outside its column {left:.1f}..{right:.1f}")
            if mode == "inside" or not all(rtl_text(" ".join(w[4] for w in ln["words"]))
                                                    for ln in body):
                continue
            # a right-to-left block: its lines end in the right half of the
            # column (at the right edge, or short of it by a mirrored indent:
            # a list or a quote), each list mark right of its line's end (in
            # the same column); justified, its lines end at the right edge
            # and those but the last begin at the left edge
            rtl_lines += len(body)
            ends = []
            for ln in body:
                text = [w for w in ln["words"] if not MARK.match(w[4])]
                marks = [w for w in ln["words"] if MARK.match(w[4])]
                x1 = max((w[2] for w in text), default=ln["box"][2])
                ends.append(x1)
                rtl_ends.append((ln["box"][1], ln["box"][3], x1, left, right,
                                 ' '.join(w[4] for w in text)[:40]))
            for k, (ln, x1) in enumerate(zip(body, ends)):
                words_of = ' '.join(w[4] for w in ln['words'])[:40]
                if x1 > right + TOL or x1 < (left + right) / 2:
                    bad.append(f"p. {n}: right-to-left line ends at x {x1:.1f}, not in the "
                               f"right half of its column {left:.1f}..{right:.1f}: {words_of!r}")
                if mode == "justified" and abs(x1 - right) > TOL:
                    bad.append(f"p. {n}: justified right-to-left line ends at x {x1:.1f}, "
                               f"not at the right edge {right:.1f}: {words_of!r}")
                if mode == "justified" and k + 1 < len(body) and abs(ln["box"][0] - left) > TOL:
                    bad.append(f"p. {n}: justified right-to-left line starts at x "
                               f"{ln['box'][0]:.1f}, not at the left edge {left:.1f}")
        # a list mark (in the line's block, or in a block of marks of its
        # own) beside a right-to-left line is right of its end
        for block in page["blocks"]:
            for ln in block:
                for m in (w for w in ln["words"] if MARK.match(w[4])):
                    mid = (m[1] + m[3]) / 2
                    for y0, y1, x1, c0, c1, t in rtl_ends:
                        if y0 < mid < y1 and c0 - TOL <= m[0] <= c1 + TOL and m[0] < x1 - TOL:
                            bad.append(f"p. {n}: list mark {m[4]!r} at x {m[0]:.1f}, left of "
                                       f"the right-to-left line ending at {x1:.1f}: {t!r}")
    for b in bad[:20]:
        print("  " + b, file=sys.stderr)
    print(f"{len(p.pages)} pages, {words} words, {rtl_lines} right-to-left lines, "
          f"{len(bad)} misplaced")
    return 0 if not bad and words else 1


if __name__ == "__main__":
    sys.exit(main())
