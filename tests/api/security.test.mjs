// Keys, origins and headers over HTTP against `wrangler dev`: every kind of answer of
// both APIs (successes, every error status, preflights, compressed bodies, health and
// the OpenAPI documents) carries the security headers; error bodies carry no internal
// detail; revoked and expired keys are refused on both APIs with a key prefix that
// shows no more than four characters of the secret; CORS never names an origin that
// is not on the key's list.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { revokeKey } from '../../scripts/operator.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const ORIGIN = 'http://127.0.0.1:8080';
const EVIL = 'http://evil.example';
let state;
let keys;
let worker;

before(async () => {
  ({ state, keys } = await keyStore('security', {
    live: { kind: 'live', origins: [ORIGIN] },
    limited: { kind: 'live', tier: 'enterprise', dailyLimit: 1 },
    expired: { kind: 'sandbox', issuedAt: new Date(Date.now() - 31 * 86400e3) },
    revoked: { kind: 'live', origins: [ORIGIN] },
  }));
  await revokeKey({ key: keys.revoked, stateDir: state });
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: '2022-01-03' } });
});
after(() => worker?.stop());

const SECURITY = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
};
/** What may be cached (docs/API.md, "Caching"): everything else is no-store, errors included. */
function cacheControl(pathname, status) {
  if (status !== 200) return 'no-store';
  if (pathname.endsWith('/openapi.json')) return 'public, max-age=300';
  const keyed = ['/hexes/config', '/route/config', '/precincts', '/v1/classes', '/v1/cities', '/v1/coverage'];
  return keyed.includes(pathname) ? 'private, no-cache' : 'no-store';
}
// What an error body must never show: code paths, runtime or storage internals, the key.
const INTERNAL = /panick|unwrap|src\/|\.rs\b|worker::|workerd|D1_|SQLITE|sqlite|durable|stack|at [\w.]+ \(|hexrisk_(live|sandbox)_\w{5,}/i;

const point = { latitude: 43.6532, longitude: -79.3832 };
const route = { origin: { lat: 43.6453, lng: -79.3806 }, destination: { lat: 43.6645, lng: -79.4206 } };
/** [label, method, path, headers, body, expected status] */
const sweep = () => [
  ['health', 'GET', '/v1/health', {}, undefined, 200],
  ['router health', 'GET', '/health', {}, undefined, 200],
  ['openapi', 'GET', '/openapi.json', {}, undefined, 200],
  ['prediction openapi', 'GET', '/v1/openapi.json', {}, undefined, 200],
  ['predict', 'POST', '/v1/predict', { authorization: `Bearer ${keys.live}` }, point, 200],
  ['gzip lookup', 'POST', '/hexes/lookup', { 'x-api-key': keys.live, 'accept-encoding': 'gzip' }, { lat: 43.6532, lng: -79.3832, ring: 10 }, 200],
  ['route', 'POST', '/route', { 'x-api-key': keys.live, origin: ORIGIN }, route, 200],
  ['bad body', 'POST', '/hexes/score', { 'x-api-key': keys.live }, '{"hexIds": [', 400],
  ['bad coordinates', 'POST', '/v1/predict', { authorization: `Bearer ${keys.live}` }, { latitude: 91, longitude: 0 }, 400],
  ['no key', 'POST', '/v1/predict', {}, point, 401],
  ['no router key', 'GET', '/hexes/config', {}, undefined, 401],
  ['wrong key', 'GET', '/hexes/config', { 'x-api-key': 'hexrisk_live_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ' }, undefined, 401],
  ['expired key', 'GET', '/hexes/config', { 'x-api-key': keys.expired }, undefined, 401],
  ['revoked key', 'POST', '/v1/predict', { authorization: `Bearer ${keys.revoked}` }, point, 401],
  ['revoked router key', 'GET', '/route/config', { 'x-api-key': keys.revoked, origin: ORIGIN }, undefined, 401],
  ['unlisted origin', 'GET', '/hexes/config', { 'x-api-key': keys.live, origin: EVIL }, undefined, 403],
  ['unknown path', 'GET', '/nowhere', {}, undefined, 404],
  ['wrong method', 'DELETE', '/v1/predict', { authorization: `Bearer ${keys.live}` }, undefined, 405],
  ['preflight', 'OPTIONS', '/route', { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, content-type' }, undefined, 204],
  ['refused preflight', 'OPTIONS', '/route', { origin: 'null', 'access-control-request-method': 'POST' }, undefined, 403],
  ['first of a limit of 1', 'GET', '/hexes/config', { 'x-api-key': keys.limited }, undefined, 200],
  ['over the limit', 'GET', '/hexes/config', { 'x-api-key': keys.limited }, undefined, 429],
];

test('every kind of answer carries the security headers; errors show nothing internal', async () => {
  for (const [label, method, pathname, headers, body, status] of sweep()) {
    const init = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(`${worker.url}${pathname}`, init);
    const text = await res.text();
    assert.equal(res.status, status, `${label}: ${text.slice(0, 200)}`);
    for (const [name, value] of Object.entries(SECURITY)) {
      assert.equal(res.headers.get(name), value, `${label}: ${name}`);
    }
    assert.equal(res.headers.get('cache-control'), cacheControl(pathname, status), `${label}: cache-control`);
    if (status >= 400) {
      const answer = JSON.parse(text);
      assert.equal(answer.status, 'error', label);
      assert.match(answer.code, /^[A-Z_]+$/, label);
      assert.doesNotMatch(text, INTERNAL, label);
    }
    // CORS names the caller's origin only when it is listed, never a wildcard.
    const allowed = res.headers.get('access-control-allow-origin');
    if (init.headers.origin === EVIL || !init.headers.origin) assert.equal(allowed, null, `${label}: ACAO ${allowed}`);
    else if (status < 400) assert.equal(allowed, ORIGIN, label);
  }
});

test('refused keys show at most four characters of the secret', async () => {
  for (const key of [keys.expired, keys.revoked, 'hexrisk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345']) {
    for (const [pathname, headers] of [['/v1/cities', { authorization: `Bearer ${key}` }], ['/hexes/config', { 'x-api-key': key }]]) {
      const res = await fetch(`${worker.url}${pathname}`, { headers });
      assert.equal(res.status, 401, pathname);
      const answer = await res.json();
      const prefix = answer.details.key_prefix;
      const kind = key.startsWith('hexrisk_sandbox_') ? 'hexrisk_sandbox_' : 'hexrisk_live_';
      assert.equal(prefix, `${kind}${key.slice(kind.length, kind.length + 4)}...`, pathname);
    }
  }
});
