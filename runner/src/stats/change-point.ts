import { assertFiniteSamples, median } from './descriptive.ts';
import { studentTTest } from './ttest.ts';

/**
 * The E-divisive means statistic of every split of a series (Matteson & James 2014, as
 * implemented by MongoDB's signal-processing-algorithms and used by Apache Otava / Hunter):
 * for a split at τ into X = z[0..τ) and Y = z[τ..n),
 *
 *   Q(τ) = (τ(n-τ)/n) · (2/(τ(n-τ)) Σ|xᵢ-yⱼ| - 1/τ² Σ|xᵢ-xₖ| - 1/(n-τ)² Σ|yⱼ-yₗ|)
 *
 * (the energy distance with exponent 1, V-statistic form, exactly as the reference computes it;
 * Q(0) = 0). Large Q means the two sides differ in distribution, not just in mean; it needs no
 * normality and is not fooled by one outlier the way a mean shift is. O(n²) time and memory, for
 * nightly histories of tens to a few hundred points.
 */
export function energyStatistics(series: readonly number[]): Float64Array {
  assertFiniteSamples(series, 'series');
  const n = series.length;
  const d = (i: number, j: number): number => Math.abs(series[i]! - series[j]!);
  const out = new Float64Array(n);
  // Sums over ordered pairs (each unordered pair twice), updated as τ moves right by one.
  let xy = 0;
  let x = 0;
  let y = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) y += d(i, j);
  for (let tau = 0; tau < n; tau++) {
    const m = n - tau;
    if (tau > 0 && m > 0) {
      const e = (2 * xy) / (tau * m) - x / (tau * tau) - y / (m * m);
      out[tau] = ((tau * m) / n) * e;
    }
    // Move z[tau] from Y to X.
    let toX = 0;
    let toY = 0;
    for (let i = 0; i < tau; i++) toX += d(i, tau);
    for (let j = tau + 1; j < n; j++) toY += d(tau, j);
    xy += toY - toX;
    x += 2 * toX;
    y -= 2 * toY;
  }
  return out;
}

/** A change point: the series differs from index `index` on (the first point of the new level). */
export interface ChangePoint {
  index: number;
  /** The E-divisive statistic Q at this split within its segment. */
  statistic: number;
  /** Two-sided p of Student's t-test between the two sides within the segment. */
  pValue: number;
  /** Bounds [start, end) of the segment the split was found in. */
  segment: [number, number];
}

export interface EDivisiveOptions {
  /** Significance level of each split's test; default 0.001 (Otava's default max p-value). */
  alpha?: number;
  /** Smallest number of points on each side of a split; default 1. */
  minSize?: number;
}

/**
 * Change points of a series by E-divisive means with a t-test for significance, as Apache Otava
 * (Hunter) does: repeatedly take, over the segments between the change points found so far, the
 * split with the largest Q (energyStatistics), and keep it if Student's pooled t-test between
 * its two sides (within the segment) gives p < alpha; stop at the first split that is not
 * significant. Otava replaced MongoDB's permutation test by a t-test because it is deterministic
 * and fast; we use the pooled (Student) form so that a one-point side — a step on the newest
 * night — is tested as a new observation against the rest (the prediction test). Returns the
 * change points sorted by index.
 */
export function eDivisive(series: readonly number[], options: EDivisiveOptions = {}): ChangePoint[] {
  assertFiniteSamples(series, 'series');
  const alpha = options.alpha ?? 0.001;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be within (0, 1), got ${alpha}`);
  const minSize = options.minSize ?? 1;
  if (!Number.isInteger(minSize) || minSize < 1)
    throw new RangeError(`minSize must be a positive integer, got ${minSize}`);
  const found: ChangePoint[] = [];
  const best = new Map<string, ChangePoint | null>();
  for (;;) {
    const bounds = [0, ...found.map((c) => c.index).sort((a, b) => a - b), series.length];
    let top: ChangePoint | null = null;
    for (let k = 0; k + 1 < bounds.length; k++) {
      const key = `${bounds[k]}:${bounds[k + 1]}`;
      if (!best.has(key)) best.set(key, bestSplit(series, bounds[k]!, bounds[k + 1]!, minSize));
      const candidate = best.get(key)!;
      if (candidate && (!top || candidate.statistic > top.statistic)) top = candidate;
    }
    if (!top || !(top.pValue < alpha)) break;
    found.push(top);
  }
  return found.sort((a, b) => a.index - b.index);
}

function bestSplit(
  series: readonly number[],
  start: number,
  end: number,
  minSize: number,
): ChangePoint | null {
  const n = end - start;
  if (n < 2 * minSize || n < 3) return null;
  const segment = series.slice(start, end);
  const q = energyStatistics(segment);
  let tau = -1;
  for (let t = minSize; t <= n - minSize; t++) if (tau < 0 || q[t]! > q[tau]!) tau = t;
  const before = segment.slice(0, tau);
  const after = segment.slice(tau);
  const { pValue } = studentTTest(after, before);
  return { index: start + tau, statistic: q[tau]!, pValue, segment: [start, end] };
}

/**
 * One-off outliers of a series: points far from the level before them AND from the level after
 * them, where those two levels agree (the series returns). With b = median of up to 3 points
 * before i and a = median of up to 3 points after, i is an outlier when |zᵢ - b| and |zᵢ - a|
 * both exceed the limit and |b - a| does not. The limit is `k` robust standard deviations of the
 * series' point-to-point noise (1.4826·MAD of the first differences / √2; Hampel 1974), and at
 * least `floor` (for quantized or noiseless series, whose MAD is 0, and so that a blip smaller
 * than the practical threshold is never called an outlier). The first and last points are never
 * outliers: a new last point may be the start of a step. Returns the indices, ascending.
 */
export function outlierIndices(
  series: readonly number[],
  options: { k?: number; floor?: number } = {},
): number[] {
  if (series.length < 3) return [];
  assertFiniteSamples(series, 'series');
  const k = options.k ?? 5;
  const floor = options.floor ?? 0;
  const n = series.length;
  if (n < 3) return [];
  const diffs = series.slice(1).map((v, i) => v - series[i]!);
  const center = median(diffs);
  const sigma = (1.4826 * median(diffs.map((v) => Math.abs(v - center)))) / Math.SQRT2;
  const limit = Math.max(k * sigma, floor);
  const out: number[] = [];
  for (let i = 1; i < n - 1; i++) {
    const before = median(series.slice(Math.max(0, i - 3), i));
    const after = median(series.slice(i + 1, i + 4));
    const z = series[i]!;
    if (Math.abs(z - before) > limit && Math.abs(z - after) > limit && Math.abs(before - after) <= limit)
      out.push(i);
  }
  return out;
}
