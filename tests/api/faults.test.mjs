// Faults under `wrangler dev`: a Worker whose bucket holds a missing or corrupt model
// artifact, with no earlier version to fall back on, reports `unhealthy` (503) on both
// health endpoints, and every request for that city answers INTERNAL_ERROR in the
// documented error shape, with no internal detail; a file that inflates past the
// 64 MiB bound is refused while it inflates, even with a matching digest; and the key store holds digests
// only, never key text. (A bad version published over a good one: publish.test.mjs.)
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { keyStore, putObjects, startWorker } from '../support/wrangler.mjs';

const artifacts = new URL('../../build/artifacts/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(path.join(artifacts, 'manifest.json')));
const fileOf = (code) => manifest.cities.find((c) => c.code === code).file;
const workers = [];
after(() => Promise.all(workers.map((w) => w.stop())));

/** A Worker whose bucket holds `objects` (key to bytes) only, with one live key; resolves to { worker, key, state }. */
async function serve(objects) {
  const { state, keys: { key } } = await keyStore('faults', { key: { kind: 'live', origins: ['http://127.0.0.1:8080'] } });
  await putObjects(state, objects);
  const worker = await startWorker({ persistTo: state, models: false, vars: { HEXRISK_CLOCK: '2022-01-03' } });
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

// Each case has its own key store, bucket and Worker: they run side by side.
describe('a Worker with no usable version of a city', { concurrency: true }, () => {
  test('a missing artifact: unhealthy, and INTERNAL_ERROR in the error shape', async () => {
    const { worker, key } = await serve({
      'manifest.json': readFileSync(path.join(artifacts, 'manifest.json')),
      [fileOf('city_us_sfo')]: readFileSync(path.join(artifacts, fileOf('city_us_sfo'))),
    });
    await assertBroken(worker, key);
    // The router's record names each city without a usable version, and why.
    const health = await (await fetch(`${worker.url}/health`)).json();
    const problems = Object.fromEntries(health.models.problems.map((p) => [p.city, p.reason]));
    assert.match(problems.city_ca_tor, /missing/);
    assert.equal(problems.city_us_sfo, undefined);
    // A city whose file is there still answers.
    const res = await fetch(`${worker.url}/v1/coverage?city=city_us_sfo`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).city, 'city_us_sfo');
  });

  test('a corrupt artifact: unhealthy, and INTERNAL_ERROR in the error shape', async () => {
    const toronto = readFileSync(path.join(artifacts, fileOf('city_ca_tor')));
    toronto[toronto.length >> 1] ^= 0xff; // one flipped byte: the digest must catch it
    const { worker, key, state } = await serve({
      'manifest.json': readFileSync(path.join(artifacts, 'manifest.json')),
      [fileOf('city_ca_tor')]: toronto,
    });
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

  test('an artifact that inflates past 64 MiB (its digest in the manifest): refused while inflating', async () => {
    // A well-formed header and checksum over a zlib stream of 65 MiB of zeros (65 KB),
    // entered in the manifest under its own digest, so only the inflate bound stops it.
    const body = deflateSync(Buffer.alloc(65 << 20));
    const header = Buffer.alloc(16);
    header.write('HXRK', 0, 'latin1');
    header.writeUInt16LE(manifest.format_version, 4);
    header.writeUInt32LE(body.length, 8);
    header.writeUInt32LE(crc32(body), 12);
    const bomb = Buffer.concat([header, body]);
    const sha256 = createHash('sha256').update(bomb).digest('hex');
    const toronto = manifest.cities.find((c) => c.code === 'city_ca_tor');
    const version = `${toronto.data_through}.${sha256.slice(0, 12)}`;
    // No grid file: the build's one is named after the real version, and this is another.
    const { grid: _, ...full } = toronto;
    const entry = { ...full, bytes: bomb.length, sha256, version, file: `city_ca_tor/${version}.hxrk` };
    const bombed = { ...manifest, cities: manifest.cities.map((c) => (c.code === 'city_ca_tor' ? entry : c)) };
    const { worker, key } = await serve({ 'manifest.json': Buffer.from(JSON.stringify(bombed)), [entry.file]: bomb });
    await assertBroken(worker, key);
    const health = await (await fetch(`${worker.url}/health`)).json();
    const problem = health.models.problems.find((p) => p.city === 'city_ca_tor');
    assert.match(problem.reason, /inflates to more than 67108864 bytes/);
  });
});
