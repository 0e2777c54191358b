// Every model figure in docs/MODEL.md's backtest tables, recomputed independently
// from the backtest exports the build writes (build/backtest/*.csv.gz).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readExport } from '../support/exports.mjs';
import { CLASSES, OUTCOMES, logGamma, outcomeDistribution } from '../support/outcomes.mjs';
import { hotspots } from '../support/hotspots.mjs';

const root = new URL('../../', import.meta.url);
const CITIES = { city_ca_tor: 'Toronto', city_us_sfo: 'San Francisco', city_us_hou: 'Houston' };

// Each city's export, read once: six tests per city use its rows, and none changes them.
const backtests = new Map();
function readBacktest(code) {
  if (!backtests.has(code)) backtests.set(code, readExport(`backtest_${code}.csv.gz`));
  return backtests.get(code);
}

/** Median of the sum of independent negative binomial counts (size Infinity = Poisson). */
function medianTotal(rates, sizes) {
  let total = [1];
  rates.forEach((rate, i) => {
    if (rate <= 0) return;
    const r = sizes[i];
    const pmf = [];
    for (let n = 0, tail = 1; tail > 1e-12 && n < 10000; n += 1) {
      const p = Number.isFinite(r)
        ? Math.exp(logGamma(n + r) - logGamma(r) - logGamma(n + 1) + r * Math.log(r / (r + rate)) + n * Math.log(rate / (r + rate)))
        : Math.exp(-rate + n * Math.log(rate) - logGamma(n + 1));
      pmf.push(p);
      tail -= p;
    }
    const next = new Float64Array(total.length + pmf.length - 1);
    for (let j = 0; j < total.length; j += 1) {
      for (let k = 0; k < pmf.length; k += 1) next[j + k] += total[j] * pmf[k];
    }
    total = next;
  });
  let cumulative = 0;
  for (let n = 0; n < total.length; n += 1) {
    cumulative += total[n];
    if (cumulative >= 0.5) return n;
  }
  return total.length - 1;
}

function recompute(rows) {
  let brier = 0; let logLoss = 0; let quietBrier = 0; let maeMean = 0; let maeMedian = 0;
  const weeks = new Map();
  for (const row of rows) {
    const p = OUTCOMES.map((c) => Number(row[`p_${c}`]));
    const y = OUTCOMES.indexOf(row.observed);
    brier += p.reduce((s, pk, k) => s + (pk - (k === y ? 1 : 0)) ** 2, 0);
    logLoss -= Math.log(Math.max(p[y], 1e-15));
    quietBrier += (p[5] - (y === 5 ? 1 : 0)) ** 2;
    const rates = CLASSES.map((c) => Number(row[`e_${c}`]));
    const sizes = CLASSES.map((c) => Number(row[`size_${c}`]));
    const observed = CLASSES.reduce((s, c) => s + Number(row[`n_${c}`]), 0);
    const expected = rates.reduce((a, b) => a + b, 0);
    maeMean += Math.abs(expected - observed);
    maeMedian += Math.abs(medianTotal(rates, sizes) - observed);
    if (!weeks.has(row.week_start)) weeks.set(row.week_start, []);
    weeks.get(row.week_start).push({ cell: row.cell, expected, observed });
  }
  const n = rows.length;
  const pai = []; const pei = [];
  for (const fraction of [0.01, 0.05]) {
    let hits = 0; let best = 0; let incidents = 0; let cells = 0; let hot = 0;
    for (const week of weeks.values()) {
      cells = week.length;
      hot = Math.max(1, Math.round(fraction * cells));
      // Ties in expected count keep export (cell) order, as the build does.
      const ranked = week.map((w, i) => ({ ...w, i })).sort((a, b) => b.expected - a.expected || a.i - b.i);
      hits += ranked.slice(0, hot).reduce((s, w) => s + w.observed, 0);
      best += week.map((w) => w.observed).sort((a, b) => b - a).slice(0, hot).reduce((s, v) => s + v, 0);
      incidents += week.reduce((s, w) => s + w.observed, 0);
    }
    pai.push(hits / incidents / (hot / cells));
    pei.push(hits / best);
  }
  return [brier / n, logLoss / n, quietBrier / n, maeMedian / n, maeMean / n, ...pai, ...pei];
}

// The figures over every row of a city, of the model ('model') or a baseline, computed
// once: the model's and the 52-week mean's are asked for by two tests each.
const everyRow = new Map();
function recomputeEveryRow(code, forecaster) {
  const key = `${code}|${forecaster}`;
  if (!everyRow.has(key)) {
    const rows = readBacktest(code);
    everyRow.set(key, recompute(forecaster === 'model' ? rows : asModel(rows, forecaster)));
  }
  return everyRow.get(key);
}

const card = readFileSync(new URL('docs/MODEL.md', root), 'utf8');

for (const [code, name] of Object.entries(CITIES)) {
  test(`${name}: the model's backtest row in docs/MODEL.md recomputes from the export`, () => {
    const section = card.split(`### ${name}: `)[1];
    assert.ok(section, `no backtest section for ${name}`);
    const line = section.split('\n').find((l) => l.startsWith('| hexrisk model |'));
    const published = line.split('|').slice(2, -1).map((cell) => Number(cell.trim()));
    const ours = recomputeEveryRow(code, 'model');
    // The export rounds probabilities and rates to 6 decimals; the card shows 3.
    ours.forEach((value, i) => assert.ok(Math.abs(value - published[i]) <= 0.0015, `column ${i}: ${value} vs ${published[i]}`));
  });
}

/** The ISO year of a week starting on Monday `weekStart` (YYYY-MM-DD): its Thursday's year. */
function isoYear(weekStart) {
  const thursday = new Date(`${weekStart}T00:00:00Z`);
  thursday.setUTCDate(thursday.getUTCDate() + 3);
  return thursday.getUTCFullYear();
}

/**
 * Each bin's cell-weeks and observed − predicted P(NO_CRIME) over `rows`, and how
 * many of its rows lie so near one of its edges that the export's rounding to 6
 * decimals may have moved them across (`edge`).
 */
function reliability(rows) {
  const bins = Array.from({ length: 10 }, () => ({ count: 0, predicted: 0, observed: 0, edge: 0 }));
  for (const row of rows) {
    const p = Number(row.p_NO_CRIME);
    const i = Math.min(9, Math.floor(p * 10));
    const bin = bins[i];
    bin.count += 1;
    bin.predicted += p;
    bin.observed += row.observed === 'NO_CRIME' ? 1 : 0;
    const nearest = Math.round(p * 10);
    if (Math.abs(p - nearest / 10) <= 5e-7 && nearest > 0 && nearest < 10) {
      // On the edge between bins nearest − 1 and nearest: either may hold it.
      bins[nearest - 1].edge += 1;
      bins[nearest].edge += 1;
    }
  }
  return bins.map((b) => ({
    count: b.count,
    gap: b.count ? (b.observed - b.predicted) / b.count : 0,
    edge: b.edge,
  }));
}

for (const [code, name] of Object.entries(CITIES)) {
  test(`${name}: the calibration table in docs/MODEL.md recomputes from the export, period by period`, () => {
    const section = card.split(`### ${name}: `)[1].split('\n### ')[0];
    const lines = section.split('\n');
    const header = lines.find((l) => l.startsWith('| bin | validation ('));
    assert.ok(header, `no calibration table for ${name}`);
    const periods = header.split('|').slice(2, -1).map((c) => c.trim());
    const rows = readBacktest(code);
    const weeks = [...new Set(rows.map((r) => r.week_start))].sort();
    const validation = Number(periods[0].match(/^validation \((\d+) weeks\)$/)[1]);
    assert.ok(validation > 0 && validation < weeks.length);
    const heldOutFrom = weeks[validation];
    const keep = (period) => {
      if (period.startsWith('validation')) return (r) => r.week_start < heldOutFrom;
      if (period.startsWith('held out')) return (r) => r.week_start >= heldOutFrom;
      const year = period.match(/^ISO year (\d+)$/);
      if (year) return (r) => isoYear(r.week_start) === Number(year[1]);
      assert.equal(period, 'all weeks');
      return () => true;
    };
    // The held-out weeks are the rest of the backtest, and they follow every validation week.
    assert.equal(periods[1], `held out (${weeks.length - validation} weeks)`);
    const tables = periods.map((period) => reliability(rows.filter(keep(period))));
    const body = lines.slice(lines.indexOf(header) + 2, lines.indexOf(header) + 12);
    body.forEach((line, bin) => {
      const cells = line.split('|').slice(2, -1).map((c) => c.trim());
      cells.forEach((cell, p) => {
        const ours = tables[p][bin];
        if (cell === '–') {
          assert.equal(ours.count, 0, `${periods[p]}, bin ${bin}`);
          return;
        }
        const [, count, gap] = cell.match(/^(\d+) \(([+-]\d\.\d{4})\)$/);
        assert.ok(Math.abs(ours.count - Number(count)) <= ours.edge, `${periods[p]}, bin ${bin}: ${ours.count} vs ${count}`);
        const tolerance = 0.0001 + ours.edge / Math.max(1, ours.count);
        assert.ok(Math.abs(ours.gap - Number(gap)) <= tolerance, `${periods[p]}, bin ${bin}: ${ours.gap} vs ${gap}`);
      });
    });
  });
}

for (const [code, name] of Object.entries(CITIES)) {
  test(`${name}: the hot-spot table in docs/MODEL.md recomputes from the export's held-out weeks`, () => {
    const section = card.split(`### ${name}: `)[1].split('\n### ')[0];
    const lines = section.split('\n');
    const header = lines.find((l) => l.startsWith('| bin | validation ('));
    const validation = Number(header.match(/\| validation \((\d+) weeks\)/)[1]);
    const rows = readBacktest(code);
    const weekStarts = [...new Set(rows.map((r) => r.week_start))].sort();
    const heldOut = rows.filter((r) => r.week_start >= weekStarts[validation]);
    const observed = (r) => CLASSES.reduce((s, c) => s + Number(r[`n_${c}`]), 0);
    const forecasters = [
      (r) => CLASSES.reduce((s, c) => s + Number(r[`e_${c}`]), 0),
      ...['mean52', 'ewma', 'last_week', 'kde'].map((b) => (r) => Number(r[`total_${b}`])),
    ];
    const table = lines.slice(lines.findIndex((l) => l.startsWith('| forecaster | hit rate')) + 2)
      .filter((l) => l.startsWith('| ')).slice(0, forecasters.length);
    assert.equal(table.length, forecasters.length);
    forecasters.forEach((forecast, i) => {
      const weeks = new Map();
      for (const r of heldOut) {
        if (!weeks.has(r.week_start)) weeks.set(r.week_start, []);
        weeks.get(r.week_start).push({ forecast: forecast(r), observed: observed(r) });
      }
      const ours = hotspots([...weeks.values()]);
      const published = table[i].split('|').slice(2, -1).map((c) => Number(c.trim()));
      // Forecasts are rounded to 6 decimals in the export, which can swap near ties.
      ours.forEach((value, j) => assert.ok(Math.abs(value - published[j]) <= (j >= 3 && j < 6 ? 0.006 : 0.0006),
        `${table[i].split('|')[1].trim()}, column ${j}: ${value} vs ${published[j]}`));
    });
  });
}

/** A baseline's rows in the model's shape: Poisson probabilities and sizes from its `<baseline>_*` rates. */
function asModel(rows, baseline) {
  return rows.map((row) => {
    const rates = CLASSES.map((c) => Number(row[`${baseline}_${c}`]));
    const p = outcomeDistribution(rates);
    const out = { ...row };
    OUTCOMES.forEach((c, k) => { out[`p_${c}`] = p[k]; });
    CLASSES.forEach((c, k) => { out[`e_${c}`] = rates[k]; out[`size_${c}`] = Infinity; });
    return out;
  });
}

for (const [code, name] of Object.entries(CITIES)) {
  test(`${name}: the baselines' backtest rows in docs/MODEL.md recompute from the export`, () => {
    const section = card.split(`### ${name}: `)[1];
    for (const [baseline, label] of [['mean52', 'mean of previous 52 weeks'], ['ewma', 'EWMA (α = 0.03)']]) {
      const line = section.split('\n').find((l) => l.startsWith(`| ${label} | `));
      const published = line.split('|').slice(2, -1).map((cell) => Number(cell.trim()));
      const ours = recomputeEveryRow(code, baseline);
      ours.forEach((value, i) => assert.ok(Math.abs(value - published[i]) <= 0.0015, `${label}, column ${i}: ${value} vs ${published[i]}`));
    }
  });
}

for (const [code, name] of Object.entries(CITIES)) {
  test(`${name}: the scores without the cells a grid from before the backtest would lack recompute from the export`, () => {
    const section = card.split(`### ${name}: `)[1].split('\n### ')[0];
    const rows = readBacktest(code);
    const kept = rows.filter((r) => r.in_grid_before_backtest === '1');
    const sentence = section.match(/Scored on the (\d+) cells of the grid before the backtest alone, with the same forecasts, the model's log loss is ([\d.]+) against the 52-week mean's ([\d.]+) \(on every cell: ([\d.]+) and ([\d.]+)\), its multi-class Brier ([\d.]+) against ([\d.]+) \(([\d.]+) and ([\d.]+)\), and its PAI at 5 % ([\d.]+) against ([\d.]+) \(([\d.]+) and ([\d.]+)\)/);
    if (!sentence) {
      // A grid from boundary polygons takes nothing from the backtest's weeks.
      assert.equal(kept.length, rows.length);
      assert.doesNotMatch(section, /The grid is derived from every incident/);
      return;
    }
    const [cells, ...published] = sentence.slice(1).map(Number);
    assert.equal(new Set(kept.map((r) => r.cell)).size, cells);
    const scores = [recompute(kept), recompute(asModel(kept, 'mean52')), recomputeEveryRow(code, 'model'), recomputeEveryRow(code, 'mean52')];
    // [log loss, Brier, PAI 5 %] of the model and the mean, kept cells then every cell.
    const ours = [1, 0, 6].flatMap((column) => scores.map((s) => s[column]));
    ours.forEach((value, i) => assert.ok(Math.abs(value - published[i]) <= (i >= 8 ? 0.006 : 0.0006), `figure ${i}: ${value} vs ${published[i]}`));
  });
}

for (const [code, name] of Object.entries(CITIES)) {
  test(`${name}: the recent-level factor's range over the backtest recomputes from the export`, () => {
    const section = card.split(`### ${name}: `)[1].split('\n### ')[0];
    const [, low, high] = section.match(/Recent-level factor over the backtest weeks: ([\d.]+) to ([\d.]+);/);
    const levels = readBacktest(code).map((r) => Number(r.level));
    assert.equal(Math.min(...levels).toFixed(3), low);
    assert.equal(Math.max(...levels).toFixed(3), high);
  });
}
