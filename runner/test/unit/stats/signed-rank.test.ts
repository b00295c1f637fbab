import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  hodgesLehmannInterval,
  signedRankDistribution,
  signedRankShift,
  wilcoxonSignedRank,
  type ZeroMethod,
} from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface WilcoxonCase {
  name: string;
  d: number[];
  zeroMethod: ZeroMethod;
  correction: boolean;
  alternative: 'two-sided' | 'less' | 'greater';
  method: 'auto' | 'exact' | 'permutation' | 'asymptotic';
  statistic: number;
  pValue: number;
  z: number | null;
  wPlus: number;
}
interface ShiftCase {
  name: string;
  d: number[];
  confidence: number;
  estimate: number;
  lower: number | null;
  upper: number | null;
  k: number;
  method: 'exact' | 'asymptotic';
  pTest: number;
}
interface TwoSampleCase {
  name: string;
  x: number[];
  y: number[];
  confidence: number;
  estimate: number;
  lower: number | null;
  upper: number | null;
  k: number;
  method: 'exact' | 'asymptotic';
}
const fixture = loadFixture<{ wilcoxon: WilcoxonCase[]; shifts: ShiftCase[]; twoSample: TwoSampleCase[] }>(
  'paired.json',
);

describe('wilcoxonSignedRank matches scipy.stats.wilcoxon', () => {
  test.each(fixture.wilcoxon)('$name', (c) => {
    const r = wilcoxonSignedRank(c.d, {
      zeroMethod: c.zeroMethod,
      correction: c.correction,
      alternative: c.alternative,
      method: c.method,
    });
    expect(r.wPlus).toBe(c.wPlus);
    expect(r.statistic).toBe(c.statistic);
    expectClose(r.pValue, c.pValue, 1e-9, 1e-14);
    // scipy reports z only when the asymptotic method was asked for; two-sided as −|z|.
    if (c.z !== null) expectClose(c.alternative === 'two-sided' ? -Math.abs(r.z!) : r.z, c.z, 1e-9, 1e-12);
  });

  test("auto follows scipy's choice", () => {
    expect(wilcoxonSignedRank([1, -2, 3, 4.5]).method).toBe('exact');
    expect(wilcoxonSignedRank([1, -1, 3, 4.5]).method).toBe('permutation'); // a tie
    expect(wilcoxonSignedRank([0, -2, 3, 4.5]).method).toBe('permutation'); // a zero
    const tied = Array.from({ length: 14 }, (_, i) => (i % 3) + 1);
    expect(wilcoxonSignedRank(tied).method).toBe('asymptotic');
    const long = Array.from({ length: 51 }, (_, i) => i + 1);
    expect(wilcoxonSignedRank(long).method).toBe('asymptotic');
  });

  test('every difference zero: nothing to rank, p = 1 (scipy: NaN)', () => {
    for (const zeroMethod of ['wilcox', 'pratt', 'zsplit'] as const)
      for (const method of ['auto', 'exact', 'permutation', 'asymptotic'] as const) {
        const r = wilcoxonSignedRank([0, 0, 0, 0], { zeroMethod, method });
        expect(r.pValue).toBe(1);
        expect(r.zeros).toBe(4);
      }
  });

  test('NaN, infinity, empty input and unknown options are refused by name', () => {
    expect(() => wilcoxonSignedRank([1, Number.NaN, 2])).toThrow(/differences: value 1 is NaN/);
    expect(() => wilcoxonSignedRank([1, Infinity])).toThrow(/value 1 is Infinity/);
    expect(() => wilcoxonSignedRank([])).toThrow(/no values/);
    expect(() => wilcoxonSignedRank([1, 2], { zeroMethod: 'drop' as ZeroMethod })).toThrow(
      /zeroMethod "drop"/,
    );
    expect(() => wilcoxonSignedRank([1, 2], { method: 'fast' as 'exact' })).toThrow(/method "fast"/);
    const long = Array.from({ length: 401 }, (_, i) => i + 1);
    expect(() => wilcoxonSignedRank(long, { method: 'exact' })).toThrow(/401 differences .*'asymptotic'/);
    expect(wilcoxonSignedRank(long).method).toBe('asymptotic');
  });
});

describe('signedRankDistribution', () => {
  test.each([0, 1, 5, 12, 30])('n = %i sums to 1, is symmetric, and its mean is n(n+1)/4', (n) => {
    const pmf = signedRankDistribution(n);
    expect(pmf.length).toBe((n * (n + 1)) / 2 + 1);
    expectClose(
      pmf.reduce((a, b) => a + b, 0),
      1,
      1e-12,
    );
    pmf.forEach((p, k) => expect(p).toBeCloseTo(pmf[pmf.length - 1 - k]!, 15));
    expectClose(
      pmf.reduce((a, p, k) => a + p * k, 0),
      (n * (n + 1)) / 4,
      1e-12,
    );
  });
  test('n = 3 by enumeration: sums of subsets of {1, 2, 3}', () => {
    // {}, {1}, {2}, {3}, {1,2}, {1,3}, {2,3}, {1,2,3} → 0,1,2,3,3,4,5,6
    expect([...signedRankDistribution(3)].map((p) => p * 8)).toEqual([1, 1, 1, 2, 1, 1, 1]);
  });
});

describe('signedRankShift: Hodges–Lehmann with the inverted signed-rank interval', () => {
  test.each(fixture.shifts)('$name', (c) => {
    const r = signedRankShift(c.d, c.confidence);
    expectClose(r.estimate, c.estimate, 1e-12, 1e-15);
    expect(r.k).toBe(c.k);
    expect(r.method).toBe(c.method);
    if (c.lower === null) {
      expect(r.lower).toBe(-Infinity);
      expect(r.upper).toBe(Infinity);
    } else {
      expectClose(r.lower, c.lower, 1e-12, 1e-15);
      expectClose(r.upper, c.upper, 1e-12, 1e-15);
    }
  });

  test.each(fixture.shifts)('$name: excludes 0 exactly when scipy rejects at 1 − confidence', (c) => {
    const r = signedRankShift(c.d, c.confidence);
    expect(r.lower > 0 || r.upper < 0).toBe(c.pTest <= 1 - c.confidence);
  });

  test('a shift moves the estimate and the interval by the same amount', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: -8, max: 8 }),
        (d, shift) => {
          const delta = shift / 4; // exact in binary: the Walsh averages move exactly
          const a = signedRankShift(d, 0.9);
          const b = signedRankShift(
            d.map((v) => v + delta),
            0.9,
          );
          expectClose(b.estimate, a.estimate + delta, 1e-12, 1e-12);
          expect(b.k).toBe(a.k);
          expect(a.lower).toBeLessThanOrEqual(a.estimate);
          expect(a.upper).toBeGreaterThanOrEqual(a.estimate);
        },
      ),
    );
  });

  test('refuses a confidence outside (0, 1) and NaN', () => {
    expect(() => signedRankShift([1, 2], 1)).toThrow(/confidence/);
    expect(() => signedRankShift([1, Number.NaN])).toThrow(/value 1 is NaN/);
  });
});

describe('hodgesLehmannInterval: two-sample shift with Moses’ interval', () => {
  test.each(fixture.twoSample)('$name', (c) => {
    const r = hodgesLehmannInterval(c.x, c.y, c.confidence);
    expectClose(r.estimate, c.estimate, 1e-12, 1e-15);
    expect(r.k).toBe(c.k);
    expect(r.method).toBe(c.method);
    if (c.lower === null) {
      expect(r.lower).toBe(-Infinity);
      expect(r.upper).toBe(Infinity);
    } else {
      expectClose(r.lower, c.lower, 1e-12, 1e-15);
      expectClose(r.upper, c.upper, 1e-12, 1e-15);
    }
  });
});
