// The npm package's column operations (ringScores, cellScores, boxScores) give the
// same cells, scores and colours as the object operations (lookup, scoreHexes,
// hexesInBox) and as h3-js's own grid, stay right when the options change between
// calls (the package keeps the last options' scores), and refuse bad input with the
// API's error codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as h3 from 'h3-js';
import { HexRisk } from '../../pkg/dist/node/hexrisk_engine.js';

const root = new URL('../../', import.meta.url);
const artifactsDir = new URL('build/artifacts/', root);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', artifactsDir)));
const NOW = Date.UTC(2022, 0, 3, 12);

const engine = new HexRisk();
for (const city of manifest.cities) engine.addCity(readFileSync(new URL(city.file, artifactsDir)));

const text = (cells) => Array.from(cells, (c) => c.toString(16));
/** Column answers as rows in the object operations' shape. */
const rows = (scored) => text(scored.cells).map((h3Id, i) => ({
  h3: h3Id,
  safetyScore: Number.isNaN(scored.safetyScores[i]) ? null : scored.safetyScores[i],
  colorIndex: scored.colorIndexes[i],
}));

test('ringScores is lookup in columns, in h3-js gridDisk order', () => {
  for (const [lat, lng] of [[43.6532, -79.3832], [37.7749, -122.4194], [29.7604, -95.3698]]) {
    for (const ring of [0, 1, 7, 41]) {
      const scored = engine.ringScores({ lat, lng, ring }, NOW);
      assert.ok(scored.cells instanceof BigUint64Array);
      assert.ok(scored.safetyScores instanceof Float64Array);
      assert.ok(scored.colorIndexes instanceof Int8Array);
      const objects = engine.lookup({ lat, lng, ring }, NOW);
      assert.deepEqual(rows(scored), objects.cells, `${lat},${lng} ring ${ring}`);
      assert.deepEqual(text(scored.cells), h3.gridDisk(h3.latLngToCell(lat, lng, 8), ring));
    }
  }
});

test('cellScores is scoreHexes in columns, for 64-bit ids', () => {
  const ids = engine.lookup({ lat: 43.6532, lng: -79.3832, ring: 30 }, NOW).cells.map((c) => c.h3);
  const objects = engine.scoreHexes({ hexIds: ids, intent: 'walking' }, NOW);
  const scored = engine.cellScores(BigUint64Array.from(ids, (id) => BigInt(`0x${id}`)), { intent: 'walking' }, NOW);
  assert.deepEqual(rows(scored), objects);
  assert.ok(objects.some((r) => r.safetyScore === null) && objects.some((r) => r.safetyScore !== null));
  const empty = engine.cellScores(new BigUint64Array(0), undefined, NOW);
  assert.equal(empty.cells.length, 0);
});

test('boxScores lists what hexesInBox lists, and what h3-js polygonToCells finds covered', () => {
  const box = { west: -79.45, south: 43.62, east: -79.33, north: 43.70 };
  const scored = engine.boxScores({ ...box, intent: 'night' }, NOW);
  const slim = engine.hexesInBox({ ...box, intent: 'night' }, NOW);
  assert.ok(scored.cells.length > 50);
  assert.deepEqual(text(scored.cells), slim.map((h) => h.h));
  assert.deepEqual(Array.from(scored.colorIndexes), slim.map((h) => h.ci));
  slim.forEach((h, i) => assert.equal(scored.safetyScores[i], h.ss.night));
  const covered = new Set(text(scored.cells));
  const polygon = [[box.south, box.west], [box.north, box.west], [box.north, box.east], [box.south, box.east]];
  const fromH3js = h3.polygonToCells(polygon, 8).filter((id) => engine.scoreHexes({ hexIds: [id] }, NOW)[0].colorIndex >= 0);
  assert.deepEqual(new Set(fromH3js), covered);
});

test('changing options between calls gives the new options\' scores', () => {
  const request = { lat: 43.6532, lng: -79.3832, ring: 12 };
  const options = [{}, { intent: 'night' }, { intent: 'night' }, { activeCodes: ['THEFT_BURGLARY'] },
    { modifiers: { week: '2022-02-07' } }, {}, { toggles: { OTHER: false } }];
  for (const o of options) {
    assert.deepEqual(rows(engine.ringScores({ ...request, ...o }, NOW)), engine.lookup({ ...request, ...o }, NOW).cells, JSON.stringify(o));
  }
  // Another clock moves the default week.
  const later = Date.UTC(2022, 2, 1, 12);
  assert.deepEqual(rows(engine.ringScores(request, later)), engine.lookup(request, later).cells);
  assert.notDeepEqual(rows(engine.ringScores(request, later)), rows(engine.ringScores(request, NOW)));
  // Replacing a city forgets the kept scores.
  engine.addCity(readFileSync(new URL(manifest.cities[0].file, artifactsDir)));
  assert.deepEqual(rows(engine.ringScores(request, NOW)), engine.lookup(request, NOW).cells);
});

test('bad input throws the API errors', () => {
  const code = (f) => { try { f(); } catch (e) { assert.ok(e instanceof Error); return [e.code, e.details]; } return null; };
  const [c1, d1] = code(() => engine.ringScores({ lat: 43.6, lng: -79.4, ring: 42 }, NOW));
  assert.equal(c1, 'INVALID_REQUEST');
  assert.equal(d1.field, 'ring');
  assert.equal(code(() => engine.ringScores({ lat: 91, lng: 0 }, NOW))[0], 'INVALID_COORDINATES');
  assert.equal(code(() => engine.ringScores({ lat: 43.6, lng: -79.4, intent: 'nonsense' }, NOW))[0], 'INVALID_REQUEST');
  const good = BigInt('0x882b9bc46dfffff');
  const res9 = BigInt(`0x${h3.cellToChildren('882b9bc46dfffff', 9)[0]}`);
  for (const [bad, index] of [[[good, 0n], 1], [[good, good, res9], 2], [[2n ** 64n - 1n], 0]]) {
    const [c, d] = code(() => engine.cellScores(BigUint64Array.from(bad), undefined, NOW));
    assert.equal(c, 'INVALID_REQUEST');
    assert.equal(d.index, index);
    assert.equal(d.field, 'cells');
  }
  assert.equal(code(() => engine.cellScores(new BigUint64Array([good]), { intent: 7 }, NOW))[0], 'INVALID_REQUEST');
  assert.equal(code(() => engine.boxScores({ west: 0, south: 0, east: 3, north: 1 }, NOW))[0], 'INVALID_REQUEST');
  assert.equal(code(() => engine.boxScores({ west: 1, south: 0, east: 0, north: 1 }, NOW))[0], 'INVALID_REQUEST');
});
