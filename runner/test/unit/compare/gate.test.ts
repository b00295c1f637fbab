import { describe, expect, test } from 'vitest';
import type { RunResult } from '@runtime-bench/schemas';
import {
  createGateReplay,
  runGate,
  type GateMetricRow,
  type GateReport,
  type HistoryEntry,
} from '../../../src/compare/index.ts';
import { PERSISTENCE_SCALES, TREND_WEIGHT, trendAlarm } from '../../../src/stats/index.ts';
import { CPU, LIFECYCLE, night, RUNC, CRUN, syntheticRun, type SyntheticOptions } from './synthetic.ts';

const entry = (run: RunResult): HistoryEntry => ({ run, file: `${run.runId}.json` });

/** Nights first..last of an unchanged config with 3 % host drift between runs. */
function nights(first: number, last: number, extra: Partial<SyntheticOptions> = {}): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  for (let d = first; d <= last; d++)
    out.push(entry(syntheticRun({ seed: 1000 + d, startedAt: night(d), runSigma: 0.03, ...extra })));
  return out;
}

function metricRow(report: GateReport, metric: string, target = 'containerd/runc'): GateMetricRow {
  const row = report.rows.find(
    (r): r is GateMetricRow => r.kind === 'metric' && r.metric === metric && r.target === target,
  );
  if (!row) throw new Error(`no row for ${metric}`);
  return row;
}

function flagged(report: GateReport): string[] {
  return report.rows
    .filter(
      (r) => r.verdict === 'regression' || r.verdict === 'ongoing regression' || r.verdict === 'improvement',
    )
    .map((r) => `${r.kind === 'metric' ? r.metric : r.kind}:${r.verdict}`);
}

describe('partial runs in the history', () => {
  test("a target that measured nothing leaves the other targets' rows exactly as without it", () => {
    // The same seeds: the failed crun draws no samples, so runc's are identical in both histories.
    const failedCrun = { ...CRUN, status: 'failed' as const };
    const partial = nights(1, 12, { targets: [RUNC, failedCrun] });
    expect(partial.every((e) => e.run.status === 'partial')).toBe(true);
    const complete = nights(1, 12);
    const current = (targets: SyntheticOptions['targets']) =>
      entry(
        syntheticRun({
          seed: 78,
          startedAt: night(13),
          runSigma: 0.03,
          targets: targets!.map((t) => (t.id === RUNC.id ? { ...t, effect: { StartContainer: 1.3 } } : t)),
        }),
      );
    const withPartial = runGate(current([RUNC, failedCrun]), partial);
    const withComplete = runGate(current([RUNC]), complete);
    expect(flagged(withComplete)).toEqual(['StartContainer:regression']);
    for (const metric of ['CreateContainer', 'StartContainer', 'StopContainer']) {
      const { baselineRuns, verdict, pValue, change } = metricRow(withPartial, metric);
      expect({ baselineRuns, verdict, pValue, change }, metric).toEqual({
        baselineRuns: metricRow(withComplete, metric).baselineRuns,
        verdict: metricRow(withComplete, metric).verdict,
        pValue: metricRow(withComplete, metric).pValue,
        change: metricRow(withComplete, metric).change,
      });
    }
  });
});

describe('regression gate on synthetic nightly history', () => {
  const history = nights(1, 12);

  test('an unchanged run flags nothing', () => {
    const current = entry(syntheticRun({ seed: 77, startedAt: night(13), runSigma: 0.03 }));
    const report = runGate(current, history);
    expect(flagged(report)).toEqual([]);
    expect(report.counts).toMatchObject({ regression: 0, ongoing: 0, ok: 4 });
    expect(report.history).toEqual({
      files: 12,
      comparable: 12,
      otherHostClass: 0,
      notBefore: 0,
      sameRun: 0,
    });
    const row = metricRow(report, 'StartContainer');
    expect(row.baselineRuns).toHaveLength(10); // the default window
    expect(row.test).toMatch(/prediction test on log run medians \(10 runs\)/);
    expect(row.adjustedP!).toBeGreaterThanOrEqual(row.pValue!);
  });

  test('a 30 % slower StartContainer is a regression, and only that', () => {
    const current = entry(
      syntheticRun({
        seed: 78,
        startedAt: night(13),
        runSigma: 0.03,
        targets: [{ ...RUNC, effect: { StartContainer: 1.3 } }],
      }),
    );
    const report = runGate(current, history);
    expect(flagged(report)).toEqual(['StartContainer:regression']);
    const row = metricRow(report, 'StartContainer');
    expect(row.significant && row.large).toBe(true);
    expect(row.change!).toBeGreaterThan(0.15);
    expect(row.changeLower!).toBeLessThan(row.change!);
    expect(row.changeUpper!).toBeGreaterThan(row.change!);
  });

  test('direction-aware: lower throughput is a regression, higher an improvement', () => {
    const worse = entry(
      syntheticRun({
        seed: 79,
        startedAt: night(13),
        runSigma: 0.03,
        targets: [{ ...RUNC, effect: { events: 0.7 } }],
      }),
    );
    const better = entry(
      syntheticRun({
        seed: 79,
        startedAt: night(13),
        runSigma: 0.03,
        targets: [{ ...RUNC, effect: { events: 1.4 } }],
      }),
    );
    expect(flagged(runGate(worse, history))).toEqual(['events:regression']);
    expect(flagged(runGate(better, history))).toEqual(['events:improvement']);
  });

  test('significant but below the threshold is ok; a per-metric threshold changes that', () => {
    // Very quiet host: a 3 % change is clearly significant, yet below the default 5 %.
    const quiet = {
      runSigma: 0.002,
      metrics: [
        {
          benchmark: LIFECYCLE,
          name: 'StartContainer',
          unit: 'ms' as const,
          direction: 'lower' as const,
          median: 60,
          sigma: 0.005,
        },
      ],
    };
    const hist = nights(1, 12, quiet);
    const current = entry(
      syntheticRun({
        seed: 80,
        startedAt: night(13),
        ...quiet,
        targets: [{ ...RUNC, effect: { StartContainer: 1.03 } }],
      }),
    );
    const row = metricRow(runGate(current, hist), 'StartContainer');
    expect(row).toMatchObject({ significant: true, large: false, verdict: 'ok', threshold: 0.05 });
    const strict = runGate(current, hist, { thresholds: { [`${LIFECYCLE}:StartContainer`]: 0.02 } });
    expect(metricRow(strict, 'StartContainer')).toMatchObject({ verdict: 'regression', threshold: 0.02 });
    const viaAnnotations = runGate(current, hist, {
      annotations: {
        schemaVersion: 1,
        baselineResets: [],
        thresholds: { StartContainer: 2 },
        referenceHandlers: [],
      },
    });
    expect(metricRow(viaAnnotations, 'StartContainer').verdict).toBe('regression');
    // The command line beats the annotations.
    const both = runGate(current, hist, {
      thresholds: { StartContainer: 0.04 },
      annotations: {
        schemaVersion: 1,
        baselineResets: [],
        thresholds: { StartContainer: 2 },
        referenceHandlers: [],
      },
    });
    expect(metricRow(both, 'StartContainer').verdict).toBe('ok');
  });

  test('a window of K runs uses only the K latest', () => {
    const current = entry(syntheticRun({ seed: 81, startedAt: night(13), runSigma: 0.03 }));
    const row = metricRow(runGate(current, history, { window: 4 }), 'StopContainer');
    expect(row.baselineRuns).toEqual(history.slice(-4).map((h) => h.run.runId));
  });

  test('the same input gives the same report', () => {
    const current = entry(syntheticRun({ seed: 82, startedAt: night(13), runSigma: 0.03 }));
    expect(runGate(current, history)).toEqual(runGate(current, history));
  });
});

describe('ongoing regressions are not re-alerted', () => {
  const slow = { ...RUNC, effect: { StartContainer: 1.5 } };
  const history = [
    ...nights(1, 10),
    entry(syntheticRun({ seed: 2011, startedAt: night(11), runSigma: 0.03, targets: [slow] })),
    entry(syntheticRun({ seed: 2012, startedAt: night(12), runSigma: 0.03, targets: [slow] })),
  ];

  test('first night: new regression; second and third: ongoing against the same baseline', () => {
    const first = runGate(history[10]!, history);
    expect(flagged(first)).toEqual(['StartContainer:regression']);
    const second = runGate(history[11]!, history);
    expect(flagged(second)).toEqual(['StartContainer:ongoing regression']);
    const row = metricRow(second, 'StartContainer');
    expect(row.frozenFrom).toBe(history[10]!.run.runId);
    expect(row.baselineRuns).toEqual(metricRow(first, 'StartContainer').baselineRuns);
    const third = runGate(
      entry(syntheticRun({ seed: 2013, startedAt: night(13), runSigma: 0.03, targets: [slow] })),
      history,
    );
    expect(flagged(third)).toEqual(['StartContainer:ongoing regression']);
    expect(third.counts.regression).toBe(0);
  });

  test('recovery ends it: back to normal is ok, with a note', () => {
    const back = runGate(entry(syntheticRun({ seed: 2014, startedAt: night(13), runSigma: 0.03 })), history);
    expect(flagged(back)).toEqual([]);
    expect(metricRow(back, 'StartContainer').notes.join()).toMatch(/no longer a regression/);
  });

  test('without the previous run flagged, a regression is new (derived, not stored)', () => {
    // Drop night 11: night 12 is then the first slow night.
    const without = history.filter((_, i) => i !== 10);
    expect(flagged(runGate(history[11]!, without))).toEqual(['StartContainer:regression']);
  });

  test('a baseline reset accepts the change: the new level becomes the baseline', () => {
    const annotations = {
      schemaVersion: 1 as const,
      referenceHandlers: [],
      thresholds: {},
      baselineResets: [{ from: night(11), reason: 'runc upgrade accepted', target: 'containerd/runc' }],
    };
    const report = runGate(
      entry(syntheticRun({ seed: 2013, startedAt: night(13), runSigma: 0.03, targets: [slow] })),
      history,
      { annotations },
    );
    expect(flagged(report)).toEqual([]);
    expect(report.resetsApplied.map((r) => r.reason)).toEqual(['runc upgrade accepted']);
    const row = metricRow(report, 'StartContainer');
    expect(row.baselineRuns).toEqual([history[10]!.run.runId, history[11]!.run.runId]);
    expect(row.verdict).toBe('insufficient data');
    expect(row.notes.join()).toMatch(/only 2 baseline run\(s\): the gate needs 3/);
  });

  test('a reset that only names another metric or target changes nothing here', () => {
    const annotations = {
      schemaVersion: 1 as const,
      referenceHandlers: [],
      thresholds: {},
      baselineResets: [
        { from: night(11), reason: 'other metric', metric: 'StopContainer' },
        { from: night(11), reason: 'other target', target: 'containerd/crun' },
        { from: night(11), reason: 'other benchmark', benchmark: 'performance.cpu' },
      ],
    };
    const report = runGate(history[11]!, history, { annotations });
    expect(flagged(report)).toEqual(['StartContainer:ongoing regression']);
    // The performance.cpu reset did apply to its own metric: one run since, so no verdict.
    expect(metricRow(report, 'events').verdict).toBe('insufficient data');
  });

  test('a replay over the history reports every night consistently', () => {
    const replay = createGateReplay(history);
    const verdicts = history.map((h) => metricRow(replay.report(h), 'StartContainer').verdict);
    expect(verdicts.slice(0, 3)).toEqual(['no baseline', 'insufficient data', 'insufficient data']);
    expect(verdicts.slice(3, 10).every((v) => v === 'ok')).toBe(true);
    expect(verdicts.slice(10)).toEqual(['regression', 'ongoing regression']);
  });
});

describe('what is comparable', () => {
  test('other host classes are not a baseline', () => {
    const history = nights(1, 5, { host: { cpuModel: 'Other CPU' } });
    const report = runGate(entry(syntheticRun({ seed: 5, startedAt: night(6) })), history);
    expect(report.history).toMatchObject({ comparable: 0, otherHostClass: 5 });
    expect(report.counts.noBaseline).toBe(4);
  });

  test('a kernel patch release is the same host class, a new major is not', () => {
    const patch = nights(1, 5, { host: { kernel: '6.18.50' } });
    const major = nights(1, 5, { host: { kernel: '7.0.1' } });
    const current = entry(syntheticRun({ seed: 5, startedAt: night(6) }));
    expect(runGate(current, patch).history.comparable).toBe(5);
    expect(runGate(current, major).history.comparable).toBe(0);
  });

  test('same target id with another OCI runtime is not the same target; a new version is', () => {
    const crunAsRunc = nights(1, 5, { targets: [{ id: 'containerd/runc', oci: 'crun' }] });
    const current = entry(syntheticRun({ seed: 5, startedAt: night(6) }));
    expect(runGate(current, crunAsRunc).counts.noBaseline).toBe(4);
    const older = nights(1, 5, { targets: [{ ...RUNC, version: '1.1.4' }] });
    const report = runGate(current, older);
    expect(report.counts.noBaseline).toBe(0);
    expect(report.targets).toEqual([
      {
        id: 'containerd/runc',
        identity: 'containerd/runc · cri containerd · oci runc',
        versions: 'containerd 1.6.20, runc 1.1.5',
        baselineVersions: ['containerd 1.6.20, runc 1.1.4'],
      },
    ]);
  });

  test('other benchmark parameters are not a baseline', () => {
    const history = nights(1, 5, { parameters: { maxPrime: 10000 } });
    const report = runGate(
      entry(syntheticRun({ seed: 5, startedAt: night(6), parameters: { maxPrime: 20000 } })),
      history,
    );
    expect(report.counts.noBaseline).toBe(4);
  });

  test('later runs and the current run itself are not its baseline', () => {
    const history = nights(1, 6);
    const report = runGate(history[2]!, history);
    expect(report.history).toMatchObject({ comparable: 2, notBefore: 3, sameRun: 1 });
    expect(metricRow(report, 'StartContainer')).toMatchObject({ verdict: 'insufficient data', pValue: null });
  });

  test('targets are tracked separately', () => {
    const two = { targets: [RUNC, CRUN] };
    const history = nights(1, 8, two);
    const current = entry(
      syntheticRun({
        seed: 9,
        startedAt: night(9),
        runSigma: 0.03,
        targets: [RUNC, { ...CRUN, effect: { CreateContainer: 1.4 } }],
      }),
    );
    const report = runGate(current, history);
    expect(
      report.rows
        .filter((r) => r.verdict === 'regression')
        .map((r) => `${r.target}:${r.kind === 'metric' ? r.metric : r.kind}`),
    ).toEqual(['containerd/crun:CreateContainer']);
  });
});

describe('error rates and states', () => {
  const history = nights(1, 10);

  test('a rise in the error rate is a regression', () => {
    const current = entry(
      syntheticRun({ seed: 90, startedAt: night(11), runSigma: 0.03, targets: [{ ...RUNC, failed: 4 }] }),
    );
    const report = runGate(current, history);
    const errors = report.rows.filter((r) => r.kind === 'error-rate');
    expect(errors.map((r) => [r.benchmark, r.verdict])).toEqual([
      [LIFECYCLE, 'regression'],
      [CPU, 'regression'],
    ]);
    expect(errors[0]).toMatchObject({
      current: { failed: 4, attempts: 14 },
      baseline: { failed: 0, attempts: 100 },
    });
  });

  test('one failure is not significant', () => {
    const current = entry(
      syntheticRun({ seed: 91, startedAt: night(11), runSigma: 0.03, targets: [{ ...RUNC, failed: 1 }] }),
    );
    const report = runGate(current, history);
    expect(report.rows.filter((r) => r.kind === 'error-rate').map((r) => r.verdict)).toEqual(['ok', 'ok']);
  });

  test('turning unsupported after having been ok is a regression; next night it is ongoing', () => {
    const broken = { ...RUNC, status: 'unsupported' as const };
    const first = entry(syntheticRun({ seed: 92, startedAt: night(11), targets: [broken] }));
    const second = entry(syntheticRun({ seed: 93, startedAt: night(12), targets: [broken] }));
    const r1 = runGate(first, history);
    expect(r1.rows.filter((r) => r.kind === 'status').map((r) => r.verdict)).toEqual([
      'regression',
      'regression',
    ]);
    expect(r1.counts.insufficient).toBe(0);
    const r2 = runGate(second, [...history, first]);
    expect(r2.rows.filter((r) => r.kind === 'status').map((r) => r.verdict)).toEqual([
      'ongoing regression',
      'ongoing regression',
    ]);
    expect(r2.counts.regression).toBe(0);
  });

  test('never ok is not a regression', () => {
    const broken = { ...RUNC, status: 'unsupported' as const };
    const hist = nights(1, 3, { targets: [broken] });
    const report = runGate(entry(syntheticRun({ seed: 94, startedAt: night(4), targets: [broken] })), hist);
    expect(report.rows.map((r) => r.verdict)).toEqual(['no baseline', 'no baseline']);
  });

  test('invalid input options are errors', () => {
    const current = history[9]!;
    expect(() => runGate(current, history, { window: 0 })).toThrow(/window/);
    expect(() => runGate(current, history, { alpha: 1 })).toThrow(/alpha/);
  });
});

describe('false alarms on an unchanged configuration', () => {
  test('30 nights with 3 % host drift: new alarms stay within the family-wise alpha per night', () => {
    // Holm keeps P(any false flag in a run) ≤ alpha (the default 0.02) under the null; the 5 %
    // threshold only lowers it. Over 27 checked nights that allows about half a flag; the bound
    // of 3 leaves room for chance (Binomial(27, 0.02) ≥ 4 has probability 0.002) but fails a
    // gate that ignores drift.
    const history = nights(1, 30);
    const replay = createGateReplay(history);
    let tests = 0;
    let nightsWithNewAlarm = 0;
    for (const h of history.slice(3)) {
      const report = replay.report(h);
      tests += report.rows.filter((r) => r.pValue !== null).length;
      if (report.counts.regression + report.counts.improvement > 0) nightsWithNewAlarm++;
    }
    expect(tests).toBe(27 * 4);
    expect(nightsWithNewAlarm).toBeLessThanOrEqual(3);
  });

  test('the naive pooled-sample test would cry wolf on the same data (why the gate tests run medians)', async () => {
    // Guard for the design choice: with run-to-run drift, Mann-Whitney on pooled samples flags
    // many unchanged nights, so a gate built on it would fail this suite's first test.
    const { mannWhitneyU } = await import('../../../src/stats/index.ts');
    const history = nights(1, 30);
    let significant = 0;
    for (let i = 10; i < 30; i++) {
      const pick = (e: HistoryEntry): number[] => e.run.results[0]!.metrics[1]!.samples;
      const pooled = history.slice(i - 10, i).flatMap(pick);
      if (mannWhitneyU(pick(history[i]!), pooled).pValue < 0.05) significant++;
    }
    expect(significant / 20).toBeGreaterThanOrEqual(0.15); // 3× its nominal 5 %
  });
});

describe('trend alarm (a creep the rolling window absorbs)', () => {
  // Ten nights and tonight, log medians creeping about 0.7 % a night. Worked independently (Python,
  // no library): OLS slope 0.0070909, residual sd 0.0096190 (df 9), t = 7.7316, two-sided
  // p = 2.9043e-5 (t density integrated by Simpson's rule); tonight 0.07 against the mean of the
  // first five (0.006): +6.609 %.
  const ys = [0, 0.01, -0.01, 0.02, 0.01, 0.03, 0.04, 0.03, 0.05, 0.06, 0.07];

  test('tests the slope of the window and tonight, and reports tonight against the early level', () => {
    const trend = trendAlarm(ys, { threshold: 0.05, confidence: 0.95, minRuns: 3 })!;
    expect(trend.p).toBeCloseTo(2.9043e-5, 8);
    expect(trend.change).toBeCloseTo(0.0660924, 6);
    expect(trend.runs).toBe(11);
    expect(trend.lower).toBeLessThan(trend.change);
    expect(trend.upper).toBeGreaterThan(trend.change);
  });

  test('no alarm when tonight is within the threshold of the early level, or with too few nights', () => {
    expect(trendAlarm(ys, { threshold: 0.1, confidence: 0.95, minRuns: 3 })).toBeNull();
    expect(trendAlarm(ys.slice(0, 4), { threshold: 0.001, confidence: 0.95, minRuns: 3 })).toBeNull();
  });

  test('the alarm shares of alpha sum to 1 (the family-wise level holds)', () => {
    const total = PERSISTENCE_SCALES.reduce((a, s) => a + s.weight, 0) + TREND_WEIGHT;
    expect(total).toBeCloseTo(1, 12);
  });
});

describe('a renamed target keeps its history (found by what was measured, not by its label)', () => {
  const OLD = { ...RUNC, id: 'containerd-1.6/runc' };
  const history = nights(1, 12, { targets: [OLD] });

  test('the rows of the new name are checked against the old name’s nights, and say so', () => {
    const current = entry(
      syntheticRun({
        seed: 77,
        startedAt: night(13),
        runSigma: 0.03,
        targets: [{ ...RUNC, effect: { StartContainer: 1.3 } }],
      }),
    );
    const report = runGate(current, history);
    const row = metricRow(report, 'StartContainer');
    expect(row.baselineRuns).toHaveLength(10);
    expect(row.verdict).toBe('regression');
    expect(row.notes.join('\n')).toContain('earlier runs named this target containerd-1.6/runc');
    expect(flagged(report)).toEqual(['StartContainer:regression']);
  });

  test('two targets that measured the same thing in one run are never matched by it (ambiguous)', () => {
    const twins = [
      { ...RUNC, id: 'a/runc' },
      { ...RUNC, id: 'b/runc' },
    ];
    const current = entry(syntheticRun({ seed: 77, startedAt: night(13), runSigma: 0.03, targets: twins }));
    const report = runGate(current, history);
    expect(metricRow(report, 'StartContainer', 'a/runc').baselineRuns).toHaveLength(0);
    expect(metricRow(report, 'StartContainer', 'b/runc').baselineRuns).toHaveLength(0);
  });

  test('a target of another handler is not a rename', () => {
    const current = entry(
      syntheticRun({
        seed: 77,
        startedAt: night(13),
        runSigma: 0.03,
        targets: [{ ...CRUN, id: 'containerd/x' }],
      }),
    );
    const row = metricRow(runGate(current, history), 'StartContainer', 'containerd/x');
    expect(row.baselineRuns).toHaveLength(0);
  });
});
