// The small pure pieces of the redesigned pages, with expectations worked out by hand.
import { describe, expect, test } from 'vitest';
import { splitCitations } from '../../src/lib/citations.ts';
import { familyColour, seriesColours, shade } from '../../src/lib/colours.ts';
import { commonPairs, sortedRows, type CompareRunRef } from '../../src/lib/views/compare.ts';
import { relationTo } from '../../src/lib/matrix-row.ts';

describe('relation of a cell to the row best', () => {
  test.each([
    [50, 40, false, false, { kind: 'ratio', ratio: 1.25 }],
    [40, 40, false, true, { kind: 'best' }],
    [40, 40, true, true, { kind: 'tie' }],
    [40, 40, true, false, { kind: 'tie' }],
    [0.5, 0, false, false, { kind: 'difference', difference: 0.5 }],
    [3, null, false, false, { kind: 'none' }],
  ] as const)('median %s vs best %s (tied %s, is best %s)', (m, best, tied, isBest, expected) => {
    expect(relationTo(m, best, tied, isBest)).toEqual(expected);
  });
});

describe('citations and code spans', () => {
  test('known keys become studies, unknown brackets stay text, backticks become code', () => {
    const parts = splitCitations('MiB/s ([kiit]) of `sysbench memory` [not-a-study]');
    expect(parts[0]).toBe('MiB/s (');
    expect(parts[1]).toMatchObject({ key: 'kiit' });
    expect(parts[2]).toBe(') of ');
    expect(parts[3]).toEqual({ code: 'sysbench memory' });
    expect(parts[4]).toBe(' [not-a-study]');
  });
});

describe('colours', () => {
  test('one fixed colour per runtime family, lighter shades for further series of it', () => {
    expect(familyColour('runc')).toBe('#0072B2');
    expect(familyColour('crun')).toBe('#E69F00');
    expect(familyColour('some-new-runtime')).toBe(familyColour('some-new-runtime'));
    // #0072B2 mixed 30 % towards white: 0 + 255·0.3 = 77 (4d), 114 + 141·0.3 = 156 (9c), 178 + 77·0.3 = 201 (c9)
    expect(shade('#0072B2', 1, 2)).toBe('#4d9cc9');
    expect(seriesColours(['runc', 'crun', 'runc'])).toEqual(['#0072B2', '#E69F00', '#4d9cc9']);
  });
});

describe('compare view', () => {
  const ref = (runId: string, startedAt: string, host: string, targets: string[]): CompareRunRef => ({
    runId,
    file: `${runId}.json`,
    startedAt,
    hostClassId: host,
    synthetic: false,
    targets: targets.map((t) => [t, t]),
  });

  test('pre-rendered pairs: newest vs previous per host class, and each target vs runc in the newest run', () => {
    const pairs = commonPairs([
      ref('r1', '2026-11-01T00:00:00Z', 'h', ['containerd/runc', 'containerd/crun']),
      ref('r2', '2026-11-02T00:00:00Z', 'h', ['containerd/crun', 'containerd/runc', 'containerd/youki']),
      ref('x1', '2026-11-02T00:00:00Z', 'other', ['a/crun']),
    ]);
    expect(pairs.map((p) => p.slug)).toEqual([
      'h/latest-vs-previous',
      'h/containerd-runc-vs-containerd-crun',
      'h/containerd-runc-vs-containerd-youki',
    ]);
    expect(pairs[0]).toMatchObject({ baseline: { runId: 'r1' }, candidate: { runId: 'r2' } });
  });

  test('the night before is an earlier run with a target in common, not another node file of the same run', () => {
    const pods = ['lab/runc', 'lab/gvisor'];
    const pairs = commonPairs([
      ref('n0', '2026-11-01T00:00:00Z', 'h', pods),
      // a CRI-level run of the node class in between: no target in common, so not "the night before"
      ref('c1', '2026-11-01T12:00:00Z', 'h', ['containerd/runc']),
      ref('n1', '2026-11-02T00:00:00Z', 'h', pods),
      ref('n2', '2026-11-02T00:00:00Z', 'h', pods),
    ]);
    expect(pairs[0]).toMatchObject({
      slug: 'h/latest-vs-previous',
      baseline: { runId: 'n0' },
      candidate: { runId: 'n2' },
    });
    // one cluster run alone has no night before
    expect(
      commonPairs([
        ref('n1', '2026-11-02T00:00:00Z', 'h', pods),
        ref('n2', '2026-11-02T00:00:00Z', 'h', pods),
      ]).map((p) => p.slug),
    ).toEqual(['h/lab-runc-vs-lab-gvisor']);
  });

  test('the night before survives a rename: it is found by lineage and the renamed target is paired with its former id', () => {
    const before = ref('r1', '2026-11-01T00:00:00Z', 'h', ['containerd-1.6/runc', 'containerd/crun']);
    const after = ref('r2', '2026-11-02T00:00:00Z', 'h', ['containerd/runc', 'containerd/crun-1.28']);
    // by id alone the two nights share nothing: no pair
    expect(commonPairs([before, after]).map((p) => p.slug)).not.toContain('h/latest-vs-previous');
    const pairs = commonPairs([
      {
        ...before,
        lineage: { 'containerd-1.6/runc': 'containerd-1.6/runc', 'containerd/crun': 'containerd/crun' },
      },
      {
        ...after,
        lineage: { 'containerd/runc': 'containerd-1.6/runc', 'containerd/crun-1.28': 'containerd/crun' },
      },
    ]);
    expect(pairs[0]).toMatchObject({
      slug: 'h/latest-vs-previous',
      baseline: { runId: 'r1' },
      candidate: {
        runId: 'r2',
        renamedFrom: { 'containerd/runc': 'containerd-1.6/runc', 'containerd/crun-1.28': 'containerd/crun' },
      },
    });
  });

  test('rows are sorted by the size of the change, metric rows before status rows', () => {
    const metric = (name: string, ratio: number | null) => ({
      kind: 'metric',
      benchmark: 'b',
      metric: name,
      ratio,
    });
    const report = {
      rows: [
        metric('small', 1.01),
        { kind: 'status', benchmark: 'a' },
        metric('halved', 0.5),
        metric('up', 1.6),
      ],
    } as never;
    expect(sortedRows(report).map((r) => (r.kind === 'metric' ? r.metric : r.kind))).toEqual([
      'halved', // |ln 0.5| = 0.69
      'up', // |ln 1.6| = 0.47
      'small',
      'status',
    ]);
  });
});
