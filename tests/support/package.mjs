// The npm package's engine with every city of the build's manifest loaded, for the
// tests that ask the served artifacts (build/artifacts) through it.
import { readFileSync } from 'node:fs';
import { HexRisk } from '../../pkg/dist/roads/node/hexrisk_engine.js';

const artifacts = new URL('../../build/artifacts/', import.meta.url);

/** A new engine holding every city the manifest lists. */
export function engineWithEveryCity() {
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', artifacts)));
  const engine = new HexRisk();
  for (const city of manifest.cities) engine.addCity(readFileSync(new URL(city.file, artifacts)));
  return engine;
}
