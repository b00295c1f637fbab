// The cri-client bench's verdict from paired samples. Expectations are worked out by hand: the
// median of the differences, and the order-statistic interval of Conover §3.2 for n = 10, where
// 2·P(Bin(10, ½) ≤ 1) = 22/1024 ≤ 0.05 < 2·P(Bin(10, ½) ≤ 2) = 112/1024, so [x₍₂₎, x₍₉₎].
import { describe, expect, test } from 'vitest';
import { pairedRow, pairedVerdict } from '../../../bench/paired-diff.ts';

describe('pairedRow', () => {
  const go = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
  // Differences 1 … 10 in a shuffled order, so the row must pair by index, not by rank.
  const diffs = [7, 2, 10, 5, 1, 8, 3, 9, 6, 4];
  const ours = go.map((g, k) => g + diffs[k]!);

  test('median of the paired differences, its 95 % interval and both medians', () => {
    const row = pairedRow('Version', 'back-to-back', ours, go, 2);
    expect(row).toMatchObject({ call: 'Version', case: 'back-to-back', n: 10, diff: 5.5, goMedian: 14.5 });
    // ours = 17, 13, 22, 18, 15, 23, 19, 26, 24, 23 → sorted middle pair 19 and 22
    expect(row.oursMedian).toBe(20.5);
    expect(row.interval).toMatchObject({ lower: 2, upper: 9 });
    expect(row.verdict).toBe('within noise'); // 5.5 > 2, but the interval reaches 2
    expect(pairedRow('Version', 'back-to-back', ours, go, 1).verdict).toBe('NOT met'); // lower 2 > 1
    expect(pairedRow('Version', 'back-to-back', ours, go, 6).verdict).toBe('met');
  });

  test('noise both sides share cancels in the pairs, not in a difference of medians', () => {
    const host = [0, 50, 3, 90, 7, 40, 1, 70, 5, 20]; // the runtime's own spread, met by both
    const row = pairedRow(
      'RemoveContainer',
      'after 60 ms',
      host.map((h) => h + 4 + 0.25),
      host.map((h) => h + 4),
      0.25,
    );
    expect([row.diff, row.interval?.lower, row.interval?.upper, row.verdict]).toEqual([
      0.25,
      0.25,
      0.25,
      'met',
    ]);
  });

  test('unequal or empty sample lists are refused, naming the call and case', () => {
    expect(() => pairedRow('ImageStatus', 'after 60 ms', [1, 2], [1], 0.2)).toThrow(
      /ImageStatus \(after 60 ms\)/,
    );
    expect(() => pairedRow('ImageStatus', 'back-to-back', [], [], 0.2)).toThrow(RangeError);
  });
});

describe('pairedVerdict', () => {
  test('met within the target either way; else the interval decides; no interval: too few', () => {
    expect(pairedVerdict(-0.2, null, 0.2)).toBe('met');
    expect(pairedVerdict(-0.5, { lower: -0.9, upper: -0.1, coverage: 0.95 }, 0.2)).toBe('within noise');
    expect(pairedVerdict(-0.5, { lower: -0.9, upper: -0.3, coverage: 0.95 }, 0.2)).toBe('NOT met');
    expect(pairedVerdict(0.5, null, 0.2)).toBe('too few');
  });
});
