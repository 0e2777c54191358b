// The simulated year (`make soak`): the live-data loop of tests/support/feed-loop.mjs
// run week after week over a city's real incidents served by opendata-sim, with
// late reports, revisions, deletions, one wholesale replacement and a fault every
// few weeks, under continuous API traffic. Writes build/bench/soak-<city>.json and
// prints a summary; bench/report.mjs puts the table in docs/BENCHMARKS.md.
//
//   node bench/soak.mjs [--city toronto|san_francisco|houston] [--weeks N] [--on-time]
//
// At the end the forecast served each week is scored against the incidents known
// then, beside the same weeks of a clean build's backtest; `--on-time` runs the year
// without late reports (build/bench/soak-<city>-on-time.json), and the two runs'
// served scores set side by side are the cost of lateness.
//
// Each city's year is what its shared data covers after the first weeks a model
// needs (at least three full weeks): Toronto 2021 (after 2014-2020), San Francisco
// February to December 2012, and Houston March to August 2010 (the file ends there).
import { mkdirSync, writeFileSync } from 'node:fs';
import { runLoop } from '../tests/support/feed-loop.mjs';

const YEARS = {
  toronto: { start: '2021-01-04', weeks: 52 },
  san_francisco: { start: '2012-02-06', weeks: 47 },
  houston: { start: '2010-03-01', weeks: 26 },
};
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const city = arg('city', 'houston');
if (!YEARS[city]) throw new Error(`--city: one of ${Object.keys(YEARS).join(', ')}`);
const weeks = Number(arg('weeks', YEARS[city].weeks));
const onTime = process.argv.includes('--on-time');

// A fault every few weeks, each cleared after its week's update: the service
// down past the client's patience, a 429 storm waited out, a truncated page, an
// overlapping page, a gap, a layer turned private.
const FAULTS = [
  ['kind=down&n=50'],
  ['kind=too_many_requests&n=1&retry_after=0&hits_app_token=true'],
  ['kind=truncated_page'],
  ['kind=repeated_rows'],
  ['kind=skipped_rows'],
  ['kind=private'],
];
const faults = {};
for (let week = 6, i = 0; week <= weeks; week += 7, i++) faults[week] = FAULTS[i % FAULTS.length];

const started = performance.now();
const report = await runLoop({
  city,
  start: YEARS[city].start,
  weeks,
  faults,
  wholesaleWeek: Math.min(20, weeks),
  late: !onTime,
  score: true,
  onWeek: (w) => console.log(
    `week ${String(w.week).padStart(2)} ${w.clock.slice(0, 10)}: update ${w.updateCode === 0 ? 'ok    ' : 'FAILED'} ` +
      `${w.updateSeconds.toFixed(1).padStart(5)} s, store ${w.storeRows ?? '–'} / served ${w.servedRows}, ` +
      `data through ${w.dataThrough}, served in ${w.swapSeconds.toFixed(1)} s, current week ${w.currentWeek}` +
      `${w.currentWeek === w.expectedWeek ? '' : ` (expected ${w.expectedWeek})`}, health ${w.healthStatus}`,
  ),
});
const minutes = (performance.now() - started) / 60_000;
const clean = report.weeks.filter((w) => !faults[w.week]);
const problems = [
  ...report.failures.slice(0, 5).map((f) => `request failed: ${JSON.stringify(f)}`),
  ...report.weeks.filter((w) => w.currentWeek !== w.expectedWeek).map((w) => `week ${w.week}: current week ${w.currentWeek}, expected ${w.expectedWeek}`),
  ...clean.filter((w) => w.updateCode !== 0).map((w) => `week ${w.week}: update failed without a fault`),
  ...clean.filter((w) => w.storeRows !== w.servedRows).map((w) => `week ${w.week}: store ${w.storeRows}, served ${w.servedRows}`),
  ...report.weeks.filter((w) => faults[w.week] && w.failing === 0 && w.updateCode !== 0).map((w) => `week ${w.week}: failed but health does not say so`),
];
const summary = {
  city: report.city, start: YEARS[city].start, weeks, minutes, faults, late: !onTime,
  requests: report.requests, failedRequests: report.failures.length, latencyMs: report.latencyMs,
  updateSeconds: { median: median(clean.map((w) => w.updateSeconds)), max: Math.max(...clean.map((w) => w.updateSeconds)) },
  // A week's sync, rebuild and publication, the issue's budget for Toronto.
  weeklySeconds: {
    median: median(clean.map((w) => w.updateSeconds + w.publishSeconds)),
    max: Math.max(...clean.map((w) => w.updateSeconds + w.publishSeconds)),
  },
  swapSeconds: { median: median(report.weeks.map((w) => w.swapSeconds)), max: Math.max(...report.weeks.map((w) => w.swapSeconds)) },
  faultWeeks: report.weeks.filter((w) => faults[w.week]).map((w) => ({ week: w.week, fault: faults[w.week], updateCode: w.updateCode, failing: w.failing, health: w.healthStatus })),
  problems,
  // The backtest of the last week's build, as known then and as if complete: the
  // cost of late reports (sources with report times only).
  lastBrier: report.weeks.filter((w) => w.brier).at(-1)?.brier ?? null,
  // The forecast served each week against the incidents known at the end, beside
  // the same weeks of the last week's clean build (its backtest's past weeks).
  scores: report.scores && {
    weeks: report.scores.by_week.map((w) => w.week),
    served: report.scores.served,
    besideOffline: report.scores.beside_offline,
    // Each week's served Brier: the lateness cost compares the weeks both runs served.
    byWeek: report.scores.by_week.map((w) => ({ week: w.week, cells: w.cells, brier: w.served.brier })),
  },
  weeksDetail: report.weeks,
};
mkdirSync(new URL('../build/bench/', import.meta.url), { recursive: true });
writeFileSync(new URL(`../build/bench/soak-${city}${onTime ? '-on-time' : ''}.json`, import.meta.url), `${JSON.stringify(summary, null, 2)}\n`);
console.log(`${city}: ${weeks} weeks in ${minutes.toFixed(1)} min; ${report.requests} requests, ${report.failures.length} failed; ` +
  `${problems.length} problems`);
if (report.scores) {
  const b = report.scores.beside_offline;
  console.log(`served forecasts, ${report.scores.weeks} weeks: Brier ${report.scores.served.brier.toFixed(4)}; ` +
    `the ${b.weeks} weeks the backtest covers: served ${b.served.brier.toFixed(4)}, backtest ${b.offline.brier.toFixed(4)}`);
}
for (const p of problems) console.log(`  ${p}`);
if (problems.length > 0) process.exitCode = 1;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
}
