#!/usr/bin/env python3
"""spec_run.py: octavo's own Markdown behaviours, in cmark's spec format.

Usage: spec_run.py OCTAVO SPEC.txt [SPEC.txt...] [--verbose]

Each example is a block fenced by 32 backticks and "example" (as in
cmark's and md4c's spec files): the Markdown, a line ".", and the HTML that
`octavo -q -t html -o - -` must print for it, byte for byte ("→" stands for
a tab).  Words after "example" on the fence line are octavo options for
that example (`example --smart`, `example --split-level 1`).  Headings
outside the examples name the sections.

The exit status is 1 when an example fails, when octavo fails, or when a
file holds no example at all (a test that checks nothing must not pass).
"""
import shlex
import subprocess
import sys

FENCE = "`" * 32


def read_examples(path):
    """[(line, section, options, markdown, html)] from a spec file."""
    out, section, state = [], "", 0
    md, ht, opts, start = [], [], [], 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.rstrip("\n")
            if state == 0:
                if s.startswith(FENCE) and s[32:].strip().split(" ")[0] == "example":
                    state, md, ht, start = 1, [], [], n
                    opts = shlex.split(s[32:].strip())[1:]
                elif s.startswith("#"):
                    section = s.lstrip("#").strip()
            elif state == 1:
                if s == ".":
                    state = 2
                else:
                    md.append(line)
            elif state == 2:
                if s == FENCE:
                    out.append((start, section, opts, "".join(md).replace("→", "\t"),
                                "".join(ht).replace("→", "\t")))
                    state = 0
                else:
                    ht.append(line)
    if state != 0:
        raise SystemExit("%s:%d: example not closed" % (path, start))
    return out


def main(argv):
    verbose = "--verbose" in argv
    args = [a for a in argv[1:] if a != "--verbose"]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    octavo, files = args[0], args[1:]
    passed = failed = 0
    for path in files:
        examples = read_examples(path)
        if not examples:
            print("FAIL %s: no examples" % path)
            failed += 1
            continue
        for line, section, opts, md, want in examples:
            cmd = [octavo, "-q", *opts, "-t", "html", "-o", "-", "-"]
            r = subprocess.run(cmd, input=md.encode("utf-8"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=30)
            got = r.stdout.decode("utf-8", "replace")
            if r.returncode == 0 and got == want:
                passed += 1
                if verbose:
                    print("pass %s:%d %s" % (path, line, section))
                continue
            failed += 1
            print("FAIL %s:%d (%s)%s" % (path, line, section, " " + " ".join(opts) if opts else ""))
            print("  markdown:\n" + "".join("    | " + l + "\n" for l in md.split("\n")[:-1]))
            print("  expected:\n" + "".join("    | " + l + "\n" for l in want.split("\n")[:-1]))
            print("  got (exit %d):\n" % r.returncode + "".join("    | " + l + "\n" for l in got.split("\n")[:-1]))
            if r.stderr:
                print("  stderr:\n" + "".join("    | " + l + "\n" for l in r.stderr.decode("utf-8", "replace").split("\n")[:-1]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
