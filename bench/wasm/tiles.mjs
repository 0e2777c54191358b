// Vector tiles in the npm package's wasm under Node: the tiles the native benchmark
// timed (build/bench/tiles-native.json, from `cargo bench -p hexrisk-engine --bench
// tiles`), each asked again with the same options as a map asks tile after tile,
// checked byte for byte against the native sizes first; with each tile's gzipped
// size (zlib, level 6). Writes build/bench/tiles-wasm.json.
//
//   node bench/wasm/tiles.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import assert from 'node:assert/strict';
import { currentArtifact } from './artifact.mjs';
import { HexRisk } from '../../pkg/dist/node/hexrisk_engine.js';

const root = new URL('../../', import.meta.url);
const native = JSON.parse(readFileSync(new URL('build/bench/tiles-native.json', root)));

const engine = new HexRisk();
engine.addCity(currentArtifact('city_ca_tor'));

function time(call) {
  for (let i = 0; i < 5; i++) call();
  const ms = [];
  const started = performance.now();
  while (ms.length < 100 || performance.now() - started < 500) {
    const t = performance.now();
    call();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const at = (q) => ms[Math.round((ms.length - 1) * q)];
  return { median_ms: at(0.5), p90_ms: at(0.9), n: ms.length };
}

const tiles = native.tiles.map(({ z, x, y, bytes }) => {
  const request = { city: 'city_ca_tor', z, x, y };
  const tile = engine.tile(request, native.now_ms);
  assert.equal(tile.length, bytes, `${z}/${x}/${y}: the native benchmark's tile`);
  return { z, x, y, bytes: tile.length, gzip_bytes: gzipSync(tile).length, kept: time(() => engine.tile(request, native.now_ms)) };
});
writeFileSync(new URL('build/bench/tiles-wasm.json', root), `${JSON.stringify({ tiles }, null, 2)}\n`);
console.log(JSON.stringify(tiles, null, 2));
