// check_served.js — a page served by `mpilens view --serve` in headless
// Chromium (playwright-core): what it holds at start, then zoomed by a
// drag over [A, B] (ns since the page's time 0), what it fetched and drew
// there, and the details of a message clicked in it.  Prints one JSON
// object; tests/cases/view_serve.sh judges it.
//
//   node check_served.js URL A B SHOTS_DIR
'use strict';
const { chromium } = require('playwright-core');

async function main() {
  const [url, A, B, shots] = process.argv.slice(2);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-proxy-server'],
  });
  const out = { errors: [], requests: [], data_requests: 0 };
  try {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await ctx.route('**/*', route => {
      const u = route.request().url();
      if (!u.startsWith(url)) { out.requests.push(u); return route.abort(); }
      if (u.startsWith(url + 'data?')) out.data_requests++;
      return route.continue();
    });
    const page = await ctx.newPage();
    page.on('console', m => { if (m.type() === 'error') out.errors.push('console: ' + m.text()); });
    page.on('pageerror', e => out.errors.push('page: ' + e.message));
    await page.goto(url);
    await page.waitForFunction(() => window.mpilens && (window.mpilens.ready || document.getElementById('notes').textContent.startsWith('This page cannot')), null, { timeout: 60000 });
    out.ready = await page.evaluate(() => window.mpilens.ready);
    if (!out.ready) { out.notes = await page.textContent('#notes'); return out; }
    out.stats = await page.evaluate(() => window.mpilens.stats());
    out.start = await page.evaluate(() => window.mpilens.detail());
    // fit all: the whole run, too busy to load (by the overview's count or the server's answer)
    await page.click('#tl-fit');
    await page.waitForFunction(() => { const d = window.mpilens.detail(); return (d.over || d.requests >= 1) && !d.loading; }, null, { timeout: 60000 });
    await page.waitForTimeout(100);
    out.critical_path = await page.evaluate(() => window.mpilens.criticalPath ? window.mpilens.criticalPath() : null);
    out.fit = { detail: await page.evaluate(() => window.mpilens.detail()), drawn: await page.evaluate(() => window.mpilens.drawn()),
      note: await page.evaluate(() => document.getElementById('tl-canvas').dataset.note || '') };
    await page.screenshot({ path: shots + '/served-fit.png' });
    // drag over [A, B]
    const box = await page.locator('#tl-canvas').boundingBox();
    const sc = await page.evaluate(() => window.mpilens.scale());
    const X = t => box.x + 78 + (t - sc.t0) / (sc.t1 - sc.t0) * (box.width - 8 - 78);
    await page.mouse.move(X(+A), box.y + 100);
    await page.mouse.down();
    await page.mouse.move((X(+A) + X(+B)) / 2, box.y + 100, { steps: 4 });
    await page.mouse.move(X(+B), box.y + 100, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction(() => { const d = window.mpilens.detail(); return d.shown && !d.loading; }, null, { timeout: 60000 });
    await page.waitForTimeout(150);
    out.zoom = { scale: await page.evaluate(() => window.mpilens.scale()), detail: await page.evaluate(() => window.mpilens.detail()),
      drawn: await page.evaluate(() => window.mpilens.drawn()) };
    await page.screenshot({ path: shots + '/served-zoom.png' });
    // click a message whose line lies in the window, a third along it
    const j = await page.evaluate(() => {
      const s = window.mpilens.scale(), n = window.mpilens.detail().messages;
      for (let j = 0; j < n; j++) { const m = window.mpilens.message(j); if (m.ts >= s.t0 && m.tr <= s.t1) return j; }
      return -1;
    });
    if (j >= 0) {
      const p = await page.evaluate(j => window.mpilens.messagePos(j), j);
      out.clicked = await page.evaluate(j => window.mpilens.message(j), j);
      await page.mouse.click(box.x + p.x + (p.x1 - p.x) / 3, box.y + p.y + (p.y1 - p.y) / 3);
      await page.waitForTimeout(100);
      out.clicked.details = await page.textContent('#tl-details');
    }
  } finally {
    await browser.close();
  }
  return out;
}

main().then(o => { process.stdout.write(JSON.stringify(o) + '\n'); },
  e => { process.stdout.write(JSON.stringify({ fatal: String(e && e.stack || e) }) + '\n'); process.exit(1); });
