import { kthByCount } from './kth-by-count.ts';
import { assertFiniteSamples } from './descriptive.ts';
import { normalQuantile } from './distributions.ts';
import { uFrequencies } from './mann-whitney.ts';

/**
 * Cliff's delta (Cliff 1993, "Dominance statistics"): P(X > Y) - P(X < Y) over all pairs, in
 * [-1, 1]. A rank-based effect size that matches the Mann–Whitney test (δ = 2U/(mn) - 1) and
 * needs no normality: 0 means no tendency, ±0.147 / 0.33 / 0.474 are Romano et al.'s (2006)
 * small / medium / large.
 */
export function cliffsDelta(x: readonly number[], y: readonly number[]): number {
  assertFiniteSamples(x, 'x');
  assertFiniteSamples(y, 'y');
  // Sort y once and count smaller / larger values by binary search: O((m + n) log n).
  const sorted = [...y].sort((a, b) => a - b);
  let dominance = 0;
  for (const v of x) dominance += lowerBound(sorted, v) - (sorted.length - upperBound(sorted, v));
  return dominance / (x.length * y.length);
}

/**
 * The Hodges–Lehmann estimate of the shift between two samples (Hodges & Lehmann 1963): the
 * median of all pairwise differences xᵢ - yⱼ, the location shift that goes with the Mann–Whitney
 * test. Robust: a few outliers do not move it. The m·n differences are never materialised: the
 * k-th smallest is found by bisection on the value, counting differences ≤ t over the sorted
 * samples with two pointers (O(m + n) per step), then enumerating the few left in the final
 * bracket — O((m + n) log(m + n)) time for the sorts plus O(m + n) per bisection step, O(m + n)
 * memory (50 000 × 50 000 takes well under a second).
 */
export function hodgesLehmannShift(x: readonly number[], y: readonly number[]): number {
  assertFiniteSamples(x, 'x');
  assertFiniteSamples(y, 'y');
  const xs = Float64Array.from(x).sort();
  const ys = Float64Array.from(y).sort();
  const total = xs.length * ys.length;
  const k = Math.floor((total + 1) / 2); // 1-based rank of the (lower) median
  const lowerMedian = kthPairwiseDifference(xs, ys, k);
  return total % 2 === 1 ? lowerMedian : (lowerMedian + kthPairwiseDifference(xs, ys, k + 1)) / 2;
}

/** The two-sample Hodges–Lehmann shift with the interval of the rank-sum test it goes with. */
export interface ShiftIntervalTwoSample {
  estimate: number;
  /** Interval bounds; ±Infinity when the samples are too small for the confidence. */
  lower: number;
  upper: number;
  confidence: number;
  /** The U distribution used: exact while C(m+n, m) ≤ 2⁵³, else the normal approximation. */
  method: 'exact' | 'asymptotic';
  /** The bounds are the k-th smallest and k-th largest difference (0 when unbounded). */
  k: number;
}

/**
 * The Hodges–Lehmann shift of x against y with Moses' distribution-free interval (Hollander &
 * Wolfe 1999, §4.3; Bauer 1972): with the m·n differences xᵢ − yⱼ sorted, [D₍ₖ₎, D₍ₘₙ₋ₖ₊₁₎]
 * where k − 1 is the largest c with P(U ≤ c) ≤ (1 − confidence)/2 under the null distribution of
 * Mann–Whitney's U — the shifts the two-sided rank-sum test does not reject. U's distribution is
 * exact (uFrequencies) while C(m+n, m) ≤ 2⁵³, else normal without continuity correction
 * (c = ⌊mn/2 + z_(α/2)·√(mn(m+n+1)/12)⌋).
 */
export function hodgesLehmannInterval(
  x: readonly number[],
  y: readonly number[],
  confidence = 0.95,
): ShiftIntervalTwoSample {
  assertFiniteSamples(x, 'x');
  assertFiniteSamples(y, 'y');
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`shift interval: confidence must be in (0, 1), got ${confidence}`);
  const xs = Float64Array.from(x).sort();
  const ys = Float64Array.from(y).sort();
  const m = xs.length;
  const n = ys.length;
  const total = m * n;
  const tailProbability = (1 - confidence) / 2;
  let log2Arrangements = 0;
  for (let i = 1; i <= Math.min(m, n); i++) log2Arrangements += Math.log2((m + n - Math.min(m, n) + i) / i);
  let c: number;
  let method: ShiftIntervalTwoSample['method'];
  if (log2Arrangements <= 53) {
    method = 'exact';
    const counts = uFrequencies(m, n);
    const all = counts.reduce((a, b) => a + b, 0);
    c = -1;
    let cumulative = 0;
    while (c + 1 < counts.length && (cumulative + counts[c + 1]!) / all <= tailProbability)
      cumulative += counts[++c]!;
  } else {
    method = 'asymptotic';
    c = Math.floor(total / 2 + normalQuantile(tailProbability) * Math.sqrt((total * (m + n + 1)) / 12));
  }
  const estimate = hodgesLehmannShift(x, y);
  const k = c + 1;
  if (k < 1) return { estimate, lower: -Infinity, upper: Infinity, confidence, method, k: 0 };
  return {
    estimate,
    lower: kthPairwiseDifference(xs, ys, k),
    upper: kthPairwiseDifference(xs, ys, total - k + 1),
    confidence,
    method,
    k,
  };
}

/** Number of pairs with xᵢ - yⱼ ≤ t (both arrays ascending; the computed difference is monotone). */
function countAtMost(xs: Float64Array, ys: Float64Array, t: number): number {
  let count = 0;
  let j = 0; // first index with xᵢ - yⱼ ≤ t; moves right as xᵢ grows
  for (const xi of xs) {
    while (j < ys.length && xi - ys[j]! > t) j++;
    count += ys.length - j;
  }
  return count;
}

/** The k-th smallest (1-based) of the m·n differences xᵢ - yⱼ of two ascending arrays. */
export function kthPairwiseDifference(xs: Float64Array, ys: Float64Array, k: number): number {
  return kthByCount(k, {
    lo: xs[0]! - ys[ys.length - 1]! - 1,
    hi: xs[xs.length - 1]! - ys[0]!,
    total: xs.length * ys.length,
    enough: xs.length + ys.length,
    countAtMost: (t) => countAtMost(xs, ys, t),
    listBetween: (lo, hi) => {
      const rest: number[] = [];
      let start = 0;
      let end = 0;
      for (const xi of xs) {
        // xᵢ ascending: the yⱼ with lo < xᵢ - yⱼ ≤ hi form a window that moves right.
        while (start < ys.length && xi - ys[start]! > hi) start++;
        while (end < ys.length && xi - ys[end]! > lo) end++;
        for (let j = start; j < end; j++) rest.push(xi - ys[j]!);
      }
      return rest;
    },
  });
}

/** Number of values < v in a sorted array. */
function lowerBound(sorted: readonly number[], v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Number of values ≤ v in a sorted array. */
function upperBound(sorted: readonly number[], v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
