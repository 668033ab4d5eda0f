// run.mjs: octavo's books in real reading systems (make check-readers).
//
//   node tests/readers/run.mjs BOOKDIR OUTDIR NAME...
//
// BOOKDIR holds NAME.epub and NAME.pdf for every NAME. For each book:
//   package     every manifest item is in the book, every spine itemref names
//               one, and Chromium's XML parser takes the container, the OPF
//               and every XML item of the manifest;
//   epubjs-0.3, epubjs-0.4, foliate
//               the reader opens the book in headless Chromium (Debian's
//               /usr/bin/chromium, --headless --no-sandbox --disable-gpu),
//               served by a server of our own on 127.0.0.1, shows every spine
//               item and pages through it to its end; a console error or
//               warning, a page error, a failed request (HTTP 4xx/5xx, or a
//               network failure other than an abort because the view moved
//               on), an XHTML parse error or a spine item that shows nothing
//               on any of its pages fails;
//   ace         Ace by DAISY: a critical or serious violation fails;
//   poppler, mupdf
//               pdftoppm and mutool draw render every page of the PDF:
//               anything they print on stderr, or a non-zero exit, fails.
// Screenshots (cover, contents, first body page, and the first page showing a
// table, a figure and a code block) go to OUTDIR/NAME-READER-WHAT.png; every
// message to OUTDIR/report.json. Prints one PASS/FAIL line per check and
// "N passed, N failed" last; exits 1 when anything failed.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULES = path.join(HERE, 'node_modules');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const [bookDir, outDir, ...names] = process.argv.slice(2);
if (!bookDir || !outDir || !names.length) {
  console.error('usage: node run.mjs BOOKDIR OUTDIR NAME...');
  process.exit(2);
}
const ONLY = (process.env.READERS_ONLY || '').split(',').filter(Boolean); // for debugging: e.g. foliate,ace
const want = check => !ONLY.length || ONLY.includes(check);
const READERS = ['epubjs-0.3', 'epubjs-0.4', 'foliate'];
const VIEW = { width: 600, height: 800 };
const KINDS = { table: 'table', figure: 'figure, img, svg', code: 'pre' };
const SHOTS = process.env.READERS_SHOTS !== '0';   // selftest.py needs none
const STEP_MS = 60000;      // one call into the page
const PAGES_MAX = 2000;     // pages in one spine item before we call it stuck
fs.mkdirSync(outDir, { recursive: true });
// Messages that say nothing about the book, each with its reason. Nothing else is ignored.
const IGNORE = [
  // Chromium on foliate-js's own page frame (paginator.js: sandbox="allow-same-origin
  // allow-scripts"), once per section of any book.
  /^console\.warn: An iframe which has both allow-scripts and allow-same-origin for its sandbox attribute can escape its sandboxing\./,
];

// --- the server: 127.0.0.1 only, a fixed set of roots -------------------------
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.map': 'application/json', '.json': 'application/json', '.css': 'text/css',
  '.xhtml': 'application/xhtml+xml', '.xml': 'application/xml', '.opf': 'application/oebps-package+xml',
  '.ncx': 'application/x-dtbncx+xml', '.smil': 'application/smil+xml', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
  '.ttf': 'font/ttf', '.otf': 'font/otf', '.woff': 'font/woff', '.woff2': 'font/woff2',
  '.epub': 'application/epub+zip', '.pdf': 'application/pdf', '.txt': 'text/plain',
};
const LIBS = ['epubjs', 'epubjs-0.4', 'foliate-js', 'construct-style-sheets-polyfill', 'jszip'];
const unpacked = path.join(outDir, 'unpacked');
function resolveUrl(pathname) {
  const parts = decodeURIComponent(pathname).split('/').filter(Boolean);
  if (parts.includes('..')) return null;
  if (parts[0] === 'harness') return path.join(HERE, 'harness', ...parts.slice(1));
  if (parts[0] === 'lib' && LIBS.includes(parts[1])) return path.join(MODULES, ...parts.slice(1));
  if (parts[0] === 'epub' && parts.length === 2) return path.join(bookDir, parts[1]);
  if (parts[0] === 'books') return path.join(unpacked, ...parts.slice(1));
  return null;
}
const server = http.createServer((req, res) => {
  const file = resolveUrl(new URL(req.url, 'http://127.0.0.1').pathname);
  let st = null;
  try { st = file && fs.statSync(file); } catch { st = null; }
  if (!st || !st.isFile()) { res.writeHead(404, { 'content-type': 'text/plain' }); res.end('not found\n'); return; }
  res.writeHead(200, { 'content-type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
    'content-length': st.size });
  if (req.method === 'HEAD') { res.end(); return; }
  fs.createReadStream(file).pipe(res);
});
await new Promise(ok => server.listen(0, '127.0.0.1', ok));
const ORIGIN = `http://127.0.0.1:${server.address().port}`;

// --- results --------------------------------------------------------------------
const results = [];   // { book, check, ok, messages[], info }
function record(book, check, messages, info = {}) {
  const uniq = [...new Set(messages)].filter(m => !IGNORE.some(re => re.test(m)));
  results.push({ book, check, ok: uniq.length === 0, messages: uniq, info });
  const extra = info.summary ? ` (${info.summary})` : '';
  if (!uniq.length) console.log(`PASS ${book} ${check}${extra}`);
  else {
    console.log(`FAIL ${book} ${check}${extra}`);
    for (const m of uniq.slice(0, 40)) console.log(`    ${m}`);
    if (uniq.length > 40) console.log(`    ... ${uniq.length - 40} more (see report.json)`);
  }
}
const within = (p, what, ms = STEP_MS) => Promise.race([p,
  new Promise((_, no) => setTimeout(() => no(new Error(`timed out after ${ms / 1000} s: ${what}`)), ms))]);
const short = u => u.startsWith(ORIGIN) ? u.slice(ORIGIN.length) : u.length > 120 ? u.slice(0, 117) + '...' : u;

// --- a page with every complaint collected --------------------------------------
async function newPage(browser, errors) {
  const page = await browser.newPage();
  await page.setViewport({ ...VIEW, deviceScaleFactor: 1 });
  page.on('console', m => {
    const t = m.type();
    if (t === 'error' || t === 'warn' || t === 'warning' || t === 'assert') {
      const loc = m.location() && m.location().url ? ` [${short(m.location().url)}]` : '';
      errors.push(`console.${t === 'warning' ? 'warn' : t}: ${m.text()}${loc}`);
    }
  });
  page.on('pageerror', e => errors.push(`page error: ${e && e.message || e}`));
  page.on('response', r => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.request().method()} ${short(r.url())}`);
  });
  page.on('requestfailed', r => {
    const why = r.failure() && r.failure().errorText || 'failed';
    if (why === 'net::ERR_ABORTED') return;   // the view moved on: not a failure
    errors.push(`request failed (${why}) ${r.request ? '' : ''}${short(r.url())}`);
  });
  return page;
}
const settle = page => page.evaluate(() => new Promise(ok =>
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(ok, 50)))));

async function runReader(browser, name, reader) {
  const errors = [];
  const shots = [];
  const page = await newPage(browser, errors);
  const shot = async what => {
    if (!SHOTS) return;
    const file = `${name}-${reader}-${what}.png`;
    await settle(page);
    await new Promise(ok => setTimeout(ok, 150));   // late fonts and images
    await page.screenshot({ path: path.join(outDir, file) });
    if (!shots.includes(file)) shots.push(file);
  };
  let sections = [], pagesTotal = 0, cover = null;
  try {
    const harness = reader === 'foliate' ? 'foliate.html' : `epubjs.html?lib=${reader === 'epubjs-0.3' ? 'epubjs' : 'epubjs-0.4'}`;
    await within(page.goto(`${ORIGIN}/harness/${harness}`, { waitUntil: 'load' }), 'harness load');
    await within(page.waitForFunction(() => window.R && window.probe, { timeout: STEP_MS }), 'harness ready');
    const url = reader === 'epubjs-0.3' ? `${ORIGIN}/books/${name}/` : `${ORIGIN}/epub/${name}.epub`;
    sections = await within(page.evaluate(u => R.open(u), url), 'open the book');
    if (!sections.length) errors.push('the reader found no spine items');
    const navIndex = sections.findIndex(s => (s.properties || []).includes('nav') || /(^|\/)nav\.xhtml$/.test(s.href || ''));
    // screenshots: the cover, the contents, the first page after the contents
    // that opens with a heading (a chapter), the page showing most of a table,
    // of a figure, of a code block, and the first page showing most of the three.
    const best = {};
    let bodyTaken = false, mixedBest = 0;
    for (let i = 0; i < sections.length; i++) {
      const label = `spine item ${i + 1} (${sections[i].href})`;
      let w = await within(page.evaluate(i => R.show(i), i), `show ${label}`);
      if (w.index !== undefined && w.index !== i) { errors.push(`${label}: the reader showed item ${w.index + 1} instead`); continue; }
      let pages = 0, shown = false;
      for (;;) {
        pages++;
        const p = await within(page.evaluate(k => R.probe(k), KINDS), `probe ${label}`);
        if (p.parsererror) errors.push(`${label}: XHTML parse error: ${p.parsererror}`);
        if (p.text || p.media) shown = true;
        if (pages === 1 && i === 0) { cover = p.mediaRect; await shot('cover'); }
        if (pages === 1 && i === navIndex) await shot('contents');
        if (pages === 1 && i > navIndex && !bodyTaken && p.heading && p.text) { bodyTaken = true; await shot('body'); }
        if (i > 0) {
          for (const [k, a] of Object.entries(p.kinds)) if (a > (best[k] || 0) * 1.05) { best[k] = a; await shot(k); }
          const n = Object.keys(p.kinds).length;
          if (n > 1 && n > mixedBest) { mixedBest = n; await shot('mixed'); }
        }
        if (w.page !== undefined && w.total !== undefined && w.page >= w.total) break;
        if (pages >= PAGES_MAX) { errors.push(`${label}: still paging after ${PAGES_MAX} pages`); break; }
        const before = w;
        w = await within(page.evaluate(() => R.next()), `next page in ${label}`);
        if (w.index !== i) break;                         // moved on to the next item: this one ended
        if (w.page === before.page) { errors.push(`${label}: next page stays on page ${w.page} of ${w.total}`); break; }
      }
      pagesTotal += pages;
      if (!shown) errors.push(`${label}: shows nothing on any of its ${pages} page(s)`);
    }
  } catch (e) {
    errors.push(`harness: ${e && e.message || e}`);
  }
  await page.close().catch(() => {});
  const coverSize = cover ? `; cover image ${cover.width}x${cover.height} at ${cover.x},${cover.y} in ${VIEW.width}x${VIEW.height}` : '';
  return { errors, info: { summary: `${sections.length} spine items, ${pagesTotal} pages${coverSize}`, sections: sections.length,
    pages: pagesTotal, cover, screenshots: shots } };
}

async function runXML(browser, name) {
  const errors = [];
  const page = await newPage(browser, errors);
  let n = 0;
  try {
    await within(page.goto(`${ORIGIN}/harness/xml.html`, { waitUntil: 'load' }), 'xml harness');
    const r = await within(page.evaluate(b => checkXML(b), `${ORIGIN}/books/${name}/`), 'XML parse');
    errors.push(...r.errors.map(e => /: HTTP \d|spine itemref/.test(e) ? e : `XML parse error: ${e}`));
    n = r.checked.length;
  } catch (e) { errors.push(`harness: ${e && e.message || e}`); }
  await page.close().catch(() => {});
  return { errors, info: { summary: `${n} files` } };
}

// --- Ace by DAISY: its own puppeteer, pointed at Debian's chromium ------------
function run(cmd, args, env = {}) {
  return new Promise(ok => {
    const p = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', d => { out += d; });
    p.stderr.on('data', d => { err += d; });
    p.on('close', code => ok({ code, out, err }));
    p.on('error', e => ok({ code: -1, out, err: String(e) }));
  });
}
async function runAce(name) {
  const dir = path.join(outDir, 'ace', name);
  fs.rmSync(dir, { recursive: true, force: true });
  const r = await run(process.execPath, [path.join(MODULES, '@daisy', 'ace-cli', 'bin', 'ace.js'), '-f', '-s',
    '-o', dir, path.join(bookDir, `${name}.epub`)], { PUPPETEER_EXECUTABLE_PATH: CHROMIUM,
    PUPPETEER_SKIP_DOWNLOAD: '1', PUPPETEER_DISABLE_HEADLESS_WARNING: '1' });
  const errors = [];
  let report;
  try { report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')); } catch {
    errors.push(`Ace wrote no report (exit ${r.code}): ${(r.err || r.out).trim().split('\n').slice(-5).join(' | ')}`);
    return { errors, info: {} };
  }
  const counts = {};
  for (const a of report.assertions || []) {
    for (const x of a.assertions || []) {
      const t = x['earl:test'] || {};
      const impact = t['earl:impact'] || 'unknown';
      counts[impact] = (counts[impact] || 0) + 1;
      const where = (a['earl:testSubject'] || {}).url || '';
      const what = `${impact}: ${t['dct:title']} in ${where}: ${(t['dct:description'] || '').trim()}`;
      if (impact === 'critical' || impact === 'serious') errors.push(what);
    }
  }
  const summary = Object.keys(counts).length ? Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ') : 'no violation';
  return { errors, info: { summary, counts } };
}

// --- the PDF: poppler and mupdf render every page ---------------------------------
async function runPdf(name, tool) {
  const pdf = path.join(bookDir, `${name}.pdf`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `readers-${tool}-`));
  const r = tool === 'poppler'
    ? await run('pdftoppm', ['-r', '36', '-png', pdf, path.join(tmp, 'p')])
    : await run('mutool', ['draw', '-q', '-r', '36', '-o', path.join(tmp, 'p%d.png'), pdf]);
  const pngs = fs.readdirSync(tmp).filter(f => f.endsWith('.png')).length;
  fs.rmSync(tmp, { recursive: true, force: true });
  const errors = [];
  if (r.code !== 0) errors.push(`${tool} exit ${r.code}`);
  for (let l of (r.err + (tool === 'mupdf' ? r.out : '')).split('\n')) {
    l = l.trim();
    // Debian's mupdf-tools is built without lcms2: it says so on every run, for
    // any file (even one it cannot open), before it reads the PDF.
    if (!l || tool === 'mupdf' && l === 'warning: ICC support is not available') continue;
    errors.push(l);
  }
  if (!pngs) errors.push(`${tool} rendered no page`);
  return { errors, info: { summary: `${pngs} pages` } };
}

// --- main ------------------------------------------------------------------------
const t0 = Date.now();
for (const name of names) {
  const epub = path.join(bookDir, `${name}.epub`);
  if (!fs.existsSync(epub)) { record(name, 'build', [`no ${epub}`]); continue; }
  fs.rmSync(path.join(unpacked, name), { recursive: true, force: true });
  fs.mkdirSync(path.join(unpacked, name), { recursive: true });
  execFileSync('unzip', ['-q', '-o', epub, '-d', path.join(unpacked, name)]);
}
const needBrowser = ['package', ...READERS].some(want);
const browser = needBrowser && await puppeteer.launch({
  executablePath: CHROMIUM, headless: false,   // the flag itself is in args, as the issue names it
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--mute-audio',
    '--no-first-run', '--no-default-browser-check', '--disable-dev-shm-usage'],
  protocolTimeout: 180000,
});
try {
  for (const name of needBrowser ? names : []) {
    if (!fs.existsSync(path.join(bookDir, `${name}.epub`))) continue;
    if (want('package')) { const r = await runXML(browser, name); record(name, 'package', r.errors, r.info); }
    for (const reader of READERS) {
      if (!want(reader)) continue;
      const t = Date.now();
      const r = await runReader(browser, name, reader);
      r.info.summary += `; ${((Date.now() - t) / 1000).toFixed(1)} s`;
      record(name, reader, r.errors, r.info);
    }
  }
} finally {
  if (browser) await browser.close().catch(() => {});
  server.close();
}
for (const name of names) {
  if (want('ace') && fs.existsSync(path.join(bookDir, `${name}.epub`))) {
    const r = await runAce(name); record(name, 'ace', r.errors, r.info);
  }
  for (const tool of ['poppler', 'mupdf']) {
    if (!want(tool)) continue;
    if (!fs.existsSync(path.join(bookDir, `${name}.pdf`))) { record(name, tool, [`no ${name}.pdf`]); continue; }
    const r = await runPdf(name, tool); record(name, tool, r.errors, r.info);
  }
}
const failed = results.filter(r => !r.ok).length;
fs.writeFileSync(path.join(outDir, 'report.json'), JSON.stringify({ seconds: Math.round((Date.now() - t0) / 1000),
  chromium: CHROMIUM, results }, null, 2) + '\n');
console.log(`readers: ${Math.round((Date.now() - t0) / 1000)} s; screenshots and report.json in ${outDir}`);
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
