// Web Mercator tiles for the tests that ask for them.

/** The z/x/y tile holding a point (Web Mercator, the slippy-map formula). */
export function tileOf(lat, lng, z) {
  const n = 2 ** z;
  const rad = (lat * Math.PI) / 180;
  return {
    z,
    x: Math.floor(((lng + 180) / 360) * n),
    y: Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n),
  };
}
