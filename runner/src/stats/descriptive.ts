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
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (h - lo) * (b - a);
}

/** The p-th percentile, 0 ≤ p ≤ 100: quantile(values, p / 100), same definition (type 7). */
export function percentile(values: readonly number[], p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile: p must be within [0, 100], got ${p}`);
  return quantile(values, p / 100);
}

/** The median: the 0.5-quantile (for an even count, the mean of the two middle values). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/**
 * Arithmetic mean, summed in the order given (summarize() passes sorted values, which keeps the
 * rounding of its stored mean independent of run order).
 */
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

/**
 * Standard error of the mean, s / √n with the sample standard deviation s (n - 1); null for fewer
 * than two values. Same as scipy.stats.sem(ddof=1).
 */
export function standardError(values: readonly number[]): number | null {
  const s = stdev(values);
  return s === null ? null : s / Math.sqrt(values.length);
}

/**
 * The consistency constant that turns the MAD into an estimator of σ for normal data:
 * 1 / Φ⁻¹(3/4) (Rousseeuw & Croux 1993), the value scipy uses for scale="normal".
 */
export const MAD_NORMAL_SCALE = 1.482602218505602;

/**
 * Median absolute deviation, median(|x - median(x)|) (Hampel 1974), a robust spread that one
 * outlier cannot move. `scale: 'normal'` multiplies by MAD_NORMAL_SCALE so that it estimates the
 * standard deviation of normal data. Same as scipy.stats.median_abs_deviation(x, scale=...).
 */
export function medianAbsoluteDeviation(
  values: readonly number[],
  options: { scale?: 'raw' | 'normal' } = {},
): number {
  const m = median(values);
  const mad = median(values.map((v) => Math.abs(v - m)));
  return options.scale === 'normal' ? mad * MAD_NORMAL_SCALE : mad;
}

/**
 * Coefficient of variation, stdev / mean with the sample standard deviation (n - 1): the
 * relative spread. Null for fewer than two values; a RangeError when the mean is 0 (undefined).
 * Same as scipy.stats.variation(x, ddof=1).
 */
export function coefficientOfVariation(values: readonly number[]): number | null {
  const s = stdev(values);
  if (s === null) return null;
  const m = mean(values);
  if (m === 0) throw new RangeError('coefficient of variation: the mean is 0, so the ratio is undefined');
  return s / m;
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
