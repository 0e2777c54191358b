// The wasm engine answers forecasts from the real artifacts with exactly the numbers
// the native engine computed (build/forecast-samples.json, written by
// `hexrisk-build forecast-samples`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HexRisk } from '../../pkg/dist/node/hexrisk_engine.js';

const root = new URL('../../', import.meta.url);
const artifactsDir = new URL('build/artifacts/', root);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', artifactsDir)));
const samples = JSON.parse(readFileSync(new URL('build/forecast-samples.json', root)));

function loadAll() {
  const engine = new HexRisk();
  for (const city of manifest.cities) engine.addCity(readFileSync(new URL(city.file, artifactsDir)));
  return engine;
}

test('every city in the manifest loads, with its forecast weeks', () => {
  const engine = loadAll();
  const cities = engine.cities();
  assert.deepEqual(cities.map((c) => c.code).sort(), manifest.cities.map((c) => c.code).sort());
  const toronto = cities.find((c) => c.code === 'city_ca_tor');
  assert.equal(toronto.firstWeek, '2019-12-30');
  assert.equal(toronto.lastWeek, '2022-03-14');
  assert.ok(toronto.cells > 800);
});

test('prediction ranges turn weeks at local midnight', () => {
  const engine = loadAll();
  // 2022-01-03 04:30 UTC is still Sunday evening in Toronto, already Monday in UTC.
  const range = engine.predictionRange('city_ca_tor', Date.UTC(2022, 0, 3, 4, 30));
  assert.deepEqual(range, { start: '2019-12-30', end: '2022-03-20', weeksAvailable: 116, currentWeek: '2021-12-27' });
  assert.equal(engine.predictionRange('city_ca_tor', Date.UTC(2022, 0, 3, 5, 30)).currentWeek, '2022-01-03');
  assert.throws(() => engine.predictionRange('city_xx_nowhere'), (err) => err.code === 'INVALID_REQUEST');
});

test('wasm forecasts equal the native reference forecasts exactly', () => {
  const engine = loadAll();
  assert.ok(samples.length >= 1500);
  const mismatches = [];
  for (const sample of samples) {
    const { latitude, longitude, date, ...expected } = sample;
    const actual = engine.forecast(latitude, longitude, date);
    try {
      assert.deepStrictEqual(actual, expected);
    } catch {
      mismatches.push({ sample, actual });
    }
  }
  assert.deepEqual(mismatches.slice(0, 3), []);
});

test('probabilities sum to 1 and risk levels follow P(NO_CRIME)', () => {
  const engine = loadAll();
  for (const sample of samples.slice(0, 300)) {
    const f = engine.forecast(sample.latitude, sample.longitude, sample.date);
    const sum = Object.values(f.probabilities).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-12, `${sum}`);
    const p = f.probabilities.NO_CRIME;
    const level = p > 0.5 ? 'LOW' : p >= 0.25 ? 'MODERATE' : p >= 0.1 ? 'HIGH' : 'VERY_HIGH';
    assert.equal(f.riskLevel, level);
  }
});

test('errors carry the API codes', () => {
  const engine = loadAll();
  const code = (fn) => { try { fn(); return 'none'; } catch (err) { assert.ok(err instanceof Error); return err.code; } };
  assert.equal(code(() => engine.forecast(43.65, -79.38, '2019-01-01')), 'DATE_OUT_OF_RANGE');
  assert.equal(code(() => engine.forecast(43.65, -79.38, '2022-13-01')), 'INVALID_REQUEST');
  assert.equal(code(() => engine.forecast(51.5, -0.12, '2022-01-03')), 'LOCATION_NOT_COVERED');
  assert.equal(code(() => engine.forecast(91, 0, '2022-01-03')), 'INVALID_COORDINATES');
  assert.equal(code(() => engine.forecast(43.65, -79.38, '2022-01-03')), 'none');
});

test('truncated, corrupted and foreign artifacts are refused with INVALID_ARTIFACT', () => {
  const bytes = readFileSync(new URL(manifest.cities[0].file, artifactsDir));
  const engine = new HexRisk();
  const corrupted = Uint8Array.from(bytes);
  corrupted[corrupted.length >> 1] ^= 0xff;
  const wrongVersion = Uint8Array.from(bytes);
  wrongVersion[4] = 99;
  for (const bad of [bytes.subarray(0, 10), bytes.subarray(0, bytes.length - 1), corrupted, wrongVersion, new Uint8Array()]) {
    assert.throws(() => engine.addCity(bad), (err) => err.code === 'INVALID_ARTIFACT');
  }
  assert.deepEqual(engine.cities(), []);
});
