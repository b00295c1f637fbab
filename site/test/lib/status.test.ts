// The home page's status per host class, on the real gate of runtime-bench check.
import { expect, test } from 'vitest';
import { NO_BASELINE_REASONS } from '@runtime-bench/runner/compare';
import { gate } from '../../src/lib/gate.ts';
import { changePointView } from '../../src/lib/views/change-point.ts';
import { nightlyStatus } from '../../src/lib/views/status.ts';
import { loaded, makeRun, spread } from './fixtures.ts';

const night = (d: number) => `2026-11-${String(d).padStart(2, '0')}T03:00:00Z`;
const run = (d: number, targets: { oci: string; samples: number[]; ociVersion?: string }[], host = {}) =>
  makeRun(
    `202611${String(d).padStart(2, '0')}T030000Z-000000${String(d).padStart(2, '0')}`,
    night(d),
    targets.map((t) => ({ ociVersion: '1', ...t })),
    host,
  );

test('the first run of a host class: no row checked, and the gate says why', () => {
  const [status] = nightlyStatus(loaded(run(1, [{ oci: 'runc', samples: spread(50) }])), gate);
  expect(status!.latest.runId).toBe('20261101T030000Z-00000001');
  // one benchmark with one metric: one row, not checked for want of any earlier run
  expect(status!.report.coverage).toEqual({
    rows: 1,
    checked: 0,
    notChecked: [{ reason: NO_BASELINE_REASONS.newHostClass, rows: 1 }],
  });
});

test('a target that is new tonight is named as the reason; the old one has a (short) baseline', () => {
  const runs = loaded(
    run(1, [{ oci: 'runc', samples: spread(50) }]),
    run(2, [
      { oci: 'runc', samples: spread(50) },
      { oci: 'crun', samples: spread(40) },
    ]),
  );
  const [status] = nightlyStatus(runs, gate);
  expect(status!.latest.runId).toBe('20261102T030000Z-00000002');
  expect(status!.report.coverage.checked).toBe(0);
  expect(status!.report.coverage.notChecked).toEqual(
    expect.arrayContaining([
      { reason: NO_BASELINE_REASONS.newSeries, rows: 1 },
      { reason: 'fewer than 3 baseline runs', rows: 1 },
    ]),
  );
});

test('a step at a runc release: the flagged row carries the night, the step and "runc 1.1.5 → 1.3.6"', () => {
  // eight nights at 50 ms on runc 1.1.5, then 80 ms from night 9 on, when runc became 1.3.6
  const centers = [50, 50.5, 49.5, 50.2, 49.8, 50.1, 50.3, 49.9, 80, 80.5, 79.6];
  const runs = loaded(
    ...centers.map((c, i) =>
      run(i + 1, [{ oci: 'runc', ociVersion: i >= 8 ? '1.3.6' : '1.1.5', samples: spread(c) }]),
    ),
  );
  // expected step: geometric means of the nightly medians after / before (spread(c) has median c)
  const gm = (xs: number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
  for (const nights of [9, 11]) {
    const [status] = nightlyStatus(runs.slice(0, nights), gate);
    const flagged = nights === 9 ? status!.regressions : status!.ongoing;
    expect(flagged).toHaveLength(1);
    const row = flagged[0]!;
    if (row.kind !== 'metric') throw new Error('expected a metric row');
    const view = changePointView(row.changePoint)!;
    expect(view.runId).toBe(runs[8]!.run.runId);
    expect(view.versions).toBe('runc 1.1.5 → 1.3.6');
    expect(view.night).toContain('2026-11-09');
    const expected = gm(centers.slice(8, nights)) / gm(centers.slice(0, 8)) - 1;
    const shown = Number(/^\+([\d.]+) %/.exec(view.step)![1]) / 100;
    expect(Math.abs(shown - expected)).toBeLessThan(0.0011);
    expect(status!.report.coverage).toEqual({ rows: 1, checked: 1, notChecked: [] });
  }
});
