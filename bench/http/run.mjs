// HTTP benchmark of both APIs under `wrangler dev` (workerd) on loopback: wrk against
// POST /v1/predict, a 100-location POST /v1/predict/batch, POST /hexes/score with 5000
// ids, POST /hexes/lookup at ring 41, POST /route (Toronto, about 5 km) and the
// benchmark routes of the same Worker (the no-op; the key gate alone; the no-op
// carrying as many bytes in and out as each 5,000-cell call), one after the other in
// one run. First, unloaded: 200 requests one at a time, the no-op, the key gate route
// and POST /v1/predict taking turns (so that all see the same moments of the machine), median
// and p90 latency. Prints Markdown tables and writes build/bench/http.json (for
// bench/report.mjs). wrk sends no Accept-Encoding, so every answer goes out plain
// (the Worker follows the client's own header).
//
//   node bench/http/run.mjs [--seconds 15] [--connections 16] [--threads 2]
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { keyStore, startWorker } from '../../tests/support/wrangler.mjs';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const seconds = Number(arg('seconds', '15'));
const connections = Number(arg('connections', '16'));
const threads = Number(arg('threads', '2'));

const { state, keys: { key } } = await keyStore('bench', { key: { kind: 'live', tier: 'enterprise', dailyLimit: 1_000_000_000 } });
const worker = await startWorker({ persistTo: state, vars: { HEXRISK_BENCH_NOOP: '1', HEXRISK_CLOCK: '2022-01-03' } });

// Deterministic request bodies: one Toronto point, and 100 points on a grid over downtown.
const single = path.join(state, 'predict.json');
writeFileSync(single, JSON.stringify({ latitude: 43.6532, longitude: -79.3832 }));
const batch = path.join(state, 'batch.json');
const locations = Array.from({ length: 100 }, (_, i) => ({ latitude: 43.63 + (i % 10) * 0.006, longitude: -79.42 + Math.floor(i / 10) * 0.008 }));
writeFileSync(batch, JSON.stringify({ locations }));

// Router bodies: the first 5000 cells of the ring-41 disk around downtown Toronto, a
// ring-41 lookup, and Union Station to Christie Pits.
const router = {};
async function routerBodies() {
  const disk = await (await fetch(`${worker.url}/hexes/lookup`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ lat: 43.6532, lng: -79.3832, ring: 41 }),
  })).json();
  const write = (name, value) => {
    const file = path.join(state, `${name}.json`);
    writeFileSync(file, JSON.stringify(value));
    router[name] = file;
  };
  write('score', { hexIds: disk.cells.slice(0, 5000).map((c) => c.h3) });
  write('lookup', { lat: 43.6532, lng: -79.3832, ring: 41 });
  write('route', { origin: { lat: 43.6453, lng: -79.3806 }, destination: { lat: 43.6645, lng: -79.4206 } });
  // The plain answers' sizes, for the no-op that carries as many bytes.
  for (const [name, pathname] of [['score', '/hexes/score'], ['lookup', '/hexes/lookup']]) {
    const res = await fetch(`${worker.url}${pathname}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'accept-encoding': 'identity' },
      body: readFileSync(router[name]),
    });
    router[`${name}Bytes`] = (await res.arrayBuffer()).byteLength;
  }
}

function parse(output) {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const toMs = (value, unit) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit]);
  const pick = (label) => {
    const m = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(output);
    return m ? toMs(m[1], m[2]) : NaN;
  };
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? '0';
  return { rps, p50: pick('50%'), p99: pick('99%'), avg: pick('Latency'), errors: Number(errors) };
}

/** wrk against `url`: POST of the file `body`, else GET (with the key when `keyed`). */
async function wrk(name, url, body, keyHeader = 'authorization', keyed = false) {
  const env = { ...process.env, KEY: key, KEY_HEADER: keyHeader, BODY_FILE: body ?? '' };
  const lua = body ? 'post.lua' : keyed ? 'get.lua' : null;
  const script = lua ? ['-s', path.join(here, lua)] : [];
  // Warm up (model load, network index, JIT) before measuring.
  await run('wrk', ['-t1', '-c1', '-d2s', ...script, url], { env });
  const { stdout } = await run('wrk', [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--latency', ...script, url], { env });
  return { name, ...parse(stdout) };
}

/** `count` requests one at a time, alternating `calls`; per call, the latency in ms. */
async function unloaded(calls, count) {
  const times = calls.map(() => []);
  for (let i = 0; i < count * calls.length; i++) {
    const which = i % calls.length;
    const { url, init } = calls[which];
    const start = process.hrtime.bigint();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    times[which].push(ms);
  }
  const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return calls.map((call, i) => {
    const sorted = times[i].sort((a, b) => a - b);
    return { name: call.name, n: sorted.length, median_ms: at(sorted, 0.5), p90_ms: at(sorted, 0.9) };
  });
}

try {
  const predictInit = {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ latitude: 43.6532, longitude: -79.3832 }),
  };
  const latencyCalls = [
    { name: 'no-op (GET /__bench/noop)', url: `${worker.url}/__bench/noop`, init: {} },
    { name: 'key gate only (GET /__bench/gate)', url: `${worker.url}/__bench/gate`, init: { headers: { authorization: `Bearer ${key}` } } },
    { name: 'POST /v1/predict', url: `${worker.url}/v1/predict`, init: predictInit },
  ];
  await unloaded(latencyCalls, 20); // warm-up
  const latency = await unloaded(latencyCalls, 200);
  const results = [
    await wrk('no-op (GET /__bench/noop)', `${worker.url}/__bench/noop`),
    await wrk('key gate only (GET /__bench/gate)', `${worker.url}/__bench/gate`, undefined, 'authorization', true),
    await wrk('POST /v1/predict', `${worker.url}/v1/predict`, single),
    await wrk('POST /v1/predict/batch (100 locations)', `${worker.url}/v1/predict/batch`, batch),
  ];
  await routerBodies();
  results.push(
    await wrk(`no-op carrying the score call's bytes (same body in, ${router.scoreBytes} bytes out)`,
      `${worker.url}/__bench/noop?size=${router.scoreBytes}`, router.score, 'x-api-key'),
    await wrk('POST /hexes/score (5000 ids)', `${worker.url}/hexes/score`, router.score, 'x-api-key'),
    await wrk(`no-op carrying the lookup's bytes (same body in, ${router.lookupBytes} bytes out)`,
      `${worker.url}/__bench/noop?size=${router.lookupBytes}`, router.lookup, 'x-api-key'),
    await wrk('POST /hexes/lookup (ring 41)', `${worker.url}/hexes/lookup`, router.lookup, 'x-api-key'),
    await wrk('POST /route (Toronto, 5 km)', `${worker.url}/route`, router.route, 'x-api-key'),
  );
  // The same unloaded calls again, now that the key is busy: its requests are decided
  // with the isolate's blocks of its quota (docs/API.md), not by a gate round trip each.
  const busyLatency = await unloaded(latencyCalls, 200);
  const base = results[0].rps;
  const out = path.join(here, '../../build/bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'http.json'), JSON.stringify({ threads, connections, seconds, results, latency, busyLatency }, null, 2));
  console.log(`wrk -t${threads} -c${connections} -d${seconds}s, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores\n`);
  console.log('| route | requests/s | vs no-op | mean latency (ms) | p50 (ms) | p99 (ms) | non-2xx |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${(100 * r.rps / base).toFixed(0)}% | ${r.avg.toFixed(2)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} |`);
  }
  console.log('\n| unloaded, one at a time | n | median ms | p90 ms |\n|---|---|---|---|');
  for (const l of latency) console.log(`| ${l.name} | ${l.n} | ${l.median_ms.toFixed(2)} | ${l.p90_ms.toFixed(2)} |`);
  console.log('\n| unloaded, the key busy | n | median ms | p90 ms |\n|---|---|---|---|');
  for (const l of busyLatency) console.log(`| ${l.name} | ${l.n} | ${l.median_ms.toFixed(2)} | ${l.p90_ms.toFixed(2)} |`);
} finally {
  await worker.stop();
}
