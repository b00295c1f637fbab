// The gate's change points, outlier nights, zero-spread windows, coverage and thresholds
// (issue 12 items 1 and 6) on synthetic nightly histories whose steps are known by construction.
import { describe, expect, test } from 'vitest';
import type { RunResult } from '@runtime-bench/schemas';
import {
  runGate,
  type GateMetricRow,
  type GateReport,
  type HistoryEntry,
} from '../../../src/compare/index.ts';
import {
  LIFECYCLE,
  night,
  RUNC,
  syntheticRun,
  type SyntheticMetric,
  type SyntheticOptions,
} from './synthetic.ts';

const entry = (run: RunResult): HistoryEntry => ({ run, file: `${run.runId}.json` });

function nightsOf(days: number[], options: (day: number) => Partial<SyntheticOptions>): HistoryEntry[] {
  return days.map((d) =>
    entry(syntheticRun({ seed: 1000 + d, startedAt: night(d), runSigma: 0.01, ...options(d) })),
  );
}

function row(report: GateReport, metric = 'StartContainer'): GateMetricRow {
  const r = report.rows.find((x): x is GateMetricRow => x.kind === 'metric' && x.metric === metric);
  if (!r) throw new Error(`no row for ${metric}`);
  return r;
}

const days = (first: number, last: number): number[] =>
  Array.from({ length: last - first + 1 }, (_, i) => first + i);

describe('change points in check', () => {
  test('a step three nights ago is found at its run, sized, and attributed to the runc release', () => {
    // Nights 1-12 on runc 1.1.5, nights 13-15 on runc 1.3.6 with StartContainer +25 %.
    const all = nightsOf(days(1, 16), (d) =>
      d >= 13 ? { targets: [{ ...RUNC, version: '1.3.6', effect: { StartContainer: 1.25 } }] } : {},
    );
    const report = runGate(all.at(-1)!, all.slice(0, -1));
    const cp = row(report).changePoint!;
    expect(cp.runId).toBe(all[12]!.run.runId);
    expect(cp.nightsAgo).toBe(3);
    expect(cp.versionChanges).toEqual(['runc 1.1.5 → 1.3.6']);
    expect(cp.stepLower).toBeLessThan(0.25);
    expect(cp.stepUpper).toBeGreaterThan(0.25);
    expect(cp.step).toBeGreaterThan(0.15);
    // The unchanged metric has no change point.
    expect(row(report, 'CreateContainer').changePoint).toBeNull();
  });

  test('a one-off +40 % night is reported as an outlier and does not hide a later +15 % step', () => {
    const all = nightsOf(days(1, 13), (d) =>
      d === 6
        ? { targets: [{ ...RUNC, effect: { StartContainer: 1.4 } }] }
        : d === 13
          ? { targets: [{ ...RUNC, effect: { StartContainer: 1.15 } }] }
          : {},
    );
    const report = runGate(all.at(-1)!, all.slice(0, -1));
    const r = row(report);
    expect(r.verdict).toBe('regression');
    expect(r.outliers).toEqual([all[5]!.run.runId]);
    expect(r.baselineRuns).not.toContain(all[5]!.run.runId);
    expect(r.notes.join(' ')).toMatch(/outlier night/);
  });

  test('whole-millisecond medians equal on every night: a one-unit change is not p = 0', () => {
    const quantized: SyntheticMetric[] = [
      {
        benchmark: LIFECYCLE,
        name: 'StartContainer',
        unit: 'ms',
        direction: 'lower',
        median: 3,
        sigma: 0.0001,
      },
    ];
    const history = nightsOf(days(1, 10), () => ({ metrics: quantized, runSigma: 0 })).map((h) => ({
      ...h,
      run: roundSamples(h.run, 0),
    }));
    const current = entry(
      roundSamples(
        syntheticRun({
          seed: 5,
          startedAt: night(11),
          metrics: quantized,
          targets: [{ ...RUNC, effect: { StartContainer: 4 / 3 } }],
        }),
        0,
      ),
    );
    const r = row(runGate(current, history));
    expect(r.current.median).toBe(4);
    expect(r.baseline.level).toBeCloseTo(3, 12);
    // Spread floored at the rounding sd 1/√12 ms: t ≈ ln(4/3) / (0.096 · √1.1) ≈ 2.9, p ≈ 0.02
    // (without the floor the spread is 0 or a rounding residue and p is 0 or astronomically small).
    expect(r.pValue!).toBeGreaterThan(0.005);
    expect(r.pValue!).toBeLessThan(0.05);
    expect(r.notes.join(' ')).toMatch(/resolution/);
  });
});

function roundSamples(run: RunResult, digits: number): RunResult {
  return {
    ...run,
    results: run.results.map((res) => ({
      ...res,
      metrics: res.metrics.map((m) => ({ ...m, samples: m.samples.map((v) => Number(v.toFixed(digits))) })),
    })),
  };
}

describe('coverage and thresholds', () => {
  test('a run on a new host class says how many rows had no baseline and why', () => {
    const history = nightsOf(days(1, 5), () => ({}));
    const current = entry(syntheticRun({ seed: 9, startedAt: night(6), host: { cpuModel: 'Another CPU' } }));
    const report = runGate(current, history);
    expect(report.coverage).toEqual({
      rows: 4,
      checked: 0,
      notChecked: [{ reason: 'no earlier run of this host class', rows: 4 }],
    });
  });
  test('fewer than three baseline runs are counted with that reason', () => {
    const history = nightsOf(days(1, 2), () => ({}));
    const current = entry(syntheticRun({ seed: 9, startedAt: night(3) }));
    expect(runGate(current, history).coverage.notChecked).toEqual([
      { reason: 'fewer than 3 baseline runs', rows: 4 },
    ]);
  });
  test('every tested row carries what it could have detected, at least its threshold', () => {
    const all = nightsOf(days(1, 11), () => ({}));
    const r = row(runGate(all.at(-1)!, all.slice(0, -1)));
    expect(r.detectable!).toBeGreaterThanOrEqual(r.threshold);
    expect(r.detectable!).toBeLessThan(1);
  });
  test('an infinite threshold is refused', () => {
    const all = nightsOf(days(1, 4), () => ({}));
    expect(() => runGate(all.at(-1)!, all.slice(0, -1), { threshold: Infinity })).toThrow(/finite/);
    expect(() =>
      runGate(all.at(-1)!, all.slice(0, -1), { thresholds: { StartContainer: Infinity } }),
    ).toThrow(/StartContainer/);
  });
});
