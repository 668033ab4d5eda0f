#!/usr/bin/env python3
"""selftest.py: proves that each check of run.mjs can fail, and fails for the
right reason.

  selftest.py make BOOKDIR DIR   broken copies of BOOKDIR/xref.epub and .pdf in
                                 DIR, and DIR/plan.json (which checks run.mjs
                                 --selftest DIR runs on each)
  selftest.py judge REPORT       each variant's verdicts in run.mjs's
                                 report.json against what its breakage must
                                 cause; exit 1 when one differs

The variants:
  good       the book as octavo wrote it: every check must pass
  wayback    a link to a Wayback Machine address (a "://" inside its path):
             every reader must show the chapter (epub.js 0.4.2 as upstream
             fixed it: see PATCHES in run.mjs)
  badxml     an unclosed <p> in a chapter: an XHTML parse error
  blank      a chapter whose body is empty: a spine item that shows nothing
  missing    the stylesheet gone from the package: a failed request (4xx)
             in epub.js 0.3, a missing item in the package check
  badspine   a spine itemref naming no manifest item: the readers must complain
  noalt      an <img> without alt: a serious or critical Ace violation
  brokenpdf  the PDF cut in half: poppler and mupdf must complain
  badlength  the /Length of the first page's content stream halved, in the
             object the file's last cross-reference section points to (the one
             a reader reads, whatever incremental updates came after it): both
             render every page and exit 0, but say so on stderr, which must fail
"""
import json, os, re, shutil, subprocess, sys, zipfile

CHAPTER = 'EPUB/ch03.xhtml'
READERS = ['epubjs-0.3', 'epubjs-0.4', 'foliate']
EPUB_CHECKS = ['package'] + READERS
PLAN = {
    'good': EPUB_CHECKS + ['poppler', 'mupdf'],
    'wayback': READERS,
    'badxml': EPUB_CHECKS,
    'blank': EPUB_CHECKS,
    'missing': EPUB_CHECKS,
    'badspine': EPUB_CHECKS,
    'noalt': ['ace'],
    'brokenpdf': ['poppler', 'mupdf'],
    'badlength': ['poppler', 'mupdf'],
}
WAYBACK = ('https://web.archive.org/web/20140606191453/'
           'https://stackoverflow.com/questions/194812/list-of-freely-available-programming-books/392926')


def variant(src, out, name, edit=None, drop=()):
    with zipfile.ZipFile(os.path.join(src, 'xref.epub')) as zin, \
            zipfile.ZipFile(os.path.join(out, name + '.epub'), 'w') as zout:
        names = zin.namelist()
        assert names[0] == 'mimetype'
        assert CHAPTER in names, names
        for n in names:
            if n in drop:
                continue
            data = zin.read(n)
            if edit and n in edit:
                new = edit[n](data.decode()).encode()
                assert new != data, 'the edit of %s changed nothing in %s' % (name, n)
                data = new
            zout.writestr(n, data, zipfile.ZIP_STORED if n == 'mimetype' else zipfile.ZIP_DEFLATED)
    shutil.copy(os.path.join(src, 'xref.pdf'), os.path.join(out, name + '.pdf'))


def qpdf(*args):
    return subprocess.run(['qpdf'] + list(args), check=True, capture_output=True, text=True).stdout


def halve_content_length(path):
    """Halve the /Length of page 1's first content stream where the final
    cross-reference table says that object is (and, for an indirect /Length,
    the length object's own value there), keeping every byte offset. The
    file is first written with every object plain (octavo's archival pass
    puts them in object streams since issue 26), streams kept as they are."""
    plain = path + '.plain'
    r = subprocess.run(['qpdf', '--object-streams=disable', '--stream-data=preserve', path, plain],
                       capture_output=True, text=True)
    assert r.returncode in (0, 3), r.stderr
    os.replace(plain, path)
    with open(path, 'rb') as f:
        pdf = f.read()
    where = {int(m.group(1)): int(m.group(2)) for m in
             re.finditer(r'^(\d+)/0: uncompressed; offset = (\d+)', qpdf('--show-xref', path), re.M)}
    obj = int(re.search(r'^page 1: .*\n\s+content:\n\s+(\d+) 0 R', qpdf('--show-pages', path), re.M).group(1))
    head = re.match(rb'%d 0 obj\s*<<(.*?)>>\s*stream' % obj, pdf[where[obj]:], re.S)
    assert head, 'object %d is not a stream at its offset' % obj
    m = re.search(rb'/Length\s+(\d+)(\s+0\s+R)?', head.group(1))
    if m.group(2):
        ref = int(m.group(1))
        assert ref in where, 'the /Length of object %d is object %d, not a plain object' % (obj, ref)
        m2 = re.match(rb'%d 0 obj\s*(\d+)' % ref, pdf[where[ref]:])
        start, end = where[ref] + m2.start(1), where[ref] + m2.end(1)
    else:
        start, end = where[obj] + head.start(1) + m.start(1), where[obj] + head.start(1) + m.end(1)
    n = int(pdf[start:end])
    with open(path, 'wb') as f:
        f.write(pdf[:start] + str(n // 2).encode().rjust(end - start) + pdf[end:])
    return obj, n


def make(src, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    variant(src, out, 'good')
    variant(src, out, 'wayback', edit={CHAPTER: lambda s: s.replace(
        '</section>', '<p>An <a href="%s">archived page</a>.</p></section>' % WAYBACK, 1)})
    variant(src, out, 'badxml', edit={CHAPTER: lambda s: s.replace('</p>', '', 1)})
    variant(src, out, 'blank', edit={CHAPTER: lambda s: re.sub(r'(<body[^>]*>).*(</body>)', r'\1\2', s, flags=re.S)})
    variant(src, out, 'missing', drop=('EPUB/styles/book.css',))
    variant(src, out, 'badspine', edit={'EPUB/package.opf': lambda s: s.replace(
        '<itemref idref="ch-2"/>', '<itemref idref="no-such-item"/>', 1)})
    variant(src, out, 'noalt', edit={CHAPTER: lambda s: s.replace(
        '</section>', '<p><img src="cover.png"/></p></section>', 1)})
    variant(src, out, 'brokenpdf')
    with open(os.path.join(src, 'xref.pdf'), 'rb') as f:
        pdf = f.read()
    with open(os.path.join(out, 'brokenpdf.pdf'), 'wb') as f:
        f.write(pdf[:len(pdf) // 2])
    variant(src, out, 'badlength')
    obj, n = halve_content_length(os.path.join(out, 'badlength.pdf'))
    with open(os.path.join(out, 'plan.json'), 'w') as f:
        json.dump(PLAN, f, indent=1)
    print('selftest: %d broken copies of the xref book in %s (badlength: object %d, /Length %d -> %d)'
          % (len(PLAN), out, obj, n, n // 2))


# (book, check): None to pass, else a pattern one of its messages must match.
EXPECT = {('good', c): None for c in PLAN['good']}
EXPECT.update({('wayback', c): None for c in READERS})
EXPECT[('badxml', 'package')] = r'XML parse error: EPUB/ch03\.xhtml: .*error on line'
for c in READERS:
    # foliate-js says it with console.warn(the parsererror's text)
    EXPECT[('badxml', c)] = r'ch03\.xhtml\): XHTML parse error: .*error on line|^console\.warn: .*error on line'
    EXPECT[('blank', c)] = r'spine item \d+ \(.*ch03\.xhtml\): shows nothing'
    EXPECT[('badspine', c)] = r'.'
EXPECT[('blank', 'package')] = None
EXPECT[('badspine', 'package')] = r'spine itemref no-such-item names no manifest item'
EXPECT[('missing', 'package')] = r'EPUB/styles/book\.css: HTTP 404'
EXPECT[('missing', 'epubjs-0.3')] = r'HTTP 404 GET /books/missing/EPUB/styles/book\.css'
EXPECT[('noalt', 'ace')] = r'^(critical|serious): .*(image-alt|alt)'
EXPECT[('brokenpdf', 'poppler')] = r'Syntax Error|Internal Error|Couldn'
EXPECT[('brokenpdf', 'mupdf')] = r'^error: '
EXPECT[('badlength', 'poppler')] = r'^Syntax Error.*(Length|endstream)'
EXPECT[('badlength', 'mupdf')] = r'^warning: PDF stream Length incorrect'


def judge(report):
    with open(report) as f:
        res = {(r['book'], r['check']): r for r in json.load(f)['selftest']}
    passed = failed = 0
    for key, want in sorted(EXPECT.items()):
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
        if key not in EXPECT:
            r = res[key]
            print('INFO', '%s %s' % key, 'passes' if r['ok'] else 'fails: ' + ' | '.join(r['messages'][:3]))
    print('selftest: %d passed, %d failed' % (passed, failed))
    return failed == 0


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'make':
        make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == 'judge':
        sys.exit(0 if judge(sys.argv[2]) else 1)
    else:
        sys.exit(__doc__)
