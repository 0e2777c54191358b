// The demo server (scripts/serve-demo.mjs) in a process of its own, as `make run`
// starts it, for the browser benchmarks: in the benchmark's process it would share an
// event loop with Playwright's client.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** Starts it on a free port; resolves to `{ url, close }`. */
export async function startDemoProcess() {
  const child = spawn(process.execPath, [new URL('../../scripts/serve-demo.mjs', import.meta.url).pathname], {
    env: { ...process.env, DEMO_PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await once(child.stdout, 'data');
  const url = /demo: (\S+)\/\n/.exec(String(line))?.[1];
  if (!url) throw new Error(`serve-demo.mjs said: ${line}`);
  return { url, close: () => { child.kill(); return once(child, 'exit'); } };
}
