// hexrisk demo: the wasm engine in the page, no network beyond this origin.
import init, { cellAt, cellBoundary, cellCentre, gridDisk, version } from '/pkg/dist/web/hexrisk_engine.js';

// Map frames: the area shown for each city (degrees).
const FRAMES = {
  city_ca_tor: { south: 43.58, north: 43.86, west: -79.64, east: -79.11, start: [43.6532, -79.3832] },
  city_us_sfo: { south: 37.70, north: 37.84, west: -122.52, east: -122.35, start: [37.7749, -122.4194] },
  city_us_hou: { south: 29.52, north: 30.12, west: -95.80, east: -95.01, start: [29.7604, -95.3698] },
};
const SVG_NS = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

// Equirectangular projection scaled by cos(latitude) so hexagons keep their shape.
function projection(frame) {
  const kx = Math.cos(((frame.south + frame.north) / 2) * (Math.PI / 180));
  const width = (frame.east - frame.west) * kx;
  const height = frame.north - frame.south;
  return {
    viewBox: `0 0 ${width} ${height}`,
    toXY: (lat, lng) => [(lng - frame.west) * kx, frame.north - lat],
    toLatLng: (x, y) => [frame.north - y, frame.west + x / kx],
  };
}

let proj;

function showMap(city) {
  const frame = FRAMES[city];
  proj = projection(frame);
  $('map').setAttribute('viewBox', proj.viewBox);
  [$('lat').value, $('lng').value] = frame.start;
}

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
}

function drawRing(cells) {
  const map = $('map');
  map.replaceChildren();
  cells.forEach((cell, i) => {
    const flat = cellBoundary(cell);
    const points = [];
    for (let j = 0; j < flat.length; j += 2) points.push(proj.toXY(flat[j], flat[j + 1]).join(','));
    const polygon = document.createElementNS(SVG_NS, 'polygon');
    polygon.setAttribute('points', points.join(' '));
    polygon.setAttribute('class', i === 0 ? 'ring centre' : 'ring');
    polygon.dataset.cell = cell;
    map.append(polygon);
  });
}

function lookUp() {
  const lat = Number.parseFloat($('lat').value);
  const lng = Number.parseFloat($('lng').value);
  const k = Number.parseInt($('ring').value, 10);
  try {
    const cell = cellAt(lat, lng);
    const cells = gridDisk(cell, k);
    const [cLat, cLng] = cellCentre(cell);
    $('cell-id').textContent = cell;
    $('cell-centre').textContent = `${cLat.toFixed(6)}, ${cLng.toFixed(6)}`;
    $('ring-count').textContent = String(cells.length);
    drawRing(cells);
    setStatus(`Ring ${k} around ${cell}.`);
  } catch (err) {
    setStatus(`${err.code ?? 'ERROR'}: ${err.message}`, true);
  }
}

await init();
$('engine-version').textContent = `hexrisk-engine ${version()}`;
showMap($('city').value);
$('city').addEventListener('change', () => { showMap($('city').value); lookUp(); });
$('lookup').addEventListener('submit', (event) => { event.preventDefault(); lookUp(); });
$('map').addEventListener('click', (event) => {
  const point = new DOMPoint(event.clientX, event.clientY).matrixTransform($('map').getScreenCTM().inverse());
  const [lat, lng] = proj.toLatLng(point.x, point.y);
  $('lat').value = lat.toFixed(6);
  $('lng').value = lng.toFixed(6);
  lookUp();
});
lookUp();
document.body.dataset.ready = 'true';
