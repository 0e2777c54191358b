// Deep equality with a tolerance on numbers, for answers computed on two platforms
// (native and wasm, or the Worker and the npm package): libm's trigonometry differs
// in the last bits, so numbers may differ by micrometres and nanopoints, no more.
import assert from 'node:assert/strict';

/** Asserts `actual` equals `expected` with numbers within 1e-6 + 1e-9 relative. */
export function close(actual, expected, at = '$') {
  if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', at);
    assert.ok(Math.abs(actual - expected) <= 1e-6 + 1e-9 * Math.abs(expected), `${at}: ${actual} vs ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), at);
    assert.equal(actual.length, expected.length, `${at}.length`);
    expected.forEach((e, i) => close(actual[i], e, `${at}[${i}]`));
  } else if (expected && typeof expected === 'object') {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), at);
    for (const key of Object.keys(expected)) close(actual[key], expected[key], `${at}.${key}`);
  } else {
    assert.equal(actual, expected, at);
  }
}
