#!/usr/bin/env python3
"""widths_check.py: a PDF's TrueType fonts' widths, and where its justified
lines end, as readers see them.

  widths_check.py fonts PDF   every simple /TrueType font's /Widths and every
                              CIDFontType2's /W is the advance of the glyph
                              the code shows in the font's own program
                              (/FontFile2), in thousandths of an em, within
                              0.0005: read with FreeType (ctypes), not with
                              what octavo uses (harfbuzz); a simple font's
                              code read as /WinAnsiEncoding (Python's cp1252)
                              then the program's Unicode cmap, a CID as its
                              glyph (/CIDToGIDMap /Identity or absent).
                              Prints one line per font.
  widths_check.py ends PDF    the lines of justified paragraphs (blocks of 3
                              lines or more, their last line left out) end
                              at the page's right edge, as pdftotext
                              -bbox-layout (poppler) places the words: of the
                              line ends within 3 pt of it, the median is
                              short by at most 0.03 pt and the 90th
                              percentile by at most 0.05 pt (cairo 1.16's
                              truncated widths left them 0.1-0.5 pt short).
  widths_check.py truncate PDF OUT
                              OUT: PDF with every /Widths and /W truncated
                              to whole thousandths, as cairo 1.16 writes them
                              (qpdf --qdf, the arrays edited, fix-qdf): what
                              the two checks must refuse.

Exit 1 on a failure. Needs qpdf, pdftotext and libfreetype.so.6."""
import ctypes
import ctypes.util
import json
import re
import statistics
import subprocess
import sys
from html.parser import HTMLParser


def objects(pdf):
    out = subprocess.run(["qpdf", "--json", "--json-key=qpdf", pdf], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)["qpdf"][1]


def stream_data(pdf, ref):
    return subprocess.run(["qpdf", "--show-object=" + ref.split()[0], "--filtered-stream-data",
                           pdf], capture_output=True, check=True).stdout


class FTFace(ctypes.Structure):
    """FT_FaceRec's first fields, up to units_per_EM (freetype.h)."""
    _fields_ = [("num_faces", ctypes.c_long), ("face_index", ctypes.c_long),
                ("face_flags", ctypes.c_long), ("style_flags", ctypes.c_long),
                ("num_glyphs", ctypes.c_long), ("family_name", ctypes.c_char_p),
                ("style_name", ctypes.c_char_p), ("num_fixed_sizes", ctypes.c_int),
                ("available_sizes", ctypes.c_void_p), ("num_charmaps", ctypes.c_int),
                ("charmaps", ctypes.c_void_p), ("generic_data", ctypes.c_void_p),
                ("generic_finalizer", ctypes.c_void_p), ("bbox", ctypes.c_long * 4),
                ("units_per_EM", ctypes.c_ushort)]


FT = ctypes.CDLL(ctypes.util.find_library("freetype") or "libfreetype.so.6")
FT_LOAD_NO_SCALE = 1
LIB = ctypes.c_void_p()
if FT.FT_Init_FreeType(ctypes.byref(LIB)):
    sys.exit("FreeType does not start")


class Program:
    """A font program read by FreeType: advances in font units."""

    def __init__(self, data):
        self.data = ctypes.create_string_buffer(data, len(data))  # kept alive
        self.face = ctypes.POINTER(FTFace)()
        if FT.FT_New_Memory_Face(LIB, self.data, ctypes.c_long(len(data)), ctypes.c_long(0),
                                 ctypes.byref(self.face)):
            raise ValueError("not a font")
        self.upem = self.face.contents.units_per_EM
        self.glyphs = self.face.contents.num_glyphs

    def gid(self, char):
        return FT.FT_Get_Char_Index(self.face, ctypes.c_ulong(char))

    def advance(self, gid):
        adv = ctypes.c_long()
        if FT.FT_Get_Advance(self.face, ctypes.c_uint(gid), ctypes.c_int32(FT_LOAD_NO_SCALE),
                             ctypes.byref(adv)):
            raise ValueError("no advance for glyph %d" % gid)
        return adv.value * 1000.0 / self.upem


def check_fonts(pdf):
    objs = objects(pdf)
    val = lambda ref: objs[f"obj:{ref}"]["value"]  # noqa: E731
    bad = fonts = 0
    for key, o in sorted(objs.items()):
        d = o.get("value")
        if not isinstance(d, dict) or d.get("/Type") != "/Font":
            continue
        sub = d.get("/Subtype")
        if sub not in ("/TrueType", "/CIDFontType2"):
            continue
        fonts += 1
        ff = val(d["/FontDescriptor"]).get("/FontFile2")
        name = d.get("/BaseFont", "?")
        if not ff:
            print(f"FAIL {name}: no /FontFile2")
            bad += 1
            continue
        prog = Program(stream_data(pdf, ff))
        pairs = []  # (what, the dictionary's width, the program's)
        if sub == "/TrueType":
            if d.get("/Encoding") != "/WinAnsiEncoding":
                print(f"FAIL {name}: encoding {d.get('/Encoding')}, not cairo's")
                bad += 1
                continue
            for i, w in enumerate(d["/Widths"]):
                code = d["/FirstChar"] + i
                try:
                    g = prog.gid(ord(bytes([code]).decode("cp1252")))
                except UnicodeDecodeError:
                    g = 0
                pairs.append((f"code {code}", w, prog.advance(g) if g else 0))
        else:
            if d.get("/CIDToGIDMap", "/Identity") != "/Identity":
                print(f"FAIL {name}: /CIDToGIDMap not /Identity (not cairo's)")
                bad += 1
                continue
            arr, i = d["/W"], 0
            while i < len(arr):
                if isinstance(arr[i + 1], list):
                    cids = [(arr[i] + k, w) for k, w in enumerate(arr[i + 1])]
                    i += 2
                else:
                    cids = [(c, arr[i + 2]) for c in range(arr[i], arr[i + 1] + 1)]
                    i += 3
                pairs += [(f"CID {c}", w, prog.advance(c)) for c, w in cids]
        off = [(what, w, a) for what, w, a in pairs if abs(w - a) > 0.0005]
        if off:
            bad += 1
            what, w, a = off[0]
            print(f"FAIL {name}: {len(off)} of {len(pairs)} widths are not the program's "
                  f"(first: {what}: {w}, the program's {a:.4f})")
        else:
            print(f"ok   {name} ({sub[1:]}): {len(pairs)} widths, the program's")
    if fonts == 0:
        print("FAIL: no TrueType font")
        bad += 1
    return bad == 0


class Lines(HTMLParser):
    """Pages of blocks of lines: each line its words' right ends."""

    def __init__(self):
        super().__init__()
        self.pages = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "page":
            self.pages.append([])
        elif tag == "block":
            self.pages[-1].append([])
        elif tag == "line":
            self.pages[-1][-1].append([])
        elif tag == "word":
            self.pages[-1][-1][-1].append(float(a["xmax"]))


def check_ends(pdf):
    out = subprocess.run(["pdftotext", "-bbox-layout", pdf, "-"], capture_output=True, text=True,
                         check=True).stdout
    p = Lines()
    p.feed(out)
    short = []
    for page in p.pages:
        ends = [max(line) for block in page if len(block) >= 3 for line in block[:-1] if line]
        if ends:
            edge = max(ends)
            short += [edge - e for e in ends if edge - e < 3]
    if len(short) < 10:
        print(f"FAIL: {len(short)} justified line ends found")
        return False
    short.sort()
    med, p90 = statistics.median(short), short[int(len(short) * 0.9)]
    ok = med <= 0.03 and p90 <= 0.05
    print(f"{'ok  ' if ok else 'FAIL'} {len(short)} justified line ends: short of the right edge "
          f"by {med:.3f} pt (median), {p90:.3f} pt (90th percentile), {short[-1]:.3f} pt (most)")
    return ok


def truncate(pdf, out):
    qdf = out + ".qdf"
    subprocess.run(["qpdf", "--qdf", "--object-streams=disable", pdf, qdf], check=True)
    with open(qdf, "rb") as f:
        data = f.read()
    whole = lambda m: re.sub(rb"(\d+)\.\d+", rb"\1", m.group(0))  # noqa: E731
    data = re.sub(rb"/Widths \[[^\]]*\]", whole, data)
    data = re.sub(rb"/W \[(?:[^\[\]]|\[[^\]]*\])*\]", whole, data)
    with open(qdf, "wb") as f:
        f.write(data)
    with open(out, "wb") as f:
        subprocess.run(["fix-qdf", qdf], stdout=f, check=True)
    return True


if __name__ == "__main__":
    if sys.argv[1:2] == ["truncate"] and len(sys.argv) == 4:
        sys.exit(0 if truncate(sys.argv[2], sys.argv[3]) else 1)
    if len(sys.argv) != 3 or sys.argv[1] not in ("fonts", "ends"):
        sys.exit(__doc__)
    sys.exit(0 if (check_fonts if sys.argv[1] == "fonts" else check_ends)(sys.argv[2]) else 1)
