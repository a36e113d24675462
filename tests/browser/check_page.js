// check_page.js — opens a page written by `mpilens view` in headless
// Chromium (Debian's /usr/bin/chromium, driven by playwright-core) with the
// network off, exercises its views and prints what it saw as one JSON
// object; tests/cases/view_*.sh judge it.
//
//   node check_page.js PAGE.html SHOTS_DIR [quick]
//
// Output: errors (console errors, page errors), requests (every request
// other than the page itself), notes (the page's own note), stats,
// drawn (message lines at "fit all"), scale_before / scale_after (time
// scale before and after zooming in), loads (interval and line widths at
// two slider positions), clicked (the message clicked and the details
// shown), matrix_hover (the matrix's text with the cursor on it), summary
// (its text), routines (the rows of its routine table), diag_boxes (class
// and text of each diagnosis box), rank_bars (the summary's time per rank), critical_path
// (window.mpilens.criticalPath() at "fit all", with the pixels of its widest
// band on and off) and cp_line (the summary's line on it).  Screenshots of the four views go to
// SHOTS_DIR.
'use strict';
const { chromium } = require('playwright-core');
const path = require('path');

async function main() {
  const [page_path, shots, mode] = process.argv.slice(2);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-proxy-server'],
  });
  const out = { errors: [], requests: [] };
  try {
    // a page served by `mpilens view --serve` (http://127.0.0.1:PORT/TOKEN/):
    // only requests under that URL may go out; a file: nothing may
    const served = /^http:\/\/127\.0\.0\.1:\d+\//.test(page_path);
    const ctx = await browser.newContext({ offline: !served, viewport: { width: 1280, height: 800 } });
    const url = served ? page_path : 'file://' + path.resolve(page_path);
    const allowed = u => served ? u.startsWith(url) : u === url;
    await ctx.route('**/*', route => {
      const u = route.request().url();
      if (!allowed(u)) { out.requests.push(u); return route.abort(); }
      return route.continue();
    });
    const page = await ctx.newPage();
    page.on('console', m => { if (m.type() === 'error') out.errors.push('console: ' + m.text()); });
    page.on('pageerror', e => out.errors.push('page: ' + e.message));
    page.on('request', r => { if (!allowed(r.url()) && !out.requests.includes(r.url())) out.requests.push(r.url()); });
    await page.goto(url);
    await page.waitForFunction(() => window.mpilens && (window.mpilens.ready || document.getElementById('notes').textContent.startsWith('This page cannot')), null, { timeout: 60000 });
    out.notes = await page.textContent('#notes');
    out.ready = await page.evaluate(() => window.mpilens.ready);
    if (!out.ready) return out;
    out.stats = await page.evaluate(() => window.mpilens.stats());
    await page.click('#tl-fit');
    await page.waitForTimeout(100);
    out.drawn = await page.evaluate(() => window.mpilens.drawn());
    out.scale_fit = await page.evaluate(() => window.mpilens.scale());
    out.axis_note = await page.evaluate(() => document.getElementById('tl-canvas').dataset.note || '');
    if (out.scale_fit.group > 1) {
      // a summarised row: what rowSummary says and what the hover shows
      out.row_summary = await page.evaluate(() => window.mpilens.rowSummary(0));
      const box = await page.locator('#tl-canvas').boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + 31);
      out.row_hover = await page.textContent('#tl-tip');
      await page.mouse.move(0, 0);
    }
    await page.screenshot({ path: shots + '/timeline.png' });
    // the ranks box: ranks 0-15 only, then all again
    await page.fill('#tl-ranks', '0-15');
    await page.dispatchEvent('#tl-ranks', 'change');
    await page.waitForTimeout(100);
    out.scale_ranks = await page.evaluate(() => window.mpilens.scale());
    await page.click('#tl-fit');
    await page.waitForTimeout(100);
    // the critical path at "fit all": its segments as drawn, the summary's
    // line, and the pixels of its widest band with the overlay on and off
    out.critical_path = await page.evaluate(() => window.mpilens.criticalPath ? window.mpilens.criticalPath() : null);
    const cps = out.critical_path && out.critical_path.segments.filter(x => x.box);
    if (cps && cps.length) {
      const b = cps.reduce((a, x) => (x.box.x1 - x.box.x0 > a.box.x1 - a.box.x0 ? x : a)).box;
      const pixels = () => page.evaluate(b => {
        const c = document.getElementById('tl-canvas'), k = window.devicePixelRatio || 1;
        const x = Math.ceil(b.x0 * k), y = Math.ceil(b.y0 * k), w = Math.max(1, Math.floor(b.x1 * k) - x), h = Math.max(1, Math.floor(b.y1 * k) - y);
        const d = c.getContext('2d').getImageData(x, y, w, h).data;
        let pink = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] > 150 && d[i + 1] < 120 && d[i + 2] > 100) pink++;
        return { n: d.length / 4, pink, sum: Array.from(d).reduce((a, v, i) => a + v * (i % 7 + 1), 0) };
      }, b);
      const on = await pixels();
      await page.click('#tl-cp');
      await page.waitForTimeout(100);
      const off = await pixels();
      out.critical_path.hidden_segments = (await page.evaluate(() => window.mpilens.criticalPath())).segments.length;
      await page.click('#tl-cp');
      await page.waitForTimeout(100);
      out.critical_path.pixels = { box: b, on, off };
    }
    if (mode !== 'quick' && out.stats.messages > 0) {
      // click a message: the first one, a third of the way along its line
      const box = await page.locator('#tl-canvas').boundingBox();
      const j = 0;
      const p = await page.evaluate(j => window.mpilens.messagePos(j), j);
      out.clicked = await page.evaluate(j => window.mpilens.message(j), j);
      await page.mouse.click(box.x + p.x + (p.x1 - p.x) / 3, box.y + p.y + (p.y1 - p.y) / 3);
      await page.waitForTimeout(100);
      out.clicked.details = await page.textContent('#tl-details');
    }
    // search: a routine, then a call site (file:line)
    if (mode !== 'quick' && process.env.SEARCH) {
      out.search = [];
      for (const q of process.env.SEARCH.split(',')) {
        await page.fill('#tl-search', q);
        await page.waitForTimeout(50);
        out.search.push([q, await page.textContent('#tl-found')]);
      }
      await page.fill('#tl-search', '');
    }
    // zoom: the time scale before and after three steps in (keyboard)
    out.scale_before = await page.evaluate(() => window.mpilens.scale());
    await page.focus('#tl-canvas');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await page.waitForTimeout(100);
    out.scale_after = await page.evaluate(() => window.mpilens.scale());
    // network load: two slider positions
    await page.click('#tabs button[data-view=load]');
    out.loads = [];
    // an interval of 20 ms, put by the slider just before the first message
    // and just before the first message sent 25 ms or more after it
    await page.fill('#ld-len', '20');
    await page.$eval('#ld-slider', el => { el.value = '1000'; el.dispatchEvent(new Event('input')); });
    const last = await page.evaluate(() => window.mpilens.interval().a);
    const ts = await page.evaluate(n => { const t = []; for (let j = 0; j < n; j++) t.push(window.mpilens.message(j).ts); return t.sort((a, b) => a - b); }, out.stats.messages);
    const places = [];
    if (ts.length) {
      places.push(ts[0]);
      const next = ts.find(t => t > ts[0] + 25e6);
      if (next != null) places.push(next);
    }
    const positions = places.map(t => String(Math.max(0, Math.floor(1000 * (t - 2e6) / last))));
    for (const v of positions) {
      await page.$eval('#ld-slider', (el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }, v);
      await page.waitForTimeout(50);
      out.loads.push({
        slider: v,
        interval: await page.evaluate(() => window.mpilens.interval()),
        per_pixel: +(await page.inputValue('#ld-bpp')),
        lines: await page.evaluate(() => window.mpilens.load()),
      });
    }
    await page.screenshot({ path: shots + '/load.png' });
    await page.click('#tabs button[data-view=matrix]');
    await page.waitForTimeout(50);
    const mb = await page.locator('#mx-canvas').boundingBox();
    await page.mouse.move(mb.x + 70, mb.y + 50);
    out.matrix_hover = await page.textContent('#mx-hover');
    await page.screenshot({ path: shots + '/matrix.png' });
    await page.click('#tabs button[data-view=summary]');
    await page.waitForTimeout(50);
    out.summary = await page.textContent('#view-summary');
    out.cp_line = await page.evaluate(() => { const e = document.getElementById('sm-cp'); return e ? e.textContent : null; });
    // the routine table (routine, calls, time, time%, bytes) and the diagnosis boxes' kinds
    out.routines = await page.$$eval('#sm-routines tr', trs => trs.slice(1).map(tr => Array.from(tr.cells).map(c => c.textContent)));
    out.diag_boxes = await page.$$eval('#sm-diag > div', ds => ds.map(d => [d.className, d.textContent]));
    out.rank_bars = await page.evaluate(() => window.mpilens.rankBars ? window.mpilens.rankBars() : null);
    await page.screenshot({ path: shots + '/summary.png', fullPage: true });
  } finally {
    await browser.close();
  }
  return out;
}

main().then(o => { process.stdout.write(JSON.stringify(o) + '\n'); },
  e => { process.stdout.write(JSON.stringify({ fatal: String(e && e.stack || e) }) + '\n'); process.exit(1); });
