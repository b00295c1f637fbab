import type { Direction } from '@runtime-bench/schemas';
import {
  bootstrapRatioOfMediansCI,
  cliffsDelta,
  fisherExact,
  mannWhitneyU,
  median,
  welchTTest,
  type BootstrapOptions,
} from '../stats/index.ts';

/** better / worse only when significant; direction-aware (a smaller latency is better). */
export type Verdict = 'better' | 'worse' | 'no significant difference' | 'insufficient data';

/** The statistics of one metric measured on two sides (before the multiple-testing correction). */
export interface SampleComparison {
  baseline: { n: number; median: number | null };
  candidate: { n: number; median: number | null };
  /** median(candidate) / median(baseline); null when undefined (baseline median ≤ 0 or no data). */
  ratio: number | null;
  /** Percentile-bootstrap interval of the ratio; null when the ratio is undefined. */
  ratioLower: number | null;
  ratioUpper: number | null;
  /** Two-sided Mann–Whitney p-value (the decision test); null with fewer than two values a side. */
  pValue: number | null;
  test: string | null;
  /** Cliff's delta of candidate vs baseline: > 0 means the candidate tends to be larger. */
  cliffsDelta: number | null;
  /** Welch's t-test on the raw values, reported for reference (means are outlier-sensitive). */
  welch: { pValue: number; difference: number; lower: number; upper: number } | null;
}

/**
 * Compares the raw samples of one metric. The decision test is Mann–Whitney U (rank-based: fit
 * for skewed latencies with outliers); the effect is the ratio of medians with a seeded
 * percentile-bootstrap interval and Cliff's delta. Needs at least two values on each side;
 * otherwise every statistic is null and the caller reports "insufficient data".
 */
export function compareSamples(
  baseline: readonly number[],
  candidate: readonly number[],
  bootstrap: BootstrapOptions,
): SampleComparison {
  const base = { n: baseline.length, median: baseline.length ? median(baseline) : null };
  const cand = { n: candidate.length, median: candidate.length ? median(candidate) : null };
  const ratio =
    base.median !== null && cand.median !== null && base.median > 0 ? cand.median / base.median : null;
  const out: SampleComparison = {
    baseline: base,
    candidate: cand,
    ratio,
    ratioLower: null,
    ratioUpper: null,
    pValue: null,
    test: null,
    cliffsDelta: null,
    welch: null,
  };
  if (baseline.length < 2 || candidate.length < 2) return out;
  const mw = mannWhitneyU(candidate, baseline);
  out.pValue = mw.pValue;
  out.test = `Mann-Whitney U (${mw.method})`;
  out.cliffsDelta = cliffsDelta(candidate, baseline);
  const w = welchTTest(candidate, baseline);
  out.welch = { pValue: w.pValue, difference: w.difference, lower: w.lower, upper: w.upper };
  if (ratio !== null && baseline.every((v) => v > 0) && candidate.every((v) => v >= 0)) {
    const ci = bootstrapRatioOfMediansCI(baseline, candidate, bootstrap);
    out.ratioLower = ci.lower;
    out.ratioUpper = ci.upper;
  }
  return out;
}

/**
 * The verdict of a comparison after correction: significant (adjusted p < alpha) and the
 * candidate tends the bad way for the metric's direction → worse; the good way → better.
 * The sign comes from Cliff's delta, the effect the Mann–Whitney test measures.
 */
export function verdictOf(
  comparison: Pick<SampleComparison, 'pValue' | 'cliffsDelta'>,
  adjustedP: number | null,
  alpha: number,
  direction: Direction,
): Verdict {
  if (comparison.pValue === null || adjustedP === null || comparison.cliffsDelta === null)
    return 'insufficient data';
  if (!(adjustedP < alpha) || comparison.cliffsDelta === 0) return 'no significant difference';
  const larger = comparison.cliffsDelta > 0;
  return larger === (direction === 'higher') ? 'better' : 'worse';
}

/** Failed and total measured attempts, and their ratio. */
export interface ErrorCounts {
  failed: number;
  attempts: number;
  rate: number | null;
}

/** Error counts with the rate; the rate is null without attempts. */
export function errorCounts(failed: number, attempts: number): ErrorCounts {
  if (failed > attempts)
    throw new RangeError(`${failed} failed attempts out of ${attempts}: more failures than attempts`);
  return { failed, attempts, rate: attempts === 0 ? null : failed / attempts };
}

/**
 * Two-sided Fisher exact test of error counts (candidate vs baseline): error rates are rare
 * events, where the normal approximation of a two-proportion z-test fails. Null when either side
 * has no attempts.
 */
export function errorRatePValue(baseline: ErrorCounts, candidate: ErrorCounts): number | null {
  if (baseline.attempts === 0 || candidate.attempts === 0) return null;
  return fisherExact(
    [
      [candidate.failed, candidate.attempts - candidate.failed],
      [baseline.failed, baseline.attempts - baseline.failed],
    ],
    'two-sided',
  );
}
