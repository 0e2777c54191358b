// The six outcome probabilities of docs/MODEL.md ("What it forecasts"), computed
// independently of the engine: the class with the most incidents (ties by severity),
// or NO_CRIME without any, for independent negative binomial class counts; and
// log Γ, for the tests' other count distributions.

export const CLASSES = ['THEFT_BURGLARY', 'BATTERY_ASSAULT', 'VEHICLE_DAMAGE', 'SERIOUS_VIOLENT', 'OTHER'];
export const OUTCOMES = [...CLASSES, 'NO_CRIME'];

// Severity order for ties (docs/MODEL.md, "What it forecasts").
const TIE_RANK = [2, 1, 3, 0, 4];
// beats[i * 5 + d]: class i wins a tie with class d.
const beats = Uint8Array.from({ length: 25 }, (_, k) => (TIE_RANK[Math.floor(k / 5)] < TIE_RANK[k % 5] ? 1 : 0));

const pmf = new Float64Array(5);
const cdf = new Float64Array(5);
const before = new Float64Array(5);
const step = new Float64Array(5);

/**
 * Writes the six outcome probabilities (CLASSES order, then NO_CRIME) into `out` for
 * class counts of means `rates` and negative binomial sizes `sizes` (Infinity or
 * omitted: Poisson). Counts are summed until every class's tail is below 1e-15.
 */
export function outcomeDistribution(rates, sizes, out = new Float64Array(6)) {
  let quiet = 1;
  let tail = 0;
  for (let d = 0; d < 5; d += 1) {
    const rate = rates[d];
    const size = sizes ? sizes[d] : Infinity;
    const finite = Number.isFinite(size);
    pmf[d] = rate <= 0 ? 1 : finite ? Math.exp(-size * Math.log1p(rate / size)) : Math.exp(-rate);
    step[d] = finite ? rate / (size + rate) : rate;
    cdf[d] = pmf[d];
    quiet *= pmf[d];
    tail = Math.max(tail, 1 - cdf[d]);
    out[d] = 0;
  }
  out[5] = quiet;
  for (let n = 1; tail > 1e-15 && n < 10000; n += 1) {
    tail = 0;
    for (let d = 0; d < 5; d += 1) {
      before[d] = cdf[d];
      const size = sizes ? sizes[d] : Infinity;
      // NB: P(n) = P(n − 1) · (n − 1 + r) / n · μ / (r + μ); Poisson: P(n − 1) · μ / n.
      pmf[d] *= Number.isFinite(size) ? (step[d] * (n - 1 + size)) / n : step[d] / n;
      cdf[d] += pmf[d];
      tail = Math.max(tail, 1 - cdf[d]);
    }
    for (let i = 0; i < 5; i += 1) {
      let term = pmf[i];
      if (term === 0) continue;
      for (let d = 0; d < 5; d += 1) {
        if (d !== i) term *= beats[i * 5 + d] ? cdf[d] : before[d];
      }
      out[i] += term;
    }
  }
  return out;
}

/** The observed outcome's index in OUTCOMES for counts per class (CLASSES order). */
export function observedOutcome(counts) {
  let best = 5;
  for (let d = 0; d < 5; d += 1) {
    if (counts[d] === 0) continue;
    if (best === 5 || counts[d] > counts[best] || (counts[d] === counts[best] && beats[d * 5 + best])) best = d;
  }
  return best;
}

/** log Γ by the Lanczos approximation (g = 7, n = 9), accurate to ~1e-15. */
export function logGamma(x) {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i += 1) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}
