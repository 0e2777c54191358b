// Street-level risk without Leaflet (plain functions, so Node tests import them too):
// the boxes a street request asks for, how a figure per km (and text in HTML) is
// written, and the riskiest blocks of a route (the streets it follows with the most
// expected incidents per km).

/** The zoom from which the map draws streets instead of hexes. */
export const STREETS_MIN_ZOOM = 15;
/** Largest side of a `streetsInBox` / `GET /streets` box, in degrees (the engine's limit). */
export const MAX_BOX_SIDE_DEG = 0.05;
/** The side the boxes are cut to: under the limit by far more than rounding. */
const TILE_SIDE_DEG = 0.049;
/** Most boxes along each side: a view larger than this many boxes keeps only its middle. */
export const MAX_BOXES_PER_SIDE = 2;

/**
 * `bounds` ({west, south, east, north}) cut into at most `perSide` × `perSide` equal
 * boxes with no side over `MAX_BOX_SIDE_DEG`. Bounds larger than that keep their
 * middle, and `clipped` says so: `{ boxes, clipped }`.
 */
export function streetBoxes({ west, south, east, north }, perSide = MAX_BOXES_PER_SIDE) {
  const limit = TILE_SIDE_DEG * perSide;
  let clipped = false;
  if (east - west > limit) {
    const middle = (west + east) / 2;
    [west, east] = [middle - limit / 2, middle + limit / 2];
    clipped = true;
  }
  if (north - south > limit) {
    const middle = (south + north) / 2;
    [south, north] = [middle - limit / 2, middle + limit / 2];
    clipped = true;
  }
  // Sides of at most TILE_SIDE_DEG, in at most perSide boxes (the bounds are now at
  // most perSide of them, less rounding).
  const across = Math.min(perSide, Math.max(1, Math.ceil((east - west) / TILE_SIDE_DEG)));
  const down = Math.min(perSide, Math.max(1, Math.ceil((north - south) / TILE_SIDE_DEG)));
  const boxes = [];
  for (let i = 0; i < across; i += 1) {
    for (let j = 0; j < down; j += 1) {
      boxes.push({
        west: west + ((east - west) * i) / across,
        east: i === across - 1 ? east : west + ((east - west) * (i + 1)) / across,
        south: south + ((north - south) * j) / down,
        north: j === down - 1 ? north : south + ((north - south) * (j + 1)) / down,
      });
    }
  }
  return { boxes, clipped };
}

/** Text made safe to put in HTML. */
export const escapeHtml = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

const twoDigits = new Intl.NumberFormat('en', { maximumSignificantDigits: 2 });
/** A figure to 2 significant digits: 0.038, 0.15, 2.1, 12. */
export const significant = (value) => twoDigits.format(value);

/** A street's tooltip (HTML): its name, expected incidents per km, band, and what its figure rests on. */
export function streetTooltip(street) {
  const name = street.name ? escapeHtml(street.name) : 'unnamed street';
  const band = street.colorIndex >= 0 ? `, band ${street.colorIndex + 1} of 17` : '';
  const basis = street.basis === 'cell'
    ? '<br><em>too little data for this street on its own: its cell\'s risk spread by length</em>' : '';
  return `<strong>${name}</strong><br>${significant(street.incidentsPerKm)} expected incidents per km${band}${basis}`;
}

/** The streets of several answers once each (a street crossing boxes is in each), by id. */
export function uniqueStreets(answers) {
  const byId = new Map();
  for (const answer of answers) for (const street of answer?.streets ?? []) byId.set(street.id, street);
  return [...byId.values()];
}

/** Metres per degree of latitude (and of longitude at the equator). */
const METRES_PER_DEGREE = (6_371_008.8 * Math.PI) / 180;
/** How far from the route a street's points may be and still be on it, metres. */
export const ON_ROUTE_M = 3;
/** Least length of a street the route follows for it to count as a block, metres. */
export const MIN_BLOCK_M = 20;
/** Blocks highlighted per route. */
export const BLOCKS = 3;

/**
 * The riskiest blocks of a route: of `streets` (rows of `streetsInBox`), those the
 * route's `line` ([lng, lat] pairs) follows for at least `MIN_BLOCK_M`, the `BLOCKS`
 * with the most expected incidents per km. A stretch of a street is on the route
 * when both ends of one of its segments and the segment's middle are within
 * `ON_ROUTE_M` of the line (a crossing street touches it at one point only). Each
 * block: `{ id, name, incidentsPerKm, basis, onRouteM, runs }`, `runs` the stretches
 * followed as [lat, lng] lines.
 */
export function riskiestBlocks(line, streets, { count = BLOCKS, toleranceM = ON_ROUTE_M, minM = MIN_BLOCK_M } = {}) {
  if (line.length < 2) return [];
  // Local metres: equirectangular about the route's first point (a few km at most).
  const cosLat = Math.cos((line[0][1] * Math.PI) / 180);
  const x = (lng) => lng * METRES_PER_DEGREE * cosLat;
  const y = (lat) => lat * METRES_PER_DEGREE;
  const points = line.map(([lng, lat]) => [x(lng), y(lat)]);
  // The route's segments by grid square (squares of 8 tolerances), each in every
  // square its box, widened by the tolerance, touches.
  const size = 8 * toleranceM;
  const squares = new Map();
  const key = (i, j) => `${i},${j}`;
  for (let s = 0; s + 1 < points.length; s += 1) {
    const [[ax, ay], [bx, by]] = [points[s], points[s + 1]];
    for (let i = Math.floor((Math.min(ax, bx) - toleranceM) / size); i <= Math.floor((Math.max(ax, bx) + toleranceM) / size); i += 1) {
      for (let j = Math.floor((Math.min(ay, by) - toleranceM) / size); j <= Math.floor((Math.max(ay, by) + toleranceM) / size); j += 1) {
        const k = key(i, j);
        if (!squares.has(k)) squares.set(k, []);
        squares.get(k).push(s);
      }
    }
  }
  const near = (px, py) => {
    for (const s of squares.get(key(Math.floor(px / size), Math.floor(py / size))) ?? []) {
      const [[ax, ay], [bx, by]] = [points[s], points[s + 1]];
      const [dx, dy] = [bx - ax, by - ay];
      const squared = dx * dx + dy * dy;
      const t = squared > 0 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / squared)) : 0;
      if (Math.hypot(px - ax - t * dx, py - ay - t * dy) <= toleranceM) return true;
    }
    return false;
  };
  const blocks = [];
  for (const street of streets) {
    const coords = street.coordinates;
    const on = coords.map(([lng, lat]) => near(x(lng), y(lat)));
    const runs = [];
    let run = null;
    let onRouteM = 0;
    for (let i = 0; i + 1 < coords.length; i += 1) {
      const [[alng, alat], [blng, blat]] = [coords[i], coords[i + 1]];
      const followed = on[i] && on[i + 1] && near(x((alng + blng) / 2), y((alat + blat) / 2));
      if (!followed) { run = null; continue; }
      onRouteM += Math.hypot(x(blng) - x(alng), y(blat) - y(alat));
      if (!run) { run = [[alat, alng]]; runs.push(run); }
      run.push([blat, blng]);
    }
    if (onRouteM >= minM) {
      blocks.push({ id: street.id, name: street.name, incidentsPerKm: street.incidentsPerKm, basis: street.basis, onRouteM, runs });
    }
  }
  blocks.sort((a, b) => b.incidentsPerKm - a.incidentsPerKm || b.onRouteM - a.onRouteM || a.id - b.id);
  return blocks.slice(0, count);
}
