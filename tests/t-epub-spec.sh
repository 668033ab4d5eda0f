#!/bin/sh
# t-epub-spec.sh: the GFM spec examples through `octavo -t html -o -`,
# compared with the expected HTML after the spec's normalisation
# (tests/tools/epub_spec.py, which also classifies the differences). The
# minimum counts are the ones reached; fewer is a regression.
set -u
DATA="$TOP/tests/data" # the GFM spec (tests/data/README.md)
[ -f "$DATA/gfm-spec.txt" ] || { echo "FAIL: $DATA/gfm-spec.txt is missing (it is in the repository)"; exit 1; }
MIN_STRICT=${MIN_STRICT:-502}
MIN_POLICY=${MIN_POLICY:-630}
python3 "$TOP/tests/tools/epub_spec.py" "$OCTAVO" "$DATA/gfm-spec.txt" "$DATA/gfm-extensions.txt" \
  --min "$MIN_STRICT" --min-policy "$MIN_POLICY" --report "$TMPROOT/spec-report.txt"
