// hexrisk map app: the wasm engine in the page (offline) or the HTTP APIs (online),
// with the same request and answer shapes, on a Leaflet map whose base layer is drawn
// from the city artifact itself (streets and precinct outlines): no tiles needed.
//
// URL parameters: `api` and `key` enable online mode (router API base and an
// X-API-Key whose allowlist has this page's origin); `clock` (YYYY-MM-DD) sets "now"
// for the default week; `tiles` adds an optional raster basemap when online.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import init, { HexRisk, cellBoundary, colorIndex, crimeClasses, fetchArtifact, palette, version } from '/pkg/dist/web/hexrisk_engine.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const API = params.get('api');
const KEY = params.get('key');
const CLOCK = params.get('clock') ? Date.parse(`${params.get('clock')}T12:00:00Z`) : Date.now();
// Page timings (Performance API clock): first coloured grid since navigation start, then
// each recolour and route, per engine.
const timings = { firstGridMs: null, cityMs: [], recolourMs: { offline: [], online: [] }, routeMs: { offline: [], online: [] } };
window.hexriskTimings = timings;

await init();
const engine = new HexRisk();
const PALETTE = palette();
const cities = {};
const map = L.map('map', { preferCanvas: false, keyboard: true, zoomControl: true });
const streetsRenderer = L.canvas({ padding: 0.2 });
if (params.get('tiles')) L.tileLayer(params.get('tiles'), { maxZoom: 19 }).addTo(map);
const layers = { streets: L.layerGroup().addTo(map), hexes: L.layerGroup().addTo(map), precincts: L.layerGroup(), route: L.layerGroup().addTo(map) };
let hexPolygons = new Map();
let routePoints = [];

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
}

function fail(err) {
  setStatus(`${err.code ?? 'ERROR'}: ${err.message}`, true);
}

// ---- the two engines behind one interface -------------------------------------------
const offline = {
  hexes: (q) => engine.hexesInBox(q, CLOCK),
  breakdown: (q) => engine.breakdown(q, CLOCK),
  route: (body) => engine.route(body, CLOCK),
  precincts: (q) => engine.precincts(q, CLOCK),
};

// ---- freshness: the data behind what the map colours ------------------------------------
/** The published models (versioned file names, data-through dates), read once. */
let manifest;
const artifactsManifest = async () => (manifest ??= await (await fetch('/artifacts/manifest.json')).json());
/** Model version label per city, by source: a label is `<data-through date>.<digest>`. */
const versions = { offline: {}, online: {} };

function showFreshness() {
  const code = $('city').value;
  const which = $('source').value === 'online' ? 'online' : 'offline';
  const label = versions[which][code];
  $('freshness').textContent = label
    ? `Data through ${label.split('.')[0]} (model ${label}, ${which === 'online' ? 'from the API' : 'in this browser'})`
    : '';
}

/** Notes the versions an API answer names in its Hexrisk-Model-Version header. */
function noteVersions(header) {
  for (const pair of (header ?? '').split(',')) {
    const [code, label] = pair.trim().split('=');
    if (code && label) versions.online[code] = label;
  }
  showFreshness();
}

async function http(method, path, body) {
  const response = await fetch(`${API}${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  noteVersions(response.headers.get('hexrisk-model-version'));
  const answer = await response.json();
  if (!response.ok) throw Object.assign(new Error(answer.message), { code: answer.code, details: answer.details });
  return answer;
}

const query = (q) => `?${new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined && v !== ''))}`;
const online = {
  hexes: (q) => http('GET', `/hexes/all${query(q)}`),
  breakdown: (q) => http('GET', `/hexes/breakdown${query(q)}`),
  route: (body) => http('POST', '/route', body),
  precincts: (q) => http('GET', `/precincts${query(q)}`),
};

const source = () => ($('source').value === 'online' ? online : offline);

// ---- controls ----------------------------------------------------------------------------
for (const c of crimeClasses().filter((c) => c.code !== 'NO_CRIME')) {
  const label = document.createElement('label');
  label.innerHTML = `<input type="checkbox" name="class" value="${c.code}" checked> ${c.name}`;
  $('classes').append(label);
}
if (!API || !KEY) {
  $('source').querySelector('[value=online]').disabled = true;
  $('source').title = 'Online mode needs ?api=…&key=… (make run prints a demo key)';
}

/** The chosen hour of the week (Monday 00:00 local = 0), or undefined for the whole week. */
function hourOfWeek() {
  const day = $('day').value;
  return day === '' ? undefined : Number(day) * 24 + Number($('hour').value);
}

function options() {
  const codes = [...document.querySelectorAll('input[name=class]:checked')].map((i) => i.value);
  const time = hourOfWeek();
  return { intent: $('intent').value, activeCodes: codes.join(','), week: $('week').value, time: time === undefined ? undefined : String(time) };
}

function bodyOptions() {
  const { intent, activeCodes, week } = options();
  // A route leaving at the chosen time scores each cell in the band it is reached.
  return { intent, activeCodes: activeCodes.split(',').filter(Boolean), modifiers: { week }, departAt: hourOfWeek() };
}

/** "week of 2022-01-03" or "week of 2022-01-03, Friday 23:00". */
function when() {
  const time = hourOfWeek();
  const day = $('day').selectedOptions[0]?.textContent;
  return `week of ${$('week').value}${time === undefined ? '' : `, ${day} ${$('hour').selectedOptions[0]?.textContent}`}`;
}

function legend() {
  const items = PALETTE.map((colour, i) => `<li style="background:${colour}" title="band ${i + 1}"></li>`).join('');
  $('legend').innerHTML = `<h2>Safety</h2><ol>${items}</ol>
    <div class="scale"><span>1 least safe</span><span>17 safest</span></div>
    <p>Bands 1–17 are colour indexes 0–16 of the safety score (0–100, a cell's rank in its city for the week, or the chosen time of day, and options).
    Cells without data are not coloured.</p>`;
}

// ---- drawing -------------------------------------------------------------------------------
function ring(cell) {
  const flat = cellBoundary(cell);
  const points = [];
  for (let i = 0; i < flat.length; i += 2) points.push([flat[i], flat[i + 1]]);
  return points;
}

async function drawHexes() {
  const city = cities[$('city').value];
  const started = performance.now();
  const { west, south, east, north } = city.bounds;
  const list = await source().hexes({ west, south, east, north, ...options() });
  const created = hexPolygons.size === 0;
  if (created) {
    for (const item of list) {
      const polygon = L.polygon(ring(item.h), { weight: 0.5, color: '#333', fillOpacity: 0.55, className: 'hex' });
      polygon.on('click', (event) => {
        if ($('click-mode').value !== 'inspect') return; // the map's click plans routes
        L.DomEvent.stopPropagation(event);
        showBreakdown(item.h);
      });
      polygon.addTo(layers.hexes);
      hexPolygons.set(item.h, polygon);
    }
  }
  for (const item of list) {
    const polygon = hexPolygons.get(item.h);
    polygon?.setStyle({ fillColor: item.ci >= 0 ? PALETTE[item.ci] : 'transparent' });
    polygon?.getElement()?.setAttribute('data-ci', String(item.ci));
  }
  const ms = performance.now() - started;
  if (timings.firstGridMs === null) timings.firstGridMs = performance.now();
  else if (created) timings.cityMs.push(ms);
  else timings.recolourMs[$('source').value].push(ms);
  document.body.dataset.hexes = String(list.length);
  document.body.dataset.drawnFrom = $('source').value;
  setStatus(`${city.name}: ${list.length} cells, ${when()}.`);
}

async function showBreakdown(cell) {
  try {
    const b = await source().breakdown({ h3: cell, ...options() });
    const rows = b.crimeTypes.map((r) => `<tr><td>${r.name}</td><td>${r.expectedCount.toFixed(3)}</td><td>${(100 * r.share).toFixed(0)}%</td></tr>`).join('');
    $('breakdown').hidden = false;
    $('breakdown').innerHTML = `<h2>Cell ${cell}</h2>
      <p data-testid="safety">Safety ${b.hasData ? b.safetyScore.toFixed(1) : 'N/A'} (band ${b.colorIndex + 1})</p>
      <table><thead><tr><th>Class</th><th>Expected</th><th>Share of harm</th></tr></thead><tbody>${rows}</tbody></table>`;
  } catch (err) { fail(err); }
}

const tierColour = (tier) => PALETTE[colorIndex((4 - tier) * 20 + 10)];

async function route() {
  if (routePoints.length < 2) return;
  const started = performance.now();
  const [a, b] = routePoints;
  const body = { origin: { lat: a.lat, lng: a.lng }, destination: { lat: b.lat, lng: b.lng }, method: $('method').value, alternatives: 2, ...bodyOptions() };
  try {
    const answer = await source().route(body);
    layers.route.clearLayers();
    for (const cell of answer.best.hexPathWithTiers) {
      L.polygon(ring(cell.h3), { weight: 1, color: '#222', fillColor: cell.tier === null ? '#999' : tierColour(cell.tier), fillOpacity: 0.6, className: 'corridor' }).addTo(layers.route);
    }
    for (const alternative of answer.alternatives) {
      if (alternative.geometry) L.polyline(alternative.geometry.coordinates.map(([lng, lat]) => [lat, lng]), { color: '#555', dashArray: '6 6', weight: 3, className: 'alternative' }).addTo(layers.route);
    }
    if (answer.best.geometry) L.polyline(answer.best.geometry.coordinates.map(([lng, lat]) => [lat, lng]), { color: '#0a66c2', weight: 5, className: 'best-route' }).addTo(layers.route);
    const m = answer.best.metrics;
    $('metrics').hidden = false;
    $('metrics').innerHTML = `<h2>Route (${answer.method}, ${answer.network})</h2><table>
      <tr><th>Distance</th><td data-testid="distance">${(m.distanceM / 1000).toFixed(2)} km</td></tr>
      <tr><th>Duration (${m.mode})</th><td data-testid="duration">${Math.round(m.durationS / 60)} min</td></tr>
      <tr><th>Detour</th><td data-testid="detour">${m.detourPct.toFixed(1)}%</td></tr>
      <tr><th>Worst safety</th><td data-testid="worst">${m.worstSafety?.toFixed(1) ?? 'N/A'}</td></tr>
      <tr><th>Mean safety</th><td data-testid="mean">${m.meanSafety?.toFixed(1) ?? 'N/A'}</td></tr>
      <tr><th>Cells</th><td data-testid="cells">${m.cellCount}</td></tr>
      <tr><th>Alternatives</th><td data-testid="alternatives">${answer.alternatives.length}</td></tr>
      ${answer.departAt ? `<tr><th>Scored at</th><td data-testid="bands">${answer.departAt.bands.map((b) => b.timeWindow).join(' → ')}</td></tr>` : ''}</table>`;
    timings.routeMs[$('source').value].push(performance.now() - started);
    document.body.dataset.route = 'shown';
  } catch (err) { fail(err); }
}

async function drawPrecincts() {
  layers.precincts.clearLayers();
  if (!$('precincts').checked) { map.removeLayer(layers.precincts); return; }
  const { intent, week, time } = options();
  const geojson = await source().precincts({ intent, week, time });
  const code = $('city').value;
  L.geoJSON({ ...geojson, features: geojson.features.filter((f) => f.properties.city === code) }, {
    style: { color: '#123', weight: 2, fill: false, className: 'precinct' },
    onEachFeature: (f, layer) => layer.bindTooltip(`${f.properties.name}: safety ${f.properties.safetyScore?.toFixed(1) ?? 'N/A'}`),
  }).addTo(layers.precincts);
  layers.precincts.addTo(map);
}

async function loadCity(code) {
  if (!cities[code]) {
    const entry = (await artifactsManifest()).cities.find((c) => c.code === code);
    cities[code] = engine.addCity(await fetchArtifact(`/artifacts/${entry.file}`), entry.version);
    versions.offline[code] = cities[code].modelVersion;
  }
  showFreshness();
  const city = cities[code];
  const range = engine.predictionRange(code, CLOCK);
  $('week').min = range.start;
  $('week').max = range.end;
  $('week').value = range.currentWeek && range.currentWeek >= range.start && range.currentWeek <= range.end ? range.currentWeek : city.lastWeek;
  layers.streets.clearLayers();
  layers.hexes.clearLayers();
  layers.route.clearLayers();
  hexPolygons = new Map();
  routePoints = [];
  const { west, south, east, north } = city.bounds;
  map.fitBounds([[south, west], [north, east]]);
  await drawHexes();
  // Streets come after the grid: the grid is what people wait for.
  await new Promise((resolve) => requestAnimationFrame(resolve));
  const streets = engine.streets(code);
  if (streets) L.geoJSON(streets, { renderer: streetsRenderer, style: { color: '#8a8a8a', weight: 0.6, interactive: false } }).addTo(layers.streets);
  layers.streets.eachLayer((layer) => layer.bringToBack?.());
  await drawPrecincts();
}

map.on('click', async (event) => {
  if ($('click-mode').value !== 'route') return;
  routePoints = routePoints.length >= 2 ? [event.latlng] : [...routePoints, event.latlng];
  setStatus(routePoints.length === 1 ? 'Origin set: click the destination.' : 'Finding the route…');
  await route();
});

const recolour = () => drawHexes().then(drawPrecincts).then(route).catch(fail);
$('city').addEventListener('change', () => loadCity($('city').value).catch(fail));
for (const id of ['intent', 'week', 'source', 'hour']) $(id).addEventListener('change', recolour);
$('day').addEventListener('change', () => { $('hour').disabled = $('day').value === ''; recolour(); });
$('source').addEventListener('change', showFreshness);
$('method').addEventListener('change', () => route());
$('classes').addEventListener('change', recolour);
$('precincts').addEventListener('change', () => drawPrecincts().catch(fail));
$('clear-route').addEventListener('click', () => { layers.route.clearLayers(); routePoints = []; $('metrics').hidden = true; });

/** For tests and keyboard users: route between two points without clicking. */
window.hexriskRoute = async (a, b) => { routePoints = [L.latLng(a.lat, a.lng), L.latLng(b.lat, b.lng)]; await route(); };

$('engine-version').textContent = `hexrisk-engine ${version()}`;
legend();
await loadCity($('city').value).catch(fail);
document.body.dataset.ready = 'true';
