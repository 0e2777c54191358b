// Starts the edge Worker under `wrangler dev` (real workerd) for API tests.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { applyMigrations, issueKeys } from '../../scripts/operator.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);
const ARTIFACTS = path.join(root, 'build/artifacts');
/** The local R2 store under a `--persist-to` folder. */
const R2_DIR = ['v3', 'r2'];
/** The local D1 databases under a `--persist-to` folder. */
const D1_DIR = ['v3', 'd1'];

const bin = path.join(root, 'node_modules/.bin');
/** The environment of a wrangler run here: the repository's tools, nothing sent anywhere. */
const WRANGLER_ENV = {
  ...process.env, PATH: `${bin}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  // Node keeps wrangler's compiled code between runs (as the Makefile sets for `make`).
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(root, 'build/node-compile-cache'),
};

/**
 * Publishes a model version into the local bucket of `state` (a `--persist-to` folder)
 * with scripts/publish.sh, the command `make run` and `make publish` use. Options:
 * `artifacts` (an artifacts folder, default build/artifacts), `manifest` (another
 * manifest of that folder, to roll back), `partial` (the folder holds only some of the
 * files its manifest names, the others being in the bucket already: publish.sh
 * `--partial`, as the scheduled workflow publishes).
 */
export async function publishModels(state, { artifacts = ARTIFACTS, manifest, partial = false } = {}) {
  const args = [path.join(root, 'scripts/publish.sh'), '--persist-to', state, '--artifacts', artifacts];
  if (manifest) args.push('--manifest', manifest);
  if (partial) args.push('--partial');
  const { stdout } = await run('bash', args, { env: WRANGLER_ENV });
  return stdout;
}

/**
 * Puts `objects` (key to bytes, a Buffer each, stored as is) into the local bucket of
 * `state` in one wrangler run (`r2 bulk put`): a run costs a second or two of starting,
 * whatever it puts. The objects land side by side, in no set order: a test that a
 * running Worker must see one before another puts them in separate calls.
 */
export async function putObjects(state, objects) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-objects-'));
  const list = Object.entries(objects).map(([key, bytes], i) => {
    const file = path.join(dir, String(i));
    writeFileSync(file, bytes);
    return { key, file };
  });
  writeFileSync(path.join(dir, 'list.json'), JSON.stringify(list));
  await run(path.join(bin, 'wrangler'), ['r2', 'bulk', 'put', 'hexrisk-models', '--filename', path.join(dir, 'list.json'), '--local', '--persist-to', state], {
    cwd: path.join(root, 'edge-worker'), env: WRANGLER_ENV,
  });
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The folder `template`, made by `fill(scratch)` if it is not there yet. Test files run
 * side by side, so two processes may make one at once: each fills its own folder and
 * renames it into place, and the one that comes second drops its copy. A template is
 * therefore whole or absent (`part`, a path inside it, says which), and a whole one is
 * never removed while another process may be copying it.
 */
async function template(folder, part, fill) {
  if (existsSync(path.join(folder, ...part))) return folder;
  mkdirSync(path.dirname(folder), { recursive: true });
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-template-'));
  await fill(scratch);
  const partial = mkdtempSync(`${folder}.partial-`);
  cpSync(scratch, partial, { recursive: true });
  rmSync(scratch, { recursive: true, force: true });
  try {
    renameSync(partial, folder);
  } catch (error) {
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    if (!existsSync(path.join(folder, ...part))) {
      // A folder without its part is an older run's, cut short.
      rmSync(folder, { recursive: true, force: true });
      renameSync(partial, folder);
    } else {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return folder;
}

/**
 * Fills the local bucket of `state` with the build's models: published once per
 * manifest version into build/r2-template/<version> (publishing takes seconds), then
 * copied into each new state folder.
 */
async function withBuildModels(state) {
  const { version } = JSON.parse(readFileSync(path.join(ARTIFACTS, 'manifest.json'), 'utf8'));
  const models = await template(path.join(root, 'build/r2-template', version), R2_DIR, (scratch) => publishModels(scratch));
  if (!existsSync(path.join(state, ...R2_DIR))) {
    cpSync(path.join(models, ...R2_DIR), path.join(state, ...R2_DIR), { recursive: true });
  }
}

/**
 * Gives `state` a key store with every migration applied: applied once per set of
 * migrations and wrangler version into build/d1-template/<digest> (a wrangler start of
 * seconds), then copied into each new state folder.
 */
async function withMigratedKeyStore(state) {
  const migrations = path.join(root, 'edge-worker/migrations');
  const hash = createHash('sha256');
  hash.update(readFileSync(path.join(root, 'node_modules/wrangler/package.json')));
  for (const name of readdirSync(migrations).sort()) {
    hash.update(`${name}\0`).update(readFileSync(path.join(migrations, name)));
  }
  const folder = path.join(root, 'build/d1-template', hash.digest('hex').slice(0, 16));
  const store = await template(folder, D1_DIR, (scratch) => applyMigrations({ stateDir: scratch }));
  cpSync(path.join(store, ...D1_DIR), path.join(state, ...D1_DIR), { recursive: true });
}

/**
 * `count` distinct TCP ports that were free a moment ago: all are held open until the
 * last is found, since a port just closed may be handed out again at once.
 */
export async function freePorts(count) {
  const servers = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = net.createServer();
      servers.push(server);
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((server) => server.address().port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/**
 * Runs `wrangler dev` on a free port and resolves once it serves requests.
 * `persistTo` keeps Durable Object / D1 state between restarts (a fresh temp dir by default);
 * `port` reuses a port (to restart a Worker where its clients expect it).
 * `readyPath` is polled until it answers (`/openapi.json` reads no model: a cold start
 * stays cold); `workerDir` runs another checkout's Worker (benchmarks against a base).
 * `models`: `'build'` (default) puts the build's models in the local bucket unless it
 * has some already; `false` leaves the bucket as it is (a test publishes its own).
 * `stop(signal)` ends wrangler and workerd (SIGTERM by default; SIGKILL for a crash).
 */
export async function startWorker(options = {}) {
  // A port found free is released before wrangler binds it, so another process
  // starting beside this one (a miniflare of another suite) may take it first: then
  // the answer comes from that process, not this Worker, and a fresh pair is tried.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startWorkerOnce(options);
    } catch (error) {
      if (!(error instanceof PortTaken) || options.port !== undefined || attempt === 3) throw error;
    }
  }
}

/** The chosen port answered, but not as this Worker does. */
class PortTaken extends Error {}

async function startWorkerOnce({
  persistTo, vars = {}, models = 'build', port: fixedPort, timeoutMs = 90_000,
  readyPath = '/v1/health', workerDir = path.join(root, 'edge-worker'),
} = {}) {
  const [freeA, freeB] = await freePorts(2);
  // A fixed port may equal a fresh one: then the inspector takes the other.
  const port = fixedPort ?? freeA;
  const inspectorPort = port === freeB ? freeA : freeB;
  const state = persistTo ?? mkdtempSync(path.join(os.tmpdir(), 'hexrisk-wrangler-'));
  if (models === 'build') await withBuildModels(state);
  const child = spawn(
    path.join(bin, 'wrangler'),
    ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspectorPort),
      '--persist-to', state, '--show-interactive-dev-session=false', '--log-level', process.env.WRANGLER_LOG_LEVEL ?? 'warn',
      ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`])],
    {
      cwd: workerDir,
      env: { ...WRANGLER_ENV, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const url = `http://127.0.0.1:${port}`;
  const stop = (signal = 'SIGTERM') => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    // The process group holds wrangler and its workerd child.
    try { process.kill(-child.pid, signal); } catch { resolve(); }
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${output}`);
    let response;
    try {
      response = await fetch(`${url}${readyPath}`);
      await response.arrayBuffer();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    // Every answer of the Worker carries its security headers; another server's does not.
    if (response.headers.get('x-content-type-options') === 'nosniff') {
      return { url, port, stop, state, output: () => output };
    }
    await stop();
    throw new PortTaken(`port ${port} answered ${response.status} without the Worker's headers:\n${output}`);
  }
  await stop();
  throw new Error(`wrangler dev did not answer within ${timeoutMs} ms:\n${output}`);
}

/**
 * A fresh local key store (D1 migrated) in a temp dir named after `name`, with a key
 * issued for each entry of `specs` (`issueKey` options): resolves to `{ state, keys }`,
 * `keys` holding the key text under the same names. Pass `state` as `persistTo`.
 */
export async function keyStore(name, specs = {}) {
  const state = mkdtempSync(path.join(os.tmpdir(), `hexrisk-${name}-`));
  await withMigratedKeyStore(state);
  const labels = Object.keys(specs);
  const issued = await issueKeys(Object.values(specs), { stateDir: state });
  const keys = Object.fromEntries(labels.map((label, i) => [label, issued[i].key]));
  return { state, keys };
}
