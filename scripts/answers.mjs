// Records the answers of a fixed request set (scripts/answer-requests.mjs), over HTTP
// (both APIs under `wrangler dev`) and from the npm package, so that a change meant to
// keep behaviour can be checked byte for byte:
//
//   node scripts/answers.mjs record FILE     # before the change (needs make artifacts pkg worker)
//   node scripts/answers.mjs compare FILE    # after it: exit 1 and the differences if any
//
// Every status, body and header is kept except what changes from run to run by
// design: the date and quota-reset headers, and the health bodies' `timestamp`.
import { readFileSync, writeFileSync } from 'node:fs';
import { keyStore, startWorker } from '../tests/support/wrangler.mjs';
import * as hexrisk from '../pkg/dist/roads/node/hexrisk_engine.js';
import { CLOCK, NOW_MS, ORIGIN, REVERSES, SEARCHES, TOR, TOR_CELL, prediction, router } from './answer-requests.mjs';

const { HexRisk } = hexrisk;

const VOLATILE_HEADERS = new Set(['date', 'ratelimit', 'keep-alive', 'connection']);
const artifacts = new URL('../build/artifacts/', import.meta.url);
/** Masks the parts of an answer that are the clock's, not the code's. */
const masked = (answer) => JSON.stringify(answer).replace(/\\"timestamp\\":\\"[^"\\]*\\"/g, '\\"timestamp\\":\\"…\\"');

async function httpAnswers() {
  const { state, keys } = await keyStore('answers', { live: { kind: 'live', origins: [ORIGIN] } });
  const worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: CLOCK } });
  const answers = [];
  try {
    for (const [api, requests] of [['router', router], ['prediction', prediction]]) {
      for (const [method, path, body, extra = {}] of requests) {
        const headers = api === 'router' ? { 'x-api-key': keys.live } : { authorization: `Bearer ${keys.live}` };
        Object.assign(headers, extra);
        const init = { method, headers };
        if (body !== undefined) {
          headers['content-type'] = 'application/json';
          init.body = typeof body === 'string' ? body : JSON.stringify(body);
        }
        const response = await fetch(`${worker.url}${path}`, init);
        const kept = [...response.headers].filter(([name]) => !VOLATILE_HEADERS.has(name)).sort();
        answers.push({ request: `${method} ${path} ${init.body ?? ''}`.slice(0, 300), status: response.status, headers: kept, body: await response.text() });
      }
    }
  } finally {
    await worker.stop();
  }
  return answers;
}

function packageAnswers() {
  const engine = new HexRisk();
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', artifacts)));
  const calls = [
    ['cellAt', () => hexrisk.cellAt(TOR.lat, TOR.lng)], ['cellAt bad', () => hexrisk.cellAt(91, 0)],
    ['gridDisk', () => hexrisk.gridDisk(TOR_CELL, 2)], ['gridDisk bad', () => hexrisk.gridDisk(TOR_CELL, 42)],
    ['cellBoundary', () => hexrisk.cellBoundary(TOR_CELL)], ['crimeClasses', () => hexrisk.crimeClasses()],
    ['riskLevel', () => hexrisk.riskLevel(0.3)], ['riskLevel bad', () => hexrisk.riskLevel(2)],
    ['palette', () => hexrisk.palette()], ['colorIndex', () => hexrisk.colorIndex(72.5)],
  ];
  for (const city of manifest.cities) {
    calls.push(['addCity', () => engine.addCity(readFileSync(new URL(city.file, artifacts)))]);
    calls.push(['streets', () => engine.streets(city.code)]);
    calls.push(['predictionRange', () => engine.predictionRange(city.code, NOW_MS)]);
  }
  const request = (name, arg) => calls.push([`${name} ${JSON.stringify(arg).slice(0, 200)}`, () => engine[name](arg, NOW_MS)]);
  for (const [, path, body] of router.concat(prediction)) {
    if (body === undefined || typeof body === 'string') continue;
    const name = { '/hexes/score': 'scoreHexes', '/hexes/lookup': 'lookup', '/route': 'route', '/evaluate': 'evaluate', '/evaluate-hex-path': 'evaluateHexPath', '/v1/predict': 'predict' }[path];
    if (name) request(name, body);
  }
  for (const fields of SEARCHES) calls.push([`search ${JSON.stringify(fields)}`, () => engine.search(fields)]);
  for (const point of REVERSES) calls.push([`reverse ${JSON.stringify(point)}`, () => engine.reverse(point)]);
  request('breakdown', { h3: TOR_CELL, intent: 'walking' });
  request('breakdown', { h3: 'zzz' });
  request('hexesInBox', { west: -79.40, south: 43.64, east: -79.37, north: 43.66 });
  request('precinctScores', { intent: 'night' });
  request('precincts', {});
  request('ringScores', { ...TOR, ring: 3 });
  request('boxScores', { west: -122.43, south: 37.77, east: -122.41, north: 37.79 });
  calls.push(['cellScores', () => engine.cellScores(new BigUint64Array([0x882b9bc46dfffffn, 1n]), { intent: 'night' }, NOW_MS)]);
  calls.push(['forecast', () => engine.forecast(TOR.lat, TOR.lng, '2022-01-05')]);
  const plain = (value) => JSON.parse(JSON.stringify(value, (_, v) => {
    if (typeof v === 'bigint') return v.toString(16);
    if (ArrayBuffer.isView(v)) return { [v.constructor.name]: Array.from(v, (x) => (typeof x === 'bigint' ? x.toString(16) : (Number.isNaN(x) ? 'NaN' : x))) };
    if (v instanceof Map) return Object.fromEntries(v);
    return v;
  }));
  return calls.map(([name, call]) => {
    try {
      return { call: name, ok: plain(call()) };
    } catch (err) {
      return { call: name, error: { code: err.code, message: err.message, details: plain(err.details ?? null) } };
    }
  });
}

const [mode, file] = process.argv.slice(2);
if (!['record', 'compare'].includes(mode) || !file) {
  console.error('usage: node scripts/answers.mjs record|compare FILE');
  process.exit(2);
}
const now = { http: await httpAnswers(), package: packageAnswers() };
if (mode === 'record') {
  writeFileSync(file, JSON.stringify(now, null, 1));
  console.log(`answers: ${now.http.length} HTTP and ${now.package.length} package answers written to ${file}`);
} else {
  const then = JSON.parse(readFileSync(file, 'utf8'));
  let differences = 0;
  for (const part of ['http', 'package']) {
    const count = Math.max(then[part].length, now[part].length);
    for (let i = 0; i < count; i += 1) {
      const [a, b] = [masked(then[part][i]), masked(now[part][i])];
      if (a !== b) {
        differences += 1;
        console.log(`differs: ${part} #${i}\n  was: ${a?.slice(0, 600)}\n  now: ${b?.slice(0, 600)}`);
      }
    }
  }
  console.log(`answers: ${now.http.length} HTTP and ${now.package.length} package answers compared, ${differences} differ`);
  process.exit(differences ? 1 : 0);
}
