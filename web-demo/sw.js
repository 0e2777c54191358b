// hexrisk map app service worker: the page works with no network once loaded.
// - The shell (page, scripts, styles, Leaflet, both wasm engines) is kept at install
//   and answered network first, so a reachable server's newer build wins and the
//   kept copy serves offline.
// - /artifacts/: model files are named by content, so a kept copy never goes stale:
//   answered from the cache first, and kept when fetched; the manifest that names
//   them is answered network first, and kept.
// - Other origins (the HTTP APIs of online mode) are not touched.
const SHELL_CACHE = 'hexrisk-shell-v1';
const ARTIFACT_CACHE = 'hexrisk-artifacts-v1';
const SHELL = [
  '/', '/app.js', '/style.css', '/manifest.webmanifest', '/icon.svg',
  '/lib/boot.js', '/lib/engines.js', '/lib/grid-layer.js', '/lib/hex-canvas.js', '/lib/offline.js', '/lib/place-search.js', '/lib/reach.js', '/lib/routes.js', '/lib/street-layer.js', '/lib/streets.js', '/lib/url-state.js',
  '/vendor/leaflet/leaflet.css', '/vendor/leaflet/leaflet-src.esm.js',
  '/pkg/dist/web/hexrisk_engine.js', '/pkg/dist/web/unpack.js', '/pkg/dist/web/hexrisk_engine_bg.wasm',
  '/pkg/dist/roads/web/hexrisk_engine.js', '/pkg/dist/roads/web/unpack.js', '/pkg/dist/roads/web/hexrisk_engine_bg.wasm',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(SHELL_CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

async function networkFirst(request) {
  const cache = await caches.open(SHELL_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request.mode === 'navigate' ? '/' : request, response.clone());
    return response;
  } catch (err) {
    const kept = await cache.match(request.mode === 'navigate' ? '/' : request, { ignoreSearch: true });
    if (kept) return kept;
    throw err;
  }
}

async function keptFirst(request) {
  const cache = await caches.open(ARTIFACT_CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

async function networkFirstKept(request) {
  const cache = await caches.open(ARTIFACT_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  } catch (err) {
    const kept = await cache.match(request);
    if (kept) return kept;
    throw err;
  }
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/artifacts/')) {
    event.respondWith(url.pathname.endsWith('.json') ? networkFirstKept(event.request) : keptFirst(event.request));
  } else {
    event.respondWith(networkFirst(event.request));
  }
});
