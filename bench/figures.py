"""figures.py: the bench books' 28 image files, written deterministically (gen-book.py).

write(DIR) writes them and returns each one's figure paragraph (Markdown, or raw HTML for a
size), in the order gen-book.py first uses them:

- 13 PNG diagrams (boxes, bars and rules on white, 640-1400 px wide; stdlib zlib), drawn at
  their own size or the measure's;
- a PNG screenshot-like image, 1600 x 1000, half of it noise (it compresses badly);
- a photo-like PNG, 1600 x 1066, and four photo-like JPEGs (one 4000 x 3000, the "large photo
  shown small": a raw-HTML <img width="220">, about 5.8 cm; three 1600 x 1200), rendered by
  poppler's pdftoppm (poppler-utils, which bench/ needs for pdfinfo) from a one-page PDF of
  smoothed noise; without pdftoppm they are left out (a line on stderr says so);
- 9 SVG diagrams with text (labelled boxes and arrows, a chart with axis labels).
"""
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SEED = 30


def png(path, w, h, rows):
    """An 8-bit RGB PNG of w x h pixels from rows (an iterable of h rows of w * 3 bytes)."""
    raw = bytearray()
    for r in rows:
        raw += b"\0" + r
    assert len(raw) == h * (w * 3 + 1)

    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(bytes(raw), 6)))
        f.write(chunk(b"IEND", b""))


PALETTE = [(0x5a, 0x3e, 0x2b), (0x2b, 0x6c, 0xb0), (0xc0, 0x39, 0x2b), (0x27, 0xae, 0x60),
           (0xf3, 0x9c, 0x12), (0x8e, 0x44, 0xad), (0x7f, 0x8c, 0x8d)]


def diagram(path, w, h, rng):
    """Boxes and a bar chart on white with frame rules: a typical technical figure."""
    canvas = [bytearray(b"\xff" * (w * 3)) for _ in range(h)]

    def rect(x0, y0, x1, y1, rgb):
        px = bytes(rgb) * (x1 - x0)
        for y in range(max(0, y0), min(h, y1)):
            canvas[y][x0 * 3:x1 * 3] = px

    rect(0, 0, w, 3, (40, 40, 40))
    rect(0, h - 3, w, h, (40, 40, 40))
    rect(0, 0, 3, h, (40, 40, 40))
    rect(w - 3, 0, w, h, (40, 40, 40))
    for _ in range(rng.randint(4, 9)):
        x0, y0 = rng.randrange(10, w // 2), rng.randrange(10, h // 2)
        x1, y1 = x0 + rng.randrange(40, w // 2 - 10), y0 + rng.randrange(30, h // 2 - 10)
        c = rng.choice(PALETTE)
        rect(x0, y0, x1, y1, c)
        rect(x0 + 4, y0 + 4, x1 - 4, y1 - 4, tuple(min(255, v + 150) for v in c))
    nbar = rng.randint(6, 16)
    bw = (w - 40) // nbar
    for i in range(nbar):
        bh = rng.randrange(h // 8, h // 2)
        rect(20 + i * bw, h - 20 - bh, 20 + i * bw + bw - 6, h - 20, rng.choice(PALETTE))
    png(path, w, h, canvas)


def screenshot(path, w, h, rng):
    """A window of text-like rows, its lower half noise (a photo inside it)."""
    rows = []
    for y in range(h):
        if y < h // 2:
            if y % 18 < 10 and y > 30:
                r = bytearray(b"\xfa" * (w * 3))
                x = 20
                while x < w - 60:
                    n = rng.randrange(8, 60)
                    r[x * 3:(x + n) * 3] = b"\x30\x30\x30" * n
                    x += n + rng.randrange(5, 12)
                rows.append(r)
            else:
                rows.append(bytearray(b"\xe8\xea\xee" * w if y <= 30 else b"\xfa" * (w * 3)))
        else:
            rows.append(bytearray(rng.randbytes(w * 3)))
    png(path, w, h, rows)


def photo_pdf(path, rng, nw=160, nh=120):
    """A one-page PDF of smoothed colour noise (an /Interpolate image), for pdftoppm."""
    data = bytearray()
    base = [rng.randrange(256) for _ in range(3)]
    for y in range(nh):
        for x in range(nw):
            for c in range(3):
                v = base[c] + 90 * ((x + y * (c + 1)) % 97) // 97 + rng.randrange(-40, 40)
                data.append(max(0, min(255, v)))
    img = zlib.compress(bytes(data))
    content = b"q 400 0 0 300 0 0 cm /I Do Q"
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 300] /Resources << /XObject "
            b"<< /I 4 0 R >> >> /Contents 5 0 R >>",
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
            b"/BitsPerComponent 8 /Interpolate true /Filter /FlateDecode /Length %d >>\nstream\n"
            % (nw, nh, len(img)) + img + b"\nendstream",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream"]
    out = bytearray(b"%PDF-1.4\n")
    offs = []
    for i, o in enumerate(objs, 1):
        offs.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offs:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    with open(path, "wb") as f:
        f.write(out)


def photo(path, w, h, fmt, rng):
    """A photo-like raster of w x h pixels (fmt jpeg or png) by pdftoppm; False without it."""
    if not shutil.which("pdftoppm"):
        return False
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "p.pdf")
        photo_pdf(src, rng)
        # a PNG from pdftoppm's PPM (its own PNG writer takes seconds on this noise)
        opts = ["-jpeg", "-jpegopt", "quality=85"] if fmt == "jpeg" else []
        subprocess.run(["pdftoppm", *opts, "-scale-to-x", str(w), "-scale-to-y", str(h),
                        "-singlefile", src, os.path.join(d, "out")], check=True)
        if fmt == "jpeg":
            shutil.move(os.path.join(d, "out.jpg"), path)
        else:
            with open(os.path.join(d, "out.ppm"), "rb") as f:
                ppm = f.read()
            # "P6\nW H\n255\n": the pixels follow the third line
            head_end = ppm.index(b"\n", ppm.index(b"\n", ppm.index(b"\n") + 1) + 1) + 1
            px = memoryview(ppm)[head_end:]
            png(path, w, h, (px[y * w * 3:(y + 1) * w * 3] for y in range(h)))
    return True


def svg(path, rng, k):
    """A diagram with text: labelled boxes joined by arrows, or a bar chart with labels."""
    words = ["page cache", "folio", "LRU list", "writeback", "mmap", "BPF map", "verifier",
             "io_uring", "block layer", "swap", "memcg", "shrinker", "zswap", "NFS", "XFS"]
    w, h = rng.choice([(480, 240), (640, 320), (720, 400)])
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}">', f"<title>Diagram {k}</title>",
           f'<rect x="1" y="1" width="{w - 2}" height="{h - 2}" fill="#fbfaf7" stroke="#444"/>']
    if k % 3 == 2:
        n = rng.randint(5, 9)
        bw = (w - 80) // n
        out.append(f'<line x1="50" y1="{h - 40}" x2="{w - 20}" y2="{h - 40}" stroke="#222"/>')
        for i in range(n):
            bh = rng.randrange(30, h - 90)
            x = 60 + i * bw
            out.append(f'<rect x="{x}" y="{h - 40 - bh}" width="{bw - 10}" height="{bh}" '
                       f'fill="#{rng.randrange(0x303030, 0xd0d0d0):06x}"/>')
            out.append(f'<text x="{x + (bw - 10) / 2}" y="{h - 22}" font-family="sans-serif" '
                       f'font-size="12" text-anchor="middle">{rng.choice(words)}</text>')
        out.append(f'<text x="{w / 2}" y="24" font-family="serif" font-size="16" '
                   f'text-anchor="middle">Figure {k}: {rng.choice(words)} by {rng.choice(words)}'
                   "</text>")
    else:
        boxes = []
        for i in range(rng.randint(3, 6)):
            x, y = 20 + (i % 3) * (w - 40) // 3, 40 + (i // 3) * (h - 60) // 2
            bw, bh = (w - 40) // 3 - 30, (h - 60) // 2 - 40
            boxes.append((x, y, bw, bh))
            out.append(f'<rect x="{x}" y="{y}" width="{bw}" height="{bh}" rx="8" fill="#e8eef6" '
                       'stroke="#2b6cb0" stroke-width="2"/>')
            out.append(f'<text x="{x + bw / 2}" y="{y + bh / 2 + 5}" font-family="sans-serif" '
                       f'font-size="15" text-anchor="middle">{rng.choice(words)}</text>')
        for a, b in zip(boxes, boxes[1:]):
            out.append(f'<path d="M{a[0] + a[2]} {a[1] + a[3] / 2} L{b[0]} {b[1] + b[3] / 2}" '
                       'stroke="#c0392b" stroke-width="2" fill="none"/>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def write(d):
    """Write the files into d; return their figure paragraphs, in the order of first use."""
    os.makedirs(d, exist_ok=True)
    rng = random.Random(SEED)
    figs = []

    def md(name, alt, title=None):
        t = f' "{title}"' if title else ""
        return f"![{alt}](images/{name}{t})"

    # the order of first use: one of each kind early, so that the 1 MB book has them all
    plan = ["png", "svg", "jpeg-large", "png", "svg", "jpeg", "png-shot", "svg", "png",
            "png-photo", "svg", "png", "jpeg", "svg", "png", "svg", "png", "jpeg", "svg",
            "png", "svg", "png", "svg", "png", "png", "png", "png", "png"]
    n = {"png": 0, "svg": 0, "jpeg": 0}
    missing = 0
    for kind in plan:
        if kind == "png":
            n["png"] += 1
            name = f"diagram-{n['png']:02d}.png"
            diagram(os.path.join(d, name), rng.choice([640, 800, 1000, 1200, 1400]),
                    rng.choice([360, 480, 600]), rng)
            figs.append(md(name, f"Diagram {n['png']}", f"A diagram of {n['png']} parts"))
        elif kind == "png-shot":
            screenshot(os.path.join(d, "screenshot.png"), 1600, 1000, rng)
            figs.append(md("screenshot.png", "A screenshot", "The tool's window"))
        elif kind == "svg":
            n["svg"] += 1
            name = f"chart-{n['svg']:02d}.svg"
            svg(os.path.join(d, name), rng, n["svg"])
            figs.append(md(name, f"Chart {n['svg']}", f"Chart {n['svg']}, drawn as vectors"))
        elif kind == "png-photo":
            if photo(os.path.join(d, "photo.png"), 1600, 1066, "png", rng):
                figs.append(md("photo.png", "A photograph (PNG)", "A lossless photograph"))
            else:
                missing += 1
        elif kind == "jpeg-large":
            if photo(os.path.join(d, "photo-large.jpg"), 4000, 3000, "jpeg", rng):
                # 220 CSS px: about 5.8 cm wide, a 4000-pixel photo shown small
                figs.append('<img src="images/photo-large.jpg" alt="A large photograph shown '
                            'small" width="220">')
            else:
                missing += 1
        else:
            n["jpeg"] += 1
            name = f"photo-{n['jpeg']:02d}.jpg"
            if photo(os.path.join(d, name), 1600, 1200, "jpeg", rng):
                figs.append(md(name, f"Photograph {n['jpeg']}", f"Photograph {n['jpeg']}"))
            else:
                missing += 1
    if missing:
        print(f"figures: no pdftoppm (poppler-utils): {missing} photographs left out",
              file=sys.stderr)
    return figs
