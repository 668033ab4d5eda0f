#!/bin/sh
# t-linear.sh: the linear-time claims of issue 7, as ratios measured in one
# run rather than wall-clock limits. For each generator of
# tests/hostile/gen.py named below, octavo writes the EPUB (--no-page-list:
# the EPUB stages alone) from the input at scale 0.1 (n) and 1.0 (10n: the
# sizes of issue 7), and the PDF at 0.02 and 0.2 (the layout costs ~20
# times more per byte; 10n stays under 5 s a case); the CPU time (user + sys of the child) of each run, less the
# cost of a one-line book in the same format (start-up, fonts, cover), is
# compared: 10n may cost at most 30 times n (linear is ~10, quadratic
# ~100). n's cost is floored at FLOOR seconds so that noise on a cheap run
# cannot make the ratio; a quadratic stage still shows, as 10n then costs
# far more than 30 floors. Prints every measurement.
set -u
cd "$TMPROOT" || exit 1
mkdir -p linear && cd linear || exit 1
export SOURCE_DATE_EPOCH=1683763200
exec python3 - "$OCTAVO" "$TOP/tests/hostile/gen.py" <<'PY'
import os, resource, subprocess, sys

octavo, gen = sys.argv[1], sys.argv[2]
CASES = ["deep-quotes", "deep-lists", "big-paragraph", "many-rows", "many-footnotes",
         "many-links", "same-headings", "long-code", "big-word"]
SCALES = {"epub": (0.1, 1.0), "pdf": (0.02, 0.2)}
MAX_RATIO = 30.0
FLOOR = 0.05  # seconds of CPU (0.02 let ASan and a busy machine fail long-code: 0.029 s of work at n)

for scale in sorted({s for pair in SCALES.values() for s in pair}):
    subprocess.run([sys.executable, gen, "scale-%g" % scale, str(scale)], check=True)
with open("base.md", "w") as f:
    f.write("# Base\n\nOne line.\n")

def cpu(path, fmt):
    """CPU seconds (user + sys) of one octavo run; fails on a non-zero exit."""
    args = [octavo, "-q", path, "-o", "out." + fmt]
    if fmt == "epub":
        args.append("--no-page-list")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.stderr.write(r.stderr.decode(errors="replace")[-2000:])
        print("FAIL: %s -> %s: exit status %d" % (path, fmt, r.returncode))
        sys.exit(1)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

failed = []
for fmt in ("epub", "pdf"):
    n, n10 = SCALES[fmt]
    base = min(cpu("base.md", fmt) for _ in range(3))
    print("%s: scales %g and %g; a one-line book costs %.3f s" % (fmt, n, n10, base))
    for case in CASES:
        small = min(cpu("scale-%g/%s.md" % (n, case), fmt) for _ in range(2))
        large = cpu("scale-%g/%s.md" % (n10, case), fmt)
        work_n = max(small - base, FLOOR)
        work_10n = max(large - base, 0.0)
        ratio = work_10n / work_n
        verdict = "ok" if ratio <= MAX_RATIO else "FAIL"
        print("%-15s %-4s n %.3f s  10n %.3f s  work ratio %5.1f  %s" % (case, fmt, small, large, ratio, verdict),
              flush=True)
        if ratio > MAX_RATIO:
            failed.append("%s (%s): 10n costs %.1f times n" % (case, fmt, ratio))
if failed:
    print("FAIL: not linear: " + "; ".join(failed))
    sys.exit(1)
print("t-linear: ok")
PY
