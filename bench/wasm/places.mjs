// Place search speed in the npm package's wasm under node, on Toronto's full file:
// every distinct three-letter beginning of its street names (a search's third
// keystroke), the St George campus intersections as OpenStreetMap spells them, and
// each of their street names with its second letter dropped (a typo). The queries
// come from build/bench/place-check.json (`hexrisk-build place-check`).
//
//   node bench/wasm/places.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { currentArtifact } from './artifact.mjs';
import { HexRisk } from '../../pkg/dist/roads/node/hexrisk_engine.js';

const root = new URL('../../', import.meta.url);
const check = JSON.parse(readFileSync(new URL('build/bench/place-check.json', root)));
const city = check.city;

const engine = new HexRisk();
engine.addCity(currentArtifact(city));
// The first search derives streets' positions and intersections.
let t = performance.now();
engine.search({ q: 'a', city });
const firstMs = performance.now() - t;

const ROUNDS = 5;
const timed = (queries) => {
  const times = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const q of queries) {
      const start = performance.now();
      engine.search({ q, city, limit: 5 });
      times.push(performance.now() - start);
    }
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.round((times.length - 1) * q)];
  return { queries: queries.length, median_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1), n: times.length };
};
const streets = [...new Set(check.lookups.flatMap((l) => l.query.split(' & ')))];
const result = {
  node: process.version,
  city,
  first_search_ms: firstMs,
  prefix3: timed(check.prefixes),
  intersections: timed(check.lookups.map((l) => l.query)),
  typos: timed(streets.map((name) => name[0] + name.slice(2))),
};
writeFileSync(new URL('build/bench/places-wasm.json', root), JSON.stringify(result, null, 2));
const f = (x) => x.toFixed(3);
console.log(`${city}: first search (builds the gazetteer) ${firstMs.toFixed(1)} ms`);
for (const key of ['prefix3', 'intersections', 'typos']) {
  const r = result[key];
  console.log(`${key}: ${r.queries} queries × ${ROUNDS}: median ${f(r.median_ms)} ms, p95 ${f(r.p95_ms)} ms, max ${f(r.max_ms)} ms`);
}
