// Serves the map app (web-demo/) with the npm package build (pkg/) under /pkg, the map
// libraries from node_modules under /vendor (Leaflet for the app; MapLibre GL JS,
// deck.gl's MVT worker and OpenLayers for web-demo/examples/) and the city artifacts
// (build/artifacts) under /artifacts: everything a page needs comes from this origin.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import sirv from 'sirv';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Starts the demo server; resolves to `{ url, close }`. Port 0 picks a free port. */
export function startDemoServer({ host = '127.0.0.1', port = 8080 } = {}) {
  const options = { dev: true, etag: true, extensions: ['html'] };
  const site = sirv(path.join(root, 'web-demo'), options);
  const pkg = sirv(path.join(root, 'pkg'), options);
  const vendor = (dir) => sirv(path.join(root, 'node_modules', dir), options);
  const artifacts = sirv(path.join(root, 'build/artifacts'), options);
  const notFound = (res) => { res.statusCode = 404; res.end('not found'); };
  const mounts = [
    ['/pkg/', pkg], ['/artifacts/', artifacts],
    ['/vendor/leaflet/', vendor('leaflet/dist')], ['/vendor/maplibre/', vendor('maplibre-gl/dist')],
    ['/vendor/ol/', vendor('ol')], ['/vendor/loaders.gl/mvt/', vendor('@loaders.gl/mvt/dist')],
  ];
  // Bundled once, at its first request.
  const bundles = new Map([['/vendor/deck.js', 'web-demo/examples/vendor/deck.js']]);
  const bundled = new Map();
  const bundle = (entry) => esbuild.build({
    entryPoints: [path.join(root, entry)], bundle: true, format: 'esm', minify: true, write: false, logLevel: 'silent',
  }).then((result) => result.outputFiles[0].contents);
  const server = http.createServer((req, res) => {
    const entry = bundles.get(req.url.split('?')[0]);
    if (entry) {
      if (!bundled.has(entry)) bundled.set(entry, bundle(entry));
      bundled.get(entry).then((code) => {
        res.setHeader('content-type', 'text/javascript');
        res.end(code);
      }, (error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    const mount = mounts.find(([prefix]) => req.url.startsWith(prefix));
    if (mount) {
      req.url = req.url.slice(mount[0].length - 1);
      mount[1](req, res, () => notFound(res));
    } else {
      site(req, res, () => notFound(res));
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({ url: `http://${host}:${actual}`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number.parseInt(process.env.DEMO_PORT ?? '8080', 10);
  const { url } = await startDemoServer({ port });
  console.log(`demo: ${url}/`);
}
