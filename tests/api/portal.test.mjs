// The partner portal's account API under `wrangler dev` (workerd, D1): apply with a
// passkey, sign in, read the account, sign out; a cross-site change and a forged
// assertion refused. The passkeys come from a software authenticator
// (tests/support/authenticator.mjs); the browser flow is tested in tests/browser/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DECISIONS, TIER_LIMITS, decidePartner, listPartners, operatorAccount, setPartnerTier } from '../../scripts/operator.mjs';
import { SoftAuthenticator } from '../support/authenticator.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';

// The Worker answers on its own port; the portal's configured origin is what the
// page (here the authenticator and the Origin header) reports.
const PORTAL = 'http://localhost:8787';
let worker;
let state;

before(async () => {
  ({ state } = await keyStore('portal'));
  // Gates reread key records on every request, so revocation shows at once.
  worker = await startWorker({
    persistTo: state, vars: { HEXRISK_PORTAL_ORIGIN: PORTAL, HEXRISK_KEY_RECORD_TTL_SECONDS: '0' },
  });
});
after(() => worker?.stop());

async function call(method, path, { body, cookie, origin = PORTAL } = {}) {
  const headers = {};
  if (origin) headers.origin = origin;
  if (cookie) headers.cookie = cookie;
  if (body) headers['content-type'] = 'application/json';
  const response = await fetch(`${worker.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
  const json = await response.json().catch(() => null);
  return { status: response.status, json, headers: response.headers };
}

const cookieOf = (answer) => answer.headers.get('set-cookie').split(';')[0];

async function apply(device) {
  const options = await call('POST', '/portal/api/applications/options', {
    body: { organisation: 'Transit Co', email: 'ops@transit.example', intended_use: 'night routes' },
  });
  assert.equal(options.status, 200, JSON.stringify(options.json));
  const credential = device.create(options.json.publicKey);
  return call('POST', '/portal/api/applications', { body: { ceremony: options.json.ceremony, credential } });
}

async function signIn(device, tamper = (a) => a) {
  const options = await call('POST', '/portal/api/sessions/options');
  assert.equal(options.status, 200);
  const credential = tamper(device.get(options.json.publicKey));
  return call('POST', '/portal/api/sessions', { body: { ceremony: options.json.ceremony, credential } });
}

test('a partner applies, signs in and out with a passkey under workerd', async () => {
  const device = new SoftAuthenticator(PORTAL);
  const applied = await apply(device);
  assert.equal(applied.status, 201, JSON.stringify(applied.json));
  assert.equal(applied.json.status, 'applied');
  const setCookie = applied.headers.get('set-cookie');
  for (const attribute of ['__Host-hexrisk-session=', 'Secure', 'HttpOnly', 'SameSite=Strict', 'Path=/']) {
    assert.ok(setCookie.includes(attribute), setCookie);
  }
  // The operator approves it (scripts/operator.mjs); a second approval changes nothing.
  const [listed] = await listPartners({ stateDir: state });
  assert.deepEqual([listed.id, listed.status], [applied.json.id, 'applied']);
  assert.equal(await decidePartner({ partner: applied.json.id, decision: 'approve', stateDir: state }), 1);
  assert.equal(await decidePartner({ partner: applied.json.id, decision: 'approve', stateDir: state }), 0);
  const signedIn = await signIn(device);
  assert.equal(signedIn.status, 200, JSON.stringify(signedIn.json));
  const cookie = cookieOf(signedIn);
  assert.notEqual(cookie, cookieOf(applied));
  const me = await call('GET', '/portal/api/me', { cookie });
  assert.equal(me.status, 200);
  assert.equal(me.json.organisation, 'Transit Co');
  assert.equal(me.json.status, 'approved');
  assert.deepEqual(me.json.audit.map((e) => [e.action, e.actor === applied.json.id ? 'self' : e.actor]),
    [['signed_in', 'self'], ['approved', 'operator'], ['applied', 'self']]);
  // The operator's own identity and address stay in the operator's log.
  assert.equal(me.json.audit.find((e) => e.action === 'approved').address, null);
  assert.equal(me.json.passkeys.length, 1);
  assert.equal(me.headers.get('cache-control'), 'no-store');
  const out = await call('DELETE', '/portal/api/sessions/current', { cookie });
  assert.equal(out.status, 200);
  assert.equal((await call('GET', '/portal/api/me', { cookie })).status, 401);
});

test('a forged assertion and a cross-site change are refused', async () => {
  const device = new SoftAuthenticator(PORTAL);
  assert.equal((await apply(device)).status, 201);
  const forged = await signIn(device, (a) => {
    const signature = Buffer.from(a.response.signature, 'base64url');
    signature[signature.length - 1] ^= 1;
    return { ...a, response: { ...a.response, signature: signature.toString('base64url') } };
  });
  assert.equal(forged.status, 401);
  assert.deepEqual([forged.json.code, forged.json.message], ['UNAUTHORIZED', 'sign-in failed']);
  assert.equal(forged.headers.get('set-cookie'), null);
  const crossSite = await call('POST', '/portal/api/sessions/options', { origin: 'https://evil.example' });
  assert.equal(crossSite.status, 403);
  assert.equal(crossSite.json.code, 'FORBIDDEN');
});

test('an approved partner makes, uses, rolls and revokes keys under workerd', async () => {
  const device = new SoftAuthenticator(PORTAL);
  const applied = await apply(device);
  const cookie = cookieOf(applied);
  const make = (body) => call('POST', '/portal/api/keys', { body, cookie });
  assert.equal((await make({ kind: 'sandbox', apis: ['prediction'] })).status, 403, 'waiting for approval');
  await decidePartner({ partner: applied.json.id, decision: 'approve', stateDir: state });
  const me = await call('GET', '/portal/api/me', { cookie });
  // The portal's tier limits are the ones scripts/operator.mjs issues keys with.
  assert.deepEqual([me.json.limits.sandbox, me.json.limits.partner], [TIER_LIMITS.sandbox, TIER_LIMITS.partner]);
  assert.equal(me.json.record_ttl_seconds, 0);

  const refused = await make({ kind: 'sandbox', apis: ['router'], origins: ['http://maps.example.org'] });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.details.refused_origins[0].reason, 'insecure');
  const made = await make({ label: 'app', kind: 'sandbox', apis: ['prediction'] });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const use = (key, path = '/v1/cities') => fetch(`${worker.url}${path}`, {
    headers: path.startsWith('/v1/') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key },
  }).then(async (r) => { await r.arrayBuffer(); return r.status; });
  assert.equal(await use(made.json.key), 200);
  assert.equal(await use(made.json.key, '/route/config'), 403, 'a prediction-only key on the router API');
  // Its usage, from its gate: one counted, one refused for the API.
  const usage = await call('GET', `/portal/api/keys/${made.json.id}/usage?days=7`, { cookie });
  assert.equal(usage.status, 200);
  const today = usage.json.days.at(-1);
  assert.deepEqual([today.used, today.refused_api, usage.json.today.remaining], [1, 1, TIER_LIMITS.sandbox - 1]);
  const csv = await fetch(`${worker.url}/portal/api/keys/${made.json.id}/usage.csv?days=7`, { headers: { cookie } });
  assert.match(await csv.text(), /^day,used,refused_quota,refused_origin,refused_api,refused_key,refused_address\n(.*\n){7}$/);
  assert.equal((await make({ kind: 'live', apis: ['router'] })).status, 403, 'no tier yet');
  assert.equal(await setPartnerTier({ partner: applied.json.id, tier: 'partner', stateDir: state }), 1);
  // A server key listing addresses: a local run takes no address from a request, so
  // it is refused here, saying why; the list reads back as written.
  const server = await make({ label: 'server', kind: 'sandbox', apis: ['prediction'], ip_ranges: ['203.0.113.0/24'] });
  assert.equal(server.status, 201, JSON.stringify(server.json));
  assert.deepEqual([server.json.ip_ranges, server.json.restriction], [['203.0.113.0/24'], 'server_addresses']);
  const fromHere = await fetch(`${worker.url}/v1/cities`, { headers: { authorization: `Bearer ${server.json.key}`, 'cf-connecting-ip': '203.0.113.9' } });
  assert.equal(fromHere.status, 403);
  assert.equal((await fromHere.json()).details.reason, 'address_not_allowed');
  const live = await make({ kind: 'live', apis: ['router'] });
  assert.equal(live.status, 201);
  assert.equal(live.json.daily_limit, TIER_LIMITS.partner);
  assert.equal(await use(live.json.key, '/route/config'), 200);

  const rolled = await call('POST', `/portal/api/keys/${made.json.id}/roll`, { body: { grace_hours: 0 }, cookie });
  assert.equal(rolled.status, 201, JSON.stringify(rolled.json));
  assert.equal(await use(made.json.key), 401, 'no grace: the old key stops at once');
  assert.equal(await use(rolled.json.key), 200);
  const revoked = await call('DELETE', `/portal/api/keys/${live.json.id}`, { cookie });
  assert.equal(revoked.status, 200);
  assert.equal(await use(live.json.key, '/route/config'), 401);
  const listed = await call('GET', '/portal/api/keys', { cookie });
  // The rolled key had no grace: it is past its end, and names its replacement.
  assert.deepEqual(listed.json.keys.map((k) => k.state).sort(), ['active', 'active', 'expired', 'revoked']);
  assert.equal(listed.json.keys.find((k) => k.id === made.json.id).rolled_to, rolled.json.id);
  assert.ok(!JSON.stringify(listed.json).includes(rolled.json.key), 'a key is shown once');

  // Suspension stops every key of the account.
  await decidePartner({ partner: applied.json.id, decision: 'suspend', stateDir: state });
  const suspended = await fetch(`${worker.url}/v1/cities`, { headers: { authorization: `Bearer ${rolled.json.key}` } });
  assert.equal(suspended.status, 403, 'the key is right; its account may not use it');
  assert.equal((await suspended.json()).details.reason, 'account_suspended');
});

test("the operator's endpoints decide as scripts/operator.mjs does, for the operator only", async () => {
  const applied = await apply(new SoftAuthenticator(PORTAL));
  assert.equal(applied.status, 201);
  const partnerCookie = cookieOf(applied);
  const { id: operatorId, link } = await operatorAccount({ email: 'operator@example.org', portal: PORTAL, stateDir: state });
  const token = new URL(link).hash.replace('#enrol=', '');
  const options = await call('POST', '/portal/api/enrolments/options', { body: { token } });
  assert.equal(options.status, 200, JSON.stringify(options.json));
  const credential = new SoftAuthenticator(PORTAL).create(options.json.publicKey);
  const enrolled = await call('POST', '/portal/api/enrolments', { body: { ceremony: options.json.ceremony, credential } });
  assert.equal(enrolled.status, 201, JSON.stringify(enrolled.json));
  const cookie = cookieOf(enrolled);

  assert.equal((await call('GET', '/portal/api/operator/partners', { cookie: partnerCookie })).status, 403);
  const listed = await call('GET', '/portal/api/operator/partners', { cookie });
  assert.equal(listed.status, 200);
  assert.ok(listed.json.partners.some((p) => p.id === applied.json.id && p.status === 'applied'));
  // Each decision applies from exactly the statuses scripts/operator.mjs lets it.
  let current = 'applied';
  for (const decision of ['suspend', 'approve', 'reject', 'suspend', 'approve']) {
    const answer = await call('POST', `/portal/api/operator/partners/${applied.json.id}/decision`, { body: { decision }, cookie });
    const applies = DECISIONS[decision].from.includes(current);
    assert.equal(answer.status, applies ? 200 : 400, `${decision} from ${current}: ${JSON.stringify(answer.json)}`);
    if (applies) current = DECISIONS[decision].to;
    // The account after it, or the status that refused it.
    assert.equal(applies ? answer.json.status : answer.json.details.status, current);
  }
  const tier = await call('POST', `/portal/api/operator/partners/${applied.json.id}/tier`, { body: { tier: 'enterprise', daily_limit: 25000 }, cookie });
  assert.deepEqual([tier.status, tier.json.tier, tier.json.daily_limit], [200, 'enterprise', 25000]);
  const audit = await call('GET', '/portal/api/operator/audit?limit=10', { cookie });
  assert.deepEqual(audit.json.audit.slice(0, 4).map((e) => [e.action, e.actor]),
    [['tier_set', operatorId], ['approved', operatorId], ['suspended', operatorId], ['approved', operatorId]]);
});

test('sign-in attempts from one address are rate-limited in the store under workerd', async () => {
  // Other tests of this file count in the same window; a window may also end
  // mid-loop. Either way a 429 comes within two windows' worth of attempts.
  let limited;
  for (let i = 0; i < 45 && !limited; i += 1) {
    const answer = await call('POST', '/portal/api/sessions/options');
    if (answer.status === 429) limited = answer;
    else assert.equal(answer.status, 200);
  }
  assert.ok(limited, 'no 429');
  assert.equal(limited.json.code, 'RATE_LIMITED');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
});
