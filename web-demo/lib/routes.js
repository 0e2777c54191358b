// A route answer on the map and in the panel: every route of the answer drawn and
// selectable (click a line, or the list's radio buttons by keyboard), the chosen one
// bold over its corridor tiers, the trade-off set as a slider from shortest to
// safest, and why the chosen route: what it avoids against the shortest route (the
// riskiest avoided cells outlined on the map, the streets avoided listed), and the
// riskiest blocks of the chosen route itself, highlighted under its line; and its
// directions, each step a button that draws its stretch when focused or pressed.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { escapeHtml as escape, riskiestBlocks, significant } from './streets.js';

const km = (m) => `${(m / 1000).toFixed(2)} km`;
const minutes = (s) => `${Math.round(s / 60)} min`;
const signed = (value, unit, digits = 0) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(digits)} ${unit}`;
const latLngs = (geometry) => geometry.coordinates.map(([lng, lat]) => [lat, lng]);
const streetName = (name) => (name ? escape(name) : 'unnamed street');
const metres = (m) => `${Math.round(m).toLocaleString('en')} m`;
const perKm = (value) => `${significant(value)} expected incidents per km`;
/** The riskiest blocks' band on the map (apart from the palette's reds and greens). */
const BLOCK_COLOUR = '#c2006a';

/**
 * The routes of an answer in the order people compare them: for the trade-off set,
 * shortest to safest (the set's own order); otherwise the best route, then its
 * alternatives. Each with a name and whether it is the answer's `best`.
 */
export function orderedRoutes(answer) {
  if (answer.tradeoff) {
    const last = answer.tradeoff.routes.length - 1;
    return answer.tradeoff.routes.map((step, i) => {
      const option = step.route === '/best' ? answer.best : answer.alternatives[Number(step.route.split('/')[2])];
      const name = i === 0 ? 'Shortest' : i === last ? 'Safest' : `Step ${i}`;
      return { option, name, step, isBest: step.route === '/best' };
    });
  }
  return [answer.best, ...answer.alternatives].map((option, i) => ({
    option, name: i === 0 ? `Best (${answer.method})` : `Alternative ${i}`, step: null, isBest: i === 0,
  }));
}

export class RouteView {
  /**
   * `panes`: pane names for the corridor, the lines and the avoided cells;
   * `ring(cell)`: a cell's boundary; `tierColour(tier)`; `className(code)`: a crime
   * class's name; `onSelect(index)`: called when the user picks another route.
   */
  constructor(map, { panes, ring, tierColour, className, onSelect }) {
    Object.assign(this, { map, panes, ring, tierColour, className, onSelect });
    this.layer = L.layerGroup().addTo(map);
    // The focused step's stretch, drawn over the chosen route.
    this.stepLayer = L.layerGroup().addTo(map);
    this.canvas = L.canvas({ pane: panes.corridor, padding: 0.3 });
    this.routes = [];
    this.selected = 0;
    this.answer = null;
    this.resetStreets();
  }

  clear() {
    this.layer.clearLayers();
    this.stepLayer.clearLayers();
    this.routes = [];
    this.answer = null;
    this.resetStreets();
    for (const id of ['routes', 'why', 'directions']) document.getElementById(id).hidden = true;
    document.getElementById('metrics').hidden = true;
    delete document.body.dataset.route;
  }

  /** Shows an answer, choosing route `selected` (default: the answer's best); `fit` moves the map to it. */
  show(answer, { selected, fit }) {
    this.answer = answer;
    this.resetStreets();
    this.routes = orderedRoutes(answer);
    const best = this.routes.findIndex((r) => r.isBest);
    this.selected = selected !== undefined && selected < this.routes.length ? selected : best;
    this.renderList();
    this.select(this.selected, { notify: false });
    if (fit) this.fit();
    document.body.dataset.route = 'shown';
  }

  /** Fits the map to every route of the answer (or its corridors, without geometry). */
  fit() {
    const bounds = L.latLngBounds([]);
    for (const { option } of this.routes) {
      if (option.geometry) bounds.extend(L.latLngBounds(latLngs(option.geometry)));
      else for (const cell of option.hexPath) bounds.extend(L.latLngBounds(this.ring(cell)));
    }
    if (bounds.isValid()) this.map.fitBounds(bounds, { padding: [32, 32], maxZoom: 16, animate: false });
  }

  /**
   * The streets around `answer`'s routes (rows of `streetsInBox`), from which each
   * chosen route's riskiest blocks are found; `null` with `note` saying why there are
   * none (or with no note while they are being fetched). Redraws the chosen route.
   */
  setStreets(answer, streets, note = '') {
    if (answer !== this.answer || !answer) return;
    this.resetStreets(streets, note);
    this.select(this.selected, { notify: false });
  }

  resetStreets(streets = null, note = '') {
    this.streets = streets;
    this.streetsNote = note;
    this.blocksOf = new Map();
  }

  /** The riskiest blocks of route `index` ([] until the streets are in). */
  blocks(index) {
    const { option } = this.routes[index];
    if (!this.streets || !option.geometry) return [];
    if (!this.blocksOf.has(index)) this.blocksOf.set(index, riskiestBlocks(option.geometry.coordinates, this.streets));
    return this.blocksOf.get(index);
  }

  /** Makes route `index` the chosen one: drawn bold over its corridor, its figures shown. */
  select(index, { notify = true } = {}) {
    this.selected = index;
    this.draw();
    this.renderMetrics();
    this.renderWhy();
    this.renderSteps();
    const radio = document.querySelector(`#route-list input[value="${index}"]`);
    if (radio) radio.checked = true;
    const slider = document.getElementById('tradeoff-slider');
    if (this.answer.tradeoff) {
      slider.value = String(index);
      slider.setAttribute('aria-valuetext', this.stepText(index));
      document.getElementById('tradeoff-step').textContent = this.stepText(index);
    }
    document.body.dataset.selectedRoute = String(index);
    if (notify) this.onSelect(index);
  }

  draw() {
    this.layer.clearLayers();
    const chosen = this.routes[this.selected].option;
    for (const cell of chosen.hexPathWithTiers) {
      L.polygon(this.ring(cell.h3), {
        renderer: this.canvas, pane: this.panes.corridor, weight: 1.5, color: '#1b1b1b', opacity: 0.7,
        fillColor: cell.tier === null ? '#9e9e9e' : this.tierColour(cell.tier), fillOpacity: 0.85, interactive: false,
      }).addTo(this.layer);
    }
    this.routes.forEach(({ option, name }, i) => {
      if (!option.geometry || i === this.selected) return;
      const line = latLngs(option.geometry);
      L.polyline(line, { pane: this.panes.lines, color: '#ffffff', weight: 7, opacity: 0.9, interactive: false }).addTo(this.layer);
      L.polyline(line, { pane: this.panes.lines, color: '#5b3a8c', weight: 4, dashArray: '8 6', className: 'alternative' })
        .bindTooltip(`${name}: ${km(option.metrics.distanceM)}, ${minutes(option.metrics.durationS)} (click to choose)`)
        .on('click', (event) => { L.DomEvent.stopPropagation(event); this.select(i); })
        .addTo(this.layer);
    });
    // The chosen route's riskiest blocks: a wide magenta band under its line, numbered
    // as in the panel.
    this.blocks(this.selected).forEach((block, rank) => {
      const band = L.polyline(block.runs, {
        pane: this.panes.lines, color: BLOCK_COLOUR, weight: 18, opacity: 0.85, className: 'riskiest-block',
      }).bindTooltip(`Riskiest block ${rank + 1}: ${streetName(block.name)}, ${perKm(block.incidentsPerKm)}`).addTo(this.layer);
      band.getElement()?.setAttribute('data-street', String(block.id));
      const longest = block.runs.reduce((a, b) => (b.length > a.length ? b : a));
      L.tooltip({ permanent: true, direction: 'center', className: 'block-label', pane: this.panes.avoided, interactive: false })
        .setLatLng(longest[Math.floor((longest.length - 1) / 2)]).setContent(String(rank + 1)).addTo(this.layer);
    });
    if (chosen.geometry) {
      const line = latLngs(chosen.geometry);
      L.polyline(line, { pane: this.panes.lines, color: '#ffffff', weight: 10, opacity: 0.95, interactive: false }).addTo(this.layer);
      L.polyline(line, { pane: this.panes.lines, color: '#0050b3', weight: 6, className: 'best-route', interactive: false }).addTo(this.layer);
    }
    for (const cell of chosen.explanation.avoidedCells) {
      L.polygon(this.ring(cell.h3), {
        pane: this.panes.avoided, color: '#c8102e', weight: 3, dashArray: '4 3', fill: false, className: 'avoided',
      }).bindTooltip(`Avoided: safety ${cell.safetyScore.toFixed(1)}${cell.drivenBy ? `, mostly ${this.className(cell.drivenBy)}` : ''}`).addTo(this.layer);
    }
    const [a, b] = [this.answer.origin, this.answer.destination];
    L.circleMarker([a.lat, a.lng], { pane: this.panes.avoided, radius: 7, color: '#fff', weight: 2, fillColor: '#0a7d32', fillOpacity: 1, className: 'route-origin' }).bindTooltip('Origin').addTo(this.layer);
    L.circleMarker([b.lat, b.lng], { pane: this.panes.avoided, radius: 7, color: '#fff', weight: 2, fillColor: '#c8102e', fillOpacity: 1, className: 'route-destination' }).bindTooltip('Destination').addTo(this.layer);
  }

  /** "+320 m, +4 min, avoids 0.31 expected incidents (12 %)" for step `index` against the shortest route. */
  stepText(index) {
    const { option, name } = this.routes[index];
    const e = option.explanation;
    if (index === 0) return `${name}: ${km(option.metrics.distanceM)}, ${minutes(option.metrics.durationS)}, exposure ${option.metrics.exposure.toFixed(2)} expected incidents`;
    const pct = e.exposureAvoidedPct === null ? '' : ` (${e.exposureAvoidedPct.toFixed(0)} %)`;
    return `${name}: ${signed(e.extraM, 'm')}, ${signed(e.extraMinutes, 'min', 1)}, avoids ${e.exposureAvoided.toFixed(2)} expected incidents${pct}`;
  }

  renderList() {
    const section = document.getElementById('routes');
    section.hidden = false;
    const tradeoff = Boolean(this.answer.tradeoff);
    document.getElementById('tradeoff').hidden = !tradeoff;
    const slider = document.getElementById('tradeoff-slider');
    slider.max = String(Math.max(0, this.routes.length - 1));
    slider.disabled = this.routes.length < 2;
    document.getElementById('route-list').innerHTML = this.routes.map(({ option, name }, i) => {
      const m = option.metrics;
      return `<label class="route-choice"><input type="radio" name="route" value="${i}">
        <span><strong>${escape(name)}</strong> ${km(m.distanceM)} · ${minutes(m.durationS)} ·
        exposure ${m.exposure.toFixed(2)} · detour ${m.detourPct.toFixed(1)} %</span></label>`;
    }).join('');
  }

  renderMetrics() {
    const { option } = this.routes[this.selected];
    const m = option.metrics;
    const answer = this.answer;
    const section = document.getElementById('metrics');
    section.hidden = false;
    section.innerHTML = `<h2>Chosen route (${answer.method}, ${answer.network})</h2><table>
      <tr><th scope="row">Distance</th><td data-testid="distance">${km(m.distanceM)}</td></tr>
      <tr><th scope="row">Duration (${m.mode})</th><td data-testid="duration">${minutes(m.durationS)}</td></tr>
      <tr><th scope="row">Detour</th><td data-testid="detour">${m.detourPct.toFixed(1)}%</td></tr>
      <tr><th scope="row">Exposure</th><td data-testid="exposure">${m.exposure.toFixed(3)} expected incidents</td></tr>
      <tr><th scope="row">Worst safety</th><td data-testid="worst">${m.worstSafety?.toFixed(1) ?? 'N/A'}</td></tr>
      <tr><th scope="row">Mean safety</th><td data-testid="mean">${m.meanSafety?.toFixed(1) ?? 'N/A'}</td></tr>
      <tr><th scope="row">Cells</th><td data-testid="cells">${m.cellCount}</td></tr>
      <tr><th scope="row">Routes in answer</th><td data-testid="routes">${this.routes.length}</td></tr>
      ${answer.departAt ? `<tr><th scope="row">Scored at</th><td data-testid="bands">${answer.departAt.bands.map((b) => b.timeWindow).join(' → ')}</td></tr>` : ''}</table>`;
  }

  /** The chosen route's steps, each a button that shows its stretch when focused or pressed. */
  renderSteps() {
    const { option } = this.routes[this.selected];
    const section = document.getElementById('directions');
    const steps = option.steps ?? [];
    this.stepLayer.clearLayers();
    delete document.body.dataset.step;
    section.hidden = steps.length === 0;
    const list = document.getElementById('steps');
    list.innerHTML = steps.map((step, i) => {
      const length = step.type === 'arrive' ? '' : ` · ${metres(step.distanceM)}`;
      const risky = i === option.riskiestStep ? ' · <strong>most expected incidents of the route</strong>' : '';
      return `<li><button type="button" class="step" data-step="${i}">${escape(step.instruction)}${length}${risky}</button></li>`;
    }).join('');
    for (const button of list.querySelectorAll('button.step')) {
      const show = () => this.showStep(Number(button.dataset.step));
      button.addEventListener('focus', show);
      button.addEventListener('click', show);
    }
  }

  /** Draws step `index` of the chosen route over its line and brings it into view. */
  showStep(index) {
    const { option } = this.routes[this.selected];
    const step = option.steps[index];
    this.stepLayer.clearLayers();
    if (!step || !option.geometry) return;
    const [from, to] = step.coordinates;
    const stretch = latLngs({ coordinates: option.geometry.coordinates.slice(from, to + 1) });
    if (stretch.length > 1) {
      L.polyline(stretch, { pane: this.panes.lines, color: '#ffb000', weight: 12, opacity: 0.9, className: 'step-highlight', interactive: false })
        .addTo(this.stepLayer);
      this.map.fitBounds(L.latLngBounds(stretch), { padding: [48, 48], maxZoom: 17, animate: false });
    } else {
      L.circleMarker(stretch[0], { pane: this.panes.avoided, radius: 10, color: '#ffb000', weight: 4, fill: false, className: 'step-highlight' })
        .addTo(this.stepLayer);
      this.map.setView(stretch[0], Math.max(this.map.getZoom(), 16), { animate: false });
    }
    document.body.dataset.step = String(index);
  }

  renderWhy() {
    const e = this.routes[this.selected].option.explanation;
    const section = document.getElementById('why');
    section.hidden = false;
    const shortest = `the shortest route (${km(e.shortest.distanceM)}, exposure ${e.shortest.exposure.toFixed(2)} expected incidents)`;
    const summary = e.exposureAvoided > 0
      ? `Against ${shortest}, this route avoids <strong data-testid="exposure-avoided">${e.exposureAvoided.toFixed(2)} expected incidents
         (${e.exposureAvoidedPct?.toFixed(1) ?? '–'} %)</strong> for <strong data-testid="extra">${signed(e.extraM, 'm')},
         ${signed(e.extraMinutes, 'min', 1)}</strong>${e.metresPerExposureAvoided === null ? '' : `: ${e.metresPerExposureAvoided.toFixed(0)} m per expected incident avoided`}.`
      : `This is ${shortest} or as exposed as it: <span data-testid="exposure-avoided">nothing avoided</span>.`;
    const cells = e.avoidedCells.map((c) => `<li class="avoided-cell" data-cell="${c.h3}">Safety ${c.safetyScore.toFixed(1)}${
      c.drivenBy ? `, mostly ${escape(this.className(c.drivenBy))} (${(100 * c.drivenByShare).toFixed(0)} % of its harm)` : ''}</li>`).join('');
    const streets = (e.avoidedStreets ?? []).map((s) => `<li class="avoided-street" data-name="${escape(s.name ?? '')}">${streetName(s.name)}: ${metres(s.distanceM)}, ${perKm(s.incidentsPerKm)}</li>`).join('');
    const blocks = this.blocks(this.selected).map((b) => `<li class="riskiest-block" data-street="${b.id}">${streetName(b.name)}: ${metres(b.onRouteM)}, ${perKm(b.incidentsPerKm)}${
      b.basis === 'cell' ? ' (its cell\'s risk)' : ''}</li>`).join('');
    const blockNote = blocks
      ? `<p>Riskiest blocks of this route, most expected incidents per km first (numbered magenta bands on the map):</p><ol data-testid="riskiest-blocks">${blocks}</ol>`
      : this.streetsNote ? `<p class="note">${escape(this.streetsNote)}</p>` : '';
    section.innerHTML = `<h2>Why this route</h2><p>${summary}</p>
      ${cells ? `<p>Riskiest cells the shortest route crosses and this one avoids (outlined in red on the map):</p><ol>${cells}</ol>` : ''}
      ${streets ? `<p>Streets of the shortest route this one avoids, most expected incidents first:</p><ol data-testid="avoided-streets">${streets}</ol>` : ''}
      ${blockNote}`;
  }
}
