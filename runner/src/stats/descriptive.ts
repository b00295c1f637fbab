import type { Summary } from '@runtime-bench/schemas';

/** Throws on input no statistic can be computed from, naming what is wrong. */
export function assertFiniteSamples(values: readonly number[], what = 'samples'): void {
  if (values.length === 0) throw new RangeError(`${what}: no values (a statistic needs at least one)`);
  const bad = values.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0)
    throw new RangeError(`${what}: value ${bad} is ${values[bad]} (only finite numbers are allowed)`);
}

export function sortedCopy(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/**
 * The q-quantile (0 ≤ q ≤ 1) by linear interpolation between order statistics:
 * Hyndman & Fan (1996) definition 7, the default of R's quantile() and numpy.percentile.
 */
export function quantile(values: readonly number[], q: number): number {
  assertFiniteSamples(values);
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile: q must be within [0, 1], got ${q}`);
  const sorted = sortedCopy(values);
  return quantileOfSorted(sorted, q);
}

/** quantile() for an already sorted array, to avoid re-sorting in loops. */
export function quantileOfSorted(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (h - lo) * (b - a);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Arithmetic mean, summed in sorted order to keep rounding stable. */
export function mean(values: readonly number[]): number {
  assertFiniteSamples(values);
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Sample variance (Bessel's correction, n - 1); null for fewer than two values. */
export function variance(values: readonly number[]): number | null {
  assertFiniteSamples(values);
  if (values.length < 2) return null;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) ** 2;
  return ss / (values.length - 1);
}

/** Sample standard deviation (n - 1); null for fewer than two values. */
export function stdev(values: readonly number[]): number | null {
  const v = variance(values);
  return v === null ? null : Math.sqrt(v);
}

/** The summary stored with every metric of a result. */
export function summarize(values: readonly number[]): Summary {
  assertFiniteSamples(values);
  const sorted = sortedCopy(values);
  return {
    n: sorted.length,
    median: quantileOfSorted(sorted, 0.5),
    mean: mean(sorted),
    stdev: stdev(sorted),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    p90: quantileOfSorted(sorted, 0.9),
    p99: quantileOfSorted(sorted, 0.99),
  };
}
