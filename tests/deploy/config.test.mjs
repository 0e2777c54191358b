// edge-worker/wrangler.toml holds no placeholder that `make deploy` would not replace, and the
// config deploy generates from it (scripts/deploy-config.mjs) has the real database id, the
// production vars and paths that still resolve, checked by wrangler itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  D1_DATABASE_NAME, PRODUCTION_VARS, SOURCE_CONFIG, checkConfigText, d1UuidFromList, deployConfigText, findPlaceholders,
  isPlaceholder, r2BucketNames, r2ListHas, scanToml, writeDeployConfig,
} from '../../scripts/deploy-config.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'node_modules/.bin');
const committed = () => readFileSync(SOURCE_CONFIG, 'utf8');
const sha = (text) => createHash('sha256').update(text).digest('hex');

test('wrangler.toml has no placeholder left that deploy would not replace', () => {
  assert.deepEqual(checkConfigText(committed()), []);
  // The placeholders it does hold are the ones deploy replaces (the key store's id).
  for (const p of findPlaceholders(committed())) assert.ok(p.replacedByDeploy, `${p.key} = ${p.value}`);
});

test('the check fails on any other placeholder', async () => {
  const text = committed();
  const broken = {
    'an account id of zeros': `account_id = "00000000000000000000000000000000"\n${text}`,
    'a KV namespace id to replace': `${text}\n[[kv_namespaces]]\nbinding = "CACHE"\nid = "REPLACE_ME"\n`,
    'an R2 bucket named <bucket>': `${text}\n[[r2_buckets]]\nbinding = "MODELS"\nbucket_name = "<your-bucket>"\n`,
    'a second D1 database with a zero id': `${text}\n[[d1_databases]]\nbinding = "OTHER"\ndatabase_name = "other"\ndatabase_id = "00000000-0000-0000-0000-000000000000"\n`,
    'a var left as TODO': text.replace('[vars]\n', '[vars]\nHEXRISK_SECRET_ORIGIN = "TODO"\n'),
    'the key store renamed (its id is then not replaced)': text.replace(`database_name = "${D1_DATABASE_NAME}"`, 'database_name = "keys"'),
  };
  for (const [what, variant] of Object.entries(broken)) {
    assert.notEqual(variant, text, what);
    assert.ok(checkConfigText(variant).length > 0, `not caught: ${what}`);
  }
  // The CLI exits 1 on one of them (a temp copy; the committed file is untouched).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-config-'));
  try {
    const copy = path.join(dir, 'wrangler.toml');
    writeFileSync(copy, broken['an account id of zeros']);
    await assert.rejects(run(path.join(bin, 'node'), [path.join(root, 'scripts/deploy-config.mjs'), 'check', '--config', copy]), (err) => {
      assert.equal(err.code, 1);
      assert.match(err.stderr, /account_id = "0{32}" is a placeholder/);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('placeholders are told from real values', () => {
  for (const value of ['00000000-0000-4000-8000-000000000001', '0'.repeat(32), 'f'.repeat(32), 'REPLACE_ME', 'replace-with-your-id', '<account id>', 'CHANGEME', 'xxxx', '${ACCOUNT_ID}', 'your_account_id']) {
    assert.ok(isPlaceholder(value), value);
  }
  for (const value of [randomUUID(), '9f3c2a1b7d6e4f5a8b9c0d1e2f3a4b5c', '', 'production', 'hexrisk-keys', '../build/artifacts', '2026-11-01', '0', 'QuotaCounter', 'v1']) {
    assert.ok(!isPlaceholder(value), value);
  }
});

test('the deploy config: real id, production vars, paths rewritten, committed file untouched', () => {
  const before = sha(committed());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-deploy-config-'));
  try {
    const id = randomUUID();
    const out = writeDeployConfig({ databaseId: id, outPath: path.join(dir, 'wrangler.deploy.toml') });
    const text = readFileSync(out, 'utf8');
    assert.equal(sha(committed()), before, 'wrangler.toml is not edited');
    assert.deepEqual(findPlaceholders(text), []);
    const { entries } = scanToml(text);
    const value = (table, key) => entries.find((e) => e.table === table && e.key === key)?.strings[0]?.value;
    assert.equal(value('d1_databases', 'database_id'), id);
    assert.equal(value('vars', 'HEXRISK_ENVIRONMENT'), 'production');
    assert.equal(value('vars', 'HEXRISK_CLOCK'), '');
    assert.equal(value('vars', 'HEXRISK_BENCH_NOOP'), '0');
    assert.equal(value('vars', 'HEXRISK_PORTAL_ORIGIN'), '');
    // Every other var and binding is carried over unchanged.
    const source = scanToml(committed()).entries;
    for (const e of source.filter((x) => x.table === 'vars' && !Object.keys(PRODUCTION_VARS).includes(x.key))) {
      assert.equal(value('vars', e.key), e.strings[0]?.value, e.key);
    }
    assert.deepEqual(r2BucketNames(text), r2BucketNames(committed()));
    // The rewritten paths point where the committed ones do.
    for (const [table, key] of [['', 'main'], ['d1_databases', 'migrations_dir'], ['assets', 'directory']]) {
      const original = value(table, key) === undefined ? undefined : source.find((e) => e.table === table && e.key === key)?.strings[0]?.value;
      if (original === undefined) continue;
      assert.equal(path.resolve(dir, value(table, key)), path.resolve(path.dirname(SOURCE_CONFIG), original), `${table} ${key}`);
    }
    assert.ok(existsSync(path.resolve(dir, value('d1_databases', 'migrations_dir'), '0001_api_keys.sql')));
    assert.throws(() => deployConfigText(committed(), { databaseId: '00000000-0000-4000-8000-000000000001' }), /not a D1 database id/);
    // A named public origin serves the portal there; anything else is refused.
    const withPortal = scanToml(deployConfigText(committed(), { databaseId: id, portalOrigin: 'https://portal.example.org' })).entries;
    assert.equal(withPortal.find((e) => e.table === 'vars' && e.key === 'HEXRISK_PORTAL_ORIGIN').strings[0].value, 'https://portal.example.org');
    for (const bad of ['http://portal.example.org', 'https://portal.example.org/portal', 'https://203.0.113.9', 'https://localhost', 'https://Portal.Example.org', 'portal.example.org']) {
      assert.throws(() => deployConfigText(committed(), { databaseId: id, portalOrigin: bad }), /not a portal origin/, bad);
    }
    assert.throws(() => deployConfigText(committed(), { databaseId: 'hexrisk-keys' }), /not a D1 database id/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('wrangler reads the generated config: bundle, bindings and migrations resolve', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-deploy-config-'));
  try {
    const id = randomUUID();
    const config = writeDeployConfig({ databaseId: id, outPath: path.join(dir, 'conf', 'wrangler.deploy.toml') });
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: 'true' };
    // From another folder, so nothing resolves against the working directory.
    const { stdout } = await run(path.join(bin, 'wrangler'), ['deploy', '--dry-run', '--outdir', path.join(dir, 'out'), '-c', config], { cwd: os.tmpdir(), env, maxBuffer: 16 << 20 });
    assert.match(stdout, /env\.HEXRISK_ENVIRONMENT \("production"\)/);
    assert.match(stdout, /env\.KEYS \(hexrisk-keys\)\s+D1 Database/);
    assert.match(stdout, /Total Upload:/);
    assert.ok(existsSync(path.join(dir, 'out', 'index.js')));
    const migrations = await run(path.join(bin, 'wrangler'), ['d1', 'migrations', 'list', D1_DATABASE_NAME, '--local', '--persist-to', path.join(dir, 'state'), '-c', config], { cwd: os.tmpdir(), env });
    assert.match(migrations.stdout, /0001_api_keys\.sql/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("wrangler's listings are read: d1 list --json, r2 bucket list", () => {
  const id = randomUUID();
  const list = JSON.stringify([{ uuid: randomUUID(), name: 'other' }, { uuid: id, name: D1_DATABASE_NAME, created_at: '2026-11-23T00:00:00Z' }]);
  assert.equal(d1UuidFromList(list, D1_DATABASE_NAME), id);
  assert.equal(d1UuidFromList('[]', D1_DATABASE_NAME), null);
  assert.throws(() => d1UuidFromList(JSON.stringify([{ uuid: id, name: 'x' }, { uuid: id, name: 'x' }]), 'x'), /2 D1 databases/);
  assert.throws(() => d1UuidFromList('{"error":1}', 'x'), /did not print a list/);
  const buckets = 'Listing buckets...\n\u001b[37mname:\u001b[39m           \u001b[90mhexrisk-models\u001b[39m\ncreation_date:  2026-11-23T00:00:00.000Z\n\nname:           other\ncreation_date:  x\n';
  assert.equal(r2ListHas(buckets, 'hexrisk-models'), true);
  assert.equal(r2ListHas(buckets, 'hexrisk'), false);
  assert.equal(r2ListHas('Listing buckets...\n', 'hexrisk-models'), false);
});
