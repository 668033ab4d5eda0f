#!/usr/bin/env python3
"""measure_typography.py BOOK.pdf [options]: measures the typesetting of a
finished PDF from poppler's word boxes (pdftotext -bbox-layout), prints the
figures, and checks the thresholds given as options (exit 1 when one fails).

How it reads the page (single column unless --columns 2):
- Words are regrouped into lines by baseline (yMax within 0.3 of the word
  height), left to right.
- The body type is the most common word height (poppler derives a word's
  height from the font's ascent and descent times its size, so it differs
  between faces and sizes). A line is a *body* line when most of its words
  have the body height; code blocks (another face and size), footnotes,
  headings, running heads and folios are therefore not body lines. A heading
  is a line whose words are taller than the body by 12% or more.
- The text block's left and right edges are the modes of body lines' left
  and right ends, separately for odd and even pages (inner/outer margins).
- A *full justified line* is a body line with two or more words that ends
  at the right edge (within --tol points). A paragraph's last line (ragged)
  is therefore not one, nor is code (ragged, another face).
- The natural word space: --space PT, else the median gap between words on
  ragged body lines of three or more words (paragraphs' last lines, set at
  natural spacing).
- The space ratio of a full line is its mean gap between words divided by
  the natural space. Lines holding a URL-like word (://, www., or a slash
  path) or a word of another face (inline code) are counted separately as
  "unbreakable" and left out of the maximum check (not of the percentiles).
- Past the margin: any body, code or heading line whose right end is beyond
  the right edge by more than --tol.
- Hyphen runs: consecutive lines of body text (in reading order, across
  pages) ending in '-', U+00AD or U+2010; a run of 3 or more is counted.
- Pages: the running head (a non-body line above the first body/heading
  line, separated by more than 1.5 body leadings) and the folio and
  footnotes (non-body lines below the last body/heading line, after such a
  gap) are set aside. A paragraph continues past a line when that line is a
  body line ending at the right edge. Widow: a page whose first line is a
  ragged body line (a paragraph's last line) continuing the previous page's
  last line. Orphan: a page whose last line is a paragraph's first line (the
  first body line of the page, or one after a ragged line, a non-body line,
  or a vertical gap) and continues onto the next page. Stranded heading: a
  page whose last line is a heading. Only pages with 3 or more full lines
  are checked for these (title, contents and short pages are not).

Options: --columns N, --space PT, --tol PT (0.6), --json, thresholds
--max-p95 R, --max-max R, --max-past-margin N, --max-hyphen-runs N,
--max-widows N, --max-orphans N, --max-stranded N, and --beats OTHER.pdf
(this PDF's p95 and mean ratio must be lower than OTHER's), --verbose
(prints the worst lines and every page problem).
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/1999/xhtml}'
HYPHENS = ('-', '\u00ad', '\u2010')
URLISH = re.compile(r'://|^www\.|\w/\w.*/|\w+\.\w+/')


class Line:
    def __init__(self, words, page):
        self.words = sorted(words, key=lambda w: w['x0'])
        self.page = page
        self.x0 = self.words[0]['x0']
        self.x1 = self.words[-1]['x1']
        self.y0 = min(w['y0'] for w in self.words)
        self.y1 = max(w['y1'] for w in self.words)
        self.base = statistics.median(w['y1'] for w in self.words)
        self.text = ' '.join(w['t'] for w in self.words)
        self.kind = 'other'  # body, heading, other
        self.full = False
        self.ratio = None

    def height(self):
        return statistics.median(w['y1'] - w['y0'] for w in self.words)

    def ends_hyphen(self):
        return self.words[-1]['t'].endswith(HYPHENS)


def read_pages(pdf):
    out = subprocess.run(['pdftotext', '-bbox-layout', pdf, '-'], check=True,
                         capture_output=True).stdout
    root = ET.fromstring(out)
    pages = []
    for pg in root.iter(NS + 'page'):
        words = []
        for w in pg.iter(NS + 'word'):
            t = w.text or ''
            words.append({'x0': float(w.get('xMin')), 'x1': float(w.get('xMax')),
                          'y0': float(w.get('yMin')), 'y1': float(w.get('yMax')), 't': t})
        pages.append((float(pg.get('width')), words))
    return pages


def group_lines(words, page, columns, width):
    cols = [[] for _ in range(columns)]
    for w in words:
        c = min(columns - 1, int((w['x0'] + w['x1']) / 2 / (width / columns)))
        cols[c].append(w)
    lines = []
    for col in cols:
        col.sort(key=lambda w: (w['y1'], w['x0']))
        cur = []
        for w in col:
            h = w['y1'] - w['y0']
            if cur and abs(w['y1'] - cur[-1]['y1']) <= 0.3 * max(h, cur[-1]['y1'] - cur[-1]['y0']):
                cur.append(w)
            else:
                if cur:
                    lines.append(Line(cur, page))
                cur = [w]
        if cur:
            lines.append(Line(cur, page))
    # Within a column, top to bottom (superscripts may have put a line out of order).
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
    all_lines = []
    per_page = []
    for i, (width, words) in enumerate(pages):
        ls = group_lines(words, i, args.columns, width)
        per_page.append(ls)
        all_lines.extend(ls)
    heights = [w['y1'] - w['y0'] for _, ws in pages for w in ws]
    body_h = mode(heights, 0.05)
    if body_h is None:
        return {'error': 'no text'}

    def is_body_word(w):
        return abs((w['y1'] - w['y0']) - body_h) <= 0.03 * body_h

    for ln in all_lines:
        nb = sum(1 for w in ln.words if is_body_word(w))
        if nb * 2 > len(ln.words):
            ln.kind = 'body'
        elif ln.height() >= body_h * 1.12:
            ln.kind = 'heading'
    # Edges per page parity.
    edges = {}
    for par in (0, 1):
        body = [ln for ln in all_lines if ln.kind == 'body' and ln.page % 2 == par]
        if body:
            edges[par] = (mode([ln.x0 for ln in body], 0.25), mode([ln.x1 for ln in body], 0.25))
    if not edges:
        return {'error': 'no body text'}
    for par in (0, 1):
        edges.setdefault(par, edges[1 - par])
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
        return edges[ln.page % 2][1]

    def reaches(ln):
        return ln.x1 >= right(ln) - tol

    for ln in all_lines:
        ln.full = ln.kind == 'body' and len(ln.words) >= 2 and reaches(ln)

    # The natural space.
    if args.space:
        space = args.space
    else:
        gaps = []
        for ln in all_lines:
            if ln.kind == 'body' and len(ln.words) >= 3 and not reaches(ln) \
                    and all(is_body_word(w) for w in ln.words):
                gaps.extend(b['x0'] - a['x1'] for a, b in zip(ln.words, ln.words[1:]))
        space = statistics.median(gaps) if gaps else body_h * 0.25

    ratios, kept, unbreakable = [], [], []
    for ln in all_lines:
        if not ln.full:
            continue
        g = [b['x0'] - a['x1'] for a, b in zip(ln.words, ln.words[1:])]
        ln.ratio = (sum(g) / len(g)) / space
        ratios.append(ln.ratio)
        odd = any(URLISH.search(w['t']) for w in ln.words) or \
            any(not is_body_word(w) for w in ln.words)
        (unbreakable if odd else kept).append(ln)

    past = [ln for ln in all_lines if ln.kind != 'other' or ln.height() < body_h]
    past = [ln for ln in past if ln.x1 > right(ln) + tol and ln.x0 >= edges[ln.page % 2][0] - 40]

    # Page structure: set aside running heads, folios, footnotes.
    content = []
    for ls in per_page:
        ls = sorted(ls, key=lambda ln: ln.base)
        main = [k for k, ln in enumerate(ls) if ln.kind in ('body', 'heading')]
        if not main:
            content.append([])
            continue
        a, b = main[0], main[-1]
        while a > 0 and ls[a].base - ls[a - 1].base <= 1.5 * leading:
            a -= 1
        while b + 1 < len(ls) and ls[b + 1].base - ls[b].base <= 1.5 * leading:
            b += 1
        content.append(ls[a:b + 1])

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

    widows, orphans, stranded = [], [], []
    for p, ls in enumerate(content):
        if not ls or sum(1 for ln in ls if ln.full) < 3:
            continue
        last = ls[-1]
        if last.kind == 'heading':
            stranded.append((p, last.text))
        nxt = next((c for c in content[p + 1:] if c), None)
        if nxt is None:
            continue
        if last.kind == 'body' and reaches(last):
            first = nxt[0]
            continues = first.kind == 'body' and abs(first.x0 - edges[first.page % 2][0]) < 2
            if continues and not reaches(first):
                widows.append((first.page, first.text))
            # Is `last` the first line of its paragraph?
            k = len(ls) - 1
            prev = ls[k - 1] if k > 0 else None
            para_start = prev is None or prev.kind != 'body' or not reaches(prev) or \
                last.base - prev.base > 1.3 * leading
            if para_start and continues:
                orphans.append((p, last.text))

    res = {
        'pdf': pdf, 'pages': len(pages), 'body_height': round(body_h, 2),
        'leading': round(leading, 2), 'space': round(space, 3),
        'full_lines': len(ratios),
        'p50': round(pct(ratios, 50), 3), 'p95': round(pct(ratios, 95), 3),
        'mean': round(statistics.mean(ratios), 3) if ratios else 0,
        'max': round(max((ln.ratio for ln in kept), default=0), 3),
        'max_all': round(max(ratios, default=0), 3),
        'over_1_5': sum(1 for r in ratios if r > 1.5),
        'over_2': sum(1 for r in ratios if r > 2.0),
        'unbreakable': len(unbreakable),
        'unbreakable_over_2': sum(1 for ln in unbreakable if ln.ratio > 2.0),
        'past_margin': len(past), 'hyphen_runs': len(runs),
        'hyphen_lines': sum(1 for ls in content for ln in ls
                            if ln.kind == 'body' and ln.ends_hyphen() and reaches(ln)),
        'widows': len(widows), 'orphans': len(orphans), 'stranded_headings': len(stranded),
    }
    if args.verbose:
        worst = sorted((ln for ln in all_lines if ln.ratio is not None),
                       key=lambda ln: -ln.ratio)[:8]
        res['worst'] = ['p%d %.2f %s' % (ln.page + 1, ln.ratio, ln.text[:70]) for ln in worst]
        res['past'] = ['p%d +%.1fpt %s' % (ln.page + 1, ln.x1 - right(ln), ln.text[:60]) for ln in past]
        res['widow_list'] = ['p%d %s' % (p + 1, t[:60]) for p, t in widows]
        res['orphan_list'] = ['p%d %s' % (p + 1, t[:60]) for p, t in orphans]
        res['stranded_list'] = ['p%d %s' % (p + 1, t[:60]) for p, t in stranded]
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('pdf')
    ap.add_argument('--columns', type=int, default=1)
    ap.add_argument('--space', type=float)
    ap.add_argument('--tol', type=float, default=0.6)
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
            print('%s: %d pages, %d full lines, space %.2fpt; ratio p50 %.2f p95 %.2f max %.2f '
                  '(all %.2f), >1.5: %d, >2: %d; unbreakable %d; past margin %d; '
                  'hyphen runs %d (%d hyphenated lines); widows %d, orphans %d, stranded headings %d'
                  % (r['pdf'], r['pages'], r['full_lines'], r['space'], r['p50'], r['p95'], r['max'],
                     r['max_all'], r['over_1_5'], r['over_2'], r['unbreakable'], r['past_margin'],
                     r['hyphen_runs'], r['hyphen_lines'], r['widows'], r['orphans'],
                     r['stranded_headings']))
            if args.verbose:
                for k in ('worst', 'past', 'widow_list', 'orphan_list', 'stranded_list'):
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
        if not (res['p95'] < other['p95'] and res['mean'] < other['mean']):
            fails.append('does not beat %s (p95 %.3f vs %.3f, mean %.3f vs %.3f)'
                         % (args.beats, res['p95'], other['p95'], res['mean'], other['mean']))
    if res['full_lines'] < 10:
        fails.append('only %d full justified lines found' % res['full_lines'])
    for f in fails:
        print('FAIL: %s: %s' % (args.pdf, f))
    sys.exit(1 if fails else 0)


if __name__ == '__main__':
    main()
