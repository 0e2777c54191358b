// The attacker's tests of signing in under workerd: assertions signed with the
// passkey's own key but with user verification or presence cleared, another relying
// party's hash, a registration's type, a cross-origin frame, a replayed answer and a
// counter that went back. Each gets the one sign-in failure and no session; each is
// in the account's audit log, which its holder reads once signed in.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SoftAuthenticator } from '../support/authenticator.mjs';
import { portalClient } from '../support/portal-client.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const PORTAL = 'http://localhost:8787';
let worker;
let call;
let apply;

before(async () => {
  const { state } = await keyStore('attacks-sign-in');
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_PORTAL_ORIGIN: PORTAL } });
  ({ call, apply } = portalClient(worker.url, PORTAL));
});
after(() => worker?.stop());

async function options() {
  const answer = await call('POST', '/portal/api/sessions/options');
  assert.equal(answer.status, 200);
  return answer.json;
}

test('forged, replayed and cloned assertions are refused alike and each is in the audit log', async () => {
  const device = new SoftAuthenticator(PORTAL);
  assert.equal((await apply(device, 'Target Co')).status, 201);

  const forgeries = {
    'user verification cleared': { flags: 0x01 },
    'user presence cleared': { flags: 0x04 },
    'another relying party': { rpId: 'evil.example' },
    "a registration's type": { type: 'webauthn.create' },
    'a cross-origin frame': { crossOrigin: true },
  };
  for (const [what, forgery] of Object.entries(forgeries)) {
    const asked = await options();
    const answer = await call('POST', '/portal/api/sessions', { body: { ceremony: asked.ceremony, credential: device.get(asked.publicKey, forgery) } });
    assert.deepEqual([answer.status, answer.json.message], [401, 'sign-in failed'], what);
    assert.equal(answer.headers.get('set-cookie'), null, what);
  }
  // The honest answer signs in; sent again, its ceremony is gone.
  const asked = await options();
  const honest = { ceremony: asked.ceremony, credential: device.get(asked.publicKey) };
  const signedIn = await call('POST', '/portal/api/sessions', { body: honest });
  assert.equal(signedIn.status, 200);
  const replay = await call('POST', '/portal/api/sessions', { body: honest });
  assert.deepEqual([replay.status, replay.headers.get('set-cookie')], [401, null]);
  // A clone whose counter is behind.
  device.counter -= 1;
  const cloned = await options();
  const behind = await call('POST', '/portal/api/sessions', { body: { ceremony: cloned.ceremony, credential: device.get(cloned.publicKey) } });
  assert.equal(behind.status, 401);

  const cookie = signedIn.headers.get('set-cookie').split(';')[0];
  const me = await call('GET', '/portal/api/me', { cookie });
  const failed = me.json.audit.filter((e) => e.action === 'sign_in_failed');
  // Five forgeries and the clone, under the account; the replay named no account.
  assert.equal(failed.length, 6, JSON.stringify(me.json.audit));
  assert.ok(failed.every((e) => e.subject === 'assertion' && e.actor === me.json.id));
});
