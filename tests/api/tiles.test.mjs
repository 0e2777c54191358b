// Vector tiles under `wrangler dev`, read back with an independent decoder
// (@mapbox/vector-tile): the npm package makes the Worker's bytes exactly; each hex
// is its H3 cell's outline (h3-js) in the tile's units, within one unit, cut only at
// the tile's buffer; neighbouring tiles overlap across their shared edge, so a map
// draws no seam; the streets layer starts at zoom 14; the TileJSON names the tiles;
// the package's style is the Worker's; and /hexes/all and /streets as GeoJSON, the
// Worker's and the package's alike, each cell its h3-js outline.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as h3 from 'h3-js';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { keyStore, startWorker } from '../support/wrangler.mjs';
import { tileOf } from '../support/tiles.mjs';
import { HexRisk } from '../../pkg/dist/roads/node/hexrisk_engine.js';
import { hexriskProtocol, hexriskStyle, tileRequest } from '../../pkg/maplibre.js';

const CLOCK = '2022-01-03';
// The Worker's pinned clock: noon UTC of the day (a Monday in Toronto too).
const NOW = Date.UTC(2022, 0, 3, 12);
const TORONTO = 'city_ca_tor';
const EXTENT = 4096;
const BUFFER = 64;
let worker;
let key;

const root = new URL('../../', import.meta.url);
const artifactsDir = new URL('build/artifacts/', root);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', artifactsDir)));
const engine = new HexRisk();
for (const city of manifest.cities) engine.addCity(readFileSync(new URL(city.file, artifactsDir)));

before(async () => {
  const { state, keys } = await keyStore('tiles', { live: { kind: 'live' } });
  key = keys.live;
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_CLOCK: CLOCK } });
});
after(() => worker?.stop());

/** A point in a tile's units. */
function project({ z, x, y }, lat, lng) {
  const n = 2 ** z;
  const rad = (lat * Math.PI) / 180;
  const wx = ((lng + 180) / 360) * n;
  const wy = ((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n;
  return [(wx - x) * EXTENT, (wy - y) * EXTENT];
}

async function served(t, query = '') {
  const response = await fetch(`${worker.url}/tiles/${TORONTO}/${t.z}/${t.x}/${t.y}.mvt${query}`, {
    headers: { 'x-api-key': key, 'accept-encoding': 'gzip' },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  // fetch undoes the content coding itself; the header says it was used.
  return { response, bytes };
}

const decode = (bytes) => new VectorTile(new PbfReader(bytes));

/** Distance from a point to a segment. */
function toSegment([px, py], [ax, ay], [bx, by]) {
  const [dx, dy] = [bx - ax, by - ay];
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy || 1)));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

test('the package makes the Worker\'s bytes, tile for tile, and the Worker gzips them when asked', async () => {
  const centre = tileOf(43.6532, -79.3832, 14);
  const tiles = [centre, { ...centre, x: centre.x + 1 }, tileOf(43.6532, -79.3832, 12), tileOf(43.7, -79.4, 10), tileOf(43.7, -79.4, 8)];
  for (const t of tiles) {
    const { response, bytes } = await served(t);
    assert.equal(response.status, 200, `${t.z}/${t.x}/${t.y}`);
    assert.equal(response.headers.get('content-type'), 'application/vnd.mapbox-vector-tile');
    assert.equal(response.headers.get('content-encoding'), 'gzip');
    assert.match(response.headers.get('etag'), /^"[0-9a-f]{32}/);
    const offline = engine.tile({ city: TORONTO, ...t }, NOW);
    assert.ok(offline instanceof Uint8Array);
    assert.ok(Buffer.from(offline).equals(bytes), `${t.z}/${t.x}/${t.y}: ${offline.length} bytes offline, ${bytes.length} served`);
  }
  // With options, the same again, and another picture.
  const t = tileOf(43.6532, -79.3832, 13);
  const night = await served(t, '?intent=night');
  assert.ok(Buffer.from(engine.tile({ city: TORONTO, ...t, intent: 'night' }, NOW)).equals(night.bytes));
  assert.ok(!night.bytes.equals((await served(t)).bytes));
  // The package's MapLibre protocol handler answers hexrisk:// URLs with the same.
  const handler = hexriskProtocol(engine, { now: () => NOW });
  const { data } = await handler({ url: `hexrisk://${TORONTO}/${t.z}/${t.x}/${t.y}?intent=night` });
  assert.ok(Buffer.from(data).equals(night.bytes));
  assert.deepEqual(tileRequest('hexrisk://city_ca_tor/14/1/2.mvt?activeCodes=THEFT_BURGLARY%2COTHER'), {
    activeCodes: 'THEFT_BURGLARY,OTHER', city: 'city_ca_tor', z: 14, x: 1, y: 2,
  });
  assert.throws(() => tileRequest('https://example.org/14/1/2'), /not a hexrisk tile URL/);
});

test('each hex is its cell\'s outline in the tile\'s units, cut only at the buffer', async () => {
  const t = tileOf(43.6532, -79.3832, 14);
  const { bytes } = await served(t);
  const layer = decode(bytes).layers.hexes;
  // A z14 tile over Toronto is about 1.8 km across: some eight cells of about 0.9 km.
  assert.ok(layer.length >= 6, `${layer.length} hexes`);
  assert.equal(layer.extent, EXTENT);
  const ids = new Set();
  for (let i = 0; i < layer.length; i++) {
    const feature = layer.feature(i);
    assert.equal(feature.type, 3);
    const p = feature.properties;
    assert.ok(h3.isValidCell(p.h3) && h3.getResolution(p.h3) === 8, p.h3);
    // The cell's position in the city's grid: a number JavaScript holds exactly.
    assert.ok(Number.isSafeInteger(feature.id) && !ids.has(feature.id), `${feature.id}`);
    ids.add(feature.id);
    assert.ok(p.safetyScore >= 0 && p.safetyScore <= 100);
    assert.ok(Number.isInteger(p.colorIndex) && p.colorIndex >= 0 && p.colorIndex <= 16);
    assert.equal(p.tier, Math.max(0, 4 - Math.min(4, Math.floor(p.safetyScore / 20))));
    assert.ok(p.expectedCount >= 0);
    const outline = h3.cellToBoundary(p.h3).map(([lat, lng]) => project(t, lat, lng));
    const rings = feature.loadGeometry();
    assert.equal(rings.length, 1);
    for (const { x, y } of rings[0]) {
      const onOutline = outline.some((a, k) => toSegment([x, y], a, outline[(k + 1) % outline.length]) <= 1);
      const onBuffer = [x, y].some((v) => Math.abs(v + BUFFER) <= 1 || Math.abs(v - EXTENT - BUFFER) <= 1);
      assert.ok(onOutline || onBuffer, `${p.h3}: (${x}, ${y}) is neither on its outline nor on the buffer's edge`);
      assert.ok(x >= -BUFFER - 1 && x <= EXTENT + BUFFER + 1 && y >= -BUFFER - 1 && y <= EXTENT + BUFFER + 1);
    }
  }
});

test('neighbouring tiles overlap across their shared edge: no seam', async () => {
  const west = tileOf(43.6532, -79.3832, 14);
  const east = { ...west, x: west.x + 1 };
  const features = async (t) => {
    const layer = decode((await served(t)).bytes).layers.hexes;
    return new Map(Array.from({ length: layer.length }, (_, i) => {
      const f = layer.feature(i);
      return [f.properties.h3, f.loadGeometry()[0]];
    }));
  };
  const [a, b] = [await features(west), await features(east)];
  const shared = [...a.keys()].filter((cell) => b.has(cell));
  assert.ok(shared.length >= 2, `${shared.length} cells on both sides`);
  for (const cell of shared) {
    // In the west tile the cell reaches past x = 4096; in the east tile, before x = 0.
    assert.ok(Math.max(...a.get(cell).map((p) => p.x)) > EXTENT, cell);
    assert.ok(Math.min(...b.get(cell).map((p) => p.x)) < 0, cell);
  }
});

test('streets come from zoom 14, and an empty tile is no content', async () => {
  const deep = decode((await served(tileOf(43.6532, -79.3832, 14))).bytes);
  assert.ok(deep.layers.streets.length > 20, `${deep.layers.streets?.length} streets`);
  const street = deep.layers.streets.feature(0);
  assert.equal(street.type, 2);
  assert.ok(street.properties.incidentsPerKm >= 0 && Number.isInteger(street.properties.band));
  const named = Array.from({ length: deep.layers.streets.length }, (_, i) => deep.layers.streets.feature(i).properties.name).filter(Boolean);
  assert.ok(named.length > 0);
  assert.equal(decode((await served(tileOf(43.6532, -79.3832, 13))).bytes).layers.streets, undefined);
  const nowhere = await served({ z: 14, x: 0, y: 0 });
  assert.equal(nowhere.response.status, 204);
  assert.equal(engine.tile({ city: TORONTO, z: 14, x: 0, y: 0 }, NOW).length, 0);
});

test('the TileJSON names the tiles with the options asked', async () => {
  const response = await fetch(`${worker.url}/tiles/${TORONTO}.json?intent=night`, { headers: { 'x-api-key': key } });
  assert.equal(response.status, 200);
  const doc = await response.json();
  assert.equal(doc.tilejson, '3.0.0');
  const version = manifest.cities.find((c) => c.code === TORONTO).version;
  assert.equal(doc.tiles[0], `${worker.url}/tiles/${TORONTO}/{z}/{x}/{y}.mvt?intent=night&v=${version}`);
  assert.deepEqual(doc.vector_layers.map((l) => [l.id, l.minzoom]), [['hexes', 8], ['streets', 14]]);
  // The publisher the city's configuration names, through the manifest.
  assert.equal(manifest.cities.find((c) => c.code === TORONTO).attribution, 'Toronto Police Service Major Crime Indicators (Toronto Police open data)');
  assert.match(doc.attribution, /from Toronto Police Service Major Crime Indicators \(Toronto Police open data\), data through \d{4}-\d{2}-\d{2}$/);
  // A tile at the URL the TileJSON names may be kept by the browser; the same tile
  // asked for without the version (made once, then kept at the edge) is the same
  // bytes, revalidated on each use.
  const { z, x, y } = tileOf(43.6532, -79.3832, 14);
  const at = (template) => template.replace('{z}', z).replace('{x}', x).replace('{y}', y);
  const pinned = await fetch(at(doc.tiles[0]), { headers: { 'x-api-key': key } });
  assert.equal(pinned.status, 200);
  assert.equal(pinned.headers.get('cache-control'), 'private, max-age=3600');
  const plain = await fetch(at(doc.tiles[0]).replace(/&v=.*$/, ''), { headers: { 'x-api-key': key } });
  assert.equal(plain.headers.get('cache-control'), 'private, no-cache');
  assert.deepEqual(Buffer.from(await plain.arrayBuffer()), Buffer.from(await pinned.arrayBuffer()));
  // The Workers cache kept the tiles (wrangler's local cache writes each kept body
  // as a blob under the persisted state) and logged no failure.
  const kept = readdirSync(new URL('v3/cache/default/blobs/', `file://${worker.state}/`));
  assert.ok(kept.length > 0);
  assert.doesNotMatch(worker.output(), /answer cache/);
});

test('the package exports the style the Worker serves', async () => {
  const response = await fetch(`${worker.url}/tiles/${TORONTO}/style.json?intent=night`, { headers: { 'x-api-key': key } });
  assert.equal(response.status, 200);
  const served = await response.json();
  const tilejson = await (await fetch(`${worker.url}/tiles/${TORONTO}.json?intent=night`, { headers: { 'x-api-key': key } })).json();
  const { tiles, minzoom, maxzoom, bounds, attribution } = tilejson;
  assert.deepEqual(served.sources.hexrisk, { type: 'vector', tiles, minzoom, maxzoom, bounds, attribution });
  assert.deepEqual(hexriskStyle(served.sources.hexrisk), served);
  const offline = { type: 'vector', tiles: [`hexrisk://${TORONTO}/{z}/{x}/{y}`], minzoom: 8, maxzoom: 16 };
  const style = hexriskStyle(offline);
  assert.equal(style.sources.hexrisk, offline);
  assert.deepEqual(style.layers.map((l) => l.id), ['hexrisk-hexes', 'hexrisk-streets']);
  // Each call is the caller's own copy.
  style.layers.pop();
  assert.equal(hexriskStyle(offline).layers.length, 2);
});

test('GeoJSON lists: the Worker\'s and the package\'s alike, each cell its H3 outline', async () => {
  const box = { west: -79.42, south: 43.63, east: -79.38, north: 43.67 };
  const query = new URLSearchParams(box).toString();
  const asked = async (path, accept) => {
    const response = await fetch(`${worker.url}${path}?${query}`, { headers: { 'x-api-key': key, accept } });
    assert.equal(response.status, 200, path);
    return response;
  };
  const hexes = await asked('/hexes/all', 'application/geo+json');
  assert.equal(hexes.headers.get('content-type'), 'application/geo+json');
  const collection = await hexes.json();
  assert.deepEqual(collection, engine.hexesInBoxGeoJSON(box, NOW));
  const rows = await (await asked('/hexes/all', 'application/json')).json();
  assert.equal(collection.features.length, rows.length);
  assert.ok(rows.length > 10);
  for (const feature of collection.features) {
    // h3-js's outline in GeoJSON order, closed: the same points.
    const outline = h3.cellToBoundary(feature.id, true);
    assert.equal(feature.geometry.coordinates[0].length, outline.length);
    feature.geometry.coordinates[0].forEach(([lng, lat], i) => {
      assert.ok(Math.abs(lng - outline[i][0]) < 1e-9 && Math.abs(lat - outline[i][1]) < 1e-9, feature.id);
    });
  }
  const streets = await (await asked('/streets', 'application/geo+json')).json();
  assert.deepEqual(streets, engine.streetsInBoxGeoJSON(box, NOW));
  assert.ok(streets.features.length > 50);
  assert.ok(streets.features.every((f) => f.geometry.type === 'LineString' && f.properties.incidentsPerKm >= 0));
});
