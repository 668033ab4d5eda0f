// probe.js: what the reader shows right now, measured in the top page's
// viewport (the reader's frame may be wider than the view, its columns
// scrolled past). Shared by every reader's harness page.
'use strict';
window.probe = function (doc, kinds) {
  // text, media: runs of text and images on screen (counted up to 3 and 1);
  // kinds: { kind: on-screen area in px } for each selector of kinds;
  // mediaRect: the largest image on screen, in the top page's pixels;
  // heading: a heading h1..h3 on screen.
  const out = { text: 0, media: 0, parsererror: null, kinds: {}, mediaRect: null, heading: false };
  if (!doc || !doc.body && !doc.documentElement) return out;
  const frame = doc.defaultView && doc.defaultView.frameElement;
  const off = frame ? frame.getBoundingClientRect() : { left: 0, top: 0 };
  const vw = window.innerWidth, vh = window.innerHeight;
  const onScreen = r => r.width > 0 && r.height > 0 &&
    r.left + off.left < vw && r.right + off.left > 0 &&
    r.top + off.top < vh && r.bottom + off.top > 0;
  const area = r => !onScreen(r) ? 0 :
    (Math.min(vw, r.right + off.left) - Math.max(0, r.left + off.left)) *
    (Math.min(vh, r.bottom + off.top) - Math.max(0, r.top + off.top));
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
  let best = 0;
  for (const el of root.querySelectorAll('img, svg, image, video, canvas, object')) {
    const r = el.getBoundingClientRect(), a = area(r);
    if (!a) continue;
    out.media = 1;
    if (a > best) {
      best = a;
      out.mediaRect = { x: Math.round(r.left + off.left), y: Math.round(r.top + off.top),
        width: Math.round(r.width), height: Math.round(r.height) };
    }
  }
  for (const [kind, sel] of Object.entries(kinds || {})) {
    let a = 0;
    for (const el of root.querySelectorAll(sel)) a += area(el.getBoundingClientRect());
    if (a) out.kinds[kind] = Math.round(a);
  }
  for (const el of root.querySelectorAll('h1, h2, h3'))
    if (onScreen(el.getBoundingClientRect())) { out.heading = true; break; }
  return out;
};
