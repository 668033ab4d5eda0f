#!/usr/bin/env python3
"""colophon_check.py: the colophon of both books, for tests/t-colophon.sh.

  epub-lines BOOK.epub     the EPUB's colophon as lines: its heading, each
                           "LABEL VALUE" (dt, dd), the made-with line
  pdf-lines BOOK.pdf       the PDF's last page as lines (pdftotext -layout,
                           runs of spaces as one), the running head and
                           folio included
  words BOOK.epub|pdf      the colophon's words, one string: the EPUB's lines
                           joined; the PDF's text from the last "Colophon"
                           heading word on (the handout's run-in block),
                           middle dots left out
  link BOOK.pdf URL        a link annotation to URL on the last page (exit 1
                           if none)
  not-in-outline BOOK.pdf WORD   no bookmark's title holds WORD
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdf_check  # noqa: E402

XHTML = '{http://www.w3.org/1999/xhtml}'


def text(e):
    return re.sub(r'\s+', ' ', ''.join(e.itertext())).strip()


def epub_lines(epub):
    with zipfile.ZipFile(epub) as z:
        root = ET.fromstring(z.read('EPUB/colophon.xhtml'))
    sec = root.find(f'.//{XHTML}section')
    lines = [text(sec.find(f'{XHTML}h1'))]
    dl = sec.find(f'{XHTML}dl')
    kids = list(dl) if dl is not None else []
    for dt, dd in zip(kids[::2], kids[1::2]):
        lines.append(f'{text(dt)} {text(dd)}')
    lines.append(text(sec.find(f"{XHTML}p[@class='made-with']")))
    return lines


def npages(pdf):
    info = subprocess.run(['pdfinfo', pdf], capture_output=True, text=True, check=True).stdout
    return int(re.search(r'^Pages:\s+(\d+)', info, re.M).group(1))


def pdf_text(pdf, layout):
    n = str(npages(pdf))
    args = ['pdftotext', '-f', n, '-l', n] + (['-layout'] if layout else []) + [pdf, '-']
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def pdf_lines(pdf):
    return [re.sub(r'\s+', ' ', ln).strip() for ln in pdf_text(pdf, True).splitlines() if ln.strip()]


def words(path, heading):
    if path.endswith('.epub'):
        return ' '.join(epub_lines(path))
    t = re.sub(r'\s+', ' ', pdf_text(path, False).replace('\u00b7', ' ')).strip()
    at = t.rfind(heading)
    return t[at:] if at >= 0 else ''


def link(pdf, url):
    objs = pdf_check.qpdf_objects(pdf)
    last = pdf_check.pages(objs)[-1]
    page = pdf_check.val(objs, last)
    annots = pdf_check.val(objs, page.get('/Annots', []))
    for ref in annots or []:
        a = pdf_check.val(objs, ref)
        if a.get('/Subtype') != '/Link' or '/A' not in a:
            continue
        act = pdf_check.val(objs, a['/A'])
        if act.get('/S') == '/URI' and pdf_check.pdf_str(act.get('/URI')) == url:
            return True
    return False


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'epub-lines':
        print('\n'.join(epub_lines(args[0])))
    elif cmd == 'pdf-lines':
        print('\n'.join(pdf_lines(args[0])))
    elif cmd == 'words':
        print(words(args[0], args[1] if len(args) > 1 else 'Colophon'))
    elif cmd == 'link':
        ok = link(args[0], args[1])
        print(f'link to {args[1]} on the last page: {"yes" if ok else "no"}')
        return 0 if ok else 1
    elif cmd == 'not-in-outline':
        objs = pdf_check.qpdf_objects(args[0])
        bad = [t for _, t, _ in pdf_check.outline(objs) if args[1] in (t or '')]
        print(f'bookmarks holding {args[1]!r}: {len(bad)}')
        return 1 if bad else 0
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
