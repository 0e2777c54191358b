// The two engines behind one interface: the wasm engine in the page (offline) and the
// HTTP APIs (online). Both take the same request shapes and give the same answers, so
// the map draws from either without knowing which.

/** The query string of a GET request, without empty values. */
const query = (q) => `?${new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined && v !== ''))}`;

/**
 * The wasm engines: `engine` the grid engine, `roads()` a promise of the roads engine
 * (routes, reach, streets, places), which holds the cities' full files. `clock` is
 * "now" in milliseconds (the default forecast week). Grid scores come from
 * `boxScores` (columns, with the engine's score memo), so a recolour with the same
 * options does not score the city again.
 */
export function offlineEngine(engine, roads, clock) {
  // The text ids of the last box's cells: a recolour scores the same cells again.
  let last = { cells: new BigUint64Array(0), ids: [] };
  const sameCells = (a, b) => a.length === b.length && a.every((cell, i) => cell === b[i]);
  return {
    name: 'offline',
    gridBands(box, options) {
      const scored = engine.boxScores({ ...box, ...options }, clock);
      if (!sameCells(scored.cells, last.cells)) last = { cells: scored.cells, ids: Array.from(scored.cells, (cell) => cell.toString(16)) };
      return Promise.resolve({ ids: last.ids, bands: scored.colorIndexes });
    },
    breakdown: async (q) => engine.breakdown(q, clock),
    route: async (body) => (await roads()).route(body, clock),
    reach: async (body) => (await roads()).reach(body, clock),
    precincts: async (q) => engine.precincts(q, clock),
    streets: async (box, options) => (await roads()).streetsInBox({ ...box, ...options }, clock),
    reverse: async (point) => (await roads()).reverse(point),
    search: async (q) => (await roads()).search(q),
  };
}

/**
 * The HTTP APIs at `api` with the router key `key`. `onVersions` receives the
 * model versions each answer names (`Hexrisk-Model-Version: code=label, …`).
 */
export function onlineEngine(api, key, onVersions) {
  async function http(method, path, body) {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const versions = {};
    for (const pair of (response.headers.get('hexrisk-model-version') ?? '').split(',')) {
      const [code, label] = pair.trim().split('=');
      if (code && label) versions[code] = label;
    }
    onVersions(versions);
    const answer = await response.json();
    if (!response.ok) throw Object.assign(new Error(answer.message), { code: answer.code, details: answer.details });
    return answer;
  }
  return {
    name: 'online',
    async gridBands(box, options) {
      const list = await http('GET', `/hexes/all${query({ ...box, ...options })}`);
      return { ids: list.map((item) => item.h), bands: Int8Array.from(list, (item) => item.ci) };
    },
    breakdown: (q) => http('GET', `/hexes/breakdown${query(q)}`),
    route: (body) => http('POST', '/route', body),
    reach: (body) => http('POST', '/reach', body),
    precincts: (q) => http('GET', `/precincts${query(q)}`),
    streets: (box, options) => http('GET', `/streets${query({ ...box, ...options })}`),
    reverse: (point) => http('GET', `/places/reverse${query(point)}`),
    search: (q) => http('GET', `/places${query(q)}`),
  };
}
