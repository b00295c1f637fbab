// The five fixes of issue 12 item 5, each against values computed independently of the code:
// mpmath (normal quantile) and full enumeration of splits (exact Mann-Whitney with ties) by
// generate_exact.py, brute-force pairwise medians for Hodges-Lehmann.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  fisherExact,
  hodgesLehmannShift,
  mannWhitneyU,
  normalQuantile,
  studentTTest,
  welchTTest,
} from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

describe('two constant samples decide t exactly', () => {
  test('[0.1]×10 vs [0.1]×3: p = 1 (the mean of ten 0.1s is not 0.1 in doubles)', () => {
    const ten = Array<number>(10).fill(0.1);
    const three = Array<number>(3).fill(0.1);
    expect(ten.reduce((a, b) => a + b) / 10).not.toBe(0.1); // the trap this guards against
    for (const r of [studentTTest(ten, three), welchTTest(ten, three)])
      expect(r).toMatchObject({ t: 0, pValue: 1, difference: 0 });
  });
  test('different constants: p = 0 and the exact difference', () => {
    const r = studentTTest(Array<number>(10).fill(0.3), Array<number>(3).fill(0.1));
    expect(r.pValue).toBe(0);
    expect(r.difference).toBe(0.3 - 0.1);
  });
});

describe('exact Mann-Whitney with ties', () => {
  const { cases } = loadFixture<{
    cases: { name: string; x: number[]; y: number[]; u: number; pValue: number }[];
  }>('mann-whitney-ties.json');
  test.each(cases)('$name matches enumeration of every split', (c) => {
    for (const method of ['auto', 'exact'] as const) {
      const r = mannWhitneyU(c.x, c.y, { method });
      expect(r.method).toBe('exact');
      expect(r.u).toBe(c.u);
      expectClose(r.pValue, c.pValue, 1e-12);
    }
  });
  test('[5,5,5] vs [6,6,6] gives 0.1 (two of the twenty splits are this extreme)', () => {
    expect(mannWhitneyU([5, 5, 5], [6, 6, 6]).pValue).toBeCloseTo(0.1, 14);
  });
});

describe('unknown options are refused', () => {
  test('Mann-Whitney method and continuity', () => {
    expect(() => mannWhitneyU([1], [2], { method: 'exakt' as 'exact' })).toThrow(/unknown method "exakt"/);
    expect(() => mannWhitneyU([1], [2], { continuity: 'no' as unknown as boolean })).toThrow(/continuity/);
  });
  test('Fisher alternative', () => {
    expect(() =>
      fisherExact(
        [
          [1, 2],
          [3, 4],
        ],
        'two_sided' as 'two-sided',
      ),
    ).toThrow(/unknown alternative "two_sided"/);
  });
});

describe('hodgesLehmannShift without m·n memory', () => {
  const brute = (x: number[], y: number[]): number => {
    const d = x.flatMap((a) => y.map((b) => a - b)).sort((a, b) => a - b);
    const n = d.length;
    return n % 2 ? d[(n - 1) / 2]! : (d[n / 2 - 1]! + d[n / 2]!) / 2;
  };
  test('equals the median of all pairwise differences (ties, duplicates, negatives)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 25 }),
        fc.array(fc.double({ min: -50, max: 50, noNaN: true }), { minLength: 1, maxLength: 25 }),
        fc.boolean(),
        (x, y, quantized) => {
          const yy = quantized ? y.map(Math.round) : y;
          expect(hodgesLehmannShift(x, yy)).toBe(brute(x, yy));
        },
      ),
      { numRuns: 500 },
    );
  });
  test('50 000 × 50 000 completes: shift of two uniform samples one unit apart', () => {
    // 2.5e9 differences would need 20 GB as doubles; the selection needs O(m + n).
    const x = Array.from({ length: 50_000 }, (_, i) => (i * 0.6180339887) % 1);
    const y = x.map((v) => v - 1);
    expect(hodgesLehmannShift(x, y)).toBeCloseTo(1, 12);
  });
});

describe('normalQuantile (Wichura AS 241)', () => {
  const { cases } = loadFixture<{ cases: { p: number; x: number }[] }>('normal-quantile.json');
  test.each(cases)('Φ⁻¹($p) to 1e-15 relative', ({ p, x }) => {
    expectClose(normalQuantile(p), x, 1e-15, 1e-300);
  });
  test('edges: ±Infinity at 0 and 1, NaN outside', () => {
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(-0.1)).toBeNaN();
    expect(normalQuantile(Number.NaN)).toBeNaN();
  });
});
