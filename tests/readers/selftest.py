#!/usr/bin/env python3
"""selftest.py BOOKDIR OUTDIR: proves that each check of run.mjs can fail, and
fails for the right reason. From a good book (BOOKDIR/xref.epub, .pdf) it makes
broken copies, runs run.mjs over them and compares each check's verdict and
messages with what the breakage must cause:

  fixed      the book with the Apple display-options file, as is every
             variant below (it is the one thing epub.js 0.3 complains of
             today): every check must pass
  badxml     an unclosed <p> in a chapter: an XHTML parse error
  blank      a chapter whose body is empty: a spine item that shows nothing
  missing    the stylesheet gone from the package: a failed request (4xx)
             in epub.js 0.3, a missing item in the package check
  badspine   a spine itemref naming no manifest item: the readers must complain
  noalt      an <img> without alt: a serious or critical Ace violation
  brokenpdf  the PDF cut in half: poppler and mupdf must complain
  badlength  a stream's /Length wrong: both render every page and exit 0,
             but say so on stderr, which must fail
"""
import json, os, re, shutil, subprocess, sys, zipfile

src, out = sys.argv[1], sys.argv[2]
books = os.path.join(out, 'books')
shutil.rmtree(out, ignore_errors=True)
os.makedirs(books)
good_epub, good_pdf = os.path.join(src, 'xref.epub'), os.path.join(src, 'xref.pdf')
CHAPTER = 'EPUB/ch03.xhtml'

APPLE_PATH = 'META-INF/com.apple.ibooks.display-options.xml'
APPLE = ('<?xml version="1.0" encoding="UTF-8"?>\n<display_options><platform name="*">'
         '<option name="specified-fonts">true</option></platform></display_options>\n')

def variant(name, edit=None, drop=(), add=None):
    # Every variant carries the Apple display-options file (today's one complaint of
    # epub.js 0.3), so that what fails is the breakage made here and nothing else.
    with zipfile.ZipFile(good_epub) as zin, zipfile.ZipFile(os.path.join(books, name + '.epub'), 'w') as zout:
        names = zin.namelist()
        assert names[0] == 'mimetype'
        assert CHAPTER in names, names
        add = dict(add or {})
        if APPLE_PATH not in names:
            add[APPLE_PATH] = APPLE
        for n in names:
            if n in drop:
                continue
            data = zin.read(n)
            if edit and n in edit:
                data = edit[n](data.decode()).encode()
            zout.writestr(n, data, zipfile.ZIP_STORED if n == 'mimetype' else zipfile.ZIP_DEFLATED)
        for n, data in add.items():
            zout.writestr(n, data, zipfile.ZIP_DEFLATED)
    shutil.copy(good_pdf, os.path.join(books, name + '.pdf'))

variant('fixed')
variant('badxml', edit={CHAPTER: lambda s: s.replace('</p>', '', 1)})
variant('blank', edit={CHAPTER: lambda s: re.sub(r'(<body[^>]*>).*(</body>)', r'\1\2', s, flags=re.S)})
variant('missing', drop=('EPUB/styles/book.css',))
variant('badspine', edit={'EPUB/package.opf': lambda s: s.replace('<itemref idref="ch-2"/>', '<itemref idref="no-such-item"/>', 1)})
variant('noalt', edit={CHAPTER: lambda s: s.replace('</section>', '<p><img src="cover.png"/></p></section>', 1)})
variant('brokenpdf')
with open(good_pdf, 'rb') as f:
    pdf = f.read()
with open(os.path.join(books, 'brokenpdf.pdf'), 'wb') as f:
    f.write(pdf[:len(pdf) // 2])
variant('badlength')
m = re.search(rb'/Length (\d+)', pdf)
with open(os.path.join(books, 'badlength.pdf'), 'wb') as f:
    f.write(pdf[:m.start(1)] + str(max(1, int(m.group(1)) // 2)).encode().rjust(len(m.group(1))) + pdf[m.end(1):])

def run(only, names):
    env = dict(os.environ, READERS_ONLY=only, READERS_SHOTS='0')
    p = subprocess.run(['node', os.path.join(os.path.dirname(__file__), 'run.mjs'), books, out] + names,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(out, 'report.json')) as f:
        return {(r['book'], r['check']): r for r in json.load(f)['results']}, p.stdout

READERS = ['epubjs-0.3', 'epubjs-0.4', 'foliate']
res, log1 = run('package,' + ','.join(READERS), ['fixed', 'badxml', 'blank', 'missing', 'badspine'])
r2, log2 = run('ace', ['noalt'])   # Ace passing: the real books show it
res.update(r2)
r3, log3 = run('poppler,mupdf', ['fixed', 'brokenpdf', 'badlength'])
res.update(r3)

# (book, check): None to pass, else a pattern one of its messages must match.
expect = {('fixed', c): None for c in ['package', 'poppler', 'mupdf'] + READERS}
expect[('badxml', 'package')] = r'XML parse error: EPUB/ch03\.xhtml: .*error on line'
for c in READERS:
    # foliate-js says it with console.warn(the parsererror's text)
    expect[('badxml', c)] = r'ch03\.xhtml\): XHTML parse error: .*error on line|^console\.warn: .*error on line'
    expect[('blank', c)] = r'spine item \d+ \(.*ch03\.xhtml\): shows nothing'
    expect[('badspine', c)] = r'.'
expect[('blank', 'package')] = None
expect[('badspine', 'package')] = r'spine itemref no-such-item names no manifest item'
expect[('missing', 'package')] = r'EPUB/styles/book\.css: HTTP 404'
expect[('missing', 'epubjs-0.3')] = r'HTTP 404 GET /books/missing/EPUB/styles/book\.css'
expect[('noalt', 'ace')] = r'^(critical|serious): .*(image-alt|alt)'
expect[('brokenpdf', 'poppler')] = r'Syntax Error|Internal Error|Couldn'
expect[('brokenpdf', 'mupdf')] = r'^error: '
expect[('badlength', 'poppler')] = r'^Syntax Error.*Length'
expect[('badlength', 'mupdf')] = r'^warning: PDF stream Length incorrect'

passed = failed = 0
for key, want in sorted(expect.items()):
    r = res.get(key)
    name = '%s %s' % key
    if r is None:
        ok, why = False, 'not run'
    elif want is None:
        ok, why = r['ok'], 'must pass: ' + ' | '.join(r['messages'][:3])
    else:
        ok = not r['ok'] and any(re.search(want, m) for m in r['messages'])
        why = 'must fail with /%s/, got: %s' % (want, ' | '.join(r['messages'][:4]) or 'a pass')
    if ok:
        passed += 1
        said = '' if want is None else [m for m in r['messages'] if re.search(want, m)][0]
        print('PASS', name, '' if want is None else '(fails as it must: %s)' % said[:160])
    else:
        failed += 1
        print('FAIL', name, why)
# What the other readers say of the missing stylesheet and the bad spine, for STATUS.md.
for key in sorted(res):
    if key not in expect:
        r = res[key]
        print('INFO', '%s %s' % key, 'passes' if r['ok'] else 'fails: ' + ' | '.join(r['messages'][:3]))
print('selftest: %d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
