import { describe, expect, test } from 'vitest';
import { gate } from '../../src/lib/gate.ts';
import { regressionReport, REGRESSION_WINDOW, type Gate } from '../../src/lib/regressions.ts';
import { loaded, makeRun, spread } from './fixtures.ts';

const centers = [50, 50.5, 49.5, 50.2, 49.8, 50.1, 80];
const runs = loaded(
  ...centers.map((center, i) =>
    makeRun(`2026110${i + 1}T000000Z-0000000${i}`, `2026-11-0${i + 1}T00:00:00Z`, [
      { oci: 'runc', ociVersion: '1.1.5', samples: spread(center) },
    ]),
  ),
);

describe('regressionReport', () => {
  test('hands the gate the history and lists only flagged rows, newest first', () => {
    const seen: string[][] = [];
    // the real gate's report on each run, with its rows replaced by one whose verdict the test picks
    const fake: Gate = (history) => {
      seen.push(history.map((h) => h.run.runId));
      const real = gate(history);
      return (current) => {
        const report = real(current);
        const row = report.rows.find((r) => r.kind === 'metric')!;
        return {
          ...report,
          rows: [
            {
              ...row,
              verdict:
                current.run.runId.endsWith('6') || current.run.runId.endsWith('2') ? 'regression' : 'ok',
              baselineRuns: ['a', 'b'],
            },
          ],
          coverage: { rows: 3, checked: 1, notChecked: [{ reason: 'because', rows: 2 }] },
        };
      };
    };
    const report = regressionReport(runs, fake);
    expect(seen).toEqual([runs.map((r) => r.run.runId)]);
    expect(report.checkedRuns).toBe(Math.min(REGRESSION_WINDOW, runs.length));
    expect(
      report.findings.map((f) => [f.runId, f.what, f.versions, f.baselineFirst, f.baselineLast]),
    ).toEqual([
      [runs[6]!.run.runId, 'CreateContainer', 'containerd 1.7.2 · runc 1.1.5', 'a', 'b'],
      [runs[2]!.run.runId, 'CreateContainer', 'containerd 1.7.2 · runc 1.1.5', 'a', 'b'],
    ]);
    // the gate's coverage of every checked run, added up
    expect(report.coverage).toEqual({
      rows: 3 * runs.length,
      checked: runs.length,
      notChecked: [{ reason: 'because', rows: 2 * runs.length }],
    });
  });

  test('the real gate of runtime-bench check flags a 60 % slower night and nothing before it', () => {
    const report = regressionReport(runs, gate);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({
      runId: runs[6]!.run.runId,
      verdict: 'regression',
      what: 'CreateContainer',
    });
    expect(report.findings[0]!.change!).toBeGreaterThan(0.5);
    // the step is at the flagged night itself, and no component version changed there
    expect(report.findings[0]!.changePoint).toMatchObject({ runId: runs[6]!.run.runId, versionChanges: [] });
    // one row per run: the first has no earlier run, the next two fewer than 3 baseline runs
    expect(report.coverage).toEqual({
      rows: 7,
      checked: 4,
      notChecked: [
        { reason: 'fewer than 3 baseline runs', rows: 2 },
        { reason: 'no earlier run of this host class', rows: 1 },
      ],
    });
  });
});
