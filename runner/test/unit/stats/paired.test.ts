import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  bootstrapRatioOfMediansCI,
  compareSideBySide,
  pairedRatioOfMediansCI,
  shiftInterval,
  sideBySideRankTest,
  sideBySideTest,
} from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface SideCase {
  name: string;
  a: number[];
  b: number[];
  roundsMatched: boolean;
  design: 'paired' | 'unpaired';
  ratioOfMedians: number;
  statistic: number;
  pValue: number;
  shiftRatio: number;
}
const { sideBySide } = loadFixture<{ sideBySide: SideCase[] }>('paired.json');

describe('side by side: paired when rounds match, else unpaired (scipy wilcoxon / mannwhitneyu)', () => {
  test.each(sideBySide)('$name', (c) => {
    const r = compareSideBySide(c.a, c.b, { roundsMatched: c.roundsMatched, bootstrap: { resamples: 200 } });
    expect(r.design).toBe(c.design);
    expect(r.test.name).toBe(
      c.design === 'paired' ? 'Wilcoxon signed-rank of ln(b/a) per round' : 'Mann-Whitney U of b against a',
    );
    expect(r.test.statistic).toBe(c.statistic);
    expectClose(r.test.pValue, c.pValue, 1e-9, 1e-14);
    expectClose(r.shift.ratio, c.shiftRatio, 1e-12);
    expectClose(r.ratioOfMedians.ratio, c.ratioOfMedians, 1e-12);
    expect(r.ratioOfMedians.resampled).toBe(c.design === 'paired' ? 'rounds' : 'samples');
    expect(r.n.rounds).toBe(c.design === 'paired' ? c.a.length : null);
  });

  test('says why it did not pair', () => {
    expect(sideBySideTest([1, 2, 3], [1, 2, 3]).why).toMatch(/not known to match/);
    expect(sideBySideTest([1, 2, 3], [1, 2], { roundsMatched: true }).why).toMatch(/a has 3 samples, b 2/);
    expect(sideBySideTest([1, 2, 3], [2, 3, 4], { roundsMatched: true }).why).toBe('3 rounds paired');
  });

  test('one round: paired, p = 1, the interval unbounded', () => {
    const r = sideBySideTest([10], [11], { roundsMatched: true });
    expect(r.design).toBe('paired');
    expect(r.test.pValue).toBe(1);
    expectClose(r.shift.ratio, 1.1, 1e-12);
    expect(r.shift.lower).toBe(0);
    expect(r.shift.upper).toBe(Infinity);
  });

  test('every round the same ratio: zero spread, the test as sure as n allows', () => {
    const a = [10, 12, 9, 15, 11, 13, 10.5, 14];
    const b = a.map((v) => v * 1.25);
    const r = compareSideBySide(a, b, { roundsMatched: true, bootstrap: { resamples: 500 } });
    // The log ratios are equal up to an ulp: tied or not, all 8 are > 0, the smallest p 8 rounds allow.
    expect(r.test.pValue).toBeCloseTo(2 / 2 ** 8, 12);
    expectClose(r.shift.ratio, 1.25, 1e-12);
    // Every resample of rounds has the same ratio of medians.
    expectClose(r.ratioOfMedians.lower, 1.25, 1e-12);
    expectClose(r.ratioOfMedians.upper, 1.25, 1e-12);
  });

  test('equal samples (all log ratios zero): p = 1 and no change', () => {
    const a = [3, 4, 5, 6];
    const r = sideBySideTest(a, [...a], { roundsMatched: true });
    expect(r.test.pValue).toBe(1);
    expect(r.test.zeros).toBe(4);
    expect(r.shift.ratio).toBe(1);
  });

  test('resampling rounds keeps the shared load: narrower than resampling samples', () => {
    // A round's load moves both sides alike (×1 … ×3); b is 5 % slower in every round, ± 1 %.
    const load = Array.from({ length: 60 }, (_, k) => 1 + ((k * 37) % 60) / 30);
    const a = load.map((l, k) => 20 * l * (1 + ((k * 13) % 7) / 700));
    const b = load.map((l, k) => 21 * l * (1 + ((k * 11) % 5) / 500));
    const paired = pairedRatioOfMediansCI(a, b, { resamples: 2000 });
    const independent = bootstrapRatioOfMediansCI(a, b, { resamples: 2000 });
    expect(paired.estimate).toBe(independent.estimate);
    expect(paired.upper - paired.lower).toBeLessThan((independent.upper - independent.lower) / 3);
    expect(paired.lower).toBeLessThanOrEqual(paired.estimate);
    expect(paired.upper).toBeGreaterThanOrEqual(paired.estimate);
  });

  test('bad values are refused by name', () => {
    expect(() => sideBySideTest([1, Number.NaN], [1, 2])).toThrow(/a: value 1 is NaN/);
    expect(() => sideBySideTest([1, 2], [1, 0], { roundsMatched: true })).toThrow(/b: value 1 is 0.*> 0/);
    expect(() => sideBySideTest([], [1])).toThrow(/a: no values/);
    expect(() => pairedRatioOfMediansCI([1, 2], [1])).toThrow(/pair them first/);
  });
});

describe('the interval is the inversion of the test: it excludes no change exactly when p ≤ 1 − confidence', () => {
  // Distinct positive values: no ties in the ranks, where the duality is exact.
  const distinct = (min: number, max: number) =>
    fc
      .uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: min, maxLength: max })
      .map((v) => v.map((x) => 5 + x / 1009));
  test.each([
    ['paired, exact (n ≤ 50)', true, 2, 50],
    ['paired, asymptotic (n > 50)', true, 51, 120],
    ['unpaired, exact', false, 2, 20],
    ['unpaired, asymptotic', false, 40, 90],
  ] as const)('%s', (_, matched, min, max) => {
    const outcomes = new Set<boolean>();
    fc.assert(
      fc.property(
        distinct(2 * min, 2 * max),
        fc.constantFrom(0.8, 0.95, 0.999),
        fc.constantFrom(0.9, 1, 1.07),
        (values, confidence, step) => {
          const n = Math.floor(values.length / 2);
          const a = values.slice(0, n);
          // Paired: b is a's round times the step times ±25 % of noise (another value).
          const b = matched
            ? values.slice(n, 2 * n).map((v, k) => a[k]! * step * (0.75 + v / 2000))
            : values.slice(n).map((v) => v * step);
          const ratios = b.map((v, k) => Math.abs(Math.log(v / a[k]!)));
          fc.pre(!matched || new Set(ratios).size === ratios.length);
          const test = sideBySideRankTest(a, b, { roundsMatched: matched });
          const s = shiftInterval(a, b, test.design, confidence);
          const rejected = test.test.pValue <= 1 - confidence;
          outcomes.add(rejected);
          expect(s.lower > 1 || s.upper < 1).toBe(rejected);
        },
      ),
      { numRuns: 150 },
    );
    expect(outcomes).toEqual(new Set([true, false])); // both sides of the boundary were tried
  });
});
