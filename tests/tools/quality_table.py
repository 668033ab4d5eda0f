#!/usr/bin/env python3
"""quality_table.py OCTAVO BOOK.md OUTDIR: builds BOOK.md (--smart) in every
layout (book, handout) x paper (a4, a5, letter) x columns (1, 2), measures
each PDF with measure_typography.py and prints one table row per build:
pages, characters per full line, p95 and max word-space ratio over the
justified full lines (unbreakable and forced-loose lines excepted, as the
tool says), loose lines (> 1.5), hyphen runs (3+), widows/orphans/stranded
headings, lines past the margin, frames (pages or columns) that end on a
hyphenated line (f-hy, printed, not checked: TeX's \brokenpenalty makes
them rare, not impossible), and the fullness of every page but the last.
Exits 1 when a figure is out of range:
  chars/line 60-75 (one column) or 40-60 (two); p95 <= 1.5; max <= 2.0;
  no line past the margin, no hyphen run, no widow, orphan or stranded
  heading; the handout of A4 on at most 3 pages (one column) or 2 (two);
  every handout page but the last at least 90% full.
Fullness of a page: the bottom of its lowest word above the folio line,
from the text block's top, over the text block's height (the deepest bottom
and the highest top of body words over all pages of that PDF)."""
import argparse
import os
import re
import subprocess
import sys

# The one miss left open (issue 13): in two columns on A5 the report's list
# item "Hardening magic links: files like /proc/[PID]/exe are actually
# magic links, ..." has a first line that no breaking can fill (the code
# span cannot break and nothing after it fits): it is set ragged, and a
# frame that ends on the item's second line then looks to the tool like
# one ending on a paragraph's first line (the tool's text of that line
# leaves the code out). Needs line setting to break such code
# (src/layout/lines.c); any other orphan fails.

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_typography as mt  # noqa: E402


def fullness(pdf):
    out = subprocess.run(['pdftotext', '-bbox-layout', pdf, '-'], check=True, capture_output=True,
                         text=True).stdout
    pages = []
    for pm in re.finditer(r'<page [^>]*>(.*?)</page>', out, re.S):
        lines = [(float(a), float(b)) for a, b in
                 re.findall(r'<line xMin="[-\d.]+" yMin="([-\d.]+)" xMax="[-\d.]+" yMax="([-\d.]+)"', pm.group(1))]
        pages.append(sorted(lines))
    if not pages:
        return []
    # the folio or running head: a line far from the others at the page's foot or head
    def body(ls):
        ls = list(ls)
        if len(ls) > 2 and ls[-1][0] - ls[-2][1] > 14:
            ls = ls[:-1]
        if len(ls) > 2 and ls[1][0] - ls[0][1] > 14:
            ls = ls[1:]
        return ls
    bodies = [body(ls) for ls in pages]
    top = min(ls[0][0] for ls in bodies if ls)
    bottom = max(ls[-1][1] for ls in bodies if ls)
    return [((ls[-1][1] - top) / (bottom - top)) if ls else 0 for ls in bodies]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('octavo')
    ap.add_argument('book')
    ap.add_argument('outdir')
    a = ap.parse_args()
    print('%-8s %-6s %s | %5s %6s %5s %5s %5s %5s %8s %4s %4s %s' % (
        'layout', 'paper', 'col', 'pages', 'chars', 'p95', 'max', 'loose', 'hyph', 'w/o/s', 'past',
        'f-hy', 'fullness (pages but the last)'))
    fails = []
    for layout in ('book', 'handout'):
        for paper in ('a4', 'a5', 'letter'):
            for cols in (1, 2):
                pdf = os.path.join(a.outdir, 'q-%s-%s-%d.pdf' % (layout, paper, cols))
                subprocess.run([a.octavo, '-q', '--smart', '--layout', layout, '--paper', paper,
                                '--columns', str(cols), a.book, '-o', pdf], check=True)
                args = argparse.Namespace(columns=cols, space=None, tol=0.6, lang='en', min_space=0.5,
                                          verbose=True)
                r = mt.measure(pdf, args)
                full = fullness(pdf)
                name = '%s %s %d' % (layout, paper, cols)
                print('%-8s %-6s %d   | %5d %6.1f %5.2f %5.2f %5d %5d %2d/%2d/%2d %4d %4d %s' % (
                    layout, paper, cols, r['pages'], r['chars_per_line'], r['p95'], r['max'],
                    r['over_1_5'], r['hyphen_runs'], r['widows'], r['orphans'], r['stranded_headings'],
                    r['past_margin'], r['frame_end_hyphens'],
                    ' '.join('%.0f%%' % (100 * f) for f in full[:-1]) or '-'))
                lo, hi = (60, 75) if cols == 1 else (40, 60)
                if not lo <= r['chars_per_line'] <= hi:
                    fails.append('%s: %.1f characters a line, not %d-%d' % (name, r['chars_per_line'], lo, hi))
                if r['p95'] > 1.5:
                    fails.append('%s: p95 %.2f > 1.5' % (name, r['p95']))
                if r['max'] > 2.0:
                    fails.append('%s: max %.2f > 2.0' % (name, r['max']))
                for k in ('past_margin', 'hyphen_runs', 'widows', 'stranded_headings'):
                    if r[k]:
                        fails.append('%s: %s %d' % (name, k, r[k]))
                if r['orphan_list']:
                    fails.append('%s: orphans %s' % (name, r['orphan_list']))
                if layout == 'handout':
                    if paper == 'a4' and r['pages'] > (3 if cols == 1 else 2):
                        fails.append('%s: %d pages' % (name, r['pages']))
                    thin = [i + 1 for i, f in enumerate(full[:-1]) if f < 0.9]
                    if thin:
                        fails.append('%s: pages %s less than 90%% full' % (name, thin))
    for f in fails:
        print('MISS: ' + f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
