import { describe, expect, test } from 'vitest';
import { fisherExact, holmAdjust, type Alternative } from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

const holm = loadFixture<{ cases: { name: string; p: number[]; adjusted: number[] }[] }>('holm.json');
const fisher = loadFixture<{
  cases: {
    name: string;
    table: [[number, number], [number, number]];
    alternative: Alternative;
    pValue: number;
  }[];
}>('fisher.json');

describe('Holm adjustment matches statsmodels multipletests(method="holm")', () => {
  test.each(holm.cases)('$name', (c) => {
    const adjusted = holmAdjust(c.p);
    expect(adjusted).toHaveLength(c.adjusted.length);
    adjusted.forEach((p, i) => expectClose(p, c.adjusted[i]!, 1e-12));
  });
  test('no p-values: nothing to adjust', () => {
    expect(holmAdjust([])).toEqual([]);
  });
  test('NaN or out-of-range p-values are errors naming the index', () => {
    expect(() => holmAdjust([0.1, Number.NaN])).toThrow(/p-value 1 is NaN/);
    expect(() => holmAdjust([1.5])).toThrow(/p-value 0 is 1.5/);
  });
});

describe("Fisher's exact test matches scipy.stats.fisher_exact", () => {
  test.each(fisher.cases)('$name', (c) => {
    expectClose(fisherExact(c.table, c.alternative), c.pValue, 1e-9, 1e-300);
  });
  test('negative or fractional counts are errors', () => {
    expect(() =>
      fisherExact([
        [1, -1],
        [2, 3],
      ]),
    ).toThrow(/non-negative integers/);
    expect(() =>
      fisherExact([
        [1, 0.5],
        [2, 3],
      ]),
    ).toThrow(/non-negative integers/);
  });
});
