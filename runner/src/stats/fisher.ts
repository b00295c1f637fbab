export type Alternative = 'two-sided' | 'greater' | 'less';
const ALTERNATIVES: readonly string[] = ['two-sided', 'greater', 'less'];

/**
 * Fisher's exact test of a 2×2 table [[a, b], [c, d]] (Fisher 1922): conditional on the margins,
 * a follows the hypergeometric distribution; 'greater' is P(A ≥ a) (the first row has the larger
 * share of the first column, e.g. a higher error rate), 'less' is P(A ≤ a), and 'two-sided' sums
 * the probabilities of all tables no more likely than the observed one (with scipy's relative
 * tolerance of 1e-7 for ties in probability). Matches scipy.stats.fisher_exact(table, alternative).
 * Used for error counts, where a normal approximation fails for rare events.
 */
export function fisherExact(
  table: readonly [readonly [number, number], readonly [number, number]],
  alternative: Alternative = 'two-sided',
): number {
  if (!ALTERNATIVES.includes(alternative))
    throw new RangeError(
      `Fisher's exact test: unknown alternative ${JSON.stringify(alternative)}; use one of ${ALTERNATIVES.join(', ')}`,
    );
  const [[a, b], [c, d]] = table;
  for (const v of [a, b, c, d])
    if (!Number.isInteger(v) || v < 0)
      throw new RangeError(`Fisher's exact test: counts must be non-negative integers, got ${v}`);
  const row1 = a + b;
  const col1 = a + c;
  const total = a + b + c + d;
  const lo = Math.max(0, col1 - (total - row1));
  const hi = Math.min(row1, col1);
  if (lo === hi) return 1; // only one table has these margins
  const lf = logFactorials(total);
  const logPmf = (k: number): number =>
    lf[row1]! -
    lf[k]! -
    lf[row1 - k]! +
    (lf[total - row1]! - lf[col1 - k]! - lf[total - row1 - col1 + k]!) -
    (lf[total]! - lf[col1]! - lf[total - col1]!);
  let p = 0;
  if (alternative === 'greater') for (let k = a; k <= hi; k++) p += Math.exp(logPmf(k));
  else if (alternative === 'less') for (let k = lo; k <= a; k++) p += Math.exp(logPmf(k));
  else {
    const observed = logPmf(a) + Math.log1p(1e-7);
    for (let k = lo; k <= hi; k++) {
      const lp = logPmf(k);
      if (lp <= observed) p += Math.exp(lp);
    }
  }
  return Math.min(1, p);
}

/** ln(k!) for k = 0..n, by summing logarithms (exact to rounding; no special functions needed). */
function logFactorials(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  for (let k = 2; k <= n; k++) out[k] = out[k - 1]! + Math.log(k);
  return out;
}
