import { mean, stdev } from './descriptive.ts';
import { studentTCdf, studentTQuantile } from './distributions.ts';
import { moderate, type Moderation } from './moderation.ts';

/** The scale a prediction test works on, and the window's centre and spread on it. */
export interface PredictionScale {
  /** True when the current value and every window value are positive: the test is on logs. */
  logScale: boolean;
  /** The window's values on that scale, oldest first. */
  values: number[];
  /** The current value on that scale. */
  current: number;
  /** Mean of `values`. */
  center: number;
  /** `center` back on the values' scale: the geometric mean on logs, the mean otherwise. */
  level: number;
  /** Standard deviation of `values` (k − 1 degrees of freedom): the window's own spread. */
  spread: number;
}

/**
 * The window (e.g. the run medians of the last K nights) and the current value on the scale of
 * the prediction test: ln when all are positive, else linear. Needs at least two window values.
 */
export function predictionScale(window: readonly number[], current: number): PredictionScale {
  if (window.length < 2) throw new RangeError(`window needs at least 2 values, got ${window.length}`);
  const logScale = current > 0 && window.every((m) => m > 0);
  const f = logScale ? Math.log : (v: number): number => v;
  const values = window.map(f);
  const center = mean(values);
  return {
    logScale,
    values,
    current: f(current),
    center,
    level: logScale ? Math.exp(center) : center,
    spread: stdev(values)!,
  };
}

/**
 * The smallest positive gap between distinct values (their quantization step, e.g. 1 for
 * whole milliseconds), or null when all values are equal.
 */
export function resolutionOf(values: readonly number[]): number | null {
  const sorted = Float64Array.from(values).sort();
  let step = Infinity;
  for (let i = 1; i < sorted.length; i++) {
    const gap = sorted[i]! - sorted[i - 1]!;
    if (gap > 0 && gap < step) step = gap;
  }
  return Number.isFinite(step) ? step : null;
}

/**
 * The standard deviation of rounding to `resolution` (resolution/√12), relative to `level` on a
 * log scale (level null: linear scale); 0 without a resolution. A spread below it is an artefact
 * of quantization: whole-millisecond medians are often equal on every night (s = 0), and a
 * one-step change would then get p = 0 whatever the noise.
 */
export function resolutionFloor(resolution: number | null, level: number | null): number {
  if (resolution === null) return 0;
  return level === null ? resolution / Math.sqrt(12) : resolution / (Math.sqrt(12) * level);
}

export interface PredictionTestOptions {
  /** Level of the change interval, e.g. 0.95. */
  confidence: number;
  /** Quantization step of the raw values (resolutionOf), or null. */
  resolution: number | null;
  /** Sampling variance of ln(median) of the window's nights; used on the log scale only. */
  sampling: number | null;
  /** Pooled moderation of the spread (moderation.ts), or null for the window's own spread. */
  moderation: Moderation | null;
}

export interface PredictionTest {
  logScale: boolean;
  /** The window's centre on the values' scale (geometric mean on logs). */
  level: number;
  /** current − centre on the test's scale. */
  difference: number;
  /** The window's own spread, and the spread the test used (moderated, then floored). */
  ownSpread: number;
  spread: number;
  /** True when the resolution floor raised the spread. */
  floored: boolean;
  /** True when moderation added degrees of freedom (df > k − 1). */
  moderated: boolean;
  df: number;
  /** Standard error of the prediction, spread · √(1 + 1/k), on the test's scale. */
  se: number;
  /** Two-sided p-value. */
  p: number;
  /**
   * Relative change of the current value against the level with its interval at `confidence`:
   * e^d − 1 on logs, d/|centre| on a linear scale; null on a linear scale with a zero centre.
   */
  change: number | null;
  lower: number | null;
  upper: number | null;
}

/**
 * The t prediction test of one new value against a window of k values: t = d / (s · √(1 + 1/k)),
 * d the current value minus the window's mean, df = k − 1 (a new observation against a normal
 * sample; Hahn & Meeker 1991, Statistical Intervals, §4.7) — or d₀ + k − 1 when the spread is
 * moderated — with s floored by the values' resolution (resolutionFloor). se = 0: p = 1 when
 * d = 0, else 0.
 */
export function predictionTest(scale: PredictionScale, options: PredictionTestOptions): PredictionTest {
  const k = scale.values.length;
  const floor = resolutionFloor(options.resolution, scale.logScale ? scale.level : null);
  const m = moderate(scale.spread, k - 1, scale.logScale ? options.sampling : null, options.moderation);
  const spread = Math.max(m.spread, floor);
  const se = spread * Math.sqrt(1 + 1 / k);
  const d = scale.current - scale.center;
  const p = se === 0 ? (d === 0 ? 1 : 0) : Math.min(1, 2 * studentTCdf(-Math.abs(d / se), m.df));
  const half = se === 0 ? 0 : studentTQuantile(1 - (1 - options.confidence) / 2, m.df) * se;
  let change: number | null = null;
  let lower: number | null = null;
  let upper: number | null = null;
  if (scale.logScale) {
    change = Math.expm1(d);
    lower = Math.expm1(d - half);
    upper = Math.expm1(d + half);
  } else if (scale.center !== 0) {
    change = d / Math.abs(scale.center);
    lower = (d - half) / Math.abs(scale.center);
    upper = (d + half) / Math.abs(scale.center);
  }
  return {
    logScale: scale.logScale,
    level: scale.level,
    difference: d,
    ownSpread: scale.spread,
    spread,
    floored: spread > m.spread,
    moderated: m.df > k - 1,
    df: m.df,
    se,
    p,
    change,
    lower,
    upper,
  };
}
