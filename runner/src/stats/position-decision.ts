// A bisection step decided as the version-change decision is: good, bad or between read off two
// printed intervals (candidate / good and bad / candidate) and one threshold, half the ends' change;
// and the check that the ends differ at all, read off bad / good's interval the same way.
import { readVerdict, type ChangeInterval, type ChangeVerdict } from './change-decision.ts';
import { lookBoundary, type SequentialLookOptions } from './sequential-position.ts';
import { signedRankShift } from './signed-rank.ts';

/**
 * over / under − 1 per round (paired: sample k of each from round k), as the Hodges–Lehmann
 * estimate of the log ratio with the signed-rank test's interval at two-sided error `level`.
 */
function roundRatioInterval(
  over: readonly number[],
  under: readonly number[],
  level: number,
  name: string,
): ChangeInterval {
  const d = over.map((v, k) => {
    const u = under[k]!;
    if (!(v > 0 && u > 0 && Number.isFinite(v) && Number.isFinite(u)))
      throw new RangeError(`${name}: round ${k} has ${v} over ${u}; a ratio needs finite values > 0`);
    return Math.log(v / u);
  });
  const s = signedRankShift(d, 1 - level);
  return { change: Math.expm1(s.estimate), lower: Math.expm1(s.lower), upper: Math.expm1(s.upper) };
}

function checkLookNumber(opts: SequentialLookOptions): void {
  if (!Number.isInteger(opts.look) || opts.look < 1 || opts.look > opts.looks)
    throw new RangeError(`sequential test: look ${opts.look} is not in 1..${opts.looks}`);
}

export interface EndsDecision {
  /** differ / opposite read off bad / good's interval; continue or, on the last look, same otherwise. */
  verdict: 'differ' | 'opposite' | 'continue' | 'same';
  /** The interval's two-sided error level: alpha / looks, as positionDecision's. */
  level: number;
  confidence: number;
  /** bad / good − 1 with its interval, and readVerdict of it at the smallest threshold (any change). */
  badVsGood: ChangeInterval & { verdict: ChangeVerdict };
}

/**
 * One look of the check that bad differs from good on this host, read off bad / good's interval
 * at level alpha / looks (each side alpha / looks / 2 per look, as positionDecision): "differ"
 * when it lies beyond 0 the stated bad way, "opposite" beyond 0 the other way, and on the last
 * look "same" when it holds 0 — so "same" is never printed beside an interval that excludes 0.
 * There is no threshold here (any shown difference is worth bisecting): readVerdict at the
 * smallest positive τ, whose regression / improvement is "the interval excludes 0".
 */
export function endsDecision(
  good: readonly number[],
  bad: readonly number[],
  opts: SequentialLookOptions,
): EndsDecision {
  checkLookNumber(opts);
  if (good.length !== bad.length)
    throw new RangeError(
      `sequential test: rounds of unequal length (${good.length}, ${bad.length}); pair them first`,
    );
  const { alphaPerLook: level } = lookBoundary(opts.alpha ?? 0.02, opts.looks);
  const bg = roundRatioInterval(bad, good, level, 'bad / good');
  const v = readVerdict(bg, Number.MIN_VALUE, opts.direction === 'larger' ? 'lower' : 'higher');
  const verdict =
    v === 'regression'
      ? 'differ'
      : v === 'improvement'
        ? 'opposite'
        : opts.look === opts.looks
          ? 'same'
          : 'continue';
  return { verdict, level, confidence: 1 - level, badVsGood: { ...bg, verdict: v } };
}

export interface PositionDecision {
  /** good / bad / between read off the intervals; continue or, on the last look, unclear otherwise. */
  verdict: 'good' | 'bad' | 'between' | 'continue' | 'unclear';
  /** The intervals' two-sided error level: alpha / looks (each side alpha / looks / 2, as lookBoundary). */
  level: number;
  confidence: number;
  /** τ: half of bad / good's change in these rounds (a relative change, > 0). */
  threshold: number;
  /** candidate / good − 1 with its interval, and readVerdict of it at τ. */
  candidateVsGood: ChangeInterval & { verdict: ChangeVerdict };
  /** bad / candidate − 1 with its interval, and readVerdict of it at τ. */
  badVsCandidate: ChangeInterval & { verdict: ChangeVerdict };
  /** bad / good − 1 in the same rounds, at the same level. */
  badVsGood: ChangeInterval;
}

/**
 * One look of a bisection step, read off intervals. Each interval is the Hodges–Lehmann estimate
 * of the per-round log ratio with the signed-rank test's own interval (signedRankShift) at level
 * alpha / looks, so that, as with positionLook, each side of each look errs at alpha / looks / 2.
 * With τ half of bad / good's change and the metric's bad way ('larger' values: a latency):
 * - bad: candidate / good is a regression at τ (beyond good the bad way, by at least τ), or
 *   bad / candidate is same at τ (inside ±τ);
 * - good: bad / candidate is a regression at τ, or candidate / good is same at τ;
 * - between: both intervals lie beyond 0 the bad way (the candidate differs from both ends, in
 *   their order: a partial change, or a second one), or both of the above at once.
 * A candidate that is good is called bad only if an interval misses the truth: candidate / good's
 * excludes 0, or bad / candidate's lies inside ±τ while the truth is twice τ — at most alpha over
 * all looks (alpha / 2 for each way of being wrong).
 */
export function positionDecision(
  good: readonly number[],
  candidate: readonly number[],
  bad: readonly number[],
  opts: SequentialLookOptions,
): PositionDecision {
  checkLookNumber(opts);
  if (good.length !== candidate.length || good.length !== bad.length)
    throw new RangeError(
      `sequential test: rounds of unequal length (${good.length}, ${candidate.length}, ${bad.length}); pair them first`,
    );
  const { alphaPerLook: level } = lookBoundary(opts.alpha ?? 0.02, opts.looks);
  const interval = (over: readonly number[], under: readonly number[], name: string): ChangeInterval =>
    roundRatioInterval(over, under, level, name);
  const badVsGood = interval(bad, good, 'bad / good');
  const threshold = Math.max(Math.abs(badVsGood.change) / 2, Number.MIN_VALUE);
  const metricDirection = opts.direction === 'larger' ? 'lower' : 'higher';
  const cg = interval(candidate, good, 'candidate / good');
  const bc = interval(bad, candidate, 'bad / candidate');
  const cgVerdict = readVerdict(cg, threshold, metricDirection);
  const bcVerdict = readVerdict(bc, threshold, metricDirection);
  const isBad = cgVerdict === 'regression' || bcVerdict === 'same';
  const isGood = bcVerdict === 'regression' || cgVerdict === 'same';
  // Beyond good and short of bad, both significantly: a partial change (or a second one).
  const beyond = (c: ChangeInterval): boolean => (metricDirection === 'lower' ? c.lower > 0 : c.upper < 0);
  const verdict =
    (beyond(cg) && beyond(bc)) || (isBad && isGood)
      ? 'between'
      : isBad
        ? 'bad'
        : isGood
          ? 'good'
          : opts.look === opts.looks
            ? 'unclear'
            : 'continue';
  return {
    verdict,
    level,
    confidence: 1 - level,
    threshold,
    candidateVsGood: { ...cg, verdict: cgVerdict },
    badVsCandidate: { ...bc, verdict: bcVerdict },
    badVsGood,
  };
}
