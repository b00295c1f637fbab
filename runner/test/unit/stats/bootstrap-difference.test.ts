import { describe, expect, test } from 'vitest';
import { bootstrapDifferenceOfMediansCI } from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface DifferenceCase {
  name: string;
  baseline: number[];
  candidate: number[];
  confidence: number;
  estimate: number;
  lowerRange: [number, number];
  upperRange: [number, number];
}

// generate_difference.py: the exact bootstrap distribution of the difference of two medians.
const fixture = loadFixture<{ difference: DifferenceCase[] }>('bootstrap-difference.json');

describe('bootstrap CI of the difference of medians agrees with the exact bootstrap distribution', () => {
  test.each(fixture.difference)('$name', (c) => {
    const ci = bootstrapDifferenceOfMediansCI(c.baseline, c.candidate, {
      confidence: c.confidence,
      seed: 2026,
    });
    expectClose(ci.estimate, c.estimate);
    expect(ci.confidence).toBe(c.confidence);
    expect(ci.lower).toBeGreaterThanOrEqual(c.lowerRange[0]);
    expect(ci.lower).toBeLessThanOrEqual(c.lowerRange[1]);
    expect(ci.upper).toBeGreaterThanOrEqual(c.upperRange[0]);
    expect(ci.upper).toBeLessThanOrEqual(c.upperRange[1]);
  });
});

describe('bootstrap CI of the difference of medians: edge cases', () => {
  test('signed values and a zero baseline are allowed (unlike the ratio)', () => {
    const ci = bootstrapDifferenceOfMediansCI([0, 0, 0], [-2, -2, -2]);
    expect(ci).toMatchObject({ estimate: -2, lower: -2, upper: -2 });
  });
  test('deterministic for a seed, and the same seed gives another interval for other data', () => {
    const a = [5.1, 5.3, 4.9, 5.0, 5.2];
    const b = [7.1, 6.3, 6.9, 8.0, 7.2];
    expect(bootstrapDifferenceOfMediansCI(a, b, { seed: 4 })).toEqual(
      bootstrapDifferenceOfMediansCI(a, b, { seed: 4 }),
    );
  });
  test('refuses empty or non-finite samples naming the side', () => {
    expect(() => bootstrapDifferenceOfMediansCI([], [1])).toThrow(/baseline: no values/);
    expect(() => bootstrapDifferenceOfMediansCI([1], [Number.NaN])).toThrow(/candidate: value 0 is NaN/);
  });
});
