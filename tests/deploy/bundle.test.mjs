// The Worker bundle `wrangler deploy` would upload, measured without network
// (`wrangler deploy --dry-run --outdir`, `wrangler check startup`), against the Workers limits
// in scripts/check-deploy-bundle.mjs (sources in docs/DEPLOY.md). Needs `make worker`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { LIMITS, evaluate, isUploadedModule, measureBundle, measureOutdir, parseTotalUpload, report } from '../../scripts/check-deploy-bundle.mjs';

let measurement;
const measured = async () => (measurement ??= await measureBundle());

test('the bundle is within the Workers size and startup limits', async (t) => {
  const m = await measured();
  const checks = evaluate(m, { plan: process.env.HEXRISK_WORKERS_PLAN || 'free' });
  t.diagnostic(report(m, checks));
  assert.ok(m.modules.some((mod) => mod.name.endsWith('.wasm')), 'the wasm module is part of the upload');
  assert.ok(m.modules.some((mod) => mod.name === 'index.js'), 'the entry module is part of the upload');
  assert.equal(checks.length, 3, 'size, gzip and startup are all checked');
  for (const c of checks) assert.ok(c.ok, `${c.what}: ${c.value} ${c.unit} over ${c.limit} ${c.unit}`);
});

test('a bundle over a limit fails the check', async () => {
  const m = await measured();
  // The same measurement against limits just below it: every check must fail (a local
  // startup can measure 0 ms, so its limit goes below the figure, not to half of it).
  const tight = { uncompressedBytes: m.bytes - 1, compressedBytes: { free: m.gzipBytes - 1, paid: m.gzipBytes - 1 }, startupMs: m.startupMs - 1 };
  const checks = evaluate(m, { limits: tight });
  assert.deepEqual(checks.map((c) => c.ok), [false, false, false]);
  assert.match(report(m, checks), /FAIL modules, uncompressed/);
  // And the free-plan budget is the smaller one.
  assert.ok(LIMITS.compressedBytes.free < LIMITS.compressedBytes.paid);
  assert.throws(() => evaluate(m, { plan: 'pro' }), /unknown plan/);
});

test('the measurement counts what wrangler uploads: modules, not README.md or source maps', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-outdir-'));
  try {
    const js = Buffer.from('export default { fetch() { return new Response("x".repeat(100)); } };\n');
    const wasm = Buffer.alloc(3000, 7);
    writeFileSync(path.join(dir, 'index.js'), js);
    writeFileSync(path.join(dir, 'abc-index_bg.wasm'), wasm);
    writeFileSync(path.join(dir, 'index.js.map'), 'x'.repeat(50_000));
    writeFileSync(path.join(dir, 'README.md'), 'x'.repeat(50_000));
    const m = measureOutdir(dir);
    assert.deepEqual(m.modules.map((mod) => mod.name), ['index.js', 'abc-index_bg.wasm']);
    assert.equal(m.bytes, js.length + wasm.length);
    assert.equal(m.gzipBytes, gzipSync(Buffer.concat([js, wasm])).length);
    assert.equal(isUploadedModule('x.mjs'), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("wrangler's Total Upload line is read, colours or not", () => {
  assert.deepEqual(parseTotalUpload('Total Upload: 1458.13 KiB / gzip: 546.86 KiB\n'), { bytes: 1458.13 * 1024, gzipBytes: 546.86 * 1024 });
  assert.deepEqual(parseTotalUpload('Total Upload: \u001b[32m1.00 KiB / gzip: 0.50 KiB\u001b[39m'), { bytes: 1024, gzipBytes: 512 });
  assert.equal(parseTotalUpload('nothing here'), null);
});
