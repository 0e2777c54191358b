// The live-data loop end to end, without the internet: opendata-sim (the local
// Socrata/ArcGIS server replaying a city's real incidents on a simulated clock)
// publishes week after week; each week `hexrisk-build update` syncs and rebuilds,
// scripts/publish.sh puts the version in the local bucket (`--partial`, as the
// scheduled workflow: files already there are not sent again), and the Worker under
// `wrangler dev` (clock following the data) takes it up while traffic runs.
// Used by tests/api/feed-loop.test.mjs (a short stretch with faults) and
// bench/soak.mjs (a simulated year). docs/REFRESH.md describes the loop.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePorts, keyStore, publishModels, startWorker } from './wrangler.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DATA_DIR = process.env.HEXRISK_DATA_DIR ?? path.join(root, '../shared/data');

/** Each city the loop replays: its code, the simulated service, and its feed. */
export const CITIES = {
  houston: {
    code: 'city_us_hou',
    dataset: 'NIBRS_Recent_Crime_Reports',
    url: 'https://mycity2.houstontx.gov/pubgis02/rest/services/HPD/NIBRS_Recent_Crime_Reports/MapServer/0',
    path: '/houston/arcgis/rest/services/HPD/NIBRS_Recent_Crime_Reports/MapServer/0',
    // The 2010 file has no incident number, so the server publishes none; the
    // server keeps every row rather than a rolling 30 days, so a row it deletes is
    // deleted, however old; and it publishes the file's offence words, which the
    // source's own classes map, not NIBRS codes.
    dropFields: ['event = "USER_Incident"', 'window_days = 30', 'vocabulary = "nibrs"'],
    dropTables: [],
  },
  san_francisco: {
    code: 'city_us_sfo',
    dataset: 'wg3w-h783',
    url: 'https://data.sfgov.org/resource/wg3w-h783.json',
    path: '/resource/wg3w-h783.json',
    // The server publishes the 2012 file's categories, not wg3w-h783's.
    dropFields: ['token_env = "HEXRISK_SFGOV_APP_TOKEN"', 'vocabulary = "sfpd-incident-category"'],
    dropTables: [],
  },
  toronto: {
    code: 'city_ca_tor',
    dataset: 'Major_Crime_Indicators_Open_Data',
    url: 'https://services.arcgis.com/S9th0jAJ7bqgIRjw/ArcGIS/rest/services/Major_Crime_Indicators_Open_Data/FeatureServer/0',
    path: '/toronto/arcgis/rest/services/Major_Crime_Indicators_Open_Data/FeatureServer/0',
    dropFields: [],
    // The server replays the MCI layer only: the homicides and shootings stay
    // the shared files, which hold the modelled span at its configured end.
    dropTables: ['sources.homicides.feed', 'sources.shootings.feed'],
  },
};

const bin = (name) => path.join(root, 'target/debug', name);
const addDays = (date, days) => new Date(Date.parse(`${date}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** Starts opendata-sim; resolves to `{ url, stop }` once it listens. */
async function startSim({ city, start, seed, late, wholesaleWeek }) {
  const [port] = await freePorts(1);
  const args = ['--data-dir', DATA_DIR, '--city', city, '--start', start, '--seed', String(seed),
    '--port', String(port), '--wholesale-week', wholesaleWeek == null ? 'none' : String(wholesaleWeek)];
  if (!late) args.push('--no-lateness');
  const child = spawn(bin('opendata-sim'), args, { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`opendata-sim exited with ${code} before listening`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/**
 * `text` without the TOML table `name` and its subtables (`[name]`, `[name.x]`):
 * each header through the line before the next header (comments between go too).
 */
function withoutTable(text, name) {
  const lines = text.split('\n');
  const kept = [];
  let dropping = false;
  for (const line of lines) {
    const header = /^\[([^\]]+)\]\s*$/.exec(line);
    if (header) dropping = header[1] === name || header[1].startsWith(`${name}.`);
    if (!dropping) kept.push(line);
  }
  const out = kept.join('\n');
  if (out === text) throw new Error(`no table [${name}] to drop`);
  return out;
}

/** The city's committed config with its feed pointed at the simulated service. */
function writeConfig(dir, city, simUrl) {
  const text = readFileSync(path.join(root, 'config/cities', `${city.code}.toml`), 'utf8');
  let out = text.replace(city.url, `${simUrl}${city.path}`);
  if (out === text) throw new Error(`${city.code}.toml does not name ${city.url}`);
  for (const line of city.dropFields) out = out.replace(`${line}\n`, '');
  for (const table of city.dropTables) out = withoutTable(out, table);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${city.code}.toml`), out);
}

/**
 * Runs the loop for `weeks` simulated weeks of `city` (a key of CITIES) from `start`
 * (YYYY-MM-DD). `faults`: per week number (1-based), a list of opendata-sim fault
 * queries (`kind=private`, `kind=down&n=50`...) or field renames (`{ rename: [from,
 * to] }`) applied before that week's update and undone after it. `late`: the
 * script's late reports (default true). `score`: at the end, score the forecast
 * served each week (`report.scores`, see scoreServed). Calls `onWeek(record)` after
 * each week. Resolves to the report; it never throws for a failed update (the record
 * says so), only for a loop that cannot run.
 */
export async function runLoop({
  city: cityName, weeks, start, faults = {}, seed = 1, late = true, wholesaleWeek = null,
  trafficMs = 100, verifyClean = false, score = false, onWeek = () => {},
}) {
  const city = CITIES[cityName];
  await run('bash', [path.join(root, 'scripts/build-tool.sh'), '--built-only'], { cwd: root });
  const dir = mkdtempSync(path.join(os.tmpdir(), `hexrisk-loop-${cityName}-`));
  const sim = await startSim({ city: cityName, start, seed, late, wholesaleWeek });
  const simGet = async (query) => (await fetch(`${sim.url}${query}`)).json();
  writeConfig(path.join(dir, 'config'), city, sim.url);
  const { state, keys: { key } } = await keyStore(`loop-${cityName}`, {
    key: { kind: 'live', tier: 'enterprise', dailyLimit: 100_000_000 },
  });
  const artifacts = path.join(dir, 'artifacts');

  /** The clean build of the store as the last update left it (see cleanArtifact). */
  let latestClean = null;

  /** One update at the simulated `now`: its exit code, output and seconds. */
  async function update(now) {
    latestClean = null;
    const started = performance.now();
    const args = ['update', '--city', city.code, '--config-dir', path.join(dir, 'config'), '--out', artifacts,
      '--store', path.join(dir, 'store'), '--intake', path.join(dir, 'intake'), '--now', now, '--attempts', '3'];
    const done = await run(bin('hexrisk-build'), args, { cwd: root, env: { ...process.env, HEXRISK_DATA_DIR: DATA_DIR } })
      .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
    return { ...done, seconds: (performance.now() - started) / 1000 };
  }
  const manifest = () => JSON.parse(readFileSync(path.join(artifacts, 'manifest.json'), 'utf8')).cities.find((c) => c.code === city.code);

  /** The artifact files in the bucket: named by digest, so never changed once there. */
  const inBucket = new Set();
  /**
   * Publishes the artifacts folder with scripts/publish.sh `--partial`, as the
   * scheduled workflow does: a folder holding the manifest and only the files not in
   * the bucket yet. A week that rebuilt nothing (a failed sync) publishes its manifest
   * alone, without a third wrangler run re-sending the same files.
   */
  async function publish() {
    const staged = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-loop-publish-'));
    const { cities } = JSON.parse(readFileSync(path.join(artifacts, 'manifest.json'), 'utf8'));
    const files = cities.flatMap((c) => [c, c.grid].filter(Boolean)).map((e) => e.file).filter((f) => !inBucket.has(f));
    for (const file of files) {
      mkdirSync(path.dirname(path.join(staged, file)), { recursive: true });
      copyFileSync(path.join(artifacts, file), path.join(staged, file));
    }
    copyFileSync(path.join(artifacts, 'manifest.json'), path.join(staged, 'manifest.json'));
    await publishModels(state, { artifacts: staged, partial: true });
    for (const file of files) inBucket.add(file);
    rmSync(staged, { recursive: true, force: true });
  }

  /** The SHA-256 of the city's artifact built from scratch out of the store. */
  async function cleanBuild() {
    return (await cleanArtifact()).sha256;
  }

  /**
   * The city's artifact built from scratch out of the store: `{ sha256, file }`. Kept
   * until the next update, which may change the store (scoring after the last week
   * reuses that week's clean build: a Houston build is about 12 s).
   */
  async function cleanArtifact() {
    latestClean ??= await buildClean();
    return latestClean;
  }

  async function buildClean() {
    const clean = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-loop-clean-'));
    await run(bin('hexrisk-build'), ['build', '--city', city.code, '--config-dir', path.join(dir, 'config'),
      '--out', path.join(clean, 'artifacts'), '--backtest-dir', path.join(clean, 'backtest'), '--model-card', '',
      '--intake', path.join(clean, 'intake'), '--store', path.join(dir, 'store')],
    { cwd: root, env: { ...process.env, HEXRISK_DATA_DIR: DATA_DIR }, maxBuffer: 16 << 20 });
    const built = JSON.parse(readFileSync(path.join(clean, 'artifacts/manifest.json'), 'utf8'));
    const entry = built.cities.find((c) => c.code === city.code);
    return { sha256: entry.sha256, file: path.join(clean, 'artifacts', entry.file) };
  }

  /**
   * The forecasts served each week, scored against the incidents the store holds at
   * the end, beside the same weeks of a clean build's backtest (`hexrisk-build
   * score-served`): only weeks whose incidents are all past the data's end.
   */
  async function scoreServed(dataThrough) {
    const weeks = [...servedWeeks].filter(([monday]) => addDays(monday, 6) <= dataThrough);
    if (weeks.length === 0) return null;
    const offline = await cleanArtifact();
    const args = ['score-served', '--city', city.code, '--config-dir', path.join(dir, 'config'),
      '--intake', path.join(dir, 'intake'), '--store', path.join(dir, 'store'), '--offline', offline.file,
      ...weeks.map(([monday, file]) => `${monday}=${file}`)];
    const { stdout } = await run(bin('hexrisk-build'), args, { cwd: root, env: { ...process.env, HEXRISK_DATA_DIR: DATA_DIR }, maxBuffer: 16 << 20 });
    return JSON.parse(stdout);
  }

  const first = await update((await simGet('/_sim/clock')).clock);
  if (first.code !== 0) throw new Error(`the first update failed:\n${first.stdout}\n${first.stderr}`);
  await publish();
  const worker = await startWorker({
    persistTo: state, models: false, vars: { HEXRISK_CLOCK: 'follow-data', HEXRISK_MANIFEST_TTL_SECONDS: '1' },
  });
  const { bounds } = manifest();
  const point = `latitude=${(bounds.north + bounds.south) / 2}&longitude=${(bounds.east + bounds.west) / 2}`;
  const api = async (pathname, init = {}) => {
    const response = await fetch(`${worker.url}${pathname}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
    return { status: response.status, body: await response.json().catch(() => null) };
  };

  // Continuous traffic: undated range and prediction requests, every answer kept.
  const traffic = { requests: 0, failures: [], latencies: [] };
  let running = true;
  const trafficLoop = (async () => {
    while (running) {
      const started = performance.now();
      const answers = await Promise.all([
        api(`/v1/prediction/range?${point}`),
        api('/v1/predict', { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ latitude: (bounds.north + bounds.south) / 2, longitude: (bounds.east + bounds.west) / 2 }) }),
      ]).catch((e) => [{ status: 0, body: String(e) }]);
      traffic.latencies.push(performance.now() - started);
      for (const answer of answers) {
        traffic.requests += 1;
        if (answer.status !== 200) traffic.failures.push(answer);
      }
      await new Promise((resolve) => setTimeout(resolve, trafficMs));
    }
  })();

  /** Waits until the Worker serves `version` with freshness `failing`; the seconds it took. */
  async function servedWithin(version, failing, timeoutMs = 60_000) {
    const started = performance.now();
    for (;;) {
      const health = await (await fetch(`${worker.url}/health`)).json();
      const entry = health.models?.cities?.find((c) => c.city === city.code);
      if (entry?.serving === version && entry.version === version && entry.freshness.failing.length === failing) {
        return { seconds: (performance.now() - started) / 1000, health };
      }
      if (performance.now() - started > timeoutMs) {
        throw new Error(`the Worker did not serve ${version} (${failing} failing) within ${timeoutMs} ms: ${JSON.stringify(entry)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  // The artifact served as each week's forecast, by the week's Monday.
  const servedWeeks = new Map();
  mkdirSync(path.join(dir, 'served'), { recursive: true });
  const records = [];
  let scores = null;
  try {
    await servedWithin(manifest().version, 0);
    for (let week = 1; week <= weeks; week++) {
      const rename = (from, to) => simGet(`/_sim/rename?dataset=${city.dataset}&from=${from}&to=${to}`);
      for (const fault of faults[week] ?? []) {
        if (fault.rename) await rename(...fault.rename);
        else await simGet(`/_sim/fault?dataset=${city.dataset}&${fault}`);
      }
      const advanced = await simGet('/_sim/advance?weeks=1');
      const updated = await update(advanced.clock);
      if (faults[week]) await simGet(`/_sim/fault?dataset=${city.dataset}&kind=clear`);
      for (const fault of faults[week] ?? []) if (fault.rename) await rename(fault.rename[1], fault.rename[0]);
      const stored = /the store holds (\d+) records/.exec(updated.stdout)?.[1];
      const knownThen = /as known then: Brier ([\d.]+) \(as if complete ([\d.]+)\)/.exec(updated.stdout);
      const served = (await simGet(`/_sim/count?dataset=${city.dataset}`)).rows;
      const rebuilt = /published version/.test(updated.stdout);
      // The clean build reads the store alone: it runs while the version is
      // published and taken up (about 10 s of a Houston build beside them).
      const cleanSha = verifyClean && rebuilt ? cleanBuild() : null;
      cleanSha?.catch(() => {}); // awaited below; not unhandled if the swap throws first
      const publishStarted = performance.now();
      await publish();
      const publishSeconds = (performance.now() - publishStarted) / 1000;
      const entry = manifest();
      const failing = entry.freshness?.failing?.length ?? 0;
      const swap = await servedWithin(entry.version, failing);
      const range = await api(`/v1/prediction/range?${point}`);
      const cleanBuildMatches = cleanSha === null ? null : (await cleanSha) === entry.sha256;
      const expectedWeek = addDays(entry.data_through, 1);
      const record = {
        week, clock: advanced.clock, updateCode: updated.code, updateSeconds: updated.seconds, publishSeconds,
        storeRows: stored === undefined ? null : Number(stored), servedRows: served,
        version: entry.version, dataThrough: entry.data_through, failing,
        healthStatus: swap.health.status, swapSeconds: swap.seconds,
        currentWeek: range.body?.current_week ?? null, expectedWeek,
        brier: knownThen ? { knownThen: Number(knownThen[1]), complete: Number(knownThen[2]) } : null,
        rebuilt, cleanBuildMatches,
        output: updated.code === 0 ? undefined : `${updated.stdout}\n${updated.stderr}`,
      };
      if (record.currentWeek === expectedWeek && !servedWeeks.has(expectedWeek)) {
        const kept = path.join(dir, 'served', `${expectedWeek}.hxrk`);
        copyFileSync(path.join(artifacts, entry.file), kept);
        servedWeeks.set(expectedWeek, kept);
      }
      records.push(record);
      onWeek(record);
    }
    if (score) scores = await scoreServed(manifest().data_through);
  } finally {
    running = false;
    await trafficLoop;
    await worker.stop();
    sim.stop();
  }
  const sorted = [...traffic.latencies].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? null;
  return {
    city: city.code, weeks: records, scores, requests: traffic.requests, failures: traffic.failures,
    latencyMs: { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? null },
  };
}
