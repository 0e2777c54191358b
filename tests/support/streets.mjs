// The street-level exports (build/backtest/streets_<code>.csv.gz) read as the model
// card describes them, shared by the tests that recompute its street figures.
import { readExport } from './exports.mjs';
import { CLASSES } from './outcomes.mjs';

export const GROUPS = {
  all: { label: 'all', classes: CLASSES },
  street_violence: { label: 'street violence', classes: ['BATTERY_ASSAULT', 'SERIOUS_VIOLENT'] },
};
export const REFIT_EVERY = 13;

/** The export's assigned ways ({ way, cell, length }), each group's k and counts ({ week, way, n }). */
export function readStreets(code) {
  const ways = [];
  const k = {};
  const counts = {};
  for (const row of readExport(`streets_${code}.csv.gz`)) {
    if (row.record === 'way') ways.push({ way: Number(row.way), cell: row.cell, length: Number(row.value) });
    else if (row.record === 'k') k[row.group] = Number(row.value);
    else if (row.record === 'count') (counts[row.group] ??= []).push({ week: row.week_start, way: Number(row.way), n: Number(row.value) });
  }
  return { ways, k, counts };
}

/** Each way's share of its cell from per-way history counts `n` and shrinkage `k`. */
export function shares(ways, n, k) {
  const cellCount = new Map(); const cellLength = new Map();
  for (const w of ways) {
    cellCount.set(w.cell, (cellCount.get(w.cell) ?? 0) + (n.get(w.way) ?? 0));
    cellLength.set(w.cell, (cellLength.get(w.cell) ?? 0) + w.length);
  }
  return new Map(ways.map((w) => [w.way,
    ((n.get(w.way) ?? 0) + k * w.length / cellLength.get(w.cell)) / (cellCount.get(w.cell) + k)]));
}

/** Per-way sums of the counts whose week `keep` accepts. */
export function totals(counts, keep) {
  const n = new Map();
  for (const c of counts) if (keep(c.week)) n.set(c.way, (n.get(c.way) ?? 0) + c.n);
  return n;
}

/** The date `days` after `date` (YYYY-MM-DD). */
export function addDays(date, days) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
