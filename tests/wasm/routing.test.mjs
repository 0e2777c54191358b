// Routing in the npm package: the wasm engine plans the same routes as the native
// engine (build/route-samples.json, written by `hexrisk-build route-samples`), its
// corridors agree with its own line and hex-path evaluations, and bad requests throw
// Errors with the API's code and details.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close } from '../support/close.mjs';
import { readFileSync } from 'node:fs';
import { HexRisk, cellAt } from '../../pkg/dist/roads/node/hexrisk_engine.js';

const root = new URL('../../', import.meta.url);
const artifactsDir = new URL('build/artifacts/', root);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', artifactsDir)));
const samples = JSON.parse(readFileSync(new URL('build/route-samples.json', root)));
// The clock the native samples used: 2022-01-03 12:00 UTC.
const NOW = Date.UTC(2022, 0, 3, 12);

const engine = new HexRisk();
for (const city of manifest.cities) engine.addCity(readFileSync(new URL(city.file, artifactsDir)));


test('wasm routes equal the native routes for every sample request', () => {
  assert.ok(samples.length >= 75, `${samples.length} samples`);
  const cities = new Set(samples.map((s) => s.response.city));
  assert.equal(cities.size, 3);
  for (const { request, response } of samples) {
    const actual = engine.route(request, NOW);
    close(actual, response);
  }
});

const union = { lat: 43.6453, lng: -79.3806 };
const christiePits = { lat: 43.6645, lng: -79.4206 };

test('a Toronto route: line, corridor and metrics agree with the evaluations', () => {
  const route = engine.route({ origin: union, destination: christiePits, alternatives: 3, intent: 'walking' }, NOW);
  assert.equal(route.network, 'roads');
  assert.equal(route.method, 'safest');
  assert.equal(route.best.geometry.type, 'LineString');
  assert.ok(route.hexPath.length > 3, `${route.hexPath.length} cells on the path`);
  assert.deepEqual(route.hexPath, route.best.hexPath);
  assert.equal(route.best.hexPathWithTiers.length, route.hexPath.length);
  assert.ok(route.alternatives.length >= 1 && route.alternatives.length <= 3);

  const byPath = engine.evaluateHexPath({ hexPath: route.hexPath, intent: 'walking' }, NOW);
  assert.deepEqual(byPath.metrics, route.best.corridorMetrics);
  assert.deepEqual(byPath.hexPathWithTiers, route.best.hexPathWithTiers);

  const byLine = engine.evaluate({ geometry: route.best.geometry, intent: 'walking' }, NOW);
  assert.deepEqual(byLine.hexPath, route.hexPath);
  const { detourPct: lineDetour, ...lineMetrics } = byLine.metrics;
  const { detourPct: routeDetour, ...routeMetrics } = route.best.metrics;
  assert.ok(routeMetrics.distanceM > 1000 && routeMetrics.exposure > 0, JSON.stringify(routeMetrics));
  close(lineMetrics, routeMetrics);
  assert.ok(lineDetour >= -0.1 && routeDetour >= 0);

  const hexOnly = engine.route({ origin: union, destination: christiePits, snapToRoads: false }, NOW);
  assert.equal(hexOnly.best.geometry, null);
  assert.equal(hexOnly.network, 'hex-lattice');
  assert.ok(hexOnly.hexPath.length > 3);
});

test('Houston routes over its hex lattice', () => {
  const route = engine.route({ origin: { lat: 29.7604, lng: -95.3698 }, destination: { lat: 29.735, lng: -95.39 } }, NOW);
  assert.equal(route.network, 'hex-lattice');
  assert.match(route.source, /lattice/);
  assert.ok(route.best.geometry.coordinates.length > 2);
});

function throwsWith(fn, code, details) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof Error);
    assert.equal(err.code, code, err.message);
    for (const [key, value] of Object.entries(details)) {
      if (typeof value === 'function') assert.ok(value(err.details[key]), `${key}: ${err.details[key]}`);
      else assert.equal(err.details[key], value, key);
    }
    return true;
  });
}

test('bad route requests throw the API error codes with details', () => {
  throwsWith(() => engine.route({ origin: union, destination: christiePits, method: 'fastest' }, NOW), 'INVALID_REQUEST', { field: 'method' });
  throwsWith(() => engine.route({ origin: union, destination: christiePits, alternatives: 4 }, NOW), 'INVALID_REQUEST', { field: 'alternatives' });
  throwsWith(() => engine.route({ origin: union, destination: christiePits, intent: 'flying' }, NOW), 'INVALID_REQUEST', { field: 'intent' });
  throwsWith(() => engine.route({ origin: union, destination: christiePits, activeCodes: ['OTHER', 'NOPE'] }, NOW), 'INVALID_REQUEST', { field: 'activeCodes', index: 1 });
  throwsWith(() => engine.route({ origin: { lat: 91, lng: 0 }, destination: christiePits }, NOW), 'INVALID_COORDINATES', { field: 'origin' });
  throwsWith(() => engine.route({ origin: union, destination: { lat: 29.76, lng: -95.37 } }, NOW), 'INVALID_REQUEST', { field: 'destination' });
  throwsWith(() => engine.route({ origin: union }, NOW), 'INVALID_REQUEST', { field: 'body' });
  throwsWith(() => engine.route({ origin: union, destination: christiePits, modifiers: { week: '2030-01-07' } }, NOW), 'DATE_OUT_OF_RANGE', { field: 'modifiers.week' });
  // The Toronto Islands are in a covered cell, but their paths are not joined to the
  // street network (they are reached by ferry): the nearest way is 2 km away.
  throwsWith(() => engine.route({ origin: { lat: 43.62, lng: -79.38 }, destination: union }, NOW), 'LOCATION_NOT_COVERED', {
    field: 'origin',
    distanceM: (d) => d > 500,
  });
});

test('bad hex paths and lines name the first bad element', () => {
  const start = engine.route({ origin: union, destination: christiePits }, NOW).hexPath;
  const gap = [start[0], start[start.length - 1]];
  throwsWith(() => engine.evaluateHexPath({ hexPath: gap }, NOW), 'INVALID_REQUEST', { field: 'hexPath', index: 1 });
  throwsWith(() => engine.evaluateHexPath({ hexPath: [start[0], 'zz'] }, NOW), 'INVALID_REQUEST', { index: 1 });
  throwsWith(() => engine.evaluateHexPath({ hexPath: [start[0], start[1], start[0]] }, NOW), 'INVALID_REQUEST', { index: 2 });
  throwsWith(() => engine.evaluate({ geometry: { type: 'LineString', coordinates: [[-79.38, 43.65], [0, 95]] } }, NOW), 'INVALID_COORDINATES', { index: 1 });
  throwsWith(() => engine.evaluate({ geometry: { type: 'Point', coordinates: [[-79.38, 43.65]] } }, NOW), 'INVALID_REQUEST', { field: 'geometry' });
});

test('the trade-off set and safe reach offline, in every city with a network', () => {
  const houston = { lat: 29.7604, lng: -95.3698 };
  for (const [origin, destination] of [[union, christiePits], [houston, { lat: 29.735, lng: -95.39 }]]) {
    const set = engine.route({ origin, destination, method: 'tradeoff' }, NOW);
    const ordered = [...set.alternatives, set.best];
    // Both pairs have a set of 3 routes in the build's data; fewer would leave the
    // ordering below nothing to compare.
    assert.ok(ordered.length >= 2, `${ordered.length} routes in the set`);
    assert.deepEqual(set.tradeoff.routes.map((r) => r.distanceM), ordered.map((o) => o.metrics.distanceM));
    assert.equal(ordered[0].explanation.exposureAvoided, 0, 'the shortest avoids nothing');
    for (let i = 1; i < ordered.length; i += 1) {
      assert.ok(ordered[i].metrics.exposure < ordered[i - 1].metrics.exposure, `route ${i} less exposed than route ${i - 1}`);
      assert.ok(ordered[i].explanation.exposureAvoided > ordered[i - 1].explanation.exposureAvoided, `route ${i} avoids more than route ${i - 1}`);
    }
    const area = engine.reach({ origin, minutes: 20, mode: 'walking' }, NOW);
    assert.equal(area.network, set.network);
    assert.equal(area.cellCount, area.cells.length);
    // The origin's own cell at 0 minutes, and more cells around it, each once.
    assert.ok(area.cells.length >= 5, `${area.cells.length} cells within 20 minutes`);
    assert.deepEqual(area.cells.filter((c) => c.minutes === 0).map((c) => [c.h3, c.exposure]), [[cellAt(origin.lat, origin.lng), 0]]);
    assert.equal(new Set(area.cells.map((c) => c.h3)).size, area.cells.length);
    for (const c of area.cells) assert.ok(c.minutes >= 0 && c.minutes <= 20 && c.exposure >= 0, JSON.stringify(c));
    // Fewer minutes reach fewer cells, all of them within the larger reach.
    const near = engine.reach({ origin, minutes: 10, mode: 'walking' }, NOW);
    assert.ok(near.cells.length > 0 && near.cells.length < area.cells.length, `${near.cells.length} of ${area.cells.length} cells`);
    const far = new Set(area.cells.map((c) => c.h3));
    assert.deepEqual(near.cells.filter((c) => !far.has(c.h3)), []);
  }
});

test('bad reach requests throw the API error codes with details', () => {
  throwsWith(() => engine.reach({ origin: union, minutes: 0 }, NOW), 'INVALID_REQUEST', { field: 'minutes' });
  throwsWith(() => engine.reach({ origin: union, minutes: 30, mode: 'cycling' }, NOW), 'INVALID_REQUEST', { field: 'minutes' });
  throwsWith(() => engine.reach({ origin: union, minutes: 10, mode: 'teleport' }, NOW), 'INVALID_REQUEST', { field: 'mode' });
  throwsWith(() => engine.reach({ origin: { lat: 91, lng: 0 }, minutes: 10 }, NOW), 'INVALID_COORDINATES', { field: 'origin' });
  throwsWith(() => engine.reach({ origin: { lat: 43.62, lng: -79.38 }, minutes: 10 }, NOW), 'LOCATION_NOT_COVERED', {
    field: 'origin',
    distanceM: (d) => d > 500,
  });
});

/** The problems of one route option's steps, against the rules docs/ROUTING.md states. */
function stepProblems(option, shortestM) {
  const { steps } = option;
  const problems = [];
  const last = option.geometry.coordinates.length - 1;
  if (steps[0]?.type !== 'depart' || steps.at(-1)?.type !== 'arrive') problems.push('not depart … arrive');
  if (steps[0].coordinates[0] !== 0 || steps.at(-1).coordinates[1] !== last) problems.push('does not cover the line');
  steps.forEach((step, i) => {
    if (i > 0 && step.coordinates[0] !== steps[i - 1].coordinates[1]) problems.push(`step ${i} does not follow step ${i - 1}`);
    if (step.type !== 'depart' && step.type !== 'arrive' && step.distanceM < shortestM) problems.push(`step ${i} is ${step.distanceM.toFixed(1)} m`);
    if (i > 0 && step.type !== 'arrive' && step.name !== null && step.name === steps[i - 1].name
      && !(step.type === 'continue' && step.modifier !== 'straight')) problems.push(`step ${i} repeats ${step.name} as ${step.type} ${step.modifier}`);
    if (!step.instruction) problems.push(`step ${i} has no instruction`);
  });
  const total = steps.reduce((s, x) => s + x.distanceM, 0);
  if (Math.abs(total - option.metrics.distanceM) > Math.max(1, 1e-6 * total)) problems.push(`steps sum to ${total}, the route is ${option.metrics.distanceM}`);
  const risky = steps.map((s, i) => [s.incidents ?? -1, i]).reduce((a, b) => (b[0] > a[0] ? b : a), [-1, null]);
  if (steps.some((s) => s.incidents !== undefined) && option.riskiestStep !== risky[1]) problems.push(`riskiest ${option.riskiestStep}, not ${risky[1]}`);
  return problems;
}

test('every snapped sample route has steps by the rules, in every city; an unsnapped one has none', () => {
  const named = {};
  for (const { request } of samples) {
    const route = engine.route(request, NOW);
    for (const option of [route.best, ...route.alternatives]) {
      if (!request.snapToRoads && option.geometry === null) {
        assert.deepEqual([option.steps, option.riskiestStep], [[], null]);
        continue;
      }
      assert.deepEqual(stepProblems(option, 15), [], `${route.city} ${JSON.stringify(request)}`);
      named[route.city] ??= [0, 0];
      named[route.city][0] += option.steps.filter((s) => s.name !== null).length;
      named[route.city][1] += option.steps.length;
    }
  }
  assert.deepEqual(Object.keys(named).sort(), ['city_ca_tor', 'city_us_hou', 'city_us_sfo']);
  // Road networks name their steps; a hex lattice (Houston) has no names.
  for (const city of ['city_ca_tor', 'city_us_sfo']) assert.ok(named[city][0] / named[city][1] > 0.6, `${city}: ${named[city]}`);
  assert.equal(named.city_us_hou[0], 0);
});

test("a route's own line, evaluated, has steps by the same rules; a hex path has none", () => {
  let checked = 0;
  for (const { request } of samples.filter((s) => s.request.snapToRoads)) {
    const route = engine.route(request, NOW);
    const evaluation = engine.evaluate({ geometry: route.best.geometry, intent: request.intent ?? 'walking' }, NOW);
    const problems = stepProblems({ ...evaluation, geometry: route.best.geometry }, 15);
    assert.deepEqual(problems, [], `${route.city} ${JSON.stringify(request)}`);
    if (route.network === 'roads') {
      // Matched to the same streets, the line reads as the route did, step for step.
      assert.deepEqual(evaluation.steps.map((s) => s.name), route.best.steps.map((s) => s.name), JSON.stringify(request));
    }
    const byHexes = engine.evaluateHexPath({ hexPath: route.hexPath }, NOW);
    assert.equal(byHexes.steps, undefined);
    checked += 1;
  }
  assert.ok(checked >= 20, `${checked} routes`);
});
