// Faults under `wrangler dev`: a missing or corrupt model artifact makes both health
// endpoints report `unhealthy` (503) and every model-backed request answer
// INTERNAL_ERROR in the documented error shape, with no internal detail; and the key
// store holds digests only, never key text.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const artifacts = new URL('../../build/artifacts/', import.meta.url).pathname;
const workers = [];
after(() => Promise.all(workers.map((w) => w.stop())));

/** A Worker serving `assets` (a folder) with one live key; resolves to { worker, key, state }. */
async function serve(assets) {
  const { state, keys: { key } } = await keyStore('faults', { key: { kind: 'live', origins: ['http://127.0.0.1:8080'] } });
  const worker = await startWorker({ persistTo: state, assetsDir: assets, vars: { HEXRISK_CLOCK: '2022-01-03' } });
  workers.push(worker);
  return { worker, key, state };
}

async function assertBroken(worker, key) {
  for (const pathname of ['/v1/health', '/health']) {
    const res = await fetch(`${worker.url}${pathname}`);
    assert.equal(res.status, 503, pathname);
    const body = await res.json();
    assert.equal(body.status, 'unhealthy');
    assert.equal(body.services.models, 'unhealthy');
  }
  const calls = [
    ['/v1/predict', { authorization: `Bearer ${key}` }, { latitude: 43.6532, longitude: -79.3832 }],
    ['/hexes/score', { 'x-api-key': key }, { hexIds: ['882b9bc46dfffff'] }],
    ['/route', { 'x-api-key': key }, { origin: { lat: 43.6453, lng: -79.3806 }, destination: { lat: 43.6645, lng: -79.4206 } }],
  ];
  for (const [pathname, headers, body] of calls) {
    const res = await fetch(`${worker.url}${pathname}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 500, pathname);
    assert.match(res.headers.get('content-type'), /^application\/json/);
    const answer = await res.json();
    assert.deepEqual(answer, { status: 'error', code: 'INTERNAL_ERROR', message: 'the service could not complete the request', details: {} });
  }
}

test('a missing artifact: unhealthy, and INTERNAL_ERROR in the error shape', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-missing-'));
  copyFileSync(path.join(artifacts, 'manifest.json'), path.join(dir, 'manifest.json'));
  copyFileSync(path.join(artifacts, 'city_us_sfo.hxrk'), path.join(dir, 'city_us_sfo.hxrk'));
  const { worker, key } = await serve(dir);
  await assertBroken(worker, key);
});

test('a corrupt artifact: unhealthy, and INTERNAL_ERROR in the error shape', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-corrupt-'));
  for (const file of readdirSync(artifacts)) copyFileSync(path.join(artifacts, file), path.join(dir, file));
  const toronto = readFileSync(path.join(dir, 'city_ca_tor.hxrk'));
  toronto[toronto.length >> 1] ^= 0xff; // one flipped byte: the checksum must catch it
  writeFileSync(path.join(dir, 'city_ca_tor.hxrk'), toronto);
  const { worker, key, state } = await serve(dir);
  await assertBroken(worker, key);

  // The key store (SQLite files under the persisted state) holds digests, never the key.
  const files = [];
  const walk = (d) => readdirSync(d).forEach((f) => {
    const p = path.join(d, f);
    if (statSync(p).isDirectory()) walk(p); else files.push(p);
  });
  walk(state);
  const secret = key.slice(key.lastIndexOf('_') + 1);
  assert.ok(files.some((f) => f.endsWith('.sqlite')), 'a D1 database was written');
  for (const file of files) {
    const bytes = readFileSync(file);
    assert.ok(!bytes.includes(secret) && !bytes.includes(key), `${file} holds key text`);
  }
});
