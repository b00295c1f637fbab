import { describe, expect, it } from 'vitest';
import { linearTrend } from '../../../src/stats/index.ts';

describe('linearTrend', () => {
  it('fits the least-squares line of a small series (worked by hand)', () => {
    // x̄ = 2, ȳ = 3; Sxy = 4 + 0 + 0 + 2 + 2 = 8, Sxx = 10 → b = 0.8, a = 3 − 0.8·2 = 1.4;
    // residuals −0.4, 0.8, −1.0, 1.2, −0.6 → SSE = 3.6, s = √(3.6 / 3).
    const fit = linearTrend([1, 3, 2, 5, 4])!;
    expect(fit.slope).toBeCloseTo(0.8, 12);
    expect(fit.intercept).toBeCloseTo(1.4, 12);
    expect(fit.sxx).toBe(10);
    expect(fit.df).toBe(3);
    expect(fit.residualSd).toBeCloseTo(Math.sqrt(1.2), 12);
  });

  it('recovers an exact line with no residual spread', () => {
    const fit = linearTrend([0, 1, 2, 3, 4, 5].map((x) => 0.01 * x + 2))!;
    expect(fit.slope).toBeCloseTo(0.01, 12);
    expect(fit.intercept).toBeCloseTo(2, 12);
    expect(fit.residualSd).toBeCloseTo(0, 12);
  });

  it('has no fit below three values or with a non-finite value', () => {
    expect(linearTrend([1, 2])).toBeNull();
    expect(linearTrend([1, Number.NaN, 3])).toBeNull();
  });
});
