import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  bootstrapMedianCI,
  bootstrapRatioOfMediansCI,
  createRng,
  createRngFromState,
  median,
} from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface MedianCase {
  name: string;
  values: number[];
  confidence: number;
  estimate: number;
  lower: number;
  upper: number;
}
interface RatioCase {
  name: string;
  baseline: number[];
  candidate: number[];
  confidence: number;
  estimate: number;
  lowerRange: [number, number];
  upperRange: [number, number];
}
const fixture = loadFixture<{ median: MedianCase[]; ratio: RatioCase[] }>('bootstrap.json');

describe('xoshiro128**', () => {
  test('matches the reference C implementation', () => {
    // State and outputs from edorfaus/xoshiro-6502 test-rom/testdata.asm, which were produced
    // with Vigna's reference xoshiro128starstar.c.
    const rng = createRngFromState([0x964d4a0c, 0xd40ab895, 0xad7fdecb, 0x3006f0f0]);
    const words = [0, 1, 2, 3].map(() => rng.next() * 2 ** 32);
    expect(words).toEqual([0xf1391922, 0x6fe53806, 0xa5be2840, 0xf510ee70]);
  });
  test('same seed, same sequence; other seed, other sequence', () => {
    const a = createRng(42);
    const b = createRng(42);
    const c = createRng(43);
    const sa = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(sa);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(sa);
  });
  test('int(n) is uniform (chi-square, 6 bins, 60 000 draws)', () => {
    const rng = createRng(7);
    const counts = new Array<number>(6).fill(0);
    for (let i = 0; i < 60_000; i++) counts[rng.int(6)]!++;
    const chi2 = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
    expect(chi2).toBeLessThan(20.5); // the 0.999 quantile of chi-square with 5 df
  });
  test('bad seeds and bounds are errors', () => {
    expect(() => createRng(Number.NaN)).toThrow(/finite/);
    expect(() => createRng(1).int(0)).toThrow(/integer in \[1, 2\^32\]/);
    expect(() => createRngFromState([0, 0, 0, 0])).toThrow(/all zero/);
  });
});

describe('bootstrap CI of the median agrees with the exact bootstrap distribution', () => {
  test.each(fixture.median)('$name', (c) => {
    const ci = bootstrapMedianCI(c.values, { confidence: c.confidence, seed: 2026 });
    expectClose(ci.estimate, c.estimate);
    expect(ci.lower).toBe(c.lower);
    expect(ci.upper).toBe(c.upper);
    expect(ci.confidence).toBe(c.confidence);
  });
});

describe('bootstrap CI of the ratio of medians agrees with the exact bootstrap distribution', () => {
  test.each(fixture.ratio)('$name', (c) => {
    const ci = bootstrapRatioOfMediansCI(c.baseline, c.candidate, { confidence: c.confidence, seed: 2026 });
    expectClose(ci.estimate, c.estimate);
    expect(ci.lower).toBeGreaterThanOrEqual(c.lowerRange[0]);
    expect(ci.lower).toBeLessThanOrEqual(c.lowerRange[1]);
    expect(ci.upper).toBeGreaterThanOrEqual(c.upperRange[0]);
    expect(ci.upper).toBeLessThanOrEqual(c.upperRange[1]);
  });
});

describe('bootstrap properties and edge cases', () => {
  test('deterministic for a seed', () => {
    const v = [5.1, 5.3, 4.9, 5.0, 5.2, 6.0, 4.7];
    expect(bootstrapMedianCI(v, { seed: 9 })).toEqual(bootstrapMedianCI(v, { seed: 9 }));
    expect(bootstrapRatioOfMediansCI(v, v, { seed: 9 })).toEqual(
      bootstrapRatioOfMediansCI(v, v, { seed: 9 }),
    );
  });
  test('the interval contains the estimate and lies within the data range', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1, max: 1000, noNaN: true }), { minLength: 1, maxLength: 30 }),
        fc.integer(),
        (values, seed) => {
          const ci = bootstrapMedianCI(values, { seed, resamples: 200 });
          expect(ci.lower).toBeLessThanOrEqual(ci.upper);
          expect(ci.lower).toBeGreaterThanOrEqual(Math.min(...values));
          expect(ci.upper).toBeLessThanOrEqual(Math.max(...values));
          expect(ci.estimate).toBe(median(values));
        },
      ),
      { numRuns: 50 },
    );
  });
  test('one value and identical values give a zero-width interval', () => {
    expect(bootstrapMedianCI([7])).toMatchObject({ estimate: 7, lower: 7, upper: 7 });
    expect(bootstrapRatioOfMediansCI([2, 2, 2], [3, 3])).toMatchObject({
      estimate: 1.5,
      lower: 1.5,
      upper: 1.5,
    });
  });
  test('95 % intervals of the median cover the true median about 95 % of the time', () => {
    // Exponential data (skewed like latencies), true median ln 2; 300 data sets of 41 values.
    // The percentile bootstrap of the median is known to be a little conservative or liberal at
    // small n; accept 0.90-0.99 (a broken interval, e.g. a quantile mix-up, lands far outside).
    const rng = createRng(11);
    let covered = 0;
    const sets = 300;
    for (let s = 0; s < sets; s++) {
      const values = Array.from({ length: 41 }, () => -Math.log(1 - rng.next()));
      const ci = bootstrapMedianCI(values, { seed: s, resamples: 1000 });
      if (ci.lower <= Math.LN2 && Math.LN2 <= ci.upper) covered++;
    }
    expect(covered / sets).toBeGreaterThan(0.9);
    expect(covered / sets).toBeLessThan(0.99);
  });
  test('clear errors for empty, NaN, non-positive baselines and bad options', () => {
    expect(() => bootstrapMedianCI([])).toThrow(/no values/);
    expect(() => bootstrapMedianCI([1, Number.NaN])).toThrow(/value 1 is NaN/);
    expect(() => bootstrapRatioOfMediansCI([0, 1], [1, 2])).toThrow(/baseline values must be > 0/);
    expect(() => bootstrapRatioOfMediansCI([1, 2], [-1, 2])).toThrow(/candidate values must be ≥ 0/);
    expect(() => bootstrapMedianCI([1, 2], { resamples: 10 })).toThrow(/resamples/);
    expect(() => bootstrapMedianCI([1, 2], { confidence: 0 })).toThrow(/confidence/);
  });
});
