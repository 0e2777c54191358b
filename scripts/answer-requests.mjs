// The fixed request set of both APIs, good and bad: what scripts/answers.mjs records
// byte for byte (over HTTP, and through the npm package where it has the same call)
// and tests/api/openapi-answers.test.mjs validates against the served OpenAPI
// documents, kept in one place so the two cannot cover different requests.

/** The Worker's clock (HEXRISK_CLOCK) the answers are recorded at. */
export const CLOCK = '2022-01-03';
export const NOW_MS = Date.parse(`${CLOCK}T12:00:00Z`);
/** An origin on the recording key's allowlist. */
export const ORIGIN = 'http://127.0.0.1:8080';

export const TOR = { lat: 43.6532, lng: -79.3832 };
export const TOR2 = { lat: 43.6645, lng: -79.4206 };
export const SF = { lat: 37.7793, lng: -122.4193 };
export const SF2 = { lat: 37.7599, lng: -122.4148 };
export const HOU = { lat: 29.7604, lng: -95.3698 };
export const HOU2 = { lat: 29.7499, lng: -95.3584 };
export const TOR_CELL = '882b9bc46dfffff';
const line = (a, b) => ({ type: 'LineString', coordinates: [[a.lng, a.lat], [b.lng, b.lat]] });
// Place searches, each over HTTP and through the package: names whole and begun,
// misspelt by one and two edits, intersections, places near a point, and refusals.
export const SEARCHES = [
  { q: 'queen', city: 'city_ca_tor' }, { q: 'quen st w', city: 'city_ca_tor' }, { q: 'q', city: 'city_ca_tor', limit: 20 },
  { q: 'spadna avenue', city: 'city_ca_tor' }, { q: 'king & bathurst', city: 'city_ca_tor' },
  { q: 'yonge and bloor', ...TOR }, { q: 'kensingtn market', city: 'city_ca_tor' }, { q: 'st george', ...TOR2 },
  { q: 'misson st', city: 'city_us_sfo' }, { q: 'valencia', ...SF }, { q: 'van ness & market', city: 'city_us_sfo' },
  { q: 'westhiemer', city: 'city_us_hou' }, { q: 'montrose blvd', ...HOU }, { q: 'main', city: 'city_us_hou', limit: 3 },
  { q: 'dundes st', city: 'city_ca_tor' }, { q: 'bathrust', city: 'city_ca_tor' }, { q: 'univeristy ave', ...TOR },
  { q: 'colege', city: 'city_ca_tor' }, { q: 'haight', city: 'city_us_sfo' }, { q: 'mrket', city: 'city_us_sfo' },
  { q: 'zzzzzzzzzz', city: 'city_ca_tor' }, { q: ' ', city: 'city_ca_tor' }, { q: 'queen' },
];
export const REVERSES = [TOR, TOR2, SF, HOU, { lat: 0, lng: 0 }];
const query = (fields) => new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString();

// [method, path, body (POST) or undefined, extra headers]
export const router = [
  ['GET', '/health'], ['GET', '/openapi.json'], ['GET', '/hexes/config'], ['GET', '/route/config'],
  ['POST', '/hexes/score', { hexIds: [TOR_CELL, '8828308281fffff', 'nonsense'] }],
  ['POST', '/hexes/score', { hexIds: [TOR_CELL], intent: 'night', activeCodes: ['THEFT_BURGLARY'] }],
  ['POST', '/hexes/score', { hexIds: 'x' }],
  ['POST', '/hexes/score', { hexIds: Array(5001).fill(TOR_CELL) }],
  ['POST', '/hexes/lookup', { ...TOR, ring: 2, detail: true }],
  ['POST', '/hexes/lookup', { ...SF, ring: 1, intent: 'walking', modifiers: { week: '2022-02-01' } }],
  ['POST', '/hexes/lookup', { lat: 91, lng: 0 }],
  ['POST', '/hexes/lookup', { lat: 0, lng: 0 }],
  ['POST', '/hexes/lookup', { ...TOR, ring: 42 }],
  ['GET', `/hexes/breakdown?h3=${TOR_CELL}&intent=walking`],
  ['GET', '/hexes/breakdown?h3=zzz'],
  ['GET', '/hexes/all?west=-79.40&south=43.64&east=-79.37&north=43.66'],
  ['GET', '/hexes/all?west=-79&south=43&east=-76&north=43.5'],
  ['POST', '/route', { origin: TOR, destination: TOR2, alternatives: 2 }],
  ['POST', '/route', { origin: TOR, destination: TOR2, method: 'shortest', mode: 'cycling' }],
  ['POST', '/route', { origin: SF, destination: SF2, method: 'balanced', intent: 'night', snapToRoads: false }],
  ['POST', '/route', { origin: HOU, destination: HOU2, alternatives: 1 }],
  ['POST', '/route', { origin: TOR, destination: TOR2, alternatives: 4 }],
  ['POST', '/route', { origin: TOR, destination: { lat: 43.58, lng: -79.60 } }],
  ['POST', '/route', { origin: TOR, destination: SF }],
  ['POST', '/route', { origin: TOR, destination: TOR2, method: 'fastest' }],
  ['POST', '/route', { origin: TOR, destination: TOR2, mode: 'flying' }],
  ['POST', '/evaluate', { geometry: line(TOR, TOR2), mode: 'walking' }],
  ['POST', '/evaluate', { geometry: { type: 'Point', coordinates: [0, 0] } }],
  ['POST', '/evaluate-hex-path', { hexPath: [TOR_CELL, '882b9bc469fffff'] }],
  ['POST', '/evaluate-hex-path', { hexPath: [] }],
  ['GET', '/precincts/status'], ['GET', '/precincts/all-scores?intent=night'],
  ['GET', '/precincts'], ['GET', '/precincts?city=city_us_sfo'],
  ...SEARCHES.map((fields) => ['GET', `/places?${query(fields)}`]),
  ...REVERSES.map((point) => ['GET', `/places/reverse?${query(point)}`]),
  ['GET', '/nowhere'], ['DELETE', '/route'],
  ['OPTIONS', '/route', undefined, { origin: ORIGIN, 'access-control-request-method': 'POST' }],
  ['POST', '/route', { origin: TOR, destination: TOR2 }, { origin: 'http://evil.example' }],
  ['POST', '/route', '{"origin":', {}],
];
export const prediction = [
  ['GET', '/v1/health'], ['GET', '/v1/openapi.json'], ['GET', '/v1/classes'], ['GET', '/v1/cities'],
  ['GET', '/v1/coverage?lat=43.65&lng=-79.38'], ['GET', '/v1/coverage?lat=0&lng=0'],
  ['GET', '/v1/prediction/range?city=city_ca_tor'], ['GET', '/v1/prediction/range?city=nowhere'],
  ['POST', '/v1/predict', { latitude: TOR.lat, longitude: TOR.lng }],
  ['POST', '/v1/predict', { latitude: SF.lat, longitude: SF.lng, datetime: '2022-02-10T23:00:00Z' }],
  ['POST', '/v1/predict', { latitude: HOU.lat, longitude: HOU.lng, datetime: '2031-01-01T00:00:00Z' }],
  ['POST', '/v1/predict', { latitude: 'x', longitude: 0 }],
  ['POST', '/v1/predict', { latitude: 0, longitude: 0 }],
  ['POST', '/v1/predict/batch', { locations: [{ latitude: TOR.lat, longitude: TOR.lng }, { latitude: 0, longitude: 0 }, { latitude: 95, longitude: 0 }] }],
  ['POST', '/v1/predict/batch', { locations: [] }],
  ['POST', '/v1/route/risk', { waypoints: [{ latitude: TOR.lat, longitude: TOR.lng }, { latitude: TOR2.lat, longitude: TOR2.lng }] }],
  ['POST', '/v1/route/risk', { waypoints: [{ latitude: TOR.lat, longitude: TOR.lng }] }],
  ['POST', '/v1/route/risk', { waypoints: [{ latitude: TOR.lat, longitude: TOR.lng }, { latitude: TOR2.lat, longitude: TOR2.lng }], departure_time: '2022-01-07T21:55:00', travel_mode: 'cycling' }],
  ['POST', '/v1/route/risk', { waypoints: [{ latitude: SF.lat, longitude: SF.lng }, { latitude: SF2.lat, longitude: SF2.lng }], datetime: '2022-01-12' }],
  ['POST', '/v1/route/risk', { waypoints: [{ latitude: TOR.lat, longitude: TOR.lng }, { latitude: TOR2.lat, longitude: TOR2.lng }], departure_time: '2022-01-07T21:55:00', travel_mode: 'flying' }],
  ['POST', '/v1/route/risk', { waypoints: [{ latitude: TOR.lat, longitude: TOR.lng }, { latitude: TOR2.lat, longitude: TOR2.lng }], departure_time: '2022-01-07T21:55:00', datetime: '2022-01-07' }],
  ['POST', '/v1/route/risk', { waypoints: [{ latitude: TOR.lat, longitude: TOR.lng }, { latitude: TOR2.lat, longitude: TOR2.lng }], departure_time: '2030-01-07T21:55:00' }],
  ['POST', '/v1/route/risk', { waypoints: [{ latitude: TOR.lat, longitude: TOR.lng }, { latitude: 45.5, longitude: -73.6 }] }],
  ['POST', '/v1/route/risk', { waypoints: [{ latitude: 10, longitude: 10 }, { latitude: 10.01, longitude: 10 }] }],
  ['POST', '/v1/predict/batch', { locations: [{ latitude: SF.lat, longitude: SF.lng }, 'x', { latitude: HOU.lat, longitude: HOU.lng }], datetime: '2022-01-08T04:30:00Z' }],
  ['POST', '/v1/predict/batch', { locations: Array(501).fill({ latitude: TOR.lat, longitude: TOR.lng }) }],
  ['GET', '/v1/coverage'], ['GET', '/v1/coverage?city=city_ca_tor'], ['GET', '/v1/coverage?city=nowhere'], ['GET', '/v1/coverage?city='],
  ['GET', `/v1/prediction/range?latitude=${TOR.lat}&longitude=${TOR.lng}`], ['GET', '/v1/prediction/range?latitude=%2043.6&longitude=-79.38'],
  ['GET', '/v1/prediction/range?latitude=abc&longitude=1'], ['GET', '/v1/prediction/range?longitude=1'], ['GET', '/v1/prediction/range?latitude=95&longitude=1'],
  ['GET', '/v1/prediction/range?latitude=0&longitude=0'],
  ['POST', '/v1/cities'], ['PUT', '/route'], ['GET', '/route/'], ['HEAD', '/v1/classes'], ['OPTIONS', '/v1/predict'], ['GET', '/nowhere'],
  ['GET', '/portal/api/keys'], ['PUT', '/portal/api/keys'], ['DELETE', '/portal/api/passkeys/options'], ['GET', '/portal/api/operator/partners'],
  ['POST', '/portal/api/operator/partners/abc/decision', { decision: 'approve' }], ['GET', '/portal/api/nowhere'], ['GET', '/portal/api/openapi.json'],
  ['POST', '/v1/predict', { latitude: TOR.lat, longitude: TOR.lng }, { authorization: 'Bearer nope' }],
];
