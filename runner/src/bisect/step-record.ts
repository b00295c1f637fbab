// A bisection step as the report keeps it, from the decision that judged it: the verdict beside
// the intervals and the threshold it was read off, at the level it was decided at — so anyone can
// read "good", "bad" or "same" off the printed numbers. Pure.
import type { BisectCandidate, BisectStep, RatioInterval } from '@runtime-bench/schemas';
import type { ChangeInterval, EndsDecision, PositionDecision } from '../stats/index.ts';
import { outsideEndsSpan } from './consistency.ts';

/** A change b/a − 1 with its interval as the report's ratio interval. */
export function ratioInterval(c: ChangeInterval, confidence: number, n: number): RatioInterval {
  return { ratio: 1 + c.change, lower: 1 + c.lower, upper: 1 + c.upper, confidence, n };
}

/** What the walk knows of a step besides its decision. */
export interface StepContext {
  candidate: BisectCandidate;
  attempt: number;
  rounds: number;
  looks: number;
  buildSeconds: number;
  measureSeconds: number;
  runIds: string[];
}

/** The check of the ends: bad / good's interval, the verdict read off it (threshold 0: any change). */
export function endsStep(
  ctx: StepContext,
  decision: EndsDecision,
  verdict: 'differ' | 'same' | 'opposite',
): BisectStep {
  const bg = ratioInterval(decision.badVsGood, decision.confidence, ctx.rounds);
  return {
    kind: 'ends',
    ...ctx,
    verdict,
    alphaPerLook: decision.level,
    threshold: 0,
    effect: bg,
    badVsGood: bg,
    badVsCandidate: null,
    position: 1,
    outsideEnds: false,
  };
}

/** A candidate's step: its two intervals, bad / good's, the threshold, and the consistency check. */
export function candidateStep(
  ctx: StepContext,
  decision: PositionDecision,
  verdict: 'good' | 'bad' | 'between' | 'unclear',
): BisectStep {
  const at = (c: ChangeInterval) => ratioInterval(c, decision.confidence, ctx.rounds);
  const effect = at(decision.candidateVsGood);
  const badVsGood = at(decision.badVsGood);
  const badVsCandidate = at(decision.badVsCandidate);
  const logBad = Math.log1p(decision.badVsGood.change);
  return {
    kind: 'candidate',
    ...ctx,
    verdict,
    alphaPerLook: decision.level,
    threshold: decision.threshold,
    effect,
    badVsGood,
    badVsCandidate,
    position: logBad === 0 ? null : Math.log1p(decision.candidateVsGood.change) / logBad,
    outsideEnds: outsideEndsSpan(effect, badVsGood, badVsCandidate),
  };
}
