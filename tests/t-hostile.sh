#!/bin/sh
# t-hostile.sh: every input of tests/hostile/ gets a book or a clear message.
exec python3 "$TOP/tests/tools/hostile.py"
