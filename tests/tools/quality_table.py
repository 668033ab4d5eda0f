#!/usr/bin/env python3
"""quality_table.py OCTAVO TOP OUTDIR [--books NAME,...] [--jobs N]: builds
the books of TOP (the report content/lsfmm-bpf-2023.md with --smart, the
test books tests/books/*, the corpus books tests/corpus/* with their
book.args and book.list) in layouts (book, handout) x papers (a4, a5,
letter) x columns (1, 2) -- every configuration, for the corpus books too
(whose builds and measurements cost 1-10 s each: CORPUS_CONFIGS) --
N at a time (default 2), measures each PDF with measure_typography.py and
prints one table row per build:
pages, characters per full line, p95 and max word-space ratio over the
justified full lines (unbreakable and forced-loose lines excepted, as the
tool says), loose lines (> 1.5), lines set ragged inside a paragraph
(rag, printed, not checked: the issue counts them apart; an upper bound:
lines ended by a hard line break or a badge's alt text count too), hyphen runs (3+), widows/orphans/stranded
headings, lines past the margin, frames (pages or columns) that end on a
hyphenated line (f-hy, printed, not checked: TeX's \brokenpenalty makes
them rare, not impossible), and the fullness of every page but the last.
Exits 1 when a figure is out of range (for a test book with fewer than
MIN_LINES full lines, the characters per line and p95 are printed, not
checked: a page of examples is not running text):
  chars/line 60-75 (one column) or 40-60 (two); p95 <= 1.5; max <= 2.0;
  no line past the margin, no hyphen run, no widow, orphan or stranded
  heading; the handout of A4 on at most 3 pages (one column) or 2 (two);
  every handout page but the last at least 90% full (the report's handout
  only: the page targets are the report's).
Fullness of a page: the bottom of its lowest word above the folio line,
from the text block's top, over the text block's height (the deepest bottom
and the highest top of body words over all pages of that PDF)."""
import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_typography as mt  # noqa: E402


def fullness(pdf):
    out = mt.bbox_layout(pdf).decode('utf-8', 'replace')  # (the text measure() read)
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


BOOKS = ('report', 'multi', 'xref', 'inline', 'margins', 'fonts',
         'embedded-book', 'f3discovery', 'yt-dlp', 'fpb-howto')
ALL = [(lay, paper, cols) for lay in ('book', 'handout') for paper in ('a4', 'a5', 'letter') for cols in (1, 2)]
CORPUS_CONFIGS = ALL  # (narrow columns and the handout find what book A4 does not)
MIN_LINES = 40


def book_spec(top, name):
    """(directory to run in, octavo's arguments but the layout, configurations)."""
    if name == 'report':
        return top, ['--smart', os.path.join(top, 'content', 'lsfmm-bpf-2023.md')], ALL
    d = os.path.join(top, 'tests', 'books', name)
    if os.path.isdir(d):
        return d, sorted(f for f in os.listdir(d) if f.endswith('.md')), ALL
    d = os.path.join(top, 'tests', 'corpus', name)
    args = []
    if os.path.exists(os.path.join(d, 'book.args')):
        args = open(os.path.join(d, 'book.args')).read().split()
    files = [ln.strip() for ln in open(os.path.join(d, 'book.list')) if ln.strip() and not ln.startswith('#')]
    return d, args + files, CORPUS_CONFIGS


def run_one(job):
    """Builds and measures one configuration: (row dict, error text)."""
    try:
        return build_measure(job)
    except (OSError, subprocess.SubprocessError, ValueError) as e:  # a row of its own, not a crash
        return None, '%s: %s' % (type(e).__name__, e)


def build_measure(job):
    octavo, outdir, name, cwd, argv, (layout, paper, cols) = job
    pdf = os.path.join(outdir, 'q-%s-%s-%s-%d.pdf' % (name, layout, paper, cols))
    t0 = time.time()
    p = subprocess.run([octavo, '-q', '--layout', layout, '--paper', paper, '--columns', str(cols)] + argv +
                       ['-o', pdf], cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(pdf):
        return None, 'octavo exit %d: %s' % (p.returncode, p.stderr[-500:])
    args = argparse.Namespace(columns=cols, space=None, tol=0.6, lang='en', min_space=0.5, verbose=True)
    r = mt.measure(pdf, args)
    if 'error' in r:
        return None, r['error']
    r['fullness'] = fullness(pdf)
    r['secs'] = time.time() - t0
    return r, None


def check(name, book, layout, paper, cols, r):
    """The misses of one row, as text."""
    fails = []
    few = book != 'report' and r['full_lines'] < MIN_LINES
    lo, hi = (60, 75) if cols == 1 else (40, 60)
    if not few and not lo <= r['chars_per_line'] <= hi:
        fails.append('%s: %.1f characters a line, not %d-%d' % (name, r['chars_per_line'], lo, hi))
    if not few and r['p95'] > 1.5:
        fails.append('%s: p95 %.2f > 1.5' % (name, r['p95']))
    if r['max'] > 2.0:
        fails.append('%s: max %.2f > 2.0 %s' % (name, r['max'], r['loose'][-1:] if r['loose'] else ''))
    for k, lst in (('past_margin', 'past'), ('hyphen_runs', None), ('widows', 'widow_list'),
                   ('stranded_headings', 'stranded_list')):
        if r[k]:
            fails.append('%s: %s %d %s' % (name, k, r[k], r[lst][:3] if lst else ''))
    if r['orphan_list']:
        fails.append('%s: orphans %s' % (name, r['orphan_list']))
    if book == 'report' and layout == 'handout':
        if paper == 'a4' and r['pages'] > (3 if cols == 1 else 2):
            fails.append('%s: %d pages' % (name, r['pages']))
        thin = [i + 1 for i, f in enumerate(r['fullness'][:-1]) if f < 0.9]
        if thin:
            fails.append('%s: pages %s less than 90%% full' % (name, thin))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('octavo')
    ap.add_argument('top')
    ap.add_argument('outdir')
    ap.add_argument('--books', default=','.join(BOOKS))
    ap.add_argument('--jobs', type=int, default=2)
    a = ap.parse_args()
    octavo = os.path.abspath(a.octavo)
    outdir = os.path.abspath(a.outdir)
    jobs = []
    for name in a.books.split(','):
        cwd, argv, configs = book_spec(a.top, name)
        jobs.extend((octavo, outdir, name, cwd, argv, c) for c in configs)
    # the longest first (the corpus books are last in BOOKS), so two workers end together
    order = sorted(range(len(jobs)), key=lambda k: -k)
    t0 = time.time()
    with multiprocessing.Pool(a.jobs) as pool:
        done = dict(zip(order, pool.map(run_one, [jobs[k] for k in order], chunksize=1)))
    print('%-13s %-8s %-6s %s | %5s %5s %6s %5s %5s %5s %4s %5s %8s %4s %4s %s' % (
        'book', 'layout', 'paper', 'col', 'pages', 'lines', 'chars', 'p95', 'max', 'loose', 'rag', 'hyph', 'w/o/s',
        'past', 'f-hy', 'fullness (pages but the last)'))
    fails = []
    for k, job in enumerate(jobs):
        name_, (layout, paper, cols) = job[2], job[5]
        name = '%s %s %s %d' % (name_, layout, paper, cols)
        r, err = done[k]
        if err:
            print('%-13s %-8s %-6s %d   | %s' % (name_, layout, paper, cols, err.splitlines()[-1] if err else ''))
            fails.append('%s: %s' % (name, err))
            continue
        full = r['fullness']
        print('%-13s %-8s %-6s %d   | %5d %5d %6.1f %5.2f %5.2f %5d %4d %5d %2d/%2d/%2d %4d %4d %s' % (
            name_, layout, paper, cols, r['pages'], r['full_lines'], r['chars_per_line'], r['p95'], r['max'],
            r['over_1_5'], r['ragged'], r['hyphen_runs'], r['widows'], r['orphans'], r['stranded_headings'],
            r['past_margin'], r['frame_end_hyphens'],
            (' '.join('%.0f%%' % (100 * f) for f in full[:-1]) or '-') if len(full) <= 12 else
            'min %.0f%%' % (100 * min(full[:-1]))))
        fails.extend(check(name, name_, layout, paper, cols, r))
    print('%d builds, %d at a time, %.0f s' % (len(jobs), a.jobs, time.time() - t0))
    for f in fails:
        print('MISS: ' + f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
