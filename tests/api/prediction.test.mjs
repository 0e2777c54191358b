// The prediction API (/v1) over real HTTP against `wrangler dev` on workerd, with keys
// in the local D1 store and quotas in Durable Objects.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { revokeKey } from '../../scripts/operator.mjs';
import { openApiValidator } from '../support/openapi.mjs';
import { fieldPaths, orderProblems } from '../support/spec.mjs';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const CLOCK = '2022-01-03';
// How long a key's gate keeps the key record it read (the revocation bound), short here
// so that the revocation test need not wait the default 60 s.
const RECORD_TTL_SECONDS = 2;
let state;
let worker;
let conforms;
let validated = 0;
const keys = {};

before(async () => {
  let issued;
  ({ state, keys: issued } = await keyStore('api', {
    live: { kind: 'live' },
    sandbox: { kind: 'sandbox' },
    quota: { kind: 'sandbox' },
    expired: { kind: 'sandbox', issuedAt: new Date(Date.now() - 31 * 86400e3) },
    revoked: { kind: 'live' },
    enterprise: { kind: 'live', tier: 'enterprise', dailyLimit: 7 },
    hammered: { kind: 'live', tier: 'enterprise', dailyLimit: 1000 },
    settled: { kind: 'live', tier: 'enterprise', dailyLimit: 1000 },
  }));
  Object.assign(keys, issued);
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: CLOCK, HEXRISK_KEY_RECORD_TTL_SECONDS: RECORD_TTL_SECONDS } });
  const doc = await (await fetch(`${worker.url}/v1/openapi.json`)).json();
  conforms = openApiValidator(doc, '/v1');
});

after(async () => {
  await worker?.stop();
  assert.ok(validated >= 150, `only ${validated} responses were checked against the OpenAPI document`);
});

async function call(method, pathname, { key, body, headers = {} } = {}) {
  const init = { method, headers: { ...headers } };
  if (key) init.headers.authorization = `Bearer ${key}`;
  if (body !== undefined) {
    init.headers['content-type'] ??= 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const response = await fetch(`${worker.url}${pathname}`, init);
  const answer = JSON.parse(await response.text());
  // Every response of every test is checked against the served OpenAPI document.
  conforms(method, pathname.split('?')[0], response.status, answer);
  validated += 1;
  return { status: response.status, headers: response.headers, body: answer };
}

const TORONTO = { latitude: 43.6532, longitude: -79.3832 };
const SAN_FRANCISCO = { latitude: 37.7793, longitude: -122.4193 };
const HOUSTON = { latitude: 29.7604, longitude: -95.3698 };
const CODES = ['THEFT_BURGLARY', 'BATTERY_ASSAULT', 'VEHICLE_DAMAGE', 'SERIOUS_VIOLENT', 'OTHER', 'NO_CRIME'];
const LEVELS = ['LOW', 'MODERATE', 'HIGH', 'VERY_HIGH'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function assertError(res, status, code) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'details', 'message', 'status']);
  assert.equal(res.body.status, 'error');
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.message, 'string');
  assert.equal(typeof res.body.details, 'object');
}

function assertProbabilities(p) {
  assert.deepEqual(Object.keys(p).sort(), [...CODES].sort());
  const sum = Object.values(p).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - 1) < 1e-9, `${sum}`);
}

test('the OpenAPI check rejects bodies that break the document', () => {
  assert.throws(() => conforms('POST', '/v1/predict', 200, { status: 'success' }), /does not conform/);
  assert.throws(() => conforms('GET', '/v1/classes', 200, { status: 'success', classes: [], extra: 1 }), /does not conform/);
  assert.throws(() => conforms('GET', '/v1/nowhere', 404, { status: 'error', code: 'NOPE', message: 'x', details: {} }), /does not conform/);
});

describe('success shapes', () => {
  test('POST /v1/predict', async () => {
    const res = await call('POST', '/v1/predict', { key: keys.live, body: TORONTO });
    assert.equal(res.status, 200);
    const b = res.body;
    assert.equal(b.status, 'success');
    assert.deepEqual(b.city, { code: 'city_ca_tor', name: 'Toronto' });
    assert.equal(b.location.latitude, TORONTO.latitude);
    assert.equal(b.location.cell_id, '882b9bc46dfffff');
    assert.equal(typeof b.location.grid_center.latitude, 'number');
    assert.equal(b.prediction.week_of, '2022-01-03');
    assert.ok(!Number.isNaN(Date.parse(b.prediction.datetime)));
    assertProbabilities(b.prediction.probabilities);
    assert.ok(CODES.includes(b.prediction.dominant_type));
    assert.equal(b.prediction.confidence, b.prediction.probabilities[b.prediction.dominant_type]);
    assert.ok(LEVELS.includes(b.prediction.risk_level));
    assert.equal(typeof b.model_info.version, 'string');
    assert.equal(typeof b.model_info.mae, 'number');
    assert.match(b.model_info.last_updated, DATE);
    assert.equal(b.sandbox_mode, undefined, 'live keys get full data without the sandbox marker');
    // The current RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10), not the early drafts' three.
    assert.equal(res.headers.get('ratelimit-policy'), '"daily";q=10000;w=86400');
    assert.match(res.headers.get('ratelimit'), /^"daily";r=\d+;t=\d+$/);
    assert.equal(res.headers.get('ratelimit-limit'), null);
  });

  test('POST /v1/predict with a sandbox key is marked', async () => {
    const res = await call('POST', '/v1/predict', { key: keys.sandbox, body: { ...TORONTO, datetime: '2021-06-01T12:00:00Z' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.sandbox_mode, true);
    assert.equal(res.body.prediction.week_of, '2021-05-31');
  });

  test('POST /v1/predict/batch mixes cities and reports failures in place', async () => {
    const res = await call('POST', '/v1/predict/batch', {
      key: keys.live,
      body: { locations: [TORONTO, { latitude: 0, longitude: 0 }, { ...SAN_FRANCISCO }], datetime: '2012-10-01' },
    });
    assert.equal(res.status, 200);
    const { results, summary, timestamp } = res.body;
    assert.equal(typeof timestamp, 'string');
    assert.deepEqual(summary, { total: 3, successful: 1, failed: 2 });
    assert.equal(results[0].code, 'DATE_OUT_OF_RANGE'); // 2012 is outside Toronto's range
    assert.equal(results[1].code, 'LOCATION_NOT_COVERED');
    const sf = results[2];
    assert.deepEqual(Object.keys(sf).sort(), ['city', 'index', 'location', 'prediction', 'status']);
    assert.equal(sf.city, 'city_us_sfo');
    assert.deepEqual(Object.keys(sf.location).sort(), ['cell_id', 'latitude', 'longitude']);
    // With a datetime, each item also has the forecast of the time band holding it.
    assert.deepEqual(Object.keys(sf.prediction).sort(), ['dominant_type', 'probabilities', 'risk_level', 'time_of_day']);
    assert.equal(sf.prediction.time_of_day.start, '2012-09-30T22:00:00-07:00');
    results.forEach((r, i) => assert.equal(r.index, i));
    for (const failed of results.slice(0, 2)) {
      assert.deepEqual(Object.keys(failed).sort(), ['code', 'details', 'index', 'message', 'status']);
      assert.equal(failed.status, 'error');
    }
  });

  test('POST /v1/route/risk scores N-1 segments', async () => {
    const waypoints = [TORONTO, { latitude: 43.6629, longitude: -79.3957 }, { latitude: 43.6677, longitude: -79.3948 }];
    const res = await call('POST', '/v1/route/risk', { key: keys.live, body: { waypoints } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { route, segments, recommendations } = res.body;
    assert.equal(route.total_waypoints, 3);
    assert.equal(route.total_segments, 2);
    assert.ok(route.total_distance_km > 1 && route.total_distance_km < 3);
    assert.ok(route.overall_risk_score >= 0 && route.overall_risk_score <= 1);
    assert.ok(LEVELS.includes(route.overall_risk_level));
    assert.equal(segments.length, 2);
    for (const [i, s] of segments.entries()) {
      assert.equal(s.segment_index, i);
      assert.equal(typeof s.start.cell_id, 'string');
      assert.equal(typeof s.end.latitude, 'number');
      assert.ok(CODES.slice(0, 5).includes(s.dominant_risk));
      assert.ok(LEVELS.includes(s.risk_level));
    }
    assert.ok([0, 1].includes(recommendations.highest_risk_segment));
    assert.ok([0, 1].includes(recommendations.safest_segment));
    assert.ok(Array.isArray(recommendations.caution_areas));
  });

  test('GET /v1/cities, /v1/coverage, /v1/classes, /v1/prediction/range', async () => {
    const cities = await call('GET', '/v1/cities', { key: keys.live });
    assert.equal(cities.body.total, 3);
    for (const c of cities.body.cities) {
      assert.match(c.code, /^city_[a-z]{2}_[a-z]{3}$/);
      assert.equal(c.status, 'active');
      assert.match(c.prediction_range.start, DATE);
      assert.ok(c.grid_cells > 100);
      assert.equal(typeof c.model_mae, 'number');
      assert.ok(['America/Toronto', 'America/Los_Angeles', 'America/Chicago'].includes(c.timezone));
    }
    const one = await call('GET', '/v1/coverage?city=city_us_hou', { key: keys.live });
    assert.equal(one.body.city, 'city_us_hou');
    assert.equal(one.body.spatial_system, 'H3');
    assert.equal(one.body.h3_resolution, 8);
    assert.ok(one.body.bounds.north > one.body.bounds.south);
    const all = await call('GET', '/v1/coverage', { key: keys.live });
    assert.equal(all.body.coverage.length, 3);
    const classes = await call('GET', '/v1/classes', { key: keys.live });
    assert.deepEqual(classes.body.classes.map((c) => c.code), CODES);
    assert.ok(classes.body.classes.every((c) => typeof c.description === 'string'));
    const range = await call('GET', `/v1/prediction/range?latitude=${HOUSTON.latitude}&longitude=${HOUSTON.longitude}`, { key: keys.live });
    assert.deepEqual(range.body.location, { ...HOUSTON, city: 'city_us_hou' });
    assert.equal(range.body.range.weeks_available, 25);
    const toronto = await call('GET', '/v1/prediction/range?latitude=43.65&longitude=-79.38', { key: keys.live });
    assert.equal(toronto.body.current_week, '2022-01-03', 'the pinned clock sets the current week');
  });
});

describe('errors', () => {
  test('coordinates, coverage and dates', async () => {
    let res = await call('POST', '/v1/predict', { key: keys.live, body: { latitude: 91, longitude: 0 } });
    assertError(res, 400, 'INVALID_COORDINATES');
    assert.equal(res.body.message, 'latitude must be between -90 and 90');
    assert.deepEqual(res.body.details.valid_range, [-90, 90]);
    assert.equal(res.body.details.field, 'latitude');
    res = await call('POST', '/v1/predict', { key: keys.live, body: { latitude: 0, longitude: 181 } });
    assertError(res, 400, 'INVALID_COORDINATES');
    assert.deepEqual(res.body.details.valid_range, [-180, 180]);
    res = await call('POST', '/v1/predict', { key: keys.live, body: { latitude: 48.85, longitude: 2.35 } });
    assertError(res, 404, 'LOCATION_NOT_COVERED');
    assert.equal(typeof res.body.details.suggestion, 'string');
    res = await call('POST', '/v1/predict', { key: keys.live, body: { ...TORONTO, datetime: '2030-01-01T00:00:00Z' } });
    assertError(res, 400, 'DATE_OUT_OF_RANGE');
    res = await call('GET', '/v1/prediction/range?latitude=abc&longitude=1', { key: keys.live });
    assertError(res, 400, 'INVALID_COORDINATES');
  });

  test('malformed requests are INVALID_REQUEST with the field', async () => {
    const cases = [
      ['/v1/predict', { longitude: 1 }, 'latitude'],
      ['/v1/predict', { ...TORONTO, datetime: 'next tuesday' }, 'datetime'],
      ['/v1/predict/batch', { locations: [] }, 'locations'],
      ['/v1/predict/batch', {}, 'locations'],
      ['/v1/route/risk', { waypoints: [TORONTO] }, 'waypoints'],
    ];
    for (const [pathname, body, field] of cases) {
      const res = await call('POST', pathname, { key: keys.live, body });
      assertError(res, 400, 'INVALID_REQUEST');
      assert.equal(res.body.details.field, field, pathname);
    }
    assertError(await call('POST', '/v1/predict', { key: keys.live, body: '{not json' }), 400, 'INVALID_REQUEST');
    const wrongType = await call('POST', '/v1/predict', { key: keys.live, body: TORONTO, headers: { 'content-type': 'text/plain' } });
    assertError(wrongType, 400, 'INVALID_REQUEST');
    assert.equal(wrongType.body.details.field, 'Content-Type');
    const many = await call('POST', '/v1/predict/batch', { key: keys.live, body: { locations: Array(501).fill(TORONTO) } });
    assertError(many, 400, 'INVALID_REQUEST');
    assert.equal(many.body.details.limit, 500);
    const huge = await call('POST', '/v1/predict', { key: keys.live, body: `{"pad":"${'x'.repeat(1_100_000)}"}` });
    assertError(huge, 400, 'INVALID_REQUEST');
    assert.equal(huge.body.details.limit, 1048576);
  });

  test('keys: missing, wrong, expired, revoked', async () => {
    let res = await call('GET', '/v1/cities');
    assertError(res, 401, 'UNAUTHORIZED');
    assert.equal(res.body.message, 'API key is required');
    assert.equal(typeof res.body.details.suggestion, 'string');
    const wrong = `hexrisk_live_${'Z'.repeat(32)}`;
    res = await call('GET', '/v1/cities', { key: wrong });
    assertError(res, 401, 'UNAUTHORIZED');
    assert.equal(res.body.message, 'API key is invalid');
    assert.equal(res.body.details.key_prefix, 'hexrisk_live_ZZZZ...');
    const expired = await call('GET', '/v1/cities', { key: keys.expired });
    assertError(expired, 401, 'UNAUTHORIZED');
    assert.deepEqual([expired.body.message, expired.body.details.reason], ['API key has expired', 'expired']);
    assert.equal((await call('GET', '/v1/cities', { key: keys.revoked })).status, 200);
    // The gate read the record at the answer above: the revocation holds once that copy
    // is older than the time to live, counted from the answer (revoking, a wrangler
    // start, takes part of it).
    const stale = Date.now() + RECORD_TTL_SECONDS * 1000 + 100;
    await revokeKey({ key: keys.revoked, stateDir: state });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, stale - Date.now())));
    res = await call('GET', '/v1/cities', { key: keys.revoked });
    assertError(res, 401, 'UNAUTHORIZED');
    assert.equal(res.body.details.reason, 'revoked');
    assert.ok(!res.body.details.key_prefix.includes(keys.revoked.slice(-20)), 'the secret is not echoed');
  });

  test('health needs no key; unknown paths are 404', async () => {
    const res = await call('GET', '/v1/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.services, { api: 'healthy', models: 'healthy', database: 'healthy' });
    assertError(await call('GET', '/v1/nothing', { key: keys.live }), 404, 'NOT_FOUND');
  });
});

describe('quotas', () => {
  test('a sandbox key gets exactly 100 of 150 concurrent requests, then 429', async () => {
    const results = await Promise.all(Array.from({ length: 150 }, () => call('GET', '/v1/classes', { key: keys.quota })));
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    assert.equal(ok, 100);
    assert.equal(limited.length, 50);
    const body = limited[0].body;
    assertError(limited[0], 429, 'RATE_LIMITED');
    assert.equal(body.details.limit, 100);
    assert.equal(body.details.used, 100);
    const midnight = new Date(); midnight.setUTCHours(24, 0, 0, 0);
    assert.equal(Date.parse(body.details.reset_at), midnight.getTime());
    assert.ok(Number(limited[0].headers.get('retry-after')) > 0);
    assert.match(limited[0].headers.get('ratelimit'), /^"daily";r=0;t=\d+$/);
    assert.equal(limited[0].headers.get('ratelimit').split('t=')[1], limited[0].headers.get('retry-after'));
  });

  test('an enterprise key has the limit stored with it', async () => {
    const statuses = [];
    for (let i = 0; i < 8; i += 1) statuses.push((await call('GET', '/v1/classes', { key: keys.enterprise })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 429]);
  });

  test('a key hammered from many connections never gets more than its daily limit', async () => {
    // Its quota is spent mostly from blocks the isolate reserves from the key's gate.
    const results = await Promise.all(Array.from({ length: 1200 }, () => call('GET', '/v1/classes', { key: keys.hammered })));
    const ok = results.filter((r) => r.status === 200).length;
    assert.ok(ok <= 1000, `${ok} admitted over a limit of 1000`);
    // A block still held when the requests ran out is the most that can go unspent.
    assert.ok(ok >= 900, `only ${ok} admitted`);
    for (const r of results.filter((x) => x.status !== 200)) {
      assertError(r, 429, 'RATE_LIMITED');
      assert.ok(r.body.details.used <= 1000);
    }
  });

  test('counts survive a restart of wrangler dev, and blocks of quota come back before it', async () => {
    // 105 requests, one at a time: the 100th is granted a block of 10 (docs/API.md),
    // counted at once, of which 5 are spent. Once the block has ended (the record's
    // time to live is 2 s here) the isolate gives the rest back on its own.
    for (let i = 0; i < 105; i += 1) assert.equal((await call('GET', '/v1/classes', { key: keys.settled })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await worker.stop();
    worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: CLOCK } });
    const res = await call('GET', '/v1/classes', { key: keys.quota });
    assertError(res, 429, 'RATE_LIMITED');
    assert.equal(res.body.details.used, 100);
    const live = await call('GET', '/v1/classes', { key: keys.enterprise });
    assert.equal(live.status, 429);
    // The new isolate holds no block: the gate's count is exactly the 105, then this one.
    const settled = await call('GET', '/v1/classes', { key: keys.settled });
    assert.match(settled.headers.get('ratelimit'), /^"daily";r=894;t=\d+$/);
  });
});

test('members come out in the order the specification\'s tables list them, status first', async () => {
  const cases = [
    ['Prediction (POST /predict', 'POST', '/v1/predict', TORONTO],
    ['Batch result', 'POST', '/v1/predict/batch', { locations: [TORONTO, HOUSTON] }],
    ['Route analysis', 'POST', '/v1/route/risk', { waypoints: [TORONTO, { latitude: 43.66, longitude: -79.39 }] }],
    ['City record', 'GET', '/v1/cities', undefined, (b) => b.cities[0]],
    ['Coverage record', 'GET', '/v1/coverage?city=city_ca_tor'],
    ['Prediction range record', 'GET', `/v1/prediction/range?latitude=${TORONTO.latitude}&longitude=${TORONTO.longitude}`],
    ['Health record', 'GET', '/v1/health'],
    ['Errors', 'POST', '/v1/predict', { latitude: 95, longitude: 0 }],
  ];
  for (const [heading, method, path, body, pick = (b) => b] of cases) {
    const paths = fieldPaths('prediction-api.md', heading);
    assert.ok(paths.length >= 4, `${heading}: ${paths}`);
    const { body: answer } = await call(method, path, { key: keys.live, body });
    assert.deepEqual(orderProblems(pick(answer), paths), [], heading);
    if (paths[0] === 'status') assert.equal(Object.keys(answer)[0], 'status', heading);
  }
});
