// Vector tiles over HTTP and in a map, under `wrangler dev` (workerd) on loopback:
//
// - Unloaded, one request at a time, taking turns, over a run of distinct
//   downtown z14 tiles that hold cells, each made (first asked), then POST
//   /hexes/score for the same cells (the tile's hexes, read back with
//   @mapbox/vector-tile), then the tile again (from the Workers cache); and, apart, a
//   tile and a score call for forecast weeks new to the isolate (which score the whole
//   city first). Aim: a tile within 2 ms of the score call.
// - The MapLibre GL JS example (web-demo/examples/maplibre.html) online, full window
//   (1024×768), Toronto at zoom 13, in headless Chromium, a fresh browser context each
//   run (nothing cached): milliseconds to the map's first `idle` with the layer drawn,
//   from the map's first request to the API (the style) and from navigation. Aim: at
//   most 700 ms from the first request.
//
// Writes build/bench/tiles-http.json for bench/report.mjs.
//
//   node bench/browser/tiles.mjs            (part of `make bench`)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { openPage } from '../../tests/support/browser.mjs';
import { startDemoProcess } from './demo-process.mjs';
import { keyStore, startWorker } from '../../tests/support/wrangler.mjs';
import { HexRisk } from '../../pkg/dist/node/hexrisk_engine.js';

const CLOCK = '2022-01-03';
const TORONTO = 'city_ca_tor';
const TILE = { z: 14, x: 4579, y: 5979 }; // downtown, as engine/benches/tiles.rs
const ROUNDS = Number(process.env.TILE_BENCH_ROUNDS ?? 40);
const RUNS = Number(process.env.MAP_BENCH_RUNS ?? 5);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const p90 = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)]; };

const demo = await startDemoProcess();
const { state, keys: { key } } = await keyStore('bench-tiles', {
  key: { kind: 'live', tier: 'enterprise', dailyLimit: 1_000_000_000, origins: [demo.url] },
});
const worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: CLOCK } });

/** Toronto's forecast weeks, from the package with its grid file. */
function cityRange() {
  const artifacts = new URL('../../build/artifacts/', import.meta.url);
  const entry = JSON.parse(readFileSync(new URL('manifest.json', artifacts))).cities.find((c) => c.code === TORONTO);
  const engine = new HexRisk();
  engine.addCity(readFileSync(new URL(entry.grid.file, artifacts)));
  return engine.predictionRange(TORONTO, Date.parse(`${CLOCK}T12:00:00Z`));
}

/** Milliseconds of one request, its body read; throws unless the status is `status`. */
async function timed(url, init, status = 200) {
  const start = process.hrtime.bigint();
  const res = await fetch(url, init);
  const body = await res.arrayBuffer();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (res.status !== status) throw new Error(`${url} answered ${res.status}`);
  return { ms, body };
}

try {
  const headers = { 'x-api-key': key };
  const tileUrl = ({ z, x, y }, query = '') => `${worker.url}/tiles/${TORONTO}/${z}/${x}/${y}.mvt${query}`;
  // Downtown's z14 tiles that hold cells, each with its cells (read back from the
  // Worker's bytes), in a fixed order; the first is engine/benches/tiles.rs's.
  const tiles = [];
  for (let dx = 0; dx < 8 && tiles.length < ROUNDS + 5; dx += 1) {
    for (let dy = 0; dy < 8 && tiles.length < ROUNDS + 5; dy += 1) {
      const tile = { z: 14, x: TILE.x + (dx % 2 ? -(dx + 1) / 2 : dx / 2), y: TILE.y + (dy % 2 ? -(dy + 1) / 2 : dy / 2) };
      const res = await fetch(tileUrl(tile, '?intent=night'), { headers });
      if (res.status !== 200) continue;
      const hexes = new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer()))).layers.hexes;
      tiles.push({ ...tile, ids: Array.from({ length: hexes.length }, (_, i) => hexes.feature(i).properties.h3) });
    }
  }
  if (tiles.length < ROUNDS + 5) throw new Error(`only ${tiles.length} tiles hold cells`);
  const score = (ids, modifiers) => timed(`${worker.url}/hexes/score`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ hexIds: ids, ...(modifiers ? { modifiers } : {}) }),
  });
  // Forecast weeks from the first (the default week is the last): each asked once.
  const range = cityRange();
  const weeks = [];
  const needed = 2 * (ROUNDS + 5);
  for (let day = new Date(`${range.start}T00:00:00Z`); weeks.length < Math.min(needed, range.weeksAvailable - 1); day.setUTCDate(day.getUTCDate() + 7)) {
    weeks.push(day.toISOString().slice(0, 10));
  }
  if (weeks.length < needed) throw new Error(`${TORONTO} has ${range.weeksAvailable} forecast weeks; the benchmark needs ${needed + 1}`);
  // Round i: tile i made (the default week, first asked), the score call for its
  // cells, the same tile again (from the Workers cache); then the first tile made
  // for week 2i and the score call for week 2i + 1, each week new to the isolate.
  const calls = {
    made: (i) => timed(tileUrl(tiles[i]), { headers }),
    score: (i) => score(tiles[i].ids),
    cached: (i) => timed(tileUrl(tiles[i]), { headers }),
    madeNewWeek: (i) => timed(tileUrl(tiles[0], `?week=${weeks[2 * i]}`), { headers }),
    scoreNewWeek: (i) => score(tiles[0].ids, { week: weeks[2 * i + 1] }),
  };
  for (let i = ROUNDS; i < ROUNDS + 5; i += 1) for (const call of Object.values(calls)) await call(i); // warm-up
  const times = Object.fromEntries(Object.keys(calls).map((name) => [name, []]));
  for (let i = 0; i < ROUNDS; i += 1) {
    for (const [name, call] of Object.entries(calls)) times[name].push((await call(i)).ms);
  }
  const http = Object.fromEntries(Object.entries(times).map(([name, xs]) => [name, { n: xs.length, median_ms: median(xs), p90_ms: p90(xs) }]));
  const cells = median(tiles.slice(0, ROUNDS).map((t) => t.ids.length));
  const { body } = await timed(tileUrl(tiles[0]), { headers });

  const drawn = [];
  for (let run = 0; run < RUNS; run += 1) {
    const { browser, page } = await openPage({ intercept: false });
    try {
      const query = new URLSearchParams({ api: worker.url, key, clock: CLOCK });
      await page.goto(`${demo.url}/examples/maplibre.html?${query}`);
      await page.waitForFunction(() => document.body.dataset.state !== 'loading', null, { timeout: 60_000 });
      const state = await page.evaluate(() => document.body.dataset.state);
      if (state !== 'ready') throw new Error(`the MapLibre example is ${state}: ${await page.textContent('#status')}`);
      drawn.push(await page.evaluate(() => {
        const ready = performance.getEntriesByName('example:ready')[0].startTime;
        const first = performance.getEntriesByType('resource').find((r) => r.name.includes('/tiles/')).startTime;
        return { since_navigation_ms: ready, since_first_request_ms: ready - first };
      }));
    } finally {
      await browser.close();
    }
  }
  const probe = await openPage({ intercept: false });
  const chromium = `Chromium ${probe.browser.version()}`;
  await probe.browser.close();
  const out = new URL('../../build/bench/', import.meta.url);
  mkdirSync(out, { recursive: true });
  const result = {
    date: new Date().toISOString().slice(0, 10), tile: TILE, tiles: ROUNDS, cells_median: cells, tile_bytes: body.byteLength,
    http,
    maplibre: {
      runs: RUNS,
      drawn: drawn,
      since_first_request_median_ms: median(drawn.map((d) => d.since_first_request_ms)),
      since_navigation_median_ms: median(drawn.map((d) => d.since_navigation_ms)),
    },
    chromium,
  };
  writeFileSync(new URL('tiles-http.json', out), JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result, null, 2));
} finally {
  await worker.stop();
  await demo.close();
}
