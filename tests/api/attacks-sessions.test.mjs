// The attacker's tests of sessions under workerd: a suspended account's session and
// sign-in, a session started by a passkey its holder removed, and sign out
// everywhere, each against the real D1 store.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decidePartner } from '../../scripts/operator.mjs';
import { SoftAuthenticator } from '../support/authenticator.mjs';
import { portalClient } from '../support/portal-client.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const PORTAL = 'http://localhost:8787';
let worker;
let state;
let call;
let apply;
let signIn;
let cookieOf;

before(async () => {
  ({ state } = await keyStore('attacks-sessions'));
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_PORTAL_ORIGIN: PORTAL } });
  ({ call, apply, signIn, cookieOf } = portalClient(worker.url, PORTAL));
});
after(() => worker?.stop());

test('suspension ends the sessions and refuses sign-in, saying why; reapproval starts signed out', async () => {
  const device = new SoftAuthenticator(PORTAL);
  const applied = await apply(device, 'Suspect Co');
  assert.equal(applied.status, 201);
  const first = cookieOf(applied);
  await decidePartner({ partner: applied.json.id, decision: 'approve', stateDir: state });
  const second = cookieOf(await signIn(device));
  await decidePartner({ partner: applied.json.id, decision: 'suspend', stateDir: state });
  for (const cookie of [first, second]) {
    assert.equal((await call('GET', '/portal/api/me', { cookie })).status, 401);
    // The review's takeover: adding a passkey with the session. Refused.
    assert.equal((await call('POST', '/portal/api/passkeys/options', { cookie })).status, 401);
  }
  const refused = await signIn(device);
  assert.equal(refused.status, 403);
  assert.deepEqual([refused.json.details.reason, refused.json.details.status], ['account_status', 'suspended']);
  assert.equal(refused.headers.get('set-cookie'), null);
  await decidePartner({ partner: applied.json.id, decision: 'approve', stateDir: state });
  assert.equal((await call('GET', '/portal/api/me', { cookie: second })).status, 401);
  assert.equal((await signIn(device)).status, 200);
});

test('removing a passkey ends the sessions it started; sign out everywhere ends the rest', async () => {
  const laptop = new SoftAuthenticator(PORTAL);
  const applied = await apply(laptop, 'Two Devices');
  assert.equal(applied.status, 201);
  const laptopSession = cookieOf(applied);
  const phone = new SoftAuthenticator(PORTAL);
  const asked = await call('POST', '/portal/api/passkeys/options', { cookie: laptopSession });
  assert.equal(asked.status, 200);
  const added = await call('POST', '/portal/api/passkeys', {
    cookie: laptopSession, body: { ceremony: asked.json.ceremony, credential: phone.create(asked.json.publicKey) },
  });
  assert.equal(added.status, 201, JSON.stringify(added.json));
  const phoneSession = cookieOf(await signIn(phone));
  const phoneId = Buffer.from(phone.credentialId).toString('base64url');
  // The phone is lost: removed from the laptop, its session ends, the laptop's stays.
  const removed = await call('DELETE', `/portal/api/passkeys/${phoneId}`, { cookie: laptopSession });
  assert.deepEqual([removed.status, removed.json.signed_out], [200, false]);
  assert.equal((await call('GET', '/portal/api/me', { cookie: phoneSession })).status, 401);
  assert.equal((await call('GET', '/portal/api/me', { cookie: laptopSession })).status, 200);
  const again = cookieOf(await signIn(laptop));
  const everywhere = await call('DELETE', '/portal/api/sessions', { cookie: again });
  assert.deepEqual([everywhere.status, everywhere.json], [200, { signed_out: true, everywhere: true }]);
  for (const cookie of [laptopSession, again]) assert.equal((await call('GET', '/portal/api/me', { cookie })).status, 401);
  // Each step's line was written with its change, in D1's one batch, once.
  const back = cookieOf(await signIn(laptop));
  const audit = (await call('GET', '/portal/api/me', { cookie: back })).json.audit.map((line) => line.action).reverse();
  assert.deepEqual(audit, ['applied', 'passkey_added', 'signed_in', 'passkey_removed', 'signed_in', 'signed_out_everywhere', 'signed_in'], audit.join(' '));
});
