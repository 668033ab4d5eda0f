#!/usr/bin/env python3
"""pdf_check.py: checks of a PDF that octavo wrote, with poppler and qpdf.

  pdf_check.py links PDF             every link annotation and outline entry lands
                                     on a named destination that exists (or is a URI)
  pdf_check.py outline PDF DUMP      the outline has an entry per chapter of the
                                     model dump (octavo --dump-model)
  pdf_check.py words PDF DUMP        every word of the model's text is in
                                     pdftotext -raw output, in order
  pdf_check.py mdwords PDF MD...     the same for the words of plain Markdown files
                                     (headings, lists, emphasis, inline code only)
  pdf_check.py toc PDF               the contents' page numbers are the pages where
                                     the entries' titles appear first
  pdf_check.py headings PDF          the tagged headings never skip a level
  pdf_check.py numbering PDF EPUB    the EPUB nav, the PDF contents and its outline
                                     name (and number) the chapters alike
Exit status 0 when the check holds; messages on stderr otherwise.
"""
import json
import re
import subprocess
import sys

SHY = "\u00ad"


def qpdf_objects(pdf):
    out = subprocess.run(["qpdf", "--json=2", "--json-key=qpdf", pdf], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["qpdf"][1]


def val(objs, ref):
    """The value of an object, following an indirect reference."""
    if isinstance(ref, str) and ref.endswith(" R"):
        o = objs.get("obj:" + ref)
        return o.get("value") if o else None
    return ref


def pdf_str(s):
    if isinstance(s, str) and s.startswith("u:"):
        return s[2:]
    if isinstance(s, str) and s.startswith("b:"):
        return bytes.fromhex(s[2:]).decode("latin-1")
    return s


def catalog(objs):
    for k, v in objs.items():
        d = v.get("value")
        if isinstance(d, dict) and d.get("/Type") == "/Catalog":
            return d
    raise SystemExit("no catalog")


def named_dests(objs):
    names = {}
    cat = catalog(objs)
    root = val(objs, val(objs, cat.get("/Names", {})).get("/Dests")) if "/Names" in cat else None
    stack = [root] if root else []
    while stack:
        node = stack.pop()
        node = val(objs, node)
        if not isinstance(node, dict):
            continue
        arr = node.get("/Names", [])
        for i in range(0, len(arr) - 1, 2):
            names[pdf_str(arr[i])] = val(objs, arr[i + 1])
        stack.extend(node.get("/Kids", []))
    old = val(objs, cat.get("/Dests")) if "/Dests" in cat else None
    if isinstance(old, dict):
        for k, v in old.items():
            names[k.lstrip("/")] = v
    return names


def pages(objs):
    cat = catalog(objs)
    out = []
    stack = [cat["/Pages"]]
    while stack:
        ref = stack.pop(0)
        node = val(objs, ref)
        if node.get("/Type") == "/Pages":
            stack = list(node["/Kids"]) + stack
        else:
            out.append(ref)
    return out


def outline(objs):
    cat = catalog(objs)
    res = []
    if "/Outlines" not in cat:
        return res
    root = val(objs, cat["/Outlines"])
    stack = [(root.get("/First"), 0)] if root.get("/First") else []
    while stack:
        ref, depth = stack.pop()
        item = val(objs, ref)
        res.append((depth, pdf_str(item.get("/Title")), item))
        if item.get("/Next"):
            stack.append((item["/Next"], depth))
        if item.get("/First"):
            stack.append((item["/First"], depth + 1))
    return res


def check_links(pdf):
    objs = qpdf_objects(pdf)
    dests = named_dests(objs)
    page_set = set(pages(objs))
    bad = 0
    nlinks = nuri = 0
    for k, v in objs.items():
        d = v.get("value")
        if not isinstance(d, dict) or d.get("/Subtype") != "/Link":
            continue
        nlinks += 1
        if "/Dest" in d:
            name = pdf_str(d["/Dest"])
            if isinstance(d["/Dest"], list):
                if d["/Dest"][0] not in page_set:
                    print(f"{k}: explicit destination to a missing page", file=sys.stderr)
                    bad += 1
            elif name not in dests or dests[name][0] not in page_set:
                print(f"{k}: destination {name!r} does not exist", file=sys.stderr)
                bad += 1
        elif "/A" in d:
            a = val(objs, d["/A"])
            if a.get("/S") == "/URI" and a.get("/URI"):
                nuri += 1
            elif a.get("/S") == "/GoTo" and pdf_str(a.get("/D")) in dests:
                pass
            else:
                print(f"{k}: action without a target: {a}", file=sys.stderr)
                bad += 1
        else:
            print(f"{k}: link without a destination", file=sys.stderr)
            bad += 1
    for depth, title, item in outline(objs):
        name = pdf_str(item.get("/Dest"))
        if name not in dests:
            print(f"outline {title!r}: destination {name!r} does not exist", file=sys.stderr)
            bad += 1
    print(f"{nlinks} links ({nuri} URIs), {len(dests)} named destinations, "
          f"{len(outline(objs))} outline entries, {bad} broken")
    return bad == 0 and nlinks > 0


def dump_chapters(dump):
    titles = []
    for line in open(dump, encoding="utf-8"):
        m = re.match(r'chapter \d+ id="[^"]*" title="((?:[^"\\]|\\.)*)"', line)
        if m:
            titles.append(unescape(m.group(1)))
    return titles


def check_outline(pdf, dump):
    objs = qpdf_objects(pdf)
    have = [t for d, t, i in outline(objs)]
    missing = [t for t in dump_chapters(dump) if t not in have]
    for t in missing:
        print(f"no outline entry for chapter {t!r}", file=sys.stderr)
    print(f"{len(have)} outline entries, {len(missing)} chapters missing")
    return not missing and have


def unescape(s):
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)


def dump_words(dump):
    """Words of the model's text, in document order (text, code, code blocks):
    a list of word lists, the chapters' first, then one per footnote (a note
    is printed at the foot of its page, so it is checked on its own)."""
    groups = [[]]
    words = groups[0]
    image_indent = None  # the alt text of an image is not printed (its title is)
    for line in open(dump, encoding="utf-8"):
        indent = len(line) - len(line.lstrip())
        s = line.strip()
        if image_indent is not None and indent > image_indent:
            continue
        image_indent = None
        if s.startswith("footnote ") and indent == 0:
            words = []
            groups.append(words)
            continue
        if re.match(r"(image|figure)\b", s) and s.startswith("image"):
            image_indent = indent
            continue
        m = re.match(r'(text|code|code_block)\b.*"((?:[^"\\]|\\.)*)" @', s)
        if m:
            words.extend(tokens(unescape(m.group(2))))
    return groups


def md_words(files):
    words = []
    for f in files:
        text = open(f, encoding="utf-8").read()
        for line in text.splitlines():
            if re.match(r"^By .*, \d{4}-\d\d-\d\d\s*$", line):
                continue  # the byline becomes metadata
            if re.match(r"^#\s", line):
                continue  # the book's title: on the title page
            line = re.sub(r"^\s*(#+|[-*+]|\d+[.)])\s+", "", line)
            line = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", line)
            words.extend(tokens(line.replace("`", "").replace("*", "")))
    return words


def tokens(s):
    return re.findall(r"[^\W\d_]+|\d+", s)


def pdf_text(pdf, first=None, last=None):
    cmd = ["pdftotext", "-raw", "-enc", "UTF-8"]
    if first:
        cmd += ["-f", str(first), "-l", str(last or first)]
    return subprocess.run(cmd + [pdf, "-"], check=True, capture_output=True,
                          text=True).stdout


def pdf_words(pdf):
    t = pdf_text(pdf)
    t = re.sub(SHY + r"\s*\n", "", t)      # hyphenated line ends joined
    t = t.replace(SHY, "")
    t = t.replace("\u21aa", " ")           # code continuation marks
    return tokens(t)


def check_words(pdf, groups):
    have = pdf_words(pdf)
    missing = []
    n = 0
    joined = " " + " ".join(have) + " "
    for k, words in enumerate(groups):
        n += len(words)
        if k == 0:
            missing += missing_words(have, words)
        elif words and " " + " ".join(words) + " " not in joined and not note_in_order(have, words):
            missing.append(" ".join(words))  # a footnote: all of it, in one piece
    for w in missing[:20]:
        print(f"missing or out of order: {w!r}", file=sys.stderr)
    print(f"{n} words, {len(missing)} missing or out of order")
    return not missing and n > 0


def note_in_order(have, words):
    """A footnote's words in order in one stretch of the page text, allowing
    what the PDF adds inside a note: the URL of a link, printed in
    parentheses after its text (at most 12 tokens in each gap)."""
    for start in (i for i, w in enumerate(have) if w == words[0]):
        pos, ok = start + 1, True
        for w in words[1:]:
            nxt = next((i for i in range(pos, min(len(have), pos + 13)) if have[i] == w), None)
            if nxt is None:
                ok = False
                break
            pos = nxt + 1
        if ok:
            return True
    return False


def missing_words(have, words):
    pos = 0
    missing = []
    for w in words:
        found = False
        for i in range(pos, min(len(have), pos + 400)):
            if have[i] == w:
                pos, found = i + 1, True
                break
            # a word cut by a wrapped code line: its pieces in a row
            j, acc = i, ""
            while j < len(have) and len(acc) < len(w) and w.startswith(acc + have[j]):
                acc += have[j]
                j += 1
            if acc == w and j > i + 1:
                pos, found = j, True
                break
        if not found:
            missing.append(w)
    return missing


def page_labels(objs, n):
    cat = catalog(objs)
    labels = [str(i + 1) for i in range(n)]
    pl = val(objs, cat.get("/PageLabels"))
    if not pl:
        return labels
    nums = pl.get("/Nums", [])
    ranges = [(nums[i], val(objs, nums[i + 1])) for i in range(0, len(nums) - 1, 2)]
    for k, (start, d) in enumerate(ranges):
        end = ranges[k + 1][0] if k + 1 < len(ranges) else n
        st = d.get("/St", 1)
        for p in range(start, end):
            num = st + p - start
            style = d.get("/S")
            prefix = pdf_str(d.get("/P", "")) or ""
            if style == "/D":
                body = str(num)
            elif style == "/r":
                body = roman(num)
            else:
                body = ""
            labels[p] = prefix + body
    return labels


def roman(n):
    out = ""
    for v, s in [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                 (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]:
        while n >= v:
            out += s
            n -= v
    return out


def contents_entries(pdf, objs):
    """(title, page label) of the printed contents (front pages, leader dots)."""
    n = len(pages(objs))
    labels = page_labels(objs, n)
    front = [i for i, l in enumerate(labels) if re.fullmatch(r"[ivxlcdm]+", l)]
    entries = []
    for p in front:
        for line in pdf_text(pdf, p + 1).splitlines():
            m = re.match(r"^(.*?)\s*(?:\.\s*){3,}(\d+)\s*$", line)
            if m:
                entries.append((m.group(1).strip(), m.group(2)))
    return entries, labels


def check_numbering(pdf, epub):
    """The e-book's nav, the PDF's printed contents and its bookmarks
    (outline) name the chapters and sections the same way, numbers included:
    the contents list exactly the nav's entries, and the outline holds them
    in the same order (it may hold deeper sections too)."""
    import html
    import zipfile
    z = zipfile.ZipFile(epub)
    name = next(n for n in z.namelist() if n.endswith("nav.xhtml"))
    navdoc = z.read(name).decode("utf-8")
    m = re.search(r'<nav\b[^>]*epub:type="toc"[^>]*>(.*?)</nav>', navdoc, re.S)
    norm = lambda t: " ".join(t.split())
    nav = [norm(html.unescape(re.sub(r"<[^>]+>", "", a)))
           for a in re.findall(r"<a\b[^>]*>(.*?)</a>", m.group(1) if m else "", re.S)]
    objs = qpdf_objects(pdf)
    toc = [norm(t) for t, _ in contents_entries(pdf, objs)[0]]
    marks = [norm(t) for _, t, _ in outline(objs)]
    bad = 0
    if not nav:
        print("no entries in the nav's toc", file=sys.stderr)
        bad += 1
    if toc != nav:
        print(f"the PDF contents {toc} differ from the EPUB nav {nav}", file=sys.stderr)
        bad += 1
    k = 0
    for t in marks:
        if k < len(nav) and t == nav[k]:
            k += 1
    if k < len(nav):
        print(f"the PDF outline {marks} lacks the nav entry {nav[k]!r} (in order)", file=sys.stderr)
        bad += 1
    numbered = sum(1 for t in nav if re.match(r"\d+(\.\d+)*\s", t))
    print(f"{len(nav)} nav entries ({numbered} numbered), {len(toc)} contents entries, "
          f"{len(marks)} bookmarks, {bad} problems")
    return bad == 0


def check_headings(pdf):
    """The structure tree's headings (H1..H6), in document order, never go
    more than one level deeper than the heading before them."""
    objs = qpdf_objects(pdf)
    root = val(objs, catalog(objs).get("/StructTreeRoot"))
    if not isinstance(root, dict):
        print("no structure tree", file=sys.stderr)
        return False
    order = []
    stack = [root.get("/K")]
    while stack:
        k = val(objs, stack.pop())
        if isinstance(k, list):
            stack.extend(reversed(k))
        elif isinstance(k, dict):
            m = re.fullmatch(r"/H([1-6])", str(k.get("/S", "")))
            if m:
                order.append(int(m.group(1)))
            if "/K" in k:
                stack.append(k["/K"])
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(order, order[1:])) if b > a + 1]
    for i, a, b in bad[:10]:
        print(f"heading {i + 2}: H{b} after H{a}", file=sys.stderr)
    print(f"{len(order)} headings tagged, {len(bad)} skipping a level")
    return bool(order) and not bad


def check_toc(pdf):
    objs = qpdf_objects(pdf)
    entries, labels = contents_entries(pdf, objs)
    if not entries:
        print("no contents entries found", file=sys.stderr)
        return False
    bad = 0
    for title, num in entries:
        if num not in labels:
            print(f"{title!r}: page {num} does not exist", file=sys.stderr)
            bad += 1
            continue
        p = labels.index(num) + 1
        def norm(t):  # a title may break after a hyphen in a narrow column
            return re.sub(r"([-\u2010])\s+", r"\1", " ".join(t.replace(SHY + "\n", "").split()))
        if norm(title) not in norm(pdf_text(pdf, p)):
            print(f"{title!r}: not on page {num} (physical {p})", file=sys.stderr)
            bad += 1
    print(f"{len(entries)} contents entries, {bad} wrong")
    return bad == 0


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, pdf = argv[1], argv[2]
    if cmd == "links":
        ok = check_links(pdf)
    elif cmd == "outline":
        ok = check_outline(pdf, argv[3])
    elif cmd == "words":
        ok = check_words(pdf, dump_words(argv[3]))
    elif cmd == "mdwords":
        ok = check_words(pdf, [md_words(argv[3:])])
    elif cmd == "toc":
        ok = check_toc(pdf)
    elif cmd == "headings":
        ok = check_headings(pdf)
    elif cmd == "numbering":
        ok = check_numbering(pdf, argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
