// Publishing model versions to a running Worker under `wrangler dev` (real R2 and D1
// bindings): a new version published while requests of both APIs stream in is served
// within the manifest interval, with no failure and no answer mixing versions; a
// corrupt version leaves the old one serving while health says `degraded` with the
// city and the reason; publishing the old manifest again rolls back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { keyStore, publishModels, putObjects, startWorker } from '../support/wrangler.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const built = path.join(root, 'build/artifacts');
const SF = 'city_us_sfo';
// Seconds between manifest rereads in this test's Worker.
const TTL_SECONDS = 2;
// Inside San Francisco's forecast weeks in both versions below.
const WHEN = '2012-10-10T19:00:00Z';

let worker;
let key;
let state;
let next; // an artifacts folder with a second San Francisco version
let third; // and one with a third
after(() => worker?.stop());

const manifestOf = (dir) => JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const sfVersion = (dir) => manifestOf(dir).cities.find((c) => c.code === SF).version;

/** The build's artifacts plus San Francisco rebuilt from the data up to `end`: a real second version. */
async function rebuildSanFrancisco(end) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-next-'));
  const out = path.join(dir, 'artifacts');
  cpSync(built, out, { recursive: true });
  const config = path.join(dir, 'config');
  cpSync(path.join(root, 'config/cities'), config, { recursive: true });
  const toml = path.join(config, `${SF}.toml`);
  writeFileSync(toml, readFileSync(toml, 'utf8').replace(/end = "\d{4}-\d\d-\d\d"/, `end = "${end}"`));
  await run('bash', [path.join(root, 'scripts/build-tool.sh'), 'build',
    '--city', SF, '--config-dir', config, '--out', out, '--backtest-dir', path.join(dir, 'backtest'), '--model-card', path.join(dir, 'MODEL.md')],
  { cwd: root, maxBuffer: 16 << 20 });
  return out;
}

before(async () => {
  // Both builds at once, here: the second would otherwise wait in its test.
  [next, third] = await Promise.all([rebuildSanFrancisco('2012-11-30'), rebuildSanFrancisco('2012-10-31')]);
  assert.notEqual(sfVersion(next), sfVersion(built));
  assert.notEqual(sfVersion(third), sfVersion(next));
  ({ state, keys: { key } } = await keyStore('publish', { key: { kind: 'live', tier: 'enterprise', dailyLimit: 1_000_000 } }));
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_MANIFEST_TTL_SECONDS: String(TTL_SECONDS) } });
});

/** When the last answer of the Worker came back: it may have reread the manifest then. */
let lastAnswer = 0;
/** `fetch` of the Worker, noting when the answer came. */
async function fetchWorker(pathname, init) {
  const response = await fetch(`${worker.url}${pathname}`, init);
  lastAnswer = Math.max(lastAnswer, Date.now());
  return response;
}

/** One prediction and one route in San Francisco; resolves to what each says about its version. */
async function sample() {
  const started = Date.now();
  const predict = await fetchWorker('/v1/predict', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ latitude: 37.7793, longitude: -122.4193, datetime: WHEN }),
  });
  const body = await predict.json();
  const route = await fetchWorker('/route', {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ origin: { lat: 37.7793, lng: -122.4193 }, destination: { lat: 37.7749, lng: -122.4094 }, datetime: WHEN }),
  });
  await route.arrayBuffer();
  return {
    started,
    statuses: [predict.status, route.status],
    body: body.model_info?.version,
    headers: [predict.headers.get('hexrisk-model-version'), route.headers.get('hexrisk-model-version')],
  };
}

/** Requests in a loop on `lanes` connections until `stop()`; resolves to every sample. */
function stream(lanes = 3) {
  let running = true;
  const samples = [];
  const loops = Array.from({ length: lanes }, async () => {
    while (running) samples.push(await sample());
  });
  return { stop: async () => { running = false; await Promise.all(loops); return samples; } };
}

async function health() {
  const res = await fetchWorker('/health');
  return { status: res.status, body: await res.json() };
}

/**
 * Waits until the manifest interval has passed since the last answer, so the next
 * request rereads it (publishing takes longer than the interval: often no wait at all).
 */
const pastInterval = () => new Promise((resolve) => setTimeout(resolve, Math.max(0, lastAnswer + TTL_SECONDS * 1000 + 200 - Date.now())));

test('a version published under load is served within the interval, never mixed, never failing', async () => {
  const before = sfVersion(built);
  const after = sfVersion(next);
  const load = stream();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await publishModels(state, { artifacts: next });
  const published = Date.now();
  await pastInterval();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const samples = await load.stop();
  assert.ok(samples.length >= 20, `only ${samples.length} samples`);
  for (const s of samples) {
    assert.deepEqual(s.statuses, [200, 200], JSON.stringify(s));
    // Each answer is wholly one version: the header and the body agree.
    assert.equal(s.headers[0], `${SF}=${s.body}`);
    assert.ok([before, after].includes(s.body), s.body);
    assert.match(s.headers[1], new RegExp(`^${SF}=(${before}|${after})$`));
  }
  const late = samples.filter((s) => s.started > published + TTL_SECONDS * 1000);
  assert.ok(late.length > 0);
  for (const s of late) assert.equal(s.body, after, 'the new version within the interval');
  // Once switched, never back.
  const ordered = [...samples].sort((a, b) => a.started - b.started).map((s) => s.body);
  assert.ok(ordered.indexOf(after) >= 0);
  assert.ok(ordered.slice(ordered.indexOf(after) + 50).every((v) => v === after));
  const { status, body } = await health();
  assert.equal(status, 200);
  assert.equal(body.status, 'healthy');
  assert.equal(body.models.cities.find((c) => c.city === SF).version, after);
});

test('a corrupt version leaves the last good one serving, and health says which and why', async () => {
  const good = sfVersion(next);
  // A manifest naming a third San Francisco version whose file in the bucket is damaged.
  const manifest = manifestOf(third);
  const entry = manifest.cities.find((c) => c.code === SF);
  const bytes = readFileSync(path.join(third, entry.file));
  bytes[bytes.length >> 1] ^= 0xff;
  // The file first, then the manifest naming it: the Worker is running.
  await putObjects(state, { [entry.file]: bytes });
  await putObjects(state, { 'manifest.json': Buffer.from(JSON.stringify(manifest)) });
  await pastInterval();
  for (let i = 0; i < 3; i += 1) {
    const s = await sample();
    assert.deepEqual(s.statuses, [200, 200]);
    assert.equal(s.body, good);
  }
  const { status, body } = await health();
  assert.equal(status, 200);
  assert.equal(body.status, 'degraded');
  assert.equal(body.services.models, 'degraded');
  const problem = body.models.problems.find((p) => p.city === SF);
  assert.equal(problem.version, entry.version);
  assert.match(problem.reason, /SHA-256/);
  assert.equal(body.models.cities.find((c) => c.city === SF).serving, good);
  const v1 = await (await fetchWorker('/v1/health')).json();
  assert.equal(v1.status, 'degraded');
});

test('publishing an earlier manifest again rolls back, and health recovers', async () => {
  const original = manifestOf(built);
  await publishModels(state, { manifest: path.join(built, 'manifests', `${original.version}.json`) });
  await pastInterval();
  const s = await sample();
  assert.deepEqual(s.statuses, [200, 200]);
  assert.equal(s.body, sfVersion(built));
  const { status, body } = await health();
  assert.equal(status, 200);
  assert.equal(body.status, 'healthy');
  assert.equal(body.models.version, original.version);
  assert.deepEqual(body.models.problems, []);
});
