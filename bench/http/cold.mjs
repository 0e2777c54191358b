// A cold Worker's first answers: `wrangler dev` started afresh for each run
// (a new isolate, nothing decoded; readiness is polled on /openapi.json, which reads
// no model), then the time of the first Toronto prediction, and the wasm linear memory
// after Toronto, Houston and San Francisco are loaded in turn, with the default city
// bound and with HEXRISK_MAX_CITIES=1. A second series first sends GET /v1/classes
// (the key store and quota counter warm, no model read), so its first Toronto
// prediction is the model loading alone. Writes build/bench/cold.json.
//
//   node bench/http/cold.mjs [--runs N] [--worker-dir DIR] [--label NAME]
//
// --worker-dir runs another checkout's edge-worker (with its own build and artifacts),
// to measure the code before a change the same way; memory is read only where the
// Worker has GET /__bench/memory.
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { keyStore, startWorker } from '../../tests/support/wrangler.mjs';

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, 'worker-dir': { type: 'string' }, label: { type: 'string', default: 'current' } },
});
const runs = Number(args.runs);
const vars = { HEXRISK_BENCH_NOOP: '1', HEXRISK_CLOCK: '2022-01-03' };
const PLACES = [
  ['city_ca_tor', { latitude: 43.6532, longitude: -79.3832 }],
  ['city_us_hou', { latitude: 29.7604, longitude: -95.3698, datetime: '2010-08-02T12:00:00Z' }],
  ['city_us_sfo', { latitude: 37.7793, longitude: -122.4193, datetime: '2012-12-03T12:00:00Z' }],
];
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function predict(url, key, body) {
  const started = performance.now();
  const res = await fetch(`${url}/v1/predict`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`predict answered ${res.status}`);
  return performance.now() - started;
}

async function memory(url) {
  const res = await fetch(`${url}/__bench/memory`);
  return res.status === 200 ? res.json() : null;
}

/** One cold start: the first Toronto answer, then memory after each city. */
async function coldRun(extraVars = {}, { warmKeys = false } = {}) {
  const { state, keys: { key } } = await keyStore('cold', { key: { kind: 'live', tier: 'enterprise', dailyLimit: 1_000_000 } });
  const worker = await startWorker({
    persistTo: state, vars: { ...vars, ...extraVars }, readyPath: '/openapi.json',
    ...(args['worker-dir'] ? { workerDir: args['worker-dir'] } : {}),
  });
  try {
    if (warmKeys) {
      const res = await fetch(`${worker.url}/v1/classes`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
    }
    const first = await predict(worker.url, key, PLACES[0][1]);
    const second = await predict(worker.url, key, PLACES[0][1]);
    const after = [];
    for (const [code, body] of PLACES) {
      await predict(worker.url, key, body);
      after.push({ city: code, ...(await memory(worker.url)) });
    }
    return { first_ms: first, warm_ms: second, memory: after };
  } finally {
    await worker.stop();
  }
}

const results = [];
for (let i = 0; i < runs; i += 1) results.push(await coldRun());
const warmed = [];
for (let i = 0; i < runs; i += 1) warmed.push(await coldRun({}, { warmKeys: true }));
const bounded = await coldRun({ HEXRISK_MAX_CITIES: '1' });
const out = {
  label: args.label,
  runs,
  first_toronto_ms: results.map((r) => r.first_ms),
  first_toronto_median_ms: median(results.map((r) => r.first_ms)),
  warm_toronto_median_ms: median(results.map((r) => r.warm_ms)),
  keys_warm_first_toronto_ms: warmed.map((r) => r.first_ms),
  keys_warm_first_toronto_median_ms: median(warmed.map((r) => r.first_ms)),
  memory: results[0].memory,
  memory_max_cities_1: bounded.memory,
};
mkdirSync(new URL('../../build/bench/', import.meta.url), { recursive: true });
writeFileSync(new URL(`../../build/bench/cold${args.label === 'current' ? '' : `-${args.label}`}.json`, import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
