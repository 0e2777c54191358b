// Real answers against the served OpenAPI documents, checked by an independent
// implementation: openapi-core (PyPI, installed by `make` into .tools/venv beside
// schemathesis) validates each answer of a fixed set of requests, as it came over the
// wire from `wrangler dev` (status, headers, content type, body), against the document
// the Worker serves for its API (tests/support/openapi_validate.py); and each request
// the Worker took as valid against the same document. The set is
// scripts/answer-requests.mjs (what scripts/answers.mjs records: both APIs, good and
// bad requests) plus the endpoints it leaves out, 304s, 401s without a key, 429s over
// a daily limit, and every endpoint of the partner portal with a software passkey.
// Every operation of the three documents must be answered without an error at least
// once, so a document and the code cannot drift apart without this failing, whichever
// of the two moved. Answers no operation describes (unknown paths, methods a path
// lacks, CORS preflights) are checked to be undescribed, and in the error shape.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { CLOCK, ORIGIN, TOR, TOR2, prediction, router } from '../../scripts/answer-requests.mjs';
import { decidePartner, operatorAccount } from '../../scripts/operator.mjs';
import { SoftAuthenticator } from '../support/authenticator.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const python = new URL('../../.tools/venv/bin/python', import.meta.url).pathname;
const validator = new URL('../support/openapi_validate.py', import.meta.url).pathname;
// The portal's configured origin: what its page (here the Origin header) reports.
const PORTAL = 'http://localhost:8787';
const DOCUMENTS = ['/openapi.json', '/v1/openapi.json', '/portal/api/openapi.json'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let worker;
let state;
let keys;
let validate;
let endValidator;
const documents = {};
const exchanges = [];

before(async () => {
  ({ validate, end: endValidator } = validatorProcess());
  ({ state, keys } = await keyStore('oapi', {
    // As scripts/answers.mjs issues it, so the shared request set means the same.
    live: { kind: 'live', origins: [ORIGIN] },
    // One request a day: the second is a 429.
    spent: { kind: 'live', tier: 'enterprise', dailyLimit: 1 },
  }));
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: CLOCK, HEXRISK_PORTAL_ORIGIN: PORTAL } });
  for (const path of DOCUMENTS) documents[path] = await (await fetch(`${worker.url}${path}`)).json();
});

after(() => Promise.all([worker?.stop(), endValidator?.()]));

/** The document an answer of `path` is described by: the portal's, the prediction API's, or the router's. */
const documentOf = (path) => (path.startsWith('/portal/api/') ? '/portal/api/openapi.json' : path.startsWith('/v1/') ? '/v1/openapi.json' : '/openapi.json');

/** `document`'s operations as `METHOD /template`, with a matcher of request paths. */
function operations(document) {
  const prefix = new URL(document.servers?.[0]?.url ?? '/', 'http://x').pathname.replace(/\/$/, '');
  return Object.entries(document.paths).map(([template, item]) => ({
    template,
    methods: METHODS.filter((m) => item[m]),
    pattern: new RegExp(`^${prefix}${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
}

/**
 * The operation of `documentPath` that describes `method path` answered `status`:
 * its own (the request too may be validated against it), or, for a 405 to a method the
 * path does not list, the path's operation that lists 405 among its answers (as the
 * prediction API's document does), or none (validated as an undocumented answer).
 */
function describedBy(documentPath, method, path, status) {
  const document = documents[documentPath];
  const matching = operations(document).filter((o) => o.pattern.test(path));
  // OpenAPI matches a concrete path before a templated one: DELETE .../passkeys/options
  // is a method .../passkeys/options does not have, not DELETE .../passkeys/{id}.
  const concrete = matching.filter((o) => !o.template.includes('{'));
  const paths = concrete.length ? concrete : matching;
  const own = paths.find((o) => o.methods.includes(method.toLowerCase()));
  if (own) return { operation: `${method} ${own.template}` };
  if (status !== 405) return {};
  for (const o of paths) {
    const listing = o.methods.find((m) => document.paths[o.template][m].responses?.['405']);
    if (listing) return { documentedAs: listing, operation: `${listing.toUpperCase()} ${o.template}` };
  }
  return {};
}

/**
 * Whether an answer says its request was a valid one: accepted (below 400), and not
 * a batch some of whose items were refused one by one (the API answers those 200
 * with an error item each, while the document's schema admits only good items).
 */
function accepted(status, bytes) {
  if (status >= 400) return false;
  try {
    return !(JSON.parse(bytes.toString())?.summary?.failed > 0);
  } catch {
    return true;
  }
}

/** Sends one request to the Worker and keeps it and its answer, byte for byte. */
async function send(method, path, { body, headers = {} } = {}) {
  const sent = { ...headers };
  const init = { method, headers: sent };
  if (body !== undefined) {
    sent['content-type'] ??= 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const response = await fetch(`${worker.url}${path}`, init);
  const bytes = Buffer.from(await response.arrayBuffer());
  const document = documentOf(path);
  const { operation, documentedAs } = describedBy(document, method, path.split('?')[0], response.status);
  const exchange = {
    document, method, url: `${worker.url}${path}`, requestHeaders: sent, requestBody: init.body ?? null,
    status: response.status, responseHeaders: [...response.headers],
    responseBody: bytes.toString('base64'), responseEncoding: 'base64',
    // A request the Worker took as valid must be one the document admits too.
    validateRequest: Boolean(operation) && !documentedAs && accepted(response.status, bytes),
    documented: Boolean(operation),
    documentedAs,
    operation,
  };
  exchanges.push(exchange);
  return { status: response.status, headers: response.headers, json: () => JSON.parse(bytes.toString() || 'null') };
}

/**
 * The validator, one process for the file (its interpreter and openapi-core start once,
 * while the Worker starts): `validate(input)` ({ documents, exchanges }) resolves to its
 * report; `end()` closes it.
 */
function validatorProcess() {
  const child = spawn(python, [validator], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = [];
  let stdout = '';
  let stderr = '';
  let failure;
  const fail = (error) => {
    failure ??= error;
    for (const { reject } of waiting.splice(0)) reject(failure);
  };
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    for (let end = stdout.indexOf('\n'); end >= 0; end = stdout.indexOf('\n')) {
      const line = stdout.slice(0, end);
      stdout = stdout.slice(end + 1);
      const { resolve, reject } = waiting.shift();
      try {
        resolve(JSON.parse(line));
      } catch (error) {
        reject(error);
      }
    }
  });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  child.on('error', fail);
  child.on('close', (code) => fail(new Error(`openapi_validate.py exited ${code}:\n${stderr}`)));
  return {
    validate: (input) => new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      waiting.push({ resolve, reject });
      child.stdin.write(`${JSON.stringify(input)}\n`);
    }),
    end: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('close', resolve);
      child.stdin.end();
    }),
  };
}

/** The slippy-map tile of zoom `z` holding a point. */
function tileOf({ lat, lng }, z) {
  const n = 2 ** z;
  const rad = (lat * Math.PI) / 180;
  return { z, x: Math.floor(((lng + 180) / 360) * n), y: Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n) };
}

async function apiRequests() {
  // The shared set, each API with its own way of sending the key.
  for (const [api, requests] of [['router', router], ['prediction', prediction]]) {
    for (const [method, path, body, extra = {}] of requests) {
      const headers = api === 'router' ? { 'x-api-key': keys.live } : { authorization: `Bearer ${keys.live}` };
      await send(method, path, { body, headers: { ...headers, ...extra } });
    }
  }
  const key = { 'x-api-key': keys.live };
  const bearer = { authorization: `Bearer ${keys.live}` };
  // The router endpoints the shared set leaves out.
  const box = 'west=-79.40&south=43.64&east=-79.37&north=43.66';
  await send('GET', `/streets?${box}&intent=walking`, { headers: key });
  await send('GET', `/streets?${box}&format=geojson`, { headers: key });
  await send('GET', '/streets?west=-79.45&south=43.62&east=-79.35&north=43.70', { headers: key });
  await send('GET', `/hexes/all?${box}&format=geojson`, { headers: key });
  await send('POST', '/reach', { body: { origin: TOR, minutes: 15, mode: 'walking', intent: 'night' }, headers: key });
  await send('POST', '/reach', { body: { origin: TOR }, headers: key });
  const city = 'city_ca_tor';
  const tile = tileOf(TOR, 14);
  await send('GET', `/tiles/${city}.json?intent=night`, { headers: key });
  await send('GET', `/tiles/${city}/style.json`, { headers: key });
  const mvt = `/tiles/${city}/${tile.z}/${tile.x}/${tile.y}.mvt`;
  const served = await send('GET', mvt, { headers: key });
  await send('GET', mvt, { headers: { ...key, 'if-none-match': served.headers.get('etag') } });
  await send('GET', `/tiles/${city}/8/0/0.mvt`, { headers: key });
  await send('GET', `/tiles/${city}/20/0/0.mvt`, { headers: key });
  await send('GET', '/tiles/nowhere.json', { headers: key });
  // A batch whose every item is good (the shared set's each have a refused one).
  await send('POST', '/v1/predict/batch', { body: { locations: [{ latitude: TOR.lat, longitude: TOR.lng }, { latitude: TOR2.lat, longitude: TOR2.lng }], datetime: '2022-01-08T04:30:00Z' }, headers: bearer });
  // Revalidation: 304 with the tag of the answer before.
  for (const [path, headers] of [['/openapi.json', {}], ['/route/config', key], ['/v1/classes', bearer], ['/v1/openapi.json', {}]]) {
    const first = await send('GET', path, { headers });
    await send('GET', path, { headers: { ...headers, 'if-none-match': first.headers.get('etag') } });
  }
  // No key at all.
  await send('GET', '/hexes/config');
  await send('POST', '/route', { body: { origin: TOR, destination: TOR2 } });
  await send('GET', '/v1/cities');
  await send('POST', '/v1/predict', { body: { latitude: TOR.lat, longitude: TOR.lng } });
  // A key over its daily limit, on both APIs.
  await send('GET', '/v1/cities', { headers: { authorization: `Bearer ${keys.spent}` } });
  await send('GET', '/v1/cities', { headers: { authorization: `Bearer ${keys.spent}` } });
  await send('POST', '/v1/predict', { body: { latitude: TOR.lat, longitude: TOR.lng }, headers: { authorization: `Bearer ${keys.spent}` } });
  await send('GET', '/hexes/config', { headers: { 'x-api-key': keys.spent } });
  await send('POST', '/route', { body: { origin: TOR, destination: TOR2 }, headers: { 'x-api-key': keys.spent } });
}

async function portalRequests() {
  const post = (path, body, { cookie, origin = PORTAL } = {}) => send('POST', path, {
    body, headers: { origin, ...(cookie ? { cookie } : {}) },
  });
  const call = (method, path, cookie) => send(method, path, { headers: { origin: PORTAL, ...(cookie ? { cookie } : {}) } });
  const cookieOf = (answer) => answer.headers.get('set-cookie').split(';')[0];
  // Signed out.
  await call('GET', '/portal/api/session');
  await call('GET', '/portal/api/me');
  await call('GET', '/portal/api/keys');
  await post('/portal/api/applications/options', { organisation: 'Answers Co' });
  await post('/portal/api/sessions/options', undefined, { origin: 'https://evil.example' });
  // Apply with a passkey, be approved, sign in with it.
  const device = new SoftAuthenticator(PORTAL);
  const options = (await post('/portal/api/applications/options', { organisation: 'Answers Co', email: 'ops@answers.example', intended_use: 'testing' })).json();
  const applied = await post('/portal/api/applications', { ceremony: options.ceremony, credential: device.create(options.publicKey) });
  const account = applied.json();
  const applicant = cookieOf(applied);
  await post('/portal/api/keys', { kind: 'sandbox', apis: ['prediction'] }, { cookie: applicant });
  await decidePartner({ partner: account.id, decision: 'approve', stateDir: state });
  const asked = (await post('/portal/api/sessions/options')).json();
  const signedIn = await post('/portal/api/sessions', { ceremony: asked.ceremony, credential: device.get(asked.publicKey) });
  const cookie = cookieOf(signedIn);
  await call('GET', '/portal/api/session', cookie);
  await call('GET', '/portal/api/me', cookie);
  // Keys: made, listed, used, rolled, revoked.
  const made = (await post('/portal/api/keys', { label: 'app', kind: 'sandbox', apis: ['prediction'] }, { cookie })).json();
  await post('/portal/api/keys', { kind: 'sandbox', apis: ['router'], origins: ['http://maps.example.org'] }, { cookie });
  await send('GET', '/v1/cities', { headers: { authorization: `Bearer ${made.key}` } });
  await call('GET', '/portal/api/keys', cookie);
  await call('GET', `/portal/api/keys/${made.id}/usage?days=7`, cookie);
  await call('GET', `/portal/api/keys/${made.id}/usage.csv?days=7`, cookie);
  await call('GET', `/portal/api/keys/${made.id}/usage?days=0`, cookie);
  const rolled = (await post(`/portal/api/keys/${made.id}/roll`, { grace_hours: 0 }, { cookie })).json();
  await call('DELETE', `/portal/api/keys/${rolled.id}`, cookie);
  await call('DELETE', '/portal/api/keys/0123456789abcdef0123456789abcdef', cookie);
  // A second passkey, added and removed.
  const adding = (await post('/portal/api/passkeys/options', undefined, { cookie })).json();
  const { added } = (await post('/portal/api/passkeys', { ceremony: adding.ceremony, credential: new SoftAuthenticator(PORTAL).create(adding.publicKey) }, { cookie })).json();
  await call('DELETE', `/portal/api/passkeys/${added}`, cookie);
  // The operator: enrolled by a link, then deciding and listing.
  const { link } = await operatorAccount({ email: 'operator@answers.example', portal: PORTAL, stateDir: state });
  const token = new URL(link).hash.replace('#enrol=', '');
  const enrolling = (await post('/portal/api/enrolments/options', { token })).json();
  const enrolled = await post('/portal/api/enrolments', { ceremony: enrolling.ceremony, credential: new SoftAuthenticator(PORTAL).create(enrolling.publicKey) });
  const operator = cookieOf(enrolled);
  await call('GET', '/portal/api/operator/partners', cookie);
  // Signing out: this session, then every session of the account.
  await call('DELETE', '/portal/api/sessions/current', cookie);
  await call('DELETE', '/portal/api/sessions', applicant);
  await call('GET', '/portal/api/me', cookie);
  // The operator's decisions, on the account signed out.
  await call('GET', '/portal/api/operator/partners', operator);
  await post(`/portal/api/operator/partners/${account.id}/decision`, { decision: 'suspend' }, { cookie: operator });
  await post(`/portal/api/operator/partners/${account.id}/decision`, { decision: 'reject' }, { cookie: operator });
  await post(`/portal/api/operator/partners/${account.id}/tier`, { tier: 'enterprise', daily_limit: 25000 }, { cookie: operator });
  await call('GET', '/portal/api/operator/audit?limit=10', operator);
}

/** The exchanges whose validation failed, each with its errors, for a failure message. */
function failures(report, given) {
  return report.results.flatMap((r, i) => (r.ok ? [] : [
    `#${i} ${given[i].method} ${new URL(given[i].url).pathname}${new URL(given[i].url).search} -> ${given[i].status}`
    + ` (${given[i].operation ?? 'not in the document'}):\n  ${r.errors.join('\n  ')}`,
  ]));
}

test('every answer to a fixed set of real requests conforms to the served OpenAPI documents (openapi-core)', async () => {
  await apiRequests();
  await portalRequests();
  const report = await validate({ documents, exchanges });
  // Nothing is left out: one result per exchange sent.
  assert.equal(report.results.length, exchanges.length);
  const failed = failures(report, exchanges);
  console.log(`openapi-core ${report.openapi_core}: ${exchanges.length} exchanges validated, `
    + `${exchanges.filter((e) => e.validateRequest).length} requests too, ${exchanges.filter((e) => !e.documented).length} `
    + `undocumented (checked as such), ${failed.length} not conforming`);
  assert.deepEqual(failed, [], `answers that do not conform:\n${failed.join('\n')}`);
  // 184 when written: the shared set whole and this file's own; fewer means requests went missing.
  assert.ok(exchanges.length >= router.length + prediction.length + 60, `${exchanges.length} exchanges`);
  // Every operation of every document answered at least once without an error.
  for (const [path, document] of Object.entries(documents)) {
    const all = operations(document).flatMap((o) => o.methods.map((m) => `${m.toUpperCase()} ${o.template}`));
    const answered = new Set(exchanges.filter((e) => e.document === path && e.validateRequest).map((e) => e.operation));
    assert.deepEqual(all.filter((o) => !answered.has(o)), [], `${path}: operations without a successful, validated exchange`);
  }
});

test('the validator is not vacuous: a document with one field of another type fails the same answer', async () => {
  // The router's health answer against a copy of its document in which `status` is a number.
  await send('GET', '/health');
  const health = exchanges.at(-1);
  assert.deepEqual([health.operation, health.status], ['GET /health', 200]);
  const altered = structuredClone(documents['/openapi.json']);
  const schema = altered.components.schemas.Health;
  assert.ok(schema.properties.status, 'Health has a status');
  schema.properties.status = { type: 'number' };
  const [good, bad] = await Promise.all([
    validate({ documents, exchanges: [health] }),
    validate({ documents: { ...documents, '/openapi.json': altered }, exchanges: [health] }),
  ]);
  assert.equal(good.results[0].ok, true, JSON.stringify(good.results[0]));
  assert.equal(bad.results[0].ok, false);
  assert.match(bad.results[0].errors.join('\n'), /at \/status: 'healthy' is not of type 'number'/);
});
