// The map app in headless Chromium with every non-local request blocked, as a new
// user meets it: the canvas grid coloured from the wasm engine (pixels checked against
// the palette), intents and the time of day recolouring it, a cell's breakdown from a
// click, a Toronto route brought into view with its trade-off set on a slider, every
// route selectable, why the chosen one, safe reach from a click, opacity, streets,
// precinct names and a scale bar, streets coloured by their risk from zoom 15 (the
// same streets and colours as the npm package's streetsInBox), a route's avoided
// streets and riskiest blocks, and offline (wasm) and online (the HTTP APIs under
// wrangler dev) giving the same numbers. Each test opens the map on a page of its own,
// in a fresh browser context, so that it passes alone and in any order, and alongside
// others: TESTS_AT_ONCE of them run at a time, sharing the browser, the Worker and the
// server, since most of a test is spent waiting on its pages. After each, no console
// error and no request for another host. Screenshots of each state go to
// test-output/; the page's own timings, by test, to test-output/map-timings.json.
import { after, before, describe, test as nodeTest } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync, writeFileSync } from 'node:fs';
import { startDemoServer } from '../../scripts/serve-demo.mjs';
import { OUTPUT_DIR, launchBrowser, newSession } from '../support/browser.mjs';
import { bands, figures, hexPixel, inView, ready, routeBetween, selectSource } from '../support/map-page.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';
import { HexRisk } from '../../pkg/dist/roads/node/hexrisk_engine.js';
import { MAX_BOX_SIDE_DEG, STREETS_MIN_ZOOM, riskiestBlocks, significant, streetBoxes, streetTooltip, uniqueStreets } from '../../web-demo/lib/streets.js';

const UNION = { lat: 43.6453, lng: -79.3806 };
const CHRISTIE_PITS = { lat: 43.6645, lng: -79.4206 };
const manifest = JSON.parse(readFileSync(new URL('../../build/artifacts/manifest.json', import.meta.url)));
const toronto = manifest.cities.find((c) => c.code === 'city_ca_tor');
/** The npm package with the full files the page opens, and the page's "now" (?clock=2022-01-03). */
const pkg = new HexRisk();
for (const city of manifest.cities) pkg.addCity(readFileSync(new URL(`../../build/artifacts/${city.file}`, import.meta.url)), city.version);
const NOW = Date.parse('2022-01-03T12:00:00Z');
/** Downtown Toronto (King and Bay) and Houston. */
const KING_AND_BAY = [43.6487, -79.3806];
const DOWNTOWN_HOUSTON = [29.7604, -95.3698];
/** What the browser logs when the full model file is refused. */
const EXPECTED_ERRORS = /status of 503/;
let server;
let worker;
let browser;
/** The map with online mode (the Worker and a key for this origin). */
let appUrl;
/** The map without online mode. */
let offlineUrl;
/** How many tests run at once. */
const TESTS_AT_ONCE = 2;
/** The pages the running test opened (each test's own list), checked and closed after it. */
const opened = new AsyncLocalStorage();
/** Each test's page timings, by test name. */
const timings = {};
/** The tests, registered as the file declares them and run at the end, TESTS_AT_ONCE at a time. */
const tests = [];

/** A test of the map: after it, its pages' timings are kept, the pages closed and checked. */
function test(name, fn) {
  tests.push([name, async () => {
    const sessions = [];
    try {
      await opened.run(sessions, fn);
    } finally {
      timings[name] = await Promise.all(sessions.map((s) => s.page.evaluate(() => window.hexriskTimings).catch(() => null)));
      await Promise.all(sessions.map((s) => s.context.close()));
    }
    for (const { consoleErrors, blocked, expectedErrors } of sessions) {
      assert.deepEqual(consoleErrors.filter((e) => !expectedErrors?.test(e)), [], 'console errors');
      assert.deepEqual(blocked, [], 'requests for other hosts');
    }
  }]);
}

before(async () => {
  // The browser starts while the key store and the Worker are made.
  const launching = launchBrowser();
  try {
    server = await startDemoServer({ port: 0 });
    const { state, keys: { key } } = await keyStore('map', { key: { kind: 'live', origins: [server.url] } });
    worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: '2022-01-03' } });
    // sw=0: this page is not installed; tests/browser/offline.test.mjs covers that.
    appUrl = `${server.url}/?${new URLSearchParams({ api: worker.url, key, clock: '2022-01-03', sw: '0' })}`;
    offlineUrl = `${server.url}/?clock=2022-01-03&sw=0`;
  } finally {
    browser = await launching;
  }
});

after(async () => {
  if (Object.keys(timings).length > 0) writeFileSync(`${OUTPUT_DIR}/map-timings.json`, JSON.stringify(timings, null, 2));
  await browser?.close();
  await worker?.stop();
  await server?.close();
});

/**
 * Opens `url` (the map with online mode by default) on a page of a new context and
 * waits until it is ready (unless `wait` is false). `prepare(page)` runs before the
 * page loads (to intercept its requests); console errors matching `expectedErrors`
 * are allowed.
 */
async function openMap({ url = appUrl, prepare, wait = true, expectedErrors } = {}) {
  const session = { ...(await newSession(browser)), expectedErrors };
  opened.getStore().push(session);
  await prepare?.(session.page);
  await session.page.goto(url);
  if (wait) await ready(session.page);
  return session;
}

/** The page's timed recolours of `city` from `source` that restyled hexes already drawn. */
async function recolours(page, city, source) {
  const { recolours: all } = await page.evaluate(() => window.hexriskTimings);
  return all.filter((r) => r.city === city && r.source === source && !r.created);
}

const changed = (page, old) => page.waitForFunction((previous) => {
  const now = window.hexrisk.bands();
  return Object.keys(now).some((cell) => now[cell] !== previous[cell]);
}, old);

test('the Toronto grid is drawn on a canvas in the palette colour of each cell\'s band', async () => {
  const { page } = await openMap();
  const drawn = await bands(page);
  const cells = Object.keys(drawn);
  assert.equal(cells.length, 815);
  assert.ok(cells.every((c) => drawn[c] >= 0 && drawn[c] <= 16));
  assert.ok(new Set(Object.values(drawn)).size >= 10, 'many bands in use');
  assert.equal(await page.locator('.leaflet-hexes-pane canvas').count(), 1);
  // Opaque hexes: the pixel at a cell's centre is its band's palette colour.
  await page.fill('#opacity', '100');
  await page.locator('#opacity').dispatchEvent('input');
  const palette = await page.evaluate(() => window.hexrisk.palette);
  const sample = cells.filter((_, i) => i % 40 === 0);
  let matching = 0;
  for (const cell of sample) {
    const { colour, alpha } = await hexPixel(page, cell);
    if (alpha === 255 && colour === palette[drawn[cell]].toLowerCase()) matching += 1;
  }
  // Corridor, avoided cells and labels are absent; every sampled centre shows its band.
  assert.equal(matching, sample.length, `${matching} of ${sample.length} cells in their band's colour`);
  await page.fill('#opacity', '55');
  await page.locator('#opacity').dispatchEvent('input');
  const legend = await page.locator('#legend li').allTextContents();
  assert.deepEqual(legend, Array.from({ length: 17 }, (_, i) => String(i + 1)));
  await page.screenshot({ path: `${OUTPUT_DIR}/map-grid.png` });
  assert.ok((await page.evaluate(() => window.hexriskTimings)).firstGridMs > 0);
});

test('the map says the data-through date and model version of what it colours', async () => {
  const { page } = await openMap();
  assert.equal(
    await page.locator('#freshness').textContent(),
    `Data through ${toronto.data_through} (model ${toronto.version}, in this browser)`,
  );
});

test('legible base map: streets over the hexes, opacity under the user\'s control, a scale bar, precinct names', async () => {
  const { page } = await openMap();
  const z = await page.evaluate(() => ['hexes', 'streets'].map((p) => Number(window.hexrisk.map.getPane(p).style.zIndex)));
  assert.ok(z[1] > z[0], 'streets drawn above the hexes');
  assert.equal(await page.locator('.leaflet-streets-pane canvas').count(), 1);
  assert.equal(await page.locator('.leaflet-control-scale-line').first().isVisible(), true);
  await page.fill('#opacity', '20');
  await page.locator('#opacity').dispatchEvent('input');
  assert.equal(await page.textContent('#opacity-value'), '20 %');
  assert.match(page.url(), /opacity=20/);
  await page.check('#precincts');
  await page.waitForSelector('.precinct-label', { state: 'attached' });
  const labels = await page.locator('.precinct-label').allTextContents();
  assert.ok(labels.length >= 16, `${labels.length} precinct labels`);
  assert.ok(labels.every((l) => /^.+ · (\d+|N\/A)$/.test(l)), labels[0]);
  // Names overlap when zoomed out: hidden below zoom 11, shown from it.
  await page.evaluate(() => { window.hexrisk.map.setView([43.66, -79.39], 10, { animate: false }); });
  await page.waitForFunction(() => document.querySelector('#map').classList.contains('zoom-low'));
  assert.equal(await page.locator('.precinct-label:visible').count(), 0);
  await page.evaluate(() => { window.hexrisk.map.setView([43.66, -79.39], 12, { animate: false }); });
  await page.waitForFunction(() => !document.querySelector('#map').classList.contains('zoom-low'));
  assert.ok(await page.locator('.precinct-label:visible').count() > 0);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-legible.png` });
});

test('changing the intent recolours the grid', async () => {
  const { page } = await openMap();
  const before = await bands(page);
  await page.selectOption('#intent', 'driving');
  await changed(page, before);
  assert.notDeepEqual(await bands(page), before);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-intent-driving.png` });
});

test('clicking a hex shows its breakdown', async () => {
  const { page } = await openMap();
  const cell = Object.keys(await bands(page))[400];
  const point = await page.evaluate((id) => window.hexrisk.map.latLngToContainerPoint(window.hexrisk.centreOf(id)), cell);
  await page.locator('#map').click({ position: { x: point.x, y: point.y } });
  await page.waitForSelector('#breakdown:not([hidden])');
  assert.equal(await page.textContent('#breakdown h2'), `Cell ${cell}`);
  assert.equal(await page.locator('#breakdown tbody tr').count(), 5);
  assert.match(await page.textContent('[data-testid=safety]'), /^Safety \d+\.\d \(band (\d|1[0-7]) of 17\)$/);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-breakdown.png` });
});

test('a route comes into view with its trade-off set on a slider, shortest to safest', async () => {
  const { page } = await openMap();
  await page.evaluate(() => { window.hexrisk.map.setView([43.7, -79.2], 11, { animate: false }); }); // elsewhere
  await routeBetween(page, UNION, CHRISTIE_PITS);
  const answer = await page.evaluate(() => window.hexrisk.answer());
  assert.equal(answer.method, 'tradeoff');
  const set = answer.tradeoff.routes;
  assert.ok(set.length >= 2, `${set.length} routes in the set`);
  // Every route of the answer is in view, and the view is not much larger than them.
  const lines = [answer.best, ...answer.alternatives].map((r) => r.geometry.coordinates);
  for (const line of lines) assert.ok(await inView(page, line));
  assert.ok(await page.evaluate(() => window.hexrisk.map.getZoom()) >= 13, 'zoomed to the route');
  // The slider starts at the safest (the answer's best) and the list names each route.
  assert.equal(await page.getAttribute('#tradeoff-slider', 'max'), String(set.length - 1));
  assert.equal(await page.inputValue('#tradeoff-slider'), String(set.length - 1));
  assert.equal(await page.locator('#route-list input[type=radio]').count(), set.length);
  assert.equal(await page.locator('path.best-route').count(), 1);
  assert.equal(await page.locator('path.alternative').count(), set.length - 1);
  const safest = await figures(page);
  assert.equal(safest.distance, `${(set.at(-1).distanceM / 1000).toFixed(2)} km`);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-route-tradeoff.png` });
  // Down the slider by keyboard to the shortest: its figures, and nothing avoided.
  await page.focus('#tradeoff-slider');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.body.dataset.selectedRoute === '0');
  const shortest = await figures(page);
  assert.equal(shortest.distance, `${(set[0].distanceM / 1000).toFixed(2)} km`);
  assert.equal(shortest.detour, '0.0%');
  assert.match(await page.textContent('#tradeoff-step'), /^Shortest: \d+\.\d\d km, \d+ min, exposure \d+\.\d\d expected incidents$/);
  assert.equal(await page.textContent('#why [data-testid=exposure-avoided]'), 'nothing avoided');
  // One step up says what it costs and buys against the shortest.
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.body.dataset.selectedRoute === '1');
  const step = answer.tradeoff.routes[1];
  const text = await page.textContent('#tradeoff-step');
  assert.match(text, /^(Step 1|Safest): \+\d+ m, \+\d+\.\d min, avoids \d+\.\d\d expected incidents \(\d+ %\)$/);
  assert.equal(await page.getAttribute('#tradeoff-slider', 'aria-valuetext'), text);
  assert.equal((await figures(page)).distance, `${(step.distanceM / 1000).toFixed(2)} km`);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-route-step.png` });
});

test('every route is selectable by its line and by keyboard, and says why it was chosen', async () => {
  const { page } = await openMap();
  await routeBetween(page, UNION, CHRISTIE_PITS);
  const answer = await page.evaluate(() => window.hexrisk.answer());
  assert.ok(answer.alternatives.length >= 1, `${answer.alternatives.length} alternatives`);
  // Click an alternative's line: it becomes the chosen route.
  const before = await page.evaluate(() => document.body.dataset.selectedRoute);
  const point = await page.locator('path.alternative').first().evaluate((el) => {
    const at = el.getPointAtLength(el.getTotalLength() / 2);
    const m = el.getScreenCTM();
    return { x: at.x * m.a + m.e, y: at.y * m.d + m.f };
  });
  await page.mouse.click(point.x, point.y);
  await page.waitForFunction((old) => document.body.dataset.selectedRoute !== old, before);
  // The radio group follows, and arrow keys move along it.
  const selected = Number(await page.evaluate(() => document.body.dataset.selectedRoute));
  assert.equal(await page.isChecked(`#route-list input[value="${selected}"]`), true);
  await page.focus(`#route-list input[value="${selected}"]`);
  await page.keyboard.press(selected === 0 ? 'ArrowDown' : 'ArrowUp');
  await page.waitForFunction((old) => document.body.dataset.selectedRoute !== String(old), selected);
  // Choose the safest: why it was chosen, against the shortest route.
  const last = answer.tradeoff.routes.length - 1;
  await page.check(`#route-list input[value="${last}"]`);
  await page.waitForFunction((i) => document.body.dataset.selectedRoute === String(i), last);
  const e = answer.best.explanation;
  const why = await figures(page, '#why');
  assert.equal(why['exposure-avoided'], `${e.exposureAvoided.toFixed(2)} expected incidents (${e.exposureAvoidedPct.toFixed(1)} %)`);
  assert.match(why.extra, /^\+\d+ m, \+\d+\.\d min$/);
  assert.ok(e.exposureAvoided > 0, 'the safest route of this pair avoids exposure');
  assert.ok(e.avoidedCells.length > 0, 'and names the cells it avoids');
  assert.equal(await page.locator('#why li.avoided-cell').count(), e.avoidedCells.length);
  assert.deepEqual(await page.locator('#why li.avoided-cell').evaluateAll((els) => els.map((el) => el.dataset.cell)), e.avoidedCells.map((c) => c.h3));
  assert.equal(await page.locator('path.avoided').count(), e.avoidedCells.length);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-why.png` });
});

test('a time of day recolours the grid and reroutes at that departure, online as offline', async () => {
  const { page } = await openMap();
  await page.selectOption('#method', 'safest');
  const routeBefore = await routeBetween(page, UNION, CHRISTIE_PITS);
  assert.equal(routeBefore.bands, undefined); // no time chosen: one week's scores
  const week = await bands(page);
  await page.selectOption('#day', '4'); // Friday
  await page.selectOption('#hour', '23');
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('Friday 23:00'));
  const night = await bands(page);
  assert.notDeepEqual(night, week);
  // The route was planned again leaving then: the answer names the bands its cells were scored in.
  await page.waitForSelector('#metrics [data-testid=bands]');
  const nightRoute = await figures(page);
  assert.match(nightRoute.bands, /^week(day|end) 22:00-00:00( → week(day|end) \d\d:00-\d\d:00)*$/);
  assert.match(page.url(), /day=4&hour=23/);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-friday-23h.png` });
  // The API scores the same band (GET /hexes/all?time=119) and the same route.
  await selectSource(page, 'online');
  assert.deepEqual(await bands(page), night);
  assert.deepEqual(await routeBetween(page, UNION, CHRISTIE_PITS), nightRoute);
  await selectSource(page, 'offline');
  await page.selectOption('#day', '');
  await page.waitForFunction(() => !document.querySelector('#status').textContent.includes('Friday'));
  assert.deepEqual(await bands(page), week);
});

test('offline and online modes give identical grids, routes, figures and versions', async () => {
  const { page } = await openMap();
  await page.selectOption('#method', 'safest');
  const offlineBands = await bands(page);
  const offlineRoute = await routeBetween(page, UNION, CHRISTIE_PITS);
  const offlineWhy = await figures(page, '#why');
  assert.ok('exposure-avoided' in offlineWhy, JSON.stringify(offlineWhy));
  await selectSource(page, 'online');
  assert.deepEqual(await bands(page), offlineBands);
  assert.deepEqual(await routeBetween(page, UNION, CHRISTIE_PITS), offlineRoute);
  assert.deepEqual(await figures(page, '#why'), offlineWhy);
  assert.equal(
    await page.locator('#freshness').textContent(),
    `Data through ${toronto.data_through} (model ${toronto.version}, from the API)`,
  );
  await page.screenshot({ path: `${OUTPUT_DIR}/map-online.png` });
  // The page timed the grid recoloured and the route planned online.
  assert.ok((await recolours(page, 'city_ca_tor', 'online')).length > 0);
  assert.ok((await page.evaluate(() => window.hexriskTimings.routes)).some((r) => r.source === 'online'));
});

test('safe reach from a clicked point: the cells, their shading and the outline, online as offline', async () => {
  const { page } = await openMap();
  await page.check('input[name=click-mode][value=reach]');
  await page.fill('#minutes', '10');
  await page.dispatchEvent('#minutes', 'change');
  await page.evaluate(() => { window.hexrisk.map.setView([43.6532, -79.3832], 14, { animate: false }); });
  const map = await page.locator('#map').boundingBox();
  await page.locator('#map').click({ position: { x: map.width / 2, y: map.height / 2 } });
  await page.waitForSelector('#reach-result:not([hidden])');
  const cells = Number(await page.evaluate(() => document.body.dataset.reach));
  assert.ok(cells >= 3, `${cells} cells within 10 minutes`);
  assert.equal(await page.locator('path.reach-outline').count() >= 1, true);
  assert.match(await page.textContent('#reach-result'), /cells within 10 min walking/);
  assert.match(page.url(), /reach=43\.65\d+,-79\.38\d+&minutes=10/);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-reach.png` });
  // More minutes reach at least as many cells; the API reaches the same.
  await page.fill('#minutes', '30');
  await page.dispatchEvent('#minutes', 'change');
  await page.waitForFunction((n) => Number(document.body.dataset.reach) > n, cells);
  const offlineText = await page.textContent('#reach-result');
  await selectSource(page, 'online');
  // The new source reaches again from the same point; until it answers, the offline
  // result is still on the page.
  await page.waitForFunction(() => window.hexriskTimings.reaches.some((r) => r.source === 'online'));
  assert.equal(await page.textContent('#reach-result'), offlineText);
});

test('the URL reopens the same map: city, view, options, time, route and the chosen route', async () => {
  const { page } = await openMap();
  await page.selectOption('#intent', 'walking');
  await page.uncheck('input[name=class][value=VEHICLE_DAMAGE]');
  await page.selectOption('#day', '5');
  await page.selectOption('#hour', '21');
  await routeBetween(page, UNION, CHRISTIE_PITS);
  await page.focus('#tradeoff-slider');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.body.dataset.selectedRoute === '0');
  await page.evaluate(() => { window.hexrisk.map.setView([43.655, -79.4], 14.5, { animate: false }); });
  await page.waitForFunction(() => /view=43\.65\d+,-79\.4\d+,14\.5(&|$)/.test(location.hash));
  const url = page.url();
  const [lat, lng] = new URLSearchParams(new URL(url).hash.slice(1)).get('view').split(',').map(Number);
  const original = { bands: await bands(page), route: await figures(page), why: await figures(page, '#why') };
  const { page: other } = await openMap({ url });
  assert.equal(await other.inputValue('#intent'), 'walking');
  assert.equal(await other.isChecked('input[name=class][value=VEHICLE_DAMAGE]'), false);
  assert.equal(await other.inputValue('#day'), '5');
  assert.equal(await other.inputValue('#hour'), '21');
  assert.equal(await other.inputValue('#method'), 'tradeoff');
  const view = await other.evaluate(() => ({ ...window.hexrisk.map.getCenter(), zoom: window.hexrisk.map.getZoom() }));
  assert.ok(Math.abs(view.lat - lat) < 1e-5 && Math.abs(view.lng - lng) < 1e-5 && view.zoom === 14.5, JSON.stringify(view));
  assert.deepEqual(await bands(other), original.bands);
  assert.equal(await other.evaluate(() => document.body.dataset.selectedRoute), '0');
  assert.deepEqual(await figures(other), original.route);
  assert.deepEqual(await figures(other, '#why'), original.why);
  await other.screenshot({ path: `${OUTPUT_DIR}/map-reopened.png` });
});

test('Houston draws its 3,337 cells, recolours them, and fits a phone-sized viewport', async () => {
  const { page } = await openMap();
  await page.selectOption('#city', 'city_us_hou');
  await page.waitForFunction(() => document.body.dataset.hexes === '3337', null, { timeout: 30_000 });
  for (const intent of ['night', 'driving', 'overall']) {
    const before = await bands(page);
    await page.selectOption('#intent', intent);
    await changed(page, before);
  }
  assert.ok((await recolours(page, 'city_us_hou', 'offline')).length >= 3, 'the recolours timed');
  await page.screenshot({ path: `${OUTPUT_DIR}/map-houston.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  assert.ok(await page.locator('#map').isVisible());
  await page.click('#controls-toggle');
  assert.ok(await page.locator('#city').isVisible());
  await page.screenshot({ path: `${OUTPUT_DIR}/map-phone.png`, fullPage: true });
});

test('every control is reachable by keyboard, and route ends can be set without a mouse', async () => {
  const { page } = await openMap();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.locator('body').focus();
  const reached = new Set();
  for (let i = 0; i < 50; i += 1) {
    await page.keyboard.press('Tab');
    reached.add(await page.evaluate(() => document.activeElement?.id || document.activeElement?.getAttribute('name')));
  }
  for (const id of ['origin-search', 'origin-location', 'destination-search', 'city', 'intent', 'week', 'day', 'opacity', 'precincts', 'source', 'click-mode', 'method', 'origin-here', 'destination-here', 'minutes', 'mode', 'reach-here', 'share', 'map']) {
    assert.ok(reached.has(id), `${id} not reachable`);
  }
  // Pan with the arrow keys, set both ends at the centre with the buttons.
  await page.evaluate(() => { window.hexrisk.map.setView([43.6453, -79.3806], 15, { animate: false }); });
  await page.focus('#origin-here');
  await page.keyboard.press('Enter');
  await page.focus('#map');
  for (let i = 0; i < 6; i += 1) await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(300);
  await page.focus('#destination-here');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#metrics:not([hidden])');
  const answer = await page.evaluate(() => window.hexrisk.answer());
  assert.ok(answer.destination.lng < answer.origin.lng, 'the destination is west of the origin, where the keys panned');
  // Enter on the map acts at the crosshair: here, the breakdown of the cell under it.
  await page.check('input[name=click-mode][value=inspect]');
  await page.focus('#map');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#breakdown:not([hidden])');
  const under = await page.evaluate(() => { const c = window.hexrisk.map.getCenter(); return window.hexrisk.cellAt(c.lat, c.lng); });
  assert.equal(await page.textContent('#breakdown h2'), `Cell ${under}`);
});

test('the first grid comes from the grid file; streets and routes wait for the full file', async () => {
  // A page whose full Toronto file is held back until the test lets it go.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const requested = [];
  const prepare = (page) => page.route('**/artifacts/city_ca_tor/*.hxrk', async (route) => {
    requested.push(new URL(route.request().url()).pathname);
    if (route.request().url().endsWith(toronto.file)) await held;
    await route.continue();
  });
  try {
    const { page } = await openMap({ url: offlineUrl, prepare, wait: false });
    await page.waitForFunction(() => Object.keys(window.hexrisk?.bands() ?? {}).length === 815);
    // The grid is drawn while the full file is held back; it is asked for after the grid file.
    while (requested.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(requested, [`/artifacts/${toronto.grid.file}`, `/artifacts/${toronto.file}`]);
    assert.equal(await page.evaluate(() => document.body.dataset.ready), undefined, 'not ready without the network');
    assert.equal(await page.evaluate(() => window.hexrisk.map.getPane('streets').querySelectorAll('canvas').length), 0);
    const routed = page.evaluate(([a, b]) => window.hexrisk.route(a, b, { fit: false }), [UNION, CHRISTIE_PITS]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await page.evaluate(() => window.hexrisk.answer()), null, 'no route before the network');
    release();
    await routed;
    await ready(page);
    assert.notEqual(await page.evaluate(() => window.hexrisk.answer()), null, 'the route once the network is in');
    assert.equal(await page.evaluate(() => window.hexrisk.map.getPane('streets').querySelectorAll('canvas').length), 1);
  } finally {
    release();
  }
});

test('without the full file the grid stays and says why; without grid files the full file opens the city', async () => {
  // The full file refused: the grid is drawn from the grid file, the page is ready, and
  // the status and a route say what is missing.
  const refuse = (page) => page.route(`**/artifacts/${toronto.file}`, (route) => route.fulfill({ status: 503, body: 'unavailable' }));
  const { page } = await openMap({ url: offlineUrl, prepare: refuse, expectedErrors: EXPECTED_ERRORS });
  assert.equal(Object.keys(await bands(page)).length, 815);
  assert.match(await page.textContent('#status'), /routes, reach and streets need the city's full model file/);
  await page.evaluate(([a, b]) => window.hexrisk.route(a, b, { fit: false }), [UNION, CHRISTIE_PITS]);
  assert.equal(await page.evaluate(() => window.hexrisk.answer()), null);
  assert.match(await page.textContent('#status'), /INVALID_ARTIFACT/);
  // A manifest from before grid files: the city opens from its full file and routes.
  const requested = [];
  const withoutGrids = async (page) => {
    await page.route('**/artifacts/manifest.json', async (route) => {
      const response = await route.fetch();
      const manifest = await response.json();
      for (const city of manifest.cities) delete city.grid;
      await route.fulfill({ response, json: manifest });
    });
    await page.route('**/*.hxrk', (route) => { requested.push(new URL(route.request().url()).pathname); return route.continue(); });
  };
  const { page: old } = await openMap({ url: offlineUrl, prepare: withoutGrids });
  assert.equal(Object.keys(await bands(old)).length, 815);
  assert.deepEqual(requested, [`/artifacts/${toronto.file}`]);
  await old.evaluate(([a, b]) => window.hexrisk.route(a, b, { fit: false }), [UNION, CHRISTIE_PITS]);
  assert.notEqual(await old.evaluate(() => window.hexrisk.answer()), null);
});

/** The scoring options the page asks with (its queryOptions(), the whole week): intent, classes, week. */
function pageOptions(page) {
  return page.evaluate(() => ({
    intent: document.querySelector('#intent').value,
    activeCodes: [...document.querySelectorAll('input[name=class]:checked')].map((i) => i.value).join(','),
    week: document.querySelector('#week').value,
  }));
}

/** The package's streets for the boxes the page asked for, once each, by id. */
function packageStreets(boxes, options) {
  return new Map(uniqueStreets(boxes.map((box) => pkg.streetsInBox({ ...box, ...options }, NOW))).map((s) => [s.id, s]));
}

/**
 * For each drawn street with a segment of 12 px or more whose middle is in view: the
 * colour the street canvas shows at that middle, the street's own colour, and how far
 * (px) the nearest other street passes from there.
 */
function streetPixels(page) {
  return page.evaluate(async () => {
    const { map } = window.hexrisk;
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const { rows, colours } = window.hexrisk.streets();
    const canvas = map.getPane('streetRisk').querySelector('canvas');
    const mapBox = map.getContainer().getBoundingClientRect();
    const box = canvas.getBoundingClientRect();
    const scale = canvas.width / box.width;
    const size = map.getSize();
    const lines = rows.map((row) => row.coordinates.map(([lng, lat]) => map.latLngToContainerPoint([lat, lng])));
    const distance = (p, a, b) => {
      const [dx, dy] = [b.x - a.x, b.y - a.y];
      const squared = dx * dx + dy * dy;
      const t = squared > 0 ? Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / squared)) : 0;
      return Math.hypot(p.x - a.x - t * dx, p.y - a.y - t * dy);
    };
    const samples = [];
    rows.forEach((row, i) => {
      const points = lines[i];
      let [longest, length] = [-1, 0];
      for (let k = 0; k + 1 < points.length; k += 1) {
        const l = points[k].distanceTo(points[k + 1]);
        if (l > length) [longest, length] = [k, l];
      }
      if (length < 12) return;
      const middle = points[longest].add(points[longest + 1]).divideBy(2);
      if (middle.x < 10 || middle.y < 10 || middle.x > size.x - 10 || middle.y > size.y - 10) return;
      let clearance = Infinity;
      lines.forEach((other, j) => {
        if (j === i) return;
        for (let k = 0; k + 1 < other.length; k += 1) clearance = Math.min(clearance, distance(middle, other[k], other[k + 1]));
      });
      const x = Math.round((middle.x + mapBox.left - box.left) * scale);
      const y = Math.round((middle.y + mapBox.top - box.top) * scale);
      const [r, g, b, a] = canvas.getContext('2d').getImageData(x, y, 1, 1).data;
      samples.push({
        id: row.id, name: row.name, point: { x: middle.x, y: middle.y }, clearance, alpha: a,
        colour: `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`, expected: colours[i].toLowerCase(),
      });
    });
    return samples;
  });
}

/** The tooltip text the page should show for a street row. */
const tooltipText = (s) => `${s.name ?? 'unnamed street'}\n${significant(s.incidentsPerKm)} expected incidents per km, band ${s.colorIndex + 1} of 17${
  s.basis === 'cell' ? '\ntoo little data for this street on its own: its cell\'s risk spread by length' : ''}`;

/** Metres from a point to a line of [lng, lat] pairs, flat about the point (short distances). */
function metresToLine([lng, lat], line) {
  const k = Math.cos((lat * Math.PI) / 180);
  const m = 111_195;
  const xy = ([x, y]) => [(x - lng) * m * k, (y - lat) * m];
  let best = Infinity;
  for (let i = 0; i + 1 < line.length; i += 1) {
    const [[ax, ay], [bx, by]] = [xy(line[i]), xy(line[i + 1])];
    const [dx, dy] = [bx - ax, by - ay];
    const squared = dx * dx + dy * dy;
    const t = squared > 0 ? Math.max(0, Math.min(1, (-ax * dx - ay * dy) / squared)) : 0;
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return best;
}

test('street boxes stay within the engine\'s 0.05°, tooltips say what a street\'s figure is, and a route\'s riskiest blocks are the streets it follows', () => {
  // A zoom-15 view is one box; a wide one is cut into boxes under the limit; a huge
  // one keeps its middle 2 × 2 boxes and says so.
  const one = streetBoxes({ west: -79.40, south: 43.64, east: -79.37, north: 43.66 });
  assert.equal(one.boxes.length, 1);
  assert.equal(one.clipped, false);
  const wide = streetBoxes({ west: -79.45, south: 43.64, east: -79.37, north: 43.66 });
  assert.equal(wide.boxes.length, 2);
  assert.equal(wide.clipped, false);
  assert.equal(Math.min(...wide.boxes.map((b) => b.west)), -79.45);
  assert.equal(Math.max(...wide.boxes.map((b) => b.east)), -79.37);
  const huge = streetBoxes({ west: -79.6, south: 43.55, east: -79.2, north: 43.85 });
  assert.equal(huge.clipped, true);
  assert.equal(huge.boxes.length, 4);
  for (const b of [...one.boxes, ...wide.boxes, ...huge.boxes]) {
    assert.ok(b.east - b.west <= MAX_BOX_SIDE_DEG && b.north - b.south <= MAX_BOX_SIDE_DEG, JSON.stringify(b));
  }
  // The package takes each box.
  for (const box of huge.boxes) assert.equal(pkg.streetsInBox({ ...box, week: '2022-01-03' }, NOW).status, 'success');
  // A tooltip names the street (or says it has no name), gives 2 significant digits
  // and the band, and says when the figure is its cell's spread by length.
  assert.equal(streetTooltip({ name: 'KING ST W', incidentsPerKm: 0.43729, colorIndex: 0, basis: 'street' }),
    '<strong>KING ST W</strong><br>0.44 expected incidents per km, band 1 of 17');
  assert.equal(streetTooltip({ name: null, incidentsPerKm: 12.34, colorIndex: 16, basis: 'cell' }),
    '<strong>unnamed street</strong><br>12 expected incidents per km, band 17 of 17<br><em>too little data for this street on its own: its cell\'s risk spread by length</em>');
  assert.equal(streetTooltip({ name: 'A & <B>', incidentsPerKm: 0.0123, colorIndex: 5, basis: 'street' }),
    '<strong>A &amp; &lt;B&gt;</strong><br>0.012 expected incidents per km, band 6 of 17');
  // A route east along y = 0 (about 220 m): a street along it, a parallel one 10 m
  // away, one crossing it, one followed for only 10 m, and one followed half-way.
  const east = (m) => m / 111_195;
  const north = east;
  const line = [[0, 0], [east(220), 0]];
  const street = (id, incidentsPerKm, coordinates) => ({ id, name: `S${id}`, incidentsPerKm, basis: 'street', coordinates });
  const streets = [
    street(1, 0.5, [[east(0), 0], [east(100), 0]]),
    street(2, 9, [[east(0), north(10)], [east(200), north(10)]]),
    street(3, 8, [[east(50), north(-100)], [east(50), north(100)]]),
    street(4, 7, [[east(100), 0], [east(110), 0]]),
    street(5, 2, [[east(110), 0], [east(220), 0], [east(300), north(50)]]),
    street(6, 1, [[east(150), north(1)], [east(170), north(-1)]]),
  ];
  const blocks = riskiestBlocks(line, streets);
  assert.deepEqual(blocks.map((b) => b.id), [5, 6, 1]);
  assert.ok(Math.abs(blocks[0].onRouteM - 110) < 0.5, `${blocks[0].onRouteM} m of street 5 on the route`);
  assert.deepEqual(blocks[0].runs, [[[0, east(110)], [0, east(220)]]]);
  // A street cutting a corner of the route touches it at both ends only.
  const corner = [[0, 0], [east(100), 0], [east(100), north(100)]];
  assert.deepEqual(riskiestBlocks(corner, [street(7, 5, [[east(70), 0], [east(100), north(30)]])]), []);
  assert.deepEqual(riskiestBlocks(corner, [street(8, 5, [[east(70), 0], [east(100), 0], [east(100), north(30)]])]).map((b) => b.onRouteM.toFixed(0)), ['60']);
});

test('from zoom 15 Toronto\'s streets replace the hexes, coloured by their risk as the package scores them; below 15 the hexes return', async () => {
  const { page } = await openMap();
  assert.equal(await page.evaluate(() => document.body.dataset.streetLayer), 'zoomed-out', 'no streets at the first view');
  await page.evaluate(([lat, lng, zoom]) => { window.hexrisk.map.setView([lat, lng], zoom, { animate: false }); }, [...KING_AND_BAY, STREETS_MIN_ZOOM]);
  await page.waitForFunction(() => document.body.dataset.streetLayer === 'shown');
  const drawn = await page.evaluate(() => window.hexrisk.streets());
  // The view, and no more than a few boxes of at most 0.05° around it, asked for.
  const view = await page.evaluate(() => window.hexrisk.map.getBounds().toBBoxString().split(',').map(Number));
  assert.ok(drawn.boxes.length >= 1 && drawn.boxes.length <= 4, `${drawn.boxes.length} boxes`);
  for (const b of drawn.boxes) assert.ok(b.east - b.west <= MAX_BOX_SIDE_DEG && b.north - b.south <= MAX_BOX_SIDE_DEG);
  const [west, south, east, north] = view;
  assert.ok(Math.min(...drawn.boxes.map((b) => b.west)) <= west && Math.max(...drawn.boxes.map((b) => b.east)) >= east
    && Math.min(...drawn.boxes.map((b) => b.south)) <= south && Math.max(...drawn.boxes.map((b) => b.north)) >= north, 'the boxes cover the view');
  // One polyline per street the package has in those boxes, each in its band's colour.
  const palette = await page.evaluate(() => window.hexrisk.palette);
  const expected = packageStreets(drawn.boxes, await pageOptions(page));
  assert.ok(expected.size > 200, `${expected.size} streets downtown`);
  assert.equal(drawn.polylines, expected.size);
  assert.equal(await page.evaluate(() => document.body.dataset.streets), String(expected.size));
  assert.deepEqual(drawn.rows.map((r) => r.id).sort((a, b) => a - b), [...expected.keys()].sort((a, b) => a - b));
  drawn.rows.forEach((row, i) => {
    assert.equal(row.colorIndex, expected.get(row.id).colorIndex, `street ${row.id}`);
    assert.equal(drawn.colours[i], palette[row.colorIndex], `street ${row.id}`);
  });
  assert.ok(new Set(drawn.rows.map((r) => r.colorIndex)).size >= 10, 'many bands in use');
  // The hexes are gone; the canvas shows each street's colour where no other street passes.
  assert.equal(await page.locator('.leaflet-hexes-pane canvas').count(), 0);
  const samples = await streetPixels(page);
  const clear = samples.filter((s) => s.clearance > 5);
  assert.ok(clear.length >= 50, `${clear.length} streets sampled`);
  // Antialiasing may blend an edge pixel a little: the nearest palette colour is the street's.
  const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const nearest = (hex) => palette.map((c) => c.toLowerCase())
    .reduce((best, c) => (rgb(c).reduce((d, v, k) => d + (v - rgb(hex)[k]) ** 2, 0) < rgb(best).reduce((d, v, k) => d + (v - rgb(hex)[k]) ** 2, 0) ? c : best));
  const wrong = clear.filter((s) => s.alpha < 200 || nearest(s.colour) !== s.expected);
  assert.deepEqual(wrong, [], `${wrong.length} of ${clear.length} streets not in their colour`);
  assert.ok(clear.filter((s) => s.alpha === 255 && s.colour === s.expected).length >= 0.8 * clear.length, 'most exactly');
  // A street's tooltip: its name, expected incidents per km, band (and basis).
  const named = clear.filter((s) => s.name).sort((a, b) => b.clearance - a.clearance)[0];
  const mapBox = await page.locator('#map').boundingBox();
  await page.mouse.move(mapBox.x + named.point.x - 3, mapBox.y + named.point.y);
  await page.mouse.move(mapBox.x + named.point.x, mapBox.y + named.point.y);
  const tooltip = page.locator('.leaflet-tooltip.street-tooltip');
  await tooltip.waitFor();
  assert.equal(await tooltip.innerText(), tooltipText(expected.get(named.id)));
  // The legend says what the colours are, and what they are not.
  const legend = await page.textContent('#legend');
  assert.match(legend, /Streets: expected incidents per km for the chosen options; colour ranks a street among the\s+city's streets/);
  assert.match(legend, /reported\s+incidents only, with no count of people passing/);
  assert.match(await page.textContent('#streets-note'), new RegExp(`^${expected.size} streets drawn`));
  await page.screenshot({ path: `${OUTPUT_DIR}/map-streets.png` });
  // Another intent colours the streets again, as the package scores them for it.
  await page.mouse.move(mapBox.x + 5, mapBox.y + 5);
  await page.selectOption('#intent', 'night');
  await page.waitForFunction((n) => window.hexrisk.streets().draws > n, drawn.draws);
  const night = await page.evaluate(() => window.hexrisk.streets());
  const nightExpected = packageStreets(night.boxes, await pageOptions(page));
  assert.equal(night.polylines, nightExpected.size);
  night.rows.forEach((row, i) => assert.equal(night.colours[i], palette[nightExpected.get(row.id).colorIndex], `street ${row.id} at night`));
  assert.ok(night.rows.some((row) => row.colorIndex !== expected.get(row.id)?.colorIndex), 'night colours differ');
  // The HTTP API (GET /streets) draws the same streets in the same colours.
  await selectSource(page, 'online');
  await page.waitForFunction((n) => window.hexrisk.streets().draws > n, night.draws);
  const online = await page.evaluate(() => window.hexrisk.streets());
  assert.deepEqual(online.rows, night.rows);
  assert.deepEqual(online.colours, night.colours);
  await selectSource(page, 'offline');
  // Zoomed out to 14: no streets, the hexes again, in the night's bands.
  await page.evaluate(([lat, lng, zoom]) => { window.hexrisk.map.setView([lat, lng], zoom, { animate: false }); }, [...KING_AND_BAY, STREETS_MIN_ZOOM - 1]);
  await page.waitForFunction(() => document.body.dataset.streetLayer === 'zoomed-out');
  assert.equal((await page.evaluate(() => window.hexrisk.streets())).polylines, 0);
  assert.equal(await page.evaluate(() => document.body.dataset.streets), undefined);
  assert.equal(await page.locator('.leaflet-hexes-pane canvas').count(), 1);
  assert.equal(Object.keys(await bands(page)).length, 815);
  assert.match(await page.textContent('#streets-note'), /^Zoom in to 15 or closer/);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-streets-zoomed-out.png` });
});

test('Houston has no streets: its hexes stay at zoom 15, and the legend says why', async () => {
  const { page } = await openMap();
  await page.selectOption('#city', 'city_us_hou');
  await page.waitForFunction(() => document.body.dataset.hexes === '3337', null, { timeout: 30_000 });
  await page.waitForFunction(() => document.body.dataset.streetLayer === 'no-streets', null, { timeout: 30_000 });
  await page.evaluate(([lat, lng, zoom]) => { window.hexrisk.map.setView([lat, lng], zoom, { animate: false }); }, [...DOWNTOWN_HOUSTON, STREETS_MIN_ZOOM]);
  await page.waitForFunction(() => window.hexrisk.map.getZoom() === 15);
  assert.equal(await page.evaluate(() => document.body.dataset.streetLayer), 'no-streets');
  assert.equal((await page.evaluate(() => window.hexrisk.streets())).polylines, 0);
  assert.equal(await page.locator('.leaflet-hexes-pane canvas').count(), 1);
  // Said once, in the legend.
  const note = 'Houston has no street data (it routes over a hex lattice): hexes are shown at every zoom.';
  assert.equal(await page.textContent('#streets-note'), note);
  assert.equal(await page.locator('text=Houston has no street data').count(), 1);
  // The package has no streets there either.
  const view = await page.evaluate(() => window.hexrisk.map.getBounds().toBBoxString().split(',').map(Number));
  const [west, south, east, north] = view;
  assert.throws(() => pkg.streetsInBox({ west, south, east, north }, NOW), { code: 'LOCATION_NOT_COVERED' });
  await page.screenshot({ path: `${OUTPUT_DIR}/map-houston-zoom-15.png` });
});

test('"From my location" sets the origin where the browser says it is, and says why when it cannot', async () => {
  const at = (geolocation) => async (page) => {
    await page.context().grantPermissions(['geolocation']);
    await page.context().setGeolocation(geolocation);
  };
  const status = (page) => page.textContent('#status');
  // In Toronto: the origin is set there, and the destination at the map's centre routes.
  const { page } = await openMap({ prepare: at({ latitude: UNION.lat, longitude: UNION.lng, accuracy: 20 }) });
  await page.locator('#origin-location').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /^Origin set at your location \(within 20 m\)/.test(document.querySelector('#status').textContent));
  const centre = await page.evaluate(() => window.hexrisk.map.getCenter());
  assert.ok(Math.abs(centre.lat - UNION.lat) < 1e-6 && Math.abs(centre.lng - UNION.lng) < 1e-6, 'the map centres on it');
  // Outside every covered city.
  const { page: london } = await openMap({ prepare: at({ latitude: 51.5074, longitude: -0.1278 }) });
  await london.locator('#origin-location').click();
  await london.waitForFunction(() => /outside the covered cities/.test(document.querySelector('#status').textContent));
  assert.match(await status(london), /Toronto/);
  // In another covered city than the one shown.
  const { page: houston } = await openMap({ prepare: at({ latitude: 29.7604, longitude: -95.3698 }) });
  await houston.locator('#origin-location').click();
  await houston.waitForFunction(() => /You are in Houston/.test(document.querySelector('#status').textContent));
  // Refused: no permission granted.
  const { page: refused } = await openMap({ prepare: async (p) => p.context().clearPermissions() });
  await refused.locator('#origin-location').click();
  await refused.waitForFunction(() => /location was refused/.test(document.querySelector('#status').textContent));
});

test("the chosen route's directions: every step listed, and a focused step drawn on the map", async () => {
  const { page } = await openMap();
  await page.selectOption('#method', 'safest');
  await routeBetween(page, UNION, CHRISTIE_PITS);
  const answer = await page.evaluate(() => window.hexrisk.answer());
  const steps = answer.best.steps;
  assert.ok(steps.length >= 3, `${steps.length} steps`);
  await page.waitForSelector('#directions:not([hidden])');
  const texts = await page.locator('#steps button.step').allTextContents();
  assert.equal(texts.length, steps.length);
  steps.forEach((step, i) => assert.ok(texts[i].startsWith(step.instruction), `${texts[i]} / ${step.instruction}`));
  assert.match(texts[0], /^Head /);
  assert.match(texts.at(-1), /^Arrive/);
  assert.ok(texts[answer.best.riskiestStep].includes('most expected incidents of the route'));
  // Keyboard: focusing a step draws its stretch and brings it into view.
  await page.locator('#steps button.step').nth(1).focus();
  await page.waitForFunction(() => document.body.dataset.step === '1');
  assert.equal(await page.locator('path.step-highlight').count(), 1);
  const [from, to] = steps[1].coordinates;
  const stretch = answer.best.geometry.coordinates.slice(from, to + 1);
  const view = await page.evaluate(() => window.hexrisk.map.getBounds().toBBoxString().split(',').map(Number));
  for (const [lng, lat] of stretch) assert.ok(lng >= view[0] && lat >= view[1] && lng <= view[2] && lat <= view[3], 'the step is in view');
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => document.body.dataset.step === '2');
  assert.equal(await page.locator('path.step-highlight').count(), 1, 'one step drawn at a time');
  // The ends are named by the package's reverse lookup of the snapped points.
  const [start, end] = [answer.origin, answer.destination].map(({ lat, lng }) => pkg.reverse({ lat, lng }).label);
  assert.match(start, /^(near|on) /);
  assert.equal(await page.textContent('#route-ends'), `From ${start} to ${end}`);
});

test('the safest route lists the streets it avoids and marks its own riskiest blocks', async () => {
  const { page } = await openMap();
  await page.selectOption('#method', 'safest');
  await routeBetween(page, UNION, CHRISTIE_PITS);
  const answer = await page.evaluate(() => window.hexrisk.answer());
  const avoided = answer.best.explanation.avoidedStreets;
  assert.ok(avoided.length > 0, 'the safest route avoids streets of the shortest');
  // The avoided streets, as the answer names them, with metres and incidents per km.
  assert.deepEqual(
    await page.locator('#why li.avoided-street').allTextContents(),
    avoided.map((s) => `${s.name ?? 'unnamed street'}: ${Math.round(s.distanceM).toLocaleString('en')} m, ${significant(s.incidentsPerKm)} expected incidents per km`),
  );
  // Its riskiest blocks: at most three streets it follows, riskiest first, in the panel
  // and drawn under the route, with the package's incidents per km for the same options.
  const blocks = await page.evaluate(() => window.hexrisk.blocks());
  assert.ok(blocks.length >= 1 && blocks.length <= 3, `${blocks.length} blocks`);
  assert.equal(await page.evaluate(() => document.body.dataset.blocks), String(blocks.length));
  const listed = await page.locator('#why li.riskiest-block').evaluateAll((els) => els.map((el) => Number(el.dataset.street)));
  const marked = await page.locator('path.riskiest-block').evaluateAll((els) => els.map((el) => Number(el.dataset.street)));
  assert.deepEqual(listed, blocks.map((b) => b.id));
  assert.deepEqual(marked, blocks.map((b) => b.id));
  let [west, south, east, north] = [180, 90, -180, -90];
  for (const [lng, lat] of answer.best.geometry.coordinates.concat(...answer.alternatives.map((a) => a.geometry.coordinates))) {
    [west, south, east, north] = [Math.min(west, lng), Math.min(south, lat), Math.max(east, lng), Math.max(north, lat)];
  }
  const around = packageStreets([{ west: west - 1e-4, south: south - 1e-4, east: east + 1e-4, north: north + 1e-4 }], await pageOptions(page));
  const route = answer.best.geometry.coordinates;
  const texts = await page.locator('#why li.riskiest-block').allTextContents();
  blocks.forEach((block, i) => {
    const row = around.get(block.id);
    assert.equal(block.incidentsPerKm, row.incidentsPerKm);
    assert.ok(texts[i].startsWith(`${row.name ?? 'unnamed street'}: `) && texts[i].includes(`${significant(row.incidentsPerKm)} expected incidents per km`), texts[i]);
    if (i > 0) assert.ok(blocks[i - 1].incidentsPerKm >= block.incidentsPerKm, 'riskiest first');
    // Drawn where the route goes, for at least 20 m.
    for (const run of block.runs) for (const [lat, lng] of run) assert.ok(metresToLine([lng, lat], route) < 3, `block ${block.id} off the route`);
    assert.ok(block.onRouteM >= 20);
  });
  // No street the route follows end to end (every point and segment middle on the
  // line) is riskier than the blocks shown.
  const followed = [...around.values()].filter((s) => s.lengthM >= 20 && s.coordinates.every((p, k) => metresToLine(p, route) < 1
    && (k === 0 || metresToLine([(p[0] + s.coordinates[k - 1][0]) / 2, (p[1] + s.coordinates[k - 1][1]) / 2], route) < 1)));
  assert.ok(followed.length >= 10, `${followed.length} streets followed end to end`);
  const least = blocks.length === 3 ? blocks[2].incidentsPerKm : 0;
  const riskier = followed.filter((s) => s.incidentsPerKm > least && !blocks.some((b) => b.id === s.id));
  assert.deepEqual(riskier.map((s) => s.name), [], 'followed streets riskier than the blocks shown');
  await page.screenshot({ path: `${OUTPUT_DIR}/map-riskiest-blocks.png` });
});

test('From and To by name: places offered as one types, taken by keyboard, the route between them, offline and online', async () => {
  const { page } = await openMap();
  const expanded = (id) => page.getAttribute(`#${id}-search`, 'aria-expanded');
  for (const source of ['offline', 'online']) {
    await selectSource(page, source);
    await page.click('#clear-route');
    await page.focus('#origin-search');
    // The places offered are the package's, nearest the map's centre among equals.
    const centre = await page.evaluate(() => window.hexrisk.map.getCenter());
    const offered = pkg.search({ q: 'Queen and Spadina', city: 'city_ca_tor', lat: centre.lat, lng: centre.lng, limit: 6 }).places;
    await page.keyboard.type('Queen and Spadina');
    // The list shows each typed prefix's places in turn ("Q" lists streets in Q):
    // wait for the whole query's, or compare what is there after 30 s (a loaded machine
    // runs other tests beside this one).
    await page.waitForFunction((want) => [...document.querySelectorAll('#origin-places:not([hidden]) [role=option] span')]
      .map((span) => span.textContent).join('\n') === want, offered.map((p) => p.name).join('\n'), { timeout: 30_000 }).catch(() => {});
    assert.equal(await expanded('origin'), 'true');
    const names = await page.locator('#origin-places [role=option] span').allTextContents();
    assert.deepEqual(names, offered.map((p) => p.name), source);
    // Down shows the first as active, without moving the focus from the box.
    await page.keyboard.press('ArrowDown');
    const active = await page.getAttribute('#origin-search', 'aria-activedescendant');
    assert.equal(active, 'origin-places-0');
    assert.equal(await page.getAttribute('#origin-places-0', 'aria-selected'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'origin-search');
    await page.keyboard.press('Enter');
    assert.equal(await page.inputValue('#origin-search'), offered[0].name);
    assert.equal(await expanded('origin'), 'false');
    await page.waitForFunction(() => /^Origin set/.test(document.querySelector('#status').textContent));
    // Tab to the To box; Enter takes the first place without choosing one.
    await page.focus('#destination-search');
    await page.keyboard.type('king st w & bathurst');
    await page.waitForSelector('#destination-places:not([hidden]) [role=option]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#directions:not([hidden])');
    const answer = await page.evaluate(() => window.hexrisk.answer());
    const [to] = pkg.search({ q: 'king st w & bathurst', city: 'city_ca_tor', limit: 1 }).places;
    assert.equal(to.name, 'KING ST W & BATHURST ST');
    const metres = (a, b) => 111_320 * Math.hypot(a.lat - b.lat, (a.lng - b.lng) * Math.cos((a.lat * Math.PI) / 180));
    assert.ok(metres(answer.origin, offered[0]) < 30, `${source}: origin ${metres(answer.origin, offered[0])} m off`);
    assert.ok(metres(answer.destination, to) < 30, `${source}: destination ${metres(answer.destination, to)} m off`);
    assert.ok(answer.best.steps.length >= 3);
  }
  // A typo is offered as a suggestion; Escape closes the list, then empties the box.
  await page.fill('#destination-search', '');
  await page.focus('#destination-search');
  await page.keyboard.type('Spadna Avenue');
  // As above: an earlier prefix's places may show first.
  await page.waitForFunction(() => /SPADINA AVE.*did you mean\?/.test(document.querySelector('#destination-places:not([hidden]) #destination-places-0')?.textContent),
    undefined, { timeout: 30_000 }).catch(() => {});
  assert.match(await page.textContent('#destination-places-0'), /SPADINA AVE.*did you mean\?/);
  assert.match(await page.textContent('#places-count'), /places?: Down to choose/);
  await page.keyboard.press('Escape');
  assert.equal(await expanded('destination'), 'false');
  assert.equal(await page.inputValue('#destination-search'), 'Spadna Avenue');
  await page.keyboard.press('Escape');
  assert.equal(await page.inputValue('#destination-search'), '');
});

/** Delays by 800 ms the page's place searches whose query matches `pattern`. */
function slowPlaces(page, pattern) {
  return page.route('**/places?*', async (route) => {
    if (pattern.test(new URL(route.request().url()).searchParams.get('q') ?? '')) await new Promise((r) => setTimeout(r, 800));
    return route.continue();
  });
}

test('Enter pressed before the search answers what was typed takes the first place for all of it, not for an earlier prefix', async () => {
  const { page } = await openMap();
  await selectSource(page, 'online');
  await page.click('#clear-route');
  // The answer for the whole name comes late, as on a slow network.
  await slowPlaces(page, /bathurst/i);
  await page.focus('#destination-search');
  await page.keyboard.type('king', { delay: 120 });
  await page.waitForSelector('#destination-places:not([hidden]) [role=option]');
  const early = await page.locator('#destination-places [role=option] span').first().textContent();
  assert.notEqual(early, 'KING ST W & BATHURST ST', 'the prefix shows other places first');
  await page.keyboard.type(' st w & bathurst');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#destination-search').value === 'KING ST W & BATHURST ST'
    || document.querySelector('#destination-places [role=option]') === null, null, { timeout: 15_000 });
  assert.equal(await page.inputValue('#destination-search'), 'KING ST W & BATHURST ST');
  await page.unroute('**/places?*');
});

test('a place taken from the list stays taken: a search still on its way does not open the list again', async () => {
  const { page } = await openMap();
  await selectSource(page, 'online');
  await page.click('#clear-route');
  // Answers for the whole word come late, as on a slow network.
  await slowPlaces(page, /spadina/i);
  await page.focus('#origin-search');
  await page.keyboard.type('queen and spadin', { delay: 120 });
  await page.waitForSelector('#origin-places:not([hidden]) [role=option]');
  const first = await page.locator('#origin-places [role=option] span').first().textContent();
  // One more letter asks again; the place shown is taken before that answer comes.
  await page.keyboard.type('a');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  assert.equal(await page.inputValue('#origin-search'), first);
  await page.waitForTimeout(1500);
  assert.equal(await page.getAttribute('#origin-search', 'aria-expanded'), 'false');
  assert.ok(await page.locator('#origin-places').isHidden());
  assert.equal(await page.inputValue('#origin-search'), first);
  await page.unroute('**/places?*');
});

test('a route cleared while on its way is not shown when its answer comes', async () => {
  const { page } = await openMap();
  await selectSource(page, 'online');
  // The route's answer comes late, as on a slow network.
  let released;
  const held = new Promise((resolve) => { released = resolve; });
  await page.route('**/route', async (route) => { await held; return route.continue(); });
  const asked = page.waitForRequest('**/route');
  await page.evaluate(([a, b]) => { window.hexrisk.route(a, b); }, [UNION, CHRISTIE_PITS]);
  await asked;
  assert.equal(await page.textContent('#status'), 'Finding the route…');
  await page.click('#clear-route');
  const answered = page.waitForResponse('**/route');
  released();
  assert.equal((await answered).status(), 200);
  // Time for the page to take the answer and draw or say anything it would.
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => window.hexrisk.answer()), null);
  assert.ok(await page.locator('#directions').isHidden());
  assert.equal(await page.textContent('#status'), 'Route cleared: choose the origin.');
  await page.unroute('**/route');
});

test('on a phone (390 × 844) the controls fold into a panel over the map, every control reachable by keyboard', async () => {
  const { page } = await openMap({ url: offlineUrl });
  await page.setViewportSize({ width: 390, height: 844 });
  const toggle = page.locator('#controls-toggle');
  assert.ok(await toggle.isVisible());
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.ok(!(await page.locator('#controls').isVisible()), 'folded at first');
  assert.ok(await page.locator('#map').isVisible());
  await toggle.focus();
  await page.keyboard.press('Enter');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'origin-search');
  // Over the map, not beside it.
  const [panel, map] = await Promise.all([page.locator('#controls').boundingBox(), page.locator('#map').boundingBox()]);
  assert.ok(panel.y < map.y + map.height && panel.y + panel.height > map.y && panel.width >= 380, JSON.stringify({ panel, map }));
  await page.screenshot({ path: `${OUTPUT_DIR}/map-phone-controls.png` });
  const reached = new Set();
  for (let i = 0; i < 45; i += 1) {
    await page.keyboard.press('Tab');
    reached.add(await page.evaluate(() => document.activeElement?.id || document.activeElement?.getAttribute('name')));
  }
  for (const id of ['origin-search', 'origin-location', 'destination-search', 'city', 'intent', 'week', 'day', 'opacity', 'precincts', 'source', 'click-mode', 'method', 'origin-here', 'destination-here', 'minutes', 'mode', 'reach-here', 'share', 'map']) {
    assert.ok(reached.has(id), `${id} not reachable`);
  }
  // Escape folds the panel and gives the focus back to its button.
  await page.focus('#intent');
  await page.keyboard.press('Escape');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'controls-toggle');
  // Choosing where to go folds it too, to show the route.
  await page.keyboard.press('Enter');
  await page.keyboard.type('Union');
  await page.waitForSelector('#origin-places:not([hidden]) [role=option]');
  await page.keyboard.press('Enter');
  await page.focus('#destination-search');
  await page.keyboard.type('christie & bloor');
  await page.waitForSelector('#destination-places:not([hidden]) [role=option]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#directions:not([hidden])');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.ok(!(await page.locator('#controls').isVisible()));
  await page.screenshot({ path: `${OUTPUT_DIR}/map-phone-route.png`, fullPage: true });
});

describe('the map app', { concurrency: TESTS_AT_ONCE }, () => {
  for (const [name, fn] of tests) nodeTest(name, fn);
});
