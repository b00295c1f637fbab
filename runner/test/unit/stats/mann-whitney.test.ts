import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { cliffsDelta, hodgesLehmannShift, mannWhitneyU, uFrequencies } from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface MwCase {
  name: string;
  x: number[];
  y: number[];
  method: 'exact' | 'asymptotic';
  continuity: boolean;
  u: number;
  pValue: number;
  cliffsDelta: number;
  hodgesLehmann: number;
}
const { cases } = loadFixture<{ cases: MwCase[] }>('mann-whitney.json');

describe('Mann-Whitney U matches scipy.stats.mannwhitneyu', () => {
  test.each(cases)('$name ($method)', (c) => {
    const r = mannWhitneyU(c.x, c.y, { method: c.method, continuity: c.continuity });
    expect(r.method).toBe(c.method);
    expect(r.u).toBe(c.u);
    expectClose(r.pValue, c.pValue, 1e-9, 1e-300);
  });
  test.each(cases)('effect sizes of $name match brute force', (c) => {
    expectClose(cliffsDelta(c.x, c.y), c.cliffsDelta, 1e-12);
    expectClose(hodgesLehmannShift(c.x, c.y), c.hodgesLehmann, 1e-12);
  });
});

describe('method choice and edge cases', () => {
  test('auto is exact at small n, with or without ties', () => {
    expect(mannWhitneyU([1, 2, 3], [4, 5, 6]).method).toBe('exact');
    expect(mannWhitneyU([1, 2, 3], [3, 5, 6]).method).toBe('exact');
  });
  test('auto is asymptotic once C(m+n, m) exceeds 2^53', () => {
    const x = Array.from({ length: 30 }, (_, i) => i);
    const y = Array.from({ length: 30 }, (_, i) => i + 0.5);
    expect(mannWhitneyU(x, y).method).toBe('asymptotic'); // C(60, 30) ≈ 1.2e17
    expect(mannWhitneyU(x.slice(0, 20), y.slice(0, 20)).method).toBe('exact'); // C(40, 20) ≈ 1.4e11
  });
  test('auto with ties is asymptotic once the counting table is large', () => {
    const x = Array.from({ length: 25 }, (_, i) => i % 5);
    const y = Array.from({ length: 25 }, (_, i) => i % 7);
    expect(mannWhitneyU(x, y).method).toBe('exact'); // C(50, 25) ≈ 1.3e14, table ≈ 3.3e6 cells
    expect(mannWhitneyU([...x, ...x], [...y, ...y]).method).toBe('asymptotic'); // C(100, 50) > 2^53
  });
  test('identical samples: p = 1, delta 0', () => {
    const r = mannWhitneyU([4, 4, 4], [4, 4, 4, 4]);
    expect(r.pValue).toBe(1);
    expect(r.u).toBe(6);
    expect(cliffsDelta([4, 4, 4], [4, 4])).toBe(0);
  });
  test('one value against one value', () => {
    expect(mannWhitneyU([1], [2])).toMatchObject({ u: 0, pValue: 1, method: 'exact' });
  });
  test('empty and NaN input name the sample', () => {
    expect(() => mannWhitneyU([], [1])).toThrow(/x: no values/);
    expect(() => mannWhitneyU([1], [Number.NaN])).toThrow(/y: value 0 is NaN/);
    expect(() => cliffsDelta([1], [])).toThrow(/y: no values/);
  });
  test('U frequencies sum to C(m+n, m) and are symmetric', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), (m, n) => {
        const f = Array.from(uFrequencies(m, n));
        let binom = 1;
        for (let i = 1; i <= m; i++) binom = (binom * (n + i)) / i;
        expect(f.reduce((a, b) => a + b, 0)).toBeCloseTo(binom, 6);
        expect(f).toEqual([...f].reverse());
        expect(f.every((v) => Number.isInteger(v) && v >= 1)).toBe(true);
      }),
    );
  });
  test('swapping the samples gives U₂ = mn - U₁, the same p and the opposite delta', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 15 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 15 }),
        (x, y) => {
          const a = mannWhitneyU(x, y, { method: 'asymptotic' });
          const b = mannWhitneyU(y, x, { method: 'asymptotic' });
          expect(a.u + b.u).toBe(x.length * y.length);
          expect(a.pValue).toBeCloseTo(b.pValue, 12);
          expect(cliffsDelta(x, y)).toBeCloseTo(-cliffsDelta(y, x), 12);
          expect(cliffsDelta(x, y)).toBeCloseTo((2 * a.u) / (x.length * y.length) - 1, 12);
        },
      ),
    );
  });
});
