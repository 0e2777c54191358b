// What the example pages share, so that each page shows only its map library's
// few lines. A page is online when its URL names the Worker and a router key
// (`?api=http://127.0.0.1:8787&key=hexrisk_live_…`, as `make run` prints), and
// offline otherwise: the npm package makes the tiles in the page from Toronto's
// model. `?clock=YYYY-MM-DD` pins the offline forecast week, as the map app's does.
import init, { HexRisk, palette } from '/pkg/dist/web/hexrisk_engine.js';

export const CITY = 'city_ca_tor';
/** Toronto City Hall, and the zoom a city block's cells are drawn at. */
export const VIEW = { lng: -79.3832, lat: 43.6532, zoom: 13 };

const query = new URLSearchParams(location.search);

/** The Worker and its key, or `null` offline. */
export const online = query.get('api') && query.get('key')
  ? { api: query.get('api').replace(/\/+$/, ''), key: query.get('key') }
  : null;

/** The forecast clock in milliseconds: `?clock=` at noon UTC, else now. */
export const now = () => (query.get('clock') ? Date.parse(`${query.get('clock')}T12:00:00Z`) : Date.now());

/** The package's engine with the city's model added (offline pages). */
export async function offlineEngine() {
  await init();
  const engine = new HexRisk();
  const manifest = await (await fetch('/artifacts/manifest.json')).json();
  const entry = manifest.cities.find((city) => city.code === CITY);
  const bytes = new Uint8Array(await (await fetch(`/artifacts/${entry.file}`)).arrayBuffer());
  engine.addCity(bytes, entry.version);
  return engine;
}

/** A GET of the Worker with the page's key, as JSON. */
export async function fromWorker(path) {
  const response = await fetch(`${online.api}${path}`, { headers: { 'X-API-Key': online.key } });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

/** The 17 colours of the bands (`colorIndex` 0, least safe, to 16), as `[r, g, b]`. */
export async function bandColours() {
  const hex = online ? (await fromWorker('/hexes/config')).data.colors : (await init(), palette());
  return hex.map((colour) => [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16)));
}

/**
 * Runs `draw` (resolved once the risk layer is drawn) and tells the page's reader
 * (and the tests) how it went: `data-state` on the body, `loading` until then
 * `ready` or `failed`, and a line in the live region.
 */
export async function drawMap(draw) {
  const state = (name, status) => {
    document.body.dataset.state = name;
    document.getElementById('status').textContent = status;
  };
  try {
    await draw();
    // The benchmark's end point: the layer drawn, since navigation.
    performance.mark('example:ready');
    state('ready', `Risk by hexagon, ${online ? 'from the API' : 'made in the page'}: red least safe, green safest.`);
  } catch (error) {
    state('failed', `The map could not load: ${error.message}`);
  }
}
