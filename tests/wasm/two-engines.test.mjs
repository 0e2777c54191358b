// The package's two engines: the grid engine (its default entry, `hexrisk`) and the
// roads engine (`hexrisk/roads`, loaded on demand) are one engine built twice. The grid
// engine has every operation but the road ones, and answers each, errors included,
// exactly as the roads engine does, from a city's full file and from its grid file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as grid from '../../pkg/dist/node/hexrisk_engine.js';
import * as roads from '../../pkg/dist/roads/node/hexrisk_engine.js';
import { tileOf } from '../support/tiles.mjs';

const artifactsDir = new URL('../../build/artifacts/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', artifactsDir)));
const read = (file) => readFileSync(new URL(file, artifactsDir));
/** The operations only the roads engine has. */
const ROAD_OPERATIONS = ['route', 'reach', 'evaluate', 'evaluateHexPath', 'search', 'reverse', 'streetsInBox', 'streetsInBoxGeoJSON', 'streets'];

/** A call's answer or its thrown error's code, message and details. */
function outcome(call) {
  try {
    return { answer: call() };
  } catch (err) {
    return { error: { code: err.code, message: err.message, details: err.details } };
  }
}

test('the grid engine has every operation but the road ones', () => {
  const own = (engine) => new Set(Object.getOwnPropertyNames(Object.getPrototypeOf(engine)));
  const gridOps = own(new grid.HexRisk());
  const roadsOps = own(new roads.HexRisk());
  for (const name of ROAD_OPERATIONS) {
    assert.ok(roadsOps.has(name), `the roads engine has ${name}`);
    assert.ok(!gridOps.has(name), `the grid engine has no ${name}`);
  }
  assert.deepEqual([...roadsOps].filter((name) => !gridOps.has(name)).sort(), [...ROAD_OPERATIONS].sort());
  assert.deepEqual(Object.keys(grid).sort(), Object.keys(roads).sort(), 'the same free functions');
});

for (const city of manifest.cities) {
  for (const file of ['file', 'grid']) {
    test(`${city.code}: the grid engine answers as the roads engine does, from the ${file === 'file' ? 'full' : 'grid'} file`, () => {
      const bytes = read(file === 'file' ? city.file : city.grid.file);
      // The city's last forecast week: every dated request below falls in it.
      const week = new grid.HexRisk().addCity(bytes).lastWeek;
      const NOW = Date.parse(`${week}T12:00:00Z`);
      const gridEngine = new grid.HexRisk();
      const roadsEngine = new roads.HexRisk();
      const { west, south, east, north } = city.bounds;
      const centre = { lat: (south + north) / 2, lng: (west + east) / 2 };
      const near = { lat: centre.lat + 0.004, lng: centre.lng - 0.006 };
      const cell = grid.cellAt(centre.lat, centre.lng);
      const box = { west: centre.lng - 0.02, south: centre.lat - 0.02, east: centre.lng + 0.02, north: centre.lat + 0.02 };
      const calls = [
        ['addCity', (e) => e.addCity(bytes, city.version)],
        ['cities', (e) => e.cities()],
        ['predictionRange', (e) => e.predictionRange(city.code, NOW)],
        ['predict', (e) => e.predict({ latitude: centre.lat, longitude: centre.lng, datetime: `${week}T22:30:00` }, NOW)],
        ['predict outside', (e) => e.predict({ latitude: 0, longitude: 0 }, NOW)],
        ['predictBatch', (e) => e.predictBatch({ locations: [{ latitude: centre.lat, longitude: centre.lng }, { latitude: 95, longitude: 0 }] }, NOW)],
        ['routeRisk', (e) => e.routeRisk({ waypoints: [{ latitude: centre.lat, longitude: centre.lng }, { latitude: near.lat, longitude: near.lng }], departure_time: `${week}T08:00:00`, travel_mode: 'cycling' }, NOW)],
        ['scoreHexes', (e) => e.scoreHexes({ hexIds: [cell], intent: 'night' }, NOW)],
        ['scoreHexes bad', (e) => e.scoreHexes({ hexIds: [cell, 'zzz'] }, NOW)],
        ['lookup', (e) => e.lookup({ ...centre, ring: 2, detail: true }, NOW)],
        ['breakdown', (e) => e.breakdown({ h3: cell, intent: 'walking' }, NOW)],
        ['hexesInBox', (e) => e.hexesInBox(box, NOW)],
        ['hexesInBoxGeoJSON', (e) => e.hexesInBoxGeoJSON({ ...box, intent: 'driving' }, NOW)],
        ['tile z14', (e) => e.tile({ city: city.code, ...tileOf(centre.lat, centre.lng, 14) }, NOW)],
        ['tile z10', (e) => e.tile({ city: city.code, ...tileOf(centre.lat, centre.lng, 10), time: 20 }, NOW)],
        ['ringScores', (e) => e.ringScores({ ...centre, ring: 3 }, NOW)],
        ['boxScores', (e) => e.boxScores(box, NOW)],
        ['cellScores', (e) => e.cellScores(new BigUint64Array([BigInt(`0x${cell}`)]), { intent: 'night' }, NOW)],
        ['precinctScores', (e) => e.precinctScores({ intent: 'night' }, NOW)],
        ['precincts', (e) => e.precincts({}, NOW)],
        ['forecast', (e) => e.forecast(centre.lat, centre.lng, week)],
      ];
      for (const [name, call] of calls) {
        const fromGrid = outcome(() => call(gridEngine));
        assert.deepEqual(fromGrid, outcome(() => call(roadsEngine)), name);
        // Each call is meant to answer, but for the two refusals.
        const refused = name === 'predict outside' || name === 'scoreHexes bad';
        assert.equal(fromGrid.answer === undefined, refused, `${name}: ${JSON.stringify(fromGrid.error)}`);
      }
    });
  }
}
