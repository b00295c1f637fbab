// The sequential decision of one bisection step: is a candidate the known-good or the known-bad
// version, measured interleaved with both in rounds (good, candidate, bad; good, …)?
import { assertFiniteSamples, mean, variance } from './descriptive.ts';
import { studentTQuantile } from './distributions.ts';
import { wilcoxonSignedRank } from './signed-rank.ts';

/** Which way the bad version's values differ from the good one's. */
export type BadDirection = 'larger' | 'smaller';

export interface SequentialLookOptions {
  /** Which way bad differs from good. */
  direction: BadDirection;
  /** Error rate of one complete sequential test (all its looks), in (0, 1); default 0.02. */
  alpha?: number;
  /** This look's number, 1-based. */
  look: number;
  /** The most looks the test may take; the last one decides or says unclear. */
  looks: number;
  /** Confidence of the intervals reported, default 0.95. */
  confidence?: number;
}

/** A one-sample t statistic on paired log differences, with its interval. */
export interface PairedLogT {
  /** Rounds used. */
  n: number;
  /** Mean of the per-round log differences. */
  meanLog: number;
  /** Its standard error (s/√n). */
  standardError: number;
  t: number;
  df: number;
  /** exp(meanLog): the ratio of geometric means. */
  ratio: number;
  /** Interval of the ratio at the requested confidence (t interval of meanLog, exponentiated). */
  ratioLower: number;
  ratioUpper: number;
}

/** Wilcoxon's signed-rank statistic of paired differences, normal approximation. */
export interface SignedRank {
  /** Non-zero differences ranked (zeros are dropped: Wilcoxon's method). */
  n: number;
  /** Sum of the ranks of the positive differences. */
  wPlus: number;
  /** (W+ − n(n+1)/4) / sd, sd with the tie correction; 0 when every difference is 0. */
  z: number;
  /** One-sided p that the differences lie above 0, and below 0. */
  pGreater: number;
  pLess: number;
}

/** The per-look boundary: Bonferroni's share of alpha for each of the `looks` looks and both sides. */
export interface LookBoundary {
  /** alpha / looks. */
  alphaPerLook: number;
  /** The one-sided p at or below which a look decides: alphaPerLook / 2. */
  pCritical: number;
}

export interface PositionLook extends LookBoundary {
  /** good: candidate significantly below bad; bad: significantly above good; between: both; continue: measure more; unclear: last look, neither. */
  verdict: 'good' | 'bad' | 'between' | 'continue' | 'unclear';
  /** Signed ranks of ln C − ln G: a candidate like good is symmetric about 0 here. */
  vsGood: SignedRank;
  /** Signed ranks of ln B − ln C: a candidate like bad is symmetric about 0 here. */
  vsBad: SignedRank;
  /** Candidate against good: ratio C/G with its interval. */
  candidateVsGood: PairedLogT;
  /** Bad against good, measured in the same rounds: ratio B/G. */
  badVsGood: PairedLogT;
  /** Estimated position of the candidate: 0 = like good, 1 = like bad (null when B/G is 1). */
  position: number | null;
}

/**
 * Wilcoxon's signed-rank test (Wilcoxon 1945) of differences d against 0, one-sided both ways:
 * zeros dropped, mid-ranks, normal approximation with the tie correction, no continuity
 * correction — wilcoxonSignedRank(d, { method: 'asymptotic', correction: false }) (scipy.stats.
 * wilcoxon(d, method='approx', correction=False)). It needs only that d be symmetric about 0
 * under the null.
 */
export function signedRank(d: readonly number[]): SignedRank {
  const greater = wilcoxonSignedRank(d, { method: 'asymptotic', correction: false, alternative: 'greater' });
  const less = wilcoxonSignedRank(d, { method: 'asymptotic', correction: false, alternative: 'less' });
  return {
    n: greater.ranked,
    wPlus: greater.wPlus,
    z: greater.z!,
    pGreater: greater.pValue,
    pLess: less.pValue,
  };
}

/**
 * The boundary of one look of a group-sequential test with at most `looks` looks and two
 * one-sided tests per look: each tests at alpha/looks/2 (Bonferroni), so the probability that any
 * look wrongly crosses is at most alpha/2 per side whatever the correlation of the looks —
 * conservative against Pocock's (1977) constant boundary (Jennison & Turnbull 2000, §2.1, §3).
 */
export function lookBoundary(alpha: number, looks: number): LookBoundary {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`sequential test: alpha ${alpha} is not in (0, 1)`);
  if (!Number.isInteger(looks) || looks < 1)
    throw new RangeError(`sequential test: looks ${looks} is not a positive integer`);
  const alphaPerLook = alpha / looks;
  return { alphaPerLook, pCritical: alphaPerLook / 2 };
}

/**
 * Student's one-sample t on the per-round log differences d, with the t interval of their mean
 * (scipy.stats.ttest_1samp(d, 0) and its confidence_interval()). Needs two rounds and some spread;
 * constant differences give t = ±∞ (or 0 when all are 0) and a zero-width interval.
 */
export function pairedLogT(d: readonly number[], confidence = 0.95): PairedLogT {
  if (d.length < 2) throw new RangeError('paired log t: needs at least two rounds');
  const n = d.length;
  const m = mean(d);
  const se = Math.sqrt(variance(d)! / n);
  const df = n - 1;
  const t = se === 0 ? (m === 0 ? 0 : m > 0 ? Infinity : -Infinity) : m / se;
  const q = studentTQuantile(1 - (1 - confidence) / 2, df);
  return {
    n,
    meanLog: m,
    standardError: se,
    t,
    df,
    ratio: Math.exp(m),
    ratioLower: Math.exp(m - q * se),
    ratioUpper: Math.exp(m + q * se),
  };
}

function checkLook(opts: SequentialLookOptions): void {
  if (!Number.isInteger(opts.look) || opts.look < 1 || opts.look > opts.looks)
    throw new RangeError(`sequential test: look ${opts.look} is not in 1..${opts.looks}`);
}

function logRounds(name: string, x: readonly number[]): number[] {
  assertFiniteSamples(x, name);
  return x.map((v, i) => {
    if (!(v > 0)) throw new RangeError(`${name}[${i}] = ${v}: log-scale test needs positive values`);
    return Math.log(v);
  });
}

function sameLength(lengths: number[]): void {
  if (lengths.some((l) => l !== lengths[0]))
    throw new RangeError(
      `sequential test: rounds of unequal length (${lengths.join(', ')}); pair them first`,
    );
}

/**
 * One look of the bisection step's sequential test. Good, candidate and bad are measured back to
 * back in each round (host drift cancels within the round). If the candidate is the good version,
 * ln C − ln G is symmetric about 0 (the two are exchangeable within a round); if it is the bad
 * version, ln B − ln C is. So "bad" is decided when the signed-rank test finds C above G (the
 * stated direction), "good" when it finds C below B — each one-sided at lookBoundary's p, so a
 * candidate that is one end is called the other with probability at most alpha/2 over all looks,
 * with no assumption on the noise's shape (the latencies' long right tail included). Both at once
 * is "between": the candidate differs from both ends (a partial change, or a second one).
 * Values are per-round samples (equal lengths, aligned by round), all positive.
 */
export function positionLook(
  good: readonly number[],
  candidate: readonly number[],
  bad: readonly number[],
  opts: SequentialLookOptions,
): PositionLook {
  checkLook(opts);
  sameLength([good.length, candidate.length, bad.length]);
  const g = logRounds('good', good);
  const c = logRounds('candidate', candidate);
  const b = logRounds('bad', bad);
  const confidence = opts.confidence ?? 0.95;
  const cg = c.map((ci, i) => ci - g[i]!);
  const bc = b.map((bi, i) => bi - c[i]!);
  const vsGood = signedRank(cg);
  const vsBad = signedRank(bc);
  const candidateVsGood = pairedLogT(cg, confidence);
  const badVsGood = pairedLogT(
    b.map((bi, i) => bi - g[i]!),
    confidence,
  );
  const boundary = lookBoundary(opts.alpha ?? 0.02, opts.looks);
  const larger = opts.direction === 'larger';
  const aboveGood = (larger ? vsGood.pGreater : vsGood.pLess) <= boundary.pCritical;
  const belowBad = (larger ? vsBad.pGreater : vsBad.pLess) <= boundary.pCritical;
  const verdict =
    aboveGood && belowBad
      ? 'between'
      : aboveGood
        ? 'bad'
        : belowBad
          ? 'good'
          : opts.look === opts.looks
            ? 'unclear'
            : 'continue';
  const position = badVsGood.meanLog === 0 ? null : candidateVsGood.meanLog / badVsGood.meanLog;
  return { ...boundary, verdict, vsGood, vsBad, candidateVsGood, badVsGood, position };
}
