// The partner portal in headless Chromium with a virtual authenticator (the DevTools
// protocol's WebAuthn domain: CTAP2, internal, resident keys, user verified): apply,
// the operator's approval, sign out and in with the passkey, make a key and call both
// APIs with it from its allowed origin and from another, watch its usage move, roll
// it, revoke it, sign out;
// axe-core finds no WCAG 2 A/AA violation in any state; the forms work from the
// keyboard alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { decidePartner, operatorAccount } from '../../scripts/operator.mjs';
import { newSession, openPage } from '../support/browser.mjs';
import { freePorts, keyStore, startWorker } from '../support/wrangler.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let worker;
let session;
let state;
let portal;

before(async () => {
  // The browser starts while the key store and the Worker are made.
  const opening = openPage();
  try {
    ({ state } = await keyStore('portal-browser'));
    const [port] = await freePorts(1);
    portal = `http://localhost:${port}`;
    worker = await startWorker({
      persistTo: state, port, vars: { HEXRISK_PORTAL_ORIGIN: portal, HEXRISK_KEY_RECORD_TTL_SECONDS: '0' },
    });
  } finally {
    session = await opening;
  }
  await withAuthenticator(session.page);
});

/** Gives `page`'s context axe and its own virtual passkey authenticator. */
async function withAuthenticator(page) {
  // The page's policy refuses injected script tags: axe comes in as an init script,
  // which the DevTools protocol runs before the page's own.
  await page.context().addInitScript({ path: AXE });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}

after(async () => {
  await session?.browser.close();
  await worker?.stop();
});

async function violations(page) {
  const result = await page.evaluate(() => window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }));
  return result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

const status = (page) => page.locator('#status').textContent();

/** A key's answer from the page's origin (a browser request, so with `Origin`). */
function callFromPage(page, path, key) {
  return page.evaluate(async ([p, k]) => {
    const headers = p.startsWith('/v1/') ? { authorization: `Bearer ${k}` } : { 'x-api-key': k };
    const response = await fetch(p, { headers });
    return response.status;
  }, [path, key]);
}

test('a partner applies, is approved, signs in with the passkey and manages a key', async () => {
  const { page } = session;
  await page.goto(`${portal}/portal`);
  await page.waitForSelector('#signed-out:not([hidden])');
  assert.deepEqual(await violations(page), [], 'signed out');
  // A signed-out page loads with no console error: no failed request, its icon found.
  assert.deepEqual(session.consoleErrors, []);
  assert.equal(await page.evaluate(async () => (await fetch('/portal/icon.svg')).status), 200);

  // Keyboard only: tab into the form, type, submit with Enter.
  await page.locator('#organisation').focus();
  await page.keyboard.type('Transit Co');
  await page.keyboard.press('Tab');
  await page.keyboard.type('ops@transit.example');
  await page.keyboard.press('Tab');
  await page.keyboard.type('night routes for riders');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#signed-in:not([hidden])');
  assert.match(await status(page), /Application received/);
  assert.match(await page.locator('#account').textContent(), /Keyssandbox keys only, 100 requests a day each, for 30 days/);
  assert.equal(await page.locator('#waiting').isVisible(), true);
  assert.deepEqual(await violations(page), [], 'waiting');

  const id = await page.evaluate(async () => (await (await fetch('/portal/api/me')).json()).id);
  assert.equal(await decidePartner({ partner: id, decision: 'approve', stateDir: state }), 1);

  // Out, and in again with the passkey the authenticator keeps.
  await page.locator('#sign-out').click();
  await page.waitForSelector('#signed-out:not([hidden])');
  await page.locator('#sign-in').focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('#keys-section:not([hidden])');
  assert.match(await status(page), /Signed in/);

  // An origin the page explains and refuses, then a key for this page's origin.
  await page.locator('#key-origins').fill('http://maps.example.org');
  await page.locator('#key-form button[type=submit]').click();
  await page.waitForSelector('#refused-origins:not([hidden])');
  assert.match(await page.locator('#refused-origins').textContent(), /http:\/\/maps\.example\.org.*localhost/);
  await page.locator('#key-label').fill('web app');
  await page.locator('#key-origins').fill(portal);
  await page.locator('#key-form button[type=submit]').click();
  await page.waitForSelector('#new-key:not([hidden])');
  const key = await page.locator('#new-key-text').textContent();
  assert.match(key, /^hexrisk_sandbox_[A-Za-z0-9]{32}$/);
  assert.match(await page.locator('#new-key-curl').textContent(), /curl -H 'X-API-Key: hexrisk_sandbox_/);
  assert.deepEqual(await violations(page), [], 'a new key shown');
  assert.equal(await callFromPage(page, '/v1/cities', key), 200);
  assert.equal(await callFromPage(page, '/route/config', key), 200, 'from its listed origin');
  const elsewhere = await fetch(`${worker.url}/route/config`, { headers: { 'x-api-key': key, origin: 'https://other.example' } });
  assert.equal(elsewhere.status, 403, 'from another origin');
  // The usage moves: two requests counted, one refused for its origin.
  await page.reload();
  await page.waitForSelector('#usage:not([hidden]) #usage-table tbody tr');
  const today = await page.locator('#usage-table tbody tr').first().locator('td').allTextContents();
  assert.deepEqual(today.slice(1), ['2', '0', '1', '0', '0', '0'], today.join(' | '));
  // The one quota the account's sandbox keys share, told beside the key's own.
  assert.match(await page.locator('#usage-today').textContent(), /2 counted with this key, 98 remaining; the account's sandbox keys share 100 a day \(2 used\)/);
  assert.equal(await page.locator('#usage-chart rect').count(), 60);
  assert.deepEqual(await violations(page), [], 'usage shown');

  // Roll with a day's grace: both keys work; revoke the new one: only the old works.
  await page.locator('#keys-table tbody select').selectOption('24');
  await page.getByRole('button', { name: 'Roll web app' }).click();
  await page.waitForFunction(() => /Rolled/.test(document.querySelector('#status').textContent));
  // The page says "Rolled" before it lists the keys again: until then the only
  // "Revoke web app" button is the old key's, and a click there revokes that one.
  await page.waitForFunction(() => [...document.querySelectorAll('#keys-table tbody tr td')].some((td) => td.textContent === 'rolled'));
  const rolled = await page.locator('#new-key-text').textContent();
  assert.notEqual(rolled, key);
  assert.match(await status(page), /Rolled: the old key works until/);
  assert.equal(await callFromPage(page, '/v1/cities', key), 200);
  assert.equal(await callFromPage(page, '/v1/cities', rolled), 200);
  await page.getByRole('button', { name: 'Revoke web app' }).click();
  await page.waitForFunction(() => /Revoked/.test(document.querySelector('#status').textContent));
  assert.equal(await callFromPage(page, '/v1/cities', rolled), 401);
  assert.equal(await callFromPage(page, '/v1/cities', key), 200, 'the rolled key in its grace');
  // The page says "Revoked" and then reloads the account, its activity with it.
  await page.waitForFunction(() => [...document.querySelectorAll('#audit li')].some((li) => /key revoked/.test(li.textContent)))
    .catch(() => {});
  const activity = await page.locator('#audit li').allTextContents();
  assert.ok(activity.some((line) => /key revoked/.test(line)) && activity.some((line) => /approved by the operator$/.test(line)), activity.join('\n'));
  assert.deepEqual(await violations(page), [], 'keys listed');

  await page.locator('#sign-out').click();
  await page.waitForSelector('#signed-out:not([hidden])');
  assert.equal(await page.evaluate(async () => (await fetch('/portal/api/me')).status), 401);
  // Chromium logs every 4xx answer a page's fetch gets; those were expected (a
  // signed-out /me, the refused origin, the test's own calls). Nothing else.
  const expected = /^Failed to load resource: the server responded with a status of 40[013] /;
  assert.deepEqual(session.consoleErrors.filter((e) => !expected.test(e)), []);
});

test("the operator's enrolment link registers a passkey once, on another device", async () => {
  const { context, page } = await newSession(session.browser);
  await withAuthenticator(page);
  const { id, link } = await operatorAccount({ email: 'operator@localhost', portal, stateDir: state });
  await page.goto(link);
  await page.waitForSelector('#enrol:not([hidden])');
  assert.deepEqual(await violations(page), [], 'the enrolment prompt');
  await page.locator('#enrol-button').click();
  await page.waitForSelector('#signed-in:not([hidden])');
  assert.match(await status(page), /Passkey registered/);
  assert.equal(new URL(page.url()).hash, '', 'the used link leaves the address bar');
  const me = await page.evaluate(async () => (await fetch('/portal/api/me')).json());
  assert.deepEqual([me.id, me.role, me.passkeys.length], [id, 'operator', 1]);

  // The operator's view: the partner of the first test, suspended and approved again
  // from the keyboard, then given the enterprise tier; every change in the audit log.
  await page.waitForSelector('#operator:not([hidden])');
  assert.deepEqual(await violations(page), [], "the operator's view");
  const row = page.locator('#operator-table tbody tr', { hasText: 'Transit Co' });
  assert.equal(await row.locator('td').nth(3).textContent(), 'approved');
  await page.locator('button[aria-label="Suspend Transit Co"]').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /Transit Co: suspended/.test(document.querySelector('#status').textContent));
  await page.locator('button[aria-label="Approve Transit Co"]').click();
  await page.waitForFunction(() => /Transit Co: approved/.test(document.querySelector('#status').textContent));
  // The table is drawn again after each change: its new row offers a suspension.
  await page.locator('button[aria-label="Suspend Transit Co"]').waitFor();
  await page.locator('select[aria-label="Tier of Transit Co"]').selectOption('enterprise');
  await page.locator('input[aria-label="Agreed daily limit of Transit Co (enterprise)"]').fill('25000');
  await page.locator('button[aria-label="Set the tier of Transit Co"]').click();
  await page.waitForFunction(() => /Transit Co: approved, tier enterprise \(25000 a day\)/.test(document.querySelector('#status').textContent));
  await page.waitForFunction(() => /tier set \(enterprise\)/.test(document.querySelector('#operator-audit li')?.textContent ?? ''));
  const audit = await page.locator('#operator-audit li').allTextContents();
  assert.ok(audit[0].includes('tier set (enterprise)') && audit[0].includes(`by ${id}`), audit[0]);
  assert.ok(audit.some((line) => line.includes('suspended')), audit.join('\n'));

  // The same link again: refused.
  await page.goto(link);
  await page.locator('#enrol-button').click();
  await page.waitForFunction(() => /not valid/.test(document.querySelector('#status').textContent));
  await context.close();
});

test('a suspended partner is signed out and told why it cannot sign in; "sign out everywhere" ends every session', async () => {
  const { page } = session;
  await page.goto(`${portal}/portal`);
  await page.waitForSelector('#signed-out:not([hidden])');
  await page.locator('#sign-in').click();
  await page.waitForSelector('#signed-in:not([hidden])');
  const id = await page.evaluate(async () => (await (await fetch('/portal/api/me')).json()).id);
  assert.equal(await decidePartner({ partner: id, decision: 'suspend', stateDir: state }), 1);
  // The session ended with the decision; signing in again says why it is refused.
  assert.equal(await page.evaluate(async () => (await fetch('/portal/api/me')).status), 401);
  await page.reload();
  await page.waitForSelector('#signed-out:not([hidden])');
  await page.locator('#sign-in').click();
  await page.waitForFunction(() => /suspended/.test(document.querySelector('#status').textContent));
  assert.match(await status(page), /this account is suspended: its keys are stopped and it cannot sign in/);
  assert.ok(await page.locator('#signed-out').isVisible());
  assert.deepEqual(await violations(page), [], 'a refused sign-in');

  // Approved again, it signs in; the log says the operator decided, and nothing of the operator.
  assert.equal(await decidePartner({ partner: id, decision: 'approve', stateDir: state }), 1);
  await page.locator('#sign-in').click();
  await page.waitForSelector('#signed-in:not([hidden])');
  const activity = await page.locator('#audit li').allTextContents();
  assert.ok(activity.some((line) => /suspended by the operator$/.test(line)), activity.join('\n'));
  assert.ok(activity.some((line) => /sign in refused by you from /.test(line)), activity.join('\n'));
  // Every session ends (tests in edge-worker/src/api/portal/tests/lifecycle.rs end
  // several); the page says so.
  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await page.waitForSelector('#signed-out:not([hidden])');
  assert.match(await status(page), /Signed out everywhere/);
  assert.equal(await page.evaluate(async () => (await fetch('/portal/api/me')).status), 401);
  assert.deepEqual(await violations(page), [], 'signed out everywhere');
});

test('a lasting change on an older session asks for the passkey again, then goes through', async () => {
  const { page } = session;
  await page.goto(`${portal}/portal`);
  await page.waitForSelector('#signed-out:not([hidden])');
  await page.locator('#sign-in').click();
  await page.waitForSelector('#keys-section:not([hidden])');
  // The server's answer to a session older than five minutes, once (the test cannot
  // wait five minutes); the page must confirm with the passkey and retry.
  const asked = [];
  page.on('request', (r) => { if (r.method() === 'POST') asked.push(new URL(r.url()).pathname); });
  let refusedOnce = false;
  await page.route('**/portal/api/keys', async (route) => {
    if (route.request().method() !== 'POST' || refusedOnce) return route.continue();
    refusedOnce = true;
    return route.fulfill({
      status: 403, contentType: 'application/json',
      body: JSON.stringify({ status: 'error', code: 'FORBIDDEN', message: 'confirm with your passkey', details: { reason: 'step_up', window_seconds: 300 } }),
    });
  });
  await page.locator('#key-label').fill('after step-up');
  await page.locator('#key-origins').fill('');
  await page.locator('#key-form button[type=submit]').click();
  await page.waitForSelector('#new-key:not([hidden])');
  assert.match(await status(page), /Key made/);
  // A key with neither origins nor addresses is labelled for what it is.
  const row = page.locator('#keys-table tbody tr', { hasText: 'after step-up' });
  assert.equal(await row.locator('td').nth(3).textContent(), 'unrestricted: anyone with the key');
  assert.deepEqual(asked, ['/portal/api/keys', '/portal/api/sessions/options', '/portal/api/sessions', '/portal/api/keys']);
  await page.unroute('**/portal/api/keys');
});

test('the portal says how fresh each city\'s data is, as health does', async () => {
  const { page } = session;
  await page.goto(`${portal}/portal`);
  const health = await (await fetch(`${portal}/health`)).json();
  const expected = health.models.cities.map((c) => `${c.city}: data through ${c.data_through} (${c.freshness.age_days} days ago)`);
  await page.waitForFunction((n) => document.querySelectorAll('#data-cities li').length === n, expected.length);
  assert.deepEqual(await page.locator('#data-cities li').allTextContents(), expected);
  assert.deepEqual(await violations(page), []);
});
