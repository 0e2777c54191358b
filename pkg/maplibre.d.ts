import type { HexRisk, TileRequest } from './dist/web/hexrisk_engine.js';

/** The handler `maplibregl.addProtocol('hexrisk', …)` takes: `hexrisk://{city}/{z}/{x}/{y}?options` tiles made by `engine.tile()`. */
export function hexriskProtocol(
  engine: HexRisk,
  options?: { now?: () => number },
): (params: { url: string }) => Promise<{ data: Uint8Array }>;

/** The `tile()` request a `hexrisk://` URL names; throws on another form. */
export function tileRequest(url: string): TileRequest;
