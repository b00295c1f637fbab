/** A confidence interval of a median from order statistics, with the coverage it really has. */
export interface MedianInterval {
  lower: number;
  upper: number;
  /** Exact coverage of [x₍ⱼ₎, x₍ₙ₋ⱼ₊₁₎] (≥ the requested confidence). */
  coverage: number;
}

/**
 * Distribution-free confidence interval of the median (Conover, Practical Nonparametric
 * Statistics, §3.2): with j the largest rank such that 2·P(Bin(n, ½) ≤ j − 1) ≤ 1 − confidence,
 * [x₍ⱼ₎, x₍ₙ₋ⱼ₊₁₎] covers the population median with probability 1 − 2·P(Bin(n, ½) ≤ j − 1).
 * Exact for every n, O(n) after sorting, no resampling: cheap enough for every point of every
 * chart. Returns null when n is too small for the requested confidence (n < 6 at 95 %), which
 * the site shows as "too few samples for an interval" rather than a misleading one.
 */
export function medianInterval(values: readonly number[], confidence = 0.95): MedianInterval | null {
  return medianIntervalOfSorted(
    [...values].sort((a, b) => a - b),
    confidence,
  );
}

/** medianInterval() of values already sorted ascending (saves a sort on large pooled samples). */
export function medianIntervalOfSorted(sorted: ArrayLike<number>, confidence = 0.95): MedianInterval | null {
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  const n = sorted.length;
  if (n === 0) return null;
  const alpha = 1 - confidence;
  // Walk the lower tail of Bin(n, ½) in log space (n may be tens of thousands of pooled samples).
  const ln2n = n * Math.LN2;
  let logC = 0; // log C(n, k)
  let cdf = 0; // P(B ≤ k - 1) before adding term k
  let j = 0; // ranks are 1-based: j = k + 1 once P(B ≤ k) ≤ alpha / 2
  let tail = 0;
  for (let k = 0; k < n / 2; k++) {
    const next = cdf + Math.exp(logC - ln2n);
    if (2 * next > alpha) break;
    cdf = next;
    j = k + 1;
    tail = cdf;
    logC += Math.log(n - k) - Math.log(k + 1);
  }
  if (j === 0) return null;
  return { lower: sorted[j - 1]!, upper: sorted[n - j]!, coverage: 1 - 2 * tail };
}
