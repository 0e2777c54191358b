// Installed and offline use. The service worker (sw.js) keeps the page, the engine,
// Leaflet, the manifest of published models and every model file fetched through it.
// The first visit fetches its files before the worker controls the page, so once it
// does, the page fetches the cities it opened again, through the worker, which keeps
// them: a city opened once opens again with no network.

/**
 * Registers the service worker (unless `enabled` is false) and, once it controls the
 * page, has it keep `urls()`. Resolves to whether a worker is active.
 */
export async function registerServiceWorker(enabled, urls) {
  if (!enabled || !('serviceWorker' in navigator)) return false;
  await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
  }
  await Promise.all(urls().map((url) => fetch(url).then((response) => response.arrayBuffer())));
  return true;
}

/** The manifest of published models (the service worker answers it offline). */
export async function fetchManifest() {
  const response = await fetch('/artifacts/manifest.json');
  if (!response.ok) throw Object.assign(new Error(`/artifacts/manifest.json: HTTP ${response.status}`), { code: 'INVALID_ARTIFACT' });
  return response.json();
}

/** The bytes of a model file; offline, only a file kept by the service worker. */
export async function fetchArtifact(url) {
  const response = await fetch(url).catch(() => {
    throw Object.assign(new Error(`${url} is not available offline: open this city once with a network`), { code: 'NOT_AVAILABLE_OFFLINE' });
  });
  if (!response.ok) throw Object.assign(new Error(`${url}: HTTP ${response.status}`), { code: 'INVALID_ARTIFACT' });
  return new Uint8Array(await response.arrayBuffer());
}
