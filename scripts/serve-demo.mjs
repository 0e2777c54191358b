// Serves the map app (web-demo/) with the npm package build (pkg/) under /pkg, Leaflet
// from node_modules under /vendor/leaflet and the city artifacts (build/artifacts) under
// /artifacts: everything the page needs comes from this origin.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Starts the demo server; resolves to `{ url, close }`. Port 0 picks a free port. */
export function startDemoServer({ host = '127.0.0.1', port = 8080 } = {}) {
  const options = { dev: true, etag: true, extensions: ['html'] };
  const site = sirv(path.join(root, 'web-demo'), options);
  const pkg = sirv(path.join(root, 'pkg'), options);
  const leaflet = sirv(path.join(root, 'node_modules/leaflet/dist'), options);
  const artifacts = sirv(path.join(root, 'build/artifacts'), options);
  const notFound = (res) => { res.statusCode = 404; res.end('not found'); };
  const server = http.createServer((req, res) => {
    const mounts = [['/pkg/', pkg], ['/vendor/leaflet/', leaflet], ['/artifacts/', artifacts]];
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
