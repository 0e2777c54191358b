// Installed and offline use: the service worker (sw.js) keeps the page, the engine
// and Leaflet; the artifacts of the cities opened are kept here, in the same cache
// the worker answers them from, so a city opened once opens again with no network.

/** The cache of model files; sw.js answers /artifacts/ requests from it. */
export const ARTIFACT_CACHE = 'hexrisk-artifacts-v1';

/** Registers the service worker (not with `?sw=0`); resolves once one is active. */
export async function registerServiceWorker(enabled) {
  if (!enabled || !('serviceWorker' in navigator)) return false;
  await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  await navigator.serviceWorker.ready;
  return true;
}

/**
 * The JSON of `url`, from the network when there is one (and kept), else the last
 * copy kept: the manifest of published models.
 */
export async function fetchJsonKept(url) {
  const cache = 'caches' in self ? await caches.open(ARTIFACT_CACHE) : null;
  try {
    const response = await fetch(url, { cache: 'no-cache' });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    await cache?.put(url, response.clone());
    return await response.json();
  } catch (err) {
    const kept = await cache?.match(url);
    if (kept) return kept.json();
    throw err;
  }
}

/**
 * The bytes of a model file. Files are named by content, so a kept copy is always
 * right: it is used first, and a file fetched is kept.
 */
export async function fetchArtifactKept(url) {
  const cache = 'caches' in self ? await caches.open(ARTIFACT_CACHE) : null;
  let response = await cache?.match(url);
  if (!response) {
    response = await fetch(url).catch(() => {
      throw Object.assign(new Error(`${url} is not available offline: open this city once with a network`), { code: 'NOT_AVAILABLE_OFFLINE' });
    });
    if (!response.ok) throw Object.assign(new Error(`${url}: HTTP ${response.status}`), { code: 'INVALID_ARTIFACT' });
    await cache?.put(url, response.clone());
  }
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * Starts fetching the model file of the city the page opens first, before the engine
 * and the map are loaded (index.html calls it): the file is most of the wait for the
 * first grid. Resolves to `{ manifest, entry, bytes }` for `city` (or the first city
 * of the manifest when it names no such city).
 */
export async function prefetchCity(city) {
  const manifest = await fetchJsonKept('/artifacts/manifest.json');
  const entry = manifest.cities.find((c) => c.code === city) ?? manifest.cities[0];
  return { manifest, entry, bytes: await fetchArtifactKept(`/artifacts/${entry.file}`) };
}
