// scripts/deploy.sh without Cloudflare: it refuses to start without credentials, its
// --dry-run prints the wrangler commands and bundles the generated config, and against a fake
// account (a stand-in wrangler that keeps its databases and buckets in a file) a first run
// creates the D1 database and the R2 buckets and a second run reuses them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { D1_DATABASE_NAME, SOURCE_CONFIG, r2BucketNames } from '../../scripts/deploy-config.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// The fake account: `d1 list --json`, `d1 create`, `r2 bucket list`, `r2 bucket create` act on
// a JSON file; every call is logged, one JSON array of arguments per line.
const FAKE_WRANGLER = `#!/usr/bin/env node
const fs = require('node:fs');
const crypto = require('node:crypto');
const args = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_CF_LOG, JSON.stringify(args) + '\\n');
const state = fs.existsSync(process.env.FAKE_CF_STATE) ? JSON.parse(fs.readFileSync(process.env.FAKE_CF_STATE, 'utf8')) : { d1: [], r2: [] };
const save = () => fs.writeFileSync(process.env.FAKE_CF_STATE, JSON.stringify(state));
const cmd = args.filter((a) => !a.startsWith('-')).slice(0, 3).join(' ');
if (cmd.startsWith('d1 list')) console.log(JSON.stringify(state.d1.map((d) => ({ ...d, version: 'production' }))));
else if (cmd.startsWith('d1 create')) { state.d1.push({ uuid: crypto.randomUUID(), name: args[2] }); save(); console.log('created'); }
else if (cmd.startsWith('r2 bucket list')) console.log('Listing buckets...\\n' + state.r2.map((n) => 'name:           ' + n + '\\ncreation_date:  2026-11-23T00:00:00.000Z').join('\\n\\n'));
else if (cmd.startsWith('r2 bucket create')) { state.r2.push(args[3]); save(); }
else if (cmd.startsWith('d1 migrations apply') || cmd.startsWith('deploy')) {
  const config = args[args.indexOf('-c') + 1];
  if (!fs.existsSync(config)) { console.error('no config ' + config); process.exit(1); }
} else { console.error('fake wrangler: unexpected ' + args.join(' ')); process.exit(1); }
`;

function fakeAccount() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-fake-cf-'));
  const wrangler = path.join(dir, 'wrangler');
  writeFileSync(wrangler, FAKE_WRANGLER);
  chmodSync(wrangler, 0o755);
  const publish = path.join(dir, 'publish.sh');
  writeFileSync(publish, 'echo "publish $* with $HEXRISK_WRANGLER_CONFIG" >> "$FAKE_CF_PUBLISHED"\n');
  const env = {
    ...process.env,
    CLOUDFLARE_API_TOKEN: 'test-token',
    CLOUDFLARE_ACCOUNT_ID: '9f3c2a1b7d6e4f5a8b9c0d1e2f3a4b5c',
    HEXRISK_WRANGLER: wrangler,
    HEXRISK_PUBLISH: publish,
    HEXRISK_DEPLOY_DIR: path.join(dir, 'build'),
    FAKE_CF_LOG: path.join(dir, 'calls.log'),
    FAKE_CF_STATE: path.join(dir, 'account.json'),
    FAKE_CF_PUBLISHED: path.join(dir, 'published.log'),
  };
  const calls = () => (existsSync(env.FAKE_CF_LOG) ? readFileSync(env.FAKE_CF_LOG, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  const deploy = (...args) => run('bash', [path.join(root, 'scripts/deploy.sh'), '--skip-build', ...args], { cwd: root, env, maxBuffer: 16 << 20 });
  return { dir, env, calls, deploy, close: () => rmSync(dir, { recursive: true, force: true }) };
}

test('without credentials nothing runs, and the message names what is missing', async () => {
  const account = fakeAccount();
  try {
    for (const [unset, names] of [[['CLOUDFLARE_API_TOKEN', 'CLOUDFLARE_ACCOUNT_ID'], /CLOUDFLARE_API_TOKEN CLOUDFLARE_ACCOUNT_ID/], [['CLOUDFLARE_ACCOUNT_ID'], /missing CLOUDFLARE_ACCOUNT_ID:/]]) {
      const env = { ...account.env };
      for (const name of unset) delete env[name];
      const started = Date.now();
      await assert.rejects(run('bash', [path.join(root, 'scripts/deploy.sh')], { cwd: root, env }), (err) => {
        assert.equal(err.code, 1);
        assert.match(err.stderr, names);
        assert.equal(err.stdout, '', 'no step started');
        return true;
      });
      assert.ok(Date.now() - started < 5000, 'it stopped before building');
    }
    assert.deepEqual(account.calls(), []);
    assert.ok(!existsSync(account.env.HEXRISK_DEPLOY_DIR));
  } finally {
    account.close();
  }
});

test('a first deploy creates the database and buckets, a second reuses them', async () => {
  const account = fakeAccount();
  const buckets = r2BucketNames(readFileSync(SOURCE_CONFIG, 'utf8'));
  const config = path.join(account.env.HEXRISK_DEPLOY_DIR, 'wrangler.deploy.toml');
  const commands = (calls) => calls.map((a) => a.filter((x) => !x.startsWith('-')).slice(0, 3).join(' '));
  try {
    const first = await account.deploy();
    const firstCalls = account.calls();
    const state = JSON.parse(readFileSync(account.env.FAKE_CF_STATE, 'utf8'));
    assert.equal(state.d1.length, 1);
    assert.equal(state.d1[0].name, D1_DATABASE_NAME);
    assert.deepEqual(state.r2.sort(), [...buckets].sort());
    const id = state.d1[0].uuid;
    assert.match(readFileSync(config, 'utf8'), new RegExp(`database_id = "${id}"`));
    assert.match(readFileSync(config, 'utf8'), /HEXRISK_ENVIRONMENT = "production"/);
    const order = commands(firstCalls);
    assert.deepEqual(order.filter((c) => c.startsWith('d1 create')), [`d1 create ${D1_DATABASE_NAME}`]);
    assert.ok(order.indexOf('d1 migrations apply') > order.indexOf('d1 create'), 'migrations after the database exists');
    assert.equal(firstCalls.at(-1)[0], 'deploy', 'the Worker is deployed last');
    const migrate = firstCalls.find((a) => a[0] === 'd1' && a[1] === 'migrations');
    assert.ok(migrate.includes('--remote') && migrate[migrate.indexOf('-c') + 1] === config);
    const deploy = firstCalls.at(-1);
    assert.equal(deploy[deploy.indexOf('-c') + 1], config);
    assert.match(readFileSync(account.env.FAKE_CF_PUBLISHED, 'utf8'), new RegExp(`^publish --remote with ${config}$`, 'm'));
    assert.match(first.stdout, /operator\.mjs issue --remote --config \S+ --kind live/);

    const second = await account.deploy();
    const secondCalls = account.calls().slice(firstCalls.length);
    const again = JSON.parse(readFileSync(account.env.FAKE_CF_STATE, 'utf8'));
    assert.deepEqual(again, state, 'nothing new in the account');
    assert.deepEqual(commands(secondCalls).filter((c) => c.includes('create')), [], 'nothing created the second time');
    assert.match(second.stdout, new RegExp(`reusing D1 database ${D1_DATABASE_NAME} \\(${id}\\)`));
    for (const bucket of buckets) assert.match(second.stdout, new RegExp(`reusing R2 bucket ${bucket}`));
    assert.match(readFileSync(config, 'utf8'), new RegExp(`database_id = "${id}"`));
    assert.equal(readFileSync(account.env.FAKE_CF_PUBLISHED, 'utf8').trim().split('\n').length, 2, 'artifacts published on each run');
  } finally {
    account.close();
  }
});

test('--dry-run needs no credentials, prints the wrangler commands and bundles the deploy config', async () => {
  const account = fakeAccount();
  try {
    const env = { ...account.env, HEXRISK_D1_ID: '3f2b9c1e-7a4d-4e8b-9c0d-5e6f7a8b9c0d' };
    delete env.CLOUDFLARE_API_TOKEN;
    delete env.CLOUDFLARE_ACCOUNT_ID;
    delete env.HEXRISK_WRANGLER;
    const { stdout } = await run('bash', [path.join(root, 'scripts/deploy.sh'), '--dry-run', '--skip-build'], { cwd: root, env, maxBuffer: 16 << 20 });
    const config = path.join(env.HEXRISK_DEPLOY_DIR, 'wrangler.deploy.toml');
    for (const line of ['wrangler d1 list --json', `wrangler d1 create ${D1_DATABASE_NAME}`, `wrangler d1 migrations apply ${D1_DATABASE_NAME} --remote -c ${config}`, `wrangler deploy -c ${config}`]) {
      assert.ok(stdout.includes(`would run: (cd edge-worker && ${line})`), line);
    }
    assert.match(stdout, /would run: bash \S+ --remote/);
    assert.match(stdout, /ok {3}modules, uncompressed/);
    assert.match(stdout, /env\.HEXRISK_ENVIRONMENT \("production"\)/);
    assert.match(stdout, /--dry-run: exiting now/);
    assert.match(readFileSync(config, 'utf8'), /database_id = "3f2b9c1e-7a4d-4e8b-9c0d-5e6f7a8b9c0d"/);
    assert.ok(existsSync(path.join(env.HEXRISK_DEPLOY_DIR, 'deploy-dry-run', 'index.js')));
    assert.deepEqual(account.calls(), [], 'no wrangler call reached the account');
  } finally {
    account.close();
  }
});
