// A MapLibre GL JS protocol handler for tiles made offline by the package:
//
//   import { HexRisk } from 'hexrisk';
//   import { hexriskProtocol } from 'hexrisk/maplibre';
//   maplibregl.addProtocol('hexrisk', hexriskProtocol(engine));
//   map.addSource('hexrisk', { type: 'vector', tiles: ['hexrisk://city_ca_tor/{z}/{x}/{y}'], minzoom: 8, maxzoom: 16 });
//
// A URL is hexrisk://{city}/{z}/{x}/{y}, the scoring options of
// GET /tiles/{city}/{z}/{x}/{y}.mvt as its query (intent, activeCodes, week, time);
// its tile is `engine.tile()`'s, byte for byte the Worker's. `hexriskStyle(source)`
// gives the layers that draw it.

import { style } from './dist/style.js';

/** The handler `maplibregl.addProtocol('hexrisk', …)` takes; `now()` sets the forecast week (milliseconds). */
export function hexriskProtocol(engine, { now = Date.now } = {}) {
  return async (params) => ({ data: engine.tile(tileRequest(params.url), now()) });
}

/** The `tile()` request a hexrisk:// URL names; throws on another form. */
export function tileRequest(url) {
  const match = /^hexrisk:\/\/([^/?#]+)\/(\d+)\/(\d+)\/(\d+)(?:\.mvt)?(?:\?([^#]*))?$/.exec(url);
  if (!match) throw new Error(`not a hexrisk tile URL (hexrisk://{city}/{z}/{x}/{y}): ${url}`);
  const [, city, z, x, y, query = ''] = match;
  return { ...Object.fromEntries(new URLSearchParams(query)), city: decodeURIComponent(city), z: Number(z), x: Number(x), y: Number(y) };
}

/**
 * The MapLibre style fragment (style spec version 8) that draws hexrisk tiles from
 * `source`, a vector source: hexes filled by `colorIndex`, streets from zoom 14
 * coloured by `band`. The same layers as the Worker's GET /tiles/{city}/style.json.
 *
 *   const { sources, layers } = hexriskStyle({ type: 'vector', tiles: ['hexrisk://city_ca_tor/{z}/{x}/{y}'], minzoom: 8, maxzoom: 16 });
 *   map.addSource('hexrisk', sources.hexrisk); layers.forEach((layer) => map.addLayer(layer));
 */
export function hexriskStyle(source) {
  return { ...structuredClone(style), sources: { hexrisk: source } };
}
