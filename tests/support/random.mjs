// Seeded pseudo-random numbers so every test run checks the same points.

/** mulberry32: a small, well-distributed 32-bit generator. Returns floats in [0, 1). */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Bounding boxes of the three covered cities (degrees), a little wider than the city limits. */
export const CITY_BOXES = {
  city_ca_tor: { south: 43.58, north: 43.86, west: -79.64, east: -79.11 },
  city_us_sfo: { south: 37.70, north: 37.84, west: -122.52, east: -122.35 },
  city_us_hou: { south: 29.52, north: 30.12, west: -95.80, east: -95.01 },
};

/** `count` random points inside `box`, as [lat, lng] pairs. */
export function pointsIn(box, count, random) {
  return Array.from({ length: count }, () => [
    box.south + (box.north - box.south) * random(),
    box.west + (box.east - box.west) * random(),
  ]);
}
