import { describe, expect, test } from 'vitest';
import {
  coefficientOfVariation,
  mean,
  median,
  medianAbsoluteDeviation,
  percentile,
  quantile,
  standardError,
  stdev,
  summarize,
} from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface DescriptiveCase {
  name: string;
  values: number[];
  median: number;
  mean: number;
  percentiles: Record<string, number>;
  stdev: number | null;
  standardError: number | null;
  mad: number;
  madNormal: number;
  coefficientOfVariation: number | null;
}
const { cases } = loadFixture<{ cases: DescriptiveCase[] }>('descriptive.json');

describe.each(cases)('descriptive statistics of "$name" match numpy/scipy', (c) => {
  test('median, mean, stdev, standard error', () => {
    expectClose(median(c.values), c.median);
    expectClose(mean(c.values), c.mean);
    expectClose(stdev(c.values), c.stdev);
    expectClose(standardError(c.values), c.standardError);
  });
  test.each(Object.entries(c.percentiles))('percentile %s', (p, expected) => {
    expectClose(percentile(c.values, Number(p)), expected);
    expectClose(quantile(c.values, Number(p) / 100), expected);
  });
  test('MAD (raw and normal-consistent)', () => {
    expectClose(medianAbsoluteDeviation(c.values), c.mad);
    expectClose(medianAbsoluteDeviation(c.values, { scale: 'normal' }), c.madNormal);
  });
  test('coefficient of variation', () => {
    if (c.coefficientOfVariation === null && c.values.length > 1)
      expect(() => coefficientOfVariation(c.values)).toThrow(/mean is 0/);
    else expectClose(coefficientOfVariation(c.values), c.coefficientOfVariation);
  });
  test('summarize agrees with the single functions', () => {
    const s = summarize(c.values);
    expect(s.n).toBe(c.values.length);
    expectClose(s.median, c.median);
    expectClose(s.p90, c.percentiles['90']!);
    expectClose(s.p99, c.percentiles['99']!);
    expectClose(s.stdev, c.stdev);
    expect(s.min).toBe(Math.min(...c.values));
    expect(s.max).toBe(Math.max(...c.values));
  });
});

describe('invalid input is a clear error', () => {
  const fns: [string, (v: number[]) => unknown][] = [
    ['median', median],
    ['mean', mean],
    ['stdev', stdev],
    ['standardError', standardError],
    ['medianAbsoluteDeviation', medianAbsoluteDeviation],
    ['coefficientOfVariation', coefficientOfVariation],
    ['summarize', summarize],
    ['percentile', (v) => percentile(v, 50)],
  ];
  test.each(fns)('%s of no values', (_, fn) => {
    expect(() => fn([])).toThrow(/no values/);
  });
  test.each(fns)('%s with NaN names the bad value', (_, fn) => {
    expect(() => fn([1, Number.NaN, 3])).toThrow(/value 1 is NaN/);
  });
  test.each(fns)('%s with Infinity', (_, fn) => {
    expect(() => fn([1, 2, Infinity])).toThrow(/value 2 is Infinity/);
  });
  test('percentile outside [0, 100]', () => {
    expect(() => percentile([1, 2], 101)).toThrow(/within \[0, 100\]/);
    expect(() => percentile([1, 2], Number.NaN)).toThrow(/within \[0, 100\]/);
  });
});
