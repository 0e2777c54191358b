// The hot-spot report's figures over weeks of forecasts and outcomes, as
// docs/MODEL.md defines them, for the tests that recompute its tables.

/** Hit rate, PAI and PEI* at 1, 5 and 10 % of the area, and the stability of the top 5 %, over `weeks`. */
export function hotspots(weeks) {
  const fractions = [0.01, 0.05, 0.1];
  const hits = [0, 0, 0]; const taken = [0, 0, 0]; const minimal = [0, 0, 0];
  let incidents = 0; let area = 0; let jaccard = 0; let pairs = 0; let previous = null;
  for (const week of weeks) {
    const cells = week.length;
    const ranked = week.map((w, i) => ({ ...w, i })).sort((a, b) => b.forecast - a.forecast || a.i - b.i);
    const busiest = week.map((w) => w.observed).sort((a, b) => b - a);
    incidents += week.reduce((s, w) => s + w.observed, 0);
    area += cells;
    fractions.forEach((fraction, f) => {
      const k = Math.min(cells, Math.max(1, Math.round(fraction * cells)));
      const n = ranked.slice(0, k).reduce((s, w) => s + w.observed, 0);
      hits[f] += n;
      taken[f] += k;
      if (n > 0) {
        let held = 0; let a = 0;
        while (held < n) { held += busiest[a]; a += 1; }
        minimal[f] += a;
      }
    });
    const k = Math.min(cells, Math.max(1, Math.round(0.05 * cells)));
    const top = new Set(ranked.slice(0, k).map((w) => w.i));
    if (previous) {
      const shared = [...top].filter((c) => previous.has(c)).length;
      jaccard += shared / (top.size + previous.size - shared);
      pairs += 1;
    }
    previous = top;
  }
  const hitRate = hits.map((h) => h / incidents);
  return [...hitRate, ...hitRate.map((h, f) => h / (taken[f] / area)), ...minimal.map((a, f) => a / taken[f]), jaccard / pairs];
}
