// The streets in view coloured by their risk, from zoom 15 in (below it the hexes):
// each street a polyline on one canvas (Leaflet's canvas renderer), in the hexes'
// palette by its colour index, with its name and expected incidents per km in a
// tooltip. The view (a fifth wider on every side, so short pans need nothing new) is
// asked for in boxes of at most 0.05° a side, at most 2 × 2 of them: a larger view
// gets the streets of its middle, and says so.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { STREETS_MIN_ZOOM, streetBoxes, streetTooltip, uniqueStreets } from './streets.js';

/** Extra area asked for around the view, as a share of its size on each side. */
const PADDING = 0.2;

export class StreetLayer {
  /**
   * `pane`: the pane the streets go in; `palette`: colours by colour index;
   * `available()`: whether the current city has streets (false: hexes at every zoom;
   * undefined: not known until its full model file is in);
   * `load(box)`: a `streetsInBox` answer for a box (rejects with the API's error);
   * `onChange(state)`: called with `{ state, count, clipped }` whenever what is shown
   * changes, `state` one of `zoomed-out`, `no-streets` (the city has none), `pending` (not
   * known yet), `loading`,
   * `shown`, `empty` (none in the view).
   */
  constructor(map, { pane, palette, available, load, onChange }) {
    Object.assign(this, { map, pane, palette, available, load, onChange });
    this.renderer = L.canvas({ pane, padding: 0.3, tolerance: 3 });
    this.group = L.layerGroup().addTo(map);
    this.generation = 0;
    this.draws = 0;
    this.rows = [];
    this.boxes = [];
    this.covered = null;
    this.state = null;
  }

  /** Removes every street (a new city, or zoomed out). */
  clear() {
    this.generation += 1;
    this.group.clearLayers();
    this.rows = [];
    this.boxes = [];
    this.covered = null;
  }

  /**
   * Draws the streets of the view at zoom 15 and closer, or removes them. `force`:
   * ask again even if the view is inside the area drawn (new options, another engine).
   */
  async update({ force = false } = {}) {
    const available = this.available();
    if (available !== true) { this.clear(); this.set(available === false ? 'no-streets' : 'pending'); return; }
    if (this.map.getZoom() < STREETS_MIN_ZOOM) { this.clear(); this.set('zoomed-out'); return; }
    const view = this.map.getBounds();
    if (!force && this.covered?.contains(view)) return;
    const padded = view.pad(PADDING);
    const { boxes, clipped } = streetBoxes({ west: padded.getWest(), south: padded.getSouth(), east: padded.getEast(), north: padded.getNorth() });
    const generation = ++this.generation;
    if (this.state !== 'shown') this.set('loading');
    // A box that no city with streets meets (over water, past the city) has none.
    const answers = await Promise.all(boxes.map((box) => this.load(box).catch((err) => {
      if (err.code === 'LOCATION_NOT_COVERED') return null;
      throw err;
    })));
    if (generation !== this.generation) return; // a later view, zoom or city
    const rows = uniqueStreets(answers).sort((a, b) => a.incidentsPerKm - b.incidentsPerKm || a.id - b.id);
    this.group.clearLayers();
    // Riskiest last, so on top where lines meet.
    for (const street of rows) {
      L.polyline(street.coordinates.map(([lng, lat]) => [lat, lng]), {
        renderer: this.renderer, pane: this.pane, weight: 4, opacity: 1,
        color: street.colorIndex >= 0 ? this.palette[street.colorIndex] : '#9e9e9e',
      }).bindTooltip(streetTooltip(street), { sticky: true, className: 'street-tooltip' }).addTo(this.group);
    }
    this.rows = rows;
    this.draws += 1;
    this.boxes = boxes;
    this.clipped = clipped;
    this.covered = L.latLngBounds(boxes.flatMap((b) => [[b.south, b.west], [b.north, b.east]]));
    this.set(rows.length > 0 ? 'shown' : 'empty');
  }

  set(state) {
    this.state = state;
    this.onChange({ state, count: this.rows.length, clipped: Boolean(this.clipped) && state === 'shown' });
  }

  /**
   * What is drawn, for tests: the state, the boxes asked for, how many times streets
   * were drawn, the polylines, each street's row (as drawn, riskiest last) and colour.
   */
  drawn() {
    return {
      state: this.state,
      draws: this.draws,
      boxes: this.boxes,
      polylines: this.group.getLayers().length,
      rows: this.rows.map(({ id, name, colorIndex, incidentsPerKm, basis, coordinates }) => ({ id, name, colorIndex, incidentsPerKm, basis, coordinates })),
      colours: this.group.getLayers().map((line) => line.options.color),
    };
  }
}
