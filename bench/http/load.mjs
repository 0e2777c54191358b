// Bounded load run of both APIs under `wrangler dev`: wrk with 64 connections
// for 60 s (`--seconds`, `--connections`) on a round-robin mix of POST /v1/predict,
// POST /hexes/score (200 ids), POST /hexes/lookup (ring 5), POST /route (5 km) and
// GET /hexes/all, sampling the workerd processes' memory every 5 s. Then a key with a
// daily limit of N (`--quota`, 500) under the same 64 connections for 15 s must get
// exactly N successes. Exits non-zero on any error or a wrong count.
//
// Memory: workerd under `wrangler dev` grows under any load, even on the no-op route
// that runs none of hexrisk's code (measured: 309 → 1,621 MiB in 30 s at 64
// connections), so the run first loads the no-op route for 20 s and reports growth
// per 1,000 requests for both, side by side, rather than judging steadiness alone.
//
//   node bench/http/load.mjs [--seconds 60] [--connections 64] [--quota 500]
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { keyStore, startWorker } from '../../tests/support/wrangler.mjs';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1] : fallback);
};
const seconds = arg('seconds', 60);
const connections = arg('connections', 64);
const quota = arg('quota', 500);

const { state, keys: { key, limited } } = await keyStore('load', {
  key: { kind: 'live', tier: 'enterprise', dailyLimit: 1_000_000_000 },
  limited: { kind: 'live', tier: 'enterprise', dailyLimit: quota },
});
const worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: '2022-01-03', HEXRISK_BENCH_NOOP: '1' } });

const lookup = await (await fetch(`${worker.url}/hexes/lookup`, {
  method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
  body: JSON.stringify({ lat: 43.6532, lng: -79.3832, ring: 8 }),
})).json();
const bodies = {
  'predict.json': { latitude: 43.6532, longitude: -79.3832 },
  'score.json': { hexIds: lookup.cells.slice(0, 200).map((c) => c.h3) },
  'lookup.json': { lat: 43.6532, lng: -79.3832, ring: 5 },
  'route.json': { origin: { lat: 43.6453, lng: -79.3806 }, destination: { lat: 43.6645, lng: -79.4206 } },
};
for (const [name, body] of Object.entries(bodies)) writeFileSync(path.join(state, name), JSON.stringify(body));

/** Resident memory (MiB) of the workerd processes. */
async function workerdMemory() {
  const { stdout } = await run('ps', ['-C', 'workerd', '-o', 'rss=']).catch(() => ({ stdout: '' }));
  return stdout.trim().split(/\s+/).filter(Boolean).reduce((sum, kb) => sum + Number(kb) / 1024, 0);
}

function summary(output) {
  const total = Number(/(\d+) requests in/.exec(output)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socketErrors = /Socket errors: (.*)/.exec(output)?.[1] ?? 'none';
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const p99 = /99%\s+(\S+)/.exec(output)?.[1];
  return { total, non2xx, socketErrors, rps, p99 };
}

let failed = false;
try {
  const before = await workerdMemory();
  const { stdout: noopOut } = await run('wrk', ['-t2', `-c${connections}`, '-d20s', `${worker.url}/__bench/noop`], { maxBuffer: 1 << 28 });
  const noop = summary(noopOut);
  const afterNoop = await workerdMemory();
  const perThousand = (grown, requests) => (1000 * grown / requests).toFixed(1);
  console.log(`no-op baseline: ${noop.total} requests in 20 s, workerd ${before.toFixed(0)} → ${afterNoop.toFixed(0)} MiB (${perThousand(afterNoop - before, noop.total)} MiB per 1,000 requests)`);

  const env = { ...process.env, KEY: key, BODIES_DIR: state };
  const memory = [afterNoop];
  const sampler = setInterval(async () => memory.push(await workerdMemory()), 5000);
  const { stdout } = await run('wrk', [`-t2`, `-c${connections}`, `-d${seconds}s`, '--latency', '-s', path.join(here, 'mixed.lua'), worker.url], { env, maxBuffer: 1 << 28 });
  clearInterval(sampler);
  const mixed = summary(stdout);
  console.log(`mixed load: ${connections} connections, ${seconds} s: ${mixed.total} requests, ${mixed.rps} req/s, p99 ${mixed.p99}, non-2xx ${mixed.non2xx}, socket errors ${mixed.socketErrors}`);
  const afterMixed = await workerdMemory();
  console.log(`workerd memory (MiB, every 5 s): ${memory.map((m) => m.toFixed(0)).join(' ')}; ${perThousand(afterMixed - afterNoop, mixed.total)} MiB per 1,000 requests`);
  if (mixed.non2xx !== 0 || mixed.socketErrors !== 'none') failed = true;

  const limitedEnv = { ...process.env, KEY: limited, KEY_HEADER: 'x-api-key', BODY_FILE: path.join(state, 'lookup.json') };
  const { stdout: quotaOut } = await run('wrk', ['-t2', `-c${connections}`, '-d15s', '-s', path.join(here, 'post.lua'), `${worker.url}/hexes/lookup`], { env: limitedEnv, maxBuffer: 1 << 28 });
  const q = summary(quotaOut);
  const successes = q.total - q.non2xx;
  console.log(`quota under load: limit ${quota}, ${q.total} requests, ${successes} succeeded, ${q.non2xx} refused`);
  if (successes !== quota) failed = true;
} finally {
  await worker.stop();
}
process.exit(failed ? 1 : 0);
