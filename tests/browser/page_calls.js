// page_calls.js — opens a page written by `mpilens view` in headless
// Chromium (network off) and prints, as one JSON object, its calls
// (window.mpilens.calls(): rank, routine, kind, t0, dur in the page's ns)
// and its critical path (window.mpilens.criticalPath()), plus errors.
//
//   node page_calls.js PAGE.html
'use strict';
const { chromium } = require('playwright-core');
const path = require('path');

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-proxy-server'],
  });
  const out = { errors: [] };
  try {
    const ctx = await browser.newContext({ offline: true, viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    page.on('pageerror', e => out.errors.push('page: ' + e.message));
    await page.goto('file://' + path.resolve(process.argv[2]));
    await page.waitForFunction(() => window.mpilens && window.mpilens.ready, null, { timeout: 60000 });
    out.calls = await page.evaluate(() => window.mpilens.calls());
    out.critical_path = await page.evaluate(() => window.mpilens.criticalPath());
  } catch (e) {
    out.errors.push('driver: ' + e.message);
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
main();
