import type { HexRisk, TileRequest } from './dist/web/hexrisk_engine.js';

/** The handler `maplibregl.addProtocol('hexrisk', …)` takes: `hexrisk://{city}/{z}/{x}/{y}?options` tiles made by `engine.tile()`. */
export function hexriskProtocol(
  engine: HexRisk,
  options?: { now?: () => number },
): (params: { url: string }) => Promise<{ data: Uint8Array }>;

/** The `tile()` request a `hexrisk://` URL names; throws on another form. */
export function tileRequest(url: string): TileRequest;

/** A MapLibre style fragment (version 8): the source `hexrisk` and the layers `hexrisk-hexes` and `hexrisk-streets`. */
export interface HexRiskStyle {
  version: 8;
  name: string;
  sources: { hexrisk: object };
  layers: Array<{ id: string; type: 'fill' | 'line'; source: 'hexrisk'; 'source-layer': string; [property: string]: unknown }>;
}

/** The style that draws hexrisk tiles from `source` (a vector source), as GET /tiles/{city}/style.json serves it. */
export function hexriskStyle(source: object): HexRiskStyle;
