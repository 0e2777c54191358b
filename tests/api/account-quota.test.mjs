// One quota an account, under workerd: several keys of one partner hammered at once,
// keys made and rolled while the load runs, spent mostly from the blocks of quota
// the isolate holds (a 2 s record time to live, so blocks are granted and come
// back within the test). The account never admits more than its limit, and once
// the blocks are back its count is exactly what was admitted (issue 45, item 1).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decidePartner, setPartnerTier } from '../../scripts/operator.mjs';
import { SoftAuthenticator } from '../support/authenticator.mjs';
import { portalClient } from '../support/portal-client.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const PORTAL = 'http://localhost:8787';
// Large enough for blocks (a block is a hundredth of the limit, from ten blocks'
// worth used: docs/API.md), small enough to spend in a test.
const LIMIT = 600;
let worker;
let state;
let call;
let apply;
let cookieOf;

before(async () => {
  ({ state } = await keyStore('account-quota'));
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_PORTAL_ORIGIN: PORTAL, HEXRISK_KEY_RECORD_TTL_SECONDS: '2' } });
  ({ call, apply, cookieOf } = portalClient(worker.url, PORTAL));
});
after(() => worker?.stop());

const predict = async (key) => {
  const response = await fetch(`${worker.url}/v1/classes`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, json: await response.json() };
};

test('keys of one account, made and rolled under load, share its one daily limit exactly', async () => {
  const applied = await apply(new SoftAuthenticator(PORTAL), 'Fleet');
  assert.equal(applied.status, 201, JSON.stringify(applied.json));
  const partner = applied.json.id;
  const cookie = cookieOf(applied);
  assert.equal(await decidePartner({ partner, decision: 'approve', stateDir: state }), 1);
  assert.equal(await setPartnerTier({ partner, tier: 'enterprise', dailyLimit: LIMIT, stateDir: state }), 1);
  const make = async (label) => {
    const made = await call('POST', '/portal/api/keys', { cookie, body: { label, kind: 'live', apis: ['prediction'] } });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    return made.json;
  };
  const keys = [await make('one'), await make('two'), await make('three')];
  const results = [];
  const load = async (n) => {
    const batch = await Promise.all(Array.from({ length: n }, (_, i) => predict(keys[i % keys.length].key)));
    results.push(...batch);
  };
  // First wave, with a key made and another rolled (an hour's grace) meanwhile.
  const [, made, rolled] = await Promise.all([
    load(300),
    make('four'),
    call('POST', `/portal/api/keys/${keys[0].id}/roll`, { cookie, body: { grace_hours: 1 } }),
  ]);
  assert.equal(rolled.status, 201, JSON.stringify(rolled.json));
  keys.push(made, rolled.json);
  // Second wave over all five, well past the account's limit.
  await load(600);
  const ok = results.filter((r) => r.status === 200).length;
  assert.ok(ok <= LIMIT, `${ok} admitted over the account's limit of ${LIMIT}`);
  // At most one block a key may still be out, unspent, when the requests ran out.
  assert.ok(ok >= LIMIT - keys.length * (LIMIT / 100), `only ${ok} admitted`);
  for (const refused of results.filter((r) => r.status !== 200)) {
    assert.equal(refused.status, 429, JSON.stringify(refused.json));
    assert.equal(refused.json.details.limit, LIMIT);
    assert.ok(refused.json.details.used <= LIMIT);
  }
  // Every key drew on it: the new and the rolled included.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const usage = async (id) => (await call('GET', `/portal/api/keys/${id}/usage?days=1`, { cookie })).json;
  const figures = await Promise.all(keys.map((k) => usage(k.id)));
  const byKey = figures.map((f) => f.today.used);
  assert.ok(byKey.every((n) => n > 0), byKey.join(' '));
  // The blocks are back: the account's count, and the keys' together, are what was
  // admitted.
  for (const f of figures) assert.deepEqual(f.account, { kind: 'live', daily_limit: LIMIT, used: ok, remaining: LIMIT - ok });
  assert.equal(byKey.reduce((a, b) => a + b, 0), ok);
});
