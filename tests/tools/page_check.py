#!/usr/bin/env python3
"""page_check.py: a page a publisher would print (issue 31), checked on a
built book: its EPUB and its PDF.

  page_check.py [--strict-tables] [--min-heads 0.9] [--no-runts] [--chromium]
                [--parts] [--layout DUMP] EPUB PDF

Prints one line per check, "name: numbers", and exits 1 when one fails:

  alt        no image alt text (4 words or more) in the visible text of the
             EPUB (text nodes, not attributes) nor in the PDF's text
  captions   every <figcaption> of the EPUB in the PDF, in a caption style
             (its characters' size or font differs from the body's, from
             `mutool draw -F stext`), on the same page as its object: an
             image's caption is not the first body line of its page (the
             image, kept with it, is above it), a listing's or a table's
             is not the last (its code or rows follow)
  filenames  every listing file name of the EPUB (p.file-name) in the PDF's
             text, in a monospace face, with a line after it on its page
  heads      a recto's running head names the chapter current on its page
             (LaTeX's rule: the first chapter that begins there, else the
             last begun before; chapters: the EPUB's documents, nested ones
             and an article's sections too, placed by their bookmarks,
             confirmed in the page's text), a verso's the book's title (with
             --parts: its part's, the top-level entry it nests in, else the
             book's), on at least --min-heads of the body rectos and versos
  figtext    SVG text (drawn in the Liberation faces, fonts/fallback.conf,
             which no book text uses) at most 1.1 times the body's size
  figtext-pdf (--layout DUMP: octavo's --dump-layout of the same build)
             every text line of the PDF inside a figure's box, whatever its
             face, at most 1.1 times the body's size (each character's)
  ligatures  every line that ends in a drawn hyphen: its last word as the
             glyphs draw it (mutool's trace: a ligature glyph carries its
             letters) equals the text layer's (pdftotext's word boxes), so
             no hyphen splits a ligature
  runts      (--no-runts) no chapter's last page filled less than 5 body
             lines deep, and no other page less than a third full (the
             depth of its text or of what is drawn: a figure's, a code
             block's background)
  notes      no page's foot holds two notes (URL notes or footnotes)
             with the same label
  tables     (--strict-tables) no word of a table cell broken across lines
             in the PDF
  code-css   (--chromium) every <pre> and every child of a listing figure
             computes text-align left or start in headless Chromium with
             the book's CSS (and a reader's `body { text-align: justify }`)
"""
import html
import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile
import unicodedata
import xml.etree.ElementTree as ET
import zipfile


def norm(t):
    t = unicodedata.normalize("NFKC", t).replace("\u00ad", "")
    # format characters (a Persian word's zero-width non-joiner) draw no
    # glyph and are not in the PDF's text
    t = "".join(c for c in t if unicodedata.category(c) != "Cf")
    t = re.sub(r"[\u2018\u2019]", "'", t)
    t = re.sub(r"[\u201c\u201d]", '"', t)
    return re.sub(r"\s+", " ", t).strip().lower()


# ---- the EPUB ---------------------------------------------------------------

class Doc(html.parser.HTMLParser):
    """Visible text, alt texts, figcaptions (with their figure's class and
    whether it holds an image), file names, table cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.alts, self.caps, self.files, self.cells = [], [], [], [], []
        self.stack, self.cur = [], None
        self.fig = []  # per open figure: [class, has_img]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img" and a.get("alt") and norm(a["alt"]) != norm(a.get("title") or ""):
            self.alts.append(a["alt"])  # (an alt that is the title: the author's caption)
            if self.fig:
                self.fig[-1][1] = True
        if tag == "img" and self.fig:
            self.fig[-1][1] = True
        if tag in ("img", "br", "hr", "meta", "link", "input", "col"):
            return
        if tag == "figure":
            self.fig.append([a.get("class", ""), False])
        kind = None
        if tag == "figcaption":
            kind = "cap"
        elif tag == "p" and "file-name" in (a.get("class") or ""):
            kind = "file"
        elif tag in ("td", "th"):
            kind = "cell"
        self.stack.append((tag, kind, []))

    def handle_endtag(self, tag):
        while self.stack:
            t, kind, buf = self.stack.pop()
            s = "".join(buf)
            if kind == "cap":
                listing = bool(self.fig) and "listing" in self.fig[-1][0]
                self.caps.append((s, "listing" if listing else "image"))
            elif kind == "file":
                self.files.append(s)
            elif kind == "cell":
                self.cells.append(s)
            if self.stack:
                self.stack[-1][2].append(s)
            if t == "figure" and self.fig:
                self.fig.pop()
            if t == tag:
                break

    def handle_data(self, d):
        self.text.append(d)
        if self.stack:
            self.stack[-1][2].append(d)


def epub_docs(path):
    z = zipfile.ZipFile(path)
    names = [n for n in z.namelist() if n.endswith(".xhtml") and not n.endswith("nav.xhtml")]
    out = Doc()
    for n in sorted(names):
        s = z.read(n).decode("utf-8")
        body = s[s.find("<body"):]
        out.feed(body)
    return z, names, out


# ---- the PDF ----------------------------------------------------------------

def stext_pages(pdf):
    """Per page: a list of lines (y, x, text, size, font, bottom, largest
    size, right, the first character's font) in reading order."""
    r = subprocess.run(["mutool", "draw", "-q", "-F", "stext", "-o", "-", pdf],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"mutool failed on {pdf}: {r.stderr[:300]}")
    # a control character of the text (a book's U+0001) is no XML character
    xml_ok = lambda c: c in (9, 10, 13) or 0x20 <= c <= 0xD7FF or 0xE000 <= c <= 0xFFFD or c > 0xFFFF
    root = ET.fromstring(re.sub(
        r"&#(x[0-9a-fA-F]+|[0-9]+);",
        lambda m: m.group(0) if xml_ok(int(m.group(1)[1:], 16) if m.group(1)[0] == "x"
                                       else int(m.group(1))) else "\ufffd", r.stdout))
    pages = []
    for pg in root.iter("page"):
        lines = []
        for ln in pg.iter("line"):
            chars, sizes, fonts, first = [], {}, {}, ""
            for f in ln.iter("font"):
                for ch in f.iter("char"):
                    c = ch.get("c", "")
                    chars.append(c)
                    if c.strip():
                        first = first or f.get("name")
                        sz = round(float(f.get("size")), 1)
                        sizes[sz] = sizes.get(sz, 0) + 1
                        fonts[f.get("name")] = fonts.get(f.get("name"), 0) + 1
            bb = [float(v) for v in ln.get("bbox").split()]
            if not "".join(chars).strip():
                continue
            size = max(sizes, key=sizes.get) if sizes else 0
            font = max(fonts, key=fonts.get) if fonts else ""
            lines.append((bb[1], bb[0], "".join(chars), size, font, bb[3], max(sizes, default=0),
                          bb[2], first))
        lines.sort(key=lambda l: (round(l[0]), l[1]))
        pages.append(lines)
    return pages


def trace_pages(pdf):
    """Per page: mutool's trace of its drawing (paths, images, glyphs)."""
    r = subprocess.run(["mutool", "draw", "-q", "-F", "trace", "-o", "-", pdf],
                       capture_output=True, encoding="utf-8", errors="replace")
    return r.stdout.split("<page ")[1:]


GLYPH = re.compile(r'<g unicode="([^"]*)"( glyph="[^"]*")? x="([-0-9.]+)" y="([-0-9.]+)" '
                   r'adv="([-0-9.]+)"')
SPAN = re.compile(r'<span [^>]*trm="([-0-9.]+) [^"]*">(.*?)</span>', re.S)
HYPHENS = "-\u00ad\u2010"


def hyphen_splits(pdf, traces):
    """Each line that ends in a drawn hyphen, its last word as drawn (the
    glyphs' own text, mutool's trace: a ligature glyph of "ff" carries both
    letters) against the same word in the text layer (pdftotext's word
    boxes). A hyphen inside a ligature draws "diff-" where the text says
    "dif-". Returns (lines checked, [disagreements])."""
    r = subprocess.run(["pdftotext", "-bbox-layout", "-enc", "UTF-8", pdf, "-"],
                       capture_output=True, text=True)
    words = []  # per page: (yMin, yMax, xMax, text) of each line's last word
    for pg in r.stdout.split("<page ")[1:]:
        lw = []
        for ln in re.findall(r"<line[^>]*>(.*?)</line>", pg, re.S):
            ws = re.findall(r'<word xMin="([-0-9.]+)" yMin="([-0-9.]+)" xMax="([-0-9.]+)" '
                            r'yMax="([-0-9.]+)">([^<]*)</word>', ln)
            if ws:
                x0, y0, x1, y1, t = ws[-1]
                k = len(ws) - 1  # words that touch are one ("for" in code, then "-")
                while k > 0 and float(ws[k - 1][2]) >= float(ws[k][0]) - 0.5:
                    k -= 1
                    t = ws[k][4] + t
                lw.append((float(y0), float(y1), float(x1), html.unescape(t)))
        words.append(lw)
    checked, bad = 0, []
    letters = lambda t: "".join(c for c in unicodedata.normalize("NFKC", t).lower() if c.isalnum())
    for pi, chunk in enumerate(traces):
        lines = {}
        for sp in SPAN.finditer(chunk):
            size = abs(float(sp.group(1)))
            for m in GLYPH.finditer(sp.group(2)):
                u, drawn, x, y = m.group(1), bool(m.group(2)), float(m.group(3)), float(m.group(4))
                lines.setdefault(round(y, 1), []).append(
                    (x, html.unescape(u), drawn, x + float(m.group(5)) * size, size))
        for y, gs in lines.items():
            # a line of one column: the glyphs in drawing order, cut at a
            # gap wider than a few ems (the next column, a note mark apart)
            segs, cur = [], [gs[0]]
            for g in gs[1:]:
                (cur.append(g) if abs(g[0] - cur[-1][0]) < 60 else (segs.append(cur), cur := [g]))
            segs.append(cur)
            for seg in segs:
                last = max(i for i, g in enumerate(seg) if g[2]) if any(g[2] for g in seg) else -1
                if last < 1 or seg[last][1] not in HYPHENS:
                    continue
                hx = seg[last][0]
                tail, nx = [], seg[last][0]
                for g in reversed(seg[:last]):
                    # a word ends at a space, or where the glyphs part (a
                    # note's label set before its URL)
                    if g[1].isspace() or g[2] and nx - g[3] > 0.15 * g[4]:
                        break
                    tail.append(g[1])
                    nx = g[0] if g[2] else nx
                drawn = letters("".join(reversed(tail)))
                # alphabets only (Latin, Greek, Cyrillic): a complex
                # script's conjunct glyph maps back to part of its cluster
                # in the font's ToUnicode, so its glyphs never spell the text
                if not drawn or any(ord(ch) >= 0x530 for ch in drawn):
                    continue
                cand = [w for w in (words[pi] if pi < len(words) else [])
                        if w[0] - 1 <= y <= w[1] + 2 and abs(w[2] - hx) < 12]
                if not cand:
                    continue
                checked += 1
                text = letters(cand[0][3].rstrip(HYPHENS))
                if text != drawn:
                    bad.append(f"page {pi + 1}: drawn {drawn!r}-, text {text!r}-")
    return checked, bad


def image_tops(traces):
    """Per page: the bottoms (y, down from the top) of what is drawn: raster
    images, and paths (an SVG drawn as vectors, a rule, a code block's
    background)."""
    pages = []
    for chunk in traces:
        bottoms = []
        for m in re.finditer(r'<fill_image[^>]*transform="([^"]*)"', chunk):
            a, b, c, d, e, f = (float(v) for v in m.group(1).split())
            bottoms.append(f + d)
        for m in re.finditer(r'<(?:fill|stroke)_path[^>]*transform="([^"]*)">(.*?)</(?:fill|stroke)_path>',
                             chunk, re.S):
            a, b, c, d, e, f = (float(v) for v in m.group(1).split())
            ys = [float(y) * d + f for y in re.findall(r' y="([-0-9.]+)"', m.group(2))]
            if ys:
                bottoms.append(max(ys))
        pages.append(bottoms)
    return pages


def layout_images(path):
    """Per physical page: the image boxes (x, y, w, h; y down from the top)
    of octavo's --dump-layout (every figure, raster or drawn as vectors)."""
    pages = []
    for ln in open(path, encoding="utf-8"):
        if ln.startswith("page "):
            pages.append([])
        m = re.match(r"\s+image ([-0-9.]+),([-0-9.]+) ([0-9.]+)x([0-9.]+)", ln)
        if m and pages:
            pages[-1].append(tuple(float(v) for v in m.groups()))
    return pages


def pdf_outline(pdf):
    r = subprocess.run(["qpdf", "--json", "--json-key=outlines", pdf], capture_output=True,
                       text=True)
    out = []

    def walk(es, depth):
        for e in es:
            out.append((depth, e.get("title") or "", e.get("destpageposfrom1") or 0))
            walk(e.get("kids", []), depth + 1)
    if r.returncode in (0, 3):
        walk(json.loads(r.stdout).get("outlines", []), 0)
    return out


def nav_chapters(z):
    """The book's chapters, as the EPUB's contents list them: (depth,
    title) of each entry that links a document, not a place in one."""
    nav = [n for n in z.namelist() if n.endswith("nav.xhtml")]
    if not nav:
        return []
    root = ET.fromstring(z.read(nav[0]))
    ns = "{http://www.w3.org/1999/xhtml}"
    toc = next((e for e in root.iter(ns + "nav")
                if e.get("{http://www.idpf.org/2007/ops}type") == "toc"), None)
    out = []

    def walk(ol, depth):
        for li in ol.findall(ns + "li"):
            a = li.find(ns + "a")
            if a is not None and "#" not in (a.get("href") or ""):
                out.append((depth, norm("".join(a.itertext()))))
            for sub in li.findall(ns + "ol"):
                walk(sub, depth + 1)
    for ol in (toc.findall(ns + "ol") if toc is not None else []):
        walk(ol, 0)
    return out


def opf_title(z):
    opf = [n for n in z.namelist() if n.endswith(".opf")]
    m = re.search(r"<dc:title[^>]*>(.*?)</dc:title>", z.read(opf[0]).decode("utf-8"), re.S)
    return html.unescape(m.group(1)) if m else ""


def head_names(head, title):
    """Does a running head read as the start of title? Its characters may
    come out of the PDF in visual order (an Indic vowel sign written
    before its consonant, a broken-off hyphen), so past the plain prefix
    the letters are compared as a multiset."""
    if title.startswith(head):
        return True
    h = [c for c in head if c.isalnum()]
    t = [c for c in title if c.isalnum()][:len(h)]
    return len(h) > 0 and sorted(h) == sorted(t)


def body_size(pages):
    """The body's size: the commonest of the text not set in a monospace
    face (a book of mostly code, yt-dlp's README, has more code)."""
    count = {}
    for lines in pages:
        for l in lines:
            if "mono" not in l[4].lower():
                count[l[3]] = count.get(l[3], 0) + len(l[2])
    return max(count, key=count.get)


def head_line(lines, bsize, top):
    """The running head: the small lines above the text block, as one
    (y, x, text, size, font, bottom) in the order of x, or None."""
    hs = sorted((l for l in lines if l[5] < top and l[3] < bsize), key=lambda l: l[1])
    if not hs:
        return None
    return (hs[0][0], hs[0][1], " ".join(l[2] for l in hs), hs[0][3], hs[0][4], hs[0][5], hs)


def main():
    args = sys.argv[1:]
    strict_tables = "--strict-tables" in args
    use_chromium = "--chromium" in args
    min_heads = 0.9
    if "--min-heads" in args:
        min_heads = float(args[args.index("--min-heads") + 1])
        del args[args.index("--min-heads"):args.index("--min-heads") + 2]
    parts = "--parts" in args
    layout = None
    if "--layout" in args:
        layout = args[args.index("--layout") + 1]
        del args[args.index("--layout"):args.index("--layout") + 2]
    files = [a for a in args if not a.startswith("--")]
    epub, pdf = files
    fails = []
    z, names, doc = epub_docs(epub)
    pages = stext_pages(pdf)
    bsize = body_size(pages)
    pdf_text = norm(" ".join(l[2] for p in pages for l in p))
    vis = norm(" ".join(doc.text))

    # alt
    # (an alt that is its figure's caption, as an <img title> with no alt
    # gives both, is the author's caption)
    capset = {norm(c) for c, _ in doc.caps}
    alts = [norm(a) for a in doc.alts if len(a.split()) >= 4]
    alts = [a for a in alts if a and a not in capset]
    in_pdf = sum(1 for a in alts if a in pdf_text)
    in_epub = sum(1 for a in alts if a in vis)
    print(f"alt: {len(alts)} alt texts of 4+ words; {in_pdf} in the PDF's text, "
          f"{in_epub} in the EPUB's visible text")
    if in_pdf or in_epub:
        fails.append("alt")

    # captions (and the body lines of each page: not the head, not the folio)
    top = min((l[0] for p in pages for l in p if l[3] == bsize), default=0) - 2
    body = []
    for lines in pages:
        h = head_line(lines, bsize, top)
        bl = [l for l in lines if not h or l not in h[6]]
        if bl and re.fullmatch(r"[0-9]+|[ivxlc]+", bl[-1][2].strip()):
            bl.pop()  # the folio at the foot of an opening page
        body.append(bl)

    def find(text, mono=False):
        key = norm(text)[:40]
        for pi, bl in enumerate(body):
            for li, l in enumerate(bl):
                t = norm(l[2])
                if (t == key or len(key) >= 4 and
                        t.startswith(key[:max(4, min(len(t), len(key)))])):
                    if not mono or "mono" in l[4].lower():
                        return pi, li
        return None

    traces = trace_pages(pdf)
    imgs = image_tops(traces)
    styled = same = found = 0
    bad = []
    for cap, kind in doc.caps:
        if not norm(cap):
            continue
        at = find(cap)
        if not at:
            bad.append(f"not found: {cap[:50]!r}")
            continue
        found += 1
        pi, li = at
        l = body[pi][li]
        if l[3] != bsize or "italic" in l[4].lower():
            styled += 1
        else:
            bad.append(f"body style: {cap[:50]!r} ({l[4]} {l[3]})")
        lines = body[pi]
        if kind == "image":  # text above it, or a raster image ending above it
            ok = li > 0 or any(top < b <= l[0] + 2 for b in (imgs[pi] if pi < len(imgs) else []))
        else:
            ok = li + 1 < len(lines)
        if ok:
            same += 1
        else:
            bad.append(f"alone at a page's {'start' if kind == 'image' else 'end'} (page {pi + 1}): {cap[:50]!r}")
    print(f"captions: {len(doc.caps)} in the EPUB; {found} found in the PDF, {styled} in a caption "
          f"style (body {bsize} pt), {same} with their object on the page")
    for b in bad[:10]:
        print("  " + b)
    if found < len(doc.caps) or styled < found or same < found:
        fails.append("captions")

    # file names
    fn_ok = 0
    for f in doc.files:
        at = find(f, mono=True)
        if at and at[1] + 1 < len(body[at[0]]):
            fn_ok += 1
        else:
            print(f"  file name missing or alone: {f!r}")
    print(f"filenames: {len(doc.files)} in the EPUB, {fn_ok} in the PDF in a monospace face "
          f"with their code")
    if fn_ok < len(doc.files):
        fails.append("filenames")

    # running heads: a recto names the chapter current on its page, by
    # LaTeX's \rightmark (the first chapter that begins on the page, else
    # the last begun before it), a verso the book's title or its part's.
    # The chapters are the EPUB's documents (nav entries without a
    # fragment: nested chapters and an article's sections too); where each
    # begins is its PDF bookmark's page, confirmed by its title in that
    # page's text
    chaps = nav_chapters(z)
    book_title = norm(opf_title(z))
    outline = pdf_outline(pdf)
    starts, oi, unplaced = [], 0, []
    for depth, title in chaps:
        for j in range(oi, len(outline)):
            if norm(outline[j][1]) == title and outline[j][2] > 0:
                pg = outline[j][2]
                page_text = norm(" ".join(l[2] for l in pages[pg - 1]))
                bare = re.sub(r"^[0-9.]+ ", "", title)  # its number apart
                if bare[-24:] not in page_text and bare[:24] not in page_text:
                    # (the contents' title may not be the heading's: SUMMARY.md's)
                    unplaced.append(f"(note) {title!r}: not in the text of its bookmark's page {pg}")
                starts.append((pg, depth, title))
                oi = j + 1
                break
        else:
            unplaced.append(f"{title!r}: no bookmark")
    rectos = named = versos = v_named = 0
    misses = []
    for pi, lines in enumerate(pages):
        h = head_line(lines, bsize, top)
        if not h:
            continue
        # the folio: the head's segment on the outer side (a recto's right,
        # a verso's left; the other way round in a book bound on the
        # right); recto or verso by its parity
        segs = [l[2].strip() for l in h[6]]
        num = lambda t: re.fullmatch(r"\d+", t.strip("\u202a\u202b\u202c\u200e\u200f "))
        if len(segs) > 1 and num(segs[-1]) and not num(segs[0]):
            folio, rest = segs[-1], segs[:-1]
        elif len(segs) > 1 and num(segs[0]):
            folio, rest = segs[0], segs[1:]
        elif re.match(r"(\d+)\s*(\D.*)$", " ".join(segs)):  # one line: "11TITLE" (right to left)
            m = re.match(r"(\d+)\s*(\D.*)$", " ".join(segs))
            folio, rest = m.group(1), [m.group(2)]
        elif re.match(r"(.*\D)\s*(\d+)$", " ".join(segs)):
            m = re.match(r"(.*\D)\s*(\d+)$", " ".join(segs))
            folio, rest = m.group(2), [m.group(1)]
        else:
            continue  # an opening page's foot, or no folio
        folio = int(num(folio).group(0))
        verso = folio % 2 == 0
        head = norm(" ".join(rest)).strip("\u202a\u202b\u202c\u200e\u200f").rstrip(".\u2026 ")
        on = [s for s in starts if s[0] == pi + 1]
        before = [s for s in starts if s[0] <= pi + 1]
        if verso:
            # the book's title; with --parts, the part's (the last top-level
            # entry begun, when chapters nest in it; a chapter beside the
            # parts, a preface or an afterword, is in none: the book's)
            want = book_title
            top_begun = [k for k, s in enumerate(starts) if s[0] <= pi + 1 and s[1] == 0]
            if parts and top_begun:
                k = top_begun[-1]
                if k + 1 < len(starts) and starts[k + 1][1] > 0:
                    want = starts[k][2]
            versos += 1
            if head and head_names(head, want):
                v_named += 1
            else:
                misses.append(f"verso page {pi + 1}: {head!r}, not {want!r}")
            continue
        rectos += 1
        want = on[0][2] if on else before[-1][2] if before else book_title
        if head and head_names(head, want):
            named += 1
        else:
            misses.append(f"recto page {pi + 1}: {head!r}, the chapter there is {want!r}")
    ratio = named / rectos if rectos else 1.0
    vratio = v_named / versos if versos else 1.0
    print(f"heads: {len(starts)} of {len(chaps)} chapters placed; {named} of {rectos} body rectos "
          f"name the chapter current on their page ({ratio:.0%}), {v_named} of {versos} versos "
          f"the book or their part ({vratio:.0%})")
    for m in (unplaced + misses)[:6]:
        print("  " + m)
    if ratio < min_heads or vratio < min_heads or len(starts) < len(chaps) * min_heads:
        fails.append("heads")

    # figure text: SVG text is drawn in fonts/fallback.conf's metric
    # aliases (Liberation), which no book text uses; none larger than
    # 1.1 times the body
    figtext = [(pi + 1, l[3], l[2][:30]) for pi, lines in enumerate(pages) for l in lines
               if "liberation" in l[4].lower()]
    big = [f for f in figtext if f[1] > 1.1 * bsize]
    print(f"figtext: {len(figtext)} lines of SVG text, largest "
          f"{max((f[1] for f in figtext), default=0):.1f} pt (body {bsize:.1f}); {len(big)} over 1.1 x")
    for f in big[:5]:
        print(f"  page {f[0]}: {f[1]} pt {f[2]!r}")
    if big:
        fails.append("figtext")

    # figure text from the PDF: the text lines inside each figure's box
    # (--layout: octavo's --dump-layout of the same build; an SVG drawn as
    # vectors keeps its text as text), none larger than 1.1 x the body by
    # any of its characters' sizes
    if layout:
        boxes = layout_images(layout)
        inside = []
        for pi, lines in enumerate(pages):
            for l in lines:
                cx, cy = (l[1] + l[7]) / 2, (l[0] + l[5]) / 2
                if any(x <= cx <= x + w and y <= cy <= y + h
                       for x, y, w, h in (boxes[pi] if pi < len(boxes) else [])):
                    inside.append((pi + 1, l[6], l[2][:30]))
        big = [f for f in inside if f[1] > 1.1 * bsize]
        nfig = sum(len(b) for b in boxes)
        print(f"figtext-pdf: {nfig} figures, {len(inside)} text lines inside them, largest "
              f"{max((f[1] for f in inside), default=0):.1f} pt; {len(big)} over 1.1 x the body")
        for f in big[:5]:
            print(f"  page {f[0]}: {f[1]} pt {f[2]!r}")
        if big:
            fails.append("figtext-pdf")

    # ligatures: a line ending in a hyphen draws its word's glyphs as the
    # text layer spells it: a break inside a ligature (ff, fi, fl: one
    # glyph) drew "diff-" / "erent" while the text said "dif-" / "ferent"
    checked, split = hyphen_splits(pdf, traces)
    print(f"ligatures: {checked} hyphenated line ends, {len(split)} whose glyphs and text "
          f"disagree")
    for b in split[:5]:
        print("  " + b)
    if split:
        fails.append("ligatures")

    # runts: a chapter's last page (the one before an opening page, one with
    # no running head, or before the colophon) filled less than 5 body lines
    # deep; and pages less than a third full that end no chapter (the
    # heads' fix: a head is recognised in visual order too, head_names)
    lead = 14.5
    opening = [head_line(lines, bsize, top) is None for lines in pages]
    runts, thin = [], []
    last_body = max((i for i, o in enumerate(opening) if not o), default=-1)
    for pi, bl in enumerate(body):
        if pi == 0 or not bl or pi > last_body:
            continue
        # the text's depth, or a figure's (raster or drawn) when deeper
        drawn = [b for b in (imgs[pi] if pi < len(imgs) else []) if top < b < 841.89 * 0.92]
        depth = max([l[5] for l in bl] + drawn) - top
        ends = pi + 1 >= len(pages) or opening[pi + 1] or pi == last_body
        if opening[pi] and not ends:
            continue
        if ends and depth < 5 * lead and not opening[pi]:
            runts.append(pi + 1)
        elif not ends and depth < (841.89 - top - 96) / 3:
            thin.append(pi + 1)
    print(f"runts: {len(runts)} chapter ends under 5 lines deep {runts[:8]}; "
          f"{len(thin)} other pages under a third full {thin[:8]}")
    if "--no-runts" in args and (runts or thin):
        fails.append("runts")

    # notes: the labels at a page's foot (the lines after its last
    # body-size line, the folio apart; a label in the body's face, not a
    # code line's), a URL note's ("b https://...": one or two letters, then
    # the URL) and a footnote's ("2 Text..."), each at most once on the
    # page: a book's URL notes
    # are lettered on through the chapters that run on after one that
    # opens a page, footnotes numbered through the book (issue 31: a
    # nested chapter's notes began again at "a")
    twice, labelled = [], 0
    for pi, bl in enumerate(body):
        last = max((i for i, l in enumerate(bl) if l[6] >= bsize), default=-1)
        labels = []
        for l in bl[last + 1:]:
            t = l[2].strip()
            if "mono" in l[8].lower():
                continue
            m = re.match(r"([a-z]{1,2}) (\S*[:/@.]\S*)$", t) or re.match(r"([0-9]+) \S", t)
            if m:
                labels.append(m.group(1))
        labelled += bool(labels)
        dup = sorted({x for x in labels if labels.count(x) > 1})
        if dup:
            twice.append(f"page {pi + 1}: {' '.join(dup)} twice")
    print(f"notes: {labelled} pages with notes at the foot, {len(twice)} with a label twice")
    for t in twice[:5]:
        print("  " + t)
    if twice:
        fails.append("notes")

    # tables
    if strict_tables:
        # brackets apart: in a right-to-left line they come out mirrored;
        # hyphens apart: mutool may read a drawn hyphen as U+00AD (norm
        # drops it) where the cell has '-'
        unbracket = str.maketrans("", "", "()[]{}<>-")
        lines_text = [norm(l[2]).translate(unbracket) for p in body for l in p]
        broken = []
        for cell in doc.cells:
            for w in norm(cell).translate(unbracket).split():
                if len(w) > 3 and not any(w in t for t in lines_text):
                    broken.append(w)
        print(f"tables: {len(doc.cells)} cells, {len(broken)} words broken across lines")
        for w in broken[:10]:
            print("  " + w)
        if broken:
            fails.append("tables")

    # code alignment in Chromium
    if use_chromium:
        fails += code_css(z, names)

    if fails:
        print("FAIL: " + ", ".join(fails))
        return 1
    return 0


SCRIPT = """<script>//<![CDATA[
var bad = [], n = 0;
document.querySelectorAll('pre, figure.listing > *, pre code').forEach(function (e) {
  n++;
  var a = getComputedStyle(e).textAlign;
  if (a !== 'left' && a !== 'start' && !(a === '-webkit-auto')) bad.push(e.tagName + ':' + a);
});
document.body.setAttribute('data-code-align', n + ' ' + bad.length + ' ' + bad.slice(0, 3).join(','));
//]]></script>"""


def code_css(z, names):
    """Every code block's computed text-align, in headless Chromium: the
    bodies of all the chapters that hold code in one document (their own
    head: the book's CSS), so that one Chromium serves a whole book."""
    fails = []
    with tempfile.TemporaryDirectory() as d:
        z.extractall(d)
        head, bodies = None, []
        for n in names:
            s = open(os.path.join(d, n), encoding="utf-8").read()
            if "<pre" not in s:
                continue
            if head is None:
                head = s[:s.index("<body")]
                at = os.path.dirname(n)
            elif os.path.dirname(n) != at:
                continue  # (one folder: the stylesheet's relative link)
            b = s[s.index("<body"):s.rindex("</body>")]
            bodies.append("<div" + b[len("<body"):] + "</div>")
        if head is None:
            print("code-css: no code (Chromium)")
            return []
        # a reader's own justification of the body, as many apply
        head = head.replace("</head>", "<style>body { text-align: justify; }</style></head>", 1)
        path = os.path.join(d, at, "all-code.xhtml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(head + "<body>" + "\n".join(bodies) + SCRIPT + "</body></html>")
        r = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                            "--allow-file-access-from-files", "--dump-dom",
                            "file://" + path], capture_output=True, text=True, timeout=120)
        m = re.search(r'data-code-align="(\d+) (\d+) ?([^"]*)"', r.stdout)
        if not m:
            print(f"  code-css: no result ({r.stderr.strip()[-200:]})")
            return ["code-css"]
        total, wrong = int(m.group(1)), int(m.group(2))
        print(f"code-css: {total} code elements in {len(bodies)} chapters, {wrong} not "
              f"left-aligned (Chromium)")
        if wrong:
            print(f"  {m.group(3)}")
            fails.append("code-css")
    return fails


if __name__ == "__main__":
    sys.exit(main())
