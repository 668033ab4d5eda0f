// probe.js: what the reader shows right now, measured in the top page's
// viewport (the reader's frame may be wider than the view, its columns
// scrolled past). Shared by every reader's harness page.
'use strict';
window.probe = function (doc, kinds) {
  const out = { text: 0, media: 0, parsererror: null, kinds: [] };
  if (!doc || !doc.body && !doc.documentElement) return out;
  const frame = doc.defaultView && doc.defaultView.frameElement;
  const off = frame ? frame.getBoundingClientRect() : { left: 0, top: 0 };
  const vw = window.innerWidth, vh = window.innerHeight;
  const onScreen = r => r.width > 0 && r.height > 0 &&
    r.left + off.left < vw && r.right + off.left > 0 &&
    r.top + off.top < vh && r.bottom + off.top > 0;
  const pe = doc.getElementsByTagNameNS('*', 'parsererror')[0];
  if (pe) out.parsererror = (pe.textContent || 'parsererror').replace(/\s+/g, ' ').trim();
  const root = doc.body || doc.documentElement;
  // Text on screen: stop counting past a few runs, enough to say "not blank".
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const range = doc.createRange();
  for (let n = walker.nextNode(); n && out.text < 3; n = walker.nextNode()) {
    if (!n.data.trim()) continue;
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) if (onScreen(r)) { out.text++; break; }
  }
  for (const el of root.querySelectorAll('img, svg, image, video, canvas, object')) {
    if (onScreen(el.getBoundingClientRect())) { out.media++; break; }
  }
  for (const [kind, sel] of Object.entries(kinds || {})) {
    for (const el of root.querySelectorAll(sel)) {
      if (onScreen(el.getBoundingClientRect())) { out.kinds.push(kind); break; }
    }
  }
  return out;
};
