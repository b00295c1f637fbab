import digamma from '@stdlib/math-base-special-digamma';
import trigamma from '@stdlib/math-base-special-trigamma';
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
 * Holm level of 0.05/40 is 5.0 against 3.2 for a normal: most of the gate's power lost. d₀ is
 * given, the test's own ν, or estimated from how much the metrics' s²/v scatter (estimatedPriorDf).
 */
export interface Moderation {
  /** Pooled ratio of a metric's window variance to its median's sampling variance. */
  lambda: number;
  /** Prior degrees of freedom d₀ (may be Infinity); null: each test's own (d₀ = ν, equal weight). */
  priorDf: number | null;
}

/** One metric's own window spread s (log scale), its median's sampling variance v, and ν = df of s. */
export interface OwnSpread {
  own: number;
  sampling: number;
  df: number;
}

/**
 * λ pooled over the metrics' own spreads (those with v > 0 and ν > 0), and d₀: `priorDf`, each
 * test's own (null), or estimated from the spreads ('estimated'); null with fewer than
 * `minMetrics` of them, or when `priorDf` is 0 (moderation off).
 */
export function pooledModeration(
  spreads: readonly OwnSpread[],
  priorDf: number | 'estimated' | null,
  minMetrics: number,
): Moderation | null {
  if (typeof priorDf === 'number' && !(priorDf > 0)) return null;
  const usable = spreads.filter((v) => v.sampling > 0 && v.df > 0);
  if (usable.length < minMetrics) return null;
  const nu = median(usable.map((v) => v.df));
  const ratio = median(usable.map((v) => v.own ** 2 / v.sampling));
  const d0 = priorDf === 'estimated' ? estimatedPriorDf(usable) : priorDf;
  return { lambda: ratio / (1 - 2 / (9 * nu)) ** 3, priorDf: d0 };
}

/**
 * d₀ as limma estimates it (Smyth 2004, §6.2): the scatter of ln(s²/v) over the metrics beyond
 * what ν degrees of freedom alone give (ψ′(ν/2)) is the prior's, var = ψ′(d₀/2). Metrics whose
 * spreads all agree with λv (only sampling noise left) give a large d₀; some with drift of their
 * own scatter more and give a small one. Infinity when the scatter is no more than χ² alone gives.
 */
export function estimatedPriorDf(spreads: readonly OwnSpread[]): number {
  const e = spreads.map((v) => Math.log(v.own ** 2 / v.sampling) - digamma(v.df / 2) + Math.log(v.df / 2));
  const mean = e.reduce((a, b) => a + b, 0) / e.length;
  const scatter = e.reduce((a, b) => a + (b - mean) ** 2, 0) / (e.length - 1);
  const excess = scatter - spreads.reduce((a, v) => a + trigamma(v.df / 2), 0) / spreads.length;
  if (!(excess > 0)) return Infinity;
  return 2 * trigammaInverse(excess);
}

/** y with ψ′(y) = x (ψ′ decreases from ∞ to 0 on (0, ∞)): bisection on ln y. */
function trigammaInverse(x: number): number {
  let lo = Math.log(1e-8);
  let hi = Math.log(1e12);
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (trigamma(Math.exp(mid)) > x) lo = mid;
    else hi = mid;
  }
  return Math.exp((lo + hi) / 2);
}

/** The spread a test uses and its degrees of freedom: its own, or moderated towards λ·v. */
export interface ModeratedSpread {
  spread: number;
  df: number;
}

/** A cap on d₀ + ν (d₀ may be infinite): t at 1000 df is within 2 % of the normal at the gate's levels. */
const DF_CAP = 1000;

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
  const d0 = Math.min(pooled.priorDf ?? df, DF_CAP - df);
  return { spread: Math.sqrt((d0 * prior + df * own ** 2) / (d0 + df)), df: d0 + df };
}
