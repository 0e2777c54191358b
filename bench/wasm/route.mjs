// Routing speed of the npm package's wasm under node, on the same Toronto
// origin-destination pairs the native benchmark timed (build/bench/route-pairs.json,
// written by `cargo bench -p hexrisk-builder --bench routing`), printed beside the
// native figures (build/bench/routing-native.json) with the ratio.
//
//   node bench/wasm/route.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { currentArtifact } from './artifact.mjs';
import { HexRisk } from '../../pkg/dist/roads/node/hexrisk_engine.js';

const root = new URL('../../', import.meta.url);
const pairs = JSON.parse(readFileSync(new URL('build/bench/route-pairs.json', root)));
const native = JSON.parse(readFileSync(new URL('build/bench/routing-native.json', root)));
// The native benchmark's clock: 2022-01-03 12:00 UTC.
const NOW = Date.UTC(2022, 0, 3, 12);

const engine = new HexRisk();
let t = performance.now();
engine.addCity(currentArtifact('city_ca_tor'));
const loadMs = performance.now() - t;
// The first route builds the network index (segment tree, landmarks and hierarchy)
// and customises the hierarchy for its cost model.
t = performance.now();
engine.route(pairs[0], NOW);
const firstMs = performance.now() - t;

const timed = (call) => {
  const times = pairs.map((request) => {
    const start = performance.now();
    call(request);
    return performance.now() - start;
  });
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.round((times.length - 1) * q)];
  return { median_ms: at(0.5), p90_ms: at(0.9), max_ms: at(1), n: times.length };
};
const wasm = timed((request) => engine.route(request, NOW));
// The same pairs as a trade-off set, and a 15-minute walk from each origin.
const tradeoff = timed((request) => engine.route({ ...request, method: 'tradeoff' }, NOW));
const reach = timed((request) => engine.reach({ origin: request.origin, minutes: 15, mode: 'walking' }, NOW));
const result = {
  node: process.version, load_ms: loadMs, first_route_ms: firstMs, route_request: wasm,
  tradeoff_request: tradeoff, reach_walk_15_min: reach,
};
writeFileSync(new URL('build/bench/routing-wasm.json', root), JSON.stringify(result, null, 2));

const f = (x) => x.toFixed(2);
console.log(`Toronto, ${pairs.length} pairs 2-15 km, method safest, whole request (snap, search, detour, corridor, metrics)`);
console.log('| | median ms | p90 ms | max ms |');
console.log('|---|---|---|---|');
const nativeBackToBack = native.route_request_back_to_back ?? native.route_request;
console.log(`| native, engine request, back to back | ${f(nativeBackToBack.median_ms)} | ${f(nativeBackToBack.p90_ms)} | ${f(nativeBackToBack.max_ms)} |`);
console.log(`| wasm under node ${process.version}, engine request | ${f(wasm.median_ms)} | ${f(wasm.p90_ms)} | ${f(wasm.max_ms)} |`);
console.log(`| native, A* search only | ${f(native.astar_search.median_ms)} | ${f(native.astar_search.p90_ms)} | ${f(native.astar_search.max_ms)} |`);
console.log(`| native, petgraph Dijkstra (reference) | ${f(native.petgraph_dijkstra.median_ms)} | ${f(native.petgraph_dijkstra.p90_ms)} | ${f(native.petgraph_dijkstra.max_ms)} |`);
console.log(`| wasm, whole tradeoff request | ${f(tradeoff.median_ms)} | ${f(tradeoff.p90_ms)} | ${f(tradeoff.max_ms)} |`);
console.log(`| wasm, 15-minute walk (reach) | ${f(reach.median_ms)} | ${f(reach.p90_ms)} | ${f(reach.max_ms)} |`);
console.log(`wasm / native median: ${(wasm.median_ms / nativeBackToBack.median_ms).toFixed(2)}x; ` +
  `petgraph / A* search median: ${(native.petgraph_dijkstra.median_ms / native.astar_search.median_ms).toFixed(2)}x`);
console.log(`artifact load ${f(loadMs)} ms; first route (builds the index) ${f(firstMs)} ms; native index ${f(native.index_build_ms)} ms`);
