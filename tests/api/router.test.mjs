// The router API (root paths) over real HTTP against `wrangler dev` on workerd: X-API-Key
// keys from the local D1 store with origin allowlists, CORS, gzip, every endpoint's
// shape, and every response checked against the served OpenAPI document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { close } from '../support/close.mjs';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { openApiValidator } from '../support/openapi.mjs';
import { fieldPaths, orderProblems } from '../support/spec.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';
import { HexRisk } from '../../pkg/dist/roads/node/hexrisk_engine.js';

const CLOCK = '2022-01-03';
const ORIGIN = 'http://127.0.0.1:8080';
let state;
let worker;
let conforms;
let validated = 0;
const keys = {};

before(async () => {
  let issued;
  ({ state, keys: issued } = await keyStore('router', {
    live: { kind: 'live', origins: [ORIGIN] },
    sandbox: { kind: 'sandbox' },
    limited: { kind: 'live', tier: 'enterprise', dailyLimit: 3 },
  }));
  Object.assign(keys, issued);
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: CLOCK } });
  const doc = await (await fetch(`${worker.url}/openapi.json`)).json();
  conforms = openApiValidator(doc);
});

after(async () => {
  await worker?.stop();
  assert.ok(validated >= 45, `only ${validated} responses were checked against the OpenAPI document`);
});

async function call(method, pathname, { key = keys.live, body, headers = {} } = {}) {
  const init = { method, headers: { ...headers } };
  if (key) init.headers['x-api-key'] = key;
  if (body !== undefined) {
    init.headers['content-type'] ??= 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const response = await fetch(`${worker.url}${pathname}`, init);
  const text = await response.text();
  const answer = text ? JSON.parse(text) : null;
  if (method !== 'OPTIONS') {
    conforms(method, pathname.split('?')[0], response.status, answer);
    validated += 1;
  }
  return { status: response.status, headers: response.headers, body: answer };
}

/** The raw bytes on the wire, without fetch's transparent decompression. */
function raw(method, pathname, headers, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(`${worker.url}${pathname}`, { method, headers }, (response) => {
      const chunks = [];
      response.on('data', (c) => chunks.push(c));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, bytes: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    if (body) request.end(JSON.stringify(body));
    else request.end();
  });
}

function assertError(res, status, code) {
  assert.equal(res.status, status, JSON.stringify(res.body).slice(0, 300));
  assert.equal(res.body.status, 'error');
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.details, 'object');
}

const UNION = { lat: 43.6453, lng: -79.3806 };
const CHRISTIE_PITS = { lat: 43.6645, lng: -79.4206 };
const CELL = /^[0-9a-f]{15}$/;

test('the OpenAPI check rejects bodies that break the document', () => {
  assert.throws(() => conforms('POST', '/hexes/score', 200, [{ h3: 'x', safetyScore: 1 }]), /does not conform/);
  assert.throws(() => conforms('POST', '/route', 200, { status: 'success' }), /does not conform/);
});

describe('hexes', () => {
  test('config: the 17-colour palette and resolution 8', async () => {
    const res = await call('GET', '/hexes/config');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.colors.length, 17);
    assert.equal(res.body.data.resolution, 8);
  });

  test('lookup: 3k^2+3k+1 cells for k = 0, 1, 5 and 41', async () => {
    for (const [ring, count] of [[0, 1], [1, 7], [5, 91], [41, 5167]]) {
      const res = await call('POST', '/hexes/lookup', { body: { ...UNION, ring } });
      assert.equal(res.status, 200);
      assert.equal(res.body.count, count);
      assert.equal(res.body.cells.length, count);
      assert.equal(res.headers.get('x-hex-count'), String(count));
      assert.equal(res.body.cells[0].h3, res.body.center);
    }
    const detail = await call('POST', '/hexes/lookup', { body: { ...UNION, ring: 2, detail: true } });
    assert.ok(detail.body.cells.every((c) => c.breakdown && typeof c.breakdown.hasData === 'boolean'));
    for (const ring of [-1, 42]) assertError(await call('POST', '/hexes/lookup', { body: { ...UNION, ring } }), 400, 'INVALID_REQUEST');
    assertError(await call('POST', '/hexes/lookup', { body: { ...UNION, resolution: 9 } }), 400, 'INVALID_REQUEST');
  });

  test('score: 5000 ids answered in request order; 5001 and malformed ids refused', async () => {
    const ring = (await call('POST', '/hexes/lookup', { body: { ...UNION, ring: 41 } })).body.cells.map((c) => c.h3);
    const ids = ring.slice(0, 5000).reverse();
    const res = await call('POST', '/hexes/score', { body: { hexIds: ids, intent: 'walking' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.map((r) => r.h3), ids);
    assert.ok(res.body.some((r) => r.colorIndex === -1 && r.safetyScore === null), 'cells outside Toronto are N/A');
    assert.ok(res.body.some((r) => r.colorIndex >= 0));
    const over = await call('POST', '/hexes/score', { body: { hexIds: [...ids, ids[0]] } });
    assertError(over, 400, 'INVALID_REQUEST');
    assert.equal(over.body.details.limit, 5000);
    const bad = await call('POST', '/hexes/score', { body: { hexIds: [ids[0], 'not-a-cell'] } });
    assertError(bad, 400, 'INVALID_REQUEST');
    assert.equal(bad.body.details.index, 1);
    assertError(await call('POST', '/hexes/score', { body: { hexIds: ids.slice(0, 3), intent: 'flying' } }), 400, 'INVALID_REQUEST');
    assertError(await call('POST', '/hexes/score', { body: { hexIds: ids.slice(0, 3), activeCodes: ['NOPE'] } }), 400, 'INVALID_REQUEST');
    // Intents change scores.
    const night = await call('POST', '/hexes/score', { body: { hexIds: ids.slice(-200), intent: 'night' } });
    const driving = await call('POST', '/hexes/score', { body: { hexIds: ids.slice(-200), intent: 'driving' } });
    assert.notDeepEqual(night.body.map((r) => r.safetyScore), driving.body.map((r) => r.safetyScore));
  });

  test('breakdown of one cell, and of a cell without data', async () => {
    const cell = (await call('POST', '/hexes/lookup', { body: UNION })).body.center;
    const res = await call('GET', `/hexes/breakdown?h3=${cell}&intent=night`);
    assert.equal(res.status, 200);
    assert.equal(res.body.hasData, true);
    assert.equal(res.body.crimeTypes.length, 5);
    assert.equal(res.body.modifiers.intent, 'night');
    const none = await call('GET', '/hexes/breakdown?h3=88754e6499fffff');
    assert.equal(none.body.hasData, false);
    assert.equal(none.body.colorIndex, -1);
    assertError(await call('GET', '/hexes/breakdown?h3=zz'), 400, 'INVALID_REQUEST');
  });

  test('all: slim objects in the box with X-Hex-Count; boxes over 2 degrees refused', async () => {
    const res = await call('GET', '/hexes/all?west=-79.45&south=43.62&east=-79.35&north=43.70');
    assert.equal(res.status, 200);
    assert.ok(res.body.length > 50);
    assert.equal(res.headers.get('x-hex-count'), String(res.body.length));
    for (const item of res.body) {
      assert.match(item.h, CELL);
      assert.ok(item.ln >= -79.45 && item.ln <= -79.35 && item.la >= 43.62 && item.la <= 43.70);
      assert.deepEqual(Object.keys(item.ss).sort(), ['driving', 'night', 'overall', 'walking']);
    }
    const wide = await call('GET', '/hexes/all?west=-80.5&south=43.5&east=-78.4&north=43.9');
    assertError(wide, 400, 'INVALID_REQUEST');
    assert.equal(wide.body.details.limit_degrees, 2);
    assertError(await call('GET', '/hexes/all?west=-79.4&south=43.6&east=-79.3'), 400, 'INVALID_REQUEST');
  });

  test('streets: each street in a small box with its line, name and risk; wide boxes refused', async () => {
    const box = 'west=-79.40&south=43.64&east=-79.37&north=43.66';
    const res = await call('GET', `/streets?${box}&intent=walking`);
    assert.equal(res.status, 200);
    assert.equal(res.body.city, 'city_ca_tor');
    assert.equal(res.body.intent, 'walking');
    const { streets } = res.body;
    assert.ok(streets.length > 200, `${streets.length} streets`);
    assert.ok(streets.filter((s) => s.name).length > 0.8 * streets.length, 'most streets are named');
    assert.ok(streets.some((s) => s.basis === 'street'), 'some streets have a risk of their own');
    for (const s of streets) {
      assert.ok(s.coordinates.some(([lng, lat]) => lng >= -79.40 && lng <= -79.37 && lat >= 43.64 && lat <= 43.66), `street ${s.id} has a point in the box`);
      assert.ok(s.incidentsPerKm >= 0 && s.colorIndex >= 0 && s.colorIndex <= 16);
    }
    // Riskier per km, less safe: the ranking agrees with the figure it ranks.
    const sorted = [...streets].sort((a, b) => a.incidentsPerKm - b.incidentsPerKm);
    assert.ok(sorted[0].safetyScore >= sorted.at(-1).safetyScore);
    const wide = await call('GET', '/streets?west=-79.45&south=43.62&east=-79.35&north=43.70');
    assertError(wide, 400, 'INVALID_REQUEST');
    assert.equal(wide.body.details.limit_degrees, 0.05);
    assertError(await call('GET', '/streets?west=-95.40&south=29.74&east=-95.37&north=29.76'), 404, 'LOCATION_NOT_COVERED');
  });
});

describe('routes and evaluation', () => {
  test('a Toronto route: line, corridor and tiers agree with evaluate-hex-path', async () => {
    const config = await call('GET', '/route/config');
    assert.deepEqual(config.body.methods.map((m) => m.name), ['safest', 'balanced', 'shortest', 'tradeoff']);
    assert.equal(config.body.tradeoff.maxRoutes, 5);
    const res = await call('POST', '/route', { body: { origin: UNION, destination: CHRISTIE_PITS, intent: 'walking', alternatives: 2 } });
    assert.equal(res.status, 200);
    assert.equal(res.body.network, 'roads');
    assert.equal(res.body.best.geometry.type, 'LineString');
    assert.ok(res.body.hexPath.length > 5);
    assert.equal(res.body.best.hexPathWithTiers.length, res.body.hexPath.length);
    assert.ok(res.body.alternatives.length >= 1);
    const byPath = await call('POST', '/evaluate-hex-path', { body: { hexPath: res.body.hexPath, intent: 'walking' } });
    assert.equal(byPath.status, 200);
    assert.deepEqual(byPath.body.metrics, res.body.best.corridorMetrics);
    assert.deepEqual(byPath.body.hexPathWithTiers, res.body.best.hexPathWithTiers);
    const byLine = await call('POST', '/evaluate', { body: { geometry: res.body.best.geometry, intent: 'walking' } });
    assert.deepEqual(byLine.body.hexPath, res.body.hexPath);
    assert.ok(Math.abs(byLine.body.metrics.distanceM - res.body.best.metrics.distanceM) < 0.01);
    // A line is explained against the shortest road route between its ends, as the
    // route it came from is.
    assert.ok(Math.abs(byLine.body.explanation.shortest.distanceM - res.body.best.explanation.shortest.distanceM) < 1);
    assert.ok(byLine.body.explanation.extraM >= -1);
  });

  test('the trade-off set runs shortest to safest, each route named by pointer and explained', async () => {
    const res = await call('POST', '/route', { body: { origin: UNION, destination: CHRISTIE_PITS, method: 'tradeoff', intent: 'walking' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.method, 'tradeoff');
    assert.equal(res.body.alpha, null);
    const { routes } = res.body.tradeoff;
    assert.equal(routes.length, res.body.alternatives.length + 1);
    assert.equal(routes.at(-1).route, '/best');
    const at = (pointer) => pointer.split('/').slice(1).reduce((o, k) => o[k], res.body);
    for (const [i, entry] of routes.entries()) {
      const option = at(entry.route);
      assert.equal(option.cost, null);
      assert.equal(entry.distanceM, option.metrics.distanceM);
      assert.equal(entry.exposure, option.metrics.exposure);
      assert.ok(Math.abs(option.explanation.extraM - (option.metrics.distanceM - routes[0].distanceM)) < 1e-6);
      if (i > 0) {
        assert.ok(entry.distanceM > routes[i - 1].distanceM, 'longer than the one before');
        assert.ok(entry.exposure < routes[i - 1].exposure, 'less exposed than the one before');
      }
    }
    assert.equal(routes[0].metresPerExposureAvoided, null);
    assert.equal(at(routes[0].route).explanation.avoidedCells.length, 0);
    const shortest = await call('POST', '/route', { body: { origin: UNION, destination: CHRISTIE_PITS, method: 'shortest', intent: 'walking' } });
    assert.ok(Math.abs(routes[0].distanceM - shortest.body.best.metrics.distanceM) < 1);
    const both = await call('POST', '/route', { body: { origin: UNION, destination: CHRISTIE_PITS, method: 'tradeoff', alternatives: 1 } });
    assertError(both, 400, 'INVALID_REQUEST');
    assert.equal(both.body.details.field, 'alternatives');
  });

  test('safe reach: cells within the budget nearest first, an outline, and its refusals', async () => {
    const res = await call('POST', '/reach', { body: { origin: UNION, minutes: 15, mode: 'walking', intent: 'night' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.cellCount, res.body.cells.length);
    assert.ok(res.body.cells.length >= 3);
    assert.equal(res.body.budgetM, 1250);
    assert.equal(res.body.boundary.type, 'MultiPolygon');
    assert.equal(res.body.intent, 'night');
    for (const [i, cell] of res.body.cells.entries()) {
      assert.ok(cell.minutes <= 15);
      if (i > 0) assert.ok(cell.minutes >= res.body.cells[i - 1].minutes);
    }
    const longer = await call('POST', '/reach', { body: { origin: UNION, minutes: 30, mode: 'walking', intent: 'night' } });
    assert.ok(longer.body.cellCount > res.body.cellCount);
    for (const body of [
      { origin: UNION, minutes: 0 },
      { origin: UNION, minutes: 61 },
      { origin: UNION, minutes: 15, mode: 'driving' },
    ]) {
      const refused = await call('POST', '/reach', { body });
      assertError(refused, 400, 'INVALID_REQUEST');
      assert.equal(refused.body.details.field, 'minutes', JSON.stringify(body));
    }
    assertError(await call('POST', '/reach', { body: { origin: UNION } }), 400, 'INVALID_REQUEST');
    const lake = await call('POST', '/reach', { body: { origin: { lat: 43.62, lng: -79.38 }, minutes: 10 } });
    assertError(lake, 404, 'LOCATION_NOT_COVERED');
    assert.ok(lake.body.details.distanceM > 500);
  });

  test('route errors: far from roads, bad method, gaps in a hex path', async () => {
    const island = await call('POST', '/route', { body: { origin: { lat: 43.62, lng: -79.38 }, destination: UNION } });
    assertError(island, 404, 'LOCATION_NOT_COVERED');
    assert.ok(island.body.details.distanceM > 500);
    assertError(await call('POST', '/route', { body: { origin: UNION, destination: CHRISTIE_PITS, method: 'fastest' } }), 400, 'INVALID_REQUEST');
    assertError(await call('POST', '/route', { body: { origin: UNION } }), 400, 'INVALID_REQUEST');
    const route = await call('POST', '/route', { body: { origin: UNION, destination: CHRISTIE_PITS, method: 'shortest' } });
    const gap = await call('POST', '/evaluate-hex-path', { body: { hexPath: [route.body.hexPath[0], route.body.hexPath.at(-1)] } });
    assertError(gap, 400, 'INVALID_REQUEST');
    assert.equal(gap.body.details.index, 1);
  });
});

describe('precincts and health', () => {
  test('status, all-scores and GeoJSON', async () => {
    const status = await call('GET', '/precincts/status');
    assert.equal(status.body.available, true);
    assert.ok(status.body.precincts >= 26);
    const scores = await call('GET', '/precincts/all-scores');
    assert.equal(scores.body.cities.length, 3);
    const geojson = await call('GET', '/precincts');
    assert.equal(geojson.body.type, 'FeatureCollection');
    assert.equal(geojson.body.features.length, status.body.precincts);
    const health = await call('GET', '/health', { key: null });
    assert.equal(health.body.coverage.precincts, status.body.precincts);
  });
});

describe('keys, origins and compression', () => {
  test('X-API-Key is required and checked; Bearer is the other API', async () => {
    assertError(await call('GET', '/hexes/config', { key: null }), 401, 'UNAUTHORIZED');
    assertError(await call('GET', '/hexes/config', { key: 'hexrisk_live_nope' }), 401, 'UNAUTHORIZED');
    const bearer = await call('GET', '/hexes/config', { key: null, headers: { authorization: `Bearer ${keys.live}` } });
    assertError(bearer, 401, 'UNAUTHORIZED');
    assert.equal((await call('GET', '/hexes/config', { key: keys.sandbox })).status, 200);
  });

  test('origins: listed allowed and echoed, others 403; a preflight reveals no list', async () => {
    const allowed = await call('GET', '/hexes/config', { headers: { origin: ORIGIN } });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), ORIGIN);
    const refused = await call('GET', '/hexes/config', { headers: { origin: 'https://evil.example' } });
    assertError(refused, 403, 'FORBIDDEN');
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    const preflight = await call('OPTIONS', '/route', {
      key: null,
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), ORIGIN);
    assert.match(preflight.headers.get('access-control-allow-headers'), /X-API-Key/);
    // An origin no key lists is answered alike (the key store is not read), and its
    // real request is refused with the key; an opaque origin is refused.
    const unlisted = await call('OPTIONS', '/route', {
      key: null,
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, content-type' },
    });
    assert.equal(unlisted.status, 204);
    for (const name of ['access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age']) {
      assert.equal(unlisted.headers.get(name), preflight.headers.get(name), name);
    }
    const opaque = await call('OPTIONS', '/route', { key: null, headers: { origin: 'null', 'access-control-request-method': 'POST' } });
    assertError(opaque, 403, 'FORBIDDEN');
    assert.equal(opaque.headers.get('access-control-allow-origin'), null);
  });

  test('large answers actually go out gzip-compressed', async () => {
    const lookup = await raw('POST', '/hexes/lookup', { 'x-api-key': keys.live, 'content-type': 'application/json', 'accept-encoding': 'gzip' },
      { ...UNION, ring: 41, detail: true });
    assert.equal(lookup.status, 200);
    assert.equal(lookup.headers['content-encoding'], 'gzip');
    assert.deepEqual([...lookup.bytes.subarray(0, 2)], [0x1f, 0x8b]);
    const plain = JSON.parse(gunzipSync(lookup.bytes));
    assert.equal(plain.cells.length, 5167);
    assert.ok(lookup.bytes.length < JSON.stringify(plain).length / 4);
    const precincts = await raw('GET', '/precincts', { 'x-api-key': keys.live, 'accept-encoding': 'gzip, br' });
    assert.equal(precincts.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(precincts.bytes)).type, 'FeatureCollection');
    const identity = await raw('GET', '/precincts', { 'x-api-key': keys.live, 'accept-encoding': 'identity' });
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(identity.bytes).type, 'FeatureCollection');
  });

  test('the body is compressed only as the client\'s own Accept-Encoding allows (RFC 9110)', async () => {
    // The runtime shows the Worker "br, gzip" whatever the client sent; the Worker reads
    // the client's own header from request.cf.clientAcceptEncoding. The runtime also
    // negotiates on its own: it brotli-compresses a plain answer for a client that
    // accepts br, and re-encodes ours when the client ranks br above gzip.
    const cases = [
      [undefined, undefined], // no header, as curl sends: plain JSON
      ['', undefined],
      ['gzip', 'gzip'],
      ['GZIP;q=0.8, br', 'br'],
      ['br', 'br'],
      ['gzip;q=0', undefined],
      ['deflate', undefined],
      ['*;q=0, identity', undefined],
      ['gzip;q=0.5, identity', undefined], // the client prefers the body as it is
    ];
    const decode = { gzip: gunzipSync, br: brotliDecompressSync };
    for (const [accept, coding] of cases) {
      const headers = { 'x-api-key': keys.live };
      if (accept !== undefined) headers['accept-encoding'] = accept;
      const res = await raw('GET', '/precincts', headers);
      assert.equal(res.status, 200, String(accept));
      assert.equal(res.headers['content-encoding'], coding, `Accept-Encoding: ${accept}`);
      assert.match(res.headers.vary, /Accept-Encoding/);
      const text = coding ? decode[coding](res.bytes) : res.bytes;
      assert.equal(JSON.parse(text).type, 'FeatureCollection', String(accept));
    }
    // The body as it is refused: even a small answer is compressed.
    const small = await raw('GET', '/route/config', { 'x-api-key': keys.live, 'accept-encoding': 'gzip, identity;q=0' });
    assert.equal(small.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(small.bytes)).status, 'success');
  });

  test('configs, outlines and documents carry an ETag and answer If-None-Match with 304', async () => {
    for (const path of ['/hexes/config', '/route/config', '/precincts', '/openapi.json']) {
      const key = path === '/openapi.json' ? {} : { 'x-api-key': keys.live };
      const first = await raw('GET', path, key);
      assert.equal(first.status, 200, path);
      const etag = first.headers.etag;
      assert.match(etag, /^"[0-9a-f]{32}"$/, path);
      assert.equal(first.headers['cache-control'], path === '/openapi.json' ? 'public, max-age=300' : 'private, no-cache');
      const again = await raw('GET', path, { ...key, 'if-none-match': etag });
      assert.equal(again.status, 304, path);
      assert.equal(again.bytes.length, 0);
      assert.equal(again.headers.etag, etag);
      const other = await raw('GET', path, { ...key, 'if-none-match': '"0123"' });
      assert.equal(other.status, 200, path);
    }
    // A revalidation still needs the key and is counted.
    const tag = (await raw('GET', '/hexes/config', { 'x-api-key': keys.live })).headers.etag;
    assert.equal((await raw('GET', '/hexes/config', { 'if-none-match': tag })).status, 401);
    const revalidated = await raw('GET', '/hexes/config', { 'x-api-key': keys.live, 'if-none-match': tag });
    assert.match(revalidated.headers.ratelimit, /^"daily";r=\d+;t=\d+$/);
    // Answers that depend on the request or the clock are never stored.
    const route = await raw('POST', '/route', { 'x-api-key': keys.live, 'content-type': 'application/json' }, { origin: UNION, destination: CHRISTIE_PITS });
    assert.equal(route.headers['cache-control'], 'no-store');
    assert.equal(route.headers.etag, undefined);
  });

  test('members come out in the order the specification\'s tables list them, status first', async () => {
    const lookup = await call('POST', '/hexes/lookup', { body: { ...UNION, ring: 1 } });
    const cases = [
      ['Hex config', 'GET', '/hexes/config'],
      ['Hex score row', 'POST', '/hexes/score', { hexIds: [lookup.body.center] }, (b) => (Array.isArray(b) ? b[0] : b.results?.[0] ?? b)],
      ['Cell breakdown', 'GET', `/hexes/breakdown?h3=${lookup.body.center}`],
      ['Route response', 'POST', '/route', { origin: UNION, destination: CHRISTIE_PITS }],
    ];
    for (const [heading, method, path, body, pick = (b) => b] of cases) {
      const paths = fieldPaths('router-api.md', heading);
      assert.ok(paths.length >= 2, `${heading}: ${paths}`);
      const { body: answer } = await call(method, path, { body });
      assert.deepEqual(orderProblems(pick(answer), paths), [], heading);
      if (!Array.isArray(answer)) assert.equal(Object.keys(answer)[0], 'status', heading);
    }
  });

  test('router quotas count like the prediction API', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await call('GET', '/hexes/config', { key: keys.limited })).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  test('a 10 MB body is refused at the 1 MiB limit, whatever its bytes', async () => {
    const big = await call('POST', '/route', { body: `{"origin":"${'x'.repeat(10 * 1024 * 1024)}"}` });
    assertError(big, 400, 'INVALID_REQUEST');
    assert.equal(big.body.details.limit, 1048576);
    const binary = await fetch(`${worker.url}/hexes/score`, {
      method: 'POST',
      headers: { 'x-api-key': keys.live, 'content-type': 'application/json' },
      body: new Uint8Array(10 * 1024 * 1024).fill(0xff),
    });
    assert.equal(binary.status, 400);
    assert.equal((await binary.json()).details.limit, 1048576);
  });

  test('unknown paths and wrong methods', async () => {
    assertError(await call('GET', '/hexes/nowhere'), 404, 'NOT_FOUND');
    const wrong = await call('GET', '/route');
    assertError(wrong, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(wrong.headers.get('allow'), 'POST, OPTIONS');
  });
});

describe('offline (wasm package) and online (HTTP) give the same answers', () => {
  // The Worker's pinned clock, 2022-01-03, is noon UTC.
  const NOW = Date.UTC(2022, 0, 3, 12);
  const artifacts = new URL('../../build/artifacts/', import.meta.url);
  const offline = new HexRisk();
  for (const city of JSON.parse(readFileSync(new URL('manifest.json', artifacts))).cities) {
    offline.addCity(readFileSync(new URL(city.file, artifacts)), city.version);
  }

  test('scores, lookups, breakdowns and viewports', async () => {
    const lookupBody = { ...UNION, ring: 5, detail: true, intent: 'night' };
    const lookup = await call('POST', '/hexes/lookup', { body: lookupBody });
    close(offline.lookup(lookupBody, NOW), lookup.body);
    const scoreBody = { hexIds: lookup.body.cells.map((c) => c.h3), intent: 'driving', activeCodes: ['VEHICLE_DAMAGE', 'THEFT_BURGLARY'] };
    close(offline.scoreHexes(scoreBody, NOW), (await call('POST', '/hexes/score', { body: scoreBody })).body);
    const cell = lookup.body.center;
    close(offline.breakdown({ h3: cell, intent: 'walking' }, NOW), (await call('GET', `/hexes/breakdown?h3=${cell}&intent=walking`)).body);
    const box = { west: '-79.40', south: '43.64', east: '-79.36', north: '43.66' };
    close(offline.hexesInBox(box, NOW), (await call('GET', `/hexes/all?${new URLSearchParams(box)}`)).body);
    close(offline.streetsInBox(box, NOW), (await call('GET', `/streets?${new URLSearchParams(box)}`)).body);
    // Reverse lookup: the same names offline and online, and the same errors.
    for (const point of [{ lat: '43.64548', lng: '-79.39522' }, { lat: '37.7793', lng: '-122.4193' }, { lat: '29.7604', lng: '-95.3698' }]) {
      close(offline.reverse(point), (await call('GET', `/places/reverse?${new URLSearchParams(point)}`)).body);
    }
    assertError(await call('GET', '/places/reverse?lat=95&lng=0'), 400, 'INVALID_COORDINATES');
    assertError(await call('GET', '/places/reverse?lat=43.6'), 400, 'INVALID_REQUEST');
    assertError(await call('GET', '/places/reverse?lat=51.5&lng=-0.12'), 404, 'LOCATION_NOT_COVERED');
    // Place search: the same places offline and online, and the same errors.
    for (const query of [
      { q: 'Queen and Spadina', city: 'city_ca_tor' },
      { q: 'spa', city: 'city_ca_tor', limit: '10' },
      { q: 'Saint George Street & Harbord Street', lat: '43.6629', lng: '-79.3957' },
      { q: 'spadna avenue', city: 'city_ca_tor', lat: '43.65', lng: '-79.40' },
      { q: 'Mission', city: 'city_us_sfo' },
      { q: 'Central', city: 'city_us_sfo' },
    ]) {
      const online = await call('GET', `/places?${new URLSearchParams(query)}`);
      assert.equal(online.status, 200, JSON.stringify(online.body));
      assert.ok(online.body.places.length > 0, query.q);
      close(offline.search(query), online.body);
    }
    for (const [query, status, code, field] of [
      [{ city: 'city_ca_tor' }, 400, 'INVALID_REQUEST', 'q'],
      [{ q: '', city: 'city_ca_tor' }, 400, 'INVALID_REQUEST', 'q'],
      [{ q: 'x'.repeat(500), city: 'city_ca_tor' }, 400, 'INVALID_REQUEST', 'q'],
      [{ q: 'queen\u0007', city: 'city_ca_tor' }, 400, 'INVALID_REQUEST', 'q'],
      [{ q: 'queen', city: 'city_xx_nowhere' }, 400, 'INVALID_REQUEST', 'city'],
      [{ q: 'queen' }, 400, 'INVALID_REQUEST', 'city'],
      [{ q: 'queen', city: 'city_ca_tor', limit: '50' }, 400, 'INVALID_REQUEST', 'limit'],
      [{ q: 'queen', lat: '51.5', lng: '-0.12' }, 404, 'LOCATION_NOT_COVERED', undefined],
    ]) {
      const res = await call('GET', `/places?${new URLSearchParams(query)}`);
      assertError(res, status, code);
      assert.equal(res.body.details?.field, field, JSON.stringify(query));
      assert.throws(() => offline.search(query), (err) => err.code === code && err.details?.field === field);
    }
  });

  test('a time of day: modifiers.time and ?time= score one band, the same offline and online', async () => {
    // Friday 23:00 in Toronto, as a local time and as an hour of the week (4 × 24 + 23).
    const lookupBody = { ...UNION, ring: 3, detail: true, modifiers: { time: '2022-01-07T23:00:00' } };
    const lookup = await call('POST', '/hexes/lookup', { body: lookupBody });
    assert.equal(lookup.status, 200);
    close(offline.lookup(lookupBody, NOW), lookup.body);
    const hourOfWeek = { ...lookupBody, modifiers: { time: 119, week: '2022-01-03' } };
    close(offline.lookup(hourOfWeek, NOW), lookup.body);
    const weekly = offline.lookup({ ...UNION, ring: 3, detail: true }, NOW);
    assert.notDeepEqual(lookup.body.cells.map((c) => c.safetyScore), weekly.cells.map((c) => c.safetyScore));
    const cell = lookup.body.center;
    const breakdown = (await call('GET', `/hexes/breakdown?h3=${cell}&time=119&week=2022-01-03`)).body;
    close(offline.breakdown({ h3: cell, time: '119', week: '2022-01-03' }, NOW), breakdown);
    assert.match(breakdown.modifiers.timeWindow, /^weekend 2[23]:00-/);
    const night = (await call('GET', `/hexes/breakdown?h3=${cell}&intent=night`)).body;
    close(offline.breakdown({ h3: cell, intent: 'night' }, NOW), night);
    assert.equal(night.modifiers.timeWindow, 'nights');
    const bad = await call('POST', '/hexes/lookup', { body: { ...UNION, modifiers: { time: 168 } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details.field, 'modifiers.time');
    assert.throws(() => offline.lookup({ ...UNION, modifiers: { time: 168 } }, NOW), (err) => err.code === 'INVALID_REQUEST' && err.details.field === 'modifiers.time');
  });

  test('a route leaving at a time (departAt) scores each cell when it is reached, the same offline and online', async () => {
    // Friday 21:30 in Toronto, walking about an hour: the walk runs past 22:00 into the next band.
    const body = { origin: UNION, destination: CHRISTIE_PITS, intent: 'walking', departAt: '2022-01-07T21:30:00' };
    const online = await call('POST', '/route', { body });
    assert.equal(online.status, 200);
    close(offline.route(body, NOW), online.body);
    const { departAt } = online.body;
    assert.equal(departAt.hourOfWeek, 4 * 24 + 21.5);
    assert.equal(departAt.speedKmh, 5);
    assert.ok(departAt.bands.length >= 2, JSON.stringify(departAt));
    assert.equal(online.body.timeWindow, departAt.bands[0].timeWindow);
    assert.ok(online.body.best.metrics.durationS > 30 * 60);
    // Scored in the departure's band only (modifiers.time), the later cells score otherwise.
    const oneBand = await call('POST', '/route', { body: { ...body, departAt: undefined, modifiers: { time: body.departAt } } });
    assert.equal(oneBand.body.departAt, undefined);
    const safety = (answer) => answer.best.hexPathWithTiers.map((c) => c.safetyScore);
    assert.notDeepEqual(safety(online.body), safety(oneBand.body));
    // Errors name departAt, online as offline.
    for (const bad of [{ departAt: 168 }, { departAt: 'soon' }, { departAt: 119, modifiers: { time: 119 } }]) {
      const res = await call('POST', '/route', { body: { ...body, ...bad } });
      assert.equal(res.status, 400);
      assert.equal(res.body.details.field, 'departAt');
      assert.throws(() => offline.route({ ...body, ...bad }, NOW), (err) => err.details.field === 'departAt');
    }
    const late = await call('POST', '/route', { body: { ...body, departAt: '2030-01-04T23:00:00' } });
    assertError(late, 400, 'DATE_OUT_OF_RANGE');
    assert.equal(late.body.details.field, 'departAt');
  });

  test('point predictions (the prediction API, /v1/predict)', async () => {
    const night = { latitude: 43.6532, longitude: -79.3832, datetime: '2022-01-08T04:30:00Z' };
    for (const body of [{ latitude: 43.6532, longitude: -79.3832 }, { latitude: 43.70, longitude: -79.40, datetime: '2022-01-05T10:00:00' }, night]) {
      const response = await fetch(`${worker.url}/v1/predict`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200);
      const online = await response.json();
      close(offline.predict(body, NOW), online);
      // A datetime adds the forecast of the time band holding it (Friday 23:30 in Toronto).
      const band = online.prediction.time_of_day;
      assert.equal(band === undefined, body.datetime === undefined);
      if (body === night) {
        assert.equal(band.day_type, 'weekend');
        assert.ok(Date.parse(band.start) <= Date.parse(night.datetime) && Date.parse(night.datetime) < Date.parse(band.end), JSON.stringify(band));
        assert.ok(band.probabilities.NO_CRIME > online.prediction.probabilities.NO_CRIME);
      }
    }
    assert.throws(() => offline.predict({ latitude: 95, longitude: 0 }, NOW), (err) => err.code === 'INVALID_COORDINATES' && err.details.field === 'latitude');
    assert.throws(() => offline.predict({ latitude: 10, longitude: 10 }, NOW), (err) => err.code === 'LOCATION_NOT_COVERED');
  });

  test('batch predictions and route risk (/v1/predict/batch, /v1/route/risk), errors included', async () => {
    const v1 = async (path, body) => {
      const response = await fetch(`${worker.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const toronto = { latitude: 43.6532, longitude: -79.3832 };
    const batches = [
      { locations: [toronto, { latitude: 37.7793, longitude: -122.4193 }, { latitude: 95, longitude: 0 }, 'x', { latitude: 10, longitude: 10 }] },
      { locations: [toronto, { latitude: 29.7604, longitude: -95.3698 }], datetime: '2022-01-08T04:30:00Z' },
    ];
    const waypoints = [toronto, { latitude: 43.6645, longitude: -79.4206 }, { latitude: 43.67, longitude: -79.41 }];
    const routes = [
      { waypoints },
      { waypoints, datetime: '2022-01-12' },
      { waypoints, departure_time: '2022-01-07T21:55:00', travel_mode: 'cycling' },
    ];
    for (const body of batches) {
      const online = await v1('/v1/predict/batch', body);
      assert.equal(online.status, 200);
      close(offline.predictBatch(body, NOW), online.body);
    }
    // Failures in place, each with the code a single prediction gets (San Francisco's
    // data ends in 2012, so its week of 2022 is out of range).
    const codes = offline.predictBatch(batches[0], NOW).results.map((r) => r.code ?? r.status);
    assert.deepEqual(codes, ['success', 'DATE_OUT_OF_RANGE', 'INVALID_COORDINATES', 'INVALID_REQUEST', 'LOCATION_NOT_COVERED']);
    assert.throws(() => offline.predict(batches[0].locations[1], NOW), (err) => err.code === 'DATE_OUT_OF_RANGE');
    for (const body of routes) {
      const online = await v1('/v1/route/risk', body);
      assert.equal(online.status, 200);
      close(offline.routeRisk(body, NOW), online.body);
    }
    const refused = [
      ['/v1/predict/batch', 'predictBatch', { locations: [] }],
      ['/v1/route/risk', 'routeRisk', { waypoints: [toronto] }],
      ['/v1/route/risk', 'routeRisk', { waypoints, travel_mode: 'flying', departure_time: '2022-01-07T21:55:00' }],
      ['/v1/route/risk', 'routeRisk', { waypoints, departure_time: '2030-01-07T21:55:00' }],
      ['/v1/route/risk', 'routeRisk', { waypoints: [{ latitude: 10, longitude: 10 }, { latitude: 10.01, longitude: 10 }] }],
    ];
    for (const [path, operation, body] of refused) {
      const online = await v1(path, body);
      assert.ok(online.status >= 400, JSON.stringify(online.body));
      assert.throws(() => offline[operation](body, NOW), (err) => {
        assert.equal(err.code, online.body.code);
        assert.equal(err.message, online.body.message);
        assert.deepEqual(err.details, online.body.details);
        return true;
      });
    }
  });

  test('routes, evaluations and precincts', async () => {
    const routeBody = { origin: UNION, destination: CHRISTIE_PITS, alternatives: 2, method: 'balanced' };
    const route = await call('POST', '/route', { body: routeBody });
    close(offline.route(routeBody, NOW), route.body);
    const pathBody = { hexPath: route.body.hexPath };
    close(offline.evaluateHexPath(pathBody, NOW), (await call('POST', '/evaluate-hex-path', { body: pathBody })).body);
    const setBody = { origin: UNION, destination: CHRISTIE_PITS, method: 'tradeoff' };
    close(offline.route(setBody, NOW), (await call('POST', '/route', { body: setBody })).body);
    const reachBody = { origin: CHRISTIE_PITS, minutes: 20, mode: 'walking' };
    close(offline.reach(reachBody, NOW), (await call('POST', '/reach', { body: reachBody })).body);
    close(offline.precinctScores({ intent: 'night' }, NOW), (await call('GET', '/precincts/all-scores?intent=night')).body);
    close(offline.precincts({}, NOW), (await call('GET', '/precincts')).body);
  });
});
