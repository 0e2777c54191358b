// The portal's API as the attacker's suites call it under `wrangler dev`: JSON
// requests from the portal's own page (its Origin), a session cookie when given,
// and the passkey ceremonies of tests/support/authenticator.mjs.

/** A client of the Worker at `url` whose portal is served from `portal`. */
export function portalClient(url, portal) {
  async function call(method, path, { body, cookie, origin = portal, headers = {} } = {}) {
    const sent = { ...headers };
    if (origin) sent.origin = origin;
    if (cookie) sent.cookie = cookie;
    if (body) sent['content-type'] = 'application/json';
    const response = await fetch(`${url}${path}`, { method, headers: sent, body: body && JSON.stringify(body) });
    return { status: response.status, json: await response.json().catch(() => null), headers: response.headers };
  }

  /** Applies as `name` with `device`'s new passkey: the answer (201, a session cookie). */
  async function apply(device, name) {
    const slug = name.toLowerCase().replace(/[^a-z]/g, '');
    const start = await call('POST', '/portal/api/applications/options', {
      body: { organisation: name, email: `ops@${slug}.example`, intended_use: 'testing' },
    });
    return call('POST', '/portal/api/applications', { body: { ceremony: start.json.ceremony, credential: device.create(start.json.publicKey) } });
  }

  /** Signs in with `device`, its assertion changed as `forgery` says (authenticator.mjs). */
  async function signIn(device, forgery) {
    const asked = await call('POST', '/portal/api/sessions/options');
    return call('POST', '/portal/api/sessions', { body: { ceremony: asked.json.ceremony, credential: device.get(asked.json.publicKey, forgery) } });
  }

  return { call, apply, signIn, cookieOf: (answer) => answer.headers.get('set-cookie').split(';')[0] };
}
