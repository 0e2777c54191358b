// The current artifact of a city in build/artifacts: the file its manifest names
// (artifacts are versioned files, `<code>/<data-through>.<sha12>.hxrk`).
import { readFileSync } from 'node:fs';

const artifacts = new URL('../../build/artifacts/', import.meta.url);

/** The bytes of `code`'s current artifact (in `artifacts`, by default this tree's). */
export function currentArtifact(code, artifactsDir = artifacts) {
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', artifactsDir), 'utf8'));
  const city = manifest.cities.find((c) => c.code === code);
  if (!city) throw new Error(`${code} is not in build/artifacts/manifest.json`);
  return readFileSync(new URL(city.file, artifactsDir));
}
