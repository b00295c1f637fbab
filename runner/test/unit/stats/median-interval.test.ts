import { describe, expect, test } from 'vitest';
import { medianInterval } from '../../../src/stats/median-interval.ts';

// Ranks and exact coverages of the distribution-free 95 % interval of the median, worked out
// from the binomial distribution Bin(n, 1/2) (Conover 1999, table A3; e.g. n = 10: x(2)..x(9),
// 1 - 2·(1 + 10)/1024 = 0.978515625).
describe('medianInterval', () => {
  test.each([
    [6, 1, 6, 1 - 2 / 64],
    [10, 2, 9, 1 - (2 * 11) / 1024],
    [20, 6, 15, 0.9586105346679688],
    [100, 40, 61, 0.9647997997822949],
  ])('n = %i → x(%i)..x(%i)', (n, lo, hi, coverage) => {
    // Values 1..n shuffled: the interval must not depend on input order.
    const values = Array.from({ length: n }, (_, i) => ((i * 7) % n) + 1);
    const ci = medianInterval(values)!;
    expect(ci.lower).toBe(lo);
    expect(ci.upper).toBe(hi);
    expect(ci.coverage).toBeCloseTo(coverage, 12);
    expect(ci.coverage).toBeGreaterThanOrEqual(0.95);
  });

  test('too few values for 95 % gives no interval rather than a misleading one', () => {
    expect(medianInterval([1, 2, 3, 4, 5])).toBeNull();
    expect(medianInterval([1])).toBeNull();
    expect(medianInterval([])).toBeNull();
  });

  test('a lower confidence needs fewer values', () => {
    // n = 5 at 90 %: 2·P(B ≤ 0) = 1/16 ≤ 0.1, so x(1)..x(5).
    expect(medianInterval([5, 1, 4, 2, 3], 0.9)).toMatchObject({ lower: 1, upper: 5 });
  });

  test('identical samples give a zero-width interval', () => {
    expect(medianInterval(Array(12).fill(3))).toMatchObject({ lower: 3, upper: 3 });
  });

  test('large pooled samples stay exact and fast', () => {
    const values = Array.from({ length: 20_000 }, (_, i) => i);
    const ci = medianInterval(values)!;
    // Normal approximation of the ranks: n/2 ∓ 1.96·√n/2 ≈ 9861..10139 (0-based values = rank - 1).
    expect(ci.lower).toBeGreaterThan(9855);
    expect(ci.lower).toBeLessThan(9870);
    expect(ci.upper).toBe(20_000 - 1 - ci.lower);
  });

  test('rejects a confidence outside (0, 1)', () => {
    expect(() => medianInterval([1, 2, 3], 1)).toThrow(RangeError);
  });
});
