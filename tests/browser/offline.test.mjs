// The map app installed and offline: a web app manifest Chromium finds installable,
// a service worker that keeps the page, the engine and the artifacts of the cities
// opened, so that with the network cut the page reloads, draws its grid, routes and
// finds places by name; a city never opened says it is not available offline.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { startDemoServer } from '../../scripts/serve-demo.mjs';
import { OUTPUT_DIR, openPage } from '../support/browser.mjs';
import { bands, ready, routeBetween } from '../support/map-page.mjs';

const UNION = { lat: 43.6453, lng: -79.3806 };
const CHRISTIE_PITS = { lat: 43.6645, lng: -79.4206 };
let server;
let session;

before(async () => {
  server = await startDemoServer({ port: 0 });
  session = await openPage({ persistent: true });
});

after(async () => {
  await session?.browser.close();
  await server?.close();
});

test('the service worker keeps every file of the page, and the page preloads every module', () => {
  const web = new URL('../../web-demo/', import.meta.url);
  // The app's own files: not sw.js, not the example pages of other map libraries.
  const files = readdirSync(web, { recursive: true })
    .filter((f) => /\.(js|css|svg|webmanifest)$/.test(f) && f !== 'sw.js' && !f.startsWith('examples/'))
    .map((f) => `/${f}`);
  const sw = readFileSync(new URL('sw.js', web), 'utf8');
  const shell = JSON.parse(sw.match(/const SHELL = (\[[\s\S]*?\]);/)[1].replaceAll("'", '"').replace(/,\s*\]$/, ']'));
  for (const file of files) assert.ok(shell.includes(file), `sw.js SHELL lacks ${file}`);
  const html = readFileSync(new URL('index.html', web), 'utf8');
  for (const file of files.filter((f) => f.endsWith('.js'))) assert.ok(html.includes(`rel="modulepreload" href="${file}"`), `index.html does not preload ${file}`);
});

test('Chromium finds the app installable: manifest, icon, service worker', async () => {
  const { page } = session;
  await page.goto(`${server.url}/?clock=2022-01-03`);
  await ready(page);
  await page.waitForSelector('body[data-offline-ready="true"]');
  const cdp = await page.context().newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  assert.deepEqual(installabilityErrors, []);
  const { url, data } = await cdp.send('Page.getAppManifest');
  assert.equal(url, `${server.url}/manifest.webmanifest`);
  const manifest = JSON.parse(data);
  assert.equal(manifest.display, 'standalone');
  assert.equal(manifest.start_url, '/');
});

test('with the network cut, the page reloads, draws the grid of a city opened before and routes', async () => {
  const { page } = session;
  // Open San Francisco too while online, then come back to Toronto.
  await page.selectOption('#city', 'city_us_sfo');
  await page.waitForFunction(() => document.body.dataset.hexes !== '815' && document.body.dataset.ready === 'true');
  await page.waitForFunction(() => location.hash.includes('city=city_us_sfo'));
  await page.selectOption('#city', 'city_ca_tor');
  await page.waitForFunction(() => document.body.dataset.hexes === '815');
  const online = await bands(page);
  const onlineRoute = await routeBetween(page, UNION, CHRISTIE_PITS);

  await page.context().setOffline(true);
  await page.reload();
  await ready(page);
  assert.deepEqual(await bands(page), online);
  assert.deepEqual(await routeBetween(page, UNION, CHRISTIE_PITS), onlineRoute);
  await page.screenshot({ path: `${OUTPUT_DIR}/map-offline.png` });
  // Places are found by name offline too: the index is in the kept file.
  await page.focus('#destination-search');
  await page.keyboard.type('Harbord & St George');
  // The list shows each typed prefix's places in turn ("Harbord & S" first lists
  // streets in S); wait for the whole query's first place.
  await page.waitForFunction(() => document.querySelector('#destination-places:not([hidden]) #destination-places-0 span')
    ?.textContent === 'HARBORD ST & ST GEORGE ST');
  assert.match(await page.textContent('#destination-places-0 span'), /^HARBORD ST & ST GEORGE ST$/);
  await page.keyboard.press('Escape');
  // A request the caches cannot answer fails: the grid above came from them.
  assert.equal(await page.evaluate(() => fetch('/not-kept').then(() => 'reached', () => 'failed')), 'failed');

  await page.selectOption('#city', 'city_us_sfo');
  await page.waitForFunction(() => Number(document.body.dataset.hexes) > 0 && document.body.dataset.hexes !== '815');
  // Houston was never opened: its file was never kept, and the page says so.
  await page.selectOption('#city', 'city_us_hou');
  await page.waitForSelector('#status.error');
  assert.match(await page.textContent('#status'), /not available offline/);
  await page.context().setOffline(false);
  assert.deepEqual(session.blocked, []);
});
