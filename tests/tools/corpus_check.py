#!/usr/bin/env python3
"""corpus_check.py: checks of the EPUB and PDF that octavo made of a real book
(tests/corpus/NAME: the chapter files in reading order in NAME/book.list).

  corpus_check.py words   BOOKDIR EPUB|PDF   every word of the source, in order
  corpus_check.py images  BOOKDIR EPUB PDF   every local image of the source in the
                                             EPUB and drawn in the PDF
  corpus_check.py glyphs  PDF                no .notdef glyph, no hex box ("tofu")
  corpus_check.py blank   PDF                no blank page but planned versos
  corpus_check.py chapters EPUB PDF [BOOKDIR] every chapter has a heading and text
  corpus_check.py outline EPUB PDF           nav, NCX, PDF contents, PDF bookmarks:
                                             the same entries at the same depths
  corpus_check.py bbox    PDF                no word box outside the text block
  corpus_check.py srcinfo BOOKDIR            chapters, words, images of the source
  corpus_check.py all BOOKDIR EPUB PDF [CHECK...]
                                             the checks above in one process (each
                                             file read once), default all but srcinfo;
                                             one line "PASS|FAIL check: numbers" each

Each prints one line of numbers (and details on stderr) and exits 0 when the
check holds, 1 when it does not.

The source is read with libcmark-gfm itself (ctypes; the GFM extensions
table, strikethrough, autolink; raw HTML kept): its HTML rendering gives the
text a reader sees (no HTML comments, no link targets, no raw tags, no
image alt text or title) and the images (<img src> from Markdown and from
raw HTML alike).
"""
import base64
import bisect
import ctypes
import ctypes.util
import hashlib
import html
import json
import os
import re
import subprocess
import sys
import unicodedata
import zipfile
from html.parser import HTMLParser
from xml.etree import ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import epub_words  # noqa: E402
import pdf_check  # noqa: E402

# --- the source, through cmark-gfm ------------------------------------------

_cm = None


def cmark_html(text):
    global _cm
    if _cm is None:
        _cm = ctypes.CDLL(ctypes.util.find_library("cmark-gfm") or "libcmark-gfm.so")
        ext = ctypes.CDLL(ctypes.util.find_library("cmark-gfm-extensions") or "libcmark-gfm-extensions.so")
        ext.cmark_gfm_core_extensions_ensure_registered()
        for f, r in (("cmark_parser_new", ctypes.c_void_p), ("cmark_parser_finish", ctypes.c_void_p),
                     ("cmark_find_syntax_extension", ctypes.c_void_p),
                     ("cmark_parser_get_syntax_extensions", ctypes.c_void_p),
                     ("cmark_render_html", ctypes.c_void_p)):
            getattr(_cm, f).restype = r
        _cm.cmark_parser_attach_syntax_extension.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        _cm.cmark_parser_feed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        _cm.cmark_parser_finish.argtypes = [ctypes.c_void_p]
        _cm.cmark_parser_get_syntax_extensions.argtypes = [ctypes.c_void_p]
        _cm.cmark_render_html.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        _cm.cmark_node_free.argtypes = [ctypes.c_void_p]
        _cm.cmark_parser_free.argtypes = [ctypes.c_void_p]
        _cm.free = ctypes.CDLL(None).free
        _cm.free.argtypes = [ctypes.c_void_p]
    opts = (1 << 13) | (1 << 17)  # FOOTNOTES | UNSAFE
    p = _cm.cmark_parser_new(opts)
    for name in (b"table", b"strikethrough", b"autolink"):
        e = _cm.cmark_find_syntax_extension(name)
        if e:
            _cm.cmark_parser_attach_syntax_extension(p, e)
    data = text.encode("utf-8")
    _cm.cmark_parser_feed(p, data, len(data))
    doc = _cm.cmark_parser_finish(p)
    out = _cm.cmark_render_html(doc, opts, _cm.cmark_parser_get_syntax_extensions(p))
    s = ctypes.string_at(out).decode("utf-8")
    _cm.free(out)
    _cm.cmark_node_free(doc)
    _cm.cmark_parser_free(p)
    return s


class SourceHTML(HTMLParser):
    """Visible text, headings and images of cmark's HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = []
        self.images = []      # src of every <img>, in order
        self.headings = []    # (level, text)
        self.skip = 0
        self.heading = None
        self.sections = []    # [heading text, words before the next heading]
        self.h1_spans = []    # (start, end, text) of each <h1> in self.text
        self.notes_spans = [] # (start, end) of the footnotes' section in self.text
        self.notes_depth = 0  # <section>s open inside the footnotes' section

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style", "head", "title"):
            self.skip += 1
        if tag == "img" and a.get("src"):
            self.images.append(html.unescape(a["src"]))
        m = re.fullmatch(r"h([1-6])", tag)
        if m:
            self.heading = (int(m.group(1)), [])
            self.heading_at = len(self.text)
        if tag == "section" and (self.notes_depth or "footnotes" in (a.get("class") or "").split()):
            if not self.notes_depth:
                self.notes_at = len(self.text)
            self.notes_depth += 1
        self.text.append(" ")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "head", "title"):
            self.skip = max(0, self.skip - 1)
        if tag == "section" and self.notes_depth:
            self.notes_depth -= 1
            if not self.notes_depth:
                self.notes_spans.append((self.notes_at, len(self.text)))
        if re.fullmatch(r"h[1-6]", tag) and self.heading:
            self.headings.append((self.heading[0], " ".join("".join(self.heading[1]).split())))
            if self.heading[0] == 1:
                self.h1_spans.append((self.heading_at, len(self.text), self.headings[-1][1]))
            self.sections.append([self.headings[-1][1], 0])
            self.heading = None
        self.text.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.text.append(data)
            if self.heading:
                self.heading[1].append(data)
            elif self.sections:
                self.sections[-1][1] += len(words_of(data))


def book_files(bookdir):
    with open(os.path.join(bookdir, "book.list"), encoding="utf-8") as f:
        return [os.path.join(bookdir, l.strip()) for l in f if l.strip() and not l.startswith("#")]


def strip_front_matter(md):
    """The text after YAML front matter (closed by --- or, as YAML allows,
    by ...)."""
    if md.startswith("---\n"):
        m = re.search(r"\n(---|\.\.\.)[ \t]*\n", md[3:])
        if m:
            return md[3 + m.end():]
    return md


HEADING_ATTRS = re.compile(r"^( {0,3}#{1,6}[ \t].*?)[ \t]+\{[ \t]*[#.][^{}]*\}[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def strip_heading_attrs(md):
    """An ATX heading's attributes (pandoc's `# Title {#id .class}`, which
    octavo reads by default: --syntax heading-attributes) taken off, outside
    fenced code, so that they are not counted as the heading's words."""
    out, fence = [], None
    for line in md.split("\n"):
        m = FENCE.match(line)
        if m and (fence is None or (m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence))):
            fence = None if fence else m.group(1)
        elif fence is None:
            line = HEADING_ATTRS.sub(r"\1", line)
        out.append(line)
    return "\n".join(out)


def parse_source(bookdir):
    """[(file, SourceHTML)] for the book's files."""
    out = []
    for f in book_files(bookdir):
        with open(f, encoding="utf-8") as fh:
            md = strip_heading_attrs(strip_front_matter(fh.read()))
        p = SourceHTML()
        p.feed(cmark_html(md))
        p.close()
        out.append((f, p))
    return out


def is_word_char(c):
    """Letters, digits and marks, but not variation selectors (U+FE0F after
    an emoji is a mark with nothing to show)."""
    return unicodedata.category(c)[0] in "LNM" and not (
        "\ufe00" <= c <= "\ufe0f" or "\U000e0100" <= c <= "\U000e01ef")


def words_of(text):
    """Runs of letters, digits and marks (so that a Devanagari word with its
    vowel signs is one word); an ideograph or kana is a word of its own
    (Chinese and Japanese put no spaces between words: a clause is not cut
    at a page's foot, with the notes and folio between its halves)."""
    out, cur = [], []
    for c in text:
        if "\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff":
            if cur:
                out.append("".join(cur))
                cur = []
            out.append(c)
        elif is_word_char(c):
            cur.append(c)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def squeeze(text):
    """The text's word characters only, in NFC, nothing between them: a word
    cut at a line end (CJK, Thai, a wrapped code line) still matches."""
    return "".join(c for c in unicodedata.normalize("NFC", text) if is_word_char(c)).casefold()


def squeeze_shy(text):
    """squeeze(), and the positions in its result where the text had a soft
    hyphen (a word hyphenated at a line end, as pdftotext writes it) or a
    continuation mark (U+21AA: a code line wrapped, the rest of the line
    after it), marked negative."""
    out, shy, n = [], set(), 0
    for c in unicodedata.normalize("NFC", text):
        if c == "\u00ad":
            shy.add(n)
        elif c == "\u21aa":
            shy.add(-n)
        elif is_word_char(c):
            out.append(c.casefold())
            n += len(out[-1])
    return "".join(out), shy


def find_in_order(words, hay, window=6000, near=300, shy=frozenset(), slack=16):
    """Find each word in hay after the previous one, within `window`
    characters; a word not found is counted missing and the search goes on
    from the same place. A match more than `slack` characters ahead (past a
    note mark, a list number) is taken only when the next six words follow
    it closely (each within 40 characters of the one before), so that a
    common word found ahead cannot pull the search past the text it should
    have matched: one such unconfirmed jump puts the search ahead of the
    text, where the next common words are found ahead again, and the
    alignment never comes back (f3discovery: 83% of the words counted
    missing for one word hyphenated across a page). A word hyphenated (soft
    hyphen) at a page end is tried before a match farther ahead. After a
    missing word, the next word may be found farther ahead, if confirmed
    so, by as much as the lost words could take (resynchronisation).
    Returns the missing words with their index."""
    def confirm(i, q):
        # the next six words follow closely; one gap up to `near` (a page's
        # foot: its link notes, the folio, the next running head) is allowed
        gap = True
        for w in words[i + 1:i + 7]:
            k = hay.find(w, q, q + 40 + len(w))
            if k < 0 and gap:
                k = hay.find(w, q, q + near + len(w))
                gap = False
            if k < 0:
                return False
            q = k + len(w)
        return True

    shy_at = sorted(h for h in shy if h > 0)
    cont_at = sorted(-h for h in shy if h < 0)

    def across_page(w):
        # a word hyphenated (soft hyphen) at a page end, with the page's
        # link notes and the next page's running head between its parts:
        # its first part right here (within slack), the position its end
        # would have if it were whole, or -1
        if len(w) < 4:
            return -1
        for h in shy_at[bisect.bisect_left(shy_at, pos + 2):bisect.bisect_right(shy_at, pos + slack + len(w))]:
            for j in range(2, len(w) - 1):
                if pos <= h - j <= pos + slack and hay.startswith(w[:j], h - j):
                    b = hay.find(w[j:], h, h + 1500)
                    if b >= 0:
                        return b + len(w[j:]) - len(w)
        # a code line wrapped inside the word at a page end: its first part
        # right here, the rest right after the continuation mark
        for j in range(1, len(w)):
            a = hay.find(w[:j], pos, pos + slack + j)
            if a < 0:
                break
            for h in cont_at[bisect.bisect_left(cont_at, a + j):bisect.bisect_right(cont_at, a + j + 1500)]:
                if hay.startswith(w[j:], h):
                    return h + len(w) - j - len(w)
        # the same where the continuation mark is drawn as outlines (issue
        # 29: no text to copy): the first part right here, at the end of what
        # was found, the rest within the page's foot and the next head
        for j in range(len(w) - 2, 2, -1):
            a = hay.find(w[:j], pos, pos + slack + j)
            if a >= 0:
                b = hay.find(w[j:], a + j, a + j + 400)
                if b >= 0:
                    return b + len(w[j:]) - len(w)
        return -1
    pos = 0
    lost = 0
    missing = []
    for i, w in enumerate(words):
        end = pos + window + len(w)
        k = hay.find(w, pos, end)
        if k < 0 or k - pos > slack:
            h = across_page(w)
            if h >= 0:
                k = h
        while k >= 0 and k - pos > slack and not confirm(i, k + len(w)):
            k = hay.find(w, k + 1, end)
        if k < 0 and lost:
            # after a loss (a stretch of text missing, or replaced by hex
            # boxes, up to 8 characters for one), resynchronise on a
            # confirmed match no farther ahead than the lost text could
            # have taken
            end = pos + window + 8 * lost
            k = hay.find(w, pos, end)
            while k >= 0 and not confirm(i, k + len(w)):
                k = hay.find(w, k + 1, end)
        if k < 0:
            missing.append((i, w))
            lost += len(w) + 1
        else:
            pos = k + len(w)
            lost = 0
    return missing


def epub_plain(epub):
    return epub_words.epub_text(epub)


def logical_order(text):
    """pdftotext -raw reverses every right-to-left "word" it finds (between
    U+202B and U+202C), taking the drawing for visual order. octavo draws a
    right-to-left run in reading order (cairo's backward clusters), each
    glyph a word of its own there: reversing one letter changes nothing,
    but a glyph of several letters (the lam-alef ligature, لا) comes out
    reversed (ال). Put each such run back, cluster by cluster (a mark stays
    after its base character)."""
    def rev(m):
        clusters, marks = [], ""
        for c in m.group(1):
            if unicodedata.category(c).startswith("M"):
                marks += c
            else:
                clusters.append(c + marks)
                marks = ""
        if marks:
            clusters.append(marks)
        return "".join(reversed(clusters))
    return re.sub("\u202b([^\u202b\u202c]*)\u202c", rev, text)


def pdf_plain(pdf):
    return logical_order(pdf_check.pdf_text(pdf))


pdf_check_text = pdf_check.pdf_text


def book_title(book):
    """The title a book names in its metadata (the OPF's dc:title, the PDF's
    /Title)."""
    if book.endswith(".epub"):
        with zipfile.ZipFile(book) as z:
            opf = z.read("EPUB/package.opf").decode("utf-8")
        m = re.search(r"<dc:title[^>]*>([^<]*)<", opf)
        return html.unescape(m.group(1)) if m else ""
    out = subprocess.run(["pdfinfo", book], capture_output=True, text=True).stdout
    m = re.search(r"^Title:\s*(.*)$", out, re.M)
    return m.group(1).strip() if m else ""


def check_words(bookdir, book):
    src = parse_source(bookdir)
    words = []
    # The book's title is metadata, shown first (cover, title page): a # line
    # taken as the title (the one # after a row of links, a series line that
    # opens every file) is not in the chapters' text (issue 27).
    title = " ".join(book_title(book).split())
    taken = False
    # The PDF sets a footnote at the foot of the page that refers to it,
    # where the source (cmark-gfm) has it at the file's end: the PDF's
    # notes are looked for apart, each file's in order, anywhere in the
    # text (in the main order, a note's common words found far ahead,
    # "と呼ばれる仕組み", pulled the search past whole chapters).
    pdf = not book.endswith(".epub")
    notes = []
    for f, p in src:
        text = list(p.text)
        for a, b, t in p.h1_spans:
            if t == title:
                text[a:b] = [" "] * (b - a)
                taken = True
        for a, b in p.notes_spans if pdf else []:
            notes.append([squeeze(w) for w in words_of("".join(text[a:b]))])
            text[a:b] = [" "] * (b - a)
        words += [squeeze(w) for w in words_of("".join(text))]
    if taken:
        words = [squeeze(w) for w in words_of(title)] + words
    if book.endswith(".epub"):
        # the alt text of an image is not the chapter's text: leave it out
        z_text = epub_plain_no_alt(book)
    else:
        z_text = pdf_plain(book)
    hay, shy = squeeze_shy(z_text)
    missing = find_in_order(words, hay, shy=shy)
    for nw in notes:
        base = len(words)
        words += nw
        missing += [(base + i, w) for i, w in find_in_order(nw, hay, window=len(hay), shy=shy)]
    for i, w in missing[:15]:
        ctx = " ".join(words[max(0, i - 6):i + 6])
        print(f"  word {i + 1} {w!r} missing; source: {ctx}", file=sys.stderr)
    kind = "EPUB" if book.endswith(".epub") else "PDF"
    print(f"{len(words)} source words, {len(missing)} missing from the {kind} "
          f"({100.0 * len(missing) / max(1, len(words)):.2f}%)")
    return not missing and words


def epub_plain_no_alt(epub):
    class T(epub_words.Text):
        def handle_starttag(self, tag, attrs):
            if tag in ("head", "script", "style"):
                self.skip += 1
            self.parts.append(" ")
    orig = epub_words.Text
    epub_words.Text = T
    try:
        return epub_words.epub_text(epub)
    finally:
        epub_words.Text = orig


# --- EPUB structure ----------------------------------------------------------

NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "o": "http://www.idpf.org/2007/opf",
      "x": "http://www.w3.org/1999/xhtml", "n": "http://www.daisy.org/z3986/2005/ncx/",
      "e": "http://www.idpf.org/2007/ops"}


def open_epub(path):
    return Epub(path)


class Epub:
    def __init__(self, path):
        self.z = zipfile.ZipFile(path)
        c = ET.fromstring(self.z.read("META-INF/container.xml"))
        self.opf_path = c.find(".//c:rootfile", NS).get("full-path")
        self.base = os.path.dirname(self.opf_path)
        self.opf = ET.fromstring(self.z.read(self.opf_path))
        self.items = {i.get("id"): i for i in self.opf.findall(".//o:manifest/o:item", NS)}
        self.spine = [self.items[r.get("idref")] for r in self.opf.findall(".//o:spine/o:itemref", NS)]

    def path(self, href, rel_to=None):
        d = os.path.dirname(rel_to) if rel_to else self.base
        return os.path.normpath(os.path.join(d, href.split("#")[0])).lstrip("./") if href else None

    def read(self, zpath):
        return self.z.read(zpath)

    def item_path(self, item):
        return os.path.normpath(os.path.join(self.base, item.get("href")))

    def nav_item(self):
        return next(i for i in self.items.values() if "nav" in (i.get("properties") or "").split())

    def ncx_item(self):
        return next((i for i in self.items.values() if i.get("media-type") == "application/x-dtbncx+xml"), None)


def norm(t):
    return " ".join(html.unescape(t).split())


def elem_text(e):
    return norm("".join(e.itertext()))


def nav_entries(ep):
    """(depth, title) of the nav's toc, depth 0 for the outermost list."""
    nav = ep.nav_item()
    doc = ET.fromstring(ep.read(ep.item_path(nav)))
    toc = None
    for n in doc.iter("{%s}nav" % NS["x"]):
        if n.get("{%s}type" % NS["e"]) == "toc":
            toc = n
    out = []

    def walk(ol, depth):
        for li in ol.findall("x:li", NS):
            a = li.find("x:a", NS)
            if a is None:
                a = li.find("x:span", NS)
            if a is not None:
                out.append((depth, elem_text(a)))
            sub = li.find("x:ol", NS)
            if sub is not None:
                walk(sub, depth + 1)
    if toc is not None:
        ol = toc.find("x:ol", NS)
        if ol is not None:
            walk(ol, 0)
    return out


def ncx_entries(ep):
    item = ep.ncx_item()
    if item is None:
        return None
    doc = ET.fromstring(ep.read(ep.item_path(item)))
    out = []

    def walk(node, depth):
        for np in node.findall("n:navPoint", NS):
            out.append((depth, norm("".join(np.find("n:navLabel/n:text", NS).itertext()))))
            walk(np, depth + 1)
    walk(doc.find("n:navMap", NS), 0)
    return out


class XText(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.headings = 0
        self.words = 0
        self.images = []
        self.skip = 0
        self.body = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("head", "script", "style"):
            self.skip += 1
        if tag == "body":
            self.body = True
        if re.fullmatch(r"h[1-6]", tag):
            self.headings += 1
        if tag == "img":
            self.images.append(a.get("src"))
        if tag == "image":
            self.images.append(a.get("xlink:href") or a.get("href"))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in ("head", "script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip and self.body:
            self.words += len(words_of(data))


def epub_docs(ep):
    """(item, XText) for every spine document but the nav."""
    out = []
    for item in ep.spine:
        if "nav" in (item.get("properties") or "").split():
            continue
        p = XText()
        p.feed(ep.read(ep.item_path(item)).decode("utf-8"))
        out.append((item, p))
    return out


# --- PDF access --------------------------------------------------------------

def qpdf_objects(pdf):
    """pdf_check.qpdf_objects, but a PDF that qpdf repairs with warnings
    (exit 3) is still read: the damage is reported by t-corpus.sh's qpdf --check."""
    r = subprocess.run(["qpdf", "--json=2", "--json-key=qpdf", pdf], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        raise SystemExit(f"qpdf --json failed on {pdf}: {r.stderr.strip()[:300]}")
    return json.loads(r.stdout)["qpdf"][1]


pdf_check.qpdf_objects = qpdf_objects


def qpdf_full(pdf):
    r = subprocess.run(["qpdf", "--json=2", "--json-stream-data=inline", "--decode-level=generalized",
                        pdf], capture_output=True, text=True)
    if r.returncode not in (0, 3):  # 3: warnings (printed on stderr), the JSON is still written
        raise SystemExit(f"qpdf --json failed on {pdf}: {r.stderr.strip()[:300]}")
    out = r.stdout
    return json.loads(out)["qpdf"][1]


def stream_data(objs, ref):
    o = objs.get("obj:" + ref) if isinstance(ref, str) else None
    if not o or "stream" not in o:
        return b""
    return base64.b64decode(o["stream"].get("data") or "")


def sval(objs, ref):
    """A stream's dictionary or an object's value, following a reference."""
    if isinstance(ref, str) and ref.endswith(" R"):
        o = objs.get("obj:" + ref)
        if not o:
            return None
        if "stream" in o:
            return o["stream"].get("dict")
        return o.get("value")
    return ref


def pdf_pages(objs):
    return [r for r in pdf_check.pages(objs)]


def page_size(objs, ref):
    p = sval(objs, ref)
    mb = p.get("/MediaBox")
    node = p
    while mb is None and node.get("/Parent"):
        node = sval(objs, node["/Parent"])
        mb = node.get("/MediaBox")
    return [float(x) for x in mb]


# content-stream tokenizer
TOK = re.compile(rb"""
   (?P<ws>[\x00\x09\x0a\x0c\x0d\x20]+|%[^\r\n]*)
 | (?P<str>\()
 | (?P<hex><[0-9A-Fa-f\s]*>)
 | (?P<dopen><<) | (?P<dclose>>>)
 | (?P<aopen>\[) | (?P<aclose>\])
 | (?P<name>/[^\x00\x09\x0a\x0c\x0d\x20()<>\[\]{}/%]*)
 | (?P<num>[+-]?(?:\d+\.?\d*|\.\d+))
 | (?P<op>[^\x00\x09\x0a\x0c\x0d\x20()<>\[\]{}/%]+)
""", re.X)
ESC = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


def read_literal(data, i):
    """data[i] is just after '('; returns (bytes, index after ')')."""
    out = bytearray()
    depth = 1
    while i < len(data):
        c = data[i:i + 1]
        if c == b"\\":
            n = data[i + 1:i + 2]
            if n in ESC:
                out += ESC[n]
                i += 2
            elif n.isdigit():
                m = re.match(rb"[0-7]{1,3}", data[i + 1:i + 4])
                out.append(int(m.group(0), 8) & 255)
                i += 1 + len(m.group(0))
            elif n in (b"\r", b"\n"):
                i += 2
            else:
                out += n
                i += 2
            continue
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
            if depth == 0:
                return bytes(out), i + 1
        out += c
        i += 1
    return bytes(out), i


def shown_strings(args):
    """The byte strings a text-showing operator (Tj ' " TJ) shows."""
    strs = []
    for a in args:
        if isinstance(a, bytes):
            strs.append(a)
        elif isinstance(a, list):
            strs += [x for x in a if isinstance(x, bytes)]
    return strs


def content_ops(data):
    """Yield (operator, operands) of a content stream. Strings are bytes,
    arrays lists, dictionaries skipped (as None)."""
    i = 0
    stack = []
    arrays = []
    ddepth = 0
    while i < len(data):
        m = TOK.match(data, i)
        if not m:
            i += 1
            continue
        kind = m.lastgroup
        i = m.end()
        if kind == "ws":
            continue
        if kind == "dopen":
            ddepth += 1
            continue
        if kind == "dclose":
            ddepth -= 1
            if ddepth == 0:
                (arrays[-1] if arrays else stack).append(None)
            continue
        if kind == "str":
            v, i = read_literal(data, i)
        elif kind == "hex":
            h = re.sub(rb"\s", b"", m.group(0)[1:-1])
            if len(h) % 2:
                h += b"0"
            v = bytes.fromhex(h.decode())
        elif kind == "name":
            v = m.group(0).decode("latin-1")
        elif kind == "num":
            v = float(m.group(0))
        elif kind == "aopen":
            arrays.append([])
            continue
        elif kind == "aclose":
            a = arrays.pop() if arrays else []
            (arrays[-1] if arrays else stack).append(a)
            continue
        else:
            op = m.group(0).decode("latin-1")
            if ddepth:
                continue
            if op in ("true", "false", "null"):
                (arrays[-1] if arrays else stack).append(op)
                continue
            if op == "BI":  # inline image: skip to EI
                k = data.find(b"EI", i)
                i = k + 2 if k >= 0 else len(data)
                stack = []
                continue
            yield op, stack
            stack = []
            continue
        if ddepth:
            continue
        (arrays[-1] if arrays else stack).append(v)


def tounicode_map(objs, font):
    cmap = {}
    data = stream_data(objs, font.get("/ToUnicode")).decode("latin-1") if font.get("/ToUnicode") else ""
    for block in re.findall(r"beginbfchar(.*?)endbfchar", data, re.S):
        for a, b in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>", block):
            cmap[int(a, 16)] = bytes.fromhex(b).decode("utf-16-be", "replace")
    for block in re.findall(r"beginbfrange(.*?)endbfrange", data, re.S):
        for a, b, c in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]*>|\[[^\]]*\])", block):
            lo, hi = int(a, 16), int(b, 16)
            if c.startswith("<"):
                base = int(c[1:-1], 16) if c[1:-1] else 0
                for k in range(lo, hi + 1):
                    cmap[k] = chr(base + k - lo) if base + k - lo < 0x110000 else "?"
            else:
                for k, h in zip(range(lo, hi + 1), re.findall(r"<([0-9A-Fa-f]*)>", c)):
                    cmap[k] = bytes.fromhex(h).decode("utf-16-be", "replace")
    return cmap


def page_streams(objs, page_ref, with_xobjects=False):
    """(content bytes, font dict by resource name) for a page and, in order
    of use, the form XObjects it draws (with_xobjects: and the XObjects by
    resource name, a third member)."""
    out = []

    def resources(d):
        r = sval(objs, d.get("/Resources")) or {}
        fonts = {k: sval(objs, v) for k, v in (sval(objs, r.get("/Font")) or {}).items()}
        xobjs = dict(sval(objs, r.get("/XObject")) or {})
        return fonts, xobjs

    page = sval(objs, page_ref)
    contents = page.get("/Contents")
    refs = contents if isinstance(contents, list) else [contents]
    data = b"\n".join(stream_data(objs, r) for r in refs if r)
    fonts, xobjs = resources(page)
    seen = set()

    def visit(data, fonts, xobjs):
        out.append((data, fonts, xobjs) if with_xobjects else (data, fonts))
        for op, args in content_ops(data):
            if op == "Do" and args and args[-1] in xobjs:
                ref = xobjs[args[-1]]
                if ref in seen:
                    continue
                seen.add(ref)
                d = sval(objs, ref)
                if d and d.get("/Subtype") == "/Form":
                    f2, x2 = resources(d)
                    visit(stream_data(objs, ref), {**fonts, **f2}, x2)
    visit(data, fonts, xobjs)
    return out


content_ops_gen = content_ops
stream_data_plain = stream_data


# --- glyphs: .notdef and hex boxes --------------------------------------------

def check_glyphs(pdf):
    """Two kinds of missing glyph. (1) .notdef: a shown code that selects
    glyph 0 of the embedded subset. cairo writes a subset either as a Type0
    font with Identity-H (2-byte codes = CIDs, CID 0 is .notdef) or as a
    simple TrueType/Type1 subset whose code 0 is reserved for .notdef; so
    code 0 in either is a .notdef drawn. A Type 3 font (cairo's user fonts:
    octavo's carrier of colour emoji's text) has no .notdef: its code 0 is
    an ordinary glyph, named by its /Encoding. (2) pango's hex box,
    which pango draws instead of .notdef when no face has a character: a
    stroked rectangle ('re S') followed by a text object that shows only
    hexadecimal digits (the code point, in two rows). Both are counted per
    page from the decoded content streams (qpdf --json)."""
    objs = qpdf_full(pdf)
    pages = pdf_pages(objs)
    notdef = hexbox = 0
    where_n, where_h = [], []
    cmaps = {}
    for pno, ref in enumerate(pages, 1):
        for data, fonts in page_streams(objs, ref):
            font = None
            last_rect_stroke = False
            pending_re = False
            in_box_text = None
            for op, args in content_ops(data):
                if op == "re":
                    pending_re = True
                    continue
                if op in ("S", "s") and pending_re:
                    last_rect_stroke = True
                    pending_re = False
                    continue
                if op in ("f", "F", "f*", "B", "B*", "b", "b*", "n", "W", "W*"):
                    pending_re = False
                if op == "BT":
                    in_box_text = [] if last_rect_stroke else None
                    last_rect_stroke = False
                    continue
                if op == "ET":
                    if in_box_text is not None:
                        s = "".join(in_box_text)
                        if re.fullmatch(r"[0-9A-F]{4,6}", s):
                            hexbox += 1
                            if len(where_h) < 10:
                                where_h.append(f"p{pno}:U+{s}")
                    in_box_text = None
                    continue
                if op == "Tf" and len(args) >= 2:
                    font = fonts.get(args[0])
                    continue
                if op in ("Tj", "'", '"', "TJ"):
                    strs = shown_strings(args)
                    two = bool(font) and font.get("/Subtype") == "/Type0"
                    type3 = bool(font) and font.get("/Subtype") == "/Type3"
                    fid = id(font)
                    if font is not None and fid not in cmaps:
                        cmaps[fid] = tounicode_map(objs, font)
                    cm = cmaps.get(fid, {})
                    for s in strs:
                        codes = ([int.from_bytes(s[k:k + 2], "big") for k in range(0, len(s) - 1, 2)]
                                 if two else list(s))
                        for c in codes:
                            if c == 0 and not type3:
                                notdef += 1
                                if len(where_n) < 10:
                                    where_n.append(f"p{pno}")
                        if in_box_text is not None:
                            in_box_text.append("".join(cm.get(c, chr(c) if not two else "?") for c in codes))
                    last_rect_stroke = False
    if where_n:
        print("  .notdef drawn on " + ", ".join(where_n), file=sys.stderr)
    if where_h:
        print("  hex boxes: " + ", ".join(where_h), file=sys.stderr)
    print(f"{len(pages)} pages, {notdef} .notdef glyphs, {hexbox} hex boxes (tofu)")
    return notdef == 0 and hexbox == 0


# --- images ------------------------------------------------------------------

RASTER = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def source_images(bookdir):
    """(local, remote): local is a list of (path, kind) in order."""
    local, remote = [], []
    for f, p in parse_source(bookdir):
        for src in p.images:
            if re.match(r"[a-z][a-z0-9+.-]*:", src, re.I):
                remote.append(src)
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(f), src.split("#")[0].split("?")[0]))
            kind = "svg" if path.lower().endswith(".svg") else "raster"
            local.append((path, kind))
    return local, remote


def sha(b):
    return hashlib.sha256(b).hexdigest()


def pdf_raster_draws(pdf):
    """How many times the pages draw an image XObject (what pdfimages -list
    lists as rows of type "image"), from the content streams and the form
    XObjects they draw."""
    objs = qpdf_full(pdf)
    n = 0
    for ref in pdf_pages(objs):
        for data, _, xobjs in page_streams(objs, ref, with_xobjects=True):
            for op, args in content_ops(data):
                if op == "Do" and args and args[-1] in xobjs:
                    d = sval(objs, xobjs[args[-1]]) or {}
                    n += d.get("/Subtype") == "/Image"
    return n


def struct_elems(objs):
    root = sval(objs, pdf_check.catalog(objs).get("/StructTreeRoot"))
    out = []
    if not isinstance(root, dict):
        return out
    stack = [root.get("/K")]
    while stack:
        k = stack.pop()
        kv = sval(objs, k)
        if isinstance(kv, list):
            stack.extend(reversed(kv))
        elif isinstance(kv, dict):
            if "/S" in kv:
                out.append(kv)
            if "/K" in kv:
                stack.append(kv["/K"])
    return out


def check_images(bookdir, epub, pdf):
    local, remote = source_images(bookdir)
    n_svg = sum(1 for _, k in local if k == "svg")
    n_ras = len(local) - n_svg
    missing_files = sorted({p for p, _ in local if not os.path.exists(p)})
    # EPUB: every <img>/<image> of the chapters that points to a manifest
    # item, and the source files' bytes among the EPUB's files
    ep = open_epub(epub)
    manifest = {ep.item_path(i) for i in ep.items.values()}
    e_imgs = 0
    for item, p in epub_docs(ep):
        if re.search(r"cover|title", item.get("href"), re.I):
            continue
        for src in p.images:
            if src and ep.path(src, ep.item_path(item)) in manifest:
                e_imgs += 1
    hashes = {sha(ep.read(n)) for n in ep.z.namelist()}
    # rasters byte for byte; an SVG is rewritten (sanitised), so counted
    # among the EPUB's image/svg+xml items instead
    want = {sha(open(p, "rb").read()) for p, k in local if os.path.exists(p) and k == "raster"}
    e_svg = sum(1 for i in ep.items.values() if i.get("media-type") == "image/svg+xml")
    n_svg_files = len({p for p, k in local if k == "svg"})
    absent = len(want - hashes)
    # PDF: raster draws (image XObjects drawn) and Figure structure elements
    objs = pdf_check.qpdf_objects(pdf)
    figs = sum(1 for e in struct_elems(objs) if e.get("/S") == "/Figure")
    ras = pdf_raster_draws(pdf)
    ok = True
    msgs = []
    if e_imgs < len(local):
        msgs.append(f"EPUB shows {e_imgs} of {len(local)} local images")
    if absent:
        msgs.append(f"{absent} source raster files not in the EPUB byte for byte")
    if e_svg < n_svg_files:
        msgs.append(f"{e_svg} SVG items in the EPUB for {n_svg_files} SVG files")
    if ras < n_ras:
        msgs.append(f"PDF draws {ras} rasters of {n_ras}")
    if figs < len(local):
        msgs.append(f"PDF has {figs} Figure tags for {len(local)} images ({n_svg} SVG)")
    if missing_files:
        msgs.append(f"source files missing: {missing_files}")
    for m in msgs:
        print("  " + m, file=sys.stderr)
    ok = not msgs
    # a copy of a book without its image files (known.txt) counts them
    gone = f"{len(missing_files)} missing files of " if missing_files else ""
    print(f"{gone}source {len(local)} local images ({n_ras} raster, {n_svg} SVG) + {len(remote)} remote; "
          f"EPUB {e_imgs} shown, {len(want) - absent}/{len(want)} raster files, {e_svg} SVG items; "
          f"PDF {ras} raster draws, {figs} Figure tags")
    return ok


# --- pages: blank pages, text block ------------------------------------------

def bbox_layout(pdf):
    """pdftotext -bbox-layout of the whole PDF (cached by `all`)."""
    return subprocess.run(["pdftotext", "-bbox-layout", pdf, "-"], check=True, capture_output=True,
                          text=True).stdout


def bbox_pages(pdf):
    """[(width, height, [(xmin, ymin, xmax, ymax, word)])] per page, from
    pdftotext -bbox-layout."""
    out = bbox_layout(pdf)
    pages = []
    for pm in re.finditer(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', out, re.S):
        words = [(float(a), float(b), float(c), float(d), html.unescape(w)) for a, b, c, d, w in
                 re.findall(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">(.*?)</word>',
                            pm.group(3))]
        pages.append((float(pm.group(1)), float(pm.group(2)), words))
    return pages


def style_margins(paper="a4"):
    ini = os.path.join(os.path.dirname(__file__), "..", "..", "styles", "print.ini")
    m = {"margin-top": 72, "margin-bottom": 84, "margin-inner": 74, "margin-outer": 96}
    group = None
    for line in open(ini, encoding="utf-8"):
        line = line.strip()
        g = re.fullmatch(r"\[(.*)\]", line)
        if g:
            group = g.group(1)
            continue
        kv = re.fullmatch(r"(margin-\w+)\s*=\s*([\d.]+)", line)
        if kv and group in ("page", "page." + paper):
            if group == "page" or paper != "a4":
                m[kv.group(1)] = float(kv.group(2))
    return m


def outline_pages(objs):
    """(depth, title, page index) of the bookmarks."""
    dests = pdf_check.named_dests(objs)
    pages = pdf_pages(objs)
    idx = {r: i for i, r in enumerate(pages)}
    out = []
    for depth, title, item in pdf_check.outline(objs):
        d = item.get("/Dest")
        if d is None and item.get("/A"):
            d = sval(objs, item["/A"]).get("/D")
        if isinstance(d, list):
            target = d
        else:
            target = dests.get(pdf_check.pdf_str(d))
            target = sval(objs, target)
            if isinstance(target, dict):
                target = target.get("/D")
        p = idx.get(target[0]) if isinstance(target, list) and target else None
        out.append((depth, " ".join((title or "").split()), p))
    return out


def drawn_pages(pdf, n):
    """Pages that draw an image or a path (pdfimages for images; content
    stream operators for vector drawing)."""
    objs = qpdf_full(pdf)
    pages = pdf_pages(objs)
    drawn = set()
    for i, ref in enumerate(pages):
        for data, _ in page_streams(objs, ref):
            for op, _ in content_ops(data):
                if op in ("Do", "f", "f*", "F", "S", "B", "B*", "sh"):
                    drawn.add(i)
                    break
    return drawn, objs


def check_blank(pdf):
    """A page with no word is blank unless it draws something. A blank page
    is a planned verso when it is an even page (page 1 is a recto) and the
    next page starts an outline entry (a chapter opening on a recto) or it
    is page 2 (the back of the title page). Running heads and folios count
    as words only inside the text block, so a page with only a folio is
    blank."""
    pages = bbox_pages(pdf)
    m = style_margins()
    drawn, objs = drawn_pages(pdf, len(pages))
    starts = {p for _, _, p in outline_pages(objs) if p is not None}
    blank, planned, unplanned = [], [], []
    for i, (w, h, words) in enumerate(pages):
        body = [x for x in words if x[1] >= m["margin-top"] - 2 and x[3] <= h - m["margin-bottom"] + 2]
        if body or i in drawn:
            continue
        blank.append(i + 1)
        verso = (i + 1) % 2 == 0
        if verso and (i + 1 in starts or i == 1 or i == len(pages) - 1):
            planned.append(i + 1)
        else:
            unplanned.append(i + 1)
    if unplanned:
        print(f"  unplanned blank pages: {unplanned[:30]}", file=sys.stderr)
    print(f"{len(pages)} pages, {len(blank)} blank, {len(planned)} planned versos, {len(unplanned)} unplanned")
    return not unplanned


def bound_right(objs):
    """Whether the PDF is bound on the right (a book read right to left:
    /ViewerPreferences /Direction /R2L), its rectos' inner margin at the
    right."""
    vp = pdf_check.val(objs, pdf_check.catalog(objs).get("/ViewerPreferences"))
    return isinstance(vp, dict) and vp.get("/Direction") == "/R2L"


def check_bbox(pdf):
    """Every word box within the text block: horizontally between the
    margins (inner margin on the left of odd pages, page 1 being a recto;
    on the right in a book bound on the right),
    vertically inside the block, or in the running-head band (the upper
    margin's lower three quarters) or the folio band (the lower margin's
    upper three quarters). Tolerance 1 pt. Page 1, the title page or
    cover, is a design of its own (its title is set across the page)."""
    m = style_margins()
    pages = bbox_pages(pdf)
    rtl = bound_right(pdf_check.qpdf_objects(pdf))
    bad = []
    n = 0
    tol = 1.0
    for i, (w, h, words) in enumerate(pages):
        if i == 0:
            continue
        odd = ((i + 1) % 2 == 1) != rtl
        left = m["margin-inner"] if odd else m["margin-outer"]
        right = w - (m["margin-outer"] if odd else m["margin-inner"])
        top, bottom = m["margin-top"], h - m["margin-bottom"]
        for x0, y0, x1, y1, word in words:
            n += 1
            ok_x = x0 >= left - tol and x1 <= right + tol
            # pdftotext's box runs from the font's ascent to its descent,
            # beyond the type's body: allow a quarter of the box's height
            vt = tol + 0.25 * (y1 - y0)
            ok_y = (y0 >= top - vt and y1 <= bottom + vt) or \
                   (y0 >= top * 0.25 and y1 <= top + tol) or \
                   (y0 >= bottom - tol and y1 <= h - m["margin-bottom"] * 0.25)
            if not (ok_x and ok_y):
                bad.append((i + 1, word, x0, y0, x1, y1))
    for p, word, x0, y0, x1, y1 in bad[:12]:
        print(f"  p{p} {word[:40]!r} at x {x0:.1f}..{x1:.1f} y {y0:.1f}..{y1:.1f}", file=sys.stderr)
    pages_bad = sorted({b[0] for b in bad})
    print(f"{n} word boxes, {len(bad)} outside the text block on {len(pages_bad)} pages"
          + (f" (first pages {pages_bad[:8]})" if pages_bad else ""))
    return not bad


# --- chapters ----------------------------------------------------------------

def check_chapters(epub, pdf, bookdir=None):
    """EPUB: every spine document but the nav, the cover and the title page
    has a heading (h1..h6) and at least one word beyond it. PDF: every
    bookmark leads to a page, and every top-level bookmark's pages (to the
    next top-level bookmark) hold its title (right-to-left runs put back in
    reading order) and more than two words more (the folio is one), except a part
    (a top-level entry followed by deeper ones), whose page may hold only
    its title, and a heading the source follows with no text (BOOKDIR
    given)."""
    ep = open_epub(epub)
    bad_e = []
    docs = epub_docs(ep)
    for item, p in docs:
        href = item.get("href")
        props = (item.get("properties") or "")
        if re.search(r"cover|title", href, re.I) or "cover" in props:
            continue
        if p.headings == 0 or p.words == 0:
            bad_e.append(f"{href} ({p.headings} headings, {p.words} words)")
    objs = pdf_check.qpdf_objects(pdf)
    ol = outline_pages(objs)
    n_pages = len(pdf_pages(objs))
    # a top-level entry directly followed by a deeper one is a part (a
    # '#' above '##' chapters): its page may hold its title alone
    parts = {k for k in range(len(ol) - 1) if ol[k][0] == 0 and ol[k + 1][0] > 0}
    top = [(t, p, k in parts) for k, (d, t, p) in enumerate(ol) if d == 0 and p is not None]
    # a bookmark whose destination names no page (cairo 1.16 wrote a
    # non-ASCII name's link as UTF-16, the name tree as UTF-8) leads nowhere
    bad_p = [f"{t!r} (its destination is no page)" for d, t, p in ol if p is None]
    n_parts = n_empty_src = 0
    # headings the source itself follows with no text (another heading, or
    # the file's end): their chapter may be a title alone
    empty_in_source = set()
    if bookdir:
        for _, sp in parse_source(bookdir):
            empty_in_source |= {squeeze(t) for t, n in sp.sections if n == 0}
    for k, (title, p, part) in enumerate(top):
        end = top[k + 1][1] if k + 1 < len(top) else n_pages
        end = max(end, p + 1)
        # in reading order, as the title is: pdftotext -raw reverses a
        # right-to-left ligature's letters (logical_order)
        text = logical_order(pdf_check.pdf_text(pdf, p + 1, end))
        words = words_of(text)
        tw = words_of(title)
        rest = len(words) - len(tw)
        if part and squeeze(title) in squeeze(text):
            n_parts += 1
            continue
        if rest <= 2 and squeeze(title) in squeeze(text) and squeeze(title) in empty_in_source:
            n_empty_src += 1
            continue
        if squeeze(title) not in squeeze(text) or rest <= 2:
            bad_p.append(f"{title!r} p{p + 1}-{end} ({rest} words beyond the title)")
    for b in bad_e[:10]:
        print("  EPUB: " + b, file=sys.stderr)
    for b in bad_p[:10]:
        print("  PDF: " + b, file=sys.stderr)
    print(f"EPUB {len(docs)} spine documents, {len(bad_e)} without heading or text; "
          f"PDF {len(top)} top-level entries ({n_parts} parts, {n_empty_src} empty in the source too), "
          f"{len(bad_p)} without heading or text")
    return not bad_e and not bad_p


# --- outline ------------------------------------------------------------------

RTL_CHAR = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def visual_to_logical(words):
    """A line's words as pdftotext -bbox-layout gives them, left to right,
    in reading order: a right-to-left run is drawn in reading order, each
    glyph a word of its own there, so a line holding right-to-left text
    (its base direction) is read from its right end, a run of left-to-right
    words (a Latin name, a number) kept in its own order."""
    if not any(RTL_CHAR.search(w) for w in words):
        return words
    n = len(words)  # the leader dots and the number (left to right) stay at the end
    if n and re.fullmatch(r"[\divxlcdm]+", words[n - 1]) and n > 1 and words[n - 2] == ".":
        n -= 1
    while n and words[n - 1] == ".":
        n -= 1
    words, dots = words[:n], words[n:]
    out, ltr = [], []
    for w in reversed(words):
        if RTL_CHAR.search(w) or not any(c.isalnum() for c in w):
            out += ltr[::-1] + [w]
            ltr = []
        else:
            ltr.append(w)
    return out + ltr[::-1] + dots


def pdf_contents(pdf, objs):
    """(depth, title) of the printed contents: the front (roman-numbered)
    pages' lines ending in leader dots and a page number, a title wrapped
    over several lines joined; depth from the first line's left edge (its
    right edge in a book bound on the right, its titles set at the right)."""
    n = len(pdf_pages(objs))
    labels = pdf_check.page_labels(objs, n)
    front = [i for i, l in enumerate(labels) if re.fullmatch(r"[ivxlcdm]+", l)]
    if not front:
        return []
    all_pages = list(re.finditer(r"<page [^>]*>(.*?)</page>", bbox_layout(pdf), re.S))
    entries = []
    pending = None
    m = style_margins()
    rtl = bound_right(objs)
    for k, pm in enumerate(all_pages[front[0]:front[-1] + 1]):
        physical = front[0] + k + 1
        left = m["margin-inner"] if (physical % 2 == 1) != rtl else m["margin-outer"]
        lines = []
        for lm in re.finditer(r'<line xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="[-\d.]+" yMax="([-\d.]+)"[^>]*>(.*?)</line>',
                              pm.group(1), re.S):
            words = re.findall(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">(.*?)</word>',
                               lm.group(4))
            if any(RTL_CHAR.search(w[4]) for w in words):
                # word by word: a right-to-left title is a word per glyph,
                # and pdftotext's lines follow the page's main direction
                for x0, y0, x1, y1, w in words:
                    lines.append(((float(y0) + float(y1)) / 2, float(x0) - left, html.unescape(w),
                                  float(x1) - left))
                continue
            # by the centre of the box: a title in the (smaller) code face sits on the same line
            centre = (float(lm.group(2)) + float(lm.group(3))) / 2
            lines.append((centre, float(lm.group(1)) - left, " ".join(html.unescape(w[4]) for w in words),
                          max(float(w[2]) for w in words) - left))
        lines.sort()  # reading order: top to bottom, then left to right
        merged = []   # the words of one line (a title in another face, its dots, its number) joined
        for y, x, text, x1 in lines:
            if merged and abs(merged[-1][0][0] - y) <= 2.5:
                merged[-1].append((y, x, text, x1))
            else:
                merged.append([(y, x, text, x1)])
        lines = []
        for group in merged:  # left to right within a line, then in reading order
            group.sort(key=lambda t: t[1])
            # the indent: from the left edge, or (titles at the right) the right edge
            x = -max(t[3] for t in group) if rtl else group[0][1]
            lines.append((group[0][0], x,
                          " ".join(visual_to_logical(" ".join(t[2] for t in group).split()))))
        page_entries = []
        for _, x, text in lines:
            m2 = re.match(r"^(.*?)\s*(?:\.\s*){3,}([\divxlcdm]+)?\s*$", text)
            if m2:
                title = ((pending[1] + " ") if pending else "") + m2.group(1)
                x0 = pending[0] if pending else x
                page_entries.append((x0, " ".join(title.split())))
                pending = None
            elif entries or page_entries or pending:
                # (lines before the first entry of all: the contents' heading; a
                # later page may open with the first line of a wrapped title)
                pending = (pending[0], pending[1] + " " + text) if pending else (x, text)
        if page_entries:
            entries += page_entries
        else:
            pending = None
    xs = sorted({round(x) for x, _ in entries})
    # indentation levels: cluster the left edges (a step is at least 4 pt)
    levels = []
    for x in xs:
        if not levels or x - levels[-1] >= 4:
            levels.append(x)
    def depth(x):
        return max(i for i, l in enumerate(levels) if round(x) >= l)
    return [(depth(x), t) for x, t in entries]


def check_outline(epub, pdf):
    ep = open_epub(epub)
    nav = nav_entries(ep)
    ncx = ncx_entries(ep) or []
    objs = pdf_check.qpdf_objects(pdf)
    marks = [(d, t) for d, t, _ in outline_pages(objs)]
    toc = pdf_contents(pdf, objs)
    key = lambda l: [(d, squeeze(t)) for d, t in l]
    lists = {"NCX": ncx, "PDF contents": toc, "PDF bookmarks": marks}
    bad = 0
    for name, l in lists.items():
        if key(l) != key(nav):
            bad += 1
            a, b = key(nav), key(l)
            k = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            na = nav[k] if k < len(nav) else None
            nb = l[k] if k < len(l) else None
            print(f"  {name} differs from the nav at entry {k + 1}: nav {na} / {name} {nb}", file=sys.stderr)
    depths = lambda l: max((d for d, _ in l), default=-1) + 1
    print(f"nav {len(nav)} entries ({depths(nav)} levels), NCX {len(ncx)} ({depths(ncx)}), "
          f"PDF contents {len(toc)} ({depths(toc)}), bookmarks {len(marks)} ({depths(marks)}); "
          f"{bad} of 3 differ from the nav")
    return bad == 0 and nav


# --- source summary --------------------------------------------------------------

def srcinfo(bookdir):
    src = parse_source(bookdir)
    words = sum(len(words_of("".join(p.text))) for _, p in src)
    local, remote = source_images(bookdir)
    n_svg = sum(1 for _, k in local if k == "svg")
    size = 0
    for r, _, fs in os.walk(bookdir):
        size += sum(os.path.getsize(os.path.join(r, f)) for f in fs)
    print(f"{len(src)} files, {words} words, {len(local)} local images ({n_svg} SVG), "
          f"{len(remote)} remote, {size // 1024} KiB")
    return True


CHECKS = ["words-epub", "words-pdf", "images", "glyphs", "blank", "chapters", "outline", "bbox"]


def check_all(bookdir, epub, pdf, *names):
    """The checks (default CHECKS) on one book in one process: the source,
    the EPUB, qpdf's JSON and pdftotext's outputs are read once each (a page
    range of pdftotext -raw is cut from the whole text at its form feeds).
    Prints "PASS|FAIL check: numbers" and the details indented."""
    import contextlib
    import functools
    import io
    global parse_source, qpdf_full, qpdf_objects, bbox_layout, open_epub
    parse_source = functools.lru_cache(None)(parse_source)
    qpdf_full = functools.lru_cache(None)(qpdf_full)
    qpdf_objects = pdf_check.qpdf_objects = lambda path: qpdf_full(path)
    bbox_layout = functools.lru_cache(None)(bbox_layout)
    open_epub = functools.lru_cache(None)(open_epub)
    raw = functools.lru_cache(None)(lambda path: pdf_check_text(path).split("\f"))
    global content_ops, stream_data
    ops = functools.lru_cache(None)(lambda data: list(content_ops_gen(data)))
    content_ops = lambda data: iter(ops(data))
    decoded = {}

    def stream_data_cached(objs, ref):
        key = (id(objs), ref)
        if key not in decoded:
            decoded[key] = stream_data_plain(objs, ref)
        return decoded[key]
    stream_data = stream_data_cached

    def text(path, first=None, last=None):
        pages = raw(path)
        if not first:
            return "\f".join(pages)
        return "".join(p + "\f" for p in pages[first - 1:(last or first)])
    pdf_check.pdf_text = text
    runs = {"words-epub": lambda: check_words(bookdir, epub),
            "words-pdf": lambda: check_words(bookdir, pdf),
            "images": lambda: check_images(bookdir, epub, pdf),
            "glyphs": lambda: check_glyphs(pdf), "blank": lambda: check_blank(pdf),
            "chapters": lambda: check_chapters(epub, pdf, bookdir),
            "outline": lambda: check_outline(epub, pdf), "bbox": lambda: check_bbox(pdf)}
    ok_all = True
    for name in names or CHECKS:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            ok = bool(runs[name]())
        ok_all &= ok
        last = (out.getvalue().strip().splitlines() or [""])[-1]
        print(f"{'PASS' if ok else 'FAIL'} {name}: {last}", flush=True)
        for line in err.getvalue().splitlines()[:12]:
            print("    " + line.strip(), flush=True)
    return ok_all


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    fn = {"words": check_words, "images": check_images, "glyphs": check_glyphs, "blank": check_blank,
          "chapters": check_chapters, "outline": check_outline, "bbox": check_bbox,
          "srcinfo": srcinfo, "all": check_all}.get(cmd)
    if not fn:
        print(__doc__, file=sys.stderr)
        return 2
    return 0 if fn(*args) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
