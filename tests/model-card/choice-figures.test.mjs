// The settings docs/MODEL.md says were chosen on validation weeks, recomputed from
// the build's exports: the recent level's validation losses per window, each
// setting's factors, the backtest's and the served factor (levels_<code>,
// run_in_<code> and backtest_<code>), and the kernel density's validation hit
// rates per bandwidth (from the backtest export's 52-week means).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readExport } from '../support/exports.mjs';
import { CLASSES } from '../support/outcomes.mjs';
import { hotspots } from '../support/hotspots.mjs';
import { cellCentre } from '../../pkg/dist/node/hexrisk_engine.js';

const root = new URL('../../', import.meta.url);
const CITIES = { city_ca_tor: 'Toronto', city_us_sfo: 'San Francisco', city_us_hou: 'Houston' };
const card = readFileSync(new URL('docs/MODEL.md', root), 'utf8');

// As builder/src/fit/calibration.rs states them (and the card's method text).
const LEVEL_RANGE = [0.25, 4];
const LEVEL_MIN_WEEKS = 4;
const LOG_FLOOR = -30;

function section(name) {
  return card.split(`### ${name}: `)[1].split('\n### ')[0];
}

/** A cell as H3 text, whether exported as text or as its 64-bit number. */
function cellHex(cell) {
  return /^[0-9a-f]{15}$/.test(cell) ? cell : BigInt(cell).toString(16);
}

/**
 * The model's uncalibrated forecasts week by week, run-in weeks first: each week's
 * start, cells, rates (cells × classes), sizes and quiet flags. The backtest's
 * rates are its calibrated `e_*` over its `level`.
 */
// Each city's backtest export, read once: both tests of a city use its rows, and neither changes them.
const backtests = new Map();
function readBacktest(code) {
  if (!backtests.has(code)) backtests.set(code, readExport(`backtest_${code}.csv.gz`));
  return backtests.get(code);
}

function pastWeeks(code) {
  const weeks = new Map();
  const add = (row, rates, quiet) => {
    if (!weeks.has(row.week_start)) {
      weeks.set(row.week_start, {
        start: row.week_start, cells: [], rates: [], quiet: [],
        sizes: CLASSES.map((c) => Number(row[`size_${c}`])), level: row.level === undefined ? null : Number(row.level),
      });
    }
    const week = weeks.get(row.week_start);
    week.cells.push(cellHex(row.cell));
    week.rates.push(...rates);
    week.quiet.push(quiet);
  };
  for (const row of readExport(`run_in_${code}.csv.gz`)) {
    add(row, CLASSES.map((c) => Number(row[`r_${c}`])), row.quiet === '1');
  }
  const runIn = weeks.size;
  for (const row of readBacktest(code)) {
    const level = Number(row.level);
    add(row, CLASSES.map((c) => Number(row[`e_${c}`]) / level), row.observed === 'NO_CRIME');
  }
  const list = [...weeks.values()].sort((a, b) => a.start.localeCompare(b.start));
  for (const week of list) assert.deepEqual(week.cells, list[0].cells, `${week.start}: cells in another order`);
  return { weeks: list, runIn };
}

/** P(no incident of any class) with every rate times `level`: negative binomial zeros. */
function quietProbability(week, cell, level) {
  let p = 1;
  for (let c = 0; c < CLASSES.length; c += 1) {
    const rate = week.rates[cell * CLASSES.length + c] * level;
    const size = week.sizes[c];
    p *= Number.isFinite(size) && size > 0 ? Math.exp(-size * Math.log1p(rate / size)) : Math.exp(-rate);
  }
  return p;
}

/** The log-likelihood of a week's quiet and busy cells at `level`, each term floored. */
function logLikelihood(week, level) {
  let sum = 0;
  for (let cell = 0; cell < week.quiet.length; cell++) {
    const p = quietProbability(week, cell, level);
    sum += Math.max(week.quiet[cell] ? Math.log(p) : Math.log1p(-p), LOG_FLOOR);
  }
  return sum;
}

/** The factor's log posterior for the week after `weeks[..end]` under (window, prior sd). */
function posterior(weeks, end, { window, priorSd }, lnLevel) {
  let sum = 0;
  for (const week of weeks.slice(Math.max(0, end - window), end)) sum += logLikelihood(week, Math.exp(lnLevel));
  return sum - 0.5 * (lnLevel / priorSd) ** 2;
}

/**
 * Asserts `level` is the factor for the week after `weeks[..end]`: 1 with fewer than
 * LEVEL_MIN_WEEKS weeks, else no better posterior a step of `step` (in its log) to
 * either side within the range searched.
 */
function assertOptimal(weeks, end, setting, level, what) {
  if (Math.min(end, setting.window) < LEVEL_MIN_WEEKS) {
    assert.equal(level, 1, `${what}: fewer than ${LEVEL_MIN_WEEKS} weeks leave the factor at 1`);
    return;
  }
  const step = 0.002;
  const at = Math.log(level);
  const here = posterior(weeks, end, setting, at);
  for (const side of [-step, step]) {
    const there = at + side;
    if (there < Math.log(LEVEL_RANGE[0]) || there > Math.log(LEVEL_RANGE[1])) continue;
    const other = posterior(weeks, end, setting, there);
    assert.ok(here >= other - 1e-9 * Math.abs(here), `${what}: factor ${level} is not the maximum (${here} < ${other} at ×${Math.exp(side)})`);
  }
}

/** The factor maximising the posterior: a golden-section search over the range in logs. */
function bestLevel(weeks, end, setting) {
  if (Math.min(end, setting.window) < LEVEL_MIN_WEEKS) return 1;
  const ratio = (Math.sqrt(5) - 1) / 2;
  let [a, b] = LEVEL_RANGE.map(Math.log);
  let c = b - ratio * (b - a); let d = a + ratio * (b - a);
  let fc = posterior(weeks, end, setting, c); let fd = posterior(weeks, end, setting, d);
  for (let i = 0; i < 60; i++) {
    if (fc >= fd) { b = d; d = c; fd = fc; c = b - ratio * (b - a); fc = posterior(weeks, end, setting, c); } else { a = c; c = d; fc = fd; d = a + ratio * (b - a); fd = posterior(weeks, end, setting, d); }
  }
  return Math.exp((a + b) / 2);
}

for (const [code, name] of Object.entries(CITIES)) {
  test(`${name}: the recent level's choice, factors and served factor in docs/MODEL.md recompute from the exports`, () => {
    const text = section(name);
    const chosen = text.match(/\(\d+ weeks\): window (\d+) weeks, prior standard deviation ([\d.]+)\. Mean log loss of `P\(NO_CRIME\)` there, per window \(its best prior\): (.+?)\. The held-out/);
    assert.ok(chosen, `no calibration choice for ${name}`);
    const published = Object.fromEntries(chosen[3].split(', ').map((pair) => pair.split(': ').map(Number)));
    const { weeks, runIn } = pastWeeks(code);

    const settings = new Map();
    for (const row of readExport(`levels_${code}.csv.gz`)) {
      const key = `${row.window}/${row.prior_sd}`;
      if (!settings.has(key)) settings.set(key, { window: Number(row.window), priorSd: Number(row.prior_sd), levels: new Map() });
      settings.get(key).levels.set(row.week_start, Number(row.level));
    }
    assert.equal(settings.size, 20, 'every window × prior of the grid');
    const validation = weeks.slice(runIn, runIn + settings.values().next().value.levels.size);

    const losses = [...settings.values()].map((setting) => {
      let loss = 0; let cellWeeks = 0;
      validation.forEach((week, i) => {
        const level = setting.levels.get(week.start);
        assert.ok(level !== undefined, `${week.start}: no factor of ${setting.window}/${setting.priorSd}`);
        assertOptimal(weeks, runIn + i, setting, level, `${setting.window} weeks, σ ${setting.priorSd}, ${week.start}`);
        loss -= logLikelihood(week, level);
        cellWeeks += week.quiet.length;
      });
      return { ...setting, loss: loss / cellWeeks };
    });
    // Each window's best prior, as the card lists them.
    for (const [window, value] of Object.entries(published)) {
      const best = Math.min(...losses.filter((s) => s.window === Number(window)).map((s) => s.loss));
      assert.ok(Math.abs(best - value) <= 6e-6, `window ${window}: ${best} vs ${value}`);
    }
    // The chosen setting has the lowest loss (the export rounds rates to 6 decimals).
    const setting = losses.find((s) => s.window === Number(chosen[1]) && s.priorSd === Number(chosen[2]));
    assert.ok(setting, 'the chosen setting is one of the grid');
    for (const other of losses) assert.ok(setting.loss <= other.loss + 1e-6, `${other.window}/${other.priorSd} scores lower`);

    // The backtest's factor of every week is the chosen setting's.
    weeks.slice(runIn).forEach((week, i) => {
      assertOptimal(weeks, runIn + i, setting, week.level, `backtest ${week.start}`);
      const validated = setting.levels.get(week.start);
      if (validated !== undefined) assert.ok(Math.abs(validated - week.level) < 1e-6, `${week.start}: ${validated} vs ${week.level}`);
    });
    // The served factor: the chosen setting's over the last weeks of data.
    const served = text.match(/Recent-level factor over the backtest weeks: [\d.]+ to [\d.]+; served: ([\d.]+)\./)[1];
    assert.equal(bestLevel(weeks, weeks.length, setting).toFixed(3), served);
  });
}

// As builder/src/fit/kde.rs: h3o's great-circle distance and the kernel's cut.
const EARTH_RADIUS_M = 6371007.180918475;
const CUT_BANDWIDTHS = 3;

function distanceM([lat1, lng1], [lat2, lng2]) {
  const rad = Math.PI / 180;
  const sinLat = Math.sin((lat2 - lat1) * rad / 2);
  const sinLng = Math.sin((lng2 - lng1) * rad / 2);
  const a = sinLat * sinLat + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * sinLng * sinLng;
  return 2 * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a)) * EARTH_RADIUS_M;
}

/**
 * Each of `centres`' neighbours within `cut` metres of it, [index, metres] in index
 * order: worked out once for every bandwidth's kernel, rather than all pairs' distances per bandwidth.
 */
function neighbours(centres, cut) {
  return centres.map((from) => {
    const near = [];
    centres.forEach((to, j) => {
      const d = distanceM(from, to);
      if (d <= cut) near.push([j, d]);
    });
    return near;
  });
}

/** A Gaussian kernel of `bandwidth` metres over cells' `neighbours` (as wide at least), normalised per spreading cell. */
function kernel(neighbours, bandwidth) {
  return neighbours.map((near) => {
    const spread = [];
    for (const [j, d] of near) {
      if (d <= CUT_BANDWIDTHS * bandwidth) spread.push([j, Math.exp(-d * d / (2 * bandwidth * bandwidth))]);
    }
    const total = spread.reduce((s, [, w]) => s + w, 0);
    return spread.map(([j, w]) => [j, w / total]);
  });
}

function density(spread, counts) {
  const out = new Float64Array(counts.length);
  spread.forEach((to, i) => {
    if (counts[i] > 0) for (const [j, w] of to) out[j] += w * counts[i];
  });
  return out;
}

for (const [code, name] of Object.entries(CITIES)) {
  test(`${name}: the kernel density's validation hit rates per bandwidth in docs/MODEL.md recompute from the export`, () => {
    const text = section(name);
    const rates = text.match(/The kernel density's bandwidth was chosen on the validation weeks by the hit rate at 5 % \(([^)]+)\)/);
    assert.ok(rates, `no bandwidth choice for ${name}`);
    const published = rates[1].split(', ').map((pair) => pair.match(/^(\d+) m: ([\d.]+)$/).slice(1).map(Number));
    const validationWeeks = Number(text.match(/\| bin \| validation \((\d+) weeks\)/)[1]);
    const chosen = Number(text.match(/kernel density of the last 52 weeks \(h = (\d+) m\)/)[1]);

    const weeks = new Map();
    for (const row of readBacktest(code)) {
      if (!weeks.has(row.week_start)) weeks.set(row.week_start, []);
      // The year's mean weekly count, unfloored: a class seen in the year has a mean
      // of at least 1/52, above the 0.001 floor of the mean52_* columns.
      const mean = CLASSES.reduce((s, c) => s + (Number(row[`mean52_${c}`]) > 0.001 ? Number(row[`mean52_${c}`]) : 0), 0);
      const observed = CLASSES.reduce((s, c) => s + Number(row[`n_${c}`]), 0);
      weeks.get(row.week_start).push({ cell: cellHex(row.cell), mean, observed, kde: Number(row.total_kde) });
    }
    const ordered = [...weeks.keys()].sort().map((k) => weeks.get(k));
    const centres = ordered[0].map((w) => [...cellCentre(w.cell)]);
    const near = neighbours(centres, CUT_BANDWIDTHS * Math.max(...published.map(([bandwidth]) => bandwidth)));

    const ours = published.map(([bandwidth, value]) => {
      const spread = kernel(near, bandwidth);
      const scored = ordered.slice(0, validationWeeks).map((week) => {
        const forecast = density(spread, week.map((w) => w.mean));
        return week.map((w, i) => ({ forecast: forecast[i], observed: w.observed }));
      });
      const hitRate = hotspots(scored)[1];
      assert.ok(Math.abs(hitRate - value) <= 0.0006, `${bandwidth} m: ${hitRate} vs ${value}`);
      if (bandwidth === chosen) {
        // The backtest's kernel density baseline is this kernel's, every week.
        for (const week of ordered) {
          const forecast = density(spread, week.map((w) => w.mean));
          week.forEach((w, i) => assert.ok(Math.abs(forecast[i] - w.kde) <= 1e-9 * Math.max(1, w.kde), `${w.cell}: ${forecast[i]} vs ${w.kde}`));
        }
      }
      return [bandwidth, hitRate];
    });
    // The highest hit rate, the smaller bandwidth on a tie.
    const best = ours.reduce((a, b) => (b[1] > a[1] ? b : a));
    assert.equal(best[0], chosen, 'the bandwidth used is the one with the highest validation hit rate');
  });
}
