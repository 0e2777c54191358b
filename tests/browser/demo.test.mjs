// The demo page in headless Chromium: the wasm engine loads and answers clicks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as h3 from 'h3-js';
import { startDemoServer } from '../../scripts/serve-demo.mjs';
import { OUTPUT_DIR, openPage } from '../support/browser.mjs';

let server;
let session;

before(async () => {
  server = await startDemoServer({ port: 0 });
  session = await openPage();
  await session.page.goto(`${server.url}/`);
  await session.page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
});

after(async () => {
  await session?.browser.close();
  await server?.close();
});

test('the page loads the engine and shows the start point cell', async () => {
  const { page } = session;
  const lat = Number(await page.inputValue('#lat'));
  const lng = Number(await page.inputValue('#lng'));
  assert.equal(await page.textContent('#cell-id'), h3.latLngToCell(lat, lng, 8));
  assert.equal(await page.textContent('#ring-count'), '19');
  assert.equal(await page.locator('#map polygon').count(), 19);
  assert.match(await page.textContent('#engine-version'), /^hexrisk-engine \d+\.\d+\.\d+/);
});

test('a typed point and ring give h3-js cell and disk size', async () => {
  const { page } = session;
  await page.selectOption('#city', 'city_us_sfo');
  await page.fill('#lat', '37.7793');
  await page.fill('#lng', '-122.4193');
  await page.fill('#ring', '5');
  await page.click('#go');
  const expected = h3.latLngToCell(37.7793, -122.4193, 8);
  await page.waitForFunction((cell) => document.querySelector('#cell-id').textContent === cell, expected);
  assert.equal(await page.textContent('#ring-count'), '91');
  const drawn = await page.locator('#map polygon').evaluateAll((els) => els.map((el) => el.dataset.cell));
  assert.deepEqual(new Set(drawn), new Set(h3.gridDisk(expected, 5)));
  await page.screenshot({ path: `${OUTPUT_DIR}/demo-typed-point.png` });
});

test('clicking the map looks up the clicked point', async () => {
  const { page } = session;
  await page.selectOption('#city', 'city_ca_tor');
  await page.fill('#ring', '1');
  const box = await page.locator('#map').boundingBox();
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.6);
  await page.waitForFunction(() => document.querySelector('#ring-count').textContent === '7');
  const lat = Number(await page.inputValue('#lat'));
  const lng = Number(await page.inputValue('#lng'));
  assert.ok(lat > 43.58 && lat < 43.86 && lng > -79.64 && lng < -79.11, `${lat},${lng} is in the Toronto frame`);
  assert.equal(await page.textContent('#cell-id'), h3.latLngToCell(lat, lng, 8));
  await page.screenshot({ path: `${OUTPUT_DIR}/demo-click.png` });
});

test('invalid input shows the engine error code, not a crash', async () => {
  const { page } = session;
  await page.fill('#lat', '95');
  await page.click('#go');
  await page.waitForSelector('#status.error');
  assert.match(await page.textContent('#status'), /^INVALID_COORDINATES: latitude must be between -90 and 90/);
});

test('no console errors and no request left the machine', () => {
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.blocked, []);
});
