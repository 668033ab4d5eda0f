#!/usr/bin/env python3
"""measure_typography.py BOOK.pdf [options]: measures the typesetting of a
finished PDF from poppler's word boxes (pdftotext -bbox-layout), prints the
figures, and checks the thresholds given as options (exit 1 when one fails).

How it reads the page (single column unless --columns 2):
- With --columns N, a word belongs to the column its middle falls in, and
  each column of a page is a frame of its own (edges, page structure and
  reading order per column), except a line across the columns (a chapter
  title: a word crosses a column boundary, or no gap there is wider than
  the body type; or a heading in the first column with nothing beside it),
  whose right edge is the last column's.
- Words are regrouped into lines by the centres of their boxes (within 0.3
  of the word height; a code span in another face and size stays in its
  line), left to right. Characters per line: the mean length (words and
  one space between each) of the full justified lines.
- The body type is, among the four commonest heights of words not in a
  monospaced font, the one whose lines most often end at one right edge
  (the font of each word comes from pdftohtml -xml; poppler derives a
  word's height from the font's ascent and descent times its size, so it
  differs between faces and sizes; tables and code do not share an edge). A line is a *body* line when most of its words
  have the body height, or all its words have it or are monospaced (text
  with code spans); code blocks (another face and size), footnotes,
  headings, running heads and folios are therefore not body lines. A heading
  is a line whose words are taller than the body by 12% or more. A table
  row is a body line whose gaps between text words differ (one more than
  twice another and wider than two spaces: a justified line stretches all
  its spaces alike; a line around an inline image is one too): not a body
  line, but checked for the margin.
- A list item's marker (bullet, "1.", "a)") is not a word: the gap after it
  is left out; contents lines (leader dots) are not full lines.
- The text block's left and right edges are the modes of body lines' left
  and right ends, separately for odd and even pages (inner/outer margins).
- A *full justified line* is a body line with two or more words that ends
  at the right edge (within --tol points). A paragraph's last line (ragged)
  is therefore not one, nor is code (ragged, another face).
- The natural word space: --space PT, else the median gap between words on
  ragged body lines of three or more words (paragraphs' last lines, set at
  natural spacing); with fewer than 20 such gaps, the median over all body
  lines (a warning: the ratios then centre on 1 by construction).
- The space ratio of a full line is its mean gap between words divided by
  the natural space. Lines holding a URL-like word (://, www., or a slash
  path) or a word of another face (inline code) are counted separately as
  "unbreakable" and left out of the maximum check (not of the percentiles).
- Also left out (and counted as "forced loose"): the first line of a
  paragraph (or list item) when even the least of the next line's first
  word that could join it (the whole word, or its first fragment before a
  hyphenation point or explicit hyphen, plus a hyphen; libhyphen with the
  same dictionary and 2/3 minimum fragments as src/hyphen.c, --lang, default
  en; fragment widths in proportion to characters) would not fit even with
  every space shrunk to --min-space (0.5) of the natural width: no breaking
  avoids that line's looseness without letter-spacing or breaking a word
  where it may not break.
- The checked p95 and max are over the full lines minus the unbreakable
  and forced-loose ones; p50, the counts and "p95 (all)" are over all.
- Past the margin: any body, code or heading line whose right end is beyond
  the right edge by more than --tol.
- Ragged lines: a body line of 3+ words short of the right edge, not
  ending a sentence, followed one leading below by a body line at the same
  left end (or less its paragraph indent) that is not a list item's first (a line set ragged because it
  was too loose to justify; a paragraph's last line followed by an
  unindented paragraph may count too): printed, not checked.
- Hyphen runs: consecutive lines of body text (in reading order, across
  pages) ending in '-', U+00AD or U+2010; a run of 3 or more is counted.
- Frame-end hyphens: frames (pages, or columns) whose last line of text
  (footnotes, running head and folio set aside) is a full body line
  ending in a hyphen, with text in a later frame.
- Pages: the running head (the first line, not a heading, when more than
  1.5 body leadings above the next and it holds a folio or is small type), the folio (a last non-body
  line of at most 3 words, one a number) and the footnotes (the trailing
  non-body lines after such a gap when the first starts with a note number
  or mark) are set aside; tables, code and figures after a heading are not. A paragraph continues past a line when that line is a
  body line ending at the right edge. Widow: a page whose first line is a
  ragged body line (a paragraph's last line) continuing the previous page's
  last line. Orphan: a page whose last line is a paragraph's first line (the
  first body line of the page, or one after a ragged line, a non-body line,
  or a vertical gap) and continues onto the next page. Stranded heading: a
  page whose last line is a heading. Only pages with 3 or more full lines
  are checked for these (title, contents and short pages are not).

Options: --columns N, --space PT, --tol PT (0.6), --lang L, --min-space R,
--json, thresholds
--max-p95 R, --max-max R, --max-past-margin N, --max-hyphen-runs N,
--max-widows N, --max-orphans N, --max-stranded N, and --beats OTHER.pdf
(this PDF's mean ratio must be lower than OTHER's, with no more lines over
1.5, and a p95 no more than 0.1 above: on a book with few full lines the
p95 is one or two lines), --verbose
(prints the worst lines and every page problem).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/1999/xhtml}'
HYPHENS = ('-', '\u00ad', '\u2010')
URLISH = re.compile(r'://|^www\.|\w/\w.*/|\w+\.\w+/')
FOLIO = re.compile(r'^([0-9]+|[ivxlcdm]+)$', re.I)
NOTE = re.compile(r'^([0-9]+[.)]?|[a-z]{1,2}$|[*\u2020\u2021\u00a7])')
LEADER = re.compile(r'^[.\u2026\u00b7]+$')
MARKER = re.compile(r'^([\u2022\u25e6\u25aa\u2013\u2014*-]|\d+[.)]|[a-zA-Z][.)]|[ivxIVX]+[.)])$')


class Hyphenator:
    """libhyphen through ctypes, with the same dictionary and minimum
    fragments (2 before, 3 after) as src/hyphen.c; None when unavailable."""
    def __init__(self, lang):
        import ctypes
        self.ct = ctypes
        ll, _, cc = lang.replace('_', '-').partition('-')
        names = ['hyph_%s_%s.dic' % (ll, cc.upper())] if cc else []
        names += ['hyph_%s.dic' % ll, 'hyph_%s_%s.dic' % (ll, {'en': 'US', 'de': 'DE'}.get(ll, 'XX'))]
        self.d = None
        try:
            self.lib = ctypes.CDLL('libhyphen.so.0')
        except OSError:
            return
        self.lib.hnj_hyphen_load.restype = ctypes.c_void_p
        self.lib.hnj_hyphen_load.argtypes = [ctypes.c_char_p]
        self.lib.hnj_hyphen_hyphenate2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                                   ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p,
                                                   ctypes.c_void_p, ctypes.c_void_p]
        for n in names:
            try:
                open('/usr/share/hyphen/' + n).close()
            except OSError:
                continue
            self.d = self.lib.hnj_hyphen_load(('/usr/share/hyphen/' + n).encode())
            if self.d:
                break

    def first_point(self, word):
        """The number of characters of word before its first hyphenation
        point or explicit hyphen, or None when it has none (0 when libhyphen
        is missing: then every word counts as breakable)."""
        if not self.d:
            return 0
        for m in re.finditer(r'[-\u2010\u2013\u2014]', word):
            if 0 < m.end() < len(word):
                return m.end()
        for m in re.finditer(r'[^\W\d_]+', word):
            run = m.group(0)
            if len(run) < 5 or any(c.isupper() for c in run[1:]):
                continue
            b = run.lower().encode()
            hy = self.ct.create_string_buffer(len(b) + 5)
            rep, pos, cut = self.ct.c_void_p(), self.ct.c_void_p(), self.ct.c_void_p()
            if self.lib.hnj_hyphen_hyphenate2(self.d, b, len(b), hy, None, self.ct.byref(rep),
                                              self.ct.byref(pos), self.ct.byref(cut)) != 0:
                continue
            text = b.decode()
            for i in range(2, len(text) - 2):
                if hy.raw[len(text[:i].encode()) - 1] & 1:
                    return m.start() + i
        return None


class Line:
    def __init__(self, words, page):
        self.words = sorted(words, key=lambda w: w['x0'])
        self.page = page
        self.col = 0
        self.span = False  # across the columns
        self.x0 = self.words[0]['x0']
        self.x1 = self.words[-1]['x1']
        self.y0 = min(w['y0'] for w in self.words)
        self.y1 = max(w['y1'] for w in self.words)
        # (code in another face has another box: the text's words set the base)
        self.base = statistics.median(w['y1'] for w in (
            [w for w in self.words if not w['mono']] or self.words))
        self.text = ' '.join(w['t'] for w in self.words)
        self.kind = 'other'  # body, heading, other
        self.full = False
        self.ratio = None

    def height(self):
        return statistics.median(w['y1'] - w['y0'] for w in self.words)

    def ends_hyphen(self):
        return self.words[-1]['t'].endswith(HYPHENS)


MONO = re.compile(r'mono|courier|code|consol', re.I)


def read_fonts(pdf):
    """Per page, the text chunks of pdftohtml -xml (points, zoom 1) with
    whether their font is monospaced; [] when pdftohtml is missing."""
    try:
        out = subprocess.run(['pdftohtml', '-xml', '-i', '-q', '-zoom', '1', '-stdout', pdf],
                             check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    root = ET.fromstring(out)
    mono = {}
    pages = []
    for pg in root.iter('page'):
        for fs in pg.iter('fontspec'):
            mono[fs.get('id')] = bool(MONO.search(fs.get('family', '')))
        chunks = []
        for t in pg.iter('text'):
            x, y = float(t.get('left')), float(t.get('top'))
            chunks.append((x, y, x + float(t.get('width')), y + float(t.get('height')),
                           mono.get(t.get('font'), False)))
        pages.append(chunks)
    return pages


def body_pages(pdf):
    """The range of pages numbered in arabic figures (page labels), as
    (first, end): the title page and the contents before them and a page
    labelled with a word after them (the colophon) are display type or
    back matter, not running text, and are not measured. (0, None) when the
    PDF has no labels."""
    try:
        j = json.loads(subprocess.run(['qpdf', '--json', '--json-key=pagelabels', pdf],
                                      capture_output=True, text=True, check=True).stdout)
    except (subprocess.CalledProcessError, ValueError, FileNotFoundError):
        return 0, None
    first, end = 0, None
    for r in sorted(j.get('pagelabels', []), key=lambda r: r['index']):
        if r.get('label', {}).get('/S') == '/D' and end is None:
            first = r['index']
            end = -1
        elif end == -1:
            end = r['index']
    return first, (None if end == -1 else end)


_BBOX = {}


def bbox_layout(pdf):
    """pdftotext -bbox-layout of the whole PDF, as bytes; the last PDF's
    is kept (quality_table.py reads the page fullness from the same text)."""
    key = (os.path.abspath(pdf), os.stat(pdf).st_mtime_ns)
    if key not in _BBOX:
        _BBOX.clear()
        _BBOX[key] = subprocess.run(['pdftotext', '-bbox-layout', pdf, '-'], check=True,
                                    capture_output=True).stdout
    return _BBOX[key]


def read_pages(pdf):
    out = bbox_layout(pdf)
    skip, end = body_pages(pdf)
    root = ET.fromstring(out)
    fonts = read_fonts(pdf)
    pages = []
    for i, pg in enumerate(root.iter(NS + 'page')):
        chunks = fonts[i] if i < len(fonts) else []
        words = []
        for w in (pg.iter(NS + 'word') if i >= skip and (end is None or i < end) else ()):
            t = w.text or ''
            d = {'x0': float(w.get('xMin')), 'x1': float(w.get('xMax')),
                 'y0': float(w.get('yMin')), 'y1': float(w.get('yMax')), 't': t, 'mono': False}
            cx, cy = (d['x0'] + d['x1']) / 2, (d['y0'] + d['y1']) / 2
            for c in chunks:
                if c[0] - 1 <= cx <= c[2] + 1 and c[1] - 1 <= cy <= c[3] + 1:
                    d['mono'] = c[4]
                    break
            words.append(d)
        pages.append((float(pg.get('width')), words))
    return pages


def group_lines(words, page, columns, width, body_h):
    """Lines by the centres of the word boxes. Words of body size or larger make the lines; a
    smaller word (a footnote mark, a superscript) joins the line whose
    vertical extent holds its middle, else it starts lines of its own."""
    cols = [[] for _ in range(columns)]
    spanning = set()
    if columns > 1:
        # A line across the columns (a chapter title over both): words on
        # one baseline with one crossing a column boundary, or with no gap
        # wider than the body type's height at it. Its words stay together
        # (column 0, marked span).
        cuts = [width * k / columns for k in range(1, columns)]
        ws = sorted(words, key=lambda w: (w['y1'], w['x0']))
        k = 0
        while k < len(ws):
            m = k + 1
            while m < len(ws) and abs(ws[m]['y1'] - ws[k]['y1']) <= 0.3 * (ws[k]['y1'] - ws[k]['y0']):
                m += 1
            row = sorted(ws[k:m], key=lambda w: w['x0'])
            for cut in cuts:
                left = [w for w in row if (w['x0'] + w['x1']) / 2 < cut]
                right = [w for w in row if (w['x0'] + w['x1']) / 2 >= cut]
                if left and right and (any(w['x0'] < cut < w['x1'] for w in row) or
                                       right[0]['x0'] - left[-1]['x1'] < body_h):
                    spanning.update(id(w) for w in row)
            k = m
    for w in words:
        c = 0 if id(w) in spanning else min(columns - 1, int((w['x0'] + w['x1']) / 2 / (width / columns)))
        cols[c].append(w)
    lines = []
    for ci, col in enumerate(cols):
        big = [w for w in col if w['y1'] - w['y0'] >= 0.8 * body_h]
        small = [w for w in col if w['y1'] - w['y0'] < 0.8 * body_h]
        groups = []
        for ws in (big, None):
            if ws is None:
                # Attach small words, then group the rest among themselves.
                rest = []
                for w in small:
                    mid = (w['y0'] + w['y1']) / 2
                    # (any word of the group may come first: the sort key is
                    # the centre, whose last digits differ between words)
                    # (poppler's boxes of consecutive lines overlap: the
                    # line whose centre is nearest)
                    homes = [g for g in groups if g[0]['y0'] <= mid <= g[0]['y1']
                             and min(x['x0'] for x in g) - 2 * body_h <= w['x1'] and
                             w['x0'] <= max(x['x1'] for x in g) + 2 * body_h]
                    home = min(homes, key=lambda g: abs((g[0]['y0'] + g[0]['y1']) / 2 - mid), default=None)
                    if home is not None:
                        home.append(w)
                    else:
                        rest.append(w)
                ws = rest
            # by the centre of the boxes: a code span (another face, another
            # size, another baseline in poppler's boxes) stays in its line
            ctr = lambda w: (w['y0'] + w['y1']) / 2
            ws.sort(key=lambda w: (ctr(w), w['x0']))
            cur = []
            for w in ws:
                h = w['y1'] - w['y0']
                if cur and abs(ctr(w) - ctr(cur[-1])) <= 0.3 * max(h, cur[-1]['y1'] - cur[-1]['y0']):
                    cur.append(w)
                else:
                    if cur:
                        groups.append(cur)
                    cur = [w]
            if cur:
                groups.append(cur)
        for g in groups:
            ln = Line(g, page)
            ln.col = ci
            ln.span = any(id(w) in spanning for w in g)
            lines.append(ln)
    lines.sort(key=lambda ln: (ln.col, ln.base))
    return lines


def mode(values, step):
    counts = {}
    for v in values:
        k = round(v / step)
        counts[k] = counts.get(k, 0) + 1
    if not counts:
        return None
    k = max(counts, key=lambda k: (counts[k], k))
    return k * step


def pct(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def measure(pdf, args):
    pages = read_pages(pdf)
    heights = [w['y1'] - w['y0'] for _, ws in pages for w in ws if not w['mono']]
    if not heights:
        return {'error': 'no text'}
    # Candidate body types: the commonest word heights. The body is the one
    # whose lines most often end at one right edge (justified running text),
    # not a table's or a list of code's.
    counts = {}
    for h in heights:
        counts[round(h / 0.05)] = counts.get(round(h / 0.05), 0) + 1
    cands = sorted(counts, key=lambda k: -counts[k])[:4]
    body_h, best = None, -1
    # (on a long book, two facing pages in every 2 * step decide: some 40
    # pages of each parity tell the body as well as all, in a fifth of the
    # time)
    step = max(1, len(pages) // 80)
    sample = [i for i in range(len(pages)) if i % (2 * step) < 2]
    for k in cands:
        h = k * 0.05
        ls = []
        for i in sample:
            width, words = pages[i]
            ls.extend(group_lines(words, i, args.columns, width, h))
        same = [ln for ln in ls if len(ln.words) >= 3 and
                all(not w['mono'] and abs((w['y1'] - w['y0']) - h) <= 0.03 * h for w in ln.words)]
        score = 0
        for par in (0, 1):
            for col in range(args.columns):
                xs = [ln.x1 for ln in same if ln.page % 2 == par and ln.col == col]
                m = mode(xs, 0.25)
                score += sum(1 for x in xs if abs(x - m) <= args.tol)
        if score > best:
            body_h, best = h, score
    all_lines = []
    per_page = []
    for i, (width, words) in enumerate(pages):
        ls = group_lines(words, i, args.columns, width, body_h)
        per_page.append(ls)
        all_lines.extend(ls)

    def is_body_word(w):
        return not w['mono'] and abs((w['y1'] - w['y0']) - body_h) <= 0.03 * body_h

    for ln in all_lines:
        nb = sum(1 for w in ln.words if is_body_word(w))
        # (a line of text whose code spans outnumber its words is text too)
        if nb * 2 > len(ln.words) or (nb and all(is_body_word(w) or w['mono'] for w in ln.words)):
            ln.kind = 'body'
            # A table row (or a line around an inline image): gaps between
            # text words of unequal widths, one wider than two spaces; a
            # justified line stretches all its spaces alike. (Code spans
            # keep their own spaces; a list marker's gap is the indent.)
            ws = ln.words[1:] if MARKER.match(ln.words[0]['t']) else ln.words
            g = [b['x0'] - a['x1'] for a, b in zip(ws, ws[1:]) if not a['mono'] and not b['mono']]
            if len(g) >= 2 and max(g) > 2 * max(min(g), 0.05 * body_h) and max(g) > 0.4 * body_h:
                ln.kind = 'table'
        elif any(not w['mono'] for w in ln.words) and statistics.median(
                w['y1'] - w['y0'] for w in ln.words if not w['mono']) >= body_h * 1.12:
            # (by its words in the text face: a line of code is no heading,
            # whatever the height poppler gives the monospaced face's boxes;
            # a heading may hold code, "Using alloc")
            ln.kind = 'heading'
    # Edges per page parity and column.
    edges = {}
    # (table rows, and lines around inline images, too when no column has
    # 3 body lines at one edge: a small book of examples)
    for kinds in (('body',), ('body', 'table')):
        for par in (0, 1):
            for col in range(args.columns):
                body = [ln for ln in all_lines if ln.kind in kinds and ln.page % 2 == par and ln.col == col]
                # Lines with spaces in them set the edge (a broken 1 MB word does not).
                body = [ln for ln in body if len(ln.words) >= 3] or body
                if body:
                    x1 = mode([ln.x1 for ln in body], 0.25)
                    edges[par, col] = (mode([ln.x0 for ln in body], 0.25), x1,
                                       sum(1 for ln in body if abs(ln.x1 - x1) <= args.tol))
        if edges and max(e[2] for e in edges.values()) >= 3:
            break
    if not edges:
        return {'error': 'no body text'}
    # A column with fewer than 3 lines at its right edge (a short page of a
    # small book: its mode is a ragged line's end) gets the width of the
    # best-attested column from its left edge: columns share one width.
    # Where no column has 3 (a book of a few lines), the widest line with
    # spaces, from its column's left edge, gives the width.
    kb = max(edges, key=lambda k: edges[k][2])
    x0, x1, best = edges[kb]
    # (the width from the leftmost start: a mode of x0 may be an indent or
    # a right-to-left line's start)
    x0 = min([ln.x0 for ln in all_lines if ln.kind == 'body' and (ln.page % 2, ln.col) == kb and
              abs(ln.x1 - x1) <= args.tol] or [x0])
    if best < 3:
        # (and the left edge is the leftmost start: a mode of three lines may be an indent;
        # of lines with spaces in them, as the width below: a folio centred in the gutter,
        # one word, taken as body text by a few hundredths of a point, is not the column's)
        for k, e in list(edges.items()):
            starts = [ln for ln in all_lines if ln.kind in ('body', 'table') and (ln.page % 2, ln.col) == k]
            edges[k] = (min([ln.x0 for ln in starts if len(ln.words) >= 3] or
                            [ln.x0 for ln in starts] or [e[0]]), e[1], e[2])
        x0, x1 = 0, max([ln.x1 - edges[ln.page % 2, ln.col][0] for ln in all_lines
                         if ln.kind in ('body', 'table') and len(ln.words) >= 3 and
                         (ln.page % 2, ln.col) in edges] or [x1 - x0])
    for k, e in edges.items():
        edges[k] = (e[0], e[1] if e[2] >= 3 else e[0] + x1 - x0)
    for par in (0, 1):
        for col in range(args.columns):
            if (par, col) not in edges:
                edges[par, col] = edges.get((1 - par, col)) or next(iter(edges.values()))
    # Body leading: the mode of baseline steps between consecutive body lines.
    steps = []
    for ls in per_page:
        b = [ln for ln in ls if ln.kind == 'body']
        for a, c in zip(b, b[1:]):
            if 0 < c.base - a.base < 4 * body_h:
                steps.append(c.base - a.base)
    leading = mode(steps, 0.05) or body_h * 1.3

    tol = args.tol

    def right(ln):
        return edges[ln.page % 2, ln.col][1]

    def left(ln):
        return edges[ln.page % 2, ln.col][0]

    def reaches(ln):
        return ln.x1 >= right(ln) - tol

    for ln in all_lines:
        # Leader dots (a contents line) are not word spaces.
        leaders = sum(1 for w in ln.words if LEADER.match(w['t']))
        ln.full = ln.kind == 'body' and len(ln.words) >= 2 and reaches(ln) and leaders < 3

    # The natural space.
    space_from = 'given'
    if args.space:
        space = args.space
    else:
        gaps = []
        for ln in all_lines:
            if ln.kind == 'body' and len(ln.words) >= 3 and not reaches(ln) \
                    and all(is_body_word(w) for w in ln.words):
                gaps.extend(b['x0'] - a['x1'] for a, b in zip(ln.words, ln.words[1:]))
        space_from = 'ragged lines'
        if len(gaps) < 20:
            # Too few ragged lines (one long paragraph): all body lines.
            # Then the ratios centre on 1 by construction; pass --space.
            space_from = 'all lines (pass --space)'
            gaps = [b['x0'] - a['x1'] for ln in all_lines if ln.kind == 'body' and len(ln.words) >= 3
                    for a, b in zip(ln.words, ln.words[1:])]
        # a gap of less than half a point is no word space: CJK characters
        # that a justified line spread apart, which pdftotext cuts into words
        gaps = [g for g in gaps if g >= 0.5]
        space = statistics.median(gaps) if gaps else body_h * 0.25

    ratios, kept, unbreakable = [], [], []
    for ln in all_lines:
        if not ln.full:
            continue
        g = [b['x0'] - a['x1'] for a, b in zip(ln.words, ln.words[1:])]
        if MARKER.match(ln.words[0]['t']) and len(g) > 1:
            g = g[1:]  # a list item's marker: its gap is the list indent
        ln.ratio = (sum(g) / len(g)) / space
        ratios.append(ln.ratio)
        odd = any(URLISH.search(w['t']) for w in ln.words) or \
            any(not is_body_word(w) for w in ln.words)
        (unbreakable if odd else kept).append(ln)

    past = [ln for ln in all_lines if ln.kind != 'other' or ln.height() < body_h]
    # A line across the columns ends at the last column's edge; a line that
    # starts past its column's edge (a folio centred in the gutter) is not
    # the column's.
    # A heading in the first column with nothing beside it in the others
    # spans them too (a title narrower than the page's middle).
    for ln in all_lines:
        if args.columns > 1 and ln.kind == 'heading' and ln.col == 0 and not any(
                o.col > 0 and o.y0 < ln.y1 and o.y1 > ln.y0 for o in per_page[ln.page]):
            ln.span = True
    past = [ln for ln in past if ln.x0 >= left(ln) - 40 and ln.x0 < right(ln) and
            ln.x1 > (edges[ln.page % 2, args.columns - 1][1] if ln.span else right(ln)) + tol]

    # Page structure: set aside running heads, folios, footnotes. With
    # columns, each column of a page is a frame of its own, in reading order.
    frames = [[ln for ln in ls if ln.col == col] for ls in per_page for col in range(args.columns)]
    content = []
    for ls in frames:
        ls = sorted(ls, key=lambda ln: ln.base)
        main = [k for k, ln in enumerate(ls) if ln.kind in ('body', 'heading')]
        if not main:
            content.append([])
            continue
        # The running head: the first line, when a gap follows it and it
        # holds the folio or is small type (not a heading; a code block
        # after the head stays: it is the frame's first content).
        a = 0
        if len(ls) > 1 and len(ls[0].words) <= 10 and ls[1].base - ls[0].base > 1.5 * leading and \
                ls[0].kind != 'heading' and (ls[0].kind == 'other' or FOLIO.match(ls[0].words[0]['t']) or
                                             FOLIO.match(ls[0].words[-1]['t'])):
            a = 1
        # From the foot: the folio, then a footnote block (small type after
        # a gap, its first line starting with a note number or mark).
        b = len(ls) - 1
        # (a folio in the body face is a body line: a lone number after a gap)
        if b > a and (ls[b].kind != 'body' or ls[b].base - ls[b - 1].base > 1.5 * leading) and \
                len(ls[b].words) <= 3 and any(FOLIO.match(w['t']) for w in ls[b].words):
            b -= 1
        k = b
        while k > a and ls[k].kind == 'other':
            if ls[k].base - ls[k - 1].base > 1.5 * leading:
                # (a note's mark is in the text face: a code block whose
                # first word is "cd" is no footnote)
                if NOTE.match(ls[k].words[0]['t']) and not ls[k].words[0]['mono']:
                    b = k - 1
                break
            k -= 1
        content.append(ls[a:b + 1])

    # Loose lines that no breaking could avoid: the first line of a
    # paragraph (nothing earlier can move down onto it) whose next word has
    # no hyphenation point and would not fit even with every space at
    # --min-space of the natural width.
    hyph = Hyphenator(args.lang)
    order = [ln for ls in content for ln in ls]
    forced = []
    for k, ln in enumerate(order):
        if ln.ratio is None or ln.ends_hyphen() or k + 1 >= len(order):
            continue
        nxt = order[k + 1]
        prev = order[k - 1] if k > 0 else None
        first = MARKER.match(ln.words[0]['t']) or prev is None or prev.kind != 'body' or \
            not reaches(prev) or (prev.page == ln.page and ln.base - prev.base > 1.3 * leading)
        if not first or nxt.kind != 'body':
            continue
        words = ln.words
        fixed = 0.0
        if MARKER.match(words[0]['t']) and len(words) > 2:
            fixed = words[1]['x0'] - words[0]['x1']
        gaps = len(words) - 1 - (1 if fixed else 0)
        ink = sum(w['x1'] - w['x0'] for w in words)
        # The least of the next word that could come up: all of it, or its
        # first fragment and a hyphen (widths in proportion to characters).
        w0 = nxt.words[0]
        ww = w0['x1'] - w0['x0']
        cut = hyph.first_point(w0['t'])
        least = ww if cut is None else ww * cut / max(1, len(w0['t'])) + space
        need = ink + fixed + (gaps + 1) * space * args.min_space + least
        if need > right(ln) - ln.x0:
            forced.append(ln)

    # Lines set ragged inside a paragraph (too loose to justify, issue 16):
    # a body line of 3+ words short of the edge, followed one leading
    # below in its frame by a body line at the same left end that is no
    # list item's first line (a new paragraph is indented or after a gap).
    ragged = []
    for ls in content:
        for a, b in zip(ls, ls[1:]):
            # (a list item's text starts after its marker)
            ax0 = a.words[1]['x0'] if MARKER.match(a.words[0]['t']) and len(a.words) > 1 else a.x0
            if a.kind == 'body' and b.kind == 'body' and len(a.words) >= 3 and not reaches(a) and \
                    abs((b.base - a.base) - leading) < 0.2 * leading and -1 < ax0 - b.x0 < 2 * body_h and \
                    not MARKER.match(b.words[0]['t']) and not a.text.endswith(('.', '!', '?')):
                ragged.append(a)

    # Hyphen runs over body lines in reading order.
    runs, run = [], 0
    for ls in content:
        for ln in ls:
            if ln.kind != 'body':
                if run >= 3:
                    runs.append(run)
                run = 0
                continue
            if ln.ends_hyphen() and reaches(ln):
                run += 1
            else:
                if run >= 3:
                    runs.append(run)
                run = 0
    if run >= 3:
        runs.append(run)

    def text_x0(ln):
        # where a line's text starts: after a list item's marker
        return ln.words[1]['x0'] if MARKER.match(ln.words[0]['t']) and len(ln.words) > 1 else ln.x0

    widows, orphans, stranded = [], [], []
    for p, ls in enumerate(content):
        if not ls or sum(1 for ln in ls if ln.full) < 3:
            continue
        last = ls[-1]
        if last.kind == 'heading':
            stranded.append((last.page, last.text))
        nxt = next((c for c in content[p + 1:] if c), None)
        if nxt is None:
            continue
        # (a right-to-left paragraph starts and indents at the right: the
        # left-edge tests below do not read it; since issue 28 poppler also
        # gives its glyphs one word each)
        rtl = re.search('[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]', last.text)
        if last.kind == 'body' and reaches(last) and not rtl:
            first = nxt[0]
            # Is `last` the first line of its paragraph? (A short line
            # before it at the same left end, no list item's, ends no
            # paragraph: a paragraph after a paragraph is indented; it is a
            # line that could not be justified, as in Thai, whose words
            # have no spaces between them.)
            k = len(ls) - 1
            prev = ls[k - 1] if k > 0 else None
            same_start = prev is not None and not MARKER.match(last.words[0]['t']) and \
                abs((last.x0 - left(last)) - (text_x0(prev) - left(prev))) < 1
            para_start = prev is None or prev.kind != 'body' or \
                (not reaches(prev) and prev not in ragged and not same_start) or \
                last.base - prev.base > 1.3 * leading
            # The next frame's first line continues the paragraph when it
            # starts where the paragraph's lines do: a list item's text
            # indent, a continuation line's own, else the frame's edge.
            want = text_x0(last) - left(last) if MARKER.match(last.words[0]['t']) else \
                0 if para_start else last.x0 - left(last)
            continues = first.kind == 'body' and abs(first.x0 - left(first) - want) < 2 and \
                not MARKER.match(first.words[0]['t'])
            # (a line set ragged inside its paragraph is no last line, nor is
            # one the paragraph's next line follows at its indent, one leading
            # below: a short line before a long unbreakable code span)
            second = nxt[1] if len(nxt) > 1 else None
            # (a line of code spans alone is no body line: kind 'other')
            goes_on = second is not None and second.kind in ('body', 'other') and \
                abs(second.x0 - first.x0) < 2 and second.base - first.base <= 1.3 * leading and \
                not MARKER.match(second.words[0]['t'])
            if continues and not reaches(first) and first not in ragged and not goes_on:
                widows.append((first.page, first.text))
            if para_start and continues:
                orphans.append((last.page, last.text))

    # Hyphens at frame ends: a frame (a page or a column) whose last line of
    # text is a body line broken at a hyphen, with text after it (TeX's
    # \brokenpenalty makes such a break costly).
    frame_hyphens = []
    for p, ls in enumerate(content):
        if ls and ls[-1].kind == 'body' and ls[-1].ends_hyphen() and reaches(ls[-1]) and \
                any(content[p + 1:]):
            frame_hyphens.append((ls[-1].page, ls[-1].text))

    fair = [ln.ratio for ln in kept if ln not in forced]
    res = {
        'pdf': pdf, 'pages': len(pages), 'body_height': round(body_h, 2),
        'leading': round(leading, 2), 'space': round(space, 3), 'space_from': space_from,
        'full_lines': len(ratios),
        'chars_per_line': round(statistics.mean(len(ln.text) for ln in all_lines if ln.full), 1)
        if ratios else 0,
        'p5': round(pct(fair, 5), 3), 'min': round(min(fair, default=0), 3),
        'p50': round(pct(ratios, 50), 3), 'p95': round(pct(fair, 95), 3),
        'p95_all': round(pct(ratios, 95), 3),
        'mean': round(statistics.mean(ratios), 3) if ratios else 0,
        'max': round(max((ln.ratio for ln in kept if ln not in forced), default=0), 3),
        'max_all': round(max(ratios, default=0), 3),
        'over_1_5': sum(1 for r in ratios if r > 1.5),
        'over_2': sum(1 for r in ratios if r > 2.0),
        'unbreakable': len(unbreakable),
        'unbreakable_over_2': sum(1 for ln in unbreakable if ln.ratio > 2.0),
        'forced_loose': len(forced),
        'forced_loose_over_1_5': sum(1 for ln in forced if ln.ratio > 1.5),
        'forced_loose_over_2': sum(1 for ln in forced if ln.ratio > 2.0),
        'past_margin': len(past), 'hyphen_runs': len(runs),
        'hyphen_lines': sum(1 for ls in content for ln in ls
                            if ln.kind == 'body' and ln.ends_hyphen() and reaches(ln)),
        'widows': len(widows), 'orphans': len(orphans), 'stranded_headings': len(stranded),
        'frame_end_hyphens': len(frame_hyphens), 'ragged': len(ragged),
    }
    if args.verbose:
        worst = sorted((ln for ln in all_lines if ln.ratio is not None),
                       key=lambda ln: -ln.ratio)[:8]
        res['forced_list'] = ['p%d %.2f %s' % (ln.page + 1, ln.ratio, ln.text[:60]) for ln in forced
                              if ln.ratio > 1.5]
        res['worst'] = ['p%d %.2f %s' % (ln.page + 1, ln.ratio, ln.text[:70]) for ln in worst]
        res['tightest'] = ['p%d %.2f %s' % (ln.page + 1, ln.ratio, ln.text[:70]) for ln in
                           sorted((ln for ln in kept if ln not in forced), key=lambda ln: ln.ratio)[:5]]
        res['loose'] = ['p%d %.2f %s' % (ln.page + 1, ln.ratio, ln.text[:70]) for ln in kept
                        if ln not in forced and ln.ratio > 1.5]
        res['past'] = ['p%d +%.1fpt %s' % (ln.page + 1, ln.x1 - right(ln), ln.text[:60]) for ln in past]
        res['widow_list'] = ['p%d %s' % (p + 1, t[:60]) for p, t in widows]
        res['orphan_list'] = ['p%d %s' % (p + 1, t[:60]) for p, t in orphans]
        res['stranded_list'] = ['p%d %s' % (p + 1, t[:60]) for p, t in stranded]
        res['ragged_list'] = ['p%d %s' % (ln.page + 1, ln.text[:60]) for ln in ragged]
        res['frame_hyphen_list'] = ['p%d %s' % (p + 1, t[:60]) for p, t in frame_hyphens]
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('pdf')
    ap.add_argument('--columns', type=int, default=1)
    ap.add_argument('--space', type=float)
    ap.add_argument('--tol', type=float, default=0.6)
    ap.add_argument('--lang', default='en')
    ap.add_argument('--min-space', type=float, default=0.5)
    ap.add_argument('--json', action='store_true')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--max-p95', type=float)
    ap.add_argument('--max-max', type=float)
    ap.add_argument('--max-past-margin', type=int)
    ap.add_argument('--max-hyphen-runs', type=int)
    ap.add_argument('--max-widows', type=int)
    ap.add_argument('--max-orphans', type=int)
    ap.add_argument('--max-stranded', type=int)
    ap.add_argument('--beats')
    args = ap.parse_args()

    res = measure(args.pdf, args)
    if 'error' in res:
        print('%s: %s' % (args.pdf, res['error']))
        sys.exit(1)
    other = measure(args.beats, args) if args.beats else None
    if args.json:
        print(json.dumps({'this': res, 'other': other} if other else res, indent=1))
    else:
        for r in ([res, other] if other else [res]):
            if r['space_from'].startswith('all'):
                print('%s: warning: natural space from %s' % (r['pdf'], r['space_from']))
            print('%s: %.1f chars/line' % (r['pdf'], r['chars_per_line']))
            print('%s: %d pages, %d full lines, space %.2fpt; ratio min %.2f p5 %.2f p50 %.2f p95 %.2f (all %.2f) max %.2f '
                  '(all %.2f), >1.5: %d, >2: %d; unbreakable %d, forced loose %d (>1.5: %d, >2: %d); '
                  'past margin %d; '
                  'hyphen runs %d (%d hyphenated lines); widows %d, orphans %d, stranded headings %d'
                  % (r['pdf'], r['pages'], r['full_lines'], r['space'], r['min'], r['p5'], r['p50'], r['p95'],
                     r['p95_all'], r['max'],
                     r['max_all'], r['over_1_5'], r['over_2'], r['unbreakable'], r['forced_loose'],
                     r['forced_loose_over_1_5'], r['forced_loose_over_2'], r['past_margin'],
                     r['hyphen_runs'], r['hyphen_lines'], r['widows'], r['orphans'],
                     r['stranded_headings']))
            if args.verbose:
                for k in ('worst', 'tightest', 'loose', 'forced_list', 'past', 'widow_list', 'orphan_list', 'stranded_list',
                          'ragged_list'):
                    for s in r.get(k, []):
                        print('  %s: %s' % (k, s))
    fails = []

    def check(name, value, limit):
        if limit is not None and value > limit:
            fails.append('%s %s > %s' % (name, value, limit))
    check('p95', res['p95'], args.max_p95)
    check('max', res['max'], args.max_max)
    check('past_margin', res['past_margin'], args.max_past_margin)
    check('hyphen_runs', res['hyphen_runs'], args.max_hyphen_runs)
    check('widows', res['widows'], args.max_widows)
    check('orphans', res['orphans'], args.max_orphans)
    check('stranded_headings', res['stranded_headings'], args.max_stranded)
    if other:
        if not (res['mean'] < other['mean'] and res['over_1_5'] <= other['over_1_5']
                and res['p95'] <= other['p95'] + 0.1):
            fails.append('does not beat %s (mean %.3f vs %.3f, lines > 1.5 %d vs %d, p95 %.3f vs %.3f)'
                         % (args.beats, res['mean'], other['mean'], res['over_1_5'],
                            other['over_1_5'], res['p95'], other['p95']))
    if res['full_lines'] < 10:
        fails.append('only %d full justified lines found' % res['full_lines'])
    for f in fails:
        print('FAIL: %s: %s' % (args.pdf, f))
    sys.exit(1 if fails else 0)


if __name__ == '__main__':
    main()
