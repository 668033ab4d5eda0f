#!/usr/bin/env python3
"""pdfa_check.py: one check per PDF/A-3u and PDF/UA-1 claim of octavo's
archival PDF (src/archive.c), on the finished file, with qpdf --json.
No PDF/A validator is available here: each subcommand tests one clause.

  pdfa_check.py xmp PDF          a /Metadata XMP stream (/Type /Metadata /Subtype
                                 /XML, not filtered) that parses as XML, with
                                 pdfaid part 3 conformance U, pdfuaid part 1, and
                                 dc:title, dc:creator, dc:description,
                                 pdf:Keywords, xmp:CreatorTool, pdf:Producer,
                                 xmp:CreateDate/ModifyDate equal to the Info
                                 dictionary's Title, Author, Subject, Keywords,
                                 Creator, Producer, CreationDate/ModDate
  pdfa_check.py lang PDF LANG    the catalog's /Lang is LANG, dc:language too
  pdfa_check.py catalog PDF      /MarkInfo /Marked true, /ViewerPreferences
                                 /DisplayDocTitle true, a /StructTreeRoot
  pdfa_check.py tabs PDF         every page has /Tabs /S
  pdfa_check.py intent PDF       one /GTS_PDFA1 output intent whose profile is a
                                 valid ICC profile ('acsp' at byte 36, the header's
                                 size = the stream's, RGB, /N 3)
  pdfa_check.py figures PDF      every Figure structure element has a non-empty /Alt
  pdfa_check.py annots PDF       every annotation has the print flag and none of
                                 invisible/hidden/noview; every link annotation a
                                 non-empty /Contents
  pdfa_check.py attach PDF N     N embedded files, each in /AF and in the
                                 EmbeddedFiles name tree, with /AFRelationship
                                 /Source, /Subtype text/markdown, /Params /ModDate
  pdfa_check.py forbidden PDF    no JavaScript, no encryption, no /Launch, /GoToR,
                                 /GoToE, /ImportData, /SubmitForm, /ResetForm,
                                 /Sound, /Movie, /Rendition, /Hide actions, no /AA,
                                 no reference XObjects (/Ref), no /OPI
  pdfa_check.py fonts PDF        every font's program embedded (FontFile*) and
                                 every font with a /ToUnicode map
  pdfa_check.py same A B         A and B have the same link annotations (rect,
                                 destination, URI), outline (titles, target page),
                                 page labels and structure tree (types, order,
                                 marked content ids, pages)
Exit status 0 when the check holds; messages on stderr otherwise.
"""
import base64
import datetime
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def load(pdf, stream_data=False):
    cmd = ["qpdf", "--json=2"]
    if stream_data:
        cmd.append("--json-stream-data=inline")
    cmd.append(pdf)
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


class Pdf:
    def __init__(self, path, stream_data=False):
        self.j = load(path, stream_data)
        self.objs = self.j["qpdf"][1]
        self.trailer = self.objs["trailer"]["value"]
        self.root = self.get(self.trailer["/Root"])

    def obj(self, ref):
        """The raw entry ({'value'} or {'stream'}) of a reference."""
        return self.objs.get("obj:" + ref) if isinstance(ref, str) and ref.endswith(" R") else None

    def get(self, v):
        """A value, following an indirect reference (a stream gives its dict)."""
        o = self.obj(v)
        if o is None:
            return v
        if "stream" in o:
            return o["stream"]["dict"]
        return o.get("value")

    def data(self, ref):
        o = self.obj(ref)
        d = o["stream"].get("data") if o and "stream" in o else None
        return base64.b64decode(d) if d is not None else None

    def values(self):
        for k, o in self.objs.items():
            if k == "trailer":
                continue
            yield k, (o["stream"]["dict"] if "stream" in o else o.get("value"))


def text(s):
    """A qpdf JSON string ("u:..." or "b:hex") as text."""
    if not isinstance(s, str):
        return None
    if s.startswith("u:"):
        return s[2:]
    if s.startswith("b:"):
        return bytes.fromhex(s[2:]).decode("latin-1")
    return s


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    return 1


def pdf_date(s):
    m = re.match(r"D:(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(Z|[+-]\d\d'?\d\d'?)?", s or "")
    if not m:
        return None
    tz = m.group(7) or "Z"
    off = 0 if tz == "Z" else (1 if tz[0] == "+" else -1) * (int(tz[1:3]) * 60 + int(tz.replace("'", "")[3:5]))
    d = datetime.datetime(*map(int, m.groups()[:6]), tzinfo=datetime.timezone(datetime.timedelta(minutes=off)))
    return d.timestamp()


def xmp_date(s):
    try:
        return datetime.datetime.fromisoformat((s or "").replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


NS = {"rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "dc": "http://purl.org/dc/elements/1.1/",
      "xmp": "http://ns.adobe.com/xap/1.0/", "pdf": "http://ns.adobe.com/pdf/1.3/",
      "pdfaid": "http://www.aiim.org/pdfa/ns/id/", "pdfuaid": "http://www.aiim.org/pdfua/ns/id/",
      "x": "adobe:ns:meta/"}


def xmp_tree(p):
    ref = p.root.get("/Metadata")
    d = p.get(ref)
    if not isinstance(d, dict) or d.get("/Type") != "/Metadata" or d.get("/Subtype") != "/XML":
        return None, "no /Metadata stream of /Type /Metadata /Subtype /XML"
    if "/Filter" in d:
        return None, "the metadata stream is filtered"
    raw = p.data(ref)
    try:
        return ET.fromstring(raw), None
    except ET.ParseError as e:
        return None, "XMP does not parse: %s" % e


def xmp_prop(tree, name):
    """A property's value: text, or the list of rdf:li texts."""
    for desc in tree.iter("{%s}Description" % NS["rdf"]):
        for el in desc:
            if el.tag == name:
                lis = list(el.iter("{%s}li" % NS["rdf"]))
                return [li.text or "" for li in lis] if lis else (el.text or "")
    return None


def q(prefix, local):
    return "{%s}%s" % (NS[prefix], local)


def cmd_xmp(pdf):
    p = Pdf(pdf, stream_data=True)
    tree, err = xmp_tree(p)
    if err:
        return fail(err)
    bad = 0
    info = p.get(p.trailer.get("/Info")) or {}
    want = {q("pdfaid", "part"): "3", q("pdfaid", "conformance"): "U", q("pdfuaid", "part"): "1"}
    for k, v in want.items():
        if xmp_prop(tree, k) != v:
            bad |= fail("XMP %s is %r, not %r" % (k, xmp_prop(tree, k), v))
    pairs = [("/Title", q("dc", "title"), lambda x: x[0] if x else None),
             ("/Author", q("dc", "creator"), lambda x: ", ".join(x) if x else None),
             ("/Subject", q("dc", "description"), lambda x: x[0] if x else None),
             ("/Keywords", q("pdf", "Keywords"), lambda x: x),
             ("/Creator", q("xmp", "CreatorTool"), lambda x: x),
             ("/Producer", q("pdf", "Producer"), lambda x: x)]
    for key, prop, f in pairs:
        iv, xv = text(info.get(key)), xmp_prop(tree, prop)
        xv = f(xv) if xv is not None else None
        if iv != xv:
            bad |= fail("Info %s %r but XMP %s %r" % (key, iv, prop, xv))
    for key, prop in (("/CreationDate", q("xmp", "CreateDate")), ("/ModDate", q("xmp", "ModifyDate"))):
        iv, xv = pdf_date(text(info.get(key))), xmp_date(xmp_prop(tree, prop))
        if iv is None or iv != xv:
            bad |= fail("Info %s %r but XMP %s %r" % (key, info.get(key), prop, xmp_prop(tree, prop)))
    return bad


def cmd_lang(pdf, lang):
    p = Pdf(pdf, stream_data=True)
    if text(p.root.get("/Lang")) != lang:
        return fail("catalog /Lang is %r, not %r" % (p.root.get("/Lang"), lang))
    tree, err = xmp_tree(p)
    if err or xmp_prop(tree, q("dc", "language")) != [lang]:
        return fail("dc:language is not [%r]" % lang)
    return 0


def cmd_catalog(pdf):
    p = Pdf(pdf)
    bad = 0
    if (p.get(p.root.get("/MarkInfo")) or {}).get("/Marked") is not True:
        bad |= fail("no /MarkInfo /Marked true")
    if (p.get(p.root.get("/ViewerPreferences")) or {}).get("/DisplayDocTitle") is not True:
        bad |= fail("no /ViewerPreferences /DisplayDocTitle true")
    if not isinstance(p.get(p.root.get("/StructTreeRoot")), dict):
        bad |= fail("no /StructTreeRoot")
    return bad


def cmd_tabs(pdf):
    p = Pdf(pdf)
    bad = 0
    for pg in p.j["pages"]:
        if p.get(pg["object"]).get("/Tabs") != "/S":
            bad |= fail("page %d has no /Tabs /S" % pg["pageposfrom1"])
    return bad


def cmd_intent(pdf):
    p = Pdf(pdf, stream_data=True)
    intents = p.get(p.root.get("/OutputIntents")) or []
    pdfa = [p.get(i) for i in intents if p.get(i).get("/S") == "/GTS_PDFA1"]
    if len(pdfa) != 1:
        return fail("%d /GTS_PDFA1 output intents" % len(pdfa))
    ref = pdfa[0].get("/DestOutputProfile")
    d, icc = p.get(ref), p.data(ref)
    if icc is None or len(icc) < 128:
        return fail("no ICC profile data")
    bad = 0
    if icc[36:40] != b"acsp":
        bad |= fail("the profile has no 'acsp' at byte 36")
    if int.from_bytes(icc[0:4], "big") != len(icc):
        bad |= fail("the profile's header size %d is not its length %d" % (int.from_bytes(icc[0:4], "big"), len(icc)))
    if icc[16:20] != b"RGB " or d.get("/N") != 3:
        bad |= fail("not an RGB profile with /N 3")
    if not text(pdfa[0].get("/OutputConditionIdentifier")):
        bad |= fail("no /OutputConditionIdentifier")
    return bad


def struct_elems(p):
    """The structure elements in preorder: (dict, ref)."""
    tree = p.get(p.root.get("/StructTreeRoot"))
    if not isinstance(tree, dict):
        return []
    out, stack = [], [tree.get("/K")]
    while stack:
        k = stack.pop()
        v = p.get(k)
        if isinstance(v, list):
            stack.extend(reversed(v))
        elif isinstance(v, dict) and "/S" in v:
            out.append((v, k))
            stack.append(v.get("/K"))
    return out


def cmd_figures(pdf):
    p = Pdf(pdf)
    figs = [e for e, _ in struct_elems(p) if e.get("/S") == "/Figure"]
    bad = 0
    for i, e in enumerate(figs):
        if not text(e.get("/Alt")):
            bad |= fail("Figure %d has no /Alt" % (i + 1))
    print("%d figures" % len(figs))
    return bad


def cmd_annots(pdf):
    p = Pdf(pdf)
    bad, n = 0, 0
    for pg in p.j["pages"]:
        page = p.get(pg["object"])
        for a in p.get(page.get("/Annots")) or []:
            a = p.get(a)
            n += 1
            f = a.get("/F", 0)
            if not f & 4 or f & (1 | 2 | 32):
                bad |= fail("page %d: an annotation with /F %r" % (pg["pageposfrom1"], f))
            if a.get("/Subtype") == "/Link" and not text(a.get("/Contents")):
                bad |= fail("page %d: a link without /Contents" % pg["pageposfrom1"])
    print("%d annotations" % n)
    return bad


def cmd_attach(pdf, n):
    p = Pdf(pdf)
    bad = 0
    af = [p.get(x) for x in p.get(p.root.get("/AF")) or []]
    tree = (p.get(p.get(p.root.get("/Names") or {}).get("/EmbeddedFiles")) or {})
    names = p.get(tree.get("/Names")) or []
    named = [p.get(x) for x in names[1::2]]
    if len(af) != int(n) or len(named) != int(n):
        return fail("%d files in /AF, %d in the name tree, not %s" % (len(af), len(named), n))
    keys = [text(k) for k in names[0::2]]
    if keys != sorted(keys):
        bad |= fail("the name tree's keys are not sorted")
    for spec in af:
        name = text(spec.get("/UF"))
        if spec not in named:
            bad |= fail("%s is in /AF but not in the name tree" % name)
        if spec.get("/AFRelationship") != "/Source":
            bad |= fail("%s: /AFRelationship is %r" % (name, spec.get("/AFRelationship")))
        if not text(spec.get("/F")) or not name:
            bad |= fail("a file specification without /F and /UF")
        ef = p.get((p.get(spec.get("/EF")) or {}).get("/F"))
        if not isinstance(ef, dict) or ef.get("/Type") != "/EmbeddedFile":
            bad |= fail("%s: no embedded file stream" % name)
            continue
        if ef.get("/Subtype") != "/text/markdown":
            bad |= fail("%s: /Subtype %r" % (name, ef.get("/Subtype")))
        if pdf_date(text((p.get(ef.get("/Params")) or {}).get("/ModDate"))) is None:
            bad |= fail("%s: no /Params /ModDate" % name)
    return bad


FORBIDDEN_ACTIONS = {"/Launch", "/GoToR", "/GoToE", "/ImportData", "/SubmitForm", "/ResetForm", "/Sound",
                     "/Movie", "/Rendition", "/Hide", "/JavaScript", "/SetOCGState", "/Trans", "/GoTo3DView"}


def cmd_forbidden(pdf):
    p = Pdf(pdf)
    bad = 0
    if "/Encrypt" in p.trailer or p.j["encrypt"]["encrypted"]:
        bad |= fail("encrypted")
    if "/JavaScript" in (p.get(p.root.get("/Names")) or {}):
        bad |= fail("a JavaScript name tree")
    for k, v in p.values():
        if not isinstance(v, dict):
            continue
        if v.get("/S") in FORBIDDEN_ACTIONS and (v.get("/Type") in (None, "/Action")) and "/P" not in v:
            bad |= fail("%s: a %s action" % (k, v.get("/S")))
        for key in ("/JS", "/AA", "/Ref", "/OPI"):
            if key in v:
                bad |= fail("%s has %s" % (k, key))
        if v.get("/Type") == "/Filespec" and v.get("/FS") == "/URL":
            bad |= fail("%s: an external file reference" % k)
    return bad


def cmd_fonts(pdf):
    p = Pdf(pdf)
    bad, n = 0, 0
    for k, v in p.values():
        if not isinstance(v, dict) or v.get("/Type") != "/Font":
            continue
        st = v.get("/Subtype")
        if st in ("/CIDFontType0", "/CIDFontType2"):
            continue  # descendants: the Type0 font carries the ToUnicode map
        n += 1
        if "/ToUnicode" not in v:
            bad |= fail("%s (%s %s) has no /ToUnicode" % (k, st, v.get("/BaseFont")))
        if st == "/Type3":
            continue  # glyphs drawn by content streams: nothing to embed
        fonts = [v]
        if st == "/Type0":
            fonts = [p.get(x) for x in p.get(v.get("/DescendantFonts")) or []]
        for f in fonts:
            fd = p.get(f.get("/FontDescriptor")) or {}
            if not any(x in fd for x in ("/FontFile", "/FontFile2", "/FontFile3")):
                bad |= fail("%s (%s) is not embedded" % (k, f.get("/BaseFont")))
    print("%d fonts" % n)
    return 0 if n and not bad else 1


def summary(path):
    p = Pdf(path)
    def resolve_dest(d):
        return text(d) if isinstance(d, str) and not d.endswith(" R") else json.dumps(p.get(d))
    links = []
    for pg in p.j["pages"]:
        page = p.get(pg["object"])
        for a in p.get(page.get("/Annots")) or []:
            a = p.get(a)
            act = p.get(a.get("/A")) or {}
            links.append((pg["pageposfrom1"], a.get("/Subtype"), a.get("/Rect"), resolve_dest(a.get("/Dest")),
                          text(act.get("/URI")), act.get("/S")))
    def outline(items):
        return [(o["title"], o["destpageposfrom1"], outline(o["kids"])) for o in items]
    pages = {pg["object"]: pg["pageposfrom1"] for pg in p.j["pages"]}
    tree = []
    for e, _ in struct_elems(p):
        kids = e.get("/K")
        kids = p.get(kids) if isinstance(kids, str) else kids
        mcids = []
        for k in kids if isinstance(kids, list) else [kids]:
            k = p.get(k)
            if isinstance(k, int):
                mcids.append(k)
            elif isinstance(k, dict) and "/MCID" in k:
                mcids.append((k["/MCID"], pages.get(k.get("/Pg"))))
            elif isinstance(k, dict) and k.get("/Type") == "/OBJR":
                mcids.append("annot")
        tree.append((e.get("/S"), pages.get(e.get("/Pg")), mcids))
    return {"links": links, "outline": outline(p.j["outlines"]), "labels": p.j["pagelabels"],
            "pages": len(p.j["pages"]), "struct": tree}


def cmd_same(a, b):
    sa, sb = summary(a), summary(b)
    bad = 0
    for k in sa:
        if sa[k] != sb[k]:
            bad |= fail("%s differ between %s and %s" % (k, a, b))
    print("%d links, %d structure elements, %d pages" % (len(sa["links"]), len(sa["struct"]), sa["pages"]))
    return bad


CMDS = {"xmp": cmd_xmp, "lang": cmd_lang, "catalog": cmd_catalog, "tabs": cmd_tabs, "intent": cmd_intent,
        "figures": cmd_figures, "annots": cmd_annots, "attach": cmd_attach, "forbidden": cmd_forbidden,
        "fonts": cmd_fonts, "same": cmd_same}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in CMDS:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(1 if CMDS[sys.argv[1]](*sys.argv[2:]) else 0)
