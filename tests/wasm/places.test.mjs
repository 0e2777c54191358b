// Places in the npm package: search by name (streets, intersections in any of the
// spellings people type, neighbourhoods, divisions; completion as one types;
// suggestions for typos) and reverse lookup, the named street and intersection
// nearest a point, on Toronto's and San Francisco's streets (spelled as each city's
// network spells them), nothing on Houston's hex lattice, and errors in the API's shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineWithEveryCity } from '../support/package.mjs';

const engine = engineWithEveryCity();

function haversine(a, b) {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2
    + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * 6371007.2 * Math.asin(Math.sqrt(h));
}

function throwsWith(fn, code, details) {
  assert.throws(fn, (err) => {
    assert.equal(err.code, code);
    for (const [k, v] of Object.entries(details ?? {})) assert.equal(err.details[k], v);
    return true;
  });
}

test('a point by King and Spadina is named by that intersection, and a point along a street by it', () => {
  const corner = engine.reverse({ lat: 43.64548, lng: -79.39522 });
  assert.equal(corner.city, 'city_ca_tor');
  assert.deepEqual(corner.intersection.streets, ['KING ST W', 'SPADINA AVE']);
  assert.ok(corner.intersection.distanceM < 30, `${corner.intersection.distanceM} m`);
  assert.equal(corner.label, 'near KING ST W & SPADINA AVE');
  // On King between Charlotte and Peter: the street, and the nearer corner, with
  // three streets meeting at Peter.
  const along = engine.reverse({ lat: 43.64590, lng: -79.39295 });
  assert.equal(along.street.name, 'KING ST W');
  assert.ok(along.street.distanceM < 20, `${along.street.distanceM} m`);
  assert.deepEqual(along.intersection.streets, ['BLUE JAYS WAY', 'KING ST W', 'PETER ST']);
  assert.equal(along.label, 'near BLUE JAYS WAY & KING ST W & PETER ST');
  // The answer to text numbers is the same as to numbers (query strings give text).
  assert.deepEqual(engine.reverse({ lat: '43.64548', lng: '-79.39522' }), corner);
});

test('San Francisco names its streets; Houston routes over a hex lattice and names nothing', () => {
  // By City Hall, on Van Ness (US 101 in the City's network): its nearest corner is
  // over 100 m off, so the street names it.
  const sf = engine.reverse({ lat: 37.7793, lng: -122.4193 });
  assert.equal(sf.city, 'city_us_sfo');
  assert.equal(sf.street.name, 'US Hwy 101');
  assert.ok(sf.intersection.distanceM > 100, `${sf.intersection.distanceM} m`);
  assert.equal(sf.label, 'on US Hwy 101');
  const houston = engine.reverse({ lat: 29.7604, lng: -95.3698 });
  assert.deepEqual([houston.city, houston.street, houston.intersection, houston.label], ['city_us_hou', null, null, null]);
});

test('bad points get the documented errors', () => {
  throwsWith(() => engine.reverse({ lat: 95, lng: 0 }), 'INVALID_COORDINATES', { field: 'lat' });
  throwsWith(() => engine.reverse({ lat: 43.6, lng: 'east' }), 'INVALID_COORDINATES', { field: 'lng' });
  throwsWith(() => engine.reverse({ lat: 43.6 }), 'INVALID_REQUEST', { field: 'lng' });
  throwsWith(() => engine.reverse({ lat: 51.5, lng: -0.12 }), 'LOCATION_NOT_COVERED');
});

test('an intersection typed as people type it: any joiner, either order, long or short words', () => {
  const spellings = [
    'Queen and Spadina', 'Spadina & Queen', 'queen st w at spadina ave', 'Queen Street West / Spadina Avenue',
    'spadina@queen', 'QUEEN + SPADINA',
  ];
  const answers = spellings.map((q) => engine.search({ q, city: 'city_ca_tor' }).places[0]);
  for (const [i, first] of answers.entries()) {
    assert.equal(first.kind, 'intersection', spellings[i]);
    assert.deepEqual([...first.streets].sort(), ['QUEEN ST W', 'SPADINA AVE'], spellings[i]);
    assert.deepEqual([first.lat, first.lng], [answers[0].lat, answers[0].lng], spellings[i]);
  }
  // The name follows the query's order.
  assert.equal(answers[1].name, 'SPADINA AVE & QUEEN ST W');
  // The corner is where King-and-Spadina's reverse lookup says the streets meet.
  const corner = engine.reverse({ lat: answers[0].lat, lng: answers[0].lng });
  assert.equal(corner.label, 'near QUEEN ST W & SPADINA AVE');
});

test('completion as one types, typos as suggestions after exact and prefix matches', () => {
  let previous = null;
  for (const typed of ['S', 'Sp', 'Spa', 'Spad', 'Spadi', 'Spadin', 'Spadina', 'Spadina A', 'Spadina Av', 'Spadina Avenue']) {
    const { places } = engine.search({ q: typed, city: 'city_ca_tor', limit: 10 });
    assert.ok(places.length > 0, typed);
    if (typed.length >= 3) assert.ok(places.some((p) => p.name === 'SPADINA AVE'), `${typed}: ${places.map((p) => p.name)}`);
    const ranks = places.map((p) => ['exact', 'prefix', 'word', 'suggestion'].indexOf(p.match));
    assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), typed);
    previous = places;
  }
  assert.equal(previous[0].name, 'SPADINA AVE');
  assert.equal(previous[0].match, 'exact');
  const typo = engine.search({ q: 'Spadna Avenue', city: 'city_ca_tor' }).places;
  assert.equal(typo[0].name, 'SPADINA AVE');
  assert.equal(typo[0].match, 'suggestion');
  // "Saint", "St." and "St" are one word; accents and case do not matter.
  for (const q of ['Saint Clair Avenue West', 'st. clair ave. w.', 'ST CLAIR AVENUE WEST']) {
    const [top] = engine.search({ q, city: 'city_ca_tor' }).places;
    assert.deepEqual([top.name, top.match], ['ST CLAIR AVE W', 'exact'], q);
  }
});

test('neighbourhoods and divisions are places; a point gives each place its distance', () => {
  const [wychwood] = engine.search({ q: 'wychwood', city: 'city_ca_tor' }).places;
  assert.deepEqual([wychwood.kind, wychwood.name, wychwood.match], ['neighbourhood', 'Wychwood', 'exact']);
  const [division] = engine.search({ q: '14 division', city: 'city_ca_tor' }).places;
  assert.deepEqual([division.kind, division.name], ['precinct', '14 Division']);
  // With a point, each place carries its distance from it (haversine, to 0.1 m).
  const from = { lat: 43.6525, lng: -79.4340 };
  const { places } = engine.search({ q: 'King St W', ...from, limit: 20 });
  assert.equal(places[0].name, 'KING ST W');
  for (const p of places) assert.ok(Math.abs(p.distanceM - haversine(from, p)) < 1, `${p.name}: ${p.distanceM}`);
  assert.ok(engine.search({ q: 'King St W', city: 'city_ca_tor' }).places.every((p) => p.distanceM === undefined));
  // The city follows from the point when none is named.
  assert.equal(engine.search({ q: 'Market', lat: 37.7793, lng: -122.4193 }).city, 'city_us_sfo');
});

test('bad queries get the documented errors', () => {
  throwsWith(() => engine.search({ city: 'city_ca_tor' }), 'INVALID_REQUEST', { field: 'q' });
  throwsWith(() => engine.search({ q: ' ', city: 'city_ca_tor' }), 'INVALID_REQUEST', { field: 'q' });
  throwsWith(() => engine.search({ q: 'x'.repeat(500), city: 'city_ca_tor' }), 'INVALID_REQUEST', { field: 'q', limit: 100 });
  throwsWith(() => engine.search({ q: 'king\u0000', city: 'city_ca_tor' }), 'INVALID_REQUEST', { field: 'q' });
  throwsWith(() => engine.search({ q: 'king', city: 'atlantis' }), 'INVALID_REQUEST', { field: 'city' });
  throwsWith(() => engine.search({ q: 'king' }), 'INVALID_REQUEST', { field: 'city' });
  throwsWith(() => engine.search({ q: 'king', city: 'city_ca_tor', limit: 0 }), 'INVALID_REQUEST', { field: 'limit' });
  throwsWith(() => engine.search({ q: 'king', lat: 51.5, lng: -0.12 }), 'LOCATION_NOT_COVERED');
  // Houston has no street names: nothing, not an error.
  assert.deepEqual(engine.search({ q: 'Main', city: 'city_us_hou' }).places, []);
});
