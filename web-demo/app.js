// hexrisk map app: the wasm engine in the page (offline) or the HTTP APIs (online),
// with the same request and answer shapes, on a Leaflet map whose base layer is drawn
// from the city artifact itself (streets over the hexes, precinct outlines): no tiles
// needed, and with the service worker no network once opened. From zoom 15 in, the
// streets in view coloured by their own risk take the hexes' place (lib/street-layer.js).
//
// Query parameters (the page's settings): `api` and `key` enable online mode (router
// API base and an X-API-Key whose allowlist has this page's origin); `clock`
// (YYYY-MM-DD) sets "now" for the default week; `tiles` adds a raster basemap;
// `renderer=canvas|svg` draws hexes with Leaflet's own renderers instead (to compare them); `sw=0` skips
// the service worker. The fragment holds the view a link shares (lib/url-state.js).
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { cellAt, cellBoundary, cellCentre, colorIndex, crimeClasses, palette, version } from '/pkg/dist/web/hexrisk_engine.js';
import { engineReady, firstCity, roadsEngine } from './lib/boot.js';
import { offlineEngine, onlineEngine } from './lib/engines.js';
import { GridLayer, RENDERERS, nextFrame } from './lib/grid-layer.js';
import { fetchArtifact, fetchManifest, registerServiceWorker } from './lib/offline.js';
import { placeSearch } from './lib/place-search.js';
import { ReachView } from './lib/reach.js';
import { RouteView } from './lib/routes.js';
import { StreetLayer } from './lib/street-layer.js';
import { STREETS_MIN_ZOOM, streetBoxes, uniqueStreets } from './lib/streets.js';
import { readState, writeState } from './lib/url-state.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const API = params.get('api');
const KEY = params.get('key');
const CLOCK = params.get('clock') ? Date.parse(`${params.get('clock')}T12:00:00Z`) : Date.now();
const RENDERER = RENDERERS.includes(params.get('renderer')) ? params.get('renderer') : RENDERERS[0];
// Page timings (Performance API clock, from navigation start): the first coloured grid
// on screen, then each grid recolour (scores, styles and the frame that draws them),
// route and reach, with the city, engine and renderer.
const timings = { renderer: RENDERER, firstGridMs: null, recolours: [], routes: [], reaches: [] };
window.hexriskTimings = timings;
const restored = readState(location.hash);

performance.mark('hexrisk:app-start');
const engine = await engineReady;
const PALETTE = palette();
const CLASS_NAMES = Object.fromEntries(crimeClasses().map((c) => [c.code, c.name]));
const cities = {};
const versions = { offline: {}, online: {} };
const engines = {
  offline: offlineEngine(engine, roadsEngine, CLOCK),
  online: API && KEY ? onlineEngine(API, KEY, (named) => { Object.assign(versions.online, named); showFreshness(); }) : null,
};
const source = () => engines[$('source').value] ?? engines.offline;

// ---- the map and its panes, bottom to top ----------------------------------------------------
const map = L.map('map', { keyboard: true, zoomControl: true, zoomSnap: 0.25 });
L.control.scale({ position: 'bottomleft', maxWidth: 160 }).addTo(map);
if (params.get('tiles')) L.tileLayer(params.get('tiles'), { maxZoom: 19 }).addTo(map);
const PANES = { hexes: 410, corridor: 420, reach: 422, streets: 430, streetRisk: 432, precincts: 435, lines: 440, avoided: 450 };
for (const [name, z] of Object.entries(PANES)) {
  const pane = map.createPane(name);
  pane.style.zIndex = String(z);
  // Only lines, streets coloured by risk (their tooltips), markers and precincts take
  // pointer events; the map's own click does the rest.
  if (['hexes', 'corridor', 'reach', 'streets'].includes(name)) pane.style.pointerEvents = 'none';
}
const ring = (cell) => {
  const flat = cellBoundary(cell);
  const points = [];
  for (let i = 0; i < flat.length; i += 2) points.push([flat[i], flat[i + 1]]);
  return points;
};
const grid = new GridLayer(map, { pane: 'hexes', palette: PALETTE, ring: cellBoundary, renderer: RENDERER });
const streets = L.layerGroup().addTo(map);
const streetsRenderer = L.canvas({ pane: 'streets', padding: 0.3 });
const precincts = L.layerGroup();
const tierColour = (tier) => PALETTE[colorIndex((4 - tier) * 20 + 10)];
const routes = new RouteView(map, {
  panes: { corridor: 'corridor', lines: 'lines', avoided: 'avoided' }, ring, tierColour,
  className: (code) => CLASS_NAMES[code] ?? code,
  onSelect: () => saveState(),
});
const reachView = new ReachView(map, { pane: 'reach', ring });
/** Per city: whether it has streets (false: a hex lattice), once its full model file is in. */
const hasStreets = {};
const streetLayer = new StreetLayer(map, {
  pane: 'streetRisk', palette: PALETTE,
  available: () => hasStreets[$('city').value],
  load: (box) => source().streets(box, queryOptions()),
  onChange: showStreetState,
});
const centre = () => { const c = map.getCenter(); return { lat: c.lat, lng: c.lng }; };
let routeEnds = [];
let reachFrom = null;
/** The model files opened, for the service worker to keep. */
const artifactUrls = [];
// Per city opened from its full file (no grid file): the bytes, until the roads engine takes them.
const fullFiles = {};
/** Per city: its opening (opened), manifest entry, and full model file's load (loadNetwork). */
const opening = {};
const entries = {};
const networks = {};

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
}
const fail = (err) => setStatus(`${err.code ?? 'ERROR'}: ${err.message}`, true);

function showFreshness() {
  const code = $('city').value;
  const which = engines[$('source').value] ? $('source').value : 'offline';
  const label = versions[which][code];
  $('freshness').textContent = label
    ? `Data through ${label.split('.')[0]} (model ${label}, ${which === 'online' ? 'from the API' : 'in this browser'})`
    : '';
}

// ---- controls and options ----------------------------------------------------------------------
for (const c of crimeClasses().filter((c) => c.code !== 'NO_CRIME')) {
  const label = document.createElement('label');
  label.innerHTML = `<input type="checkbox" name="class" value="${c.code}" checked> ${c.name}`;
  $('classes').append(label);
}
if (!engines.online) {
  $('source').querySelector('[value=online]').disabled = true;
  $('source').title = 'Online mode needs ?api=…&key=… (make run prints a demo key)';
}
const clickMode = () => document.querySelector('input[name=click-mode]:checked').value;
const activeCodes = () => [...document.querySelectorAll('input[name=class]:checked')].map((i) => i.value);

/** The chosen hour of the week (Monday 00:00 local = 0), or undefined for the whole week. */
function hourOfWeek() {
  const day = $('day').value;
  return day === '' ? undefined : Number(day) * 24 + Number($('hour').value);
}

/** Scoring options as GET query members. */
function queryOptions() {
  const time = hourOfWeek();
  return { intent: $('intent').value, activeCodes: activeCodes().join(','), week: $('week').value, time: time === undefined ? undefined : String(time) };
}

/** "week of 2022-01-03" or "week of 2022-01-03, Friday 23:00". */
function when() {
  const time = hourOfWeek();
  return `week of ${$('week').value}${time === undefined ? '' : `, ${$('day').selectedOptions[0].textContent} ${$('hour').selectedOptions[0].textContent}`}`;
}

/** Black or white text, whichever contrasts more with a background colour. */
function textOn(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) ? '#000' : '#fff';
}

function legend() {
  const items = PALETTE.map((colour, i) => `<li style="background:${colour};color:${textOn(colour)}" title="band ${i + 1}">${i + 1}</li>`).join('');
  $('legend').innerHTML = `<h2>Safety band</h2><ol aria-label="Bands 1 (least safe) to 17 (safest)">${items}</ol>
    <div class="scale"><span>1 least safe</span><span>17 safest</span></div>
    <p class="note">Bands 1–17 are the safety score (0–100: a cell's rank in its city for the week, the chosen
    time and options) in 17 steps. Cells without data are left uncoloured. A cell's band is shown
    when you click it. Streets are drawn over the hexes; route corridors are coloured by tier.</p>
    <h2>Streets (zoom ${STREETS_MIN_ZOOM} and closer)</h2>
    <p class="note">Streets: expected incidents per km for the chosen options; colour ranks a street among the
    city's streets, in the bands above. They replace the hexes from zoom ${STREETS_MIN_ZOOM}. Counted from reported
    incidents only, with no count of people passing: a busy street is not riskier per walk for it.</p>
    <p class="note" id="streets-note"></p>`;
}

/** The hexes give way to the streets when these are drawn; the legend says what is shown. */
function showStreetState({ state, count, clipped }) {
  grid.setVisible(state !== 'shown');
  document.body.dataset.streetLayer = state;
  if (state === 'shown') document.body.dataset.streets = String(count);
  else delete document.body.dataset.streets;
  const name = cities[$('city').value]?.name ?? 'This city';
  $('streets-note').textContent = {
    'zoomed-out': `Zoom in to ${STREETS_MIN_ZOOM} or closer to see each street's risk.`,
    pending: 'Street risk comes with the city\'s street network, which is not in yet.',
    'no-streets': `${name} has no street data (it routes over a hex lattice): hexes are shown at every zoom.`,
    loading: 'Loading the streets in view…',
    empty: 'No streets with risk data in view: hexes are shown.',
    shown: `${count} streets drawn; zoom out below ${STREETS_MIN_ZOOM} for the hexes.${clipped
      ? ' The view is too large to ask for at once: streets are drawn for its middle only.' : ''}`,
  }[state];
}

// ---- the URL ------------------------------------------------------------------------------------
let restoring = true;
function saveState() {
  if (restoring) return;
  const all = activeCodes().length === document.querySelectorAll('input[name=class]').length;
  const middle = map.getCenter();
  const state = {
    city: $('city').value,
    view: { lat: middle.lat, lng: middle.lng, zoom: map.getZoom() },
    intent: $('intent').value,
    classes: all ? undefined : activeCodes(),
    week: $('week').value,
    day: $('day').value === '' ? undefined : $('day').value,
    hour: $('day').value === '' ? undefined : $('hour').value,
    opacity: $('opacity').value,
    click: clickMode(),
    method: $('method').value,
    from: routeEnds[0], to: routeEnds[1],
    route: routes.answer ? routes.selected : undefined,
    reach: reachFrom ?? undefined,
    minutes: $('minutes').value,
    mode: $('mode').value,
  };
  history.replaceState(null, '', `${location.pathname}${location.search}#${writeState(state)}`);
}

/** Sets the controls a restored state names (before the city loads). */
function applyControls(state) {
  const choose = (id, value) => { if (value !== undefined && [...$(id).options].some((o) => o.value === String(value))) $(id).value = String(value); };
  choose('city', state.city);
  choose('intent', state.intent);
  choose('method', state.method);
  choose('mode', state.mode);
  if (state.day !== undefined) { $('day').value = String(state.day); $('hour').disabled = false; choose('hour', state.hour ?? 0); }
  if (state.classes) for (const box of document.querySelectorAll('input[name=class]')) box.checked = state.classes.includes(box.value);
  if (state.opacity !== undefined) $('opacity').value = String(state.opacity);
  if (state.minutes !== undefined) $('minutes').value = String(state.minutes);
  const mode = document.querySelector(`input[name=click-mode][value="${state.click}"]`);
  if (mode) mode.checked = true;
}

// ---- drawing ------------------------------------------------------------------------------------
async function drawHexes() {
  const code = $('city').value;
  const city = cities[code];
  const started = performance.now();
  const { west, south, east, north } = city.bounds;
  const { ids, bands } = await source().gridBands({ west, south, east, north }, queryOptions());
  const scored = performance.now();
  const created = grid.size === 0;
  grid.colour(ids, bands);
  const styled = performance.now();
  await nextFrame();
  const now = performance.now();
  if (timings.firstGridMs === null) {
    performance.mark('hexrisk:first-scores', { startTime: scored });
    performance.mark('hexrisk:first-styled', { startTime: styled });
    timings.firstGridMs = now;
  } else {
    timings.recolours.push({
      city: code, source: source().name, cells: ids.length, created,
      ms: now - started, scoresMs: scored - started, styleMs: styled - scored, frameMs: now - styled,
    });
  }
  document.body.dataset.hexes = String(ids.length);
  document.body.dataset.drawnFrom = source().name;
  setStatus(`${city.name}: ${ids.length} cells, ${when()}.`);
}

async function showBreakdown(cell) {
  try {
    const b = await source().breakdown({ h3: cell, ...queryOptions() });
    const rows = b.crimeTypes.map((r) => `<tr><td>${r.name}</td><td>${r.expectedCount.toFixed(3)}</td><td>${(100 * r.share).toFixed(0)}%</td></tr>`).join('');
    $('breakdown').hidden = false;
    $('breakdown').innerHTML = `<h2>Cell ${cell}</h2>
      <p data-testid="safety">${b.hasData ? `Safety ${b.safetyScore.toFixed(1)} (band ${b.colorIndex + 1} of 17)` : 'No data: safety N/A'}</p>
      <table><thead><tr><th scope="col">Class</th><th scope="col">Expected</th><th scope="col">Share of harm</th></tr></thead><tbody>${rows}</tbody></table>`;
  } catch (err) { fail(err); }
}

/**
 * The streets around an answer's routes, from which the panel and the map show each
 * chosen route's riskiest blocks: asked for over the routes' bounding box (at most
 * 2 × 2 boxes of 0.05°; a longer route is not looked up). Never fails the route.
 */
async function routeStreets(answer) {
  if (answer.network !== 'roads') return;
  let [west, south, east, north] = [180, 90, -180, -90];
  for (const option of [answer.best, ...answer.alternatives]) {
    for (const [lng, lat] of option.geometry?.coordinates ?? []) {
      [west, south, east, north] = [Math.min(west, lng), Math.min(south, lat), Math.max(east, lng), Math.max(north, lat)];
    }
  }
  if (west > east) return;
  const margin = 1e-4; // about 10 m: points on the box's edge are in it
  const { boxes, clipped } = streetBoxes({ west: west - margin, south: south - margin, east: east + margin, north: north + margin });
  if (clipped) {
    routes.setStreets(answer, null, 'This route spans too large an area for its riskiest blocks to be looked up.');
    return;
  }
  try {
    const answers = await Promise.all(boxes.map((box) => source().streets(box, queryOptions())));
    routes.setStreets(answer, uniqueStreets(answers));
  } catch (err) {
    routes.setStreets(answer, null, `The riskiest blocks could not be found (${err.code ?? 'ERROR'}: ${err.message}).`);
  }
}

/** The count of routes asked: only the answer to the latest is shown. */
let routesAsked = 0;
/** Plans the route between `routeEnds`; `fit` moves the map to it, `selected` picks a route. */
async function route({ fit = true, selected } = {}) {
  if (routeEnds.length < 2) return;
  const mine = ++routesAsked;
  const ends = routeEnds;
  const code = $('city').value;
  // An answer on its way when the ends are cleared or changed, another city opened or
  // another route asked, is dropped: it would bring back what the user took away.
  const current = () => mine === routesAsked && routeEnds === ends && $('city').value === code;
  const started = performance.now();
  const [a, b] = routeEnds;
  const method = $('method').value;
  const time = hourOfWeek();
  const body = {
    origin: a, destination: b, method, intent: $('intent').value, activeCodes: activeCodes(),
    modifiers: { week: $('week').value }, departAt: time,
    ...(method === 'tradeoff' ? {} : { alternatives: 2 }),
  };
  setStatus('Finding the route…');
  try {
    if (source() === engines.offline) await loadNetwork(code);
    if (!current()) return;
    const answer = await source().route(body);
    if (!current()) return;
    routes.show(answer, { selected, fit });
    await nameEnds(answer);
    timings.routes.push({ city: $('city').value, source: source().name, method, ms: performance.now() - started });
    await routeStreets(answer);
    if (!current()) return;
    document.body.dataset.blocks = String(routes.answer === answer ? routes.blocks(routes.selected).length : 0);
    setStatus(`${cities[$('city').value].name}: ${routes.routes.length} route${routes.routes.length > 1 ? 's' : ''}, ${when()}.`);
    saveState();
  } catch (err) { if (current()) fail(err); }
}

/** Names the route's ends by their nearest intersection or street ("near A & B"), here and in the search boxes. */
async function nameEnds(answer) {
  const ends = $('route-ends');
  ends.hidden = true;
  const label = async ({ lat, lng }) => (await source().reverse({ lat, lng })).label;
  const [from, to] = await Promise.all([label(answer.origin), label(answer.destination)]).catch(() => [null, null]);
  if (routes.answer !== answer || !from || !to) return;
  ends.textContent = `From ${from} to ${to}`;
  ends.hidden = false;
  finders[0].name(from);
  finders[1].name(to);
}

// ---- place search: the From and To boxes ------------------------------------------------------
/** Places by name in the city shown, nearest the map's centre first among equals. */
async function findPlaces(q) {
  const code = $('city').value;
  if (source() === engines.offline) await loadNetwork(code);
  const { lat, lng } = map.getCenter();
  return source().search({ q, city: code, lat, lng, limit: 6 });
}

/** A place chosen in the From (0) or To (1) box becomes that end of the route. */
function chooseEnd(place, which) {
  const point = { lat: place.lat, lng: place.lng };
  map.setView([point.lat, point.lng], Math.max(map.getZoom(), 15), { animate: false });
  if (which === 0 && routeEnds.length === 2) {
    routeEnds = [point, routeEnds[1]];
    route().catch(fail);
  } else if (which === 1 && routeEnds.length === 0) {
    setStatus(`${place.name}: now choose where from.`);
    pendingDestination = point;
  } else {
    setRouteEnd(point, which);
    if (which === 0 && pendingDestination) setRouteEnd(pendingDestination, 1);
  }
  if (which === 1 || pendingDestination) foldControls();
  if (routeEnds.length === 2) pendingDestination = null;
}
/** A destination chosen before any origin, routed to once there is one. */
let pendingDestination = null;
/** No route ends, chosen or typed. */
function clearEnds() {
  routeEnds = [];
  pendingDestination = null;
  for (const finder of finders) finder.clear();
}
const finders = ['origin', 'destination'].map((end, which) => placeSearch({
  input: $(`${end}-search`),
  list: $(`${end}-places`),
  count: $('places-count'),
  search: findPlaces,
  onChoose: (place) => chooseEnd(place, which),
  onError: (err) => setStatus(`Place search failed (${err.code ?? 'ERROR'}: ${err.message}).`, true),
}));

// ---- the phone layout: the controls fold into a panel over the map ------------------------------
const narrow = window.matchMedia('(max-width: 800px)');
function foldControls() {
  if (!narrow.matches || !document.body.classList.contains('controls-open')) return;
  document.body.classList.remove('controls-open');
  $('controls-toggle').setAttribute('aria-expanded', 'false');
}
$('controls-toggle').addEventListener('click', () => {
  const open = document.body.classList.toggle('controls-open');
  $('controls-toggle').setAttribute('aria-expanded', String(open));
  if (open) $('origin-search').focus();
});
$('controls').addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || !narrow.matches || !document.body.classList.contains('controls-open')) return;
  foldControls();
  $('controls-toggle').focus();
});

/** The safe reach from `reachFrom`. */
async function reach({ fit = true } = {}) {
  if (!reachFrom) return;
  const started = performance.now();
  const time = hourOfWeek();
  const body = {
    origin: reachFrom, minutes: Number($('minutes').value), mode: $('mode').value,
    intent: $('intent').value, activeCodes: activeCodes(), modifiers: { week: $('week').value, ...(time === undefined ? {} : { time }) },
  };
  try {
    const code = $('city').value;
    if (source() === engines.offline) await loadNetwork(code);
    if ($('city').value !== code) return; // another city was opened meanwhile
    const answer = await source().reach(body);
    reachView.show(answer, { fit });
    setStatus(`${cities[$('city').value].name}: ${answer.cellCount} cells within ${answer.minutes} min ${answer.mode}, ${when()}.`);
    timings.reaches.push({ city: $('city').value, source: source().name, minutes: body.minutes, ms: performance.now() - started });
    saveState();
  } catch (err) { reachView.clear(); fail(err); }
}

async function drawPrecincts() {
  precincts.clearLayers();
  if (!$('precincts').checked) { map.removeLayer(precincts); return; }
  const { intent, week, time } = queryOptions();
  const geojson = await source().precincts({ intent, week, time });
  const code = $('city').value;
  L.geoJSON({ ...geojson, features: geojson.features.filter((f) => f.properties.city === code) }, {
    pane: 'precincts',
    style: { color: '#12233a', weight: 2, fill: false, className: 'precinct' },
    onEachFeature: (f, layer) => layer.bindTooltip(`${f.properties.name} · ${f.properties.safetyScore?.toFixed(0) ?? 'N/A'}`, {
      permanent: true, direction: 'center', className: 'precinct-label', pane: 'avoided',
    }),
  }).addTo(precincts);
  precincts.addTo(map);
}

/**
 * Adds a city to the grid engine from its grid file (no road network) if the build
 * wrote one, else, or when the grid file cannot be had, from its full file. Resolves
 * to `{ entry, record }`.
 */
async function openCity(code) {
  // The page's first city was fetched and decoded while the page loaded (lib/boot.js).
  // It is taken once: opened() keeps what this resolves to, and calls again only
  // after a failure, which the first file's error leads past.
  const first = await firstCity;
  if (first?.entry.code === code) {
    if (!first.error) {
      artifactUrls.push(`/artifacts/${first.entry.grid?.file ?? first.entry.file}`);
      if (!first.entry.grid) fullFiles[code] = first.bytes;
      return { entry: first.entry, record: first.record };
    }
    console.warn(`${first.entry.code}: the first file did not open`, first.error);
  }
  const entry = (await fetchManifest()).cities.find((c) => c.code === code);
  if (!entry) throw Object.assign(new Error(`${code} is not in the manifest of published models`), { code: 'INVALID_ARTIFACT' });
  const add = async (file) => {
    const bytes = await fetchArtifact(`/artifacts/${file}`);
    performance.mark(`hexrisk:${code}-fetched`);
    const record = engine.addCity(bytes, entry.version);
    performance.mark(`hexrisk:${code}-decoded`);
    artifactUrls.push(`/artifacts/${file}`);
    if (file === entry.file) fullFiles[code] = bytes;
    return record;
  };
  if (entry.grid) {
    try {
      return { entry, record: await add(entry.grid.file) };
    } catch (err) {
      console.warn(`${entry.grid.file}: opening the full file instead`, err);
    }
  }
  return { entry, record: await add(entry.file) };
}

/** Each city's opening (see openCity), once: a failed one is tried again. */
function opened(code) {
  opening[code] ??= openCity(code).then((city) => {
    entries[code] = city.entry;
    versions.offline[code] = city.record.modelVersion;
    return city.record;
  }).catch((err) => { delete opening[code]; throw err; });
  return opening[code];
}

/**
 * Adds a city's full model file to the roads engine (loading that engine the first
 * time) once its grid is drawn: routes, reach, places and streets need its road
 * network. Once per city, after the city was opened; a failed load (offline, a file
 * never kept) is tried again by the next call.
 */
function loadNetwork(code) {
  networks[code] ??= opened(code)
    .then(() => Promise.all([roadsEngine(), fullFiles[code] ?? fetchArtifact(`/artifacts/${entries[code].file}`)]))
    .then(([roads, bytes]) => {
      roads.addCity(bytes, entries[code].version);
      delete fullFiles[code];
      artifactUrls.push(`/artifacts/${entries[code].file}`);
      performance.mark(`hexrisk:${code}-network`);
    })
    .catch((err) => { delete networks[code]; throw err; });
  return networks[code];
}

let loads = 0;
async function loadCity(code, { view } = {}) {
  const load = ++loads; // a later loadCity supersedes this one
  const city = cities[code] ??= await opened(code);
  if (load !== loads) return;
  showFreshness();
  const range = engine.predictionRange(code, CLOCK);
  $('week').min = range.start;
  $('week').max = range.end;
  const wanted = restoring ? restored.week : undefined;
  $('week').value = wanted && wanted >= range.start && wanted <= range.end ? wanted
    : range.currentWeek && range.currentWeek >= range.start && range.currentWeek <= range.end ? range.currentWeek : city.lastWeek;
  streets.clearLayers();
  streetLayer.clear();
  grid.clear();
  streetLayer.set(hasStreets[code] === false ? 'no-streets' : 'pending');
  routes.clear();
  reachView.clear();
  clearEnds();
  reachFrom = null;
  $('breakdown').hidden = true;
  const { west, south, east, north } = city.bounds;
  if (view) map.setView([view.lat, view.lng], view.zoom);
  else map.fitBounds([[south, west], [north, east]]);
  await drawHexes();
  await drawPrecincts();
  // The road network comes after the grid: the grid is what people wait for. Without
  // it the grid stays; routes and reach say why they cannot run.
  try {
    await loadNetwork(code);
  } catch (err) {
    if (load === loads) setStatus(`${city.name}: the grid is drawn, but routes, reach and streets need the city's full model file (${err.message}).`, true);
    return;
  }
  if (load !== loads) return;
  const lines = (await roadsEngine()).streets(code);
  if (lines) L.geoJSON(lines, { pane: 'streets', renderer: streetsRenderer, style: { color: '#2b2b2b', weight: 0.7, opacity: 0.55, interactive: false } }).addTo(streets);
  // The streets coloured by risk, from zoom 15, for a city with streets.
  hasStreets[code] = Boolean(lines);
  await streetLayer.update({ force: true });
}

// ---- events -----------------------------------------------------------------------------------
/** What a click does at `point`, by the chosen mode: a breakdown, a route end, or the reach. */
function actAt(point) {
  const mode = clickMode();
  if (mode === 'inspect') {
    const cell = cellAt(point.lat, point.lng);
    if (grid.has(cell)) showBreakdown(cell);
    else setStatus('That point is outside the city grid.');
  } else if (mode === 'route') {
    setRouteEnd(point);
  } else {
    reachFrom = point;
    reach({ fit: false }).catch(fail);
  }
}

map.on('click', (event) => actAt({ lat: event.latlng.lat, lng: event.latlng.lng }));
// Keyboard users pan with the arrows and press Enter: a click at the crosshair.
map.getContainer().addEventListener('keydown', (event) => {
  if (event.key !== 'Enter' || event.target !== map.getContainer()) return;
  event.preventDefault();
  actAt(centre());
});

function setRouteEnd(point, which) {
  if (which === 0 || (which === undefined && routeEnds.length !== 1)) {
    routeEnds = [point];
    routes.clear();
    setStatus('Origin set: now the destination.');
    saveState();
  } else {
    routeEnds = [routeEnds[0] ?? point, point];
    route().catch(fail);
  }
}

$('origin-here').addEventListener('click', () => setRouteEnd(centre(), 0));

/** The manifest's entry of the city whose bounds hold `point`, the selected one first. */
async function cityHolding({ lat, lng }) {
  const listed = (await fetchManifest()).cities;
  const ordered = [...listed.filter((c) => c.code === $('city').value), ...listed.filter((c) => c.code !== $('city').value)];
  const holding = ordered.find(({ bounds: { west, south, east, north } }) => lng >= west && lng <= east && lat >= south && lat <= north);
  return { holding, names: listed.map((c) => c.name) };
}

// "From my location": the device's position as the origin, with a clear message when
// the browser refuses it or it is outside the covered cities.
$('origin-location').addEventListener('click', () => {
  if (!navigator.geolocation) { setStatus('This browser cannot tell where you are: set the origin on the map.', true); return; }
  setStatus('Finding where you are…');
  navigator.geolocation.getCurrentPosition((position) => originAt(position).catch(fail), (error) => {
    setStatus(error.code === error.PERMISSION_DENIED
      ? 'Your location was refused: allow it in the browser\'s site settings, or set the origin on the map.'
      : `Your location is not available (${error.message || 'no position'}): set the origin on the map.`, true);
  }, { enableHighAccuracy: true, timeout: 15000, maximumAge: 60000 });
});

/** The origin at a position the browser gave, if it is in the city shown. */
async function originAt(position) {
  const point = { lat: position.coords.latitude, lng: position.coords.longitude };
  const { holding, names } = await cityHolding(point);
  if (!holding) {
    setStatus(`You are outside the covered cities (${names.join(', ')}): set the origin on the map.`, true);
  } else if (holding.code !== $('city').value) {
    setStatus(`You are in ${holding.name}: choose it under City, then press From my location again.`, true);
  } else {
    map.setView([point.lat, point.lng], Math.max(map.getZoom(), 15), { animate: false });
    setRouteEnd(point, 0);
    setStatus(`Origin set at your location (within ${Math.round(position.coords.accuracy)} m): now the destination.`);
  }
}

$('destination-here').addEventListener('click', () => {
  if (routeEnds.length === 0) { setStatus('Set the origin first.', true); return; }
  setRouteEnd(centre(), 1);
});
$('reach-here').addEventListener('click', () => { reachFrom = centre(); reach().catch(fail); });
$('clear-route').addEventListener('click', () => { routes.clear(); clearEnds(); setStatus('Route cleared: choose the origin.'); saveState(); });
$('clear-reach').addEventListener('click', () => { reachView.clear(); reachFrom = null; saveState(); });
$('share').addEventListener('click', async () => {
  saveState();
  try { await navigator.clipboard.writeText(location.href); setStatus('Link copied: it reopens this map.'); }
  catch { setStatus(`Link to this map: ${location.href}`); }
});
$('route-list').addEventListener('change', (event) => routes.select(Number(event.target.value)));
$('tradeoff-slider').addEventListener('input', (event) => routes.select(Number(event.target.value)));

/** Everything the scoring options change: the grid, the streets, the precincts, the route and the reach. */
const recolour = () => drawHexes()
  .then(() => streetLayer.update({ force: true }))
  .then(drawPrecincts)
  .then(() => route({ fit: false, selected: undefined }))
  .then(() => reach({ fit: false }))
  .then(saveState)
  .catch(fail);
$('city').addEventListener('change', () => loadCity($('city').value).then(saveState).catch(fail));
for (const id of ['intent', 'week', 'hour']) $(id).addEventListener('change', recolour);
$('source').addEventListener('change', () => { showFreshness(); recolour(); });
$('day').addEventListener('change', () => { $('hour').disabled = $('day').value === ''; recolour(); });
$('classes').addEventListener('change', recolour);
$('method').addEventListener('change', () => route({ fit: false }).then(saveState).catch(fail));
$('mode').addEventListener('change', () => reach({ fit: false }).catch(fail));
$('minutes').addEventListener('change', () => reach({ fit: false }).catch(fail));
$('precincts').addEventListener('change', () => drawPrecincts().catch(fail));
$('opacity').addEventListener('input', () => {
  grid.setOpacity(Number($('opacity').value) / 100);
  $('opacity-value').textContent = `${$('opacity').value} %`;
  saveState();
});
for (const radio of document.querySelectorAll('input[name=click-mode]')) radio.addEventListener('change', saveState);
map.on('moveend', saveState);
// From zoom 15 the streets in view, below it the hexes.
map.on('moveend', () => streetLayer.update().catch(fail));
// Precinct names would overlap below zoom 11.
const markZoom = () => map.getContainer().classList.toggle('zoom-low', map.getZoom() < 11);
map.on('zoomend', markZoom);

/** For tests: route between two points, reach from one, the bands drawn, the map. */
window.hexrisk = {
  route: async (a, b, options = {}) => { routeEnds = [a, b]; await route(options); },
  reach: async (from, options = {}) => { reachFrom = from; await reach(options); },
  bands: () => grid.bands(),
  centreOf: (cell) => Array.from(cellCentre(cell)),
  cellAt,
  answer: () => routes.answer,
  streets: () => streetLayer.drawn(),
  blocks: () => (routes.answer ? routes.blocks(routes.selected) : []),
  map,
  palette: PALETTE,
};

// ---- start ------------------------------------------------------------------------------------
$('engine-version').textContent = `hexrisk-engine ${version()}`;
legend();
applyControls(restored);
grid.setOpacity(Number($('opacity').value) / 100);
$('opacity-value').textContent = `${$('opacity').value} %`;
try {
  await loadCity($('city').value, { view: restored.view });
  if (restored.from && restored.to) { routeEnds = [restored.from, restored.to]; await route({ fit: !restored.view, selected: restored.route }); }
  else if (restored.from) routeEnds = [restored.from];
  if (restored.reach) { reachFrom = restored.reach; await reach({ fit: false }); }
} catch (err) { fail(err); }
markZoom();
restoring = false;
saveState();
document.body.dataset.ready = 'true';
// The service worker comes after the first map: it is for the next visit.
registerServiceWorker(params.get('sw') !== '0', () => ['/artifacts/manifest.json', ...artifactUrls])
  .then((active) => { document.body.dataset.offlineReady = String(active); })
  .catch((err) => { document.body.dataset.offlineReady = 'false'; console.warn('service worker', err); });
