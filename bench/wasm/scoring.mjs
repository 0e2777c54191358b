// The map's three grid jobs in the npm package's wasm under Node, beside the h3-js
// npm package plus a JavaScript Map doing the same job, on the cases the native
// benchmark wrote (build/bench/scoring-cases.json, from `cargo bench -p
// hexrisk-engine --bench scoring`):
//   - ring of k = 41 around a point, each cell with its score (5,167 cells);
//   - scores of 5,000 given cells;
//   - the covered cells of a viewport (Toronto's bounds) with their scores.
// The JavaScript side gets every score beforehand in a Map (built outside the
// timing from the engine's own scores), so it only does the H3 work and the
// lookups; both sides produce ids plus score and colour columns, and the answers are
// checked equal before timing. Writes build/bench/scoring-wasm.json.
//
//   node bench/wasm/scoring.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import assert from 'node:assert/strict';
import * as h3 from 'h3-js';
import { currentArtifact } from './artifact.mjs';
import { HexRisk } from '../../pkg/dist/node/hexrisk_engine.js';

const root = new URL('../../', import.meta.url);
const cases = JSON.parse(readFileSync(new URL('build/bench/scoring-cases.json', root)));
const NOW = cases.now_ms;

const engine = new HexRisk();
engine.addCity(currentArtifact('city_ca_tor'));

// Every covered cell's score and colour, as a JavaScript app would hold them.
const all = engine.boxScores(cases.viewport, NOW);
const index = new Map();
const safety = new Float64Array(all.cells.length);
const colour = new Int8Array(all.cells.length);
all.cells.forEach((cell, i) => {
  index.set(cell.toString(16), i);
  safety[i] = all.safetyScores[i];
  colour[i] = all.colorIndexes[i];
});

/** Scores of text ids from the Map, in columns (NaN and -1 without data). */
function columnsOf(ids) {
  const safetyScores = new Float64Array(ids.length);
  const colorIndexes = new Int8Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const at = index.get(ids[i]);
    safetyScores[i] = at === undefined ? NaN : safety[at];
    colorIndexes[i] = at === undefined ? -1 : colour[at];
  }
  return { ids, safetyScores, colorIndexes };
}

const { lat, lng, ring } = cases.lookup;
const { west, south, east, north } = cases.viewport;
const jsJobs = {
  ring41: () => columnsOf(h3.gridDisk(h3.latLngToCell(lat, lng, 8), ring)),
  score5000: () => {
    for (const id of cases.score_ids) {
      if (!h3.isValidCell(id) || h3.getResolution(id) !== 8) throw new Error(`bad id ${id}`);
    }
    return columnsOf(cases.score_ids);
  },
  viewport: () => {
    const box = [[south, west], [north, west], [north, east], [south, east]];
    return columnsOf(h3.polygonToCells(box, 8).filter((id) => index.has(id)));
  },
};
const scoreIds = BigUint64Array.from(cases.score_ids, (id) => BigInt(`0x${id}`));
const columnJobs = {
  ring41: (options) => engine.ringScores({ ...cases.lookup, ...options }, NOW),
  score5000: (options) => engine.cellScores(scoreIds, options, NOW),
  viewport: (options) => engine.boxScores({ ...cases.viewport, ...options }, NOW),
};
const objectJobs = {
  ring41: () => engine.lookup(cases.lookup, NOW),
  score5000: () => engine.scoreHexes({ hexIds: cases.score_ids }, NOW),
  viewport: () => engine.hexesInBox(cases.viewport, NOW),
};

// Same answers before any timing (the viewport's order differs: compare as sets).
for (const job of Object.keys(jsJobs)) {
  const js = jsJobs[job]();
  const wasm = columnJobs[job]();
  const wasmIds = Array.from(wasm.cells, (c) => c.toString(16));
  const pairs = (ids, s, c) => new Map(ids.map((id, i) => [id, `${s[i]}/${c[i]}`]));
  if (job === 'viewport') {
    assert.deepEqual(pairs(wasmIds, wasm.safetyScores, wasm.colorIndexes),
      pairs(js.ids, js.safetyScores, js.colorIndexes), job);
  } else {
    assert.deepEqual(wasmIds, js.ids, job);
    assert.deepEqual(wasm.safetyScores, js.safetyScores, job);
    assert.deepEqual(wasm.colorIndexes, js.colorIndexes, job);
  }
}
assert.equal(columnJobs.ring41().cells.length, cases.expect.ring);

/** Median and 90th percentile in ms: at least 200 calls and 1 s, after a warm-up. */
function time(call) {
  for (let i = 0; i < 20; i++) call(i);
  const ms = [];
  const started = performance.now();
  for (let i = 0; ms.length < 200 || performance.now() - started < 1000; i++) {
    const t = performance.now();
    call(i);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const at = (q) => ms[Math.round((ms.length - 1) * q)];
  return { median_ms: at(0.5), p90_ms: at(0.9), n: ms.length };
}

// "changed": the intent alternates, so every call recomputes the city's scores.
const intents = [{ intent: 'overall' }, { intent: 'night' }];
const result = { node: process.version, h3_js: readVersion(), jobs: {} };
for (const job of Object.keys(jsJobs)) {
  result.jobs[job] = {
    h3_js_map: time(() => jsJobs[job]()),
    wasm_columns_kept: time(() => columnJobs[job]()),
    wasm_columns_changed: time((i) => columnJobs[job](intents[i % 2])),
    wasm_objects: time(() => objectJobs[job]()),
  };
}
// The map's recolour at a chosen hour: the viewport with the hour of the week
// alternating between Friday 23:00 and Monday 03:00, so every call rescores the city
// in a time band (the two hours colour the city differently: checked first).
const hours = [{ time: '119' }, { time: '3' }];
assert.notDeepEqual(columnJobs.viewport(hours[0]).colorIndexes, columnJobs.viewport(hours[1]).colorIndexes);
result.time_of_day = { viewport_hour_changed: time((i) => columnJobs.viewport(hours[i % 2])) };
writeFileSync(new URL('build/bench/scoring-wasm.json', root), JSON.stringify(result, null, 2));

function readVersion() {
  return JSON.parse(readFileSync(new URL('node_modules/h3-js/package.json', root))).version;
}

const f = (x) => x.toFixed(3);
console.log(`Toronto, Node ${process.version}, h3-js ${result.h3_js}: median ms (ratio = h3-js + Map / wasm)`);
console.log('| job | h3-js + Map | wasm columns, same options | ratio | wasm columns, options changed | ratio | wasm objects |');
console.log('|---|---|---|---|---|---|---|');
for (const [job, r] of Object.entries(result.jobs)) {
  const base = r.h3_js_map.median_ms;
  console.log(`| ${job} | ${f(base)} | ${f(r.wasm_columns_kept.median_ms)} | ${(base / r.wasm_columns_kept.median_ms).toFixed(1)}x | ` +
    `${f(r.wasm_columns_changed.median_ms)} | ${(base / r.wasm_columns_changed.median_ms).toFixed(1)}x | ${f(r.wasm_objects.median_ms)} |`);
}
