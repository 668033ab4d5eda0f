#!/bin/sh
# bench/run.sh: octavo's speed and memory as ratios to its libraries' floor, in one run.
#
#   make bench            (or sh bench/run.sh, which runs make bench)
#
# Builds octavo and bench/floor.c, writes the big book once (bench/gen-book.py) into a
# scratch directory, then for the seed (content/lsfmm-bpf-2023.md) and the big book:
# runs the floor (bench/floor.c: cmark-gfm parse + HTML render + libzip deflate for the
# EPUB; parse + pango itemize/shape of every paragraph for the PDF), octavo's EPUB alone
# (--no-page-list) and octavo's PDF alone, each BENCH_RUNS times, and prints the medians:
# wall and CPU seconds, peak RSS, ratio to the floor, pages and output size.
#
# Environment:
#   BENCH_MB=10          size of the big book in MB of Markdown (111 chapter files)
#   BENCH_RUNS=3         runs of each command (the median is printed)
#   BENCH_CALLGRIND=1    also count instructions (valgrind callgrind) of octavo and the floor:
#                        repeatable where times are not. Slow (about 50 times the CPU time).
#   BENCH_CALLGRIND_MB=  size of the book callgrind runs on (default: the big book itself)
#   BENCH_KEEP=1         keep the scratch directory (its path is printed)
# Results also go to $BUILD/bench/results.txt.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
BUILD=${BUILD:-build}
if [ -z "${BENCH_FROM_MAKE:-}" ]; then
  exec make --no-print-directory BUILD="$BUILD" bench
fi
make --no-print-directory BUILD="$BUILD" octavo >/dev/null

OCTAVO=$TOP/$BUILD/octavo
FLOOR=$TOP/$BUILD/bench/floor
MB=${BENCH_MB:-10}
RUNS=${BENCH_RUNS:-3}
SEED=content/lsfmm-bpf-2023.md
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/octavo-bench.XXXXXX")
RAW=$SCRATCH/raw.tsv
RESULTS=$TOP/$BUILD/bench/results.txt
cleanup() {
  if [ -n "${BENCH_KEEP:-}" ]; then echo "bench: scratch kept in $SCRATCH" >&2; else rm -rf "$SCRATCH"; fi
}
trap cleanup EXIT INT TERM

# timed OUTFILE CMD...: run CMD, append "wall cpu maxrss_kb" to OUTFILE.
if [ -x /usr/bin/time ]; then
  timed() {
    t_out=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$t_out.t" "$@" >/dev/null
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$t_out.t" >>"$t_out"
  }
else
  # No /usr/bin/time: the children's rusage from python3 (ru_maxrss is in KiB on Linux).
  timed() {
    t_out=$1; shift
    python3 - "$t_out" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[2:], check=True, stdout=subprocess.DEVNULL)
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "a") as f:
    f.write(f"{wall:.2f} {ru.ru_utime + ru.ru_stime:.2f} {ru.ru_maxrss}\n")
PY
  }
fi

# bench_book NAME INPUTS...: the floor, the EPUB and the PDF of one book, into $RAW.
bench_book() {
  name=$1; shift
  echo "bench: $name: floor x$RUNS" >&2
  "$FLOOR" -d "$TOP" -o "$SCRATCH/floor.zip" -p "$SCRATCH/floor.pdf" -n "$RUNS" "$@" >"$SCRATCH/$name.floor"
  # For information: the EPUB floor at octavo's own deflate level (9).
  "$FLOOR" -d "$TOP" -o "$SCRATCH/floor.zip" -n "$RUNS" -m epub -z 9 "$@" |
    sed -n 's/^epub_floor_\(wall\|cpu\) /epub9_floor_\1 /p' >>"$SCRATCH/$name.floor"
  for fmt in epub pdf; do
    out=$SCRATCH/$name.$fmt
    extra=""
    [ "$fmt" = epub ] && extra=--no-page-list
    : >"$SCRATCH/$name.$fmt.times"
    i=0
    while [ "$i" -lt "$RUNS" ]; do
      echo "bench: $name: octavo $fmt run $((i + 1))/$RUNS" >&2
      rm -f "$out"
      if ! timed "$SCRATCH/$name.$fmt.times" "$OCTAVO" -q "$@" -o "$out" $extra; then
        echo "bench: octavo failed on $name ($fmt)" >&2
        exit 1
      fi
      i=$((i + 1))
    done
    size=$(wc -c <"$out")
    pages=-
    if [ "$fmt" = pdf ] && command -v pdfinfo >/dev/null; then
      pages=$(pdfinfo "$out" | awk '/^Pages:/ { print $2 }')
    elif [ "$fmt" = epub ] && command -v unzip >/dev/null; then
      pages="$(unzip -Z1 "$out" | grep -c '\.xhtml$') xhtml"
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$fmt" "$size" "$pages" \
      "$(tr '\n' ',' <"$SCRATCH/$name.$fmt.times")" >>"$RAW"
  done
}

# callgrind_ir OUT CMD...: instructions executed by CMD (callgrind's "Collected"), into OUT.
callgrind_ir() {
  c_out=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$SCRATCH/cg.out" "$@" >/dev/null 2>"$SCRATCH/cg.log" || {
    echo "bench: callgrind failed: $*" >&2; tail -5 "$SCRATCH/cg.log" >&2; exit 1; }
  awk '/Collected :/ { print $NF }' "$SCRATCH/cg.log" >"$c_out"
}

bench_callgrind() {
  name=$1; shift
  echo "bench: $name: callgrind (floor, EPUB, PDF)" >&2
  callgrind_ir "$SCRATCH/$name.ir.floor_epub" "$FLOOR" -d "$TOP" -o "$SCRATCH/floor.zip" -m epub "$@"
  callgrind_ir "$SCRATCH/$name.ir.floor_pdf" "$FLOOR" -d "$TOP" -m pdf "$@"
  callgrind_ir "$SCRATCH/$name.ir.epub" "$OCTAVO" -q "$@" -o "$SCRATCH/cg.epub" --no-page-list
  callgrind_ir "$SCRATCH/$name.ir.pdf" "$OCTAVO" -q "$@" -o "$SCRATCH/cg.pdf"
  printf '%s\tir\t%s\t%s\t%s\t%s\n' "$name" "$(cat "$SCRATCH/$name.ir.floor_epub")" \
    "$(cat "$SCRATCH/$name.ir.floor_pdf")" "$(cat "$SCRATCH/$name.ir.epub")" \
    "$(cat "$SCRATCH/$name.ir.pdf")" >>"$SCRATCH/ir.tsv"
}

: >"$RAW"
: >"$SCRATCH/ir.tsv"
python3 bench/gen-book.py "$SCRATCH/book" "$MB"
bench_book seed "$SEED"
bench_book big "$SCRATCH"/book/*.md
if [ -n "${BENCH_CALLGRIND:-}" ]; then
  command -v valgrind >/dev/null || { echo "bench: BENCH_CALLGRIND needs valgrind" >&2; exit 1; }
  bench_callgrind seed "$SEED"
  if [ -n "${BENCH_CALLGRIND_MB:-}" ]; then
    python3 bench/gen-book.py "$SCRATCH/cgbook" "$BENCH_CALLGRIND_MB"
    bench_callgrind "big-${BENCH_CALLGRIND_MB}MB" "$SCRATCH"/cgbook/*.md
  else
    bench_callgrind big "$SCRATCH"/book/*.md
  fi
fi

mkdir -p "$(dirname "$RESULTS")"
python3 - "$SCRATCH" "$RAW" "$MB" "$RUNS" "$(git rev-parse --short HEAD 2>/dev/null || echo '?')" \
  "$(nproc 2>/dev/null || echo '?')" <<'PY' | tee "$RESULTS"
import os, statistics, sys, time
scratch, raw, mb, runs, commit, ncpu = sys.argv[1:]

def floor(name):
    d = {}
    for line in open(os.path.join(scratch, name + ".floor")):
        k, v = line.split()
        d[k] = float(v)
    return d

def mib(kb):
    return f"{kb / 1024:.0f} MiB"

def size(b):
    return f"{b / 1e6:.2f} MB" if b >= 1e5 else f"{b / 1e3:.0f} kB"

print(f"octavo bench, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, "
      f"{ncpu} CPUs, load {os.getloadavg()[0]:.1f}, median of {runs}")
floors = {}
for line in open(raw):
    name, fmt, osize, pages, times = line.rstrip("\n").split("\t")
    f = floors.setdefault(name, floor(name))
    if fmt == "epub":
        print(f"\n{name}: {int(f['inputs'])} input(s), {size(f['input_bytes'])} of Markdown, "
              f"{int(f['paragraphs'])} paragraphs, {int(f['glyphs'])} glyphs")
        print(f"  floor EPUB: {f['epub_floor_wall']:.3f} s wall, {f['epub_floor_cpu']:.3f} s CPU "
              f"(parse {f['epub_parse_wall']:.3f}, HTML {f['epub_render_wall']:.3f}, "
              f"zip {f['epub_zip_wall']:.3f}; {size(f['zip_bytes'])} zip); at deflate level 9 "
              f"as octavo: {f['epub9_floor_wall']:.3f} s wall, {f['epub9_floor_cpu']:.3f} s CPU")
        print(f"  floor PDF:  {f['pdf_floor_wall']:.3f} s wall, {f['pdf_floor_cpu']:.3f} s CPU "
              f"(parse {f['pdf_parse_wall']:.3f}, shape {f['pdf_shape_wall']:.3f}; "
              f"log attrs, not counted, {f['pdf_log_attrs_wall']:.3f})")
        print(f"  not counted: cairo drawing the same runs once: {f['pdf_emit_wall']:.3f} s wall, "
              f"{f['pdf_emit_cpu']:.3f} s CPU ({int(f['emit_pages'])} pages, {size(f['emit_pdf_bytes'])})")
        print(f"  {'output':6} {'wall s':>8} {'CPU s':>8} {'peak RSS':>9} {'x floor wall':>12} "
              f"{'x floor CPU':>11} {'pages':>10} {'size':>9}")
    rows = [tuple(map(float, t.split())) for t in times.strip(",").split(",")]
    wall = statistics.median(r[0] for r in rows)
    cpu = statistics.median(r[1] for r in rows)
    rss = statistics.median(r[2] for r in rows)
    fw, fc = f[f"{fmt}_floor_wall"], f[f"{fmt}_floor_cpu"]
    print(f"  {fmt:6} {wall:8.2f} {cpu:8.2f} {mib(rss):>9} {wall / fw:11.1f}x {cpu / fc:10.1f}x "
          f"{pages:>10} {size(int(osize)):>9}")
    if fmt == "pdf":
        both = fc + f["pdf_emit_cpu"]
        print(f"  pdf against the floor + cairo's drawing ({both:.2f} s CPU): {cpu / both:.1f}x CPU")

ir = os.path.join(scratch, "ir.tsv")
if os.path.getsize(ir):
    print("\ninstructions (callgrind Ir; repeatable):")
    print(f"  {'book':12} {'floor EPUB':>14} {'octavo EPUB':>14} {'ratio':>6} "
          f"{'floor PDF':>14} {'octavo PDF':>14} {'ratio':>6}")
    for line in open(ir):
        name, _, fe, fp, oe, op = line.split()
        fe, fp, oe, op = (int(x.replace(",", "")) for x in (fe, fp, oe, op))
        print(f"  {name:12} {fe:14,} {oe:14,} {oe / fe:5.1f}x {fp:14,} {op:14,} {op / fp:5.1f}x")
PY
