import { assertFiniteSamples, median } from './descriptive.ts';

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
 * test. Robust: a few outliers do not move it. O(mn) memory and time.
 */
export function hodgesLehmannShift(x: readonly number[], y: readonly number[]): number {
  assertFiniteSamples(x, 'x');
  assertFiniteSamples(y, 'y');
  const diffs = new Array<number>(x.length * y.length);
  let k = 0;
  for (const a of x) for (const b of y) diffs[k++] = a - b;
  return median(diffs);
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
