import { mean, median, stdev } from './descriptive.ts';
import { studentTCdf, studentTQuantile } from './distributions.ts';
import { moderate, type Moderation } from './moderation.ts';
import { resolutionFloor } from './prediction.ts';
import { linearTrend } from './trend.ts';

/**
 * Alarms from persistence: a step smaller than one night's noise shows as several nights in a
 * row beyond the window. Besides the one-night prediction test, the mean of the last k nights
 * (the current one and the k − 1 nights before it) is tested against the K nights before them,
 * t = (ȳₖ − ȳ_K) / (s_K·√(1/k + 1/K)), df = K − 1 — provided the nights are beyond half the
 * threshold in the same direction — both of two nights, the median of more (one slow night
 * followed by normal ones is not a lasting change; a creep's first nights may be below the bar).
 * The combined p-value is the weighted Bonferroni minimum over the scales, min(p_k / w_k) (each
 * scale gets its share w_k of alpha, so the family-wise level holds). When a longer scale
 * decides, the change is tonight's level against the K nights before the k (with its prediction
 * interval) — it must reach the threshold.
 */
export const PERSISTENCE_SCALES: readonly { nights: number; weight: number }[] = [
  { nights: 1, weight: 0.4 },
  { nights: 2, weight: 0.15 },
  { nights: 4, weight: 0.1 },
  { nights: 6, weight: 0.05 },
];

/**
 * The trend alarm's share of alpha (with PERSISTENCE_SCALES' the shares sum to 1). A creep of a
 * percent a night is absorbed by a rolling window — each night is near the few before it, and
 * the k-night means lag — but it is a slope of the whole window: the OLS slope of the window's
 * logs and tonight's, t = b·√Sxx / s, df n − 2, s the residual spread moderated like the others.
 * It counts only when tonight is beyond the threshold against the window's early level (the mean
 * of its first half) in the slope's direction, and that is the change.
 */
export const TREND_WEIGHT = 0.3;

/** A change with its interval (relative, e^d − 1). */
export interface SizedChange {
  change: number;
  lower: number;
  upper: number;
}

export interface PersistenceOptions {
  /** Practical threshold (fraction) the change must reach. */
  threshold: number;
  /** K: the most nights a window before the recent ones holds. */
  window: number;
  /** Fewest nights in a window before the recent ones (the gate's run-level minimum). */
  minRuns: number;
  /** Level of the change intervals. */
  confidence: number;
  /** Quantization step of the raw values (prediction.ts resolutionOf), or null. */
  resolution: number | null;
  /** Sampling variance of ln(median) of the nights (for moderation), or null. */
  sampling: number | null;
  moderation: Moderation | null;
}

export interface TrendAlarm extends SizedChange {
  /** Two-sided p of the slope, before TREND_WEIGHT. */
  p: number;
  /** Nights of the fit, tonight included. */
  runs: number;
}

/**
 * The trend alarm (TREND_WEIGHT) on a series of log values whose last one is tonight's: the
 * two-sided p of the OLS slope (before the weight), and tonight's change against the early
 * level; null when there is no trend worth flagging (fewer than minRuns + 2 values, or tonight
 * within the threshold or against the slope).
 */
export function trendAlarm(
  logs: readonly number[],
  options: Pick<PersistenceOptions, 'threshold' | 'confidence' | 'minRuns'> &
    Partial<Pick<PersistenceOptions, 'sampling' | 'moderation'>>,
): TrendAlarm | null {
  const fit = linearTrend(logs);
  if (!fit || logs.length < options.minRuns + 2) return null;
  const early = logs.slice(0, Math.floor((logs.length - 1) / 2));
  const center = mean(early);
  const now = logs.at(-1)! - center;
  if (Math.sign(now) !== Math.sign(fit.slope) || Math.abs(Math.expm1(now)) < options.threshold) return null;
  const m = moderate(fit.residualSd, fit.df, options.sampling ?? null, options.moderation ?? null);
  const se = m.spread / Math.sqrt(fit.sxx);
  const p = se === 0 ? 0 : Math.min(1, 2 * studentTCdf(-Math.abs(fit.slope / se), m.df));
  const half =
    studentTQuantile(1 - (1 - options.confidence) / 2, m.df) * m.spread * Math.sqrt(1 + 1 / early.length);
  return {
    p,
    change: Math.expm1(now),
    lower: Math.expm1(now - half),
    upper: Math.expm1(now + half),
    runs: logs.length,
  };
}

/** What decided a lasting change: the mean of the last `nights`, or the trend. */
export type LastingDecision =
  | (SizedChange & { by: 'nights'; nights: number; runs: number })
  | (SizedChange & { by: 'trend'; runs: number });

export interface Persistence {
  /** The weighted Bonferroni p over the one-night test, the k-night scales and the trend (≤ 1). */
  p: number;
  /** The longer scale or trend that gave the smallest weighted p; null when the one night did. */
  decided: LastingDecision | null;
}

/**
 * Combines the one-night test's p (`singleP`) with the k-night scales of PERSISTENCE_SCALES and
 * the trend alarm, on the log values of the earlier nights (oldest first) and tonight's.
 */
export function persistence(
  previousLogs: readonly number[],
  currentLog: number,
  singleP: number,
  options: PersistenceOptions,
): Persistence {
  const { threshold, confidence, resolution, sampling, moderation, minRuns } = options;
  let best = { p: singleP / PERSISTENCE_SCALES[0]!.weight, k: 1 };
  let decided: LastingDecision | null = null;
  const K = options.window;
  for (const { nights: k, weight } of PERSISTENCE_SCALES.slice(1)) {
    // k − 1 earlier nights plus a window of at least minRuns before them.
    if (previousLogs.length < k - 1 + minRuns) continue;
    const recent = [...previousLogs.slice(previousLogs.length - (k - 1)), currentLog];
    const window = previousLogs.slice(0, previousLogs.length - (k - 1)).slice(-K);
    const center = mean(window);
    const d = mean(recent) - center;
    const bar = Math.log1p(threshold) / 2;
    // The lower bar: with two nights, both; with more, their median (one wild night cannot pass it).
    const beyond = (y: number): boolean =>
      Math.sign(y - center) === Math.sign(d) && Math.abs(y - center) >= bar;
    if (k <= 2 ? !recent.every(beyond) : !beyond(median(recent))) continue;
    const floor = resolutionFloor(resolution, Math.exp(center));
    const m = moderate(stdev(window)!, window.length - 1, sampling, moderation);
    const spread = Math.max(m.spread, floor);
    const se = spread * Math.sqrt(1 / k + 1 / window.length);
    const p = se === 0 ? 0 : Math.min(1, 2 * studentTCdf(-Math.abs(d / se), m.df));
    // The size is tonight's level against the nights before the change began: a creep's mean
    // over k nights lags its level.
    const now = currentLog - center;
    if (Math.sign(now) !== Math.sign(d) || Math.abs(Math.expm1(now)) < threshold || p / weight >= best.p)
      continue;
    const half = studentTQuantile(1 - (1 - confidence) / 2, m.df) * spread * Math.sqrt(1 + 1 / window.length);
    best = { p: p / weight, k };
    decided = {
      by: 'nights',
      nights: k,
      runs: window.length,
      change: Math.expm1(now),
      lower: Math.expm1(now - half),
      upper: Math.expm1(now + half),
    };
  }
  const trend = trendAlarm([...previousLogs.slice(-K), currentLog], {
    threshold,
    confidence,
    minRuns,
    sampling,
    moderation,
  });
  if (trend && trend.p / TREND_WEIGHT < best.p) {
    best = { p: trend.p / TREND_WEIGHT, k: 1 };
    decided = { by: 'trend', runs: trend.runs, change: trend.change, lower: trend.lower, upper: trend.upper };
  }
  return { p: Math.min(1, best.p), decided };
}
