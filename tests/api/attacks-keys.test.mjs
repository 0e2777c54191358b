// The attacker's tests of keys under workerd (issue 45's review, played against
// the real D1 store): the roll walk past the cap, concurrent creates past it, a
// sandbox key's expiry renewed by rolling, and the preflight oracle. Each was open
// before; each is refused with the documented error and nothing changed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decidePartner } from '../../scripts/operator.mjs';
import { SoftAuthenticator } from '../support/authenticator.mjs';
import { portalClient } from '../support/portal-client.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const PORTAL = 'http://localhost:8787';
const MAX_KEYS = 20;
let worker;
let state;
let call;
let apply;
let cookieOf;

before(async () => {
  ({ state } = await keyStore('attacks-keys'));
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_PORTAL_ORIGIN: PORTAL, HEXRISK_KEY_RECORD_TTL_SECONDS: '0' } });
  ({ call, apply, cookieOf } = portalClient(worker.url, PORTAL));
});
after(() => worker?.stop());

/** A partner approved by the operator: its session cookie and id. */
async function approvedPartner(name) {
  const applied = await apply(new SoftAuthenticator(PORTAL), name);
  assert.equal(applied.status, 201, JSON.stringify(applied.json));
  assert.equal(await decidePartner({ partner: applied.json.id, decision: 'approve', stateDir: state }), 1);
  return { cookie: cookieOf(applied), id: applied.json.id };
}

const inForce = (keys) => keys.filter((k) => k.state === 'active' || k.state === 'rolled').length;

test('the roll walk stops at the cap: a rolled key in its grace counts, and a refused roll stores nothing', async () => {
  const { cookie } = await approvedPartner('Walker');
  const made = await call('POST', '/portal/api/keys', { cookie, body: { label: 'walk', kind: 'sandbox', apis: ['prediction'] } });
  assert.equal(made.status, 201);
  let current = made.json;
  for (let i = 1; i < MAX_KEYS; i++) {
    const rolled = await call('POST', `/portal/api/keys/${current.id}/roll`, { cookie, body: { grace_hours: 168 } });
    assert.equal(rolled.status, 201, `roll ${i}: ${JSON.stringify(rolled.json)}`);
    // A sandbox key's expiry is its line's first: rolling never extends it.
    assert.equal(rolled.json.expires_at, made.json.expires_at, `roll ${i}`);
    current = rolled.json;
  }
  const listed = async () => (await call('GET', '/portal/api/keys', { cookie })).json.keys;
  const before = await listed();
  assert.equal(inForce(before), MAX_KEYS);
  const refused = await call('POST', `/portal/api/keys/${current.id}/roll`, { cookie, body: { grace_hours: 168 } });
  assert.equal(refused.status, 400);
  assert.deepEqual([refused.json.code, refused.json.details.reason, refused.json.details.limit], ['INVALID_REQUEST', 'key_cap', MAX_KEYS]);
  assert.deepEqual(await listed(), before, 'nothing changed');
  // With no grace the old key stops as the new one starts: allowed at the cap.
  const swapped = await call('POST', `/portal/api/keys/${current.id}/roll`, { cookie, body: { grace_hours: 0 } });
  assert.equal(swapped.status, 201, JSON.stringify(swapped.json));
  assert.equal(inForce(await listed()), MAX_KEYS);
});

test('concurrent creates never pass the cap: the count and the insert are one statement', async () => {
  const { cookie } = await approvedPartner('Racer');
  const answers = await Promise.all(Array.from({ length: MAX_KEYS + 5 }, (_, i) => call('POST', '/portal/api/keys', {
    cookie, body: { label: `race ${i}`, kind: 'sandbox', apis: ['prediction'] },
  })));
  const statuses = answers.map((a) => a.status);
  assert.equal(statuses.filter((s) => s === 201).length, MAX_KEYS, statuses.join(' '));
  assert.ok(answers.filter((a) => a.status !== 201).every((a) => a.status === 400 && a.json.details.reason === 'key_cap'));
  const keys = (await call('GET', '/portal/api/keys', { cookie })).json.keys;
  assert.equal(keys.length, MAX_KEYS);
});

test('a preflight answers alike whether or not some partner lists the origin: no oracle', async () => {
  const { cookie } = await approvedPartner('Oracle');
  const origin = 'https://b-only.example';
  const preflight = () => call('OPTIONS', '/route', { origin, headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, content-type' } });
  const strip = (answer) => [answer.status, ...['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'allow']
    .map((h) => answer.headers.get(h))];
  const unlisted = strip(await preflight());
  const made = await call('POST', '/portal/api/keys', { cookie, body: { kind: 'sandbox', apis: ['router'], origins: [origin] } });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  assert.deepEqual(strip(await preflight()), unlisted, 'listed by a partner now');
  assert.equal((await call('DELETE', `/portal/api/keys/${made.json.id}`, { cookie })).status, 200);
  assert.deepEqual(strip(await preflight()), unlisted, 'revoked again');
});
