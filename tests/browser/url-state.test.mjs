// The map's link format (web-demo/lib/url-state.js), without a browser: a state
// survives writing and reading, and malformed members are dropped, not trusted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readState, writeState } from '../../web-demo/lib/url-state.js';

const FULL = {
  city: 'city_us_sfo', view: { lat: 37.77493, lng: -122.41942, zoom: 13.25 }, intent: 'night',
  classes: ['THEFT_BURGLARY', 'OTHER'], week: '2018-03-05', day: 4, hour: 23, opacity: 70, click: 'route',
  method: 'tradeoff', from: { lat: 37.7749, lng: -122.4194 }, to: { lat: 37.7849, lng: -122.4094 }, route: 2,
  reach: { lat: 37.76, lng: -122.43 }, minutes: 20, mode: 'cycling',
};

test('a state survives the fragment', () => {
  const hash = writeState(FULL);
  assert.match(hash, /^city=city_us_sfo&view=37\.77493,-122\.41942,13\.25&/);
  assert.deepEqual(readState(`#${hash}`), FULL);
});

test('members left out stay out, and an empty fragment is an empty state', () => {
  assert.deepEqual(readState(''), {});
  assert.deepEqual(readState(`#${writeState({ city: 'city_ca_tor', day: undefined, classes: undefined })}`), { city: 'city_ca_tor' });
});

test('malformed members are dropped', () => {
  const state = readState('#view=95,10,12&from=43.6,-200&to=abc&day=7&hour=24&opacity=101&minutes=0&route=-1&week=2022-1-3&reach=43.6,-79.4,1');
  assert.deepEqual(state, { reach: { lat: 43.6, lng: -79.4 } });
  assert.deepEqual(readState('#view=43.6,-79.4,21'), {});
  assert.deepEqual(readState('#day=2.5&hour=x'), {});
});
