#!/usr/bin/env python3
"""gen.py DIR [SCALE]: writes the large hostile inputs into DIR.
SCALE (default 1.0) multiplies every size, so that a test can build n and 10n
and compare the costs as a ratio."""
import os, sys

out = sys.argv[1]
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
os.makedirs(out, exist_ok=True)
def n(x): return max(1, int(x * scale))
def w(name, text):
    with open(os.path.join(out, name), 'w', encoding='utf-8') as f:
        f.write(text)

w('deep-quotes.md', '# Deep quotes\n\n' + '> ' * n(10000) + 'bottom of the quotes\n')
w('deep-lists.md', '# Deep lists\n\n' + '- ' * n(10000) + 'x\n')
w('big-paragraph.md', '# Big paragraph\n\n' + ' '.join('word%d' % (i % 1000) for i in range(n(150000))) + '\n')
w('big-word.md', '# Big word\n\n' + 'a' * n(1000000) + '\n')
w('many-rows.md', '# Many rows\n\n| a | b |\n|---|---|\n' + ''.join('| %d | row |\n' % i for i in range(n(100000))))
cols = n(1000)
w('many-cols.md', '# Many columns\n\n|' + '|'.join('c%d' % i for i in range(cols)) + '|\n|' + '---|' * cols + '\n|'
  + '|'.join(str(i) for i in range(cols)) + '|\n')
w('long-code.md', '# Long code\n\n```\n' + ''.join('line %d\n' % i for i in range(n(100000))) + '```\n')
notes = n(100000)
w('many-footnotes.md', '# Footnotes\n\n' + ' '.join('x[^%d]' % i for i in range(notes)) + '\n\n'
  + ''.join('[^%d]: note %d\n' % (i, i) for i in range(notes)))
w('same-headings.md', '# Same headings\n\n' + ''.join('### Same\n\ntext\n\n' for _ in range(n(10000))))
w('long-heading.md', '# ' + 'long ' * n(2000) + '\n\nbody\n')
w('many-links.md', '# Links\n\n' + ' '.join('[l%d](https://example.com/%d)' % (i, i) for i in range(n(100000))) + '\n')
