// Both health endpoints over real HTTP against `wrangler dev` on workerd.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { keyStore, startWorker } from '../support/wrangler.mjs';

let worker;

before(async () => {
  const { state } = await keyStore('health');
  worker = await startWorker({ persistTo: state });
});
after(async () => { await worker?.stop(); });

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function getJson(path, init) {
  const response = await fetch(`${worker.url}${path}`, init);
  return { response, body: await response.json() };
}

test('GET /v1/health returns the prediction API health record without a key', async () => {
  const before = Date.now();
  const { response, body } = await getJson('/v1/health');
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type'), /^application\/json/);
  assert.deepEqual(Object.keys(body).sort(), ['services', 'status', 'timestamp', 'version']);
  assert.equal(body.status, 'healthy');
  assert.match(body.version, /^\d+\.\d+\.\d+/);
  assert.match(body.timestamp, ISO_UTC);
  assert.ok(Math.abs(Date.parse(body.timestamp) - before) < 60_000, 'timestamp is the current time');
  assert.deepEqual(body.services, { api: 'healthy', models: 'healthy', database: 'healthy' });
});

test('GET /health returns the router status and coverage snapshot', async () => {
  const { response, body } = await getJson('/health');
  assert.equal(response.status, 200);
  assert.equal(body.status, 'healthy');
  assert.equal(body.service, 'hexrisk-router');
  assert.equal(body.resolution, 8);
  assert.deepEqual(body.coverage.cities.sort(), ['city_ca_tor', 'city_us_hou', 'city_us_sfo']);
  assert.match(body.timestamp, ISO_UTC);
});

test('responses carry the security headers', async () => {
  const { response } = await getJson('/health');
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(response.headers.get('cache-control'), 'no-store');
});

test('unknown paths and wrong methods answer in the error shape', async () => {
  const missing = await getJson('/v1/nowhere');
  assert.equal(missing.response.status, 404);
  assert.deepEqual(Object.keys(missing.body).sort(), ['code', 'details', 'message', 'status']);
  assert.equal(missing.body.status, 'error');
  assert.equal(missing.body.code, 'NOT_FOUND');

  const wrong = await getJson('/v1/health', { method: 'DELETE' });
  assert.equal(wrong.response.status, 405);
  assert.equal(wrong.body.code, 'METHOD_NOT_ALLOWED');
  assert.equal(wrong.response.headers.get('allow'), 'GET, OPTIONS');
});
