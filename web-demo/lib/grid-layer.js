// The city's hexes, coloured by band. Drawn by `HexCanvas` (one canvas, batched by
// colour) unless `?renderer=` names one of Leaflet's own renderers (`canvas`: a
// polygon per cell on Leaflet's canvas; `svg`: a path per cell), kept to compare
// them by measurement (docs/BENCHMARKS.md).
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { HexCanvas } from './hex-canvas.js';

/**
 * Resolves once the next frame has been rendered: Leaflet's renderers draw in a frame
 * callback, the browser paints after the frame callbacks, and a message posted from
 * one runs after that paint.
 */
export const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(null);
}));

/** Renderer names `?renderer=` takes; the first is the default. */
export const RENDERERS = ['hex-canvas', 'canvas', 'svg'];

const OUTLINE = '#4a4a4a';

export class GridLayer {
  /**
   * `map`: the Leaflet map; `pane`: the pane the hexes go in; `palette`: colours by
   * band; `ring(cell)`: a cell's corners as a flat lat, lng array; `renderer`: one
   * of `RENDERERS`.
   */
  constructor(map, { pane, palette, ring, renderer }) {
    Object.assign(this, { map, pane, palette, ring, renderer });
    this.opacity = 0.55;
    this.visible = true;
    this.clear();
  }

  /** Removes every hex (a new city). */
  clear() {
    this.layer?.remove();
    this.bandOf = new Map();
    if (this.renderer === 'hex-canvas') {
      this.layer = new HexCanvas({ pane: this.pane });
      this.layer.setOpacity(this.opacity);
    } else {
      const renderer = this.renderer === 'svg' ? L.svg({ pane: this.pane }) : L.canvas({ pane: this.pane, padding: 0.3 });
      this.layer = L.layerGroup();
      this.leaflet = { renderer, polygons: new Map() };
    }
    if (this.visible) this.layer.addTo(this.map);
  }

  /**
   * Shows or hides the hexes (the street layer replaces them from zoom 15); hidden
   * hexes keep their colours and recolour as before, and show them when shown again.
   */
  setVisible(visible) {
    if (visible === this.visible) return;
    this.visible = visible;
    if (visible) this.layer.addTo(this.map);
    else this.layer.remove();
  }

  fill(band) {
    return band >= 0 ? this.palette[band] : null;
  }

  /** Colours `ids[i]` with band `bands[i]` (-1: no data, left unfilled); the first call creates the cells. */
  colour(ids, bands) {
    if (this.renderer === 'hex-canvas' && this.bandOf.size === 0) {
      this.position = new Map(ids.map((id, i) => [id, i]));
      this.fills = Array.from(bands, (band) => this.fill(band));
      this.layer.setCells(ids.map((id) => this.ring(id)), this.fills);
    } else if (this.renderer === 'hex-canvas') {
      // Later answers cover the same box, so the same cells; any other is not drawn.
      ids.forEach((id, i) => {
        const at = this.position.get(id);
        if (at !== undefined) this.fills[at] = this.fill(bands[i]);
      });
      this.layer.setFills(this.fills);
    } else {
      for (let i = 0; i < ids.length; i += 1) this.colourPolygon(ids[i], bands[i]);
    }
    ids.forEach((id, i) => this.bandOf.set(id, bands[i]));
  }

  colourPolygon(id, band) {
    const { renderer, polygons } = this.leaflet;
    const polygon = polygons.get(id);
    if (!polygon) {
      const flat = this.ring(id);
      const latLngs = [];
      for (let i = 0; i < flat.length; i += 2) latLngs.push([flat[i], flat[i + 1]]);
      const created = L.polygon(latLngs, {
        renderer, pane: this.pane, weight: 0.4, color: OUTLINE, opacity: 0.5,
        fillOpacity: this.opacity, fillColor: this.fill(band) ?? 'transparent', className: 'hex', interactive: false,
      });
      created.addTo(this.layer);
      polygons.set(id, created);
    } else if (this.bandOf.get(id) !== band) {
      polygon.setStyle({ fillColor: this.fill(band) ?? 'transparent' });
    }
  }

  /** Hex fill opacity, 0 to 1. */
  setOpacity(opacity) {
    this.opacity = opacity;
    if (this.renderer === 'hex-canvas') this.layer.setOpacity(opacity);
    else for (const polygon of this.leaflet.polygons.values()) polygon.setStyle({ fillOpacity: opacity, opacity: 0.5 * Math.min(1, opacity * 2) });
  }

  /** Cells drawn. */
  get size() {
    return this.bandOf.size;
  }

  /** Whether a cell is drawn. */
  has(id) {
    return this.bandOf.has(id);
  }

  /** The bands drawn, by cell id (for tests). */
  bands() {
    return Object.fromEntries(this.bandOf);
  }
}
