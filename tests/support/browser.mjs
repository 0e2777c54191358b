// Headless Debian Chromium driven by playwright-core, with every non-local request blocked.
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const OUTPUT_DIR = new URL('../../test-output/', import.meta.url).pathname;

const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-sync',
  '--disable-background-networking', '--disable-component-update',
];

/**
 * Launches Chromium and a page that may only reach loopback hosts; collects console
 * errors. `persistent`: a profile in a fresh temporary folder instead of an incognito
 * context (Chromium installs no web app from incognito). `browser.close()` ends either.
 *
 * Requests to other hosts are refused and listed in `blocked`: each request passes
 * through Playwright's interception, which delays it. `intercept: false` (for timing
 * pages) refuses them instead through a proxy that does not exist, which loopback
 * requests bypass: nothing leaves the machine either way, but nothing is listed.
 */
export async function openPage({ persistent = false, intercept = true } = {}) {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const args = intercept ? FLAGS : [...FLAGS, '--proxy-server=http://127.0.0.1:9'];
  const launch = { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args };
  const viewport = { width: 1024, height: 768 };
  let browser;
  let context;
  if (persistent) {
    context = await chromium.launchPersistentContext(mkdtempSync(path.join(os.tmpdir(), 'hexrisk-chromium-')), { ...launch, viewport });
    browser = context;
  } else {
    browser = await chromium.launch(launch);
    context = await browser.newContext({ viewport });
  }
  const blocked = [];
  if (intercept) await context.route('**/*', (route) => {
    const { hostname } = new URL(route.request().url());
    if (hostname === '127.0.0.1' || hostname === 'localhost') return route.continue();
    blocked.push(route.request().url());
    return route.abort();
  });
  const page = context.pages()[0] ?? await context.newPage();
  const consoleErrors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));
  return { browser, page, consoleErrors, blocked };
}
