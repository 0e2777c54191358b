// The npm package as a user gets it: `npm pack` makes a tarball that installs into a
// fresh Node project and a fresh Vite project and works in both: in Node by import
// alone, in the browser (headless Chromium, every non-local request blocked) from the
// bundle Vite builds. Both load a real city artifact, score it with the default entry
// and plan a route offline with `hexrisk/roads`.
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

// The package's budget (issues 7 and 43): the wasm its default entry loads under 300 KB
// gzipped. The road operations (routes, reach, evaluation, places, streets), which did
// not fit, are the `hexrisk/roads` entry's engine, loaded on demand.
const BUDGET_WASM_GZIPPED = 300_000; // 300 KB, read strictly: not KiB
// A ratchet, not a budget: the roads engine must not grow past what it weighs now;
// lowered as it shrinks, never raised.
const RATCHET_ROADS_WASM_GZIPPED = 334 * 1024;

const gzipped = (file) => gzipSync(readFileSync(path.join(root, 'pkg', file)), { level: 9 }).length;

test('the default entry\'s wasm is under 300 KB gzipped, and the roads engine has not grown past its ratchet', () => {
  const grid = gzipped('dist/web/hexrisk_engine_bg.wasm');
  assert.ok(grid < BUDGET_WASM_GZIPPED, `wasm ${grid} B gzipped, over the 300 KB budget`);
  const roads = gzipped('dist/roads/web/hexrisk_engine_bg.wasm');
  assert.ok(roads < RATCHET_ROADS_WASM_GZIPPED, `roads wasm ${roads} B gzipped, grown past 334 KiB`);
});

test('the tarball holds both engines\' builds, types and README; only the roads engine routes', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout.trim().split('\n').map((f) => f.replace(/^package\//, ''));
  const builds = ['web/hexrisk_engine.js', 'web/hexrisk_engine.d.ts', 'web/hexrisk_engine_bg.wasm', 'web/unpack.js', 'node/hexrisk_engine.js', 'node/hexrisk_engine_bg.wasm', 'node/unpack.js'];
  for (const file of ['package.json', 'README.md', ...builds.map((b) => `dist/${b}`), ...builds.map((b) => `dist/roads/${b}`), 'dist/style.js', 'maplibre.js', 'maplibre.d.ts']) {
    assert.ok(files.includes(file), `${file} missing from the tarball`);
  }
  const methods = (file) => new Set([...readFileSync(path.join(root, 'pkg', file), 'utf8').matchAll(/^    (\w+)\(/gm)].map((m) => m[1]));
  const grid = methods('dist/web/hexrisk_engine.d.ts');
  const roads = methods('dist/roads/web/hexrisk_engine.d.ts');
  for (const name of ['addCity', 'predict', 'scoreHexes', 'hexesInBox', 'tile', 'routeRisk']) {
    assert.ok(grid.has(name) && roads.has(name), `${name} in both engines' types`);
  }
  for (const name of ['route', 'reach', 'evaluate', 'evaluateHexPath', 'search', 'reverse', 'streetsInBox', 'streets']) {
    assert.ok(!grid.has(name) && roads.has(name), `${name} in the roads engine's types only`);
  }
  assert.match(readFileSync(path.join(root, 'pkg/dist/web/hexrisk_engine.d.ts'), 'utf8'), /interface RouteRequest/);
});

test('a fresh Node project installs the tarball and routes offline', async () => {
  const dir = path.join(work, 'node-app');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-app', private: true, type: 'module' }));
  await npm(['install', tarball], dir);
  writeFileSync(path.join(dir, 'main.mjs'), `
    import { readFileSync } from 'node:fs';
    import { HexRisk, cellAt } from 'hexrisk';
    import { HexRisk as RoadsHexRisk } from 'hexrisk/roads';
    const bytes = readFileSync(process.argv[2]);
    const grid = new HexRisk();
    grid.addCity(bytes);
    const predicted = grid.predict({ latitude: 43.6532, longitude: -79.3832, datetime: '2022-01-03T12:00:00Z' });
    const engine = new RoadsHexRisk();
    engine.addCity(bytes);
    const route = engine.route({ origin: { lat: 43.6453, lng: -79.3806 }, destination: { lat: 43.6645, lng: -79.4206 } }, Date.UTC(2022, 0, 3, 12));
    console.log(JSON.stringify({ cell: cellAt(43.6532, -79.3832), predictedCell: predicted.location.cell_id, gridRoutes: 'route' in grid, network: route.network, cells: route.hexPath.length, km: route.best.metrics.distanceM / 1000 }));
  `);
  const { stdout } = await run(node, ['main.mjs', artifact], { cwd: dir });
  const out = JSON.parse(stdout);
  assert.equal(out.cell, '882b9bc46dfffff');
  assert.equal(out.predictedCell, out.cell);
  assert.equal(out.gridRoutes, false);
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
    const bytes = new Uint8Array(await (await fetch('/city_ca_tor.hxrk')).arrayBuffer());
    const grid = new HexRisk();
    grid.addCity(bytes);
    const scored = grid.scoreHexes({ hexIds: [cellAt(43.6532, -79.3832)] }, Date.UTC(2022, 0, 3, 12));
    // The road operations' engine, fetched only now.
    const wasmBefore = performance.getEntriesByType('resource').filter((r) => r.name.endsWith('.wasm')).length;
    const roads = await import('hexrisk/roads');
    await roads.default();
    const engine = new roads.HexRisk();
    engine.addCity(bytes);
    const route = engine.route({ origin: { lat: 43.6453, lng: -79.3806 }, destination: { lat: 43.6645, lng: -79.4206 } }, Date.UTC(2022, 0, 3, 12));
    const wasmAfter = performance.getEntriesByType('resource').filter((r) => r.name.endsWith('.wasm')).length;
    document.getElementById('out').textContent = JSON.stringify({ cell: cellAt(43.6532, -79.3832), scored: scored[0].h3, wasmBefore, wasmAfter, network: route.network, cells: route.hexPath.length });
  `);
  await run(node, [path.join(dir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], { cwd: dir });
  const assets = readdirSync(path.join(dir, 'dist/assets'));
  const wasm = assets.filter((f) => f.endsWith('.wasm'));
  assert.equal(wasm.length, 2, `two wasm files (the grid and roads engines) in ${assets}`);
  for (const file of wasm) assert.ok(statSync(path.join(dir, 'dist/assets', file)).size > 100_000);

  const site = sirv(path.join(dir, 'dist'), { dev: true });
  const server = http.createServer((req, res) => site(req, res, () => { res.statusCode = 404; res.end(); }));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { browser, page, consoleErrors, blocked } = await openPage();
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => document.getElementById('out').textContent.startsWith('{'), null, { timeout: 30_000 });
    const out = JSON.parse(await page.textContent('#out'));
    assert.equal(out.cell, '882b9bc46dfffff');
    assert.equal(out.scored, out.cell);
    assert.deepEqual([out.wasmBefore, out.wasmAfter], [1, 2], 'the roads engine is fetched when imported, not before');
    assert.equal(out.network, 'roads');
    assert.ok(out.cells > 5);
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(blocked, []);
  } finally {
    await browser.close();
    server.close();
  }
});
