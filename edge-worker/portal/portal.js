// The partner portal's page: apply and sign in with a passkey, make, roll and revoke
// keys, read the activity log, see how fresh each city's data is. Talks only to
// /portal/api/ and /health on its own origin (docs/PORTAL.md); no inline script, no
// third-party code.

const $ = (id) => document.getElementById(id);

/** A JSON request to the portal's API; resolves to `{ status, body }`. */
async function api(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`/portal/api/${path}`, init);
  const json = await response.json().catch(() => null);
  return { status: response.status, body: json };
}

/**
 * A change that lasts (a key made or rolled, a passkey added): `request()` resolves
 * to an answer; when the session's passkey ceremony is older than the server allows
 * (403, `details.reason` `step_up`), asks for the passkey again and retries once.
 */
async function confirmed(request) {
  const answer = await request();
  if (answer.status !== 403 || answer.body?.details?.reason !== 'step_up') return answer;
  say('Confirm with your passkey to make this change.');
  if (!(await passkeySignIn())) return { status: 0, body: { message: 'Not confirmed: nothing was changed.' } };
  return request();
}

function say(text) {
  $('status').textContent = text;
}

/** The message of an error answer, for the status line. */
function problem(answer) {
  return answer.body?.message ?? `the request failed (HTTP ${answer.status})`;
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  row.append(td);
  return td;
}

function showAccount(account) {
  $('signed-out').hidden = true;
  $('signed-in').hidden = false;
  $('sign-out').hidden = false;
  $('sign-out-everywhere').hidden = false;
  $('who').hidden = false;
  $('who').textContent = `Signed in: ${account.organisation}`;
  const list = $('account');
  list.replaceChildren();
  // What the account may do, in words: a sandbox account makes sandbox keys only.
  const keys = account.tier === 'sandbox'
    ? ['Keys', `sandbox keys only, ${account.limits?.sandbox ?? '—'} requests a day each, for 30 days; live keys need the partner tier, which the operator sets`]
    : ['Daily limit of live keys', account.limits?.[account.tier] ?? '—'];
  for (const [term, value] of [
    ['Organisation', account.organisation], ['Contact', account.email], ['Status', account.status],
    ['Tier', account.tier], keys,
  ]) {
    const dt = document.createElement('dt'); dt.textContent = term;
    const dd = document.createElement('dd'); dd.textContent = String(value);
    list.append(dt, dd);
  }
  $('waiting').hidden = account.status !== 'applied';
  const passkeys = $('passkeys');
  passkeys.replaceChildren();
  for (const [i, passkey] of (account.passkeys ?? []).entries()) {
    const li = document.createElement('li');
    const used = passkey.last_used_at ? `last used ${new Date(passkey.last_used_at).toLocaleString()}` : 'not used yet';
    li.textContent = `Passkey ${i + 1}: added ${new Date(passkey.created_at).toLocaleString()}, ${used} `;
    if (account.passkeys.length > 1) {
      const remove = document.createElement('button');
      remove.type = 'button'; remove.className = 'secondary'; remove.textContent = 'Remove';
      remove.setAttribute('aria-label', `Remove passkey ${i + 1}`);
      remove.addEventListener('click', () => removePasskey(passkey.id));
      li.append(remove);
    }
    passkeys.append(li);
  }
  $('keys-section').hidden = account.status !== 'approved';
  $('kind-live').disabled = account.tier === 'sandbox';
  if (account.record_ttl_seconds !== undefined) $('ttl').textContent = String(account.record_ttl_seconds);
  const audit = $('audit');
  audit.replaceChildren();
  for (const entry of account.audit ?? []) {
    const li = document.createElement('li');
    // The API names the operator as such: never its account or address.
    const by = entry.actor === account.id ? 'you' : 'the operator';
    li.textContent = `${new Date(entry.at).toLocaleString()}: ${entry.action.replaceAll('_', ' ')}`
      + `${entry.subject ? ` (${entry.subject})` : ''} by ${by}${entry.address ? ` from ${entry.address}` : ''}`;
    audit.append(li);
  }
}

function showSignedOut() {
  $('signed-out').hidden = false;
  $('signed-in').hidden = true;
  $('sign-out').hidden = true;
  $('sign-out-everywhere').hidden = true;
  $('who').hidden = true;
}

async function refresh() {
  // Asked first, so that a signed-out page makes no request that fails.
  const state = await api('GET', 'session');
  if (!state.body?.signed_in) return showSignedOut();
  const me = await api('GET', 'me');
  if (me.status !== 200) return showSignedOut();
  showAccount(me.body);
  if (me.body.status === 'approved') await listKeys();
  $('operator').hidden = me.body.role !== 'operator';
  if (me.body.role === 'operator') await listAccounts();
  return undefined;
}

/** The operator's table of accounts, each with its decisions and tier, and the whole audit log. */
async function listAccounts() {
  // Page after page (the API gives a page at a time), into one table.
  const accounts = [];
  for (let after = null, first = true; first || after; first = false) {
    const answer = await api('GET', `operator/partners?limit=500${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    if (answer.status !== 200) return say(problem(answer));
    accounts.push(...answer.body.partners);
    after = answer.body.next;
  }
  const body = $('operator-table').tBodies[0];
  body.replaceChildren();
  for (const account of accounts.filter((a) => a.role === 'partner')) {
    const row = document.createElement('tr');
    cell(row, account.organisation);
    cell(row, account.email);
    cell(row, account.intended_use);
    cell(row, account.status);
    cell(row, account.tier === 'enterprise' ? `enterprise (${account.daily_limit} a day)` : account.tier);
    const decisions = cell(row, '');
    for (const [decision, from] of DECISIONS) {
      if (!from.includes(account.status)) continue;
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = decision[0].toUpperCase() + decision.slice(1);
      button.setAttribute('aria-label', `${button.textContent} ${account.organisation}`);
      button.addEventListener('click', () => operate(`operator/partners/${account.id}/decision`, { decision }));
      decisions.append(button);
    }
    const tiers = cell(row, '');
    const tier = document.createElement('select');
    tier.setAttribute('aria-label', `Tier of ${account.organisation}`);
    for (const name of ['sandbox', 'partner', 'enterprise']) tier.append(new Option(name, name));
    tier.value = account.tier;
    const limit = document.createElement('input');
    limit.type = 'number'; limit.min = '1'; limit.step = '1';
    limit.setAttribute('aria-label', `Agreed daily limit of ${account.organisation} (enterprise)`);
    limit.value = account.daily_limit ?? '';
    const set = document.createElement('button');
    set.type = 'button'; set.className = 'secondary'; set.textContent = 'Set tier';
    set.setAttribute('aria-label', `Set the tier of ${account.organisation}`);
    set.addEventListener('click', () => operate(`operator/partners/${account.id}/tier`, {
      tier: tier.value, daily_limit: tier.value === 'enterprise' ? Number(limit.value) : null,
    }));
    tiers.append(tier, limit, set);
    body.append(row);
  }
  const log = await api('GET', 'operator/audit');
  if (log.status !== 200) return say(problem(log));
  $('operator-audit').replaceChildren(...log.body.audit.map((entry) => {
    const li = document.createElement('li');
    li.textContent = `${new Date(entry.at).toLocaleString()}: ${entry.action.replaceAll('_', ' ')}`
      + `${entry.subject ? ` (${entry.subject})` : ''} of ${entry.partner_id} by ${entry.actor}${entry.address ? ` from ${entry.address}` : ''}`;
    return li;
  }));
  return undefined;
}

// The operator's decisions and the statuses each applies to (as edge-worker/src/api/portal/operator.rs).
const DECISIONS = [['approve', ['applied', 'suspended']], ['reject', ['applied']], ['suspend', ['approved']]];

/** An operator's change; the status line says where the account stands after it. */
async function operate(path, body) {
  const answer = await api('POST', path, body);
  const account = answer.body;
  say(answer.status === 200
    ? `${account.organisation}: ${account.status}, tier ${account.tier}${account.daily_limit ? ` (${account.daily_limit} a day)` : ''}`
    : problem(answer));
  await refresh();
}

async function listKeys() {
  const answer = await api('GET', 'keys');
  if (answer.status !== 200) return say(problem(answer));
  const body = $('keys-table').tBodies[0];
  body.replaceChildren();
  const chosen = $('usage-key').value;
  $('usage-key').replaceChildren(...answer.body.keys.map((k) => new Option(`${k.label || '(no label)'} (${k.kind}, ${k.state})`, k.id)));
  if (answer.body.keys.some((k) => k.id === chosen)) $('usage-key').value = chosen;
  $('usage').hidden = answer.body.keys.length === 0;
  for (const key of answer.body.keys) {
    const row = document.createElement('tr');
    cell(row, key.label || '(no label)');
    cell(row, key.kind);
    cell(row, key.apis.join(', '));
    // Where it may be used from: its origins and server addresses, or a warning.
    const from = [...key.origins, ...key.ip_ranges];
    cell(row, from.length > 0 ? from.join(', ') : 'unrestricted: anyone with the key');
    cell(row, key.state);
    cell(row, key.expires_at ? new Date(key.expires_at).toLocaleString() : 'never');
    const actions = cell(row, '');
    if (key.state === 'active') {
      const grace = document.createElement('select');
      grace.setAttribute('aria-label', `Grace period of ${key.label || 'this key'} when rolled`);
      for (const [hours, text] of [[0, 'no grace'], [1, '1 hour'], [24, '1 day'], [72, '3 days'], [168, '7 days']]) {
        grace.append(new Option(`old key works ${text}`, String(hours)));
      }
      const roll = document.createElement('button');
      roll.type = 'button'; roll.className = 'secondary'; roll.textContent = 'Roll';
      roll.setAttribute('aria-label', `Roll ${key.label || 'key'}`);
      roll.addEventListener('click', () => rollKey(key, Number(grace.value)));
      const revoke = document.createElement('button');
      revoke.type = 'button'; revoke.className = 'secondary'; revoke.textContent = 'Revoke';
      revoke.setAttribute('aria-label', `Revoke ${key.label || 'key'}`);
      revoke.addEventListener('click', () => revokeKey(key));
      actions.append(grace, ' ', roll, ' ', revoke);
    }
    body.append(row);
  }
  return showUsage();
}

const SVG = 'http://www.w3.org/2000/svg';

/** The usage of the key chosen in the usage section: chart, table and CSV link. */
async function showUsage() {
  const id = $('usage-key').value;
  if (!id) return undefined;
  const answer = await api('GET', `keys/${id}/usage`);
  if (answer.status !== 200) return say(problem(answer));
  const { today, days, account } = answer.body;
  $('usage-today').textContent = `Today (UTC): ${today.used} counted with this key, ${today.remaining} remaining; `
    + `the account's ${account.kind} keys share ${account.daily_limit} a day (${account.used} used); `
    + `the count resets at ${new Date(today.resets_at).toLocaleString()}.`;
  $('usage-csv').href = `/portal/api/keys/${id}/usage.csv`;
  const chart = $('usage-chart');
  const refusedOf = (d) => d.refused_quota + d.refused_origin + d.refused_api + d.refused_key + d.refused_address;
  const top = Math.max(1, ...days.map((d) => d.used + refusedOf(d)));
  const bars = days.flatMap((d, i) => {
    const refused = refusedOf(d);
    return [[d.used, 0, '#0b4f8a'], [refused, d.used, '#a4161a']].map(([n, below, colour]) => {
      const bar = document.createElementNS(SVG, 'rect');
      const height = (n / top) * 110;
      bar.setAttribute('x', String(i * 20 + 2));
      bar.setAttribute('width', '16');
      bar.setAttribute('y', String(115 - (below / top) * 110 - height));
      bar.setAttribute('height', String(height));
      bar.setAttribute('fill', colour);
      return bar;
    });
  });
  chart.replaceChildren(...bars);
  const total = days.reduce((s, d) => s + d.used, 0);
  chart.setAttribute('aria-label', `Requests a day over the last ${days.length} days: ${total} counted in all, blue counted, red refused; the table below has the figures.`);
  const body = $('usage-table').tBodies[0];
  body.replaceChildren(...days.slice().reverse().map((d) => {
    const row = document.createElement('tr');
    for (const value of [d.day, d.used, d.refused_quota, d.refused_origin, d.refused_api, d.refused_key, d.refused_address]) cell(row, String(value));
    return row;
  }));
  return undefined;
}

function showNewKey(made) {
  $('new-key').hidden = false;
  $('new-key-text').textContent = made.key;
  $('new-key-curl').textContent = made.curl.join('\n');
  $('copy-key').focus();
}

async function rollKey(key, graceHours) {
  const answer = await confirmed(() => api('POST', `keys/${key.id}/roll`, { grace_hours: graceHours }));
  if (answer.status !== 201) return say(problem(answer));
  showNewKey(answer.body);
  say(`Rolled: the old key works until ${new Date(answer.body.replaces.expires_at).toLocaleString()}.`);
  return refresh();
}

async function revokeKey(key) {
  const answer = await api('DELETE', `keys/${key.id}`);
  if (answer.status !== 200) return say(problem(answer));
  say(`Revoked: refused everywhere within ${answer.body.refused_within_seconds} seconds.`);
  return refresh();
}

async function makeKey(event) {
  event.preventDefault();
  const form = event.target;
  const data = new FormData(form);
  const expires = data.get('expires');
  const body = {
    label: data.get('label'),
    kind: data.get('kind'),
    apis: data.getAll('apis'),
    origins: String(data.get('origins')).split('\n').map((o) => o.trim()).filter(Boolean),
    ip_ranges: String(data.get('ip_ranges')).split('\n').map((o) => o.trim()).filter(Boolean),
  };
  if (expires) body.expires_at = new Date(`${expires}T00:00:00Z`).toISOString();
  const answer = await confirmed(() => api('POST', 'keys', body));
  const refused = $('refused-origins');
  refused.hidden = true;
  if (answer.status !== 201) {
    const details = answer.body?.details ?? {};
    const listed = [...(details.refused_origins ?? []).map((o) => [o.origin, o.message]),
      ...(details.refused_ranges ?? []).map((r) => [r.range, r.message])];
    if (listed.length > 0) {
      refused.hidden = false;
      refused.replaceChildren(...listed.map(([text, message]) => {
        const p = document.createElement('p');
        p.textContent = `Refused ${text}: ${message}`;
        return p;
      }));
    }
    return say(problem(answer));
  }
  form.reset();
  showNewKey(answer.body);
  say('Key made. Copy it now.');
  return listKeys();
}

/** Makes a passkey for `options` (a ceremony's answer); resolves to its JSON, or null. */
async function createPasskey(options) {
  try {
    const credential = await navigator.credentials.create({
      publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.publicKey),
    });
    return credential.toJSON();
  } catch (err) {
    say(`No passkey was made (${err.name}).`);
    return null;
  }
}

async function addPasskey() {
  const options = await confirmed(() => api('POST', 'passkeys/options'));
  if (options.status !== 200) return say(problem(options));
  const credential = await createPasskey(options.body);
  if (!credential) return undefined;
  const answer = await api('POST', 'passkeys', { ceremony: options.body.ceremony, credential });
  if (answer.status !== 201) return say(problem(answer));
  say('Passkey added.');
  return refresh();
}

async function removePasskey(id) {
  const answer = await api('DELETE', `passkeys/${id}`);
  if (answer.status !== 200) return say(problem(answer));
  if (answer.body.signed_out) {
    showSignedOut();
    return say('Passkey removed. This session was started with it, so it has ended: sign in with another passkey.');
  }
  say('Passkey removed, and every session it started has ended.');
  return refresh();
}

/** The secret of an enrolment link (`#enrol=...`), if the page was opened with one. */
function enrolmentToken() {
  const match = /^#enrol=([A-Za-z0-9]+)$/.exec(window.location.hash);
  return match ? match[1] : null;
}

async function enrol() {
  const token = enrolmentToken();
  const options = await api('POST', 'enrolments/options', { token });
  if (options.status !== 200) return say(problem(options));
  const credential = await createPasskey(options.body);
  if (!credential) return undefined;
  const answer = await api('POST', 'enrolments', { ceremony: options.body.ceremony, credential });
  if (answer.status !== 201) return say(problem(answer));
  // The link is used up: take it out of the address bar and the history.
  window.history.replaceState(null, '', window.location.pathname);
  $('enrol').hidden = true;
  say('Passkey registered. You are signed in.');
  return refresh();
}

async function apply(event) {
  event.preventDefault();
  const data = Object.fromEntries(new FormData(event.target));
  const options = await api('POST', 'applications/options', data);
  if (options.status !== 200) return say(problem(options));
  const credential = await createPasskey(options.body);
  if (!credential) return undefined;
  const answer = await api('POST', 'applications', { ceremony: options.body.ceremony, credential });
  if (answer.status !== 201) return say(problem(answer));
  say('Application received. You are signed in while it waits for the operator.');
  return refresh();
}

/** Signs in with a passkey (a new session); whether it did, the status line saying why not. */
async function passkeySignIn() {
  const options = await api('POST', 'sessions/options');
  if (options.status !== 200) { say(problem(options)); return false; }
  let credential;
  try {
    credential = await navigator.credentials.get({
      publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.body.publicKey),
    });
  } catch (err) {
    say(`Not signed in (${err.name}).`);
    return false;
  }
  const answer = await api('POST', 'sessions', { ceremony: options.body.ceremony, credential: credential.toJSON() });
  if (answer.status !== 200) { say(problem(answer)); return false; }
  return true;
}

async function signIn() {
  if (!(await passkeySignIn())) return undefined;
  say('Signed in.');
  return refresh();
}

async function signOut() {
  await api('DELETE', 'sessions/current');
  $('new-key').hidden = true;
  say('Signed out.');
  showSignedOut();
}

/** Ends every session of the account, on every device, this one included. */
async function signOutEverywhere() {
  const answer = await api('DELETE', 'sessions');
  if (answer.status !== 200) return say(problem(answer));
  $('new-key').hidden = true;
  showSignedOut();
  return say('Signed out everywhere: every session of this account has ended.');
}

$('apply-form').addEventListener('submit', apply);
$('enrol-button').addEventListener('click', enrol);
$('add-passkey').addEventListener('click', addPasskey);
// A link opened in a tab already on the page changes only the fragment.
const showEnrolment = () => { $('enrol').hidden = enrolmentToken() === null; };
window.addEventListener('hashchange', showEnrolment);
showEnrolment();
$('sign-in').addEventListener('click', signIn);
$('sign-out').addEventListener('click', signOut);
$('sign-out-everywhere').addEventListener('click', signOutEverywhere);
$('key-form').addEventListener('submit', makeKey);
$('usage-key').addEventListener('change', showUsage);
$('copy-key').addEventListener('click', async () => {
  await navigator.clipboard.writeText($('new-key-text').textContent);
  say('Key copied.');
});
refresh();
showData();

/** Each city's data-through date and feeds, from the router's public health record. */
async function showData() {
  const list = $('data-cities');
  const response = await fetch('/health').catch(() => null);
  const health = response ? await response.json().catch(() => null) : null;
  const cities = health?.models?.cities;
  if (!Array.isArray(cities)) {
    const item = document.createElement('li');
    item.textContent = 'The service cannot say how fresh its data is right now.';
    list.replaceChildren(item);
    return;
  }
  list.replaceChildren(...cities.map((city) => {
    const f = city.freshness;
    const parts = [`${city.city}: data through ${city.data_through} (${f.age_days} days ago)`];
    if (f.fed) parts.push(f.last_sync ? `last synced ${f.last_sync.slice(0, 10)}` : 'not synced yet');
    for (const reason of f.lagging) parts.push(reason);
    const item = document.createElement('li');
    item.textContent = parts.join('; ');
    return item;
  }));
}
