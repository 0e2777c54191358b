// The example pages of web-demo/examples/ in Chromium, online (the Worker's tiles
// under `wrangler dev`, with a key for the demo's origin) and offline (the package
// in the page): MapLibre GL JS (vector tiles, and the hexrisk:// protocol), deck.gl
// (MVTLayer, and H3HexagonLayer of the package's cells), OpenLayers (vector tiles)
// and Leaflet (GeoJSON of /hexes/all, and of the package). Each page must draw the risk layer: the pixels at the view's least safe
// cell and at its safest differ as their scores do (red against green), and neither
// is the bare background; and each page is clean of WCAG 2 A/AA violations (axe).
// Each test has a browser context of its own; TESTS_AT_ONCE of them run at a time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PNG } from 'pngjs';
import { startDemoServer } from '../../scripts/serve-demo.mjs';
import { launchBrowser, newSession } from '../support/browser.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';
import { HexRisk } from '../../pkg/dist/node/hexrisk_engine.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const CLOCK = '2022-01-03';
const NOW = Date.parse(`${CLOCK}T12:00:00Z`);
const PAGES = ['maplibre', 'deckgl', 'openlayers', 'leaflet'];
// The view's centre (example.js's VIEW) and a box holding all it shows.
const VIEW = { lng: -79.3832, lat: 43.6532 };
const BOX = { west: VIEW.lng - 0.05, south: VIEW.lat - 0.03, east: VIEW.lng + 0.05, north: VIEW.lat + 0.03 };
/** How many tests run at once: most of a test waits on its page and the Worker, but the
 * whole js-test run keeps both cores busy, and the map app failed once at three (demo). */
const TESTS_AT_ONCE = 2;

const artifacts = new URL('../../build/artifacts/', import.meta.url);
const engine = new HexRisk();
for (const city of JSON.parse(readFileSync(new URL('manifest.json', artifacts))).cities) {
  engine.addCity(readFileSync(new URL(city.file, artifacts)));
}
const cells = engine.hexesInBox(BOX, NOW).filter((row) => row.ci >= 0);

let demo;
let worker;
let key;
let browser;

before(async () => {
  // The browser starts while the key store and the Worker are made.
  const launching = launchBrowser();
  try {
    demo = await startDemoServer({ port: 0 });
    const { state, keys } = await keyStore('examples', { live: { kind: 'live', origins: [demo.url] } });
    key = keys.live;
    worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: CLOCK } });
  } finally {
    browser = await launching;
  }
});

after(async () => {
  await browser?.close();
  await worker?.stop();
  await demo?.close();
});

/** The page, loaded until it says it is ready (or failed). */
async function open(page, online) {
  const session = await newSession(browser);
  const query = new URLSearchParams({ clock: CLOCK, ...(online ? { api: worker.url, key } : {}) });
  await session.page.goto(`${demo.url}/examples/${page}.html?${query}`);
  await session.page.waitForFunction(() => document.body.dataset.state !== 'loading', null, { timeout: 30_000 })
    .catch((error) => {
      throw new Error(`${page} did not load: ${error.message}\n${session.consoleErrors.join('\n')}`);
    });
  return session;
}

/** The mean colour of the 3×3 pixels around (x, y) of a PNG screenshot. */
function colourAt(png, [x, y]) {
  const sum = [0, 0, 0];
  for (let dy = -1; dy <= 1; dy += 1) {
    for (let dx = -1; dx <= 1; dx += 1) {
      const i = ((Math.round(y) + dy) * png.width + Math.round(x) + dx) * 4;
      for (let c = 0; c < 3; c += 1) sum[c] += png.data[i + c];
    }
  }
  return sum.map((s) => s / 9);
}

/** The least safe and the safest cell whose centres the page draws well inside the map. */
async function extremes(page) {
  const placed = [];
  // Every cell projected in one call to the page, rather than a round trip per cell.
  const points = await page.evaluate((centres) => centres.map(([lng, lat]) => window.example.project(lng, lat)), cells.map((cell) => [cell.ln, cell.la]));
  cells.forEach((cell, i) => {
    const [x, y] = points[i];
    // Clear of the edges, the zoom buttons and the status line.
    if (x > 60 && x < 964 && y > 60 && y < 700) placed.push({ cell, at: [x, y] });
  });
  placed.sort((a, b) => a.cell.ci - b.cell.ci);
  return { hot: placed[0], quiet: placed.at(-1) };
}

describe('the example pages', { concurrency: TESTS_AT_ONCE }, () => {
  for (const name of PAGES) {
    for (const online of [true, false]) {
      test(`${name}, ${online ? 'online' : 'offline'}: the risk layer is drawn in its colours`, async () => {
        const { page, context, consoleErrors, blocked } = await open(name, online);
        try {
          assert.equal(await page.evaluate(() => document.body.dataset.state), 'ready', await page.textContent('#status'));
          const { hot, quiet } = await extremes(page);
          assert.ok(quiet.cell.ci - hot.cell.ci >= 8, `bands ${hot.cell.ci} and ${quiet.cell.ci} too close to tell apart`);
          const png = PNG.sync.read(await page.screenshot());
          const [hotColour, quietColour] = [colourAt(png, hot.at), colourAt(png, quiet.at)];
          const redness = ([r, g]) => r - g;
          assert.ok(
            redness(hotColour) - redness(quietColour) > 60,
            `band ${hot.cell.ci} at ${hot.at} is ${hotColour}, band ${quiet.cell.ci} at ${quiet.at} is ${quietColour}`,
          );
          const background = [0xf2, 0xef, 0xe9];
          for (const colour of [hotColour, quietColour]) {
            assert.ok(colour.some((c, i) => Math.abs(c - background[i]) > 20), `${colour} is the background`);
          }
          assert.deepEqual(consoleErrors, []);
          assert.deepEqual(blocked, []);
        } finally {
          await context.close();
        }
      });
    }
    test(`${name}: no WCAG 2 A/AA violations`, async () => {
      const { page, context } = await open(name, true);
      try {
        await page.addScriptTag({ path: AXE });
        const result = await page.evaluate(() => window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }));
        assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
      } finally {
        await context.close();
      }
    });
  }
});
