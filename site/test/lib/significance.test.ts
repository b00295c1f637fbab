import { describe, expect, test } from 'vitest';
import { compareWithBest } from '../../src/lib/significance.ts';
import reference from '../fixtures/significance/significance.json' with { type: 'json' };

// Samples and expected p-values from scipy (test/fixtures/significance/generate.py).
const { fast, slow, slightly } = reference;
const same = fast.map((v) => v + 0.001 * ((v * 1000) % 3) - 0.001);

describe('compareWithBest', () => {
  test('the lowest median wins for "lower" and a clear difference is significant', () => {
    const verdicts = compareWithBest([slow, fast], 'lower');
    const a = verdicts[0]!;
    expect(verdicts[1]).toEqual({ kind: 'best', tied: 0 });
    expect(a.kind).toBe('worse');
    if (a.kind !== 'worse') throw new Error('unreachable');
    expect(a.ratio).toBeCloseTo(reference.twoCells.ratioOfMedians, 10);
    expect(a.lower!).toBeGreaterThan(1);
    expect(a.upper!).toBeGreaterThanOrEqual(a.lower!);
    // one comparison: Holm leaves the Mann–Whitney p-value unchanged
    expect(a.pValue).toBeCloseTo(reference.twoCells.pValue, 12);
  });

  test('the highest median wins for "higher"', () => {
    const verdicts = compareWithBest([slow, fast], 'higher');
    expect(verdicts[0]!.kind).toBe('best');
    expect(verdicts[1]!.kind).toBe('worse');
  });

  test('overlapping samples are "not significant", and the best counts them as tied', () => {
    const [a, b] = compareWithBest([fast, same], 'lower');
    const best = a!.kind === 'best' ? a! : b!;
    const other = a!.kind === 'best' ? b! : a!;
    expect(other.kind).toBe('not-significant');
    expect(best).toEqual({ kind: 'best', tied: 1 });
    if (other.kind !== 'not-significant') throw new Error('unreachable');
    expect(other.pValue).toBeGreaterThanOrEqual(0.05);
    expect(other.lower!).toBeLessThanOrEqual(1);
    expect(other.upper!).toBeGreaterThanOrEqual(1);
  });

  test("Holm's correction over the row: the scipy p-values, Holm-adjusted", () => {
    const verdicts = compareWithBest([fast, slow, slightly], 'lower');
    const [s, v] = [verdicts[1]!, verdicts[2]!];
    if (s.kind === 'best' || s.kind === 'untested') throw new Error(`unexpected ${s.kind}`);
    if (v.kind === 'best' || v.kind === 'untested') throw new Error(`unexpected ${v.kind}`);
    const t = reference.threeCells;
    expect(s.pValue).toBeCloseTo(t.adjustedSlow, 12);
    expect(v.pValue).toBeCloseTo(t.adjustedSlightly, 12);
    // the correction raised the smaller p and left the larger one: no p below its raw value
    expect(s.pValue).toBeGreaterThan(t.rawSlow);
    expect(v.pValue).toBeGreaterThanOrEqual(t.rawSlightly);
  });

  test('cells without samples and single samples are not tested, and say why', () => {
    const verdicts = compareWithBest([fast, [], [12]], 'lower');
    expect(verdicts[0]!.kind).toBe('best');
    expect(verdicts[1]).toEqual({ kind: 'untested', why: 'no samples' });
    expect(verdicts[2]!.kind).toBe('untested');
  });

  test('a row without any samples has no best', () => {
    expect(compareWithBest([[], []], 'lower').every((v) => v.kind === 'untested')).toBe(true);
  });

  test('non-positive values get a test but no ratio interval', () => {
    const [a, b] = compareWithBest(
      [
        [-1, -2, -3, -1.5],
        [5, 6, 7, 5.5],
      ],
      'lower',
    );
    expect(a!.kind).toBe('best');
    if (b!.kind === 'best' || b!.kind === 'untested') throw new Error('unexpected');
    expect(b!.lower).toBeNull();
  });

  test('deterministic: the same input gives the same interval', () => {
    expect(compareWithBest([slow, fast], 'lower')).toEqual(compareWithBest([slow, fast], 'lower'));
  });
});
