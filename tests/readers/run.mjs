// run.mjs: octavo's books in real reading systems (make check-readers).
//
//   node run.mjs [--jobs N] [--selftest DIR] BOOKDIR OUTDIR NAME[:CHECK,...]...
//
// BOOKDIR holds NAME.epub and NAME.pdf for every NAME; a NAME:CHECK,...
// runs only those checks. For each book:
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
//               on), an XHTML parse error, a spine item that shows nothing
//               on any of its pages, or a step over its time budget fails;
//   ace         Ace by DAISY (ace-core, its axe checks run in our Chromium):
//               a critical or serious violation fails;
//   poppler, mupdf
//               pdftoppm and mutool draw render every page of the PDF:
//               anything they print on stderr, or a non-zero exit, fails.
// One Chromium serves every check; --jobs checks (default: one more than the
// CPUs) run at once, the longest first. Screenshots (cover, contents, first
// body page, and the pages showing most of a table, a figure and a code
// block) go to OUTDIR/NAME-READER-WHAT.png; every message and each check's
// time to OUTDIR/report.json. Prints one PASS/FAIL line per check, a table of
// times and "N passed, N failed" last; exits 1 when anything failed.
//
// --selftest DIR: DIR/plan.json ({ "NAME": ["check", ...] }) names broken
// books in DIR, run in the same Chromium and pool; their verdicts go to
// report.json's "selftest" (selftest.py judges them), not to the exit status.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULES = path.join(HERE, 'node_modules');
const require = createRequire(import.meta.url);
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const argv = process.argv.slice(2);
// Checks at once: one more than the CPUs, as a reader's check spends most of
// its time waiting on animation frames (a third of a core on the corpus).
let JOBS = Number(process.env.READERS_JOBS) || os.availableParallelism() + 1;
let selftestDir = null;
while (argv[0] && argv[0].startsWith('--')) {
  const flag = argv.shift();
  if (flag === '--jobs') JOBS = Number(argv.shift());
  else if (flag === '--selftest') selftestDir = argv.shift();
  else { console.error(`run.mjs: unknown option ${flag}`); process.exit(2); }
}
const [bookDir, outDir, ...specs] = argv;
if (!bookDir || !outDir || !(JOBS >= 1)) {
  console.error('usage: node run.mjs [--jobs N] [--selftest DIR] BOOKDIR OUTDIR NAME[:CHECK,...]...');
  process.exit(2);
}
const READERS = ['epubjs-0.3', 'epubjs-0.4', 'foliate'];
const CHECKS = ['package', ...READERS, 'ace', 'poppler', 'mupdf'];
const VIEW = { width: 600, height: 800 };
const KINDS = { table: 'table', figure: 'figure, img, svg', code: 'pre' };
// Time budgets. A step is one call into the reader's page (open the book;
// show an item or turn a page, then probe what it shows); a reader's whole
// run of one book has its own budget. Going over either is a failure that
// names where it stopped, never a silent skip.
const STEP_MS = 30000;
const READER_MS = 300000;
const PAGES_MAX = 2000;     // pages in one spine item before we call it stuck
fs.mkdirSync(outDir, { recursive: true });

// Messages that say nothing about the book, each with its reason. Nothing else is ignored.
const IGNORE = [
  // Chromium on foliate-js's own page frame (paginator.js: sandbox="allow-same-origin
  // allow-scripts"), once per section of any book.
  /^console\.warn: An iframe which has both allow-scripts and allow-same-origin for its sandbox attribute can escape its sandboxing\./,
];
// mupdf's notice that it was built without lcms2 (Debian's mupdf-tools 1.21
// has FZ_ENABLE_ICC off): mutool draw prints it when it sets up its context,
// before it opens a file. Ignored, as that one exact line, only when
// mutool draw prints it for a file that does not exist, too.
const MUPDF_NOTICE = 'warning: ICC support is not available';
const mupdfNotice = (() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readers-mupdf-'));
  const r = spawnSync('mutool', ['draw', '-q', '-o', path.join(dir, 'p.png'), path.join(dir, 'absent.pdf')], { encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  return `${r.stdout || ''}${r.stderr || ''}`.split('\n').map(l => l.trim()).includes(MUPDF_NOTICE);
})();

// --- the books: NAME[:checks] from the command line, the selftest's plan ----------
const books = [];   // { name, dir, checks: Set, selftest: bool }
for (const spec of specs) {
  const [name, only] = spec.split(':');
  books.push({ name, dir: bookDir, checks: new Set(only ? only.split(',') : CHECKS), selftest: false });
}
if (selftestDir) {
  const plan = JSON.parse(fs.readFileSync(path.join(selftestDir, 'plan.json'), 'utf8'));
  for (const [name, checks] of Object.entries(plan))
    books.push({ name, dir: selftestDir, checks: new Set(checks), selftest: true });
}
for (const b of books) {
  for (const c of b.checks) if (!CHECKS.includes(c)) { console.error(`run.mjs: unknown check ${c}`); process.exit(2); }
  if (books.filter(x => x.name === b.name).length > 1) { console.error(`run.mjs: two books named ${b.name}`); process.exit(2); }
  b.epub = path.join(b.dir, `${b.name}.epub`);
  b.pdf = path.join(b.dir, `${b.name}.pdf`);
}
const byName = new Map(books.map(b => [b.name, b]));

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
// epub.js 0.4.2 with upstream's fix of replaceLinks (futurepress/epub.js#879,
// merged in 2018 and in 0.3.93, never released in the 0.4 line): 0.4.2 builds a
// Url of every link, and an absolute link whose path holds "://" (a Wayback
// Machine address, https://web.archive.org/web/2014.../https://...) throws
// "Failed to construct 'URL': Invalid URL" inside its onLoad, so the chapter is
// never shown and rendition.display() never settles. As in 0.3.93, a Url is
// made of relative links only, and a failure leaves it undefined. The served
// file is the installed one with exactly this change (checked below).
const PATCHES = {
  'epubjs-0.4/dist/epub.js': [[
    '\t\t\tvar linkUrl = new Url(href, location);\n',
    '\t\t\tvar linkUrl; // octavo: as upstream #879 (0.3.93): relative links only, a failure leaves it undefined\n' +
    '\t\t\tif (!absolute) try { linkUrl = new Url(href, location); } catch (error) { linkUrl = undefined; }\n',
  ]],
};
const patched = new Map();
for (const [rel, edits] of Object.entries(PATCHES)) {
  let text = fs.readFileSync(path.join(MODULES, rel), 'utf8');
  for (const [from, to] of edits) {
    const n = text.split(from).length - 1;
    if (n !== 1) { console.error(`run.mjs: ${rel}: the patched text occurs ${n} times, not once (another version?)`); process.exit(2); }
    text = text.replace(from, to);
  }
  patched.set(path.join(MODULES, rel), Buffer.from(text));
}
const unpacked = path.join(outDir, 'unpacked');
function resolveUrl(pathname) {
  const parts = decodeURIComponent(pathname).split('/').filter(Boolean);
  if (parts.includes('..')) return null;
  if (parts[0] === 'harness') return path.join(HERE, 'harness', ...parts.slice(1));
  if (parts[0] === 'lib' && LIBS.includes(parts[1])) return path.join(MODULES, ...parts.slice(1));
  if (parts[0] === 'epub' && parts.length === 2 && byName.has(parts[1].replace(/\.epub$/, '')))
    return byName.get(parts[1].replace(/\.epub$/, '')).epub;
  if (parts[0] === 'books') return path.join(unpacked, ...parts.slice(1));
  return null;
}
const server = http.createServer((req, res) => {
  const file = resolveUrl(new URL(req.url, 'http://127.0.0.1').pathname);
  let st = null;
  try { st = file && fs.statSync(file); } catch { st = null; }
  if (!st || !st.isFile()) { res.writeHead(404, { 'content-type': 'text/plain' }); res.end('not found\n'); return; }
  const body = patched.get(file);
  res.writeHead(200, { 'content-type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
    'content-length': body ? body.length : st.size });
  if (req.method === 'HEAD') { res.end(); return; }
  if (body) res.end(body);
  else fs.createReadStream(file).pipe(res);
});
await new Promise(ok => server.listen(0, '127.0.0.1', ok));
const ORIGIN = `http://127.0.0.1:${server.address().port}`;

// --- results --------------------------------------------------------------------
const results = [];   // { book, check, ok, messages[], info, seconds, selftest }
function record(b, check, messages, info, seconds) {
  const ignore = m => IGNORE.some(re => re.test(m));
  const uniq = [...new Set(messages)].filter(m => !ignore(m));
  const r = { book: b.name, check, ok: uniq.length === 0, messages: uniq, info, seconds, selftest: b.selftest };
  results.push(r);
  if (b.selftest) return;
  const extra = ` (${info.summary ? info.summary + '; ' : ''}${seconds.toFixed(1)} s)`;
  console.log(`${r.ok ? 'PASS' : 'FAIL'} ${b.name} ${check}${extra}`);
  for (const m of uniq.slice(0, 40)) console.log(`    ${m}`);
  if (uniq.length > 40) console.log(`    ... ${uniq.length - 40} more (see report.json)`);
}
const within = (p, what, ms = STEP_MS) => {
  let timer;
  return Promise.race([p, new Promise((_, no) => {
    timer = setTimeout(() => no(new Error(`timed out after ${ms / 1000} s: ${what}`)), ms);
  })]).finally(() => clearTimeout(timer));
};
const short = u => u.startsWith(ORIGIN) ? u.slice(ORIGIN.length) : u.length > 120 ? u.slice(0, 117) + '...' : u;

// --- a page with every complaint collected --------------------------------------
// Each check's page is alone in a browser context of its own, so in a window
// of its own: a second tab in a window is hidden, and a hidden page gets no
// animation frames (the readers lay out and turn pages on them), so checks
// that run side by side would stall each other. closePage() closes both.
async function ownPage(browser) {
  const context = await browser.createBrowserContext();
  return context.newPage();
}
async function closePage(page) {
  if (page) await page.browserContext().close().catch(() => {});
}
async function newPage(browser, errors) {
  const page = await ownPage(browser);
  await page.setViewport({ ...VIEW, deviceScaleFactor: 1 });
  page.on('console', m => {
    const t = m.type();
    if (t === 'error' || t === 'warn' || t === 'warning' || t === 'assert') {
      const loc = m.location() && m.location().url ? ` [${short(m.location().url)}]` : '';
      errors.push(`console.${t === 'warning' ? 'warn' : t}: ${m.text()}${loc}`);
    }
  });
  page.on('pageerror', e => {
    const at = (String(e && e.stack || '').split('\n').find(l => /^\s+at /.test(l)) || '').trim();
    errors.push(`page error: ${e && e.message || e}${at ? ` (${short(at.replace(/^at /, ''))})` : ''}`);
  });
  page.on('response', r => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.request().method()} ${short(r.url())}`);
  });
  page.on('requestfailed', r => {
    const why = r.failure() && r.failure().errorText || 'failed';
    if (why === 'net::ERR_ABORTED') return;   // the view moved on: not a failure
    errors.push(`request failed (${why}) ${short(r.url())}`);
  });
  return page;
}

async function runReader(browser, b, reader) {
  const errors = [];
  const shots = [];
  const shotsWanted = !b.selftest && process.env.READERS_SHOTS !== '0';
  const page = await newPage(browser, errors);
  const shot = async what => {
    if (!shotsWanted) return;
    const file = `${b.name}-${reader}-${what}.png`;
    await page.screenshot({ path: path.join(outDir, file) });
    if (!shots.includes(file)) shots.push(file);
  };
  const t0 = Date.now();
  const budget = what => {
    if (Date.now() - t0 > READER_MS) throw new Error(`over the budget of ${READER_MS / 1000} s for the whole book, at ${what}`);
  };
  let sections = [], pagesTotal = 0, cover = null;
  try {
    const harness = reader === 'foliate' ? 'foliate.html' : `epubjs.html?lib=${reader === 'epubjs-0.3' ? 'epubjs' : 'epubjs-0.4'}`;
    await within(page.goto(`${ORIGIN}/harness/${harness}`, { waitUntil: 'load' }), 'harness load');
    await within(page.waitForFunction(() => window.R && window.probe && window.settle, { timeout: STEP_MS }), 'harness ready');
    const url = reader === 'epubjs-0.3' ? `${ORIGIN}/books/${b.name}/` : `${ORIGIN}/epub/${b.name}.epub`;
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
      budget(label);
      // each step shows or turns, waits for the layout to settle and probes the page, in one call
      let s = await within(page.evaluate((i, k) => R.show(i).then(s => ({ ...s, probe: R.probe(k) })), i, KINDS),
        `show ${label}`);
      if (!s.settled) errors.push(`${label}: still laid out again ${5} s after it was shown`);
      let w = s.where;
      if (w.index !== undefined && w.index !== i) { errors.push(`${label}: the reader showed item ${w.index + 1} instead`); continue; }
      let pages = 0, shown = false;
      for (;;) {
        pages++;
        const p = s.probe;
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
        budget(`${label} page ${pages}`);
        const before = w;
        s = await within(page.evaluate(k => R.next().then(s => ({ ...s, probe: R.probe(k) })), KINDS),
          `next page after page ${pages} of ${label}`);
        if (!s.settled) errors.push(`${label}: page ${pages + 1} still laid out again 5 s after the turn`);
        w = s.where;
        if (w.index !== i) break;                         // moved on to the next item: this one ended
        if (w.page === before.page) { errors.push(`${label}: next page stays on page ${w.page} of ${w.total}`); break; }
      }
      pagesTotal += pages;
      if (!shown) errors.push(`${label}: shows nothing on any of its ${pages} page(s)`);
    }
  } catch (e) {
    errors.push(`harness: ${e && e.message || e}`);
  }
  await closePage(page);
  const coverSize = cover ? `; cover image ${cover.width}x${cover.height} at ${cover.x},${cover.y} in ${VIEW.width}x${VIEW.height}` : '';
  return { errors, info: { summary: `${sections.length} spine items, ${pagesTotal} pages${coverSize}`, sections: sections.length,
    pages: pagesTotal, cover, screenshots: shots } };
}

async function runPackage(browser, b) {
  const errors = [];
  const page = await newPage(browser, errors);
  let n = 0;
  try {
    await within(page.goto(`${ORIGIN}/harness/xml.html`, { waitUntil: 'load' }), 'xml harness');
    const r = await within(page.evaluate(u => checkXML(u), `${ORIGIN}/books/${b.name}/`), 'XML parse');
    errors.push(...r.errors.map(e => /: HTTP \d|spine itemref/.test(e) ? e : `XML parse error: ${e}`));
    n = r.checked.length;
  } catch (e) { errors.push(`harness: ${e && e.message || e}`); }
  await closePage(page);
  return { errors, info: { summary: `${n} files` } };
}

// --- Ace by DAISY: ace-core in this process, its axe runs in our Chromium ---------
// The axe runner below does what @daisy/ace-axe-runner-puppeteer 1.4.6's run()
// does for each content document (nothing fetched from the network, an .html
// document served as XHTML, Ace's scripts added after the load, daisy.ace.run
// awaited), on the browser every other check uses instead of a Chromium of
// its own, and in ACE_PAGES pages per book that each load document after
// document (Ace opens a page, so a renderer process, per document), with its
// scripts added by file: URL rather than inlined (the same code, which
// Chromium then compiles once per page, not once per document: axe.js is
// 1.3 MB; 0.3 to 0.5 s a document instead of 0.8 to 1.1 s under load). A
// document's check mostly waits on round trips to the page, so two pages
// overlap them.
const ACE_PAGES = 2;
let aceCore, aceUtils;
async function acePage(browser) {
  const page = await ownPage(browser);
  await page.setRequestInterception(true);
  page.on('request', request => {
    const u = request.url();
    if (/^https?:\/\//.test(u)) { request.abort(); return; }
    if (request.resourceType() === 'document' && /^file:\//.test(u) && /\.html?$/.test(u)) {
      fs.readFile(new URL(u), 'utf8', (err, body) => {
        if (err) request.continue();
        else request.respond({ status: 200, contentType: 'application/xhtml+xml', body });
      });
      return;
    }
    request.continue();
  });
  return page;
}
function aceRunner(browser) {
  const all = [], free = [];
  return {
    concurrency: ACE_PAGES,   // ace-core never runs more documents at once than this
    setTimeout() {},
    async launch() {},
    async close() { await Promise.all(all.splice(0).map(closePage)); free.length = 0; },
    async run(url, scripts, scriptContents) {
      let page = free.pop();
      if (!page) { page = await acePage(browser); all.push(page); }
      try {
        await within(page.goto(url), `Ace: load ${url}`);
        await aceUtils.addScriptContents(scriptContents, page);
        for (const file of scripts) {   // as aceUtils.addScripts, but by URL (see above)
          const el = await page.addScriptTag({ url: pathToFileURL(file).href });
          await page.evaluate(e => e.setAttribute('data-ace', ''), el);
        }
        return await within(page.evaluate(() => new Promise((resolve, reject) => {
          let tries = 0;
          const attempt = () => {
            const d = window.daisy && window.daisy.ace;
            if (!d || !d.run || !d.createReport || !window.axe) {
              if (++tries < 15) { setTimeout(attempt, 400); return; }
              reject(new Error('Ace scripts not ready'));
              return;
            }
            d.run((err, res) => err ? reject(err) : resolve(res));
          };
          attempt();
        })), `Ace: axe on ${url}`, 120000);
      } finally {
        free.push(page);
      }
    },
  };
}
async function runAce(browser, b) {
  if (!aceCore) {
    aceCore = require('@daisy/ace-core');
    aceUtils = require('@daisy/puppeteer-utils');
    require('@daisy/ace-logger').initLogger({ verbose: false, silent: true });
  }
  const dir = path.join(outDir, 'ace', b.name);
  fs.rmSync(dir, { recursive: true, force: true });
  const errors = [];
  let report;
  const runner = aceRunner(browser);
  try {
    const [, json] = await aceCore(path.resolve(b.epub), { cwd: process.cwd(), outdir: dir, silent: true, jobId: '' },
      runner);
    report = json;
  } catch (e) {
    errors.push(`Ace could not check the book: ${e && e.message || e}`);
    return { errors, info: {} };
  } finally {
    await runner.close();
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
function run(cmd, args) {
  return new Promise(ok => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', d => { out += d; });
    p.stderr.on('data', d => { err += d; });
    p.on('close', code => ok({ code, out, err }));
    p.on('error', e => ok({ code: -1, out, err: String(e) }));
  });
}
async function runPdf(b, tool) {
  if (!fs.existsSync(b.pdf)) return { errors: [`no ${b.pdf}`], info: {} };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `readers-${tool}-`));
  const r = tool === 'poppler'
    ? await run('pdftoppm', ['-r', '36', '-png', b.pdf, path.join(tmp, 'p')])
    : await run('mutool', ['draw', '-q', '-r', '36', '-o', path.join(tmp, 'p%d.png'), b.pdf]);
  const pngs = fs.readdirSync(tmp).filter(f => f.endsWith('.png')).length;
  fs.rmSync(tmp, { recursive: true, force: true });
  const errors = [];
  if (r.code !== 0) errors.push(`${tool} exit ${r.code}`);
  for (let l of (r.err + (tool === 'mupdf' ? r.out : '')).split('\n')) {
    l = l.trim();
    if (!l || tool === 'mupdf' && mupdfNotice && l === MUPDF_NOTICE) continue;
    errors.push(l);
  }
  if (!pngs) errors.push(`${tool} rendered no page`);
  return { errors, info: { summary: `${pngs} pages` } };
}

// --- the jobs: one per book and check, the longest first, --jobs at once ----------
function epubCost(b) {
  // seconds, roughly, measured on the corpus: per content document and per KB of XHTML
  let docs = 0, kb = 0;
  try {
    for (const line of execFileSync('unzip', ['-l', b.epub], { encoding: 'utf8' }).split('\n')) {
      const m = line.match(/^\s*(\d+)\s+\S+\s+\S+\s+(.+\.xhtml)$/);
      if (m) { docs++; kb += Number(m[1]) / 1024; }
    }
  } catch { /* no EPUB: the check fails at once */ }
  return { docs, kb };
}
function pdfPages(b) {
  try { return Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [b.pdf], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))[1]); } catch { return 1; }
}
const jobs = [];
for (const b of books) {
  const e = epubCost(b), pages = b.checks.has('poppler') || b.checks.has('mupdf') ? pdfPages(b) : 0;
  const cost = { package: 0.2 + 0.01 * e.docs, 'epubjs-0.3': 1 + 0.1 * e.docs + 0.05 * e.kb, 'epubjs-0.4': 1 + 0.1 * e.docs + 0.05 * e.kb,
    foliate: 1 + 0.15 * e.docs + 0.06 * e.kb, ace: 2 + 0.25 * e.docs, poppler: 0.05 * pages, mupdf: 0.015 * pages };
  for (const check of CHECKS) if (b.checks.has(check)) jobs.push({ b, check, cost: cost[check] });
}
jobs.sort((x, y) => y.cost - x.cost);

const t0 = Date.now();
for (const b of books) {
  if (!fs.existsSync(b.epub)) continue;
  fs.rmSync(path.join(unpacked, b.name), { recursive: true, force: true });
  fs.mkdirSync(path.join(unpacked, b.name), { recursive: true });
  execFileSync('unzip', ['-q', '-o', b.epub, '-d', path.join(unpacked, b.name)]);
}
const needBrowser = jobs.some(j => !['poppler', 'mupdf'].includes(j.check));
const browser = needBrowser && await puppeteer.launch({
  executablePath: CHROMIUM, headless: false,   // the flag itself is in args, as the issue names it
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--mute-audio',
    '--no-first-run', '--no-default-browser-check', '--disable-dev-shm-usage'],
  protocolTimeout: 180000,
});
async function runJob(j) {
  const { b, check } = j;
  const t = Date.now();
  let r;
  try {
    if (check !== 'poppler' && check !== 'mupdf' && !fs.existsSync(b.epub)) r = { errors: [`no ${b.epub}`], info: {} };
    else if (check === 'package') r = await runPackage(browser, b);
    else if (READERS.includes(check)) r = await runReader(browser, b, check);
    else if (check === 'ace') r = await runAce(browser, b);
    else r = await runPdf(b, check);
  } catch (e) {
    r = { errors: [`harness: ${e && e.message || e}`], info: {} };
  }
  record(b, check, r.errors, r.info, (Date.now() - t) / 1000);
}
try {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(JOBS, jobs.length) }, async () => {
    while (next < jobs.length) await runJob(jobs[next++]);
  }));
} finally {
  if (browser) await browser.close().catch(() => {});
  server.close();
}

// --- the report --------------------------------------------------------------------
const order = (x, y) => books.indexOf(byName.get(x.book)) - books.indexOf(byName.get(y.book)) ||
  CHECKS.indexOf(x.check) - CHECKS.indexOf(y.check);
const main = results.filter(r => !r.selftest).sort(order);
const self = results.filter(r => r.selftest).sort(order);
const wall = (Date.now() - t0) / 1000;
const perCheck = {};
for (const r of results) {
  const p = perCheck[r.check] = perCheck[r.check] || { seconds: 0, longest: 0, book: '' };
  p.seconds += r.seconds;
  if (r.seconds > p.longest) { p.longest = r.seconds; p.book = r.book; }
}
fs.writeFileSync(path.join(outDir, 'report.json'), JSON.stringify({ seconds: Math.round(wall), jobs: JOBS,
  chromium: CHROMIUM, mupdfNoticeIgnored: mupdfNotice, perCheck, results: main, selftest: self }, null, 2) + '\n');
console.log(`readers: ${wall.toFixed(0)} s wall, ${JOBS} at once; seconds per check (all books${selftestDir ? ' and the selftest' : ''}):`);
for (const c of CHECKS) if (perCheck[c])
  console.log(`    ${c.padEnd(11)} ${perCheck[c].seconds.toFixed(1).padStart(6)} s, longest ${perCheck[c].longest.toFixed(1)} s (${perCheck[c].book})`);
console.log(`screenshots and report.json in ${outDir}`);
const failed = main.filter(r => !r.ok).length;
console.log(`${main.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
