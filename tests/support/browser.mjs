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
const VIEWPORT = { width: 1024, height: 768 };

function launchOptions(intercept) {
  const args = intercept ? FLAGS : [...FLAGS, '--proxy-server=http://127.0.0.1:9'];
  return { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args };
}

/**
 * Launches Chromium, for `newSession` to open pages in. `intercept: false`: see
 * `openPage`; pass the same to `newSession`.
 */
export function launchBrowser({ intercept = true } = {}) {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  return chromium.launch(launchOptions(intercept));
}

/**
 * A page of `context` that may only reach loopback hosts (when `intercept`), with its
 * console errors and the requests refused: `{ context, page, consoleErrors, blocked }`.
 */
async function watchedPage(context, intercept) {
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
  return { context, page, consoleErrors, blocked };
}

/**
 * A page in a new incognito context of `browser`: no cookies, storage, cache or view
 * shared with any other page, so that a test starts from what a new user sees.
 * `context.close()` ends it; the browser stays.
 */
export async function newSession(browser, { intercept = true } = {}) {
  return watchedPage(await browser.newContext({ viewport: VIEWPORT }), intercept);
}

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
  if (persistent) {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    const profile = mkdtempSync(path.join(os.tmpdir(), 'hexrisk-chromium-'));
    const context = await chromium.launchPersistentContext(profile, { ...launchOptions(intercept), viewport: VIEWPORT });
    const { page, consoleErrors, blocked } = await watchedPage(context, intercept);
    return { browser: context, page, consoleErrors, blocked };
  }
  const browser = await launchBrowser({ intercept });
  const { page, consoleErrors, blocked } = await newSession(browser, { intercept });
  return { browser, page, consoleErrors, blocked };
}
