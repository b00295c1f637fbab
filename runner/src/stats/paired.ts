// Two targets measured side by side in one run: paired by round when the rounds match (the k-th
// sample of each came from the same round), the unpaired rank test otherwise — and which was used.
import { assertFiniteSamples, median, quantileOfSorted } from './descriptive.ts';
import { bootstrapRatioOfMediansCI, type BootstrapOptions, type ConfidenceInterval } from './bootstrap.ts';
import { hodgesLehmannInterval } from './effect-size.ts';
import { mannWhitneyU } from './mann-whitney.ts';
import { createRng } from './random.ts';
import { signedRankShift, wilcoxonSignedRank, type SignedRankOptions } from './signed-rank.ts';

export type Design = 'paired' | 'unpaired';

export interface SideBySideOptions {
  /**
   * The caller's word that sample k of a and sample k of b come from the same round (interleaved
   * in one run, no failed repetition on either side). Without it, or with unequal lengths, the
   * analysis is unpaired.
   */
  roundsMatched?: boolean;
  /** Confidence of the intervals; default 0.95. */
  confidence?: number;
  /** The signed-rank test's options (paired design); default zero_method 'wilcox', no continuity correction, method 'auto'. */
  signedRank?: Omit<SignedRankOptions, 'alternative'>;
}

/** The change of b against a as a ratio (b / a) with its interval. */
export interface RatioInterval {
  ratio: number;
  lower: number;
  upper: number;
  confidence: number;
}

export interface SideBySideTest {
  design: Design;
  /** Why this design: the rounds used, or why the rounds could not be paired. */
  why: string;
  n: { a: number; b: number; rounds: number | null };
  test: {
    name: 'Wilcoxon signed-rank of ln(b/a) per round' | 'Mann-Whitney U of b against a';
    /** Paired: scipy's two-sided statistic min(W+, W−); unpaired: U of b. */
    statistic: number;
    /** Two-sided. */
    pValue: number;
    method: 'exact' | 'permutation' | 'asymptotic';
    /** Paired only: zeros ln(b/a) = 0 and their treatment, and the continuity correction. */
    zeros: number | null;
    zeroMethod: SignedRankOptions['zeroMethod'] | null;
    correction: boolean;
  };
  /**
   * The Hodges–Lehmann estimate of the shift of ln b against ln a, exponentiated: paired, the
   * median of the Walsh averages of ln(b/a) per round; unpaired, the median of all ln bⱼ − ln aᵢ.
   * Its interval is the inversion of the same test (shiftInterval).
   */
  shift: RatioInterval;
}

export interface SideBySide extends SideBySideTest {
  /** median(b) / median(a) with a percentile-bootstrap interval: rounds resampled when paired, each sample on its own otherwise. */
  ratioOfMedians: RatioInterval & { resampled: 'rounds' | 'samples' };
}

/**
 * The design a pair of samples allows: paired when the caller vouches for matched rounds and the
 * lengths agree. Checks the values (finite, > 0: the analysis is on the log scale).
 */
export function sideBySideDesign(
  a: readonly number[],
  b: readonly number[],
  roundsMatched: boolean,
): { design: Design; why: string } {
  positive(a, 'a');
  positive(b, 'b');
  if (!roundsMatched) return { design: 'unpaired', why: 'rounds not known to match: unpaired' };
  if (a.length !== b.length)
    return {
      design: 'unpaired',
      why: `rounds do not match (a has ${a.length} samples, b ${b.length}): unpaired`,
    };
  return { design: 'paired', why: `${a.length} rounds paired` };
}

/** The design and the rank test of b against a, without the shift estimate (cheap: O(n log n)). */
export type SideBySideRankTest = Omit<SideBySideTest, 'shift'>;

/**
 * The design and the two-sided rank test of b against a. Paired: Wilcoxon's signed-rank test of
 * dₖ = ln bₖ − ln aₖ (a round's shared load cancels in the ratio; symmetric about 0 when a and b
 * are the same code measured in random order within each round). Unpaired: Mann–Whitney U
 * (exact while feasible, else normal without continuity correction, as the interval).
 */
export function sideBySideRankTest(
  a: readonly number[],
  b: readonly number[],
  options: Omit<SideBySideOptions, 'confidence'> = {},
): SideBySideRankTest {
  const { design, why } = sideBySideDesign(a, b, options.roundsMatched ?? false);
  const n = { a: a.length, b: b.length, rounds: design === 'paired' ? a.length : null };
  if (design === 'paired') {
    const zeroMethod = options.signedRank?.zeroMethod ?? 'wilcox';
    const correction = options.signedRank?.correction ?? false;
    const r = wilcoxonSignedRank(logRatios(a, b), { ...options.signedRank, zeroMethod, correction });
    return {
      design,
      why,
      n,
      test: {
        name: 'Wilcoxon signed-rank of ln(b/a) per round',
        statistic: r.statistic,
        pValue: r.pValue,
        method: r.method,
        zeros: r.zeros,
        zeroMethod,
        correction,
      },
    };
  }
  // No continuity correction: the test then rejects exactly the shifts outside Moses' interval.
  const r = mannWhitneyU(b, a, { continuity: false });
  return {
    design,
    why,
    n,
    test: {
      name: 'Mann-Whitney U of b against a',
      statistic: r.u,
      pValue: r.pValue,
      method: r.method,
      zeros: null,
      zeroMethod: null,
      correction: false,
    },
  };
}

/**
 * The rank test (sideBySideRankTest) and the shift estimate that goes with it: paired, the
 * one-sample Hodges–Lehmann estimate of ln(b/a) with Tukey's interval; unpaired, the two-sample
 * Hodges–Lehmann estimate of the log shift with Moses' interval — each the inversion of its test.
 */
export function sideBySideTest(
  a: readonly number[],
  b: readonly number[],
  options: SideBySideOptions = {},
): SideBySideTest {
  const tested = sideBySideRankTest(a, b, options);
  return { ...tested, shift: shiftInterval(a, b, tested.design, options.confidence ?? 0.95) };
}

/**
 * The shift of b against a (ratio) with the interval of the design's rank test at `confidence`:
 * paired, signedRankShift of the per-round log ratios; unpaired, hodgesLehmannInterval of the
 * logs. Unbounded ends (too few rounds for the confidence) are 0 and Infinity.
 */
export function shiftInterval(
  a: readonly number[],
  b: readonly number[],
  design: Design,
  confidence: number,
): RatioInterval {
  const s =
    design === 'paired'
      ? signedRankShift(logRatios(a, b), confidence)
      : hodgesLehmannInterval(b.map(Math.log), a.map(Math.log), confidence);
  return { ratio: Math.exp(s.estimate), lower: Math.exp(s.lower), upper: Math.exp(s.upper), confidence };
}

/**
 * Percentile-bootstrap interval of median(b) / median(a) from round-matched samples: each
 * resample draws rounds with replacement and keeps a round's two samples together, so the
 * covariance of a round's samples (the load both saw) is kept (Efron & Tibshirani 1993, §13.3).
 */
export function pairedRatioOfMediansCI(
  a: readonly number[],
  b: readonly number[],
  options: BootstrapOptions = {},
): ConfidenceInterval {
  positive(a, 'a');
  positive(b, 'b');
  if (a.length !== b.length)
    throw new RangeError(`paired ratio of medians: a has ${a.length} rounds, b ${b.length}; pair them first`);
  const confidence = options.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  const resamples = options.resamples ?? 10_000;
  if (!Number.isInteger(resamples) || resamples < 100)
    throw new RangeError(`bootstrap resamples must be an integer ≥ 100, got ${resamples}`);
  const rng = createRng(options.seed ?? 1);
  const n = a.length;
  const sa = new Float64Array(n);
  const sb = new Float64Array(n);
  const stats = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) {
      const k = rng.int(n);
      sa[i] = a[k]!;
      sb[i] = b[k]!;
    }
    sa.sort();
    sb.sort();
    stats[r] = quantileOfSorted(sb, 0.5) / quantileOfSorted(sa, 0.5);
  }
  stats.sort();
  const alpha = 1 - confidence;
  return {
    estimate: median(b) / median(a),
    lower: quantileOfSorted(stats, alpha / 2),
    upper: quantileOfSorted(stats, 1 - alpha / 2),
    confidence,
  };
}

/**
 * The whole side-by-side analysis of b against a: sideBySideTest, and the ratio of medians with
 * its bootstrap interval (rounds resampled when paired, the samples independently otherwise).
 */
export function compareSideBySide(
  a: readonly number[],
  b: readonly number[],
  options: SideBySideOptions & { bootstrap?: Omit<BootstrapOptions, 'confidence'> } = {},
): SideBySide {
  const tested = sideBySideTest(a, b, options);
  const bootstrap = { ...options.bootstrap, confidence: options.confidence ?? 0.95 };
  const ci =
    tested.design === 'paired'
      ? pairedRatioOfMediansCI(a, b, bootstrap)
      : bootstrapRatioOfMediansCI(a, b, bootstrap);
  return {
    ...tested,
    ratioOfMedians: {
      ratio: ci.estimate,
      lower: ci.lower,
      upper: ci.upper,
      confidence: ci.confidence,
      resampled: tested.design === 'paired' ? 'rounds' : 'samples',
    },
  };
}

/** ln(bₖ / aₖ) per round. */
function logRatios(a: readonly number[], b: readonly number[]): number[] {
  return b.map((v, k) => Math.log(v / a[k]!));
}

function positive(x: readonly number[], name: string): void {
  assertFiniteSamples(x, name);
  const bad = x.findIndex((v) => !(v > 0));
  if (bad >= 0)
    throw new RangeError(
      `${name}: value ${bad} is ${x[bad]}; a ratio of latencies needs values > 0 (drop failed or zero samples first)`,
    );
}
