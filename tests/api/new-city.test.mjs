// A city added from configuration alone, served: builder/tests/all/new_city.rs writes a
// small city (the Toronto incidents inside the University of Toronto campus, in the
// generic CSV, with ../shared/data/toronto/uoft_campus.osm for its roads) into a
// temporary folder and builds it with `hexrisk-build`; this test publishes that build
// to a Worker's bucket under `wrangler dev`, and answers a prediction and a route over
// HTTP and the same route from the npm package, with no change to the code.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as hexrisk from '../../pkg/dist/roads/node/hexrisk_engine.js';
import { close } from '../support/close.mjs';
import { keyStore, publishModels, startWorker } from '../support/wrangler.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CODE = 'city_ca_uoft';

let worker;
let key;
let artifacts;
let manifest;
after(() => worker?.stop());

before(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-new-city-'));
  // The Rust test writes the city's files and builds them with the CLI (its own checks
  // of the build run too); the folder it leaves is what a data team would have.
  // --workspace, as `make test` builds it: with `-p` the test binary would be compiled
  // again with other features (scripts/build-tool.sh says why). The key store is made
  // meanwhile.
  let state;
  [, { state, keys: { key } }] = await Promise.all([
    run('cargo', ['test', '--quiet', '--workspace', '--test', 'all', '--',
      'new_city::a_city_made_of_configuration_and_data_files_builds_predicts_and_routes'],
    { cwd: root, env: { ...process.env, HEXRISK_NEW_CITY_DIR: dir }, maxBuffer: 16 << 20 }),
    keyStore('new-city', { key: { kind: 'live', tier: 'enterprise', dailyLimit: 1_000_000 } }),
  ]);
  artifacts = path.join(dir, 'artifacts');
  manifest = JSON.parse(readFileSync(path.join(artifacts, 'manifest.json'), 'utf8'));
  assert.deepEqual(manifest.cities.map((c) => c.code), [CODE]);
  const city = manifest.cities[0];
  // The first week beyond the data, as the Rust test's clock.
  const clock = new Date(Date.parse(`${city.data_through}T12:00:00Z`) + 3 * 86_400_000).toISOString().slice(0, 10);
  // The Worker starts while the city is published: ready once /openapi.json answers,
  // which reads no model, it first reads the bucket when a test asks.
  await Promise.all([
    publishModels(state, { artifacts }),
    startWorker({ persistTo: state, models: false, readyPath: '/openapi.json', vars: { HEXRISK_CLOCK: clock } })
      .then((started) => { worker = started; }),
  ]);
});

/** The middle of the campus city's bounds, and points 250 m west and east of it. */
function places() {
  const { bounds } = manifest.cities[0];
  const centre = { lat: (bounds.north + bounds.south) / 2, lng: (bounds.east + bounds.west) / 2 };
  const offset = 250 / (111_320 * Math.cos((centre.lat * Math.PI) / 180));
  return { centre, west: { lat: centre.lat, lng: centre.lng - offset }, east: { lat: centre.lat, lng: centre.lng + offset } };
}

async function call(method, pathname, { body, prediction = false } = {}) {
  const res = await fetch(`${worker.url}${pathname}`, {
    method,
    headers: {
      ...(prediction ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

test('the published city is the one the Worker serves, with its version and data-through date', async () => {
  const health = await (await fetch(`${worker.url}/health`)).json();
  assert.equal(health.status, 'healthy');
  assert.deepEqual(health.coverage.cities, [CODE]);
  const cities = await call('GET', '/v1/cities', { prediction: true });
  assert.equal(cities.status, 200);
  const [record] = cities.body.cities;
  assert.equal(record.code, CODE);
  assert.equal(record.model_version, manifest.cities[0].version);
  assert.equal(record.last_updated, manifest.cities[0].data_through);
});

test('a prediction on the campus', async () => {
  const { centre } = places();
  const answer = await call('POST', '/v1/predict', { body: { latitude: centre.lat, longitude: centre.lng }, prediction: true });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.city.code, CODE);
  assert.equal(answer.headers.get('hexrisk-model-version'), `${CODE}=${manifest.cities[0].version}`);
  const total = Object.values(answer.body.prediction.probabilities).reduce((sum, p) => sum + p, 0);
  assert.ok(Math.abs(total - 1) < 1e-6, `probabilities sum to ${total}`);
  assert.equal(answer.body.model_info.version, manifest.cities[0].version);
  assert.equal(answer.body.model_info.last_updated, manifest.cities[0].data_through);
});

test('a route across the campus, the same from the API and from the npm package', async () => {
  const { west, east } = places();
  const body = { origin: west, destination: east, intent: 'walking' };
  const online = await call('POST', '/route', { body });
  assert.equal(online.status, 200, JSON.stringify(online.body));
  assert.equal(online.body.city, CODE);
  assert.ok(online.body.best.metrics.distanceM > 400, `${online.body.best.metrics.distanceM} m`);
  const engine = new hexrisk.HexRisk();
  const city = manifest.cities[0];
  engine.addCity(readFileSync(path.join(artifacts, city.file)), city.version);
  const clock = Date.parse(`${city.data_through}T12:00:00Z`) + 3 * 86_400_000;
  const offline = engine.route(body, clock);
  close(offline, online.body);
});
