// Measures the Worker bundle that `wrangler deploy` would upload, without network, and fails
// above the Workers limits:
//
//   node scripts/check-deploy-bundle.mjs [--config FILE] [--plan free|paid] [--no-startup]
//
// It runs `wrangler deploy --dry-run --outdir` on the built Worker (`make worker`), sums the
// uploaded modules (the JavaScript entry and the wasm; not README.md or source maps, which
// wrangler does not upload) and their gzip, and compares its sum with wrangler's own
// "Total Upload" line so the two cannot drift apart. Then `wrangler check startup` profiles
// the Worker's startup on the local workerd. Limits and their sources: docs/DEPLOY.md.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'node_modules/.bin');
const KiB = 1024;
const MiB = 1024 * KiB;
const MB = 1000 * 1000;

/**
 * Workers limits as read in the Cloudflare docs (docs/DEPLOY.md cites each page):
 * https://developers.cloudflare.com/workers/platform/limits/ . The page now lists one Worker
 * size limit of 64 MiB on every plan (uncompressed, all modules); earlier versions of it, and
 * wrangler's old error message, set 3 MB (Free) and 10 MB (Paid) after compression. The
 * compressed limits are kept as a budget, in decimal MB (the smaller reading of "3 MB"), so a
 * bundle that passes here passes under either rule. Startup: 1 second on the current page
 * (400 ms on earlier ones); measured here on the local workerd, an indication only.
 */
export const LIMITS = {
  uncompressedBytes: 64 * MiB,
  compressedBytes: { free: 3 * MB, paid: 10 * MB },
  startupMs: 1000,
};

const wranglerEnv = () => ({
  ...process.env,
  PATH: `${bin}:${process.env.PATH}`,
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  CI: 'true',
});

/** Files wrangler writes into --outdir that are not uploaded as modules. */
export function isUploadedModule(name) {
  return name !== 'README.md' && !name.endsWith('.map');
}

/** "Total Upload: 1458.13 KiB / gzip: 546.86 KiB" from wrangler's output, in bytes, or null. */
export function parseTotalUpload(output) {
  // eslint-disable-next-line no-control-regex
  const m = output.replace(/\u001b\[[0-9;]*m/g, '').match(/Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/);
  return m ? { bytes: Number(m[1]) * KiB, gzipBytes: Number(m[2]) * KiB } : null;
}

/**
 * The uploaded modules of a `wrangler deploy --outdir` folder: `{ modules: [{ name, bytes }],
 * bytes, gzipBytes }`, gzip taken over the modules concatenated (as wrangler measures it),
 * the entry module `main` first.
 */
export function measureOutdir(outdir, main = 'index.js') {
  const names = readdirSync(outdir).filter((n) => statSync(path.join(outdir, n)).isFile() && isUploadedModule(n));
  names.sort((a, b) => (a === main ? -1 : b === main ? 1 : a.localeCompare(b)));
  if (!names.includes(main)) throw new Error(`no ${main} in ${outdir}: did wrangler bundle the Worker?`);
  const contents = names.map((n) => readFileSync(path.join(outdir, n)));
  return {
    modules: names.map((name, i) => ({ name, bytes: contents[i].length })),
    bytes: contents.reduce((sum, c) => sum + c.length, 0),
    gzipBytes: gzipSync(Buffer.concat(contents)).length,
  };
}

/** Active CPU time of a startup .cpuprofile in ms (samples minus idle, as wrangler counts it). */
export function startupActiveMs(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  let active = 0;
  (profile.timeDeltas ?? []).forEach((delta, i) => {
    if (nodes.get(profile.samples[i])?.callFrame.functionName !== '(idle)') active += delta;
  });
  return active / 1000;
}

/** Runs wrangler's dry-run bundle (and the startup profile unless `startup` is false). */
export async function measureBundle({ config = path.join(root, 'edge-worker/wrangler.toml'), startup = true } = {}) {
  const work = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-bundle-'));
  try {
    const outdir = path.join(work, 'out');
    const opts = { cwd: path.dirname(config), env: wranglerEnv(), maxBuffer: 16 << 20 };
    let output;
    try {
      const r = await run(path.join(bin, 'wrangler'), ['deploy', '--dry-run', '--outdir', outdir, '-c', config], opts);
      output = r.stdout + r.stderr;
    } catch (err) {
      throw new Error(`wrangler deploy --dry-run failed (is the Worker built? make worker):\n${err.stdout ?? ''}${err.stderr ?? err.message}`);
    }
    const measured = measureOutdir(outdir);
    const wrangler = parseTotalUpload(output);
    if (!wrangler) throw new Error(`wrangler printed no "Total Upload" line:\n${output}`);
    // wrangler prints KiB with two decimals: agree within that rounding.
    if (Math.abs(wrangler.bytes - measured.bytes) > 0.006 * KiB) {
      throw new Error(`measured ${measured.bytes} B of modules but wrangler reports ${wrangler.bytes.toFixed(0)} B: the module set differs (${measured.modules.map((m) => m.name).join(', ')})`);
    }
    let startupMs = null;
    if (startup) {
      const profilePath = path.join(work, 'startup.cpuprofile');
      try {
        await run(path.join(bin, 'wrangler'), ['check', 'startup', '--outfile', profilePath, '-c', config], opts);
      } catch (err) {
        throw new Error(`wrangler check startup failed:\n${err.stdout ?? ''}${err.stderr ?? err.message}`);
      }
      startupMs = startupActiveMs(JSON.parse(readFileSync(profilePath, 'utf8')));
    }
    const version = JSON.parse(readFileSync(path.join(root, 'node_modules/wrangler/package.json'), 'utf8')).version;
    return { ...measured, wranglerReport: wrangler, startupMs, config, wranglerVersion: version };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The limit checks of a measurement: `[{ what, value, limit, ok }]`. */
export function evaluate(measurement, { plan = 'free', limits = LIMITS } = {}) {
  const compressedLimit = limits.compressedBytes[plan];
  if (compressedLimit === undefined) throw new Error(`unknown plan ${plan} (free or paid)`);
  const gzip = Math.max(measurement.gzipBytes, Math.round(measurement.wranglerReport?.gzipBytes ?? 0));
  const checks = [
    { what: 'modules, uncompressed (all plans)', value: measurement.bytes, limit: limits.uncompressedBytes, unit: 'B' },
    { what: `modules, gzip (${plan}-plan budget)`, value: gzip, limit: compressedLimit, unit: 'B' },
  ];
  if (measurement.startupMs !== null && measurement.startupMs !== undefined) {
    checks.push({ what: 'startup CPU, local workerd', value: measurement.startupMs, limit: limits.startupMs, unit: 'ms' });
  }
  return checks.map((c) => ({ ...c, ok: c.value <= c.limit }));
}

const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

/** The report printed by the CLI and the tests. */
export function report(measurement, checks) {
  const lines = [`Worker bundle (wrangler ${measurement.wranglerVersion} deploy --dry-run -c ${path.relative(root, measurement.config)}):`];
  for (const m of measurement.modules) lines.push(`  ${m.name.padEnd(56)} ${fmt(m.bytes).padStart(11)} B`);
  lines.push(`  total ${fmt(measurement.bytes)} B (${(measurement.bytes / KiB).toFixed(2)} KiB), gzip ${fmt(measurement.gzipBytes)} B (${(measurement.gzipBytes / KiB).toFixed(2)} KiB); wrangler: ${(measurement.wranglerReport.bytes / KiB).toFixed(2)} KiB / gzip ${(measurement.wranglerReport.gzipBytes / KiB).toFixed(2)} KiB`);
  for (const c of checks) {
    lines.push(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.what}: ${fmt(c.value)} ${c.unit} of ${fmt(c.limit)} ${c.unit} (${((100 * c.value) / c.limit).toFixed(1)}%)`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const value = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
  try {
    const config = path.resolve(value('--config', path.join(root, 'edge-worker/wrangler.toml')));
    const plan = value('--plan', process.env.HEXRISK_WORKERS_PLAN || 'free');
    const measurement = await measureBundle({ config, startup: !args.includes('--no-startup') });
    const checks = evaluate(measurement, { plan });
    console.log(report(measurement, checks));
    if (checks.some((c) => !c.ok)) {
      console.error('check-deploy-bundle: the Worker is over a Workers limit (docs/DEPLOY.md)');
      process.exit(1);
    }
  } catch (err) {
    console.error(`check-deploy-bundle: ${err.message}`);
    process.exit(2);
  }
}
