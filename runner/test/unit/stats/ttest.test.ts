import { describe, expect, test } from 'vitest';
import { studentTTest, welchTTest } from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface TTestCase {
  name: string;
  variant: 'welch' | 'student';
  confidence: number;
  x: number[];
  y: number[];
  t: number;
  df: number;
  pValue: number;
  difference: number;
  lower: number;
  upper: number;
}
const { cases } = loadFixture<{ cases: TTestCase[] }>('ttest.json');

describe('t-tests match scipy.stats.ttest_ind', () => {
  test.each(cases)('$name', (c) => {
    const fn = c.variant === 'welch' ? welchTTest : studentTTest;
    const r = fn(c.x, c.y, { confidence: c.confidence });
    expectClose(r.t, c.t, 1e-9);
    expectClose(r.df, c.df, 1e-9);
    // p-values and quantiles go through the t distribution: stdlib vs scipy (Boost/Cephes)
    // agree to about 1e-12 relative; allow 1e-8.
    expectClose(r.pValue, c.pValue, 1e-8, 1e-300);
    expectClose(r.difference, c.difference, 1e-9);
    expectClose(r.lower, c.lower, 1e-8);
    expectClose(r.upper, c.upper, 1e-8);
  });
});

describe('t-test edge cases', () => {
  test('identical constant samples: no evidence of a difference', () => {
    const r = welchTTest([3, 3, 3], [3, 3, 3, 3]);
    expect(r).toMatchObject({ t: 0, pValue: 1, difference: 0, lower: 0, upper: 0 });
    expect(studentTTest([3, 3], [3, 3]).pValue).toBe(1);
  });
  test('two different constants: the difference is certain', () => {
    const r = welchTTest([5, 5, 5], [3, 3, 3]);
    expect(r.t).toBe(Infinity);
    expect(r.pValue).toBe(0);
    expect([r.lower, r.upper]).toEqual([2, 2]);
  });
  test('Welch needs two values per sample', () => {
    expect(() => welchTTest([1], [1, 2, 3])).toThrow(/at least 2 values/);
  });
  test('Student accepts one value in one sample but not in total', () => {
    expect(studentTTest([1], [2, 3, 4]).df).toBe(2);
    expect(() => studentTTest([1], [2])).toThrow(/three values/);
  });
  test('empty and NaN input name the sample', () => {
    expect(() => welchTTest([], [1, 2])).toThrow(/x: no values/);
    expect(() => welchTTest([1, 2], [1, Number.NaN])).toThrow(/y: value 1 is NaN/);
  });
  test('confidence outside (0, 1)', () => {
    expect(() => welchTTest([1, 2], [3, 4], { confidence: 1 })).toThrow(/confidence/);
  });
});
