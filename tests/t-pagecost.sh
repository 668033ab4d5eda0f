#!/bin/sh
# t-pagecost.sh: a page costs what a page costs (issue 26). The footnote-
# and link-heavy books of tests/hostile/gen.py (at scale 0.1: 10,000 notes
# or links, ~250 pages, 40 notes to a page, one chapter of one paragraph)
# are built beside an ordinary book of about as many pages (the report,
# 25 times: ~200 pages), in the same run, and compared as ratios:
#
#   - bytes per page at most BPP_RATIO times the ordinary book's (cairo's
#     plain-text objects and the archival pass's second copy of every
#     annotation made them 11 and 16 times; written compact, 4 and 5);
#   - bytes per note or link, past what an ordinary page costs, at most
#     PER_NOTE (its annotations, structure elements, destinations and
#     their entries: 1,700 and 2,600 bytes before, 180 and 250 now);
#   - peak RSS per page at most RSS_RATIO times the ordinary book's (a
#     chapter's pages all held until it was paginated, footnotes copied
#     and kept, 168-byte layout items: 3.2 and 3.4; now 2.5 and 2.4: what
#     is left is per note, the notes laid out before the chapters and the
#     one paragraph set whole);
#   - qpdf --check clean.
# Prints every measurement.
set -u
command -v qpdf >/dev/null 2>&1 && command -v pdfinfo >/dev/null 2>&1 || { echo "SKIP: no qpdf or pdfinfo"; exit 77; }
cd "$TMPROOT" || exit 1
export SOURCE_DATE_EPOCH=1700000000
exec python3 - "$OCTAVO" "$TOP" <<'PY'
import os, re, subprocess, sys

octavo, top = sys.argv[1], sys.argv[2]
SCALE, N = 0.1, 10000      # gen.py's 100,000 notes or links times SCALE
BPP_RATIO = 7.0
PER_NOTE = 400
RSS_RATIO = 3.0

subprocess.run([sys.executable, os.path.join(top, 'tests', 'hostile', 'gen.py'), 'gen', str(SCALE)],
               check=True)
report = open(os.path.join(top, 'content', 'lsfmm-bpf-2023.md'), encoding='utf-8').read()
with open('ordinary.md', 'w', encoding='utf-8') as f:
    f.write('\n'.join([report] * 25))

def build(src, pdf):
    """(bytes, pages, peak RSS in KB) of octavo's PDF of src."""
    p = subprocess.Popen([octavo, '-q', src, '-o', pdf], stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode('utf-8', 'replace')
    p.stderr.close()
    if status != 0:
        print('FAIL: octavo %s: status %d: %s' % (src, status, err[:500]))
        sys.exit(1)
    info = subprocess.run(['pdfinfo', pdf], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r'^Pages:\s+(\d+)', info, re.M).group(1))
    return os.path.getsize(pdf), pages, ru.ru_maxrss

fail = 0
ob, op, orss = build('ordinary.md', 'ordinary.pdf')
obpp, orpp = ob / op, orss / op
print('ordinary: %d pages, %d bytes (%.0f a page), peak RSS %d KB (%.0f KB a page)' % (op, ob, obpp, orss, orpp))
for name in ('many-footnotes', 'many-links'):
    pdf = name + '.pdf'
    b, p, rss = build(os.path.join('gen', name + '.md'), pdf)
    bpp, rpp = b / p, rss / p
    per = (b - obpp * p) / N
    print('%s: %d pages, %d bytes (%.0f a page: %.1f times), %.0f bytes a note past an ordinary page, '
          'peak RSS %d KB (%.0f KB a page: %.2f times)' % (name, p, b, bpp, bpp / obpp, per, rss, rpp, rpp / orpp))
    if bpp > BPP_RATIO * obpp:
        print('FAIL: %s: %.1f times the bytes of an ordinary page (at most %g)' % (name, bpp / obpp, BPP_RATIO)); fail = 1
    if per > PER_NOTE:
        print('FAIL: %s: %.0f bytes a note or link (at most %d)' % (name, per, PER_NOTE)); fail = 1
    if rpp > RSS_RATIO * orpp:
        print('FAIL: %s: %.2f times the memory of an ordinary page (at most %g)' % (name, rpp / orpp, RSS_RATIO)); fail = 1
    chk = subprocess.run(['qpdf', '--check', pdf], capture_output=True, text=True)
    if chk.returncode != 0 or 'No syntax or stream encoding errors' not in chk.stdout:
        print('FAIL: %s: qpdf --check: %s' % (name, (chk.stdout + chk.stderr)[-500:])); fail = 1
sys.exit(fail)
PY
