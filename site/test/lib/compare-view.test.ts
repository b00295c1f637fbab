// The compare view's "Could detect" column: the minimum detectable effect compareRuns puts on
// each row, through the shared formatter, or the too-small-n note when no difference could
// have been significant at all.
import { expect, test } from 'vitest';
import { compareRuns } from '@runtime-bench/runner/compare-runs';
import { COMPARE_COLUMNS, COMPARE_OPTIONS, compareCells, defaultPair } from '../../src/lib/views/compare.ts';
import { makeRun, spread } from './fixtures.ts';

const col = COMPARE_COLUMNS.indexOf('Could detect');
const pair = (n: number, shift: number) =>
  compareRuns(
    {
      run: makeRun('20261101T000000Z-0000000a', '2026-11-01T00:00:00Z', [
        { oci: 'runc', ociVersion: '1', samples: spread(50, n) },
      ]),
      label: 'a',
    },
    {
      run: makeRun('20261102T000000Z-0000000b', '2026-11-02T00:00:00Z', [
        { oci: 'runc', ociVersion: '1', samples: spread(50 * shift, n) },
      ]),
      label: 'b',
    },
    COMPARE_OPTIONS,
  );

test('20 against 20 samples: the cell is the row\'s minimum detectable effect, "≥ X %"', () => {
  const row = pair(20, 1.01).rows.find((r) => r.kind === 'metric')!;
  if (row.kind !== 'metric') throw new Error('expected a metric row');
  const cell = compareCells(row)[col]!;
  const m = /^≥ ([\d.]+) %$/.exec(cell);
  expect(m, cell).not.toBeNull();
  // the samples spread ±9.5 % around their median: an effect of a few per cent is detectable,
  // and the shown figure is the row's figure to the formatter's precision
  expect(Math.abs(Number(m![1]) / 100 - row.detectable!)).toBeLessThan(0.0005);
  expect(row.detectable!).toBeGreaterThan(0);
  expect(row.detectable!).toBeLessThan(0.2);
});

test('3 against 3 samples: no difference could be significant, and the cell says so', () => {
  const row = pair(3, 2).rows.find((r) => r.kind === 'metric')!;
  if (row.kind !== 'metric') throw new Error('expected a metric row');
  expect(row.detectable).toBeNull();
  expect(compareCells(row)[col]).toBe('none at n = 3 vs 3');
  expect(compareCells(row)).toHaveLength(COMPARE_COLUMNS.length);
});

test('the compare form starts with a pair that has a target in common, of one host class', () => {
  const ref = (runId: string, startedAt: string, hostClassId: string, ids: string[]) => ({
    runId,
    file: `${runId}.json`,
    startedAt,
    hostClassId,
    synthetic: false,
    targets: ids.map((id): [string, string] => [id, id]),
  });
  const runs = [
    ref('d', '2026-11-04T00:00:00Z', 'h1', ['cri-o/runc']),
    ref('c', '2026-11-03T00:00:00Z', 'h2', ['cri-o/runc']),
    ref('b', '2026-11-02T00:00:00Z', 'h1', ['containerd/runc']),
    ref('a', '2026-11-01T00:00:00Z', 'h1', ['cri-o/runc', 'containerd/runc']),
  ];
  // the next newest (c) is another host class and b shares no target id with d: a does
  expect(defaultPair(runs)).toEqual({ a: 'a', b: 'd' });
  expect(defaultPair([])).toBeNull();
});
