// bench/view_bench.js — loads a page of `mpilens view` in headless Chromium
// and prints one JSON line: time to first picture (navigation to the
// timeline drawn), time until the page is ready, frame times of 20 zoom and pan steps, the tab's memory.
// Used by bench/view_bench; needs tests/browser/node_modules (./setup.sh).
'use strict';
const { chromium } = require('../tests/browser/node_modules/playwright-core');
const path = require('path');

(async () => {
  const page_path = process.argv[2];
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--js-flags=--max-old-space-size=8192', '--mpilens-bench=' + process.pid],
  });
  const out = {};
  try {
    const ctx = await browser.newContext({ offline: true, viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(e.message));
    page.on('crash', () => errors.push('the tab crashed'));
    const t0 = Date.now();
    await page.goto('file://' + path.resolve(page_path), { timeout: 600000 });
    await page.waitForFunction(() => window.mpilens && window.mpilens.ready, null, { timeout: 600000, polling: 20 });
    out.ready_s = (Date.now() - t0) / 1000;
    // the first picture: when the page drew the timeline first (its own
    // clock, from the navigation's start); the page is ready (every view
    // set up) later
    const tm = (await page.evaluate(() => window.mpilens.drawn())).timing;
    out.first_picture_s = tm && tm.picture_ms ? tm.picture_ms / 1000 : out.ready_s;
    out.stats = await page.evaluate(() => window.mpilens.stats());
    await page.focus('#tl-canvas');
    const steps = ['+', '+', 'ArrowRight', '+', 'ArrowLeft', '+', 'ArrowRight', '-', 'ArrowRight', '-',
                   '+', 'ArrowLeft', '+', '-', 'ArrowRight', '-', '-', 'ArrowLeft', '-', '0'];
    const frames = [];
    for (const k of steps) {
      await page.keyboard.press(k);
      // two animation frames: the step's drawing has run
      await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
      frames.push(await page.evaluate(() => window.mpilens.drawn().frame_ms));
    }
    out.frame_ms = frames;
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Performance.enable');
    const m = await cdp.send('Performance.getMetrics');
    const get = n => (m.metrics.find(x => x.name === n) || {}).value || 0;
    out.js_heap_mib = get('JSHeapUsedSize') / 1048576;
    out.timing = (await page.evaluate(() => window.mpilens.drawn())).timing;
    // the tab's memory: resident size of the browser's renderer processes
    const { execSync } = require('child_process');
    const ps = execSync('ps -eo pid=,ppid=,rss=,args=').toString().split('\n').map(l => l.trim().split(/\s+/));
    // the browser's processes: those below the one started with our marker
    const ours = new Set(ps.filter(f => f.slice(3).includes('--mpilens-bench=' + process.pid)).map(f => f[0]));
    for (let grew = true; grew;) {
      grew = false;
      for (const f of ps) if (f.length > 3 && ours.has(f[1]) && !ours.has(f[0])) { ours.add(f[0]); grew = true; }
    }
    out.renderer_mib = ps.filter(f => ours.has(f[0]) && f.slice(3).includes('--type=renderer'))
      .reduce((a, f) => a + parseInt(f[2], 10), 0) / 1024;
    out.errors = errors;
  } catch (e) {
    out.error = String(e && e.message || e).slice(0, 300);
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out) + '\n');
})();
