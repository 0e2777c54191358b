// scripts/publish.sh against a stand-in wrangler (first on PATH) that logs every call:
// the artifact files the manifest names go in one `r2 bulk put`, then the version's
// manifest copy, and manifest.json last; --partial sends only the files its folder
// holds; a file that does not match the manifest stops it before any upload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(root, 'build/artifacts');

// Logs one JSON line per call: its arguments and, for a bulk put, the objects its list
// names (the list is a temporary file publish.sh removes), each with its file's size.
const FAKE_WRANGLER = `#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
const entry = { args };
const list = args.indexOf('--filename');
if (list >= 0) {
  entry.objects = JSON.parse(fs.readFileSync(args[list + 1], 'utf8'))
    .map(({ key, file }) => ({ key, bytes: fs.statSync(file).size }));
}
fs.appendFileSync(process.env.FAKE_WRANGLER_LOG, JSON.stringify(entry) + '\\n');
`;

/** A folder with the stand-in wrangler; `publish(...args)` runs publish.sh with it. */
function standIn() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-publish-'));
  mkdirSync(path.join(dir, 'bin'));
  writeFileSync(path.join(dir, 'bin/wrangler'), FAKE_WRANGLER);
  chmodSync(path.join(dir, 'bin/wrangler'), 0o755);
  const log = path.join(dir, 'calls.log');
  const env = { ...process.env, PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, FAKE_WRANGLER_LOG: log };
  delete env.HEXRISK_WRANGLER_CONFIG;
  return {
    dir,
    publish: (...args) => run('bash', [path.join(root, 'scripts/publish.sh'), '--remote', ...args], { cwd: root, env }),
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line)) : []),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const manifest = JSON.parse(readFileSync(path.join(ARTIFACTS, 'manifest.json'), 'utf8'));
/** The files of the manifest's cities: each artifact and its grid file. */
const filesOf = (cities) => cities.flatMap((c) => [c, c.grid].filter(Boolean)).map((e) => ({ key: e.file, bytes: e.bytes }));
const option = (args, name) => args[args.indexOf(name) + 1];
/** Copies the build's file `key` into `folder`, under the same path. */
function copyInto(folder, key) {
  mkdirSync(path.dirname(path.join(folder, key)), { recursive: true });
  copyFileSync(path.join(ARTIFACTS, key), path.join(folder, key));
}

/** Checks the two manifest puts that end every publish, manifest.json last. */
function assertManifestsLast(calls) {
  const [copy, current] = calls.slice(-2).map((c) => c.args);
  assert.deepEqual(copy.slice(0, 4), ['r2', 'object', 'put', `hexrisk-models/manifests/${manifest.version}.json`]);
  assert.deepEqual(current.slice(0, 4), ['r2', 'object', 'put', 'hexrisk-models/manifest.json']);
  for (const args of [copy, current]) {
    assert.equal(option(args, '--content-type'), 'application/json');
    assert.equal(option(args, '--file'), path.join(ARTIFACTS, 'manifest.json'));
    assert.ok(args.includes('--remote'));
  }
}

test('a publish sends every file the manifest names in one bulk put, then the manifests, manifest.json last', async () => {
  const wrangler = standIn();
  try {
    const { stdout } = await wrangler.publish();
    const calls = wrangler.calls();
    assert.equal(calls.length, 3, JSON.stringify(calls));
    const [bulk] = calls;
    assert.deepEqual(bulk.args.slice(0, 4), ['r2', 'bulk', 'put', 'hexrisk-models']);
    assert.equal(option(bulk.args, '--content-type'), 'application/octet-stream');
    assert.ok(bulk.args.includes('--remote'));
    assert.deepEqual(bulk.objects, filesOf(manifest.cities));
    assertManifestsLast(calls);
    assert.match(stdout, new RegExp(`published model version ${manifest.version.replace('.', '\\.')} \\(${filesOf(manifest.cities).length + 1} files\\)`));
  } finally {
    wrangler.close();
  }
});

test('--partial sends only the files its folder holds, and none when it holds none', async () => {
  const wrangler = standIn();
  try {
    const [first] = manifest.cities;
    for (const held of [[first], []]) {
      const folder = path.join(wrangler.dir, `artifacts-${held.length}`);
      mkdirSync(folder);
      copyInto(folder, 'manifest.json');
      for (const { key } of filesOf(held)) copyInto(folder, key);
      rmSync(path.join(wrangler.dir, 'calls.log'), { force: true });
      await wrangler.publish('--partial', '--artifacts', folder);
      const calls = wrangler.calls();
      const bulk = calls.filter((c) => c.args[1] === 'bulk');
      if (held.length === 0) assert.deepEqual(bulk, []);
      else assert.deepEqual(bulk.map((c) => c.objects), [filesOf(held)]);
      assert.equal(calls.length, bulk.length + 2);
      assertManifestsLast(calls.map((c) => ({ args: c.args.map((a) => a.replace(folder, ARTIFACTS)) })));
    }
  } finally {
    wrangler.close();
  }
});

test('a file that does not match the manifest stops the publish before any upload', async () => {
  const wrangler = standIn();
  try {
    const folder = path.join(wrangler.dir, 'artifacts');
    mkdirSync(folder);
    copyInto(folder, 'manifest.json');
    const files = filesOf(manifest.cities);
    for (const { key } of files) copyInto(folder, key);
    const damaged = path.join(folder, files[0].key);
    const bytes = readFileSync(damaged);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(damaged, bytes);
    await assert.rejects(wrangler.publish('--artifacts', folder), (err) => {
      assert.equal(err.code, 1);
      assert.match(err.stderr, new RegExp(`${files[0].key.replace('.', '\\.')} does not match the manifest; nothing was uploaded`));
      return true;
    });
    assert.deepEqual(wrangler.calls(), []);
  } finally {
    wrangler.close();
  }
});
