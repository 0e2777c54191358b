// The wasm engine under Node, checked against the h3-js reference implementation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as h3 from 'h3-js';
import * as engine from '../../pkg/dist/node/hexrisk_engine.js';
import { CITY_BOXES, pointsIn, seededRandom } from '../support/random.mjs';

for (const [city, box] of Object.entries(CITY_BOXES)) {
  test(`cellAt equals h3-js latLngToCell for 1,000 random points in ${city}`, () => {
    const random = seededRandom(0x5eed + city.length);
    const points = pointsIn(box, 1000, random);
    const mismatches = points.filter(([lat, lng]) => engine.cellAt(lat, lng) !== h3.latLngToCell(lat, lng, 8));
    assert.deepEqual(mismatches, []);
  });

  test(`gridDisk equals h3-js gridDisk around random cells in ${city}`, () => {
    const random = seededRandom(0xd15c + city.length);
    for (const [lat, lng] of pointsIn(box, 20, random)) {
      const cell = engine.cellAt(lat, lng);
      for (const k of [0, 1, 2, 5]) {
        const ours = engine.gridDisk(cell, k);
        assert.equal(ours[0], cell, 'the centre comes first');
        assert.deepEqual([...ours].sort(), h3.gridDisk(cell, k).sort(), `k=${k} around ${cell}`);
      }
    }
  });

  test(`cellCentre equals h3-js cellToLatLng in ${city}`, () => {
    const random = seededRandom(0xce17 + city.length);
    for (const [lat, lng] of pointsIn(box, 100, random)) {
      const cell = engine.cellAt(lat, lng);
      const [cLat, cLng] = engine.cellCentre(cell);
      const [rLat, rLng] = h3.cellToLatLng(cell);
      assert.ok(Math.abs(cLat - rLat) < 1e-9 && Math.abs(cLng - rLng) < 1e-9, cell);
    }
  });
}

test('ring 41 has 5167 cells, all the ones h3-js lists', () => {
  const cell = engine.cellAt(43.6532, -79.3832);
  const ours = engine.gridDisk(cell, 41);
  assert.equal(ours.length, 5167);
  assert.deepEqual(new Set(ours), new Set(h3.gridDisk(cell, 41)));
});

test('invalid coordinates throw Errors carrying INVALID_COORDINATES', () => {
  for (const [lat, lng, field] of [
    [90.0001, 0, 'latitude'],
    [-91, 0, 'latitude'],
    [0, 180.5, 'longitude'],
    [0, -181, 'longitude'],
    [Number.NaN, 0, 'latitude'],
    [0, Number.POSITIVE_INFINITY, 'longitude'],
  ]) {
    assert.throws(
      () => engine.cellAt(lat, lng),
      (err) => err instanceof Error && err.code === 'INVALID_COORDINATES' && err.message.includes(field),
      `${lat},${lng}`,
    );
  }
});

test('malformed cells and oversize rings throw INVALID_REQUEST', () => {
  const cell = engine.cellAt(37.7749, -122.4194);
  const parent = h3.cellToParent(cell, 7);
  for (const call of [
    () => engine.gridDisk('not-a-cell', 1),
    () => engine.gridDisk(parent, 1),
    () => engine.gridDisk(cell, 42),
    () => engine.cellCentre(''),
  ]) {
    assert.throws(call, (err) => err instanceof Error && err.code === 'INVALID_REQUEST');
  }
});

test('classes, risk levels and colour bands are exposed as documented', () => {
  const classes = engine.crimeClasses();
  assert.deepEqual(
    classes.map((c) => [c.code, c.severity]),
    [['THEFT_BURGLARY', 3], ['BATTERY_ASSAULT', 4], ['VEHICLE_DAMAGE', 3], ['SERIOUS_VIOLENT', 5], ['OTHER', 2], ['NO_CRIME', 0]],
  );
  assert.ok(classes.every((c) => typeof c.description === 'string' && c.description.endsWith('.')));
  assert.deepEqual([0.51, 0.5, 0.25, 0.2499, 0.1, 0.0999].map(engine.riskLevel), ['LOW', 'MODERATE', 'MODERATE', 'HIGH', 'HIGH', 'VERY_HIGH']);
  assert.throws(() => engine.riskLevel(1.5), (err) => err.code === 'INVALID_REQUEST');
  assert.equal(engine.palette().length, 17);
  assert.deepEqual([0, 5.8, 5.9, 50, 100, Number.NaN].map(engine.colorIndex), [0, 0, 1, 8, 16, -1]);
});

test('cellBoundary equals h3-js cellToBoundary', () => {
  const random = seededRandom(0xb0d1);
  for (const [lat, lng] of pointsIn(CITY_BOXES.city_ca_tor, 50, random)) {
    const cell = engine.cellAt(lat, lng);
    const flat = engine.cellBoundary(cell);
    const reference = h3.cellToBoundary(cell);
    assert.equal(flat.length, reference.length * 2);
    reference.forEach(([rLat, rLng], i) => {
      assert.ok(Math.abs(flat[2 * i] - rLat) < 1e-9 && Math.abs(flat[2 * i + 1] - rLng) < 1e-9, cell);
    });
  }
});
