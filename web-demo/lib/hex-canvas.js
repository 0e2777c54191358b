// A layer that paints many hexagons on one canvas, batched by colour: one path and
// one fill per colour. Cells are told apart by a thin gap (each drawn a little inside
// its corners) rather than a stroked outline: in Chromium's software rasteriser,
// stroking Houston's 3,337 outlines took about 50 ms a redraw, the fills about 1 ms.
// Cells are projected once per zoom level; panning only repaints.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';

/** Extra canvas around the view, as a share of its size, so short pans show no edge. */
const PADDING = 0.1;
/** Pixels between neighbouring cells. */
const GAP_PX = 0.8;

export const HexCanvas = L.Layer.extend({
  /** `options.pane`. */
  initialize(options) {
    L.setOptions(this, options);
    this.rings = []; // per cell: [lat0, lng0, …, lat5, lng5]
    this.fills = []; // per cell: a CSS colour, or null for none
    this.opacity = 0.55;
    this.projected = new Map(); // zoom -> Float64Array of every corner's projected x, y
  },

  onAdd(map) {
    this.canvas = L.DomUtil.create('canvas', 'leaflet-zoom-animated hex-canvas');
    this.getPane().appendChild(this.canvas);
    map.on('moveend resize viewreset', this.redraw, this);
    map.on('zoomanim', this.animateZoom, this);
    // A map without a view yet cannot place the canvas: draw once it has one.
    map.whenReady(() => { this.ready = true; this.redraw(); });
  },

  onRemove(map) {
    map.off('moveend resize viewreset', this.redraw, this);
    map.off('zoomanim', this.animateZoom, this);
    L.DomUtil.remove(this.canvas);
  },

  /** Replaces every cell: `rings[i]` its corners as a flat lat, lng array, `fills[i]` its colour. */
  setCells(rings, fills) {
    this.rings = rings;
    this.fills = fills;
    this.projected.clear();
    this.redraw();
  },

  /** New colours for the same cells, in the same order. */
  setFills(fills) {
    this.fills = fills;
    this.redraw();
  },

  setOpacity(opacity) {
    this.opacity = opacity;
    this.redraw();
  },

  /** Every corner projected at `zoom` (absolute pixels), computed once per zoom. */
  cornersAt(zoom) {
    let points = this.projected.get(zoom);
    if (!points) {
      const count = this.rings.reduce((n, ring) => n + ring.length, 0);
      points = new Float64Array(count);
      let k = 0;
      for (const ring of this.rings) {
        for (let i = 0; i < ring.length; i += 2) {
          const p = this._map.project([ring[i], ring[i + 1]], zoom);
          points[k++] = p.x;
          points[k++] = p.y;
        }
      }
      this.projected.set(zoom, points);
    }
    return points;
  },

  redraw() {
    const map = this._map;
    if (!map || !this.ready) return;
    const size = map.getSize();
    const pad = size.multiplyBy(PADDING).round();
    const topLeft = map.containerPointToLayerPoint(pad.multiplyBy(-1)).round();
    const width = size.x + 2 * pad.x;
    const height = size.y + 2 * pad.y;
    const ratio = window.devicePixelRatio || 1;
    const canvas = this.canvas;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    L.DomUtil.setPosition(canvas, topLeft);
    // Where the canvas's corner is in the world, for the zoom animation.
    this.corner = map.layerPointToLatLng(topLeft);
    this.zoom = map.getZoom();
    const ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    // Canvas coordinates from absolute pixels: less the pixel origin and the canvas's
    // corner, in doubles here (a canvas path keeps only single precision).
    const origin = map.getPixelOrigin().add(topLeft);
    const points = this.cornersAt(this.zoom);
    // The cells that touch the canvas, grouped by colour.
    const byFill = new Map();
    let k = 0;
    for (let c = 0; c < this.rings.length; c += 1) {
      const start = k;
      k += this.rings[c].length;
      // Skip cells whose box misses the canvas (a cell can cover it with no corner inside).
      let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
      for (let i = start; i < k; i += 2) {
        left = Math.min(left, points[i]);
        right = Math.max(right, points[i]);
        top = Math.min(top, points[i + 1]);
        bottom = Math.max(bottom, points[i + 1]);
      }
      if (right < origin.x || left > origin.x + width || bottom < origin.y || top > origin.y + height) continue;
      const fill = this.fills[c];
      if (fill) {
        if (!byFill.has(fill)) byFill.set(fill, []);
        byFill.get(fill).push(start, k);
      }
    }
    // Each cell drawn towards its centre by half the gap on every side.
    const trace = (spans) => {
      ctx.beginPath();
      for (let s = 0; s < spans.length; s += 2) {
        const [from, to] = [spans[s], spans[s + 1]];
        const corners = (to - from) / 2;
        let [cx, cy] = [0, 0];
        for (let i = from; i < to; i += 2) { cx += points[i]; cy += points[i + 1]; }
        cx /= corners;
        cy /= corners;
        const radius = Math.hypot(points[from] - cx, points[from + 1] - cy);
        const shrink = radius > GAP_PX ? (radius - GAP_PX / 2) / radius : 1;
        for (let i = from; i < to; i += 2) {
          const x = cx + (points[i] - cx) * shrink - origin.x;
          const y = cy + (points[i + 1] - cy) * shrink - origin.y;
          if (i === from) ctx.moveTo(x, y);
          else ctx.lineTo(x, y);
        }
        ctx.closePath();
      }
    };
    ctx.globalAlpha = this.opacity;
    for (const [fill, spans] of byFill) {
      trace(spans);
      ctx.fillStyle = fill;
      ctx.fill();
    }
  },

  /** Scales and moves the canvas with the map's zoom animation; `moveend` redraws it. */
  animateZoom(event) {
    const map = this._map;
    const scale = map.getZoomScale(event.zoom, this.zoom);
    // The pixel origin the map will have at the new zoom and centre.
    const newOrigin = map.project(event.center, event.zoom)
      .subtract(map.getSize().divideBy(2))
      .add(L.DomUtil.getPosition(map.getPane('mapPane')))
      .round();
    L.DomUtil.setTransform(this.canvas, map.project(this.corner, event.zoom).subtract(newOrigin), scale);
  },
});
