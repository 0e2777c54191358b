// The map app's speed in headless Chromium, measured in the page (performance.now()
// from navigation start): the first coloured Toronto grid after navigation with an
// empty browser cache, and recolours of Houston's 3,337 cells and Toronto's 815 (new
// scores from the wasm engine, the styles, and the frame that shows them), for the
// app's hex canvas (web-demo/lib/hex-canvas.js) beside Leaflet's canvas and SVG
// renderers; then a second visit of the installed app. Each run is a fresh browser
// context. Requests to other hosts fail (openPage's dead proxy) without the delay
// Playwright's interception adds to each request. Writes build/bench/map.json for
// bench/report.mjs.
//
//   node bench/browser/map.mjs            (part of `make bench` and `make bench-map`)
import { mkdirSync, writeFileSync } from 'node:fs';
import { openPage } from '../../tests/support/browser.mjs';
import { startDemoProcess } from './demo-process.mjs';

const RUNS = Number(process.env.MAP_BENCH_RUNS ?? 5);
const INTENTS = ['night', 'driving', 'walking', 'overall'];
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN; };
const p90 = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)]; };

/**
 * Milliseconds from a zoom change (no animation) to the rendered frame, zooming in and
 * out `count` times each around the view: every renderer redraws or re-projects then.
 */
function zooms(page, count) {
  return page.evaluate(async (n) => {
    const { map } = window.hexrisk;
    const rendered = () => new Promise((resolve) => requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve();
      channel.port2.postMessage(null);
    }));
    const times = [];
    for (let i = 0; i < 2 * n; i += 1) {
      const started = performance.now();
      map.setZoom(map.getZoom() + (i % 2 === 0 ? 1 : -1), { animate: false });
      await rendered();
      times.push(performance.now() - started);
    }
    return times;
  }, count);
}

/** Changes the intent through the page's control until `count` recolours of `city` are timed. */
async function recolour(page, city, count) {
  for (let i = 0; i < count; i += 1) {
    const done = await page.evaluate(() => window.hexriskTimings.recolours.length);
    await page.selectOption('#intent', INTENTS[i % INTENTS.length]);
    await page.waitForFunction((n) => window.hexriskTimings.recolours.length > n, done);
  }
  const timings = await page.evaluate(() => window.hexriskTimings);
  return timings.recolours.filter((r) => r.city === city && !r.created);
}

const server = await startDemoProcess();
const results = {};
for (const renderer of ['hex-canvas', 'canvas', 'svg']) {
  const first = [];
  const steps = [];
  const houston = [];
  const houstonCreated = [];
  const houstonZooms = [];
  const toronto = [];
  for (let run = 0; run < RUNS; run += 1) {
    const session = await openPage({ intercept: false });
    const { page } = session;
    await page.goto(`${server.url}/?clock=2022-01-03&sw=0&renderer=${renderer}`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    first.push(await page.evaluate(() => window.hexriskTimings.firstGridMs));
    // The city's first view is below zoom 15: no street layer is fetched or drawn with the first grid.
    const streetLayer = await page.evaluate(() => document.body.dataset.streetLayer);
    if (streetLayer !== 'zoomed-out') throw new Error(`the street layer is ${streetLayer} at the first view`);
    // The first grid's steps (performance marks of app.js), as times since navigation.
    steps.push(await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark')
      .filter((m) => m.name.startsWith('hexrisk:')).map((m) => [m.name.slice(8).replace('city_ca_tor-', ''), m.startTime]))));
    toronto.push(...await recolour(page, 'city_ca_tor', 4));
    await page.selectOption('#city', 'city_us_hou');
    await page.waitForFunction(() => document.body.dataset.hexes === '3337', null, { timeout: 60_000 });
    // Its full file (opened after the grid) in too, so that its decoding is not timed as recolours.
    await page.waitForFunction(() => performance.getEntriesByName('hexrisk:city_us_hou-network').length > 0, null, { timeout: 60_000 });
    houston.push(...await recolour(page, 'city_us_hou', 8));
    houstonCreated.push(...(await page.evaluate(() => window.hexriskTimings.recolours))
      .filter((r) => r.city === 'city_us_hou' && r.created).map((r) => r.ms));
    houstonZooms.push(...await zooms(page, 3));
    if (session.consoleErrors.length) throw new Error(session.consoleErrors.join('\n'));
    await session.browser.close();
  }
  const ms = (list, part = 'ms') => list.map((r) => r[part]);
  results[renderer] = {
    first_grid_ms: first,
    first_grid_median_ms: median(first),
    first_grid_steps_median_ms: Object.fromEntries(Object.keys(steps[0]).map((k) => [k, median(steps.map((s) => s[k]))])),
    toronto_recolour_median_ms: median(ms(toronto)),
    toronto_recolour_p90_ms: p90(ms(toronto)),
    houston_recolour_median_ms: median(ms(houston)),
    houston_recolour_p90_ms: p90(ms(houston)),
    houston_recolour_parts_median_ms: { scores: median(ms(houston, 'scoresMs')), styles: median(ms(houston, 'styleMs')), frame: median(ms(houston, 'frameMs')) },
    houston_recolours: houston.length,
    houston_grid_created_median_ms: median(houstonCreated),
    houston_zoom_median_ms: median(houstonZooms),
    houston_zoom_p90_ms: p90(houstonZooms),
  };
  console.log(renderer, JSON.stringify(results[renderer]));
}
// A second visit of the installed app: the service worker answers the page, the
// engine and the kept model file, and Chromium has the wasm compiled in its code cache.
const repeat = [];
for (let run = 0; run < RUNS; run += 1) {
  const session = await openPage({ persistent: true, intercept: false });
  const { page } = session;
  await page.goto(`${server.url}/?clock=2022-01-03`);
  await page.waitForSelector('body[data-offline-ready="true"]', { timeout: 60_000 });
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  repeat.push(await page.evaluate(() => window.hexriskTimings.firstGridMs));
  await session.browser.close();
}
results.repeat_visit = { first_grid_ms: repeat, first_grid_median_ms: median(repeat) };
console.log('repeat visit', JSON.stringify(results.repeat_visit));
await server.close();
const chromium = (await import('node:child_process')).execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
mkdirSync(new URL('../../build/bench/', import.meta.url), { recursive: true });
writeFileSync(new URL('../../build/bench/map.json', import.meta.url), JSON.stringify({ runs: RUNS, chromium, ...results }, null, 2));
