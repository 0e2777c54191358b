// The live-data loop, a short stretch with faults (tests/support/feed-loop.mjs):
// opendata-sim replays Houston's real 2010 incidents week by week with late
// reports; each week `hexrisk-build update` syncs and rebuilds, the version is
// published to the Worker's local bucket, and the Worker (clock following the data)
// takes it up while traffic runs. Week 2 the layer turns private, week 3 a page
// comes back cut in half and a short 429 storm and a 503 are waited out, week 4
// is clean. bench/soak.mjs runs the same loop for a simulated year.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runLoop } from '../support/feed-loop.mjs';

test('a month of weekly updates: each week served as current, faults reported and survived, no failed request', async () => {
  const report = await runLoop({
    city: 'houston',
    start: '2010-05-03',
    weeks: 4,
    wholesaleWeek: 3,
    faults: {
      2: ['kind=private'],
      3: ['kind=too_many_requests&n=1&retry_after=0&hits_app_token=true', 'kind=truncated_page'],
    },
  });
  const [clean, privateLayer, cutPage, recovered] = report.weeks;
  assert.equal(report.failures.length, 0, JSON.stringify(report.failures.slice(0, 3)));
  assert.ok(report.requests > 20, `${report.requests} requests`);

  // A clean week: the store equals what the service serves; a newer week is current.
  for (const week of [clean, recovered]) {
    assert.equal(week.updateCode, 0, week.output);
    assert.equal(week.storeRows, week.servedRows, `week ${week.week}`);
    assert.equal(week.failing, 0);
    assert.equal(week.healthStatus, 'healthy');
    assert.equal(week.currentWeek, week.expectedWeek);
  }
  assert.ok(clean.dataThrough > '2010-04-25', clean.dataThrough);

  // A failing feed: the update says so naming the source, the last good version
  // keeps serving, and health is degraded with the failure.
  for (const [week, words] of [[privateLayer, 'not public any more'], [cutPage, 'unreadable answer']]) {
    assert.equal(week.updateCode, 1, `week ${week.week}`);
    assert.match(week.output, new RegExp(`crime: sync failed: source crime: .*${words}`));
    assert.equal(week.version, clean.version, 'the last good version stays');
    assert.equal(week.failing, 1);
    assert.equal(week.healthStatus, 'degraded');
    assert.equal(week.currentWeek, clean.expectedWeek);
  }
  // Back: two weeks' publications (and the week-3 wholesale renumbering) in one sync.
  assert.ok(recovered.dataThrough > clean.dataThrough);
});
