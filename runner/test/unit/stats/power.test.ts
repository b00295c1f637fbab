// Power and minimum detectable effects, checked against closed forms worked out by hand and
// against simulation of the rank test itself.
import { describe, expect, test } from 'vitest';
import {
  createRng,
  logSpread,
  mannWhitneyU,
  minimumDetectableRatio,
  nightlyLogSd,
  requiredSamplesPerNight,
  smallestRankTestP,
} from '../../../src/stats/index.ts';

describe('minimum detectable effect of a rank comparison', () => {
  test('3 against 3 can never reach 0.05: smallest p = 2/C(6,3) = 0.1, so no MDE', () => {
    expect(smallestRankTestP(3, 3)).toBeCloseTo(0.1, 15);
    expect(minimumDetectableRatio(0.1, 3, 3)).toBeNull();
    expect(smallestRankTestP(4, 4)).toBeCloseTo(2 / 70, 15);
  });
  test('Noether: ln r = (1.959964 + 0.841621) · σ · √(2/n) / √(3/π)', () => {
    const expected = Math.expm1(
      ((1.959963984540054 + 0.8416212335729143) * 0.1 * Math.sqrt(2 / 30)) / Math.sqrt(3 / Math.PI),
    );
    expect(minimumDetectableRatio(0.1, 30, 30)).toBeCloseTo(expected, 12);
  });
  test('at its MDE the Mann-Whitney test detects the shift in about 80 % of simulated samples', () => {
    const rng = createRng(7);
    const normal = (): number =>
      Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
    const sigma = 0.1;
    const n = 30;
    const r = minimumDetectableRatio(sigma, n, n)!;
    let hits = 0;
    const trials = 400;
    for (let t = 0; t < trials; t++) {
      const a = Array.from({ length: n }, () => Math.exp(sigma * normal()));
      const b = Array.from({ length: n }, () => (1 + r) * Math.exp(sigma * normal()));
      if (mannWhitneyU(a, b).pValue < 0.05) hits++;
    }
    // Binomial(400, 0.8) has sd 0.02: 0.72..0.88 is four sd either side.
    expect(hits / trials).toBeGreaterThan(0.72);
    expect(hits / trials).toBeLessThan(0.88);
  });
  test('logSpread is 1.4826·MAD of the logs; null for non-positive values', () => {
    const values = [1, Math.E, Math.E ** 2, Math.E ** 3, Math.E ** 4];
    expect(logSpread(values)).toBeCloseTo(1.482602218505602, 9);
    expect(logSpread([0, 1, 2])).toBeNull();
  });
});

describe('samples per night for the gate', () => {
  test('inverts nightlyLogSd: at the returned n the step is (z + z_power)·sd·√(1 + 1/K)', () => {
    const input = { sigmaWithin: 0.15, sigmaBetween: 0.01, window: 10, step: 0.1 };
    const n = requiredSamplesPerNight(input, { alpha: 0.001, power: 0.9 })!;
    const z = 3.2905267314918945 + 1.2815515655446004;
    const reach = (k: number): number => z * nightlyLogSd(0.15, 0.01, k) * Math.sqrt(1.1);
    expect(reach(n)).toBeLessThanOrEqual(Math.log1p(0.1));
    expect(reach(n - 1)).toBeGreaterThan(Math.log1p(0.1));
  });
  test('drift alone beyond the budget: unreachable by repetitions', () => {
    expect(
      requiredSamplesPerNight({ sigmaWithin: 0.1, sigmaBetween: 0.05, window: 10, step: 0.1 }),
    ).toBeNull();
  });
});
