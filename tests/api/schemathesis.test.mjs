// Schema-driven testing of both APIs under `wrangler dev`: schemathesis (PyPI, installed
// by `make` into .tools/venv) generates requests from each served OpenAPI document,
// valid and invalid, with a valid key, and checks every answer: no 5xx, status codes,
// content types, headers and bodies as the document says. Bounded: 60 examples per
// operation and phase, deterministic generation (`make schema` runs 500).
//
// Not checked: "schema-valid request rejected" and "schema-violating request accepted".
// The documents describe shapes; the APIs check more than a schema can say (ranges
// that depend on the city, dates in the forecast range, cell ids), and accept `null`
// for optional fields. Those rules are tested by hand (edge-worker/src/api/hardening.rs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const run = promisify(execFile);
const schemathesis = new URL('../../.tools/venv/bin/schemathesis', import.meta.url).pathname;
const EXAMPLES = process.env.SCHEMATHESIS_EXAMPLES ?? '60';
let worker;
let key;

before(async () => {
  const { state, keys } = await keyStore('schema', { key: { kind: 'live', tier: 'enterprise', dailyLimit: 1_000_000_000 } });
  ({ key } = keys);
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: '2022-01-03' } });
});

after(() => worker?.stop());

async function check(documentPath, base, header) {
  const args = [
    'run', `${worker.url}${documentPath}`, '--url', base, '-H', header,
    '-n', EXAMPLES, '--generation-deterministic', '--no-color', '--request-timeout', '30',
    '--checks', 'all', '--exclude-checks', 'positive_data_acceptance,negative_data_rejection',
  ];
  let output;
  try {
    ({ stdout: output } = await run(schemathesis, args, { maxBuffer: 1 << 26, timeout: Math.max(600_000, Number(EXAMPLES) * 10_000) }));
  } catch (err) {
    assert.fail(`schemathesis found failures:\n${(err.stdout ?? '').slice(-8000)}\n${err.stderr ?? ''}`);
  }
  const generated = Number(/(\d+) generated/.exec(output)?.[1] ?? 0);
  assert.match(output, /\d+ generated, \d+ passed/);
  assert.doesNotMatch(output, /failures? in/);
  console.log(`${documentPath}: ${generated} generated requests, all conforming`);
  return generated;
}

test('the router API conforms to GET /openapi.json on generated requests', async () => {
  const generated = await check('/openapi.json', worker.url, `X-API-Key: ${key}`);
  assert.ok(generated >= 1000, `${generated} requests`);
});

test('the prediction API conforms to GET /v1/openapi.json on generated requests', async () => {
  const generated = await check('/v1/openapi.json', `${worker.url}/v1`, `Authorization: Bearer ${key}`);
  assert.ok(generated >= 300, `${generated} requests`);
});
