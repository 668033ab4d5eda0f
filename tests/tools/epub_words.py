#!/usr/bin/env python3
"""epub_words.py: every word of a Markdown source reaches an EPUB's text, in
order.

Usage: epub_words.py BOOK.epub SOURCE.md [SOURCE.md...]

The EPUB's text is the text of its spine documents in spine order (the
navigation document left out, so that the contents list cannot stand in for
the chapters), tags stripped and entities decoded by html.parser. The
source's words are its runs of letters and digits, after dropping front
matter, a byline's date, link and image targets, raw HTML tags and footnote labels. Each
source word must appear in the EPUB's words after the previous one
(a subsequence test; extra words such as the title page are allowed).
Prints the count and, on failure, where the match stopped.
"""
import re
import sys
import zipfile
from html.parser import HTMLParser
from xml.etree import ElementTree as ET

WORD = re.compile(r"[^\W_]+", re.UNICODE)


class Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("head", "script", "style"):
            self.skip += 1
        if tag == "img":
            self.parts.append(" " + (dict(attrs).get("alt") or "") + " ")

    def handle_endtag(self, tag):
        if tag in ("head", "script", "style"):
            self.skip -= 1
        self.parts.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def epub_text(path):
    z = zipfile.ZipFile(path)
    container = ET.fromstring(z.read("META-INF/container.xml"))
    ns = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "o": "http://www.idpf.org/2007/opf"}
    opf_path = container.find(".//c:rootfile", ns).get("full-path")
    base = opf_path.rsplit("/", 1)[0] + "/" if "/" in opf_path else ""
    opf = ET.fromstring(z.read(opf_path))
    items = {i.get("id"): i for i in opf.findall(".//o:manifest/o:item", ns)}
    out = []
    for ref in opf.findall(".//o:spine/o:itemref", ns):
        item = items[ref.get("idref")]
        if "nav" in (item.get("properties") or "").split():
            continue
        p = Text()
        p.feed(z.read(base + item.get("href")).decode("utf-8"))
        out.append("".join(p.parts))
    return " ".join(out)


def source_words(md):
    if md.startswith("---\n"):
        end = md.find("\n---\n", 4)
        if end > 0:
            md = md[end + 5:]
    # a byline's date (chapters.c's "By NAMES, YYYY-MM-DD") is on the title
    # page as the book's language writes dates ("11 May 2023"): its digits
    # are not sought
    md = re.sub(r"^(By\s+.+?,)\s*\d{4}-\d{2}-\d{2}\.?\s*$", r"\1", md, count=1, flags=re.M)
    md = re.sub(r"\]\([^)]*\)", "] ", md)          # link and image targets
    md = re.sub(r"^\s*\[[^\]]+\]:\s*\S+.*$", "", md, flags=re.M)  # reference definitions
    md = re.sub(r"\[\^[^\]]+\]:?", " ", md)        # footnote labels
    md = re.sub(r"</?[A-Za-z][^>]*>", " ", md)     # raw HTML tags
    return WORD.findall(md)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    have = WORD.findall(epub_text(argv[1]))
    want = []
    for src in argv[2:]:
        with open(src, encoding="utf-8") as f:
            want += source_words(f.read())
    j = 0
    for i, w in enumerate(want):
        while j < len(have) and have[j] != w:
            j += 1
        if j == len(have):
            ctx = " ".join(want[max(0, i - 8):i + 8])
            print("word %d of %d, %r, not found in order; source context: %s" % (i + 1, len(want), w, ctx))
            return 1
        j += 1
    print("all %d source words found in order among the EPUB's %d words" % (len(want), len(have)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
