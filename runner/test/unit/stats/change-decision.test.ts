import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  alphaSpending,
  decideLook,
  holmAdjust,
  readVerdict,
  sideBySideTest,
  type ChangeVerdict,
  type MetricPair,
  type SpendingRule,
} from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface SpendingCase {
  alpha: number;
  looks: number;
  look: number;
  rule: SpendingRule;
  cumulative: number;
  thisLook: number;
}
const { spending } = loadFixture<{ spending: SpendingCase[] }>('paired.json');

describe('alphaSpending: Lan–DeMets spending functions (scipy.stats.norm)', () => {
  test.each(spending)('$rule α $alpha look $look of $looks', (c) => {
    const r = alphaSpending(c.alpha, c.look, c.looks, c.rule);
    expectClose(r.cumulative, c.cumulative, 1e-10, 1e-15);
    expectClose(r.thisLook, c.thisLook, 1e-9, 1e-15);
  });
  test('the looks spend alpha exactly, never more', () => {
    for (const rule of ['pocock', 'obrien-fleming', 'bonferroni'] as const)
      for (const looks of [1, 2, 3, 7]) {
        let total = 0;
        for (let look = 1; look <= looks; look++) total += alphaSpending(0.03, look, looks, rule).thisLook;
        expectClose(total, 0.03, 1e-12);
      }
  });
  test('bad arguments are refused by name', () => {
    expect(() => alphaSpending(0, 1, 3, 'pocock')).toThrow(/alpha 0/);
    expect(() => alphaSpending(0.02, 4, 3, 'pocock')).toThrow(/look 4 is not in 1..3/);
    expect(() => alphaSpending(0.02, 1, 0, 'pocock')).toThrow(/looks 0/);
    expect(() => alphaSpending(0.02, 1, 3, 'haybittle' as SpendingRule)).toThrow(/spending rule "haybittle"/);
  });
});

describe('readVerdict: read off the interval and the threshold', () => {
  const cases: [string, number, number, number, 'lower' | 'higher', ChangeVerdict][] = [
    // change, lower, upper, direction → verdict (threshold 5 %)
    ['slower, significant, ≥ τ', 0.08, 0.02, 0.14, 'lower', 'regression'],
    ['slower, exactly τ', 0.05, 0.001, 0.09, 'lower', 'regression'],
    ['slower, significant, < τ, interval past τ', 0.04, 0.01, 0.07, 'lower', 'unclear'],
    ['slower, significant, inside ±τ', 0.02, 0.01, 0.03, 'lower', 'same'],
    ['≥ τ but not significant', 0.08, -0.01, 0.17, 'lower', 'unclear'],
    ['faster latency', -0.1, -0.15, -0.06, 'lower', 'improvement'],
    ['higher throughput', 0.1, 0.06, 0.15, 'higher', 'improvement'],
    ['lower throughput', -0.1, -0.15, -0.06, 'higher', 'regression'],
    ['inside ±τ', 0.0, -0.049, 0.049, 'lower', 'same'],
    ['touches τ: not inside', 0.0, -0.02, 0.05, 'lower', 'unclear'],
    ['unbounded', 0.0, -Infinity, Infinity, 'higher', 'unclear'],
  ];
  test.each(cases)('%s', (_, change, lower, upper, direction, verdict) => {
    expect(readVerdict({ change, lower, upper }, 0.05, direction)).toBe(verdict);
  });
  test('a threshold must be finite and > 0', () => {
    for (const t of [0, -0.05, Infinity, Number.NaN])
      expect(() => readVerdict({ change: 0, lower: -1, upper: 1 }, t, 'lower')).toThrow(/threshold/);
  });
});

/** Positive samples from a fast-check integer: distinct enough, never 0. */
const sample = fc.integer({ min: 1, max: 100_000 }).map((v) => 10 + v / 997);

const metricPair = fc
  .record({
    n: fc.integer({ min: 1, max: 70 }),
    step: fc.constantFrom(0.8, 0.97, 1, 1.03, 1.1, 1.3),
    threshold: fc.constantFrom(0.01, 0.03, 0.05, 0.2),
    direction: fc.constantFrom('lower' as const, 'higher' as const),
    matched: fc.boolean(),
    seed: fc.array(sample, { minLength: 140, maxLength: 140 }),
    extraB: fc.integer({ min: 0, max: 3 }),
  })
  .map(({ n, step, threshold, direction, matched, seed, extraB }): Omit<MetricPair, 'metric'> => ({
    direction,
    threshold,
    roundsMatched: matched,
    a: seed.slice(0, n),
    // b: a's round level times the step times ±8 % of noise (another sample); sometimes a few more samples.
    b: seed.slice(70, 70 + n + extraB).map((v, k) => seed[k % n]! * step * (1 + (v - 60) / 600)),
  }));

describe('decideLook: verdicts agree with their intervals by construction', () => {
  test('for random pairs, every verdict is what its printed interval and threshold say', () => {
    fc.assert(
      fc.property(
        fc.array(metricPair, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom<SpendingRule>('pocock', 'obrien-fleming', 'bonferroni'),
        fc.constantFrom(0.01, 0.02, 0.05),
        (pairs, looks, lookOffset, spending, alpha) => {
          const look = Math.max(1, looks - lookOffset);
          const metrics = pairs.map((p, i) => ({ ...p, metric: `m${i}` }));
          const d = decideLook(metrics, { alpha, look, looks, spending });
          expectClose(d.alphaThisLook, alphaSpending(alpha, look, looks, spending).thisLook, 1e-15);
          for (const r of d.metrics) {
            const τ = r.threshold;
            expect(r.lower).toBeLessThanOrEqual(r.change + 1e-12);
            expect(r.upper).toBeGreaterThanOrEqual(r.change - 1e-12);
            expect(r.significant).toBe(r.lower > 0 || r.upper < 0);
            expect(r.level).toBeLessThanOrEqual(d.alphaThisLook + 1e-15);
            expect(r.confidence).toBe(1 - r.level);
            const badWayUp = r.direction === 'lower';
            if (r.verdict === 'same') {
              expect(r.lower).toBeGreaterThan(-τ);
              expect(r.upper).toBeLessThan(τ);
            } else if (r.verdict === 'regression' || r.verdict === 'improvement') {
              const up = (r.verdict === 'regression') === badWayUp;
              if (up) {
                expect(r.lower).toBeGreaterThan(0);
                expect(r.change).toBeGreaterThanOrEqual(τ);
              } else {
                expect(r.upper).toBeLessThan(0);
                expect(r.change).toBeLessThanOrEqual(-τ);
              }
            } else {
              expect(r.lower > -τ && r.upper < τ).toBe(false);
              expect(r.lower > 0 && r.change >= τ).toBe(false);
              expect(r.upper < 0 && r.change <= -τ).toBe(false);
            }
            expect(r.final).toBe(r.verdict !== 'unclear' || look === looks);
            expect(d.repeat.includes(r.metric)).toBe(!r.final);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('significance is Holm at the look’s alpha when no log ratio ties', () => {
    fc.assert(
      fc.property(fc.array(metricPair, { minLength: 2, maxLength: 6 }), (pairs) => {
        const metrics = pairs.map((p, i) => ({
          ...p,
          metric: `m${i}`,
          roundsMatched: true,
          b: p.b.slice(0, p.a.length),
        }));
        // The duality of test and interval holds without ties (or zeros) in |ln(b/a)|.
        for (const m of metrics) {
          const abs = m.b.map((v, k) => Math.abs(Math.log(v / m.a[k]!)));
          fc.pre(new Set(abs).size === abs.length && !abs.includes(0));
        }
        const alphaThisLook = alphaSpending(0.05, 1, 2, 'pocock').thisLook;
        const d = decideLook(metrics, { alpha: 0.05, look: 1, looks: 2, spending: 'pocock' });
        const p = metrics.map((m) => sideBySideTest(m.a, m.b, { roundsMatched: true }).test.pValue);
        const adjusted = holmAdjust(p);
        d.metrics.forEach((r, i) => expect(r.significant).toBe(adjusted[i]! <= alphaThisLook));
      }),
      { numRuns: 200 },
    );
  });

  test('Holm’s levels: α/m for the smallest p, rising until the first metric that is not significant', () => {
    const a = Array.from({ length: 40 }, (_, k) => 50 + ((k * 29) % 40));
    const jitter = (k: number, s: number): number => 1 + (((k * s) % 17) - 8) / 400;
    const metrics: MetricPair[] = [
      {
        metric: 'same',
        direction: 'lower',
        threshold: 0.05,
        a,
        b: a.map((v, k) => v * jitter(k, 7)),
        roundsMatched: true,
      },
      {
        metric: 'step',
        direction: 'lower',
        threshold: 0.05,
        a,
        b: a.map((v, k) => 1.3 * v * jitter(k, 5)),
        roundsMatched: true,
      },
      {
        metric: 'drop',
        direction: 'lower',
        threshold: 0.05,
        a,
        b: a.map((v, k) => 0.7 * v * jitter(k, 3)),
        roundsMatched: true,
      },
    ];
    const d = decideLook(metrics, { alpha: 0.03, look: 1, looks: 1, spending: 'bonferroni' });
    const by = Object.fromEntries(d.metrics.map((r) => [r.metric, r]));
    expect(new Set([by.step!.holmRank, by.drop!.holmRank])).toEqual(new Set([1, 2]));
    expect(by.same!.holmRank).toBe(3);
    expect([by.step!.level, by.drop!.level].sort()).toEqual([0.01, 0.015]);
    expect(by.same!.level).toBe(0.03);
    expect(by.step!.verdict).toBe('regression');
    expect(by.drop!.verdict).toBe('improvement');
    expect(by.same!.verdict).toBe('same');
    expect(d.repeat).toEqual([]);
  });

  test('unclear on an early look is repeated, on the last it is final', () => {
    const a = [10, 30, 12, 25, 14, 40];
    const b = [12, 28, 15, 26, 13, 44];
    const pair: MetricPair = { metric: 'x', direction: 'lower', threshold: 0.05, a, b, roundsMatched: true };
    const early = decideLook([pair], { alpha: 0.02, look: 1, looks: 3, spending: 'pocock' });
    expect(early.metrics[0]!.verdict).toBe('unclear');
    expect(early.repeat).toEqual(['x']);
    const last = decideLook([pair], { alpha: 0.02, look: 3, looks: 3, spending: 'pocock' });
    expect(last.metrics[0]!.final).toBe(true);
    expect(last.repeat).toEqual([]);
  });

  test('bad input is refused by name', () => {
    const pair: MetricPair = {
      metric: 'x',
      direction: 'lower',
      threshold: 0.05,
      a: [1],
      b: [1],
      roundsMatched: true,
    };
    const opts = { alpha: 0.02, look: 1, looks: 3, spending: 'pocock' as const };
    expect(() => decideLook([], opts)).toThrow(/no metrics/);
    expect(() => decideLook([pair, pair], opts)).toThrow(/metric x given twice/);
    expect(() => decideLook([{ ...pair, threshold: 0 }], opts)).toThrow(/\(x\): threshold 0/);
    expect(() => decideLook([{ ...pair, b: [Number.NaN] }], opts)).toThrow(/b: value 0 is NaN/);
  });
});
