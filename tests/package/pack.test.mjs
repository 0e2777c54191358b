// The npm package as a user gets it: `npm pack` makes a tarball that installs into a
// fresh Node project and a fresh Vite project and works in both: in Node by import
// alone, in the browser (headless Chromium, every non-local request blocked) from the
// bundle Vite builds. Both load a real city artifact and plan a route offline.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import http from 'node:http';
import sirv from 'sirv';
import { openPage } from '../support/browser.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const node = process.execPath;
const work = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-pack-'));
const artifacts = path.join(root, 'build/artifacts');
const artifact = path.join(artifacts, JSON.parse(readFileSync(path.join(artifacts, 'manifest.json'))).cities.find((c) => c.code === 'city_ca_tor').file);
// The Vite release the package is tested against (installed from npm into a temp dir).
const VITE = 'vite@8.3.8';
let tarball;

async function npm(args, cwd) {
  // npm runs under the same Node as the tests (22), with the repository's npm cache.
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'], {
    cwd,
    env: { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH}` },
    maxBuffer: 1 << 24,
  });
}

before(async () => {
  const { stdout } = await npm(['pack', '--pack-destination', work], path.join(root, 'pkg'));
  tarball = path.join(work, stdout.trim().split('\n').at(-1));
});

after(() => rmSync(work, { recursive: true, force: true }));

// The package's budget (issue 7): its wasm under 300 KB gzipped. Not met since street-level
// risk, directions, place search and reverse lookup landed (333.6 KiB on 2026-11-28;
// docs/BENCHMARKS.md): the test runs and reports it as a todo until the wasm fits, and
// the budget is never raised to pass.
const BUDGET_WASM_GZIPPED = 300_000; // 300 KB, read strictly: not KiB
// A ratchet, not a budget: while the budget is not met, the wasm must not grow past what it
// weighs now; lowered as the wasm shrinks, never raised.
const RATCHET_WASM_GZIPPED = 334 * 1024;

const gzippedWasm = () => gzipSync(readFileSync(path.join(root, 'pkg/dist/web/hexrisk_engine_bg.wasm')), { level: 9 }).length;

test('the wasm is under 300 KB gzipped', { todo: 'budget not met: 333.6 KiB (docs/BENCHMARKS.md)' }, () => {
  const bytes = gzippedWasm();
  assert.ok(bytes < BUDGET_WASM_GZIPPED, `wasm ${bytes} B gzipped, over the 300 KB budget`);
});

test('the tarball holds the builds, types and README, and the wasm has not grown past its ratchet', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout.trim().split('\n').map((f) => f.replace(/^package\//, ''));
  for (const file of ['package.json', 'README.md', 'dist/web/hexrisk_engine.js', 'dist/web/hexrisk_engine.d.ts', 'dist/web/hexrisk_engine_bg.wasm', 'dist/web/unpack.js', 'dist/node/hexrisk_engine.js', 'dist/node/unpack.js', 'dist/style.js', 'maplibre.js', 'maplibre.d.ts']) {
    assert.ok(files.includes(file), `${file} missing from the tarball`);
  }
  const bytes = gzippedWasm();
  assert.ok(bytes < RATCHET_WASM_GZIPPED, `wasm ${bytes} B gzipped, grown past 334 KiB`);
  const types = readFileSync(path.join(root, 'pkg/dist/web/hexrisk_engine.d.ts'), 'utf8');
  for (const name of ['RouteRequest', 'RouteResponse', 'scoreHexes', 'evaluateHexPath', 'hexesInBox']) assert.match(types, new RegExp(name));
});

test('a fresh Node project installs the tarball and routes offline', async () => {
  const dir = path.join(work, 'node-app');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-app', private: true, type: 'module' }));
  await npm(['install', tarball], dir);
  writeFileSync(path.join(dir, 'main.mjs'), `
    import { readFileSync } from 'node:fs';
    import { HexRisk, cellAt } from 'hexrisk';
    const engine = new HexRisk();
    engine.addCity(readFileSync(process.argv[2]));
    const route = engine.route({ origin: { lat: 43.6453, lng: -79.3806 }, destination: { lat: 43.6645, lng: -79.4206 } }, Date.UTC(2022, 0, 3, 12));
    console.log(JSON.stringify({ cell: cellAt(43.6532, -79.3832), network: route.network, cells: route.hexPath.length, km: route.best.metrics.distanceM / 1000 }));
  `);
  const { stdout } = await run(node, ['main.mjs', artifact], { cwd: dir });
  const out = JSON.parse(stdout);
  assert.equal(out.cell, '882b9bc46dfffff');
  assert.equal(out.network, 'roads');
  assert.ok(out.cells > 5 && out.km > 3 && out.km < 10, stdout);
});

test('a fresh Vite project bundles the tarball and the page routes in Chromium', async () => {
  const dir = path.join(work, 'vite-app');
  mkdirSync(path.join(dir, 'public'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'vite-app', private: true, type: 'module' }));
  await npm(['install', VITE, tarball], dir);
  copyFileSync(artifact, path.join(dir, 'public/city_ca_tor.hxrk'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>app</title><pre id="out">loading</pre><script type="module" src="/main.js"></script>');
  writeFileSync(path.join(dir, 'main.js'), `
    import init, { HexRisk, cellAt } from 'hexrisk';
    await init();
    const engine = new HexRisk();
    engine.addCity(new Uint8Array(await (await fetch('/city_ca_tor.hxrk')).arrayBuffer()));
    const route = engine.route({ origin: { lat: 43.6453, lng: -79.3806 }, destination: { lat: 43.6645, lng: -79.4206 } }, Date.UTC(2022, 0, 3, 12));
    document.getElementById('out').textContent = JSON.stringify({ cell: cellAt(43.6532, -79.3832), network: route.network, cells: route.hexPath.length });
  `);
  await run(node, [path.join(dir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], { cwd: dir });
  const assets = readdirSync(path.join(dir, 'dist/assets'));
  const wasm = assets.find((f) => f.endsWith('.wasm'));
  assert.ok(wasm, `no wasm in ${assets}`);
  assert.ok(statSync(path.join(dir, 'dist/assets', wasm)).size > 100_000);

  const site = sirv(path.join(dir, 'dist'), { dev: true });
  const server = http.createServer((req, res) => site(req, res, () => { res.statusCode = 404; res.end(); }));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { browser, page, consoleErrors, blocked } = await openPage();
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => document.getElementById('out').textContent.startsWith('{'), null, { timeout: 30_000 });
    const out = JSON.parse(await page.textContent('#out'));
    assert.equal(out.cell, '882b9bc46dfffff');
    assert.equal(out.network, 'roads');
    assert.ok(out.cells > 5);
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(blocked, []);
  } finally {
    await browser.close();
    server.close();
  }
});
