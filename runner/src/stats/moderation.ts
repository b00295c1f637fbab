import { median } from './descriptive.ts';

/**
 * The moderated spread of several metrics measured on the same nights (the gate: the metrics of
 * one benchmark × target once the night factor is removed). What is left of a metric's
 * night-to-night variation is mostly the sampling noise of its median, so its window spread s²
 * is about λ times that sampling variance v (medianSamplingVariance from the nights' own
 * samples, with many degrees of freedom), with λ common to the metrics. λ is pooled as the
 * median over the metrics of s²/v (divided by the median of χ²_ν/ν, (1 − 2/(9ν))³ by
 * Wilson–Hilferty, so that it estimates the mean); each metric's spread is then moderated
 * towards λ·v as in limma's moderated t (Smyth 2004): s̃² = (d₀·λv + ν·s²)/(d₀ + ν), with
 * d₀ + ν degrees of freedom. A window of 10 leaves a t test with 9 df, whose critical value at a
 * Holm level of 0.05/40 is 5.0 against 3.2 for a normal: most of the gate's power lost.
 */
export interface Moderation {
  /** Pooled ratio of a metric's window variance to its median's sampling variance. */
  lambda: number;
  /** Prior degrees of freedom d₀; null: each test's own (d₀ = ν, equal weight). */
  priorDf: number | null;
}

/** One metric's own window spread s (log scale), its median's sampling variance v, and ν = df of s. */
export interface OwnSpread {
  own: number;
  sampling: number;
  df: number;
}

/**
 * λ pooled over the metrics' own spreads (those with v > 0 and ν > 0); null with fewer than
 * `minMetrics` of them, or when `priorDf` is 0 (moderation off).
 */
export function pooledModeration(
  spreads: readonly OwnSpread[],
  priorDf: number | null,
  minMetrics: number,
): Moderation | null {
  if (priorDf !== null && !(priorDf > 0)) return null;
  const usable = spreads.filter((v) => v.sampling > 0 && v.df > 0);
  if (usable.length < minMetrics) return null;
  const nu = median(usable.map((v) => v.df));
  const ratio = median(usable.map((v) => v.own ** 2 / v.sampling));
  return { lambda: ratio / (1 - 2 / (9 * nu)) ** 3, priorDf };
}

/** The spread a test uses and its degrees of freedom: its own, or moderated towards λ·v. */
export interface ModeratedSpread {
  spread: number;
  df: number;
}

/**
 * A test's spread moderated towards the pooled one: s̃ and d₀ + ν; the own spread and ν unchanged
 * without a pooled λ or without the metric's sampling variance.
 */
export function moderate(
  own: number,
  df: number,
  sampling: number | null,
  pooled: Moderation | null,
): ModeratedSpread {
  if (!pooled || sampling === null || !(sampling > 0)) return { spread: own, df };
  const prior = pooled.lambda * sampling;
  const d0 = pooled.priorDf ?? df;
  return { spread: Math.sqrt((d0 * prior + df * own ** 2) / (d0 + df)), df: d0 + df };
}
