#!/usr/bin/env python3
"""gen-book.py [--no-images] [--without DIR] OUTDIR [MB] [CHAPTERS]: write a big, realistic
multi-file book for bench/.

About MB megabytes (default 10) of Markdown in CHAPTERS files (default 111) named
NN-chapter.md (NNN-chapter.md
when there are more than 99, so that a glob sorts them), built from the prose of content/lsfmm-bpf-2023.md and
tests/books/multi/*.md: its sentences recombined, plus new sentences from a word-level
Markov chain over the same text, so paragraphs vary. Every chapter has headings (##
and ###), paragraphs with emphasis, inline code, links to other chapters' headings and
out to the web, bullet, ordered, nested and task lists, fenced code blocks, GFM tables,
block quotes and footnotes. Deterministic: the same arguments write the same bytes.

Figures (issue 30): OUTDIR/images/ holds 28 files, PNG, JPEG and SVG (figures.py), and a
figure paragraph is put in every FIG_EVERY bytes of Markdown (about 27 in 1 MB, 250 in 10 MB),
some files drawn once, some many times, one a 4000 x 3000 photo shown about 6 cm wide. The
figures take nothing from the text's random numbers, so the text is the same with them or
without; --without DIR writes the same chapters with the figures left out into DIR (the
"without images" half of the pair), --no-images writes no figures at all.
"""
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figures  # noqa: E402

SEED = 20230508
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["content/lsfmm-bpf-2023.md", "tests/books/multi/01-intro.md",
           "tests/books/multi/02-features.md", "tests/books/multi/03-long.md"]


def plain(md):
    """The prose of a Markdown file as plain text lines (no front matter, code, tables)."""
    md = re.sub(r"\A---\n.*?\n---\n", "", md, flags=re.S)
    md = re.sub(r"```.*?```", "", md, flags=re.S)
    md = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", md)  # links, also across lines
    out = []
    for line in md.splitlines():
        s = line.strip()
        if not s or s.startswith(("|", "#", "    ", "<", "[^", "![", "---", ">")):
            continue
        s = re.sub(r"^(?:[-*+]|\d+[.)])\s+(?:\[[ x]\]\s+)?", "", s)
        s = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", s)
        s = re.sub(r"\[\^[^\]]*\]", "", s)
        s = re.sub(r"<[^>]+>", "", s)
        s = re.sub(r"[*_`~\\]", "", s)
        s = re.sub(r"https?://\S+", "", s)
        out.append(s)
    return " ".join(out)


def sentences_of(text):
    parts = re.split(r"(?<=[.?!])\s+(?=[A-Z])", text)
    seen, out = set(), []
    for p in parts:
        p = p.strip()
        if len(p.split()) >= 5 and p[-1] in ".?!" and p not in seen:
            seen.add(p)
            out.append(p)
    return out


class Prose:
    def __init__(self, rng, sents):
        self.rng = rng
        self.sents = sents
        self.chain = {}
        self.starts = []
        for s in sents:
            w = s.split()
            self.starts.append((w[0], w[1]))
            for i in range(len(w) - 2):
                self.chain.setdefault((w[i], w[i + 1]), []).append(w[i + 2])
        words = sorted({re.sub(r"[^A-Za-z_]", "", w) for s in sents for w in s.split()})
        self.words = [w for w in words if len(w) > 3]
        self.idents = [w.lower() for w in self.words if w.islower() or "_" in w] or ["folio"]

    def markov(self):
        a, b = self.rng.choice(self.starts)
        out = [a, b]
        while len(out) < 60:
            nxt = self.chain.get((a, b))
            if not nxt:
                break
            c = self.rng.choice(nxt)
            out.append(c)
            a, b = b, c
            if c[-1] in ".?!" and len(out) >= 8:
                break
        s = " ".join(out)
        if s[-1] not in ".?!":
            s = s.rstrip(",;:") + "."
        return s

    def sentence(self):
        return self.rng.choice(self.sents) if self.rng.random() < 0.5 else self.markov()

    def phrase(self, lo=2, hi=5):
        return " ".join(self.rng.choice(self.words) for _ in range(self.rng.randint(lo, hi)))

    def ident(self):
        r = self.rng
        k = r.random()
        a, b = r.choice(self.idents), r.choice(self.idents)
        if k < 0.4:
            return f"{a}_{b}()"
        if k < 0.6:
            return f"struct {a}"
        if k < 0.8:
            return f"CONFIG_{a.upper()}"
        return f"/sys/kernel/{a}/{b}"


class Fig(str):
    """A figure's paragraph: not counted in a chapter's size, left out of --without's copy."""


FIG_EVERY = 40000


def slug(text):
    s = re.sub(r"[^\w\- ]", "", text.lower())
    return s.replace(" ", "-")


class Chapter:
    def __init__(self, book, idx):
        self.book, self.idx, self.rng, self.p = book, idx, book.rng, book.prose
        self.out, self.notes, self.nnote = [], [], 0
        self.figmark = 0

    def inline(self, s):
        """Decorate a sentence with emphasis, code, links and footnotes."""
        r, words = self.rng, s.split(" ")
        if len(words) > 6:
            k = r.random()
            i = r.randrange(1, len(words) - 3)
            if k < 0.15:
                words[i] = f"*{words[i]}*"
            elif k < 0.25:
                words[i] = f"**{words[i]}**"
            elif k < 0.40:
                words.insert(i, f"`{self.p.ident()}`")
            elif k < 0.50:
                tgt = self.book.random_heading(self.idx)
                words[i] = f"[{words[i]}]({tgt})"
            elif k < 0.56:
                words[i] = f"[{words[i]}](https://lwn.net/Articles/{r.randint(900000, 940000)}/)"
            elif k < 0.58:
                words[i] = f"~~{words[i]}~~"
        s = " ".join(words)
        if r.random() < 0.04:
            self.nnote += 1
            label = f"c{self.idx}n{self.nnote}"
            self.notes.append(f"[^{label}]: {self.p.sentence()} {self.p.sentence()}")
            s = s[:-1] + f"[^{label}]" + s[-1]
        return s

    def para(self, lo=3, hi=11):
        return " ".join(self.inline(self.p.sentence()) for _ in range(self.rng.randint(lo, hi)))

    def figure(self):
        """A figure paragraph every FIG_EVERY bytes of the book (its own random numbers)."""
        b = self.book
        if not b.figs:
            return
        b.since_fig += sum(len(x) + 2 for x in self.out[self.figmark:] if not isinstance(x, Fig))
        self.figmark = len(self.out)
        while b.since_fig >= FIG_EVERY:
            b.since_fig -= FIG_EVERY
            self.out.append(Fig(b.next_figure()))
            self.figmark = len(self.out)

    def block(self):
        r = self.rng
        k = r.random()
        if k < 0.62:
            self.out.append(self.para())
        elif k < 0.72:
            self.list_block()
        elif k < 0.79:
            self.code_block()
        elif k < 0.85:
            self.table()
        elif k < 0.91:
            q = self.para(2, 5)
            if r.random() < 0.3:
                q += "\n>\n> " + self.para(1, 3)
            self.out.append("> " + q)
        else:
            self.out.append(self.para(12, 30))  # a long paragraph

    def list_block(self):
        r = self.rng
        kind = r.random()
        lines = []
        for i in range(r.randint(3, 9)):
            text = self.inline(self.p.sentence())
            if kind < 0.45:
                lines.append(f"- {text}")
            elif kind < 0.8:
                lines.append(f"{i + 1}. {text}")
            else:
                lines.append(f"- [{'x' if r.random() < 0.5 else ' '}] {text}")
            if r.random() < 0.2:
                for j in range(r.randint(1, 3)):
                    lines.append(f"   - {self.inline(self.p.sentence())}")
        self.out.append("\n".join(lines))

    def code_block(self):
        r = self.rng
        lang = r.choice(["c", "sh", "", "c"])
        lines = []
        depth = 0
        for _ in range(r.randint(4, 40)):
            a, b = r.choice(self.p.idents), r.choice(self.p.idents)
            k = r.random()
            ind = "    " * depth
            if k < 0.15 and depth < 3:
                lines.append(f"{ind}if ({a}->{b} > {r.randint(0, 4096)}) {{")
                depth += 1
            elif k < 0.3 and depth > 0:
                depth -= 1
                lines.append("    " * depth + "}")
            elif k < 0.45:
                lines.append(f"{ind}/* {self.p.phrase(3, 9)} */")
            else:
                lines.append(f"{ind}{a}_{b}(&{a}, {r.randint(0, 255)}, \"{self.p.phrase(1, 3)}\");")
        while depth > 0:
            depth -= 1
            lines.append("    " * depth + "}")
        self.out.append(f"```{lang}\n" + "\n".join(lines) + "\n```")

    def table(self):
        r = self.rng
        ncol = r.randint(2, 5)
        head = [self.p.phrase(1, 2).capitalize() for _ in range(ncol)]
        rows = ["| " + " | ".join(head) + " |",
                "|" + "|".join(r.choice([":---", "---:", ":---:", "---"]) for _ in head) + "|"]
        for _ in range(r.randint(3, 25)):
            cells = []
            for c in range(ncol):
                if c == 0:
                    cells.append(f"`{r.choice(self.p.idents)}`")
                elif r.random() < 0.3:
                    cells.append(f"{r.randint(1, 99999):,}")
                else:
                    cells.append(self.p.phrase(1, 6))
            rows.append("| " + " | ".join(cells) + " |")
        self.out.append("\n".join(rows))

    def write(self, target_bytes):
        b = self.book
        if self.idx == 1:
            self.out.append("---\ntitle: The Big Bench Book\nsubtitle: Recombined from the 2023 "
                            "LSFMM+BPF Summit\nauthor: octavo bench\ndate: 2024-01-01\nlang: en\n---")
        self.out.append(f"# {b.titles[self.idx]}")
        self.out.append(self.para())
        secs = b.headings[self.idx]
        nsub = sum(len(subs) for _, subs in secs)
        k, size, mark = 0, 0, 0
        for h2, subs in secs:
            self.out.append(f"## {h2}")
            for sub in subs:
                self.out.append(f"### {sub}")
                k += 1
                # Cumulative targets, so that no section's overshoot adds up.
                while True:
                    size += sum(len(x) + 2 for x in self.out[mark:] if not isinstance(x, Fig))
                    mark = len(self.out)
                    if size >= target_bytes * k // nsub:
                        break
                    self.block()
                    self.figure()
            if self.notes:
                self.out.extend(self.notes)
                self.notes = []
        return ("\n\n".join(self.out) + "\n",
                "\n\n".join(x for x in self.out if not isinstance(x, Fig)) + "\n")


class Book:
    def __init__(self, nchap, figs=None):
        self.rng = random.Random(SEED)
        self.figs = figs or []  # figures.write's list: (markdown, kind)
        self.fig_rng = random.Random(SEED + 30)
        self.since_fig = FIG_EVERY // 2
        self.figs_used = []
        text = " ".join(plain(open(os.path.join(TOP, f), encoding="utf-8").read()) for f in SOURCES)
        self.prose = Prose(self.rng, sentences_of(text))
        self.nchap = nchap
        self.titles, self.headings, self.anchors = {}, {}, []
        for c in range(1, nchap + 1):
            self.titles[c] = f"Chapter {c}: {self.prose.phrase(2, 4)}"
            secs = []
            for s in range(1, self.rng.randint(4, 7) + 1):
                h2 = f"Part {c}.{s} on {self.prose.phrase(1, 3)}"
                subs = [f"Topic {c}.{s}.{t} {self.prose.phrase(1, 3)}"
                        for t in range(1, self.rng.randint(2, 4) + 1)]
                secs.append((h2, subs))
                for h in [h2] + subs:
                    self.anchors.append((c, slug(h)))
            self.headings[c] = secs

    def fname(self, c):
        # Zero-padded to the widest number, so that a shell glob lists them in order.
        return f"{c:0{max(2, len(str(self.nchap)))}d}-chapter.md"

    def next_figure(self):
        """The next figure's paragraph: a file not shown yet (in order) seven times in ten
        while there are some, else one shown already, so that files repeat."""
        r = self.fig_rng
        fresh = [i for i in range(len(self.figs)) if i not in self.figs_used]
        if fresh and (r.random() < 0.7 or not self.figs_used):
            i = fresh[0]
            self.figs_used.append(i)
        else:
            i = r.choice(self.figs_used)
        return self.figs[i]

    def random_heading(self, here):
        c, a = self.rng.choice(self.anchors)
        return f"#{a}" if c == here else f"{self.fname(c)}#{a}"


def main():
    args = sys.argv[1:]
    images, without = True, None
    while args and args[0].startswith("--"):
        if args[0] == "--no-images":
            images = False
            args = args[1:]
        elif args[0] == "--without" and len(args) > 1:
            without = args[1]
            args = args[2:]
        else:
            break
    if not args:
        sys.exit("usage: gen-book.py [--no-images] [--without DIR] OUTDIR [MB] [CHAPTERS]")
    outdir = args[0]
    mb = float(args[1]) if len(args) > 1 else 10.0
    nchap = int(args[2]) if len(args) > 2 else 111
    os.makedirs(outdir, exist_ok=True)
    figs = figures.write(os.path.join(outdir, "images")) if images else []
    book = Book(nchap, figs)
    per = int(mb * 1e6 / nchap)
    total = nfig = 0
    if without:
        os.makedirs(without, exist_ok=True)
    for c in range(1, nchap + 1):
        ch = Chapter(book, c)
        data, plain_data = (d.encode("utf-8") for d in ch.write(per))
        nfig += sum(isinstance(x, Fig) for x in ch.out)
        with open(os.path.join(outdir, book.fname(c)), "wb") as f:
            f.write(data)
        if without:
            with open(os.path.join(without, book.fname(c)), "wb") as f:
                f.write(plain_data)
        total += len(data)
    print(f"gen-book: {nchap} files, {total} bytes in {outdir}; {nfig} figure references to "
          f"{len(set(book.figs_used))} of {len(figs)} image files", file=sys.stderr)


if __name__ == "__main__":
    main()
