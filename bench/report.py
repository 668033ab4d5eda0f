#!/usr/bin/env python3
"""report.py SCRATCH RUNS COMMIT NCPU LOAD0: bench/run.sh's table, from its scratch directory.

Reads NAME.floor (bench/floor's "key value" lines), raw.tsv (one line per octavo row: book,
row, size, pages, "wall cpu maxrss_kb," per run), peers.tsv (the same for pandoc and
WeasyPrint) and ir.tsv (callgrind counts); prints the books' tables, the cost of images (each
row against its -noimg twin), the growth from the small book to the big one, the peers and
the issues' targets (hold or miss).
"""
import os
import statistics
import sys
import time

scratch, runs, commit, ncpu, load0 = sys.argv[1:]

# The floor each row is measured against: (label, floor keys summed).
FLOORS = {
    "epub": ("parse+deflate + shaping", ["epub", "pdf"]),
    "epub-noimg": ("parse+deflate + shaping", ["epub", "pdf"]),
    "npl": ("parse+deflate", ["epub"]),
    "pdf": ("shaping", ["pdf"]),
    "pdf-noimg": ("shaping", ["pdf"]),
    "pdf-j2": ("shaping", ["pdf"]),
    "handout": ("shaping", ["pdf"]),
    "both": ("parse+deflate + shaping + drawing", ["epub", "pdf", "pdf_emit"]),
}
PDF_ROWS = ("pdf", "pdf-noimg", "pdf-j2", "handout")


def read_floor(name):
    d = {}
    for line in open(os.path.join(scratch, name + ".floor")):
        k, v = line.split()
        d[k] = float(v)
    return d


def floor_of(f, row, kind):
    return sum(f[f"{k}_floor_{kind}" if k != "pdf_emit" else f"pdf_emit_{kind}"]
               for k in FLOORS[row.split("@")[0]][1])


def mib(kb):
    return f"{kb / 1024:.0f} MiB"


def size(b):
    return f"{b / 1e6:.2f} MB" if b >= 1e5 else f"{b / 1e3:.0f} kB"


def medians(times):
    rows = [tuple(map(float, t.split())) for t in times.strip(",").split(",")]
    return tuple(statistics.median(r[i] for r in rows) for i in range(3))


def read_rows(path):
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        name, row, osize, pages, times = line.rstrip("\n").split("\t")
        wall, cpu, rss = medians(times)
        out[(name, row)] = dict(wall=wall, cpu=cpu, rss=rss, size=int(osize), pages=pages)
    return out


rows = read_rows(os.path.join(scratch, "raw.tsv"))
peers = read_rows(os.path.join(scratch, "peers.tsv"))
books = []
for name, _ in rows:
    if name not in books:
        books.append(name)
floors = {name: read_floor(name) for name in books}

print(f"octavo bench, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, "
      f"{ncpu} CPUs, load {load0} at the start and {os.getloadavg()[0]:.1f} at the end, "
      f"median of {runs}")
print("rows: epub = default EPUB (page list), npl = --no-page-list, pdf = PDF alone (one thread "
      "when -j exists), both = EPUB + PDF in one run, handout = --layout handout; -noimg = the "
      "same book with its figures left out")

for name in books:
    f = floors[name]
    print(f"\n{name}: {int(f['inputs'])} input(s), {size(f['input_bytes'])} of Markdown, "
          f"{int(f['paragraphs'])} paragraphs, {int(f['glyphs'])} glyphs")
    print(f"  floor parse+deflate (EPUB): {f['epub_floor_wall']:.3f} s wall, {f['epub_floor_cpu']:.3f} s CPU "
          f"(parse {f['epub_parse_wall']:.3f}, HTML {f['epub_render_wall']:.3f}, "
          f"zip {f['epub_zip_wall']:.3f}; {size(f['zip_bytes'])} zip, at zlib's default deflate level "
          f"6, octavo's)")
    print(f"  floor shaping (PDF):        {f['pdf_floor_wall']:.3f} s wall, {f['pdf_floor_cpu']:.3f} s CPU "
          f"(parse {f['pdf_parse_wall']:.3f}, shape {f['pdf_shape_wall']:.3f}; "
          f"break analysis, not counted, {f['pdf_log_attrs_wall']:.3f})")
    print(f"  floor shaping + drawing:    {f['pdf_floor_wall'] + f['pdf_emit_wall']:.3f} s wall, "
          f"{f['pdf_floor_cpu'] + f['pdf_emit_cpu']:.3f} s CPU (cairo drawing the same runs: "
          f"{f['pdf_emit_cpu']:.3f} s CPU, {int(f['emit_pages'])} pages, {size(f['emit_pdf_bytes'])})")
    print(f"  {'row':13} {'wall s':>7} {'CPU s':>7} {'peak RSS':>9} {'x floor CPU':>11} "
          f"{'x floor wall':>12} {'x shp+draw':>10} {'x base CPU':>10} {'pages':>10} {'size':>9}  floor")
    for (bname, row), r in rows.items():
        if bname != name:
            continue
        fc, fw = floor_of(f, row, "cpu"), floor_of(f, row, "wall")
        sd = xb = ""
        if row.split("@")[0] in PDF_ROWS:
            sd = f"{r['cpu'] / (f['pdf_floor_cpu'] + f['pdf_emit_cpu']):9.2f}x"
        b = rows.get((name, row + "@base"))
        if b:
            xb = f"{r['cpu'] / b['cpu']:9.2f}x"
        print(f"  {row:13} {r['wall']:7.2f} {r['cpu']:7.2f} {mib(r['rss']):>9} {r['cpu'] / fc:10.2f}x "
              f"{r['wall'] / fw:11.2f}x {sd:>10} {xb:>10} {r['pages']:>10} {size(r['size']):>9}  "
              f"{FLOORS[row.split('@')[0]][0]} ({fc:.2f} s CPU)")
    if name == "seed":
        print("  (the seed's ratios are not meaningful: fixed costs, see README)")

# The cost of images: each row against the same book without its figures, same run.
def noimg(r):
    return r.replace("@base", "") + "-noimg" + ("@base" if r.endswith("@base") else "")


pairs = [(n, r) for n in books for r in ("pdf", "pdf@base", "epub", "epub@base")
         if (n, r) in rows and (n, noimg(r)) in rows]
if pairs:
    print("\nimages (the same book with and without its figures, same run):")
    print(f"  {'book row':18} {'CPU with':>9} {'without':>8} {'x CPU':>7} {'wall with':>9} "
          f"{'without':>8} {'RSS with':>9} {'without':>8} {'+RSS':>8} {'size with':>10} {'without':>9}")
    for n, r in pairs:
        a, b = rows[(n, r)], rows[(n, noimg(r))]
        print(f"  {n + ' ' + r:18} {a['cpu']:8.2f}s {b['cpu']:7.2f}s {a['cpu'] / b['cpu']:6.2f}x "
              f"{a['wall']:8.2f}s {b['wall']:7.2f}s {mib(a['rss']):>9} {mib(b['rss']):>8} "
              f"{(a['rss'] - b['rss']) / 1024:+7.0f}M {size(a['size']):>10} {size(b['size']):>9}")

# Growth: small -> big.
if "small" in books and "big" in books:
    gb = floors["big"]["input_bytes"] / floors["small"]["input_bytes"]
    print(f"\ngrowth small -> big ({gb:.1f}x the Markdown):")
    print(f"  {'row':13} {'CPU':>7} {'wall':>7} {'peak RSS':>9}")
    for (bname, row), r in rows.items():
        s = rows.get(("small", row))
        if bname != "big" or not s:
            continue
        print(f"  {row:13} {r['cpu'] / max(s['cpu'], 0.01):6.1f}x {r['wall'] / max(s['wall'], 0.01):6.1f}x "
              f"{r['rss'] / s['rss']:8.1f}x  ({mib(s['rss'])} -> {mib(r['rss'])})")

# Peers.
if peers:
    print("\npeers (once each; ratios to octavo's row on the same book, same run):")
    print(f"  {'peer':24} {'wall s':>8} {'CPU s':>8} {'peak RSS':>9} {'x octavo CPU':>12} "
          f"{'x octavo wall':>13} {'x octavo RSS':>12} {'pages':>10} {'size':>9}")
    for (bname, peer), p in peers.items():
        o = rows.get((bname, "epub" if peer.endswith("epub") else "pdf"))
        ratios = ("", "", "")
        if o:
            ratios = (f"{p['cpu'] / o['cpu']:11.1f}x", f"{p['wall'] / o['wall']:12.1f}x",
                      f"{p['rss'] / o['rss']:11.1f}x")
        print(f"  {bname + ' ' + peer:24} {p['wall']:8.2f} {p['cpu']:8.2f} {mib(p['rss']):>9} "
              f"{ratios[0]:>12} {ratios[1]:>13} {ratios[2]:>12} {p['pages']:>10} {size(p['size']):>9}")

# The targets of issues 15 and 30 (30's where they differ), each marked hold or miss.
targets = []


def target(what, value, limit, unit="x"):
    if value is None:
        lim = f"{limit:.2f}{unit}" if unit == "x" else f"{limit:.3g} {unit}"
        targets.append((what, "n/a", lim, "not measured"))
        return
    fmt = f"{value:.2f}{unit}" if unit == "x" else f"{value:.3g} {unit}"
    lim = f"{limit:.2f}{unit}" if unit == "x" else f"{limit:.3g} {unit}"
    targets.append((what, fmt, lim, "hold" if value <= limit else f"miss (by {value / limit:.2f}x)"))


def row(name, r):
    return rows.get((name, r))


if "big" in books:
    f = floors["big"]
    pdf, j2, epub, npl, both = (row("big", r) for r in ("pdf", "pdf-j2", "epub", "npl", "both"))
    if pdf:
        target("30: big PDF -j1, CPU / shaping + drawing floor", pdf["cpu"] / (f["pdf_floor_cpu"] + f["pdf_emit_cpu"]), 2.0)
        target("30: big PDF -j1, CPU / shaping floor", pdf["cpu"] / f["pdf_floor_cpu"], 4.5)
        target("30: big PDF, peak RSS (with images)", pdf["rss"] / 1024, 200, "MiB")
    if pdf and j2:
        target("30: big PDF, -j2 wall / -j1 wall (two cores free)", j2["wall"] / pdf["wall"], 0.65)
    elif pdf:
        target("30: big PDF, -j2 wall / -j1 wall (no pdf-j2 row, or no -j)", None, 0.65)
    if epub:
        target("big EPUB, CPU / parse+deflate + shaping floor", epub["cpu"] / (f["epub_floor_cpu"] + f["pdf_floor_cpu"]), 1.5)
        # the same with the wall time of the default threads (the page list's paragraphs
        # shaped on the second core, ahead.c) against the floor's one-core CPU
        target("big EPUB, wall / parse+deflate + shaping floor", epub["wall"] / (f["epub_floor_cpu"] + f["pdf_floor_cpu"]), 1.5)
        target("30: big EPUB with its page list, peak RSS", epub["rss"] / 1024, 150, "MiB")
    if npl:
        target("big EPUB --no-page-list, CPU / parse+deflate floor", npl["cpu"] / f["epub_floor_cpu"], 1.5)
        target("big EPUB --no-page-list, peak RSS", npl["rss"] / 1024, 150, "MiB")
    if both and pdf:
        target("30: big both in one run, CPU / PDF alone", both["cpu"] / pdf["cpu"], 1.1)
        target("30: big both in one run, wall / PDF alone", both["wall"] / pdf["wall"], 1.1)
# images: the small (1 MB) book's PDF against the same book without its figures
sp, sn = row("small", "pdf"), row("small", "pdf-noimg")
if "small" in books and sp and sn:
    target("30: images, small PDF CPU / without images", sp["cpu"] / sn["cpu"], 1.15)
    target("30: images, small PDF peak RSS - without images", (sp["rss"] - sn["rss"]) / 1024, 30, "MiB")
elif "small" in books:
    target("30: images, small PDF CPU / without images (no pdf-noimg row)", None, 1.15)
if row("seed", "both"):
    target("30: seed, both outputs, wall", row("seed", "both")["wall"], 0.05, "s")
if "small" in books and "big" in books:
    gb = floors["big"]["input_bytes"] / floors["small"]["input_bytes"]
    for r in ("pdf", "epub", "npl"):
        s, b = row("small", r), row("big", r)
        if s and b:
            target(f"growth {r}, CPU", b["cpu"] / s["cpu"], gb)
            target(f"growth {r}, peak RSS", b["rss"] / s["rss"], 3.0)
if targets:
    print("\ntargets (issue 15's; \"30:\" issue 30's):")
    w = max(len(t[0]) for t in targets)
    for what, value, limit, verdict in targets:
        print(f"  {what:{w}}  {value:>10}  (target <= {limit:>8})  {verdict}")

ir = os.path.join(scratch, "ir.tsv")
if os.path.exists(ir) and os.path.getsize(ir):
    print("\ninstructions (callgrind Ir; repeatable):")
    print(f"  {'book':12} {'floor EPUB':>14} {'octavo EPUB':>14} {'ratio':>6} "
          f"{'floor PDF':>14} {'octavo PDF':>14} {'ratio':>6}")
    for line in open(ir):
        name, _, fe, fp, oe, op = line.split()
        fe, fp, oe, op = (int(x.replace(",", "")) for x in (fe, fp, oe, op))
        print(f"  {name:12} {fe:14,} {oe:14,} {oe / fe:5.1f}x {fp:14,} {op:14,} {op / fp:5.1f}x")
