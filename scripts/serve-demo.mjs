// Serves the demo page (web-demo/) with the npm package build (pkg/) under /pkg.
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
  const notFound = (res) => { res.statusCode = 404; res.end('not found'); };
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/pkg/')) {
      req.url = req.url.slice('/pkg'.length);
      pkg(req, res, () => notFound(res));
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
