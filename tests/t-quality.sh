#!/bin/sh
# t-quality.sh: the quality table of issue 13 (tests/tools/quality_table.py)
# over the report (content/lsfmm-bpf-2023.md), the test books (tests/books/*)
# and the corpus books (tests/corpus/*): layout x paper x columns -> pages,
# full lines, characters per line, p95 and max word-space ratio, loose lines,
# hyphen runs, widows/orphans/stranded headings, lines past the margin,
# frame-end hyphens, fullness; every configuration (2 layouts x 3 papers x
# 1 and 2 columns) for the report, the test books and the corpus books, two
# builds at a time. Fails on any figure out of range (MISS lines). The table is
# written to $TMPROOT/show, which tests/run.sh prints under the result line.
# Budget: 120 builds, about 5 min of CPU (4.6 min user on 4 Dec 2026;
# poppler's text extraction, twice a PDF, is most of it): about 2.5 min on
# a quiet 2-core machine (555 s at load 8-10, other builds running).
set -u
for t in python3 pdftotext pdftohtml qpdf; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
mkdir -p "$TMPROOT/quality"
python3 "$TOP/tests/tools/quality_table.py" "$OCTAVO" "$TOP" "$TMPROOT/quality" --jobs 2 \
  > "$TMPROOT/show" 2>&1
rc=$?
cat "$TMPROOT/show"
exit $rc
