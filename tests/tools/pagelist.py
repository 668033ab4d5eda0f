#!/usr/bin/env python3
"""pagelist.py BOOK.epub BOOK.pdf: checks the e-book's print page numbers
against the PDF they came from. For every page-break marker in the EPUB
(<span epub:type="pagebreak" id="page-L" aria-label="L"/>), the PDF page
whose label is L must begin (after its running head) with the words that
follow the marker in the e-book. Also checks the page-list nav: one entry
per marker, each linking to an existing marker, in reading order; and the
NCX's pageList: the same targets and labels, page types and values, and its
page count and largest page number.
Prints a summary; exits 1 on any mismatch."""
import html, json, re, subprocess, sys, zipfile, posixpath
from xml.dom import minidom

epub, pdf = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(epub)
container = minidom.parseString(z.read('META-INF/container.xml'))
opf_path = container.getElementsByTagName('rootfile')[0].getAttribute('full-path')
opf = minidom.parseString(z.read(opf_path))
base = posixpath.dirname(opf_path)
items = {i.getAttribute('id'): i for i in opf.getElementsByTagName('item')}
spine = [posixpath.join(base, items[r.getAttribute('idref')].getAttribute('href'))
         for r in opf.getElementsByTagName('itemref')]
nav_item = [i for i in items.values() if 'nav' in i.getAttribute('properties').split()][0]
nav_path = posixpath.join(base, nav_item.getAttribute('href'))

WORD = re.compile(r"[\w'’]+", re.U)
def words(text):
    return WORD.findall(text.replace('\u00ad', ''))

# Text after each marker, in reading order, from the spine documents.
markers = []  # (label, id, doc, following words)
titles = set()
boiler = set()  # words a page may show before its body text: running heads, folios, repeated table heads
for doc in spine:
    src = z.read(doc).decode('utf-8')
    for m in re.finditer(r'<h[1-6][^>]*>(.*?)</h[1-6]>', src, re.S):
        titles.add(' '.join(words(html.unescape(re.sub(r'<[^>]+>', '', m.group(1))))))
    for m in re.finditer(r'<th\b[^>]*>(.*?)</th>', src, re.S):
        boiler.update(words(html.unescape(re.sub(r'<[^>]+>', '', m.group(1)))))
    for m in re.finditer(r'<span\b[^>]*epub:type="pagebreak"[^>]*/?>', src):
        tag = m.group(0)
        lab = re.search(r'aria-label="([^"]*)"', tag)
        ident = re.search(r'\bid="([^"]*)"', tag)
        rest = src[m.end():m.end() + 4000]
        rest = re.sub(r'<aside\b.*?</aside>', ' ', rest, flags=re.S)  # notes are not body text
        text = html.unescape(re.sub(r'<[^>]+>', ' ', rest))
        markers.append((lab.group(1) if lab else None, ident.group(1) if ident else None, doc, words(text)[:6]))
meta = opf.getElementsByTagName('metadata')[0]
title = meta.getElementsByTagName('dc:title')[0].firstChild.data
titles.add(' '.join(words(title)))
for t in titles:
    boiler.update(t.split())

problems = []
if not markers:
    problems.append('no page-break markers in the EPUB')

# The page-list nav.
nav = z.read(nav_path).decode('utf-8')
pl = re.search(r'<nav\b[^>]*epub:type="page-list"[^>]*>(.*?)</nav>', nav, re.S)
if not pl:
    problems.append('no page-list nav')
else:
    hrefs = re.findall(r'href="([^"]*)"', pl.group(1))
    ids = ['%s#%s' % (posixpath.relpath(d, posixpath.dirname(nav_path)), i) for _, i, d, _ in markers]
    if hrefs != ids:
        problems.append('page-list nav (%d entries) does not list the %d markers in order' % (len(hrefs), len(ids)))

# The NCX's pageList (EPUB 2 reading systems): the same targets and labels
# in the same order, arabic labels as normal pages with their value, the
# others front pages, and dtb:totalPageCount / dtb:maxPageNumber to match.
ncx_item = [i for i in items.values() if i.getAttribute('media-type') == 'application/x-dtbncx+xml']
if ncx_item:
    ncx_path = posixpath.join(base, ncx_item[0].getAttribute('href'))
    ncx = minidom.parseString(z.read(ncx_path))
    targets = ncx.getElementsByTagName('pageTarget')
    got = []
    for t in targets:
        src = t.getElementsByTagName('content')[0].getAttribute('src')
        text = t.getElementsByTagName('navLabel')[0].getElementsByTagName('text')[0]
        lab = text.firstChild.data if text.firstChild else ''
        got.append((src, lab, t.getAttribute('type'), t.getAttribute('value')))
    want = []
    for lab, i, d, _ in markers:
        num = lab is not None and lab.isdigit() and int(lab) > 0
        want.append(('%s#%s' % (posixpath.relpath(d, posixpath.dirname(ncx_path)), i), lab,
                     'normal' if num else 'front', str(int(lab)) if num else ''))
    if got != want:
        bad = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
        problems.append('NCX pageList (%d targets) differs from the markers (%d) at %d: %r vs %r'
                        % (len(got), len(want), bad, got[bad:bad + 1], want[bad:bad + 1]))
    heads = {m.getAttribute('name'): m.getAttribute('content') for m in ncx.getElementsByTagName('meta')}
    nums = [int(w[3]) for w in want if w[3]]
    if heads.get('dtb:totalPageCount') != str(len(want)):
        problems.append('NCX dtb:totalPageCount %s, %d pages' % (heads.get('dtb:totalPageCount'), len(want)))
    if heads.get('dtb:maxPageNumber') != str(max(nums, default=0)):
        problems.append('NCX dtb:maxPageNumber %s, largest page number %d' % (heads.get('dtb:maxPageNumber'), max(nums, default=0)))
else:
    problems.append('no NCX in the OPF manifest')

# PDF page labels -> physical pages.
j = json.loads(subprocess.run(['qpdf', '--json', '--json-key=pagelabels', '--json-key=pages', pdf],
                              capture_output=True, text=True, check=True).stdout)
npages = len(j['pages'])
def roman(n):
    out = ''
    for v, s in ((1000,'m'),(900,'cm'),(500,'d'),(400,'cd'),(100,'c'),(90,'xc'),(50,'l'),(40,'xl'),(10,'x'),(9,'ix'),(5,'v'),(4,'iv'),(1,'i')):
        while n >= v: out += s; n -= v
    return out
labels = [str(i + 1) for i in range(npages)]
ranges = sorted(j.get('pagelabels', []), key=lambda r: r['index'])
for k, r in enumerate(ranges):
    end = ranges[k + 1]['index'] if k + 1 < len(ranges) else npages
    lab = r['label']
    style, start, prefix = lab.get('/S'), lab.get('/St', 1), lab.get('/P', '')
    prefix = prefix[2:] if isinstance(prefix, str) and prefix.startswith('u:') else (prefix or '')
    for p in range(r['index'], end):
        n = start + p - r['index']
        s = {'/D': str(n), '/r': roman(n), '/R': roman(n).upper()}.get(style, '')
        labels[p] = prefix + s
page_of = {l: i + 1 for i, l in reversed(list(enumerate(labels)))}

checked = 0
for lab, ident, doc, follow in markers:
    if lab not in page_of:
        problems.append('marker %s: no PDF page has that label' % lab)
        continue
    p = page_of[lab]
    text = subprocess.run(['pdftotext', '-raw', '-f', str(p), '-l', str(p), pdf, '-'],
                          capture_output=True, text=True).stdout
    page = words(text)[:60]
    if not page or not follow:
        problems.append('page %s: nothing to compare (pdf %r, epub %r)' % (lab, page[:3], follow))
        continue
    # The body starts at the first place the marker's words appear such that
    # everything before it is a running head, a folio or a repeated table head.
    # A page may begin with the second half of a word hyphenated across pages.
    def same(i):
        a, b = page[i], follow[0]
        if not (a == b or b.endswith(a) or a.endswith(b)):
            return False
        return len(follow) < 2 or i + 1 >= len(page) or page[i + 1] == follow[1]
    ok = False
    for i in range(min(len(page), 20)):
        if same(i):
            ok = True
            break
        w = page[i]
        if not (w in boiler or re.fullmatch(r'\d+|[ivxlcdm]+', w)):
            break
    if not ok:
        problems.append('page %s (pdf page %d) starts %r, the EPUB marker precedes %r' % (lab, p, page[:4], follow[:3]))
    checked += 1
print('%d page markers, %d checked against %d PDF pages, %d problems' % (len(markers), checked, npages, len(problems)))
for pr in problems[:20]:
    print('  ' + pr)
sys.exit(1 if problems else 0)
