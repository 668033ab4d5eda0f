#!/usr/bin/env python3
"""font_glyphs.py: how many glyphs a PDF draws in each embedded face.

  font_glyphs.py PDF...    one line per PDF: "PDF: FACE N, FACE N, ..." (the
                           book's own faces, Charis SIL and DejaVu Sans
                           Mono, first; then the fallback faces), most first

Counts the codes shown by the text operators (Tj, TJ, ', ") of every page's
content streams and the form XObjects they draw (qpdf --json, through
corpus_check.py), per font /BaseFont without its subset prefix (ABCDEF+).
A glyph of a cairo Type0 font is a 2-byte code, of a simple font 1 byte.
For the closing note of issue 16: fallback glyphs used per book."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_check as cc  # noqa: E402

OWN = ("CharisSIL", "DejaVuSansMono")


def counts(pdf):
    objs = cc.qpdf_full(pdf)
    n = collections.Counter()
    for ref in cc.pdf_pages(objs):
        for data, fonts in cc.page_streams(objs, ref):
            font = None
            for op, args in cc.content_ops(data):
                if op == "Tf" and len(args) >= 2:
                    font = fonts.get(args[0])
                    continue
                if op not in ("Tj", "'", '"', "TJ") or font is None:
                    continue
                strs = cc.shown_strings(args)
                two = font.get("/Subtype") == "/Type0"
                name = str(font.get("/BaseFont", "?")).lstrip("/")
                name = name.split("+", 1)[-1]
                for s in strs:
                    n[name] += len(s) // 2 if two else len(s)
    return n


def main():
    for pdf in sys.argv[1:]:
        n = counts(pdf)
        own = sorted(((k, v) for k, v in n.items() if k.startswith(OWN)), key=lambda kv: -kv[1])
        fb = sorted(((k, v) for k, v in n.items() if not k.startswith(OWN)), key=lambda kv: -kv[1])
        print(f"{pdf}: own " + ", ".join(f"{k} {v}" for k, v in own) +
              "; fallback " + (", ".join(f"{k} {v}" for k, v in fb) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
