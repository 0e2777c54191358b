// The attacker's test of addresses under a local run: a request cannot choose its
// own address by sending CF-Connecting-IP (only Cloudflare's edge sets it), so a
// guesser varying the header still meets the sign-in limit, and the audit log says
// `local`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { keyStore, startWorker } from '../support/wrangler.mjs';

const PORTAL = 'http://localhost:8787';
const SIGN_IN_PER_ADDRESS = 20;
let worker;

before(async () => {
  const { state } = await keyStore('attacks-address');
  worker = await startWorker({ persistTo: state, vars: { HEXRISK_PORTAL_ORIGIN: PORTAL } });
});
after(() => worker?.stop());

test('a local run takes no address from the request: varying CF-Connecting-IP walks around no limit', async () => {
  const statuses = [];
  for (let i = 0; i <= SIGN_IN_PER_ADDRESS; i++) {
    const response = await fetch(`${worker.url}/portal/api/sessions/options`, {
      method: 'POST', headers: { origin: PORTAL, 'cf-connecting-ip': `198.51.100.${i + 1}` },
    });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  assert.deepEqual(statuses.slice(0, SIGN_IN_PER_ADDRESS), Array(SIGN_IN_PER_ADDRESS).fill(200));
  assert.equal(statuses.at(-1), 429, 'the 21st from "another" address');
});
