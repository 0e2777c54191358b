// Headless Debian Chromium driven by playwright-core, with every non-local request blocked.
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const OUTPUT_DIR = new URL('../../test-output/', import.meta.url).pathname;

const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-sync',
  '--disable-background-networking', '--disable-component-update',
];

/** Launches Chromium and a page that may only reach loopback hosts; collects console errors. */
export async function openPage() {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: FLAGS,
  });
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  const blocked = [];
  await context.route('**/*', (route) => {
    const { hostname } = new URL(route.request().url());
    if (hostname === '127.0.0.1' || hostname === 'localhost') return route.continue();
    blocked.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));
  return { browser, page, consoleErrors, blocked };
}
