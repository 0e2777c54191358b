// Regenerates the tables of docs/BENCHMARKS.md from the figures the benchmarks
// wrote to build/bench/*.json, between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`
// markers, with the machine and the date. A block whose figures are missing is left
// as it was (and named on the console), so a partial run never blanks a table.
//
//   node bench/report.mjs            (the last step of `make bench`)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const root = new URL('../', import.meta.url);
const docPath = new URL('docs/BENCHMARKS.md', root);
const figures = (name) => {
  const file = new URL(`build/bench/${name}.json`, root);
  return existsSync(file) ? JSON.parse(readFileSync(file)) : null;
};
const today = new Date().toISOString().slice(0, 10);
/** The day a block's figures were measured: its figure file's, not the report's. */
const measuredOn = (name) => statSync(new URL(`build/bench/${name}.json`, root)).mtime.toISOString().slice(0, 10);
const ms = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
const ratio = (a, b) => `${(a / b).toFixed(1)}x`;
const met = (ok) => (ok ? 'met' : '**not met**');
const table = (head, rows) => [
  `| ${head.join(' | ')} |`,
  `|${head.map(() => '---').join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n');

function version(command, args) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n')[0];
  } catch {
    return `${command} (not found)`;
  }
}

function machine() {
  const release = existsSync('/etc/os-release')
    ? /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1]
    : os.type();
  const wrangler = JSON.parse(readFileSync(new URL('node_modules/wrangler/package.json', root))).version;
  const h3js = JSON.parse(readFileSync(new URL('node_modules/h3-js/package.json', root))).version;
  return [
    `Generated ${today} by \`make bench\` on: ${os.cpus().length} × ${os.cpus()[0]?.model?.trim() ?? 'unknown CPU'},`,
    `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${release}; ${version('rustc', ['--version'])};`,
    `Node ${process.version}; wrangler ${wrangler}; h3-js ${h3js}.`,
  ].join('\n');
}

function scoring() {
  const native = figures('scoring-native');
  const wasm = figures('scoring-wasm');
  if (!native || !wasm) return null;
  const names = {
    ring41: `ring k = 41 with scores (${native.cells.ring} cells)`,
    score5000: `scores of ${native.cells.score} given cells`,
    viewport: `viewport: Toronto's bounds (${native.cells.viewport} covered cells)`,
  };
  const rows = Object.entries(names).map(([job, name]) => {
    const w = wasm.jobs[job];
    const js = w.h3_js_map.median_ms;
    return [
      name,
      ms(native.columns_kept[job].median_ms, 3),
      ms(w.wasm_columns_kept.median_ms, 3),
      ms(w.wasm_columns_changed.median_ms, 3),
      ms(js, 3),
      `**${ratio(js, w.wasm_columns_kept.median_ms)}**`,
      ratio(js, w.wasm_columns_changed.median_ms),
      ms(native.json[job].median_ms),
      ms(w.wasm_objects.median_ms),
    ];
  });
  const ring = wasm.jobs.ring41;
  const aim = ring.h3_js_map.median_ms / ring.wasm_columns_kept.median_ms;
  return [
    `Median ms, Toronto, ${measuredOn('scoring-native')}.`,
    '',
    table([
      'job', 'native columns', 'wasm columns', 'wasm columns, options changed', 'h3-js + Map',
      'h3-js + Map / wasm', '… options changed', 'native JSON rows', 'wasm objects',
    ], rows),
    '',
    `Aim (ring-41 lookup with scores in wasm at least 5x faster than h3-js plus a JS Map): ` +
      `${ratio(ring.h3_js_map.median_ms, ring.wasm_columns_kept.median_ms)} with the same options as the previous call — ` +
      `**${aim >= 5 ? 'met' : 'not met'}**; ` +
      `${ratio(ring.h3_js_map.median_ms, ring.wasm_columns_changed.median_ms)} when the options change on every call ` +
      '(the city\'s scores are recomputed each time).',
    `Parts, natively: H3 grid disk k = 41 ${ms(native.parts.grid_disk41.median_ms, 3)} ms; one week of Toronto's ` +
      `scores ${ms(native.parts.city_scores.median_ms, 3)} ms.`,
    ...(wasm.time_of_day ? [
      `The map's recolour at a chosen hour, in wasm: the viewport's scores with the hour of the week alternating ` +
        `between Friday 23:00 and Monday 03:00 (every call rescores the city in a time band): median ` +
        `${ms(wasm.time_of_day.viewport_hour_changed.median_ms, 3)} ms, p90 ` +
        `${ms(wasm.time_of_day.viewport_hour_changed.p90_ms, 3)} ms, against the 50 ms aim for the whole recolour ` +
        '(drawing included: "Map app in the browser" below).',
    ] : []),
  ].join('\n');
}

function routing() {
  const native = figures('routing-native');
  const wasm = figures('routing-wasm');
  if (!native || !wasm) return null;
  const row = (name, r) => [name, ms(r.median_ms), ms(r.p90_ms), ms(r.max_ms)];
  return [
    `Toronto, ${native.route_request.n} origin-destination pairs 2–15 km apart, method \`safest\`, ${measuredOn('routing-native')}.`,
    '',
    table(['', 'median ms', 'p90 ms', 'max ms'], [
      row(native.route_request_back_to_back
        ? 'native, whole request, between the reference searches (caches emptied)'
        : 'native, whole request', native.route_request),
      ...(native.route_request_back_to_back
        ? [row('native, whole request, back to back (as in wasm)', native.route_request_back_to_back)]
        : []),
      row(`wasm under Node ${wasm.node}, whole request, back to back`, wasm.route_request),
      ...(native.hierarchy_search ? [
        row('native, hierarchy search only (metric cached)', native.hierarchy_search),
        row('native, one customisation of the hierarchy', native.customisation),
        ...(native.kept_scores ? [
          row('native, scores for the week, computed (a request with a new week or options)', native.scores_for_the_week),
          row('native, scores for the week, found kept on the city (every later request)', native.kept_scores),
          ...(native.street_risk_kept ? [
            row('native, each street\'s risk from the scores, worked out (with new scores)', native.street_risk),
            row('native, each street\'s risk, found kept with the scores (every later request)', native.street_risk_kept),
          ] : native.street_risk ? [row('native, each street\'s risk from the scores (every request)', native.street_risk)] : []),
        ] : [row('native, scores for the week (part of every request)', native.scores_for_the_week)]),
      ] : []),
      row('native, A* search only', native.astar_search),
      row('native, petgraph Dijkstra (reference)', native.petgraph_dijkstra),
      ...(native.tradeoff_request ? [
        row('native, whole `tradeoff` request', native.tradeoff_request),
        row('native, trade-off search only', native.tradeoff_set),
        row('native, safe reach: 15-minute walk from each origin', native.reach_walk_15_min),
      ] : []),
      ...(wasm.tradeoff_request ? [
        row('wasm, whole `tradeoff` request', wasm.tradeoff_request),
        row('wasm, safe reach: 15-minute walk', wasm.reach_walk_15_min),
      ] : []),
    ]),
    '',
    `Ratios at the median: ` +
      (native.hierarchy_search
        ? `the hierarchy ${ratio(native.petgraph_dijkstra.median_ms, native.hierarchy_search.median_ms)} faster than the reference Dijkstra, `
        : '') +
      `A* ${ratio(native.petgraph_dijkstra.median_ms, native.astar_search.median_ms)} faster than ` +
      `the reference Dijkstra; wasm ${ratio(wasm.route_request.median_ms, (native.route_request_back_to_back ?? native.route_request).median_ms)} native (both back to back). ` +
      `Index build (R-tree, segment lengths, landmarks${native.hierarchy_arcs ? ', hierarchy' : ''}) ${ms(native.index_build_ms, 0)} ms natively, ${ms(wasm.first_route_ms, 0)} ms ` +
      `in wasm with the first route; artifact load in wasm ${ms(wasm.load_ms, 0)} ms.` +
      (native.tradeoff_request
        ? ` A trade-off set holds ${native.tradeoff_mean_routes.toFixed(1)} routes on average, thinned from ` +
          `${native.tradeoff_mean_corners.toFixed(1)} hull corners.`
        : ''),
    ...routingAims(native, wasm),
    ...(native.request_parts ? [
      '',
      'Where a whole native request\'s time goes (medians, each part timed alone on the same pairs): ' +
        `the two searches (the route and the shortest route it is explained against) ${ms(native.request_parts.searches.median_ms)} ms, ` +
        `both lines' geometry and corridor evaluation ${ms(native.request_parts.lines_evaluated.median_ms)} ms, ` +
        `the route's hex-path metrics ${ms(native.request_parts.hex_path_metrics.median_ms)} ms, ` +
        `its explanation ${ms(native.request_parts.explanation.median_ms)} ms, ` +
        (native.kept_scores
          ? `the week's scores ${ms(native.kept_scores.median_ms, 4)} ms (found kept; ${ms(native.scores_for_the_week.median_ms)} ms to compute for a new week or options).`
          : `the week's scores ${ms(native.scores_for_the_week.median_ms)} ms.`),
    ] : []),
    ...(figures('route-memory') ? routeMemory(figures('route-memory')) : []),
    ...(native.hierarchies ? [
      '',
      'The contraction hierarchy of each city\'s network (natively; one customisation for the `safest` cost model, median of 10):',
      '',
      table(['city', 'nodes', 'edges', 'arcs', 'topology ms', 'customisation ms', 'metric MiB'],
        Object.entries(native.hierarchies).map(([code, h]) => [
          code, h.nodes.toLocaleString('en-US'), h.edges.toLocaleString('en-US'), h.arcs.toLocaleString('en-US'),
          ms(h.topology_ms, 1), ms(h.customisation.median_ms, 1), h.metric_mib.toFixed(1),
        ])),
    ] : []),
  ].join('\n');
}

// The reference Dijkstra's median on the day the routing aims were set.
const AIMS_SET_WITH_DIJKSTRA_MS = 0.92;

/**
 * The routing aims against this run's medians, and each median as a multiple of the
 * run's reference Dijkstra: the VM's speed varies by up to 1.7x between runs, and the
 * Dijkstra, the same code on the same pairs, shows it (for one layout of the road
 * graph: it reads the graph too).
 */
function routingAims(native, wasm) {
  if (!native.customisation || !native.tradeoff_set) return [];
  const dijkstra = native.petgraph_dijkstra.median_ms;
  const aims = [
    ['whole `safest` request natively, between the reference searches', native.route_request, 0.3],
    ['whole `safest` request natively, back to back', native.route_request_back_to_back, 0.3],
    ['whole `safest` request in wasm, back to back', wasm.route_request, 1],
    ['one customisation natively', native.customisation, 10],
    ['the trade-off set natively', native.tradeoff_set, 5],
  ].filter(([, figures]) => figures);
  return [
    '',
    `The routing aims in this run (medians; the reference Dijkstra took ${ms(dijkstra)} ms):`,
    '',
    table(['aim', 'at most', 'this run', '÷ reference Dijkstra', ''], aims.map(([name, figures, most]) => [
      name, `${most} ms`, `${ms(figures.median_ms)} ms`, (figures.median_ms / dijkstra).toFixed(2),
      met(figures.median_ms <= most),
    ])),
    '',
    `The request aims were set when this Dijkstra took ${AIMS_SET_WITH_DIJKSTRA_MS} ms: as multiples of it, ` +
      `${(0.3 / AIMS_SET_WITH_DIJKSTRA_MS).toFixed(2)} natively and ${(1 / AIMS_SET_WITH_DIJKSTRA_MS).toFixed(2)} in wasm.`,
  ];
}

/** The Worker's wasm memory as each city routes (bench/http/route-memory.mjs). */
function routeMemory(run) {
  const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  return [
    '',
    `The Worker's wasm linear memory under \`wrangler dev\` (${run.date}), fresh, then after each step in turn ` +
      '(a `safest` route builds the city\'s hierarchy and customises its own and the length-only metric; a `tradeoff` set adds the exposure-only metric):',
    '',
    table(['city', 'step', 'wasm memory'], run.steps.map((s) => [s.city ?? '–', s.step, mib(s.wasm_memory_bytes)])),
    '',
    `After the last step: ${mib(run.steps.at(-1).wasm_memory_bytes)}, against the aim of under 48 MiB ` +
      `(**${run.steps.at(-1).wasm_memory_bytes < 48 * 2 ** 20 ? 'met' : 'not met'}**).`,
  ];
}

function http() {
  const run = figures('http');
  const direct = figures('router-direct');
  if (!run) return null;
  const base = run.results[0].rps;
  const lines = [
    `\`wrangler dev\` on loopback, wrk -t${run.threads} -c${run.connections} -d${run.seconds}s per route, one after ` +
      `the other in one run, ${measuredOn('http')}.`,
    '',
    table(['route', 'requests/s', 'vs no-op', 'mean ms', 'p50 ms', 'p99 ms', 'non-2xx'], run.results.map((r) => [
      r.name, r.rps.toFixed(0), `${(100 * r.rps / base).toFixed(0)}%`, ms(r.avg), ms(r.p50), ms(r.p99), r.errors,
    ])),
  ];
  if (run.latency) {
    const gap = (latency) => {
      const noop = latency[0];
      const predict = latency.find((l) => l.name === 'POST /v1/predict');
      return predict.median_ms - noop.median_ms;
    };
    lines.push('', `Unloaded: ${run.latency[0].n} requests of each, one at a time, taking turns, first on a fresh key ` +
      '(fewer than ten blocks of its quota used: each request a gate round trip)' +
      `${run.busyLatency ? ', then again after the loaded runs (the key busy: decided with the isolate\'s blocks)' : ''}.`, '',
      table(['route', 'median ms', 'p90 ms'], run.latency.map((l) => [l.name, ms(l.median_ms), ms(l.p90_ms)])));
    if (run.busyLatency) {
      lines.push('', table(['route, the key busy', 'median ms', 'p90 ms'], run.busyLatency.map((l) => [l.name, ms(l.median_ms), ms(l.p90_ms)])));
    }
    lines.push('', `Median of POST /v1/predict minus the no-op's: **${ms(gap(run.latency))} ms** on a fresh key ` +
      `(aim: at most 1.5 ms; ${met(gap(run.latency) <= 1.5)})` +
      (run.busyLatency ? `, **${ms(gap(run.busyLatency))} ms** on a busy one (${met(gap(run.busyLatency) <= 1.5)})` : '') + '.');
  }
  const predictLoaded = run.results.find((r) => r.name === 'POST /v1/predict');
  if (predictLoaded) {
    const share = predictLoaded.rps / base;
    lines.push('', `POST /v1/predict under load: **${(100 * share).toFixed(0)}%** of the no-op's requests per second ` +
      `(aim: at least 70 %; ${met(share >= 0.7)}).`);
  }
  if (direct) {
    const perRequest = (route) => {
      const match = run.results.find((r) => r.name === route);
      return match ? ms(1000 / match.rps, 1) : '–';
    };
    lines.push('', table(['handler called directly', 'median ms', 'p90 ms', 'ms of Worker time per HTTP request (1000 / req/s)'],
      direct.map((d) => [d.name, ms(d.median_ms), ms(d.p90_ms), perRequest(d.route)])));
  }
  return lines.join('\n');
}

/** A cold Worker's first Toronto answer and its wasm memory per city (bench/http/cold.mjs). */
function cold() {
  const run = figures('cold');
  if (!run) return null;
  const base = figures('cold-base');
  const mib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : '–');
  const lines = [
    `\`wrangler dev\` started afresh for each of ${run.runs} runs, ${measuredOn('cold')}, on ${os.cpus().length} × ${os.cpus()[0]?.model?.trim() ?? 'unknown CPU'};`,
    'milliseconds from the request to the whole answer, on loopback.',
    '',
    table(['code', 'first Toronto prediction, median', 'each run', 'the same after one request that reads no model (the model loading alone), median', 'each run', 'second Toronto prediction, median'], [
      ...(base ? [[`before (${base.label})`, ms(base.first_toronto_median_ms, 0), base.first_toronto_ms.map((x) => ms(x, 0)).join(', '),
        ms(base.keys_warm_first_toronto_median_ms, 0), (base.keys_warm_first_toronto_ms ?? []).map((x) => ms(x, 0)).join(', '), ms(base.warm_toronto_median_ms, 1)]] : []),
      ['current', ms(run.first_toronto_median_ms, 0), run.first_toronto_ms.map((x) => ms(x, 0)).join(', '),
        ms(run.keys_warm_first_toronto_median_ms, 0), run.keys_warm_first_toronto_ms.map((x) => ms(x, 0)).join(', '), ms(run.warm_toronto_median_ms, 1)],
    ]),
  ];
  if (base) {
    lines.push('', `Current / before: **${(run.first_toronto_median_ms / base.first_toronto_median_ms).toFixed(2)}** for the first answer `
      + `(aim: at most 0.5), **${(run.keys_warm_first_toronto_median_ms / base.keys_warm_first_toronto_median_ms).toFixed(2)}** for the model loading alone.`);
  }
  lines.push(
    '',
    'wasm linear memory of the isolate after each city is first needed, in this order (it never shrinks; freed space is reused):',
    '',
    table(['after', 'default bound (8 cities)', 'cities kept', 'HEXRISK_MAX_CITIES=1', 'cities kept'], run.memory.map((m, i) => {
      const one = run.memory_max_cities_1[i] ?? {};
      return [m.city, mib(m.wasm_memory_bytes), (m.cached ?? []).join(', '), mib(one.wasm_memory_bytes), (one.cached ?? []).join(', ')];
    })),
  );
  return lines.join('\n');
}

/** The map app in Chromium, the app's hex canvas beside Leaflet's renderers (bench/browser/map.mjs). */
function mapApp() {
  const run = figures('map');
  if (!run) return null;
  const names = { 'hex-canvas': 'hex canvas (the app)', canvas: "Leaflet's canvas (`?renderer=canvas`)", svg: 'SVG (`?renderer=svg`)' };
  const renderers = Object.keys(names).filter((r) => run[r]);
  const steps = run['hex-canvas'].first_grid_steps_median_ms;
  const parts = run['hex-canvas'].houston_recolour_parts_median_ms;
  return [
    `${run.chromium}, headless, 1024×768, ${measuredOn('map')}; ${run.runs} runs per renderer, each in a fresh browser context`,
    '(empty cache, no service worker); milliseconds measured in the page. A recolour is an intent change:',
    'new scores from the wasm engine, the hexes restyled, and the frame that shows them; a zoom, from the',
    'change of zoom level (no animation) to the frame that shows it.',
    '',
    table(['hex renderer', 'first coloured Toronto grid after navigation, median', 'each run', 'recolour, Toronto (815 cells), median', 'recolour, Houston (3,337 cells), median (p90)', "Houston's grid created (city switch), median", 'zoom in or out, Houston, median (p90)'],
      renderers.map((r) => [names[r], ms(run[r].first_grid_median_ms, 0), run[r].first_grid_ms.map((x) => ms(x, 0)).join(', '),
        ms(run[r].toronto_recolour_median_ms, 1), `${ms(run[r].houston_recolour_median_ms, 1)} (${ms(run[r].houston_recolour_p90_ms, 1)})`,
        ms(run[r].houston_grid_created_median_ms, 0), `${ms(run[r].houston_zoom_median_ms, 1)} (${ms(run[r].houston_zoom_p90_ms, 1)})`])),
    '',
    ...(run.repeat_visit ? [`A second visit of the installed app (service worker and kept model files; hex canvas): first grid `
      + `${ms(run.repeat_visit.first_grid_median_ms, 0)} ms median (${run.repeat_visit.first_grid_ms.map((x) => ms(x, 0)).join(', ')}).`, ''] : []),
    `The hex canvas's first grid, medians since navigation: grid engine ready ${ms(steps['engine-ready'], 0)} (lib/boot.js), app module `
      + `running ${ms(steps['app-start'], 0)}, Toronto's grid file fetched ${ms(steps.fetched, 0)} and decoded ${ms(steps.decoded, 0)}, `
      + `scored ${ms(steps['first-scores'], 0)}, styled ${ms(steps['first-styled'], 0)}`
      + `${steps['roads-engine-ready'] === undefined ? '' : `; after it, the roads engine ready at ${ms(steps['roads-engine-ready'], 0)}`}`
      + `${steps.network === undefined ? '' : `; the full file (road network: routes, streets) in at ${ms(steps.network, 0)}`}. Its Houston recolour: scores `
      + `${ms(parts.scores, 1)}, styles and paint ${ms(parts.styles, 1)}, then ${ms(parts.frame, 1)} to the rendered frame.`,
    '',
    `Aims: first coloured grid at most 500 ms (${met(run['hex-canvas'].first_grid_median_ms <= 500)}), a Houston recolour at most 50 ms `
      + `(${met(run['hex-canvas'].houston_recolour_median_ms <= 50)}). Houston recolour, hex canvas against `
      + `Leaflet's canvas ${ratio(run['hex-canvas'].houston_recolour_median_ms, run.canvas.houston_recolour_median_ms)}, against SVG `
      + `${ratio(run['hex-canvas'].houston_recolour_median_ms, run.svg.houston_recolour_median_ms)}; Houston zoom against Leaflet's canvas `
      + `${ratio(run['hex-canvas'].houston_zoom_median_ms, run.canvas.houston_zoom_median_ms)}, against SVG `
      + `${ratio(run['hex-canvas'].houston_zoom_median_ms, run.svg.houston_zoom_median_ms)}.`,
  ].join('\n');
}

let doc = readFileSync(docPath, 'utf8');
/** Place search: the campus measurement, the file sizes and the wasm timings. */
function places() {
  const check = figures('place-check');
  const wasm = figures('places-wasm');
  if (!check || !wasm) return null;
  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
  const pct = (a, b) => `${((100 * a) / b).toFixed(1)} %`;
  const { sizes } = check;
  const index = sizes.full - sizes.withoutIndex;
  const names = sizes.withoutIndex - sizes.withoutNamesOrIndex;
  const misses = check.lookups.filter((l) => !l.found);
  const timing = (label, r, aim) => [label, String(r.queries), ms(r.median_ms, 3), ms(r.p95_ms, 3), ms(r.max_ms, 3), aim];
  return [
    `${measuredOn('place-check')}; \`hexrisk-build place-check\` (the lookups and sizes) then \`node bench/wasm/places.mjs\` (Node ${wasm.node}), \`${check.city}\`.`,
    '',
    `**Names written by others.** Every intersection of two named streets in \`toronto/uoft_campus.osm\` (OpenStreetMap's spelling, "Saint George Street & Harbord Street") looked up in Toronto's index (the City's spelling, "ST GEORGE ST"):`,
    '',
    table(['intersections', 'found first within 60 m', 'aim', 'of those whose two names the City\'s network has', 'found first within 60 m'], [[
      String(check.intersections), `${check.found} (${pct(check.found, check.intersections)})`,
      `at least 90 % (${met(check.share >= 0.9)})`, String(check.withBothNames),
      `${check.foundWithBothNames} (${pct(check.foundWithBothNames, check.withBothNames)})`,
    ]]),
    '',
    'The misses, and why:',
    '',
    table(['query', 'first answer', 'metres from the OSM node', 'why'], misses.map((l) => [
      l.query, l.answer ?? '(none)', l.distanceM === null ? '–' : ms(l.distanceM, 0), l.why,
    ])),
    '',
    table(['file', 'bytes', 'budget'], [
      ['Toronto full file', String(sizes.full), ''],
      ['its place index (full file with it − without it)', kb(index), `at most 400 KB (${met(index <= 400 * 1024)})`],
      ['its street names (without the index, with names − without)', kb(names), `at most 250 KB (${met(names <= 250 * 1024)})`],
      ['Toronto grid file (no road network: neither names nor index)', String(sizes.grid), 'unchanged by names and index (met: it carries neither)'],
    ]),
    '',
    `In wasm, each query ${wasm.prefix3.n / wasm.prefix3.queries} times, limit 5; the first search derives its streets' positions and intersections (the index is searched as stored) in ${ms(wasm.first_search_ms, 1)} ms.`,
    '',
    table(['queries', 'count', 'median ms', 'p95 ms', 'max ms', 'aim'], [
      timing('three-letter beginnings of every street name (a third keystroke)', wasm.prefix3, `p95 at most 2 ms (${met(wasm.prefix3.p95_ms <= 2)})`),
      timing('the campus intersections, "A & B" as OpenStreetMap spells them', wasm.intersections, ''),
      timing('their street names with the second letter dropped (suggestions)', wasm.typos, ''),
    ]),
  ].join('\n');
}
function tiles() {
  const native = figures('tiles-native');
  const wasm = figures('tiles-wasm');
  if (!native || !wasm) return null;
  const rows = native.tiles.map((n, i) => {
    const w = wasm.tiles[i];
    return [`${n.z}/${n.x}/${n.y}${n.z >= 14 ? ' (hexes and streets)' : ' (hexes)'}`, ms(n.kept.median_ms, 3), ms(w.kept.median_ms, 3),
      (n.bytes / 1024).toFixed(1), (w.gzip_bytes / 1024).toFixed(1)];
  });
  const z14 = native.tiles.findIndex((t) => t.z === 14);
  const [n14, w14] = [native.tiles[z14], wasm.tiles[z14]];
  return [
    `Toronto, downtown (Union Station), the city's scores kept from the previous tile, ${measuredOn('tiles-native')}.`,
    '',
    table(['tile z/x/y', 'native median ms', 'wasm median ms', 'KB', 'KB gzipped'], rows),
    '',
    `Aims for the z14 tile: at most 3 ms natively, ${ms(n14.kept.median_ms)} ms (${met(n14.kept.median_ms <= 3)}); ` +
      `at most 5 ms in wasm, ${ms(w14.kept.median_ms)} ms (${met(w14.kept.median_ms <= 5)}); ` +
      `at most 50 KB gzipped, ${(w14.gzip_bytes / 1024).toFixed(1)} KB (${met(w14.gzip_bytes <= 50 * 1024)}).`,
  ].join('\n');
}

/** Tiles over HTTP beside the score call, and the MapLibre example drawn (bench/browser/tiles.mjs). */
function tilesHttp() {
  const run = figures('tiles-http');
  if (!run) return null;
  const { http, maplibre } = run;
  const gap = (name, base) => http[name].median_ms - http[base].median_ms;
  const row = (label, name, base) => [label, ms(http[name].median_ms), ms(http[name].p90_ms),
    base ? `${gap(name, base) >= 0 ? '+' : ''}${ms(gap(name, base))}` : '', base ? `within 2 ms (${met(gap(name, base) <= 2)})` : ''];
  return [
    `\`wrangler dev\` (workerd) on loopback, ${run.date}: unloaded, one request at a time, taking turns, over ${run.tiles} distinct`,
    `downtown Toronto z14 tiles (median ${run.cells_median} cells each; the first, ${run.tile.z}/${run.tile.x}/${run.tile.y}, is ${(run.tile_bytes / 1024).toFixed(1)} KB).`,
    'Each tile is asked for twice: made (a miss in the Workers cache), then from the cache. The score call',
    'asks for the same cells with the same options.',
    '',
    table(['request', 'median ms', 'p90 ms', 'beside the score call', 'aim'], [
      row('POST /hexes/score, the tile\'s cells', 'score'),
      row('GET the tile, made', 'made', 'score'),
      row('GET the tile again, from the Workers cache', 'cached', 'score'),
      row('POST /hexes/score, a forecast week new to the isolate', 'scoreNewWeek'),
      row('GET a tile of a forecast week new to the isolate', 'madeNewWeek', 'scoreNewWeek'),
    ]),
    '',
    `The MapLibre GL JS example online (\`web-demo/examples/maplibre.html\`, ${run.chromium}, headless, 1024×768, Toronto at zoom 13),`,
    `${maplibre.runs} runs, each in a fresh browser context (nothing cached but the Workers cache): the map's first \`idle\` with the`,
    `layer drawn ${ms(maplibre.since_first_request_median_ms, 0)} ms (median) after its first request to the API, the style`,
    `(each run: ${maplibre.drawn.map((d) => ms(d.since_first_request_ms, 0)).join(', ')}); aim at most 700 ms (${met(maplibre.since_first_request_median_ms <= 700)}).`,
    `From navigation, the page's own scripts included: ${ms(maplibre.since_navigation_median_ms, 0)} ms.`,
  ].join('\n');
}

/** The whole safest request against an earlier commit's package (bench/wasm/route-ab.mjs). */
function routeAb() {
  const run = figures('route-ab');
  if (!run) return null;
  const kb = (bytes) => (bytes / 1024).toFixed(1);
  const row = (label, r) => [label, ms(r.median_ms, 3), ms(r.p90_ms, 3), ms(r.max_ms, 3), ms(r.load_ms, 1), kb(r.wasm_gzip_bytes)];
  return [
    `Node ${run.node}, ${run.date}: ${run.pairs} random pairs in central Toronto (seeded), method \`safest\`, each pair asked`,
    `of both packages in turn, ${run.rounds} rounds, the answer converted to JavaScript as a caller gets it. The other`,
    `package is \`${run.other_tree}\`'s, built by \`make bench-route-ab\` with its own model.`,
    '',
    table(['package', 'median ms', 'p90 ms', 'max ms', 'Toronto loaded in ms', 'wasm KB gzipped'], [
      row('this tree (`hexrisk/roads`)', run.this), row('the earlier commit', run.other),
    ]),
    '',
    `This tree's routes are asked of the roads engine (\`hexrisk/roads\`), loaded on demand; its default entry,`,
    'the grid engine a map loads first (forecasts, scores, lookups, tiles), is ' +
      `${kb(run.this.default_entry_wasm_gzip_bytes)} KB gzipped. KB here are 1,024 bytes.`,
    '',
    `Aims: the request at most 1.3x the earlier commit's, ${ratio(run.this.median_ms, run.other.median_ms)} ` +
      `(${met(run.this.median_ms <= 1.3 * run.other.median_ms)}); under 1 ms, ${ms(run.this.median_ms, 3)} ms ` +
      `(${met(run.this.median_ms < 1)}); the package's wasm (its default entry) at most 300,000 bytes gzipped, ` +
      `${run.this.default_entry_wasm_gzip_bytes.toLocaleString('en')} (${met(run.this.default_entry_wasm_gzip_bytes <= 300_000)}).`,
  ].join('\n');
}

// Only the blocks whose figures are all here; the machine line when every table is new.
const blocks = { scoring: scoring(), tiles: tiles(), 'tiles-http': tilesHttp(), routing: routing(), http: http(), cold: cold(), map: mapApp(), places: places(), 'route-ab': routeAb() };
blocks.machine = Object.values(blocks).every((b) => b !== null) ? machine() : null;
for (const [name, body] of Object.entries(blocks)) {
  const pattern = new RegExp(`(<!-- bench:${name} -->)[\\s\\S]*?(<!-- /bench:${name} -->)`);
  if (!pattern.test(doc)) throw new Error(`docs/BENCHMARKS.md has no bench:${name} block`);
  if (body === null) {
    console.log(`bench:${name}: no figures in build/bench, left as it was`);
    continue;
  }
  doc = doc.replace(pattern, (_, open, close) => `${open}\n${body}\n${close}`);
  console.log(`bench:${name}: regenerated`);
}
writeFileSync(docPath, doc);

// docs/ROUTING.md: the trade-off curve per city.
function curve() {
  const run = figures('tradeoff-curve');
  if (!run) return null;
  const pct = (x) => (Number.isFinite(x) ? `${x.toFixed(1)} %` : '–');
  return [
    `Exposure avoided against the shortest route by the least exposed route of the trade-off set at most 5, 10 ` +
      `and 20 % longer: median (and mean) over random pairs 2–10 km apart, default options, ${measuredOn('tradeoff-curve')} ` +
      '(`make bench`, `builder/benches/tradeoff_curve.rs`).',
    '',
    table(['city', 'network', 'week of', 'pairs', '+5 % length', '+10 % length', '+20 % length', 'pairs with any trade-off'],
      run.cities.map((c) => [
        c.name, c.network, c.week_of, c.pairs,
        ...c.median_avoided_pct.map((p) => `${pct(p.median)} (${pct(p.mean)})`),
        `${c.pairs_with_a_tradeoff} of ${c.pairs}`,
      ])),
  ].join('\n');
}
const routingPath = new URL('docs/ROUTING.md', root);
let routingDoc = readFileSync(routingPath, 'utf8');
const curveBlock = curve();
const curvePattern = /(<!-- bench:curve -->)[\s\S]*?(<!-- \/bench:curve -->)/;
if (!curvePattern.test(routingDoc)) throw new Error('docs/ROUTING.md has no bench:curve block');
if (curveBlock === null) {
  console.log('bench:curve: no figures in build/bench, left as it was');
} else {
  routingDoc = routingDoc.replace(curvePattern, (_, open, close) => `${open}\n${curveBlock}\n${close}`);
  writeFileSync(routingPath, routingDoc);
  console.log('bench:curve: regenerated (docs/ROUTING.md)');
}

// docs/BENCHMARKS.md: the simulated years of `make soak`, each city as last run.
/** A soak's week of sync, rebuild and publish: median and worst, Toronto's beside its aims. */
function weekly(r) {
  if (!r.weeklySeconds) return '–';
  const { median, max } = r.weeklySeconds;
  const s = (x) => x.toFixed(1);
  return r.city === 'city_ca_tor'
    ? `${s(median)} (${met(median < 40)}) / ${s(max)} (${met(max < 60)})`
    : `${s(median)} / ${s(max)}`;
}

function soak() {
  const runs = ['toronto', 'san_francisco', 'houston'].map((c) => figures(`soak-${c}`)).filter(Boolean);
  if (runs.length === 0) return null;
  const s = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
  return [
    `The simulated year (\`make soak\`, \`bench/soak.mjs\`), ${measuredOn('soak-toronto')}, on ${os.cpus().length} cores: opendata-sim ` +
      'replays each city\'s real incidents week by week (late reports, revisions, deletions, one wholesale ' +
      'replacement, a fault every seven weeks); each week `hexrisk-build update` syncs and rebuilds, ' +
      '`scripts/publish.sh` publishes, and the Worker under `wrangler dev` (clock following the data) takes the ' +
      'version up while two requests go out every 100 ms. The backtest column is the last week\'s build ' +
      '(sources with report times only; – where the run did not report one).',
    '',
    table(['city', 'weeks from', 'minutes (aim < 60)', 'requests', 'failed (aim 0)',
      'week\'s sync, rebuild and publish: median / max s (Toronto\'s aims < 40 / < 60)',
      'served within: median / max s', 'latency p50 / p99 ms', 'fault weeks',
      'last week\'s backtest Brier: as known then / as if complete', 'problems'],
    runs.map((r) => [
      r.city, `${r.weeks} from ${r.start}`, `${s(r.minutes)} (${met(r.minutes < 60)})`, r.requests,
      `${r.failedRequests} (${met(r.failedRequests === 0)})`,
      weekly(r),
      `${s(r.swapSeconds.median)} / ${s(r.swapSeconds.max)}`,
      `${s(r.latencyMs.p50)} / ${s(r.latencyMs.p99)}`,
      `${r.faultWeeks.length}: ${r.faultWeeks.filter((w) => w.updateCode !== 0 && w.failing > 0).length} failed and reported, ` +
        `${r.faultWeeks.filter((w) => w.updateCode === 0).length} went through (waited out, or on a one-page pull)`,
      r.lastBrier ? `${r.lastBrier.knownThen.toFixed(4)} / ${r.lastBrier.complete.toFixed(4)}` : '–',
      r.problems.length === 0 ? 'none' : r.problems.join('; '),
    ])),
  ].join('\n');
}

// The forecasts each soak served, scored (`hexrisk-build score-served`): beside the
// backtest of the same weeks, and, where the year was also run without late
// reports, the cost of lateness over the same weeks.
function soakScores() {
  const rows = [];
  for (const c of ['toronto', 'san_francisco', 'houston']) {
    const late = figures(`soak-${c}`);
    const onTime = figures(`soak-${c}-on-time`);
    const cost = latenessCost(late?.scores, onTime?.scores);
    if (late && !late.scores && !onTime) {
      rows.push([late.city, 'late reports', `– (its soak of ${late.start} ran before the loop scored what it served)`, '–', '–', '–', '–']);
      continue;
    }
    for (const run of [late, onTime]) {
      if (!run?.scores) continue;
      const b = run.scores.besideOffline;
      rows.push([
        run.city, run === late ? 'late reports' : 'on time', run.scores.weeks.length,
        run.scores.served.brier.toFixed(4), b ? `${b.weeks}: ${b.served.brier.toFixed(4)} / ${b.offline.brier.toFixed(4)}` : '–',
        b ? `${b.served.pai_5.toFixed(2)} / ${b.offline.pai_5.toFixed(2)}` : '–',
        run === late && cost ? `${cost.mean >= 0 ? '+' : ''}${cost.mean.toFixed(4)} over ${cost.weeks} weeks` : '–',
      ]);
    }
  }
  if (rows.length === 0) return null;
  return [
    'The forecast each soak served as the current week, scored against the incidents its store held at the end ' +
      '(`hexrisk-build score-served`), beside the same weeks of the backtest of a clean build from that store, on ' +
      'the cells both artifacts have (its past weeks: refitted every 13 weeks, where the loop refits every week). ' +
      'The lateness cost is the mean, over the weeks both runs served, of the late run\'s weekly served Brier minus ' +
      'the on-time run\'s (lower Brier is better).',
    '',
    table(['city', 'run', 'weeks scored', 'served Brier', 'weeks the backtest covers: served / backtest Brier',
      'PAI at 5 %: served / backtest', 'lateness cost (Brier)'], rows),
  ].join('\n');
}

/** The mean weekly Brier difference, late minus on time, over the weeks both served. */
function latenessCost(late, onTime) {
  if (!late?.byWeek || !onTime?.byWeek) return null;
  const onTimeBy = new Map(onTime.byWeek.map((w) => [w.week, w.brier]));
  const diffs = late.byWeek.filter((w) => onTimeBy.has(w.week)).map((w) => w.brier - onTimeBy.get(w.week));
  return diffs.length === 0 ? null : { weeks: diffs.length, mean: diffs.reduce((a, b) => a + b, 0) / diffs.length };
}
const soakScoresBlock = soakScores();
const soakBlock = soak();
let benchDoc = readFileSync(docPath, 'utf8');
const soakPattern = /(<!-- bench:soak -->)[\s\S]*?(<!-- \/bench:soak -->)/;
if (!soakPattern.test(benchDoc)) throw new Error('docs/BENCHMARKS.md has no bench:soak block');
if (soakBlock === null) {
  console.log('bench:soak: no figures in build/bench, left as it was');
} else {
  benchDoc = benchDoc.replace(soakPattern, (_, open, close) => `${open}\n${soakBlock}\n${close}`);
  writeFileSync(docPath, benchDoc);
  console.log('bench:soak: regenerated');
}
const scoresPattern = /(<!-- bench:soak-scores -->)[\s\S]*?(<!-- \/bench:soak-scores -->)/;
if (!scoresPattern.test(benchDoc)) throw new Error('docs/BENCHMARKS.md has no bench:soak-scores block');
if (soakScoresBlock === null) {
  console.log('bench:soak-scores: no figures in build/bench, left as it was');
} else {
  benchDoc = benchDoc.replace(scoresPattern, (_, open, close) => `${open}\n${soakScoresBlock}\n${close}`);
  writeFileSync(docPath, benchDoc);
  console.log('bench:soak-scores: regenerated');
}
