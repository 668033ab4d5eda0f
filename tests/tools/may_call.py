#!/usr/bin/env python3
"""may_call.py: src/README.md's module table against the #include graph.

Each row's first column names its files ("x.c/.h", "a.c, b.h", "layout/");
its "may call" column must list exactly the octavo headers those files
include ('#include "..."'), less the row's own, in sorted order; its
"libraries" column is prose and not checked. Every file in src/ must be in
exactly one row.

  may_call.py SRC_README          check: exit 1 with the differences
  may_call.py SRC_README --fix    rewrite the "may call" column
"""
import glob
import os
import re
import sys


def expand(cell, src):
    files = []
    for tok in [t.strip().strip('`') for t in cell.split(',')]:
        if not tok:
            continue
        if tok.endswith('/'):
            files += sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, tok, '*.[ch]')))
        elif tok.endswith('.c/.h'):
            files += [tok[:-5] + '.c', tok[:-5] + '.h']
        else:
            files.append(tok)
    return files


def main():
    readme = sys.argv[1]
    fix = '--fix' in sys.argv[2:]
    src = os.path.dirname(os.path.abspath(readme))
    lines = open(readme, encoding='utf-8').read().split('\n')
    rows = []  # (line index, cells)
    in_table = False
    for i, line in enumerate(lines):
        if line.startswith("| file | owns | may call"):
            in_table = True
            continue
        if in_table and line.startswith('|---'):
            continue
        if in_table and line.startswith('| '):
            rows.append((i, [c.strip() for c in line.strip().strip('|').split(' | ')]))
        elif in_table:
            break
    owner = {}
    bad = []
    for i, cells in rows:
        for f in expand(cells[0], src):
            if not os.path.exists(os.path.join(src, f)):
                bad.append(f'{cells[0]}: no file src/{f}')
            if f in owner:
                bad.append(f'src/{f} in two rows')
            owner[f] = cells[0]
    every = sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, '*.[ch]')) +
                   glob.glob(os.path.join(src, 'layout', '*.[ch]')))
    for f in every:
        if f not in owner:
            bad.append(f'src/{f} is in no row')
    for i, cells in rows:
        own = set(expand(cells[0], src))
        headers = set()
        for f in own:
            path = os.path.join(src, f)
            if not os.path.exists(path):
                continue
            for h in re.findall(r'^#include "([^"]+)"', open(path, encoding='utf-8').read(), re.M):
                if h not in own:
                    headers.add(h)
        want = ', '.join(sorted(headers)) or '—'
        if cells[2] != want:
            if fix:
                cells[2] = want
                lines[i] = '| ' + ' | '.join(cells) + ' |'
            else:
                bad.append(f'{cells[0]}: may call "{cells[2]}", includes "{want}"')
    if fix:
        open(readme, 'w', encoding='utf-8').write('\n'.join(lines))
    for b in bad:
        print(b)
    return 1 if bad and not fix else 0


if __name__ == '__main__':
    sys.exit(main())
