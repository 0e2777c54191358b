// Schema-driven testing of both APIs and the partner portal's under `wrangler dev`: schemathesis (PyPI, installed
// by `make` into .tools/venv) generates requests from each served OpenAPI document,
// valid and invalid, with a valid key, and checks every answer: no 5xx, status codes,
// content types, headers and bodies as the document says. Bounded: 60 examples per
// operation and phase, deterministic generation (`make schema` runs 500).
//
// The two APIs' documents are run side by side, one schemathesis process each: a run
// alternates between generating in Python and waiting on the Worker, so one run alone
// keeps about one core busy. Not `--workers`: its threads trip a CPython 3.11.7 bug
// (hypothesis' compile() calls fail with "AST constructor recursion depth mismatch").
// The portal's document is run after them, alone: see its test.
//
// Not checked: "schema-valid request rejected" and "schema-violating request accepted".
// The documents describe shapes; the APIs check more than a schema can say (ranges
// that depend on the city, dates in the forecast range, cell ids), and accept `null`
// for optional fields. Those rules are tested by hand (edge-worker/src/api/hardening.rs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { keyStore, startWorker } from '../support/wrangler.mjs';
import { SoftAuthenticator } from '../support/authenticator.mjs';
import { decidePartner } from '../../scripts/operator.mjs';

const run = promisify(execFile);
const schemathesis = new URL('../../.tools/venv/bin/schemathesis', import.meta.url).pathname;
const EXAMPLES = process.env.SCHEMATHESIS_EXAMPLES ?? '60';
// The portal's configured origin: what its page (here the -H Origin header) reports.
const PORTAL = 'http://localhost:8787';
// requests reads the proxy and netrc settings from the environment at every request,
// walking every variable: with a test run's environment that was a tenth of
// schemathesis' CPU. None of them applies to a Worker on 127.0.0.1.
const ENV = Object.fromEntries(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR']
  .filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
let worker;
let key;
let state;

before(async () => {
  let keys;
  ({ state, keys } = await keyStore('schema', { key: { kind: 'live', tier: 'enterprise', dailyLimit: 1_000_000_000 } }));
  ({ key } = keys);
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: '2022-01-03', HEXRISK_PORTAL_ORIGIN: PORTAL } });
});

after(() => worker?.stop());

async function check(documentPath, base, header, { extraHeaders = [], examples = EXAMPLES, skipChecks = [] } = {}) {
  const args = [
    'run', `${worker.url}${documentPath}`, '--url', base, '-H', header, ...extraHeaders.flatMap((h) => ['-H', h]),
    '-n', examples, '--generation-deterministic', '--no-color', '--request-timeout', '30',
    '--checks', 'all', '--exclude-checks', ['positive_data_acceptance', 'negative_data_rejection', ...skipChecks].join(','),
  ];
  let output;
  try {
    ({ stdout: output } = await run(schemathesis, args, { env: ENV, maxBuffer: 1 << 26, timeout: Math.max(600_000, Number(examples) * 10_000) }));
  } catch (err) {
    assert.fail(`schemathesis found failures:\n${(err.stdout ?? '').slice(-8000)}\n${err.stderr ?? ''}`);
  }
  const generated = Number(/(\d+) generated/.exec(output)?.[1] ?? 0);
  assert.match(output, /\d+ generated, \d+ passed/);
  assert.doesNotMatch(output, /failures? in/);
  console.log(`${documentPath}: ${generated} generated requests, all conforming`);
  return generated;
}

describe('both APIs', { concurrency: true }, () => {
  test('the router API conforms to GET /openapi.json on generated requests', async () => {
    const generated = await check('/openapi.json', worker.url, `X-API-Key: ${key}`);
    assert.ok(generated >= 1000, `${generated} requests`);
  });

  test('the prediction API conforms to GET /v1/openapi.json on generated requests', async () => {
    const generated = await check('/v1/openapi.json', `${worker.url}/v1`, `Authorization: Bearer ${key}`);
    assert.ok(generated >= 300, `${generated} requests`);
  });
});

test('the portal API conforms to GET /portal/api/openapi.json on generated requests, signed in', async () => {
  // An approved partner's session, from the portal's own origin.
  const device = new SoftAuthenticator(PORTAL);
  const post = (path, body) => fetch(`${worker.url}${path}`, {
    method: 'POST', headers: { origin: PORTAL, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const options = await (await post('/portal/api/applications/options', { organisation: 'Schema Co', email: 'schema@example.org', intended_use: 'testing' })).json();
  const applied = await post('/portal/api/applications', { ceremony: options.ceremony, credential: device.create(options.publicKey) });
  assert.equal(applied.status, 201);
  const account = await applied.json();
  await decidePartner({ partner: account.id, decision: 'approve', stateDir: state });
  const cookie = applied.headers.get('set-cookie').split(';')[0];
  // Fewer examples: every change counts against the account's 60 a minute.
  // Run alone, not beside the APIs' runs: a slower run spans more of those minutes, so
  // more changes get through, and a stateful scenario may then make a key, revoke it and
  // read its usage, which answers 200 by design (usage outlives a revocation) and which
  // use_after_free takes for a deleted resource still served.
  // Not `ignored_auth`: an address over its changes a minute (60) is answered 429 before
  // any session is looked at, so a request sent without the cookie once the run's burst
  // has spent the minute gets 429, not the 401 that check wants, depending only on where
  // the minute falls. Every route's session is checked without that race by the
  // Worker's hostile-request suite over the route table (portal/tests/hostile.rs).
  const generated = await check('/portal/api/openapi.json', worker.url, `Cookie: ${cookie}`, {
    extraHeaders: [`Origin: ${PORTAL}`], examples: '20', skipChecks: ['ignored_auth'],
  });
  assert.ok(generated >= 200, `${generated} requests`);
});
