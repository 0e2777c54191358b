// The engines and the first city, started before the page has finished loading.
//
// index.html loads this module with `async`, so it runs as soon as it and the engine's
// JavaScript have arrived, without waiting for the document, Leaflet or app.js: the
// wasm compiles and the first city's model file (fetched by index.html's inline
// script) is decoded while the rest of the page still loads. app.js imports the same
// module instance and takes both.
import init, { HexRisk } from '/pkg/dist/web/hexrisk_engine.js';

/** The grid engine (the package's default entry), once its wasm is compiled and instantiated. */
export const engineReady = init().then(() => {
  performance.mark('hexrisk:engine-ready');
  return new HexRisk();
});

let roads = null;
/**
 * The roads engine (`hexrisk/roads`: routes, reach, places and streets), fetched and
 * instantiated at the first call, after the grid is drawn: the grid waits only for the
 * smaller grid engine. A failed load rejects that call; the next call imports again.
 */
export function roadsEngine() {
  roads ??= import('/pkg/dist/roads/web/hexrisk_engine.js')
    .then(async (module) => {
      await module.default();
      performance.mark('hexrisk:roads-engine-ready');
      return new module.HexRisk();
    })
    .catch((err) => { roads = null; throw err; });
  return roads;
}

/**
 * The page's first city, added to the grid engine: `{ entry, record, bytes }` (its
 * manifest entry, `addCity`'s record and the file's bytes), `{ entry, error }` when its file does not decode (app.js
 * reports it), or `null` when index.html did not fetch it (app.js fetches it again).
 */
const fetchedFirst = window.hexriskFirstCity?.then((fetched) => {
  performance.mark(`hexrisk:${fetched.entry.code}-fetched`);
  return fetched;
}).catch(() => null);

export const firstCity = Promise.all([engineReady, fetchedFirst])
  .then(([engine, fetched]) => {
    if (!fetched) return null;
    const { entry, bytes } = fetched;
    try {
      const record = engine.addCity(bytes, entry.version);
      performance.mark(`hexrisk:${entry.code}-decoded`);
      return { entry, record, bytes };
    } catch (error) {
      return { entry, error };
    }
  });
