import { describe, expect, test } from 'vitest';
import type { RunResult } from '@runtime-bench/schemas';
import {
  NIGHT_FACTOR_METRIC,
  runGate,
  type GateMetricRow,
  type GateReport,
  type HistoryEntry,
} from '../../../src/compare/index.ts';
import { lifecycleMetrics, night, RUNC, syntheticRun, type SyntheticMetric } from './synthetic.ts';

const entry = (run: RunResult): HistoryEntry => ({ run, file: `${run.runId}.json` });

// Eight lifecycle calls with 5 % within-run spread, 30 samples a night, and a host drift of
// 15 % shared by every metric of a night: the drift dwarfs a 12 % step in one metric.
const METRICS: SyntheticMetric[] = lifecycleMetrics(0.05);
const CALLS = METRICS.map((m) => m.name);
const history = Array.from({ length: 12 }, (_, i) =>
  entry(syntheticRun({ seed: 500 + i, startedAt: night(i + 1), runSigma: 0.15, n: 30, metrics: METRICS })),
);
const current = (effect: Record<string, number>, runSigma = 0.15): HistoryEntry =>
  entry(
    syntheticRun({
      seed: 99,
      startedAt: night(13),
      runSigma,
      n: 30,
      metrics: METRICS,
      targets: [{ ...RUNC, effect }],
    }),
  );
const row = (r: GateReport, metric: string): GateMetricRow =>
  r.rows.find((x): x is GateMetricRow => x.kind === 'metric' && x.metric === metric)!;
const regressions = (r: GateReport): string[] =>
  r.rows.filter((x) => x.verdict === 'regression').map((x) => (x.kind === 'metric' ? x.metric : x.kind));

describe('night factor (common-mode drift removal)', () => {
  test('a +12 % step in one metric under 15 % shared drift: flagged with the factor removed, not without', () => {
    const step = current({ StartContainer: 1.12 });
    const withFactor = runGate(step, history);
    expect(regressions(withFactor)).toEqual(['StartContainer']);
    const start = row(withFactor, 'StartContainer');
    expect(start.change!).toBeGreaterThan(0.06);
    expect(start.change!).toBeLessThan(0.2);
    expect(start.nightFactor).not.toBeNull();
    expect(start.notes.join(' ')).toMatch(/night factor .* removed before the test/);
    const without = runGate(step, history, { commonMode: false });
    expect(regressions(without)).toEqual([]);
    expect(row(without, 'StartContainer').nightFactor).toBeNull();
    expect(without.rows.some((x) => x.kind === 'metric' && x.metric === NIGHT_FACTOR_METRIC)).toBe(false);
  });

  test('an unchanged night under the same drift flags nothing; the factor row reports the drift', () => {
    const report = runGate(current({}), history);
    expect(regressions(report)).toEqual([]);
    const factor = row(report, NIGHT_FACTOR_METRIC);
    expect(factor.unit).toBe('ratio');
    expect(factor.baselineRuns).toHaveLength(10);
    expect(factor.verdict).toBe('ok');
  });

  test('every metric 40 % slower on a quiet host: absorbed from the metric rows, flagged by the night factor row', () => {
    const quiet = history.map((h, i) =>
      entry(
        syntheticRun({ seed: 500 + i, startedAt: night(i + 1), runSigma: 0.02, n: 30, metrics: METRICS }),
      ),
    );
    const all = Object.fromEntries(CALLS.map((c) => [c, 1.4]));
    const report = runGate(current(all, 0.02), quiet);
    expect(regressions(report)).toEqual([NIGHT_FACTOR_METRIC]);
    const factor = row(report, NIGHT_FACTOR_METRIC);
    expect(factor.verdict).toBe('regression');
    expect(factor.change!).toBeGreaterThan(0.3);
    expect(row(report, 'StartContainer').verdict).toBe('ok');
  });

  test('fewer than five metrics in a benchmark × target: no factor, tested as before', () => {
    const few = METRICS.slice(0, 4);
    const h = Array.from({ length: 12 }, (_, i) =>
      entry(syntheticRun({ seed: 600 + i, startedAt: night(i + 1), runSigma: 0.03, metrics: few })),
    );
    const report = runGate(
      entry(syntheticRun({ seed: 98, startedAt: night(13), runSigma: 0.03, metrics: few })),
      h,
    );
    expect(report.rows.filter((x) => x.kind === 'metric')).toHaveLength(4);
    expect(row(report, 'StartContainer').nightFactor).toBeNull();
  });
});

describe('lasting changes and the moderated spread', () => {
  test('a +7 % step in one metric under 10 % shared drift is flagged within two nights, and only that metric', () => {
    const metrics = METRICS.map((m) => ({ ...m, sigma: 0.03 }));
    const base = Array.from({ length: 12 }, (_, i) =>
      entry(syntheticRun({ seed: 700 + i, startedAt: night(i + 1), runSigma: 0.1, n: 30, metrics })),
    );
    const stepNight = (d: number): HistoryEntry =>
      entry(
        syntheticRun({
          seed: 800 + d,
          startedAt: night(d),
          runSigma: 0.1,
          n: 30,
          metrics,
          targets: [{ ...RUNC, effect: { StartContainer: 1.07 } }],
        }),
      );
    const first = runGate(stepNight(13), base);
    const second = runGate(stepNight(14), [...base, stepNight(13)]);
    const verdicts = [row(first, 'StartContainer').verdict, row(second, 'StartContainer').verdict];
    expect([
      ['regression', 'ongoing regression'],
      ['ok', 'regression'],
    ]).toContainEqual(verdicts);
    expect(regressions(first).filter((m) => m !== 'StartContainer')).toEqual([]);
    expect(regressions(second).filter((m) => m !== 'StartContainer')).toEqual([]);
    // Without the night factor the same nights are inside the 10 % drift.
    expect(row(runGate(stepNight(13), base, { commonMode: false }), 'StartContainer').verdict).toBe('ok');
  });

  test('with the night factor the one-night test uses a moderated spread with more degrees of freedom', () => {
    const report = runGate(current({}), history);
    expect(row(report, 'StartContainer').test).toMatch(
      /moderated t prediction test on log run medians \(10 runs, df 18\)/,
    );
    // d₀ estimated from the metrics' scatter (limma): also more than the test's own 9 df.
    const estimated = runGate(current({}), history, { priorDf: 'estimated' });
    const df = Number(
      /moderated t prediction test on log run medians \(10 runs, df ([\d.]+)\)/.exec(
        row(estimated, 'StartContainer').test ?? '',
      )?.[1],
    );
    expect(df).toBeGreaterThan(9);
    expect(df).not.toBe(18);
    const off = runGate(current({}), history, { priorDf: 0 });
    expect(row(off, 'StartContainer').test).toMatch(/^t prediction test on log run medians \(10 runs\)$/);
    expect(() => runGate(current({}), history, { priorDf: -1 })).toThrow(/priorDf/);
  });
});

describe('night factor at a version change: from in-run controls', () => {
  // runc 1.1.5 → 1.3.6 tonight: six calls 8 % faster, StartContainer 11 % slower, StopContainer
  // unchanged — a release moving many metrics of one target at once. crun, unchanged, ran beside
  // it every night; syntheticRun gives both targets of a run the same host drift (15 %).
  const CRUN = { id: 'containerd/crun', oci: 'crun', version: '1.8.4' };
  const release: Record<string, number> = {
    RunPodSandbox: 0.92,
    CreateContainer: 0.92,
    StartContainer: 1.11,
    StopContainer: 1,
    RemoveContainer: 0.92,
    StopPodSandbox: 0.92,
    RemovePodSandbox: 0.92,
    destroy: 0.92,
  };
  const night13 = (targets: Parameters<typeof syntheticRun>[0]['targets']): HistoryEntry =>
    entry(
      syntheticRun({ seed: 4242, startedAt: night(13), runSigma: 0.15, n: 30, metrics: METRICS, targets }),
    );
  const both = Array.from({ length: 12 }, (_, i) =>
    entry(
      syntheticRun({
        seed: 700 + i,
        startedAt: night(i + 1),
        runSigma: 0.15,
        n: 30,
        metrics: METRICS,
        targets: [RUNC, CRUN],
      }),
    ),
  );
  const runcRow = (r: GateReport, metric: string): GateMetricRow =>
    r.rows.find(
      (x): x is GateMetricRow => x.kind === 'metric' && x.metric === metric && x.target === RUNC.id,
    )!;

  test('the changed target takes its factor from the unchanged one: each change within 3 points of the release, no false regression', () => {
    const report = runGate(night13([{ ...RUNC, version: '1.3.6', effect: release }, CRUN]), both);
    for (const [metric, ratio] of Object.entries(release)) {
      const r = runcRow(report, metric);
      expect(r.factorSource, metric).toBe('controls');
      expect(r.factorControls).toEqual([CRUN.id]);
      expect(Math.abs(r.change! - (ratio - 1)), metric).toBeLessThan(0.03);
      expect(r.rawChange).not.toBeNull();
      if (ratio <= 1) expect(r.verdict, metric).not.toBe('regression');
    }
    expect(runcRow(report, 'RunPodSandbox').notes.join(' ')).toMatch(
      /unchanged targets of this run \(containerd\/crun\).*runc 1\.1\.5 → 1\.3\.6/,
    );
    // crun itself did not change: its own factor.
    const crun = report.rows.find(
      (x): x is GateMetricRow => x.kind === 'metric' && x.target === CRUN.id && x.metric === 'StartContainer',
    )!;
    expect(crun.factorSource).toBe('own');
  });

  test('a target that changed too is no control', () => {
    const report = runGate(
      night13([
        { ...RUNC, version: '1.3.6', effect: release },
        { ...CRUN, version: '1.9.0' },
      ]),
      both,
    );
    expect(runcRow(report, 'RunPodSandbox').factorSource).toBe('none');
    expect(runcRow(report, 'RunPodSandbox').notes.join(' ')).toMatch(/drift could not be separated/);
  });

  test('without a control the raw change is tested, and the row says drift could not be separated', () => {
    const alone = both.map((h) => ({
      ...h,
      run: {
        ...h.run,
        targets: h.run.targets.filter((t) => t.id === RUNC.id),
        results: h.run.results.filter((x) => x.target === RUNC.id),
      },
    }));
    const report = runGate(night13([{ ...RUNC, version: '1.3.6', effect: release }]), alone);
    const r = runcRow(report, 'RunPodSandbox');
    expect(r.factorSource).toBe('none');
    expect(r.nightFactor).toBeNull();
    expect(r.rawChange).toBeCloseTo(r.change!, 12);
    expect(r.notes.join(' ')).toMatch(/drift could not be separated/);
  });
});
