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

// settle(docs, where, ms): what where() says once the reader has laid the
// shown documents out with their web fonts. A reader lays a section out
// again when its fonts arrive (epub.js 0.3 and foliate-js on fonts.ready):
// epub.js 0.3 counted 2 pages of a fpb-howto chapter before its Noto fonts
// had loaded and 1 after, so the next page that its first count promised
// never came. Waits for each document's fonts, then until where() stays the
// same over two frames; { where, settled: false } if that took over ms.
window.settle = async function (docs, where, ms) {
  const t0 = performance.now();
  const late = () => new Promise(ok => setTimeout(ok, Math.max(0, ms - (performance.now() - t0))));
  for (const d of docs) if (d && d.fonts) await Promise.race([d.fonts.ready, late()]);
  const frames = () => new Promise(ok => requestAnimationFrame(() => requestAnimationFrame(ok)));
  let last = JSON.stringify(where());
  for (;;) {
    await frames();
    const now = JSON.stringify(where());
    if (now === last) return { where: JSON.parse(now), settled: true };
    if (performance.now() - t0 > ms) return { where: JSON.parse(now), settled: false };
    last = now;
  }
};
