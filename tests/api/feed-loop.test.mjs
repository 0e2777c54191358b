// The live-data loop, a short stretch with every fault (tests/support/feed-loop.mjs):
// opendata-sim replays Houston's real 2010 incidents week by week with late
// reports; each week `hexrisk-build update` syncs and rebuilds, the version is
// published to the Worker's local bucket, and the Worker (clock following the data)
// takes it up while traffic runs; each new version is checked byte for byte
// against a clean build from the same store, and the forecast served for week 1 is
// scored beside the same week of the backtest. Week 1 a 503 and a 429 are waited out; weeks 2 to
// 6 each fail differently (a private layer, a page cut in half, a page overlapping
// the last, a page skipping rows, the offence field renamed), and week 7 is clean.
// bench/soak.mjs runs the same loop for a simulated year.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runLoop } from '../support/feed-loop.mjs';

const FAILING = {
  2: [['kind=private'], 'not public any more'],
  3: [['kind=truncated_page'], 'unreadable answer'],
  4: [['kind=repeated_rows'], 'again, unchanged since an earlier page'],
  5: [['kind=skipped_rows'], 'page'],
  6: [[{ rename: ['USER_NIBRSClass', 'NIBRS_CLASS'] }], 'field USER_NIBRSClass is not published'],
};

test('weeks of updates: each week served as current, every fault reported and survived, no failed request', async () => {
  const report = await runLoop({
    city: 'houston',
    start: '2010-05-03',
    weeks: 7,
    wholesaleWeek: 4,
    verifyClean: true,
    score: true,
    faults: {
      1: ['kind=down&n=1', 'kind=too_many_requests&n=1&retry_after=0&hits_app_token=true'],
      ...Object.fromEntries(Object.entries(FAILING).map(([week, [faults]]) => [week, faults])),
    },
  });
  assert.equal(report.failures.length, 0, JSON.stringify(report.failures.slice(0, 3)));
  assert.ok(report.requests > 20, `${report.requests} requests`);
  const [first, ...rest] = report.weeks;
  const last = rest.at(-1);

  // A clean week: the store equals what the service serves; the new week is current.
  for (const week of [first, last]) {
    assert.equal(week.updateCode, 0, week.output);
    assert.equal(week.storeRows, week.servedRows, `week ${week.week}`);
    assert.equal(week.failing, 0);
    assert.equal(week.healthStatus, 'healthy');
    assert.equal(week.currentWeek, week.expectedWeek);
    // The published artifact is the one a clean build from the same store makes.
    assert.equal(week.rebuilt, true);
    assert.equal(week.cleanBuildMatches, true, `week ${week.week}`);
  }

  // A failing feed: the update says so naming the source, the last good version
  // keeps serving, and health is degraded with the failure.
  for (const week of rest.slice(0, -1)) {
    const words = FAILING[week.week][1];
    assert.equal(week.updateCode, 1, `week ${week.week}: ${week.output}`);
    assert.match(week.output, new RegExp(`crime: sync failed: source crime: .*${words}`), `week ${week.week}`);
    assert.equal(week.version, first.version, `week ${week.week}: the last good version stays`);
    assert.equal(week.failing, 1);
    assert.equal(week.healthStatus, 'degraded');
    assert.equal(week.currentWeek, first.expectedWeek);
  }
  // Back: five weeks' publications (and the week-4 renumbering) in one sync.
  assert.ok(last.dataThrough > first.dataThrough);

  // The forecast served as the current week is scored once its week is in the
  // data (the last week's is not yet), beside the clean build's backtest of it.
  const { scores } = report;
  assert.deepEqual(scores.by_week.map((w) => w.week), [first.currentWeek]);
  assert.equal(scores.beside_offline.weeks, 1);
  for (const figures of [scores.served, scores.beside_offline.served, scores.beside_offline.offline]) {
    assert.ok(figures.brier > 0 && figures.brier < 2, JSON.stringify(figures));
    assert.ok(Number.isFinite(figures.log_loss), JSON.stringify(figures));
  }
  // Beside the backtest, on the cells both artifacts have (the grid grows with
  // the incidents).
  const [week] = scores.by_week;
  assert.ok(week.beside_offline.cells > 0 && week.beside_offline.cells <= week.cells, JSON.stringify(week));
});
