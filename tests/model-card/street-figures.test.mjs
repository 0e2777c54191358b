// The street-level section of docs/MODEL.md recomputed independently from the
// exports the build writes: build/backtest/streets_<code>.csv.gz (ways, each
// group's k, attributed counts per week and way) with backtest_<code>.csv.gz's
// expected counts e_* per cell and week.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { readExport } from '../support/exports.mjs';
import { GROUPS, REFIT_EVERY, addDays, readStreets, shares, totals } from '../support/streets.mjs';

const root = new URL('../../', import.meta.url);
const CITIES = { city_ca_tor: 'Toronto', city_us_hou: 'Houston', city_us_sfo: 'San Francisco' };
const FRACTIONS = [0.01, 0.05, 0.10];
const K_GRID = [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256];

const readCsv = readExport;

/** The card's figures of one group: hit rates and PAIs of (a) and (b), and k's cross-entropies. */
function recompute(streets, backtest, group, validationStart) {
  const { ways } = streets;
  const counts = streets.counts[group] ?? [];
  const total = ways.reduce((s, w) => s + w.length, 0);
  const cellLength = new Map();
  for (const w of ways) cellLength.set(w.cell, (cellLength.get(w.cell) ?? 0) + w.length);
  const weeks = [...new Set(backtest.map((r) => r.week_start))].sort();
  const forecast = new Map(); // week -> cell -> expected count of the group
  for (const row of backtest) {
    if (!forecast.has(row.week_start)) forecast.set(row.week_start, new Map());
    forecast.get(row.week_start).set(row.cell, GROUPS[group].classes.reduce((s, c) => s + Number(row[`e_${c}`]), 0));
  }
  const observed = new Map();
  for (const c of counts) {
    if (!observed.has(c.week)) observed.set(c.week, []);
    observed.get(c.week).push(c);
  }
  // The shrinkage: validation cross-entropy of every k.
  const learnt = totals(counts, (week) => week < validationStart);
  const validation = totals(counts, (week) => week >= validationStart && week < weeks[0]);
  const crossEntropy = K_GRID.map((k) => {
    const s = shares(ways, learnt, k);
    let loss = 0; let n = 0;
    for (const [way, count] of validation) { loss -= count * Math.log(s.get(way)); n += count; }
    return loss / n;
  });
  const k = streets.k[group];
  const captures = { a: FRACTIONS.map(() => ({ hits: 0, incidents: 0, taken: 0 })), b: FRACTIONS.map(() => ({ hits: 0, incidents: 0, taken: 0 })) };
  // The ways by index, in typed arrays: each week ranks every way twice, and ranking
  // indexes by densities worked out from per-way arrays, rather than a fresh object
  // per way and ranking through Map look-ups, saves most of the work.
  const index = new Map(ways.map((w, i) => [w.way, i]));
  // Way ids are unique, so the ranking (by density, then id) is a total order and the
  // same from any starting order: each sort starts from the previous week's ranking,
  // which is nearly sorted already.
  assert.equal(index.size, ways.length, 'a way exported twice');
  const cellIndex = new Map();
  const cellOfWay = Int32Array.from(ways, (w) => {
    if (!cellIndex.has(w.cell)) cellIndex.set(w.cell, cellIndex.size);
    return cellIndex.get(w.cell);
  });
  const cells = [...cellIndex.keys()];
  const wayCellLength = Float64Array.from(ways, (w) => cellLength.get(w.cell));
  const wayLength = Float64Array.from(ways, (w) => w.length);
  const wayShare = new Float64Array(ways.length);
  const density = new Float64Array(ways.length);
  const rank = new Int32Array(ways.length);
  const rankings = { a: Array.from(ways.keys()), b: Array.from(ways.keys()) };
  let share = null;
  weeks.forEach((week, j) => {
    if (j % REFIT_EVERY === 0) {
      share = shares(ways, totals(counts, (w) => w < week), k);
      ways.forEach((w, i) => { wayShare[i] = share.get(w.way); });
    }
    const e = forecast.get(week);
    const cellForecast = Float64Array.from(cells, (cell) => e.get(cell));
    const seen = observed.get(week) ?? [];
    const incidents = seen.reduce((s, c) => s + c.n, 0);
    for (const [name, densityOf] of [
      ['a', (i) => cellForecast[cellOfWay[i]] / wayCellLength[i]],
      ['b', (i) => cellForecast[cellOfWay[i]] * wayShare[i] / wayLength[i]],
    ]) {
      for (let i = 0; i < ways.length; i += 1) density[i] = densityOf(i);
      const ranked = rankings[name].sort((x, y) => density[y] - density[x] || ways[x].way - ways[y].way);
      ranked.forEach((i, r) => { rank[i] = r; });
      FRACTIONS.forEach((f, i) => {
        // The ways ranked before `taken` fill the fraction of the length.
        let taken = 0;
        let length = 0;
        for (; taken < ranked.length; taken += 1) {
          const w = ways[ranked[taken]];
          if (length + w.length > f * total) break;
          length += w.length;
        }
        const c = captures[name][i];
        c.hits += seen.filter((s) => index.has(s.way) && rank[index.get(s.way)] < taken).reduce((s, x) => s + x.n, 0);
        c.incidents += incidents;
        c.taken += length / total;
      });
    }
  });
  const figures = (list) => list.map((c) => ({ hitRate: c.hits / c.incidents, pai: (c.hits / c.incidents) / (c.taken / weeks.length) }));
  return { a: figures(captures.a), b: figures(captures.b), crossEntropy, k };
}

const card = readFileSync(new URL('docs/MODEL.md', root), 'utf8');
const streetCard = card.split('## Street-level risk (generated by the build)')[1]?.split('\n## ')[0];

test('the card has a street-level section', () => {
  assert.ok(streetCard, 'no street-level section in docs/MODEL.md');
});

for (const [code, name] of Object.entries(CITIES)) {
  const section = streetCard?.split(`### Street level: ${name}\n`)[1]?.split('\n### ')[0] ?? '';
  const exported = existsSync(new URL(`build/backtest/streets_${code}.csv.gz`, root));

  if (!section.includes('| group | forecast |')) {
    test(`${name}: no street-level figures in the card, and no export`, () => {
      assert.match(section, /Not computed/);
      assert.equal(exported, false);
    });
    continue;
  }

  test(`${name}: the street-level table in docs/MODEL.md recomputes from the exports`, () => {
    const streets = readStreets(code);
    const backtest = readCsv(`backtest_${code}.csv.gz`);
    const lines = section.split('\n');
    for (const [group, { label }] of Object.entries(GROUPS)) {
      const rows = lines.filter((l) => l.startsWith(`| ${label} | (`));
      if (rows.length === 0) {
        assert.equal(streets.k[group], undefined, `${group} exported but not in the card`);
        continue;
      }
      // k and its validation weeks, from the attribution table.
      const placement = lines.find((l) => l.startsWith(`| ${label} | `) && !l.startsWith(`| ${label} | (`));
      const cells = placement.split('|').slice(1, -1).map((c) => c.trim());
      const validationStart = cells[5].match(/from (\d{4}-\d{2}-\d{2})/)[1];
      assert.equal(Number(cells[7]), streets.k[group], `${group}: k in the card and the export`);
      const ours = recompute(streets, backtest, group, validationStart);
      const best = Math.min(...ours.crossEntropy);
      assert.equal(K_GRID[ours.crossEntropy.indexOf(best)], streets.k[group], `${group}: k is the validation argmin`);
      const validationWeeks = Number(cells[5].split(' ')[0]);
      assert.equal(addDays(validationStart, 7 * validationWeeks), [...new Set(backtest.map((r) => r.week_start))].sort()[0]);

      for (const [row, forecast] of [[rows[0], 'a'], [rows[1], 'b']]) {
        const published = row.split('|').slice(3, -1).map((c) => Number(c.trim()));
        ours[forecast].forEach(({ hitRate, pai }, i) => {
          // The card shows 3 and 2 decimals; the exports round counts and rates to 6,
          // which can reorder ways of equal density (a lattice's ways are nearly all
          // alike): a hit rate may move by a few 1e-4, and a PAI by that over the
          // fraction of the length taken.
          assert.ok(Math.abs(hitRate - published[i]) <= 0.0006, `${group} (${forecast}) hit rate ${FRACTIONS[i]}: ${hitRate} vs ${published[i]}`);
          assert.ok(Math.abs(pai - published[3 + i]) <= 0.006 + 0.0006 / FRACTIONS[i], `${group} (${forecast}) PAI ${FRACTIONS[i]}: ${pai} vs ${published[3 + i]}`);
        });
      }
    }
  });
}
