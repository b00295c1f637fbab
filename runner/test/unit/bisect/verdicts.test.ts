// Issue 38: a bisection's verdicts agree with their printed intervals. Whatever the samples, every
// step's "good", "bad", "between", "unclear", "differ", "same" or "opposite" can be read off the
// intervals and the threshold the report prints beside it — checked here by reading them off
// again, by the rule the report states, from the printed numbers only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BisectStep, RatioInterval } from '@runtime-bench/schemas';
import { bisect } from '../../../src/bisect/bisect.ts';
import { candidateStep, endsStep } from '../../../src/bisect/step-record.ts';
import { createRng, endsDecision, positionDecision } from '../../../src/stats/index.ts';
import { gaussian, makeHistory, oracleDeps, oracleOptions } from '../../support/bisect-oracle.ts';

/** A printed ratio interval as a change: ratio − 1 and its ends. */
const change = (r: RatioInterval) => ({ change: r.ratio - 1, lower: r.lower - 1, upper: r.upper - 1 });

/**
 * The verdicts a step's printed numbers allow, for a metric whose bad way is `badWay` (the
 * report's rule: bad when candidate / good is a change the bad way of at least τ with its interval
 * beyond 0, or bad / candidate lies inside ±τ; good the other way round; between when both
 * intervals lie beyond 0 the bad way or both readings hold; ends: differ beyond 0 the bad way,
 * opposite beyond 0 the other way, same (or continue) when the interval holds 0).
 */
function allowed(step: BisectStep, badWay: 'larger' | 'smaller'): string[] {
  const s = badWay === 'larger' ? 1 : -1;
  // Oriented so that the bad way is positive.
  const orient = (r: RatioInterval) => {
    const c = change(r);
    return s > 0 ? c : { change: -c.change, lower: -c.upper, upper: -c.lower };
  };
  if (step.kind === 'ends') {
    const bg = orient(step.effect!);
    if (bg.lower > 0) return ['differ'];
    if (bg.upper < 0) return ['opposite'];
    return ['same'];
  }
  const tau = step.threshold!;
  const cg = orient(step.effect!);
  const bc = orient(step.badVsCandidate!);
  const regression = (x: typeof cg) => x.lower > 0 && x.change >= tau;
  const same = (x: typeof cg) => x.lower > -tau && x.upper < tau;
  const isBad = regression(cg) || same(bc);
  const isGood = regression(bc) || same(cg);
  if ((cg.lower > 0 && bc.lower > 0) || (isBad && isGood)) return ['between'];
  if (isBad) return ['bad'];
  if (isGood) return ['good'];
  return ['unclear'];
}

const positive = fc.double({ min: 1, max: 1000, noNaN: true, noDefaultInfinity: true });
const series = (n: number) => fc.array(positive, { minLength: n, maxLength: n });
const rounds3 = fc.integer({ min: 2, max: 40 }).chain((n) => fc.tuple(series(n), series(n), series(n)));
const lookOpts = fc.record({
  direction: fc.constantFrom('larger' as const, 'smaller' as const),
  alpha: fc.constantFrom(0.01, 0.02, 0.05),
  looks: fc.integer({ min: 1, max: 15 }),
});
const context = (rounds: number) => ({
  candidate: { kind: 'release' as const, label: 'c', ref: 'c', commit: null },
  attempt: 1,
  rounds,
  looks: 1,
  buildSeconds: 0,
  measureSeconds: 0,
  runIds: [],
});

describe('a step as the report prints it', () => {
  it('a candidate’s verdict is the one its printed intervals and threshold allow', () => {
    fc.assert(
      fc.property(rounds3, lookOpts, ([g, c, b], o) => {
        const d = positionDecision(g, c, b, { ...o, look: o.looks });
        const verdict = d.verdict === 'continue' ? 'unclear' : d.verdict;
        const step = candidateStep(context(g.length), d, verdict);
        expect(allowed(step, o.direction)).toContain(step.verdict);
        // Printed at the level it was decided at.
        expect(step.effect!.confidence).toBeCloseTo(1 - o.alpha / o.looks, 12);
      }),
      { numRuns: 300 },
    );
  });

  it('the ends’ verdict is the one bad / good’s printed interval allows: "same" never beside an interval that excludes 0', () => {
    fc.assert(
      fc.property(rounds3, lookOpts, ([g, , b], o) => {
        const d = endsDecision(g, b, { ...o, look: o.looks });
        expect(d.verdict).not.toBe('continue'); // the last look decides
        const step = endsStep(context(g.length), d, d.verdict as 'differ' | 'same' | 'opposite');
        expect(allowed(step, o.direction)).toEqual([step.verdict]);
        expect(step.threshold).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('before the last look an undecided step continues, and only then', () => {
    fc.assert(
      fc.property(rounds3, lookOpts, ([g, c, b], o) => {
        fc.pre(o.looks > 1);
        const d = positionDecision(g, c, b, { ...o, look: 1 });
        const last = positionDecision(g, c, b, { ...o, look: o.looks });
        // The same intervals on every look (the level is alpha / looks): only "unclear" becomes "continue".
        expect(d.verdict === 'continue' ? 'unclear' : d.verdict).toBe(last.verdict);
      }),
      { numRuns: 100 },
    );
  });
});

describe('every step of a whole bisection', () => {
  it('agrees with its printed intervals, whatever the step, the noise and the direction', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          factor: fc.constantFrom(0.8, 0.95, 1, 1.05, 1.1, 1.3),
          culprit: fc.integer({ min: 1, max: 23 }),
          sigma: fc.constantFrom(0.02, 0.08, 0.2),
          direction: fc.constantFrom('slower' as const, 'faster' as const),
        }),
        async ({ seed, factor, culprit, sigma, direction }) => {
          const h = makeHistory({ commits: 24, every: 8, culprit: (c) => c[culprit]!.hash, factor });
          const r = await bisect(
            oracleOptions(h, { alpha: 0.02, roundsPerLook: 8, maxLooks: 3, direction }),
            oracleDeps(h, createRng(seed), (rng) => Math.exp(sigma * gaussian(rng))),
          );
          // StartContainer is a latency: "slower" is the larger values.
          const badWay = direction === 'slower' ? 'larger' : 'smaller';
          for (const step of r.steps) expect(allowed(step, badWay)).toContain(step.verdict);
        },
      ),
      { numRuns: 40 },
    );
  });
});
