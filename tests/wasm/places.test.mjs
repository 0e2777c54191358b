// Reverse lookup in the npm package: the named street and intersection nearest a
// point, on Toronto's and San Francisco's streets (spelled as each city's network
// spells them), nothing on Houston's hex lattice, and errors in the API's shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineWithEveryCity } from '../support/package.mjs';

const engine = engineWithEveryCity();

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
