// Accessibility of the map app, checked by axe-core (WCAG 2 A and AA rules: names
// and labels of every control, colour contrast, landmarks, list and table markup)
// in each state a user reaches: the grid, a route with its trade-off slider and
// explanation, safe reach, a cell's breakdown, place search, the phone layout.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startDemoServer } from '../../scripts/serve-demo.mjs';
import { openPage } from '../support/browser.mjs';
import { ready, routeBetween } from '../support/map-page.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let server;
let session;

before(async () => {
  server = await startDemoServer({ port: 0 });
  session = await openPage();
  await session.page.goto(`${server.url}/?clock=2022-01-03&sw=0`);
  await ready(session.page);
});

after(async () => {
  await session?.browser.close();
  await server?.close();
});

/** WCAG 2 A/AA violations on the page, as `rule: target, …` lines. */
async function violations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(() => window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }));
  return result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

test('the map with its grid and legend has no WCAG 2 A/AA violations', async () => {
  assert.deepEqual(await violations(session.page), []);
});

test('a route with the trade-off slider, the route list and why it was chosen has none', async () => {
  const { page } = session;
  await routeBetween(page, { lat: 43.6453, lng: -79.3806 }, { lat: 43.6645, lng: -79.4206 });
  await page.waitForSelector('#why:not([hidden])');
  assert.deepEqual(await violations(page), []);
});

test('safe reach and a cell breakdown have none', async () => {
  const { page } = session;
  await page.evaluate(() => window.hexrisk.reach({ lat: 43.6532, lng: -79.3832 }));
  await page.waitForSelector('#reach-result:not([hidden])');
  const map = await page.locator('#map').boundingBox();
  await page.locator('#map').click({ position: { x: map.width / 2, y: map.height / 2 } });
  await page.waitForSelector('#breakdown:not([hidden])');
  assert.deepEqual(await violations(page), []);
});

test('place search with its list of places open, and the phone layout with its panel open and folded, have none', async () => {
  const { page } = session;
  await page.focus('#origin-search');
  await page.keyboard.type('Queen and Spadina');
  await page.waitForSelector('#origin-places:not([hidden]) [role=option]');
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await violations(page), []);
  await page.keyboard.press('Escape');
  await page.setViewportSize({ width: 390, height: 844 });
  assert.deepEqual(await violations(page), [], 'folded');
  await page.click('#controls-toggle');
  await page.waitForSelector('#controls', { state: 'visible' });
  assert.deepEqual(await violations(page), [], 'open');
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('the legend does not rely on colour alone: each band shows its number, and axe checks their contrast', async () => {
  const { page } = session;
  const swatches = await page.locator('#legend li').allTextContents();
  assert.deepEqual(swatches, Array.from({ length: 17 }, (_, i) => String(i + 1)));
  assert.deepEqual(session.consoleErrors, []);
});
