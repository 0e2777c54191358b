// The whole `safest` request through the npm package, this tree's build against an
// earlier commit's (issue 43's yardstick: f7a14f3), in one Node process: the same
// random Toronto pairs, each pair asked of both in turn (the order alternating), the
// answer converted to JavaScript as a caller gets it. `make bench-route-ab` builds the
// earlier commit in a worktree and runs this.
//
//   node bench/wasm/route-ab.mjs OTHER_TREE [PAIRS]
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { currentArtifact } from './artifact.mjs';
import { HexRisk } from '../../pkg/dist/roads/node/hexrisk_engine.js';

const [otherTree, pairCount = '200'] = process.argv.slice(2);
if (!otherTree) throw new Error('usage: node bench/wasm/route-ab.mjs OTHER_TREE [PAIRS]');
const other = pathToFileURL(`${otherTree.replace(/\/$/, '')}/`);
const { HexRisk: OtherHexRisk } = await import(new URL('pkg/dist/node/hexrisk_engine.js', other));
const NOW = Date.UTC(2022, 0, 3, 12);
const ROUNDS = 5;

/** A small seeded generator (mulberry32), so every run asks the same pairs. */
function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const engines = {
  this: new HexRisk(),
  other: new OtherHexRisk(),
};
const loadMs = {};
for (const [name, engine] of Object.entries(engines)) {
  const bytes = currentArtifact('city_ca_tor', name === 'this' ? undefined : new URL('build/artifacts/', other));
  const start = performance.now();
  engine.addCity(bytes);
  loadMs[name] = performance.now() - start;
}

// Points anywhere in central Toronto; a pair both builds route is kept.
const next = random(20261127);
const point = () => ({ lat: 43.63 + next() * 0.09, lng: -79.48 + next() * 0.15 });
const pairs = [];
for (let tries = 0; pairs.length < Number(pairCount) && tries < 20 * Number(pairCount); tries += 1) {
  const request = { origin: point(), destination: point(), method: 'safest' };
  try {
    for (const engine of Object.values(engines)) engine.route(request, NOW);
    pairs.push(request);
  } catch {
    // Off the network or out of coverage for one of them: not a pair both can time.
  }
}

const times = { this: [], other: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  pairs.forEach((request, i) => {
    const order = (i + round) % 2 === 0 ? ['this', 'other'] : ['other', 'this'];
    for (const name of order) {
      const start = performance.now();
      engines[name].route(request, NOW);
      times[name].push(performance.now() - start);
    }
  });
}
const summary = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const at = (q) => sorted[Math.round((sorted.length - 1) * q)];
  return { median_ms: at(0.5), p90_ms: at(0.9), max_ms: at(1) };
};
/** A package's wasm gzipped at level 9, as the pack test measures it. */
const gzipped = (base, file = 'pkg/dist/node/hexrisk_engine_bg.wasm') => gzipSync(readFileSync(new URL(file, base)), { level: 9 }).length;
const thisTree = new URL('../../', import.meta.url);
const result = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  other_tree: otherTree,
  pairs: pairs.length,
  rounds: ROUNDS,
  // This tree routes with the roads engine (`hexrisk/roads`); its default entry, the grid
  // engine, is what a map loads first.
  this: {
    ...summary(times.this),
    load_ms: loadMs.this,
    wasm_gzip_bytes: gzipped(thisTree, 'pkg/dist/roads/node/hexrisk_engine_bg.wasm'),
    default_entry_wasm_gzip_bytes: gzipped(thisTree),
  },
  other: { ...summary(times.other), load_ms: loadMs.other, wasm_gzip_bytes: gzipped(other) },
};
result.ratio_median = result.this.median_ms / result.other.median_ms;
writeFileSync(new URL('../../build/bench/route-ab.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
