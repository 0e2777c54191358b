// The Worker's wasm memory once routing has built each city's contraction hierarchy
// and customised it: `wrangler dev` started afresh, then in Toronto,
// Houston and San Francisco in turn a prediction, a `safest` route (the hierarchy,
// its length-only metric and the route's metric) and a `tradeoff` set (the
// exposure-only metric), reading GET /__bench/memory after each step. Writes
// build/bench/route-memory.json.
//
//   node bench/http/route-memory.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { keyStore, startWorker } from '../../tests/support/wrangler.mjs';

const PLACES = [
  ['city_ca_tor', { lat: 43.6453, lng: -79.3806 }, { lat: 43.6645, lng: -79.4206 }, null],
  ['city_us_hou', { lat: 29.7604, lng: -95.3698 }, { lat: 29.7404, lng: -95.3998 }, '2010-08-02T12:00:00Z'],
  ['city_us_sfo', { lat: 37.7793, lng: -122.4193 }, { lat: 37.7599, lng: -122.4148 }, '2012-12-03T12:00:00Z'],
];

async function send(url, key, path, body) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    // The prediction API takes a bearer token, the router API the x-api-key header.
    headers: path.startsWith('/v1/')
      ? { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
      : { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
}

async function memory(url) {
  const res = await fetch(`${url}/__bench/memory`);
  if (res.status !== 200) throw new Error(`/__bench/memory answered ${res.status}`);
  return (await res.json()).wasm_memory_bytes;
}

const { state, keys: { key } } = await keyStore('route-memory', { key: { kind: 'live', tier: 'enterprise', dailyLimit: 1_000_000 } });
const worker = await startWorker({ persistTo: state, vars: { HEXRISK_BENCH_NOOP: '1', HEXRISK_CLOCK: '2022-01-03' }, readyPath: '/openapi.json' });
const steps = [];
try {
  steps.push({ city: null, step: 'started', wasm_memory_bytes: await memory(worker.url) });
  for (const [city, origin, destination, departAt] of PLACES) {
    const when = departAt ? { departAt } : {};
    await send(worker.url, key, '/v1/predict', { latitude: origin.lat, longitude: origin.lng, ...(departAt ? { datetime: departAt } : {}) });
    steps.push({ city, step: 'prediction', wasm_memory_bytes: await memory(worker.url) });
    await send(worker.url, key, '/route', { origin, destination, method: 'safest', ...when });
    steps.push({ city, step: 'safest route', wasm_memory_bytes: await memory(worker.url) });
    await send(worker.url, key, '/route', { origin, destination, method: 'tradeoff', ...when });
    steps.push({ city, step: 'tradeoff set', wasm_memory_bytes: await memory(worker.url) });
  }
} finally {
  await worker.stop();
}
const out = { date: new Date().toISOString().slice(0, 10), steps };
mkdirSync(new URL('../../build/bench/', import.meta.url), { recursive: true });
writeFileSync(new URL('../../build/bench/route-memory.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
