import { assertFiniteSamples, medianAbsoluteDeviation } from './descriptive.ts';
import { normalQuantile } from './distributions.ts';

/**
 * Robust spread of ln(values): 1.4826·MAD of the logs (Hampel 1974), the log-scale standard
 * deviation a lognormal-ish latency sample would have without its outliers. Null when a value is
 * not positive or there are fewer than two values.
 */
export function logSpread(values: readonly number[]): number | null {
  if (values.length < 2 || values.some((v) => !(v > 0))) return null;
  assertFiniteSamples(values, 'values');
  return medianAbsoluteDeviation(
    values.map((v) => Math.log(v)),
    { scale: 'normal' },
  );
}

/**
 * Sampling variance of the median of n values whose variance is `variance`: π/2 · σ²/n (the
 * median's asymptotic efficiency is 2/π under normality). On ln(values), σ² is logSpread² and this
 * is the variance of ln(median). Also read backwards: the n that reaches a variance budget v is
 * π/2 · σ²/v.
 */
export function medianSamplingVariance(variance: number, n: number): number {
  return ((Math.PI / 2) * variance) / n;
}

/**
 * Mean sampling variance of ln(median) over nights of samples (medianSamplingVariance of each
 * night's logSpread); null when a night has no log spread (fewer than two values, or one ≤ 0).
 */
export function meanLogMedianVariance(nights: readonly (readonly number[])[]): number | null {
  let sum = 0;
  for (const s of nights) {
    const sigma = logSpread(s);
    if (sigma === null) return null;
    sum += medianSamplingVariance(sigma ** 2, s.length);
  }
  return sum / nights.length;
}

/** Asymptotic relative efficiency of Mann–Whitney to the t-test under normality (3/π). */
const MANN_WHITNEY_ARE = 3 / Math.PI;

export interface DetectableOptions {
  /** Two-sided significance level the test must reach; default 0.05. */
  alpha?: number;
  /** Probability of detecting the effect; default 0.8. */
  power?: number;
}

/**
 * The minimum detectable effect of a two-sample rank test of m against n values whose logs have
 * spread σ: the ratio r - 1 with (z₁₋α/₂ + z_power) · σ · √(1/m + 1/n) / √ARE = ln r (Noether
 * 1987's sample-size formula for the Wilcoxon–Mann–Whitney test, with its efficiency 3/π
 * relative to the t-test). Null when σ is null, or when no arrangement of m + n values can reach
 * alpha at all: the smallest two-sided exact p is 2 / C(m+n, m) (3 against 3: 0.1).
 */
export function minimumDetectableRatio(
  sigma: number | null,
  m: number,
  n: number,
  options: DetectableOptions = {},
): number | null {
  const { alpha, power } = resolve(options);
  if (sigma === null || m < 1 || n < 1) return null;
  if (smallestRankTestP(m, n) >= alpha) return null;
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  return Math.expm1((z * sigma * Math.sqrt(1 / m + 1 / n)) / Math.sqrt(MANN_WHITNEY_ARE));
}

/** 2 / C(m+n, m): the smallest two-sided p an exact rank test of m against n values can give. */
export function smallestRankTestP(m: number, n: number): number {
  let logBinomial = 0;
  for (let i = 1; i <= m; i++) logBinomial += Math.log((n + i) / i);
  return Math.min(1, 2 * Math.exp(-logBinomial));
}

export interface NightlyPowerInput {
  /** Within-run spread of ln(sample) (logSpread of one run's samples). */
  sigmaWithin: number;
  /** Night-to-night spread of the run level beyond within-run noise, on a log scale (0 if unknown). */
  sigmaBetween: number;
  /** Baseline window of the nightly gate (runs). */
  window: number;
  /** The step to detect, as a fraction (0.1 = +10 %). */
  step: number;
}

/**
 * The sd of ln(median of one night) with n samples: between-night drift plus the sampling
 * variance of a median (medianSamplingVariance).
 */
export function nightlyLogSd(sigmaWithin: number, sigmaBetween: number, n: number): number {
  return Math.sqrt(sigmaBetween ** 2 + medianSamplingVariance(sigmaWithin ** 2, n));
}

/**
 * Samples per night the gate's prediction test needs to flag `step` on its first night with the
 * given power at level alpha (normal approximation of the t prediction test: the step must be
 * (z₁₋α/₂ + z_power) · sd · √(1 + 1/K) with sd = nightlyLogSd). Null when drift alone makes it
 * unreachable: no number of samples per night reduces the night-to-night drift.
 */
export function requiredSamplesPerNight(
  input: NightlyPowerInput,
  options: DetectableOptions = {},
): number | null {
  const { alpha, power } = resolve(options);
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  const allowedSd = Math.log1p(input.step) / (z * Math.sqrt(1 + 1 / input.window));
  const withinBudget = allowedSd ** 2 - input.sigmaBetween ** 2;
  if (!(withinBudget > 0)) return null;
  return Math.max(1, Math.ceil(medianSamplingVariance(input.sigmaWithin ** 2, withinBudget)));
}

function resolve(options: DetectableOptions): { alpha: number; power: number } {
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be within (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`power must be within (0, 1), got ${power}`);
  return { alpha, power };
}
