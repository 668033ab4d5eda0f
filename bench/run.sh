#!/bin/sh
# bench/run.sh: octavo's speed and memory as ratios to its libraries' floor, in one run.
#
#   make bench            (or sh bench/run.sh, which runs make bench)
#
# Builds octavo and bench/floor.c, writes the big book and a small one once (bench/gen-book.py)
# into a scratch directory, then for each book (the seed content/lsfmm-bpf-2023.md, the small
# book, the big book): runs the floor (bench/floor.c: cmark-gfm parse + HTML render + libzip
# deflate for the EPUB; parse + pango itemize/shape of every paragraph for the PDF, and cairo
# drawing the same runs into a PDF) and octavo's outputs, each BENCH_RUNS times, and prints
# the medians: wall and CPU seconds, peak RSS, the ratio to the row's floor, pages and size;
# then the growth from the small book to the big one, pandoc's and WeasyPrint's figures when
# they are installed (make bench-peers), and the issue's targets, each held or missed.
#
# Outputs (rows), each a separate octavo run:
#   epub     -o X.epub                     the default EPUB, with the print page list (a layout)
#   npl      -o X.epub --no-page-list      the EPUB alone, no layout
#   pdf      -o X.pdf                      (-j1 when octavo has -j: one thread)
#   pdf-j2   -o X.pdf -j2                  (only when octavo has -j)
#   both     -o X.epub -o X.pdf            both outputs from one run (default threads)
#   handout  -o X.pdf --layout handout
#   pdf-noimg, epub-noimg   the pdf and epub rows on the same book with its figure paragraphs
#            left out (gen-book.py --without): the cost of images as a pair (issue 30)
#
# Environment:
#   BENCH_MB=10          size of the big book in MB of Markdown (111 chapter files)
#   BENCH_SMALL_MB=1     size of the small book (growth small -> big); 0 leaves it out
#   BENCH_RUNS=3         runs of each command (the median is printed)
#   BENCH_OUTPUTS="epub epub-noimg npl pdf pdf-noimg pdf-j2 both handout"   the rows to run
#   BENCH_IMAGES=1       the books have figures (PNG, JPEG, SVG; gen-book.py); 0: none, and
#                        no -noimg rows
#   BENCH_OCTAVO=        another octavo binary to measure instead of $BUILD/octavo
#   BENCH_BASE=          an older octavo binary run beside it, row by row, run by run (rows
#                        "ROW@base" and a column "x base"): before/after under the same load
#   BENCH_PEERS=1        with pandoc and weasyprint installed: run them (0: never)
#   BENCH_PEER_BOOK=big  the book the peers run on (seed, small or big), once each
#   BENCH_CALLGRIND=1    also count instructions (valgrind callgrind) of octavo and the floor:
#                        repeatable where times are not. Slow (about 50 times the CPU time).
#   BENCH_CALLGRIND_MB=  size of the book callgrind runs on (default: the big book itself)
#   BENCH_HIGHLIGHT=1    the cost of highlighting code (issue 29): the corpus's largest mdBook
#                        (tests/corpus/f3discovery, 241 listings), both books, against
#                        --no-highlight, runs interleaved; a ratio of medians (0: leave out)
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

OCTAVO=${BENCH_OCTAVO:-$TOP/$BUILD/octavo}
FLOOR=$TOP/$BUILD/bench/floor
MB=${BENCH_MB:-10}
SMALL_MB=${BENCH_SMALL_MB:-1}
RUNS=${BENCH_RUNS:-3}
OUTPUTS=${BENCH_OUTPUTS:-epub epub-noimg npl pdf pdf-noimg pdf-j2 both handout}
IMAGES=${BENCH_IMAGES:-1}
PEER_BOOK=${BENCH_PEER_BOOK:-big}
SEED=content/lsfmm-bpf-2023.md
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/octavo-bench.XXXXXX")
RAW=$SCRATCH/raw.tsv
RESULTS=$TOP/$BUILD/bench/results.txt
cleanup() {
  if [ -n "${BENCH_KEEP:-}" ]; then echo "bench: scratch kept in $SCRATCH" >&2; else rm -rf "$SCRATCH"; fi
}
trap cleanup EXIT INT TERM

# Whether this octavo chooses its threads (-j N); without it the pdf-j2 row is left out.
JOBS=""
if "$OCTAVO" --help 2>/dev/null | grep -q -- '--jobs'; then JOBS=1; fi
# The same for BENCH_BASE: until 3f8ef97 its rows ran without -j1 whatever it knew, so a base
# that had -j drew its pdf and handout rows with two threads (more CPU, less wall).
BASE_JOBS=""
if [ -n "${BENCH_BASE:-}" ] && "$BENCH_BASE" --help 2>/dev/null | grep -q -- '--jobs'; then BASE_JOBS=1; fi

# timed OUTFILE CMD...: run CMD, append "wall cpu maxrss_kb" to OUTFILE.
if [ -x /usr/bin/time ]; then
  timed() {
    t_out=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$t_out.t" "$@" >/dev/null 2>"$t_out.err" || {
      tail -5 "$t_out.err" >&2; return 1; }
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$t_out.t" >>"$t_out"
  }
else
  # No /usr/bin/time: the children's rusage from python3 (ru_maxrss is in KiB on Linux).
  timed() {
    t_out=$1; shift
    python3 - "$t_out" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[2:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "a") as f:
    f.write(f"{wall:.2f} {ru.ru_utime + ru.ru_stime:.2f} {ru.ru_maxrss}\n")
PY
  }
fi

# row_args ROW OUT: octavo's options for one row (the output path included).
row_args() {
  case $1 in
    epub | epub-noimg) echo "-o $2.epub" ;;
    npl) echo "-o $2.epub --no-page-list" ;;
    pdf | pdf-noimg) echo "-o $2.pdf${JOBS:+ -j1}" ;;
    pdf-j2) echo "-o $2.pdf -j2" ;;
    both) echo "-o $2.epub -o $2.pdf" ;;
    handout) echo "-o $2.pdf --layout handout${JOBS:+ -j1}" ;;
  esac
}

# row_size_pages ROW OUT: "size<TAB>pages" of the row's (main) output.
row_size_pages() {
  f=$2.pdf
  case $1 in epub | epub-noimg | npl) f=$2.epub ;; esac
  pages=-
  if [ "${f##*.}" = pdf ] && command -v pdfinfo >/dev/null; then
    pages=$(pdfinfo "$f" | awk '/^Pages:/ { print $2 }')
  elif command -v unzip >/dev/null; then
    pages="$(unzip -Z1 "$f" | grep -c '\.xhtml$') xhtml"
  fi
  printf '%s\t%s' "$(wc -c <"$f")" "$pages"
}

# noimg_inputs INPUTS...: the same chapters without their figures (DIR-noimg/, gen-book.py
# --without), or nothing when there is no such copy.
noimg_inputs() {
  for f; do
    g=$(dirname "$f")-noimg/$(basename "$f")
    [ -f "$g" ] || return 0
    printf '%s\n' "$g"
  done
}

# bench_book NAME INPUTS...: the floor and every row of one book, into $RAW.
bench_book() {
  name=$1; shift
  NOIMG=$(noimg_inputs "$@")
  echo "bench: $name: floor x$RUNS" >&2
  "$FLOOR" -d "$TOP" -o "$SCRATCH/floor.zip" -p "$SCRATCH/floor.pdf" -n "$RUNS" "$@" >"$SCRATCH/$name.floor"
  for row in $OUTPUTS; do
    [ "$row" = pdf-j2 ] && [ -z "$JOBS" ] && continue
    case $row in *-noimg) [ -n "$NOIMG" ] || continue ;; esac
    out=$SCRATCH/$name.$row
    base=$SCRATCH/$name.$row@base
    : >"$out.times"
    : >"$base.times"
    i=0
    while [ "$i" -lt "$RUNS" ]; do
      echo "bench: $name: octavo $row run $((i + 1))/$RUNS" >&2
      rm -f "$out.epub" "$out.pdf"
      # shellcheck disable=SC2046,SC2086 # row_args and NOIMG are word lists
      case $row in
        *-noimg) timed "$out.times" "$OCTAVO" -q $NOIMG $(row_args "$row" "$out") ;;
        *) timed "$out.times" "$OCTAVO" -q "$@" $(row_args "$row" "$out") ;;
      esac || { echo "bench: octavo failed on $name ($row)" >&2; exit 1; }
      # the base binary's rows: with -j1 where it has -j (BASE_JOBS), else without
      if [ -n "${BENCH_BASE:-}" ] && [ "$row" != pdf-j2 ]; then
        rm -f "$base.epub" "$base.pdf"
        # shellcheck disable=SC2046,SC2086
        case $row in
          *-noimg) timed "$base.times" "$BENCH_BASE" -q $NOIMG $(JOBS="$BASE_JOBS" row_args "$row" "$base") ;;
          *) timed "$base.times" "$BENCH_BASE" -q "$@" $(JOBS="$BASE_JOBS" row_args "$row" "$base") ;;
        esac || { echo "bench: $BENCH_BASE failed on $name ($row)" >&2; exit 1; }
      fi
      i=$((i + 1))
    done
    printf '%s\t%s\t%s\t%s\n' "$name" "$row" "$(row_size_pages "$row" "$out")" \
      "$(tr '\n' ',' <"$out.times")" >>"$RAW"
    if [ -s "$base.times" ]; then
      printf '%s\t%s\t%s\t%s\n' "$name" "$row@base" "$(row_size_pages "$row" "$base")" \
        "$(tr '\n' ',' <"$base.times")" >>"$RAW"
    fi
  done
}

# bench_peers NAME INPUTS...: pandoc (EPUB) and pandoc + WeasyPrint (PDF), once each.
bench_peers() {
  name=$1; shift
  if [ "${BENCH_PEERS:-1}" = 0 ] || ! command -v pandoc >/dev/null || ! command -v weasyprint >/dev/null; then
    return 0
  fi
  # absolute inputs: pandoc runs in the scratch directory (it leaves its
  # intermediate HTML for WeasyPrint in the current one)
  for f; do
    case $f in /*) ;; *) f=$TOP/$f ;; esac
    set -- "$@" "$f"
    shift
  done
  echo "bench: $name: pandoc EPUB (once)" >&2
  : >"$SCRATCH/peer.epub.times"
  (cd "$SCRATCH" && timed "$SCRATCH/peer.epub.times" pandoc -f gfm "$@" --metadata title=bench \
    -o "$SCRATCH/peer.epub") || { echo "bench: pandoc failed" >&2; return 0; }
  echo "bench: $name: pandoc + WeasyPrint PDF (once; minutes on the big book)" >&2
  : >"$SCRATCH/peer.pdf.times"
  (cd "$SCRATCH" && timed "$SCRATCH/peer.pdf.times" pandoc -f gfm "$@" -s --metadata title=bench \
    --pdf-engine=weasyprint -o "$SCRATCH/peer.pdf") ||
    { echo "bench: pandoc + weasyprint failed" >&2; return 0; }
  printf '%s\tpandoc epub\t%s\t%s\n' "$name" "$(row_size_pages epub "$SCRATCH/peer")" \
    "$(tr '\n' ',' <"$SCRATCH/peer.epub.times")" >>"$SCRATCH/peers.tsv"
  printf '%s\tpandoc+weasyprint pdf\t%s\t%s\n' "$name" "$(row_size_pages pdf "$SCRATCH/peer")" \
    "$(tr '\n' ',' <"$SCRATCH/peer.pdf.times")" >>"$SCRATCH/peers.tsv"
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
  callgrind_ir "$SCRATCH/$name.ir.pdf" "$OCTAVO" -q "$@" -o "$SCRATCH/cg.pdf" ${JOBS:+-j1}
  printf '%s\tir\t%s\t%s\t%s\t%s\n' "$name" "$(cat "$SCRATCH/$name.ir.floor_epub")" \
    "$(cat "$SCRATCH/$name.ir.floor_pdf")" "$(cat "$SCRATCH/$name.ir.epub")" \
    "$(cat "$SCRATCH/$name.ir.pdf")" >>"$SCRATCH/ir.tsv"
}

: >"$RAW"
: >"$SCRATCH/ir.tsv"
: >"$SCRATCH/peers.tsv"
LOAD0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
GEN_IMAGES=""
[ "$IMAGES" = 0 ] && GEN_IMAGES=--no-images
python3 bench/gen-book.py $GEN_IMAGES --without "$SCRATCH/book-noimg" "$SCRATCH/book" "$MB"
[ "$IMAGES" = 0 ] && rm -rf "$SCRATCH/book-noimg"
bench_book seed "$SEED"
[ "$PEER_BOOK" = seed ] && bench_peers seed "$SEED"
if [ "$SMALL_MB" != 0 ]; then
  python3 bench/gen-book.py $GEN_IMAGES --without "$SCRATCH/small-noimg" "$SCRATCH/small" "$SMALL_MB"
  [ "$IMAGES" = 0 ] && rm -rf "$SCRATCH/small-noimg"
  bench_book small "$SCRATCH"/small/*.md
  [ "$PEER_BOOK" = small ] && bench_peers small "$SCRATCH"/small/*.md
fi
bench_book big "$SCRATCH"/book/*.md
[ "$PEER_BOOK" = big ] && bench_peers big "$SCRATCH"/book/*.md
if [ -n "${BENCH_CALLGRIND:-}" ]; then
  command -v valgrind >/dev/null || { echo "bench: BENCH_CALLGRIND needs valgrind" >&2; exit 1; }
  bench_callgrind seed "$SEED"
  if [ -n "${BENCH_CALLGRIND_MB:-}" ]; then
    python3 bench/gen-book.py $GEN_IMAGES "$SCRATCH/cgbook" "$BENCH_CALLGRIND_MB"
    bench_callgrind "big-${BENCH_CALLGRIND_MB}MB" "$SCRATCH"/cgbook/*.md
  else
    bench_callgrind big "$SCRATCH"/book/*.md
  fi
fi

# bench_highlight: the code-heavy book with and without highlighting, interleaved (the same
# load for both), both books each run; prints the medians and their ratio.
bench_highlight() {
  d=$TOP/tests/corpus/f3discovery
  [ -f "$d/book.list" ] || return 0
  : >"$SCRATCH/hl.times"
  : >"$SCRATCH/plain.times"
  i=0
  while [ "$i" -lt "$RUNS" ]; do
    echo "bench: f3discovery: highlighted and plain, run $((i + 1))/$RUNS" >&2
    # shellcheck disable=SC2046 # the lists are word lists
    (cd "$d" && timed "$SCRATCH/hl.times" "$OCTAVO" -q $(cat book.args) $(cat book.list) \
      -o "$SCRATCH/hl.epub" -o "$SCRATCH/hl.pdf") || exit 1
    # shellcheck disable=SC2046
    (cd "$d" && timed "$SCRATCH/plain.times" "$OCTAVO" -q --no-highlight $(cat book.args) \
      $(cat book.list) -o "$SCRATCH/plain.epub" -o "$SCRATCH/plain.pdf") || exit 1
    i=$((i + 1))
  done
  python3 - "$SCRATCH/hl.times" "$SCRATCH/plain.times" <<'PY'
import statistics, sys
def med(f, k):
    return statistics.median(float(l.split()[k]) for l in open(f) if l.strip())
hw, hc, pw, pc = med(sys.argv[1], 0), med(sys.argv[1], 1), med(sys.argv[2], 0), med(sys.argv[2], 1)
print(f"highlighting, f3discovery EPUB+PDF: wall {hw:.2f} s / {pw:.2f} s plain = {hw / pw:.3f}x, "
      f"CPU {hc:.2f} s / {pc:.2f} s = {hc / pc:.3f}x  (target <= 1.10x)")
PY
}

mkdir -p "$(dirname "$RESULTS")"
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
git diff --quiet HEAD -- src bench 2>/dev/null || COMMIT="$COMMIT+changes"
python3 bench/report.py "$SCRATCH" "$RUNS" "$COMMIT" \
  "$(nproc 2>/dev/null || echo '?')" "$LOAD0" | tee "$RESULTS"
if [ "${BENCH_HIGHLIGHT:-1}" != 0 ]; then
  bench_highlight | tee -a "$RESULTS"
fi
