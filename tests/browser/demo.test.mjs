// The map app in headless Chromium with every non-local request blocked: the grid
// renders coloured hexes from the wasm engine, intents recolour it, a hex click shows
// its breakdown, a Toronto route draws its line, corridor and metrics, and offline
// (wasm) and online (the HTTP APIs under wrangler dev) give the same numbers.
// Screenshots of each state go to test-output/; timings to test-output/map-timings.json.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyMigrations, issueKey } from '../../scripts/keys.mjs';
import { startDemoServer } from '../../scripts/serve-demo.mjs';
import { OUTPUT_DIR, openPage } from '../support/browser.mjs';
import { startWorker } from '../support/wrangler.mjs';

const UNION = { lat: 43.6453, lng: -79.3806 };
const manifest = JSON.parse(readFileSync(new URL('../../build/artifacts/manifest.json', import.meta.url)));
const CHRISTIE_PITS = { lat: 43.6645, lng: -79.4206 };
let server;
let worker;
let session;
let appUrl;

before(async () => {
  server = await startDemoServer({ port: 0 });
  const state = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-map-'));
  await applyMigrations({ stateDir: state });
  const { key } = await issueKey({ kind: 'live', origins: [server.url], stateDir: state });
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: '2022-01-03' } });
  appUrl = `${server.url}/?${new URLSearchParams({ api: worker.url, key, clock: '2022-01-03' })}`;
  session = await openPage();
  await session.page.goto(appUrl);
  await session.page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
});

after(async () => {
  await session?.browser.close();
  await worker?.stop();
  await server?.close();
});

const colours = (page) => page.locator('path.hex').evaluateAll((els) => els.map((el) => el.getAttribute('data-ci')));

test('the Toronto grid renders coloured hexes and a 17-band legend', async () => {
  const { page } = session;
  const bands = await colours(page);
  assert.equal(bands.length, 815);
  assert.ok(bands.every((b) => Number(b) >= 0 && Number(b) <= 16));
  assert.ok(new Set(bands).size >= 10, 'many bands in use');
  assert.equal(await page.locator('#legend li').count(), 17);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-grid.png` });
});

test('the map says the data-through date and model version of what it colours', async () => {
  const { page } = session;
  const toronto = manifest.cities.find((c) => c.code === 'city_ca_tor');
  assert.equal(
    await page.locator('#freshness').textContent(),
    `Data through ${toronto.data_through} (model ${toronto.version}, in this browser)`,
  );
});

test('changing the intent recolours the grid', async () => {
  const { page } = session;
  const before = await colours(page);
  await page.selectOption('#intent', 'driving');
  await page.waitForFunction((old) => {
    const now = [...document.querySelectorAll('path.hex')].map((el) => el.getAttribute('data-ci'));
    return now.some((b, i) => b !== old[i]);
  }, before);
  assert.notDeepEqual(await colours(page), before);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-intent-driving.png` });
});

test('a time of day recolours the grid, online as offline, and the whole week restores it', async () => {
  const { page } = session;
  const week = await colours(page);
  await page.selectOption('#day', '4'); // Friday
  await page.selectOption('#hour', '23');
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('Friday 23:00'));
  const night = await colours(page);
  assert.notDeepEqual(night, week);
  // A route leaves at that time: the answer names the bands its cells were scored in.
  const nightRoute = await routeMetrics(page);
  assert.match(nightRoute.bands, /^week(day|end) 22:00-00:00( → week(day|end) \d\d:00-\d\d:00)*$/);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-friday-23h.png` });
  // The API scores the same band (GET /hexes/all?time=119) and the same route
  // (POST /route with departAt 119).
  await selectSource(page, 'online');
  assert.deepEqual(await colours(page), night);
  assert.deepEqual(await routeMetrics(page), nightRoute);
  await selectSource(page, 'offline');
  await page.selectOption('#day', '');
  await page.waitForFunction(() => !document.querySelector('#status').textContent.includes('Friday'));
  assert.deepEqual(await colours(page), week);
});

test('clicking a hex shows its breakdown', async () => {
  const { page } = session;
  await page.locator('path.hex').nth(400).click({ force: true });
  await page.waitForSelector('#breakdown:not([hidden])');
  assert.equal(await page.locator('#breakdown tbody tr').count(), 5);
  assert.match(await page.textContent('[data-testid=safety]'), /^Safety \d+\.\d \(band \d+\)$/);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-breakdown.png` });
});

/** Switches the data source and waits until the grid is drawn from it. */
async function selectSource(page, source) {
  await page.selectOption('#source', source);
  await page.waitForFunction((s) => document.body.dataset.drawnFrom === s, source);
}

async function routeMetrics(page) {
  await page.evaluate(([a, b]) => window.hexriskRoute(a, b), [UNION, CHRISTIE_PITS]);
  await page.waitForSelector('#metrics:not([hidden])');
  return page.locator('#metrics [data-testid]').evaluateAll((els) => Object.fromEntries(els.map((el) => [el.dataset.testid, el.textContent])));
}

test('a Toronto route draws its line, corridor and alternatives, with metrics', async () => {
  const { page } = session;
  const metrics = await routeMetrics(page);
  assert.equal(await page.locator('path.best-route').count(), 1);
  assert.ok(await page.locator('path.corridor').count() > 5);
  assert.ok(await page.locator('path.alternative').count() >= 1);
  assert.match(metrics.distance, /^\d+\.\d\d km$/);
  assert.match(metrics.worst, /^\d+\.\d$/);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-route.png` });
});

test('offline and online modes give identical numbers', async () => {
  const { page } = session;
  const offlineBands = await colours(page);
  const offlineRoute = await routeMetrics(page);
  assert.equal(offlineRoute.bands, undefined); // no time chosen: one week's scores
  await selectSource(page, 'online');
  assert.deepEqual(await colours(page), offlineBands);
  assert.deepEqual(await routeMetrics(page), offlineRoute);
  // Online, the version is the one the API's answers name (Hexrisk-Model-Version).
  const toronto = manifest.cities.find((c) => c.code === 'city_ca_tor');
  assert.equal(
    await page.locator('#freshness').textContent(),
    `Data through ${toronto.data_through} (model ${toronto.version}, from the API)`,
  );
  await page.screenshot({ path: `${OUTPUT_DIR}/map-online.png` });
  await selectSource(page, 'offline');
});

test('precincts overlay, Houston and a phone-sized viewport', async () => {
  const { page } = session;
  await page.check('#precincts');
  await page.waitForSelector('path.precinct');
  assert.ok(await page.locator('path.precinct').count() >= 16);
  await page.selectOption('#city', 'city_us_hou');
  await page.waitForFunction(() => document.body.dataset.hexes === '3337', null, { timeout: 30_000 });
  await page.screenshot({ path: `${OUTPUT_DIR}/map-houston.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  assert.ok(await page.locator('#city').isVisible());
  assert.ok(await page.locator('#map').isVisible());
  await page.screenshot({ path: `${OUTPUT_DIR}/map-phone.png`, fullPage: true });
});

test('controls are reachable by keyboard', async () => {
  const { page } = session;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator('body').focus();
  const reached = new Set();
  for (let i = 0; i < 25; i += 1) {
    await page.keyboard.press('Tab');
    reached.add(await page.evaluate(() => document.activeElement?.id || document.activeElement?.className));
  }
  for (const id of ['city', 'intent', 'week', 'method', 'source']) assert.ok(reached.has(id), `${id} not reachable`);
});

test('timings, no console errors and no request left the machine', () => {
  const { page } = session;
  return page.evaluate(() => window.hexriskTimings).then((timings) => {
    writeFileSync(`${OUTPUT_DIR}/map-timings.json`, JSON.stringify(timings, null, 2));
    assert.ok(timings.firstGridMs > 0 && timings.recolourMs.offline.length > 0 && timings.routeMs.offline.length > 0);
    assert.ok(timings.recolourMs.online.length > 0 && timings.routeMs.online.length > 0);
    assert.deepEqual(session.consoleErrors, []);
    assert.deepEqual(session.blocked, []);
  });
});
