// A city's grid file (`<version>.grid.hxrk`, the manifest's `grid`: the model without
// its road network, which the map app opens first) answers every grid operation
// exactly as the full file does, is much smaller, and refuses routes and streets
// until the full file replaces it under the same version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { HexRisk } from '../../pkg/dist/roads/node/hexrisk_engine.js';

const artifactsDir = new URL('../../build/artifacts/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', artifactsDir)));
const NOW = Date.UTC(2022, 0, 3, 12);
const read = (file) => readFileSync(new URL(file, artifactsDir));

for (const city of manifest.cities) {
  test(`${city.code}: the grid file answers the grid as the full file does`, () => {
    assert.ok(city.grid, 'every built city with roads lists a grid file');
    const gridBytes = read(city.grid.file);
    assert.equal(gridBytes.length, city.grid.bytes);
    assert.equal(createHash('sha256').update(gridBytes).digest('hex'), city.grid.sha256);
    assert.ok(city.grid.bytes < city.bytes / 2, `${city.grid.bytes} bytes against ${city.bytes}`);

    const gridOnly = new HexRisk();
    const full = new HexRisk();
    assert.deepEqual(gridOnly.addCity(gridBytes, city.version), full.addCity(read(city.file), city.version));
    const { west, south, east, north } = city.bounds;
    for (const intent of ['overall', 'night']) {
      const box = { west, south, east, north, intent };
      assert.deepEqual(gridOnly.boxScores(box, NOW), full.boxScores(box, NOW), intent);
      assert.deepEqual(gridOnly.hexesInBox(box, NOW), full.hexesInBox(box, NOW), intent);
      assert.deepEqual(gridOnly.precincts({ intent }, NOW), full.precincts({ intent }, NOW), intent);
    }
    const cells = full.boxScores({ west, south, east, north }, NOW).cells;
    for (const cell of [cells[0], cells[Math.floor(cells.length / 2)], cells[cells.length - 1]]) {
      const h3 = cell.toString(16);
      assert.deepEqual(gridOnly.breakdown({ h3 }, NOW), full.breakdown({ h3 }, NOW), h3);
    }

    // No network: no streets where the full file has them (Houston's has none: it
    // routes over a hex lattice), and a route is refused with the API's error.
    if (full.streets(city.code) !== null) assert.equal(gridOnly.streets(city.code), null);
    const centre = { lat: (south + north) / 2, lng: (west + east) / 2 };
    const request = { origin: centre, destination: { lat: centre.lat + 0.01, lng: centre.lng + 0.01 } };
    assert.throws(() => gridOnly.route(request, NOW), (err) => err.code === 'INVALID_REQUEST' && /no routing network/.test(err.message));
    // The full file replaces it under the same version, and routes as the full engine does.
    gridOnly.addCity(read(city.file), city.version);
    assert.deepEqual(gridOnly.route(request, NOW), full.route(request, NOW));
  });
}
