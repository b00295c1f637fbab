import { describe, expect, test } from 'vitest';
import type { RunResult } from '@runtime-bench/schemas';
import {
  parseAnnotations,
  runGate,
  type GateMetricRow,
  type GateReport,
  type HistoryEntry,
} from '../../../src/compare/index.ts';
import { formatNightFactor } from '../../../src/compare/format.ts';
import {
  CRUN,
  lifecycleMetrics,
  night,
  RUNC,
  syntheticRun,
  type SyntheticMetric,
  type SyntheticTarget,
} from './synthetic.ts';

// A pinned reference handler beside the nightly targets. Every night the host drifts by 15 %
// (all calls of all targets) and each call by a further 6 % of its own, the same for every target
// of the night (one call slower tonight for every runtime); within a night a call scatters by
// 2 %. A target's own night factor removes the 15 %, not the 6 %: a +10 % step in one call is
// lost in it. Divided by the reference's same call the same night, both are removed.
const REF: SyntheticTarget = { id: 'containerd/runc-1.2.6', oci: 'runc', version: '1.2.6' };
const METRICS: SyntheticMetric[] = lifecycleMetrics(0.02);
const CALLS = METRICS.map((m) => m.name);
const entry = (run: RunResult): HistoryEntry => ({ run, file: `${run.runId}.json` });
const nightOf = (day: number, seed: number, targets: SyntheticTarget[]): HistoryEntry =>
  entry(
    syntheticRun({
      seed,
      startedAt: night(day),
      runSigma: 0.15,
      metricSigma: 0.06,
      n: 30,
      metrics: METRICS,
      targets,
    }),
  );
const history = Array.from({ length: 12 }, (_, i) => nightOf(i + 1, 900 + i, [RUNC, CRUN, REF]));
const tonight = (targets: SyntheticTarget[]): HistoryEntry => nightOf(13, 4343, targets);
const rowOf = (r: GateReport, target: string, metric: string): GateMetricRow =>
  r.rows.find((x): x is GateMetricRow => x.kind === 'metric' && x.target === target && x.metric === metric)!;
const regressions = (r: GateReport): string[] =>
  r.rows
    .filter((x) => x.verdict === 'regression')
    .map((x) => `${x.target} ${x.kind === 'metric' ? x.metric : x.kind}`);
const references = [REF.id];

describe('gate: the pinned reference handler divides out each call’s night', () => {
  test('a +10 % step under 6 % per-call drift: flagged at +10 % with the reference, lost in the drift without', () => {
    const step = tonight([{ ...RUNC, effect: { StartContainer: 1.1 } }, CRUN, REF]);
    const withReference = runGate(step, history, { references });
    expect(regressions(withReference)).toEqual([`${RUNC.id} StartContainer`]);
    const start = rowOf(withReference, RUNC.id, 'StartContainer');
    // The injected step is the expectation; only the 2 % within-night scatter of two medians of
    // 30 (the target's and the reference's) and of the window's mean remains around it.
    expect(Math.abs(start.change! - 0.1)).toBeLessThan(0.03);
    expect(start.factorSource).toBe('reference');
    expect(start.factorControls).toEqual([REF.id]);
    expect(start.notes.join(' ')).toMatch(/divided by the reference handler's StartContainer/);
    expect(formatNightFactor(start)).toMatch(/\(reference: containerd\/runc-1\.2\.6\)$/);
    // The reference itself keeps its own factor.
    expect(rowOf(withReference, REF.id, 'StartContainer').factorSource).toBe('own');

    const own = runGate(step, history);
    expect(regressions(own)).toEqual([]);
    expect(rowOf(own, RUNC.id, 'StartContainer').factorSource).toBe('own');
  });

  test('an unchanged night flags nothing; every other target’s rows are relative to the reference', () => {
    const report = runGate(tonight([RUNC, CRUN, REF]), history, { references });
    expect(regressions(report)).toEqual([]);
    for (const metric of CALLS) {
      const r = rowOf(report, CRUN.id, metric);
      expect(r.factorSource, metric).toBe('reference');
      // Nothing changed but the night: within the scatter of medians of 30 at 2 %.
      expect(Math.abs(r.change!), metric).toBeLessThan(0.03);
    }
  });

  test('one target 20 % faster does not make another one slower (the reference is not a peer)', () => {
    const report = runGate(tonight([{ ...RUNC, effect: { StartContainer: 0.8 } }, CRUN, REF]), history, {
      references,
    });
    expect(regressions(report)).toEqual([]);
    expect(Math.abs(rowOf(report, CRUN.id, 'StartContainer').change!)).toBeLessThan(0.03);
    expect(rowOf(report, RUNC.id, 'StartContainer').verdict).toBe('improvement');
  });

  test('a reference whose version moved is no reference that night', () => {
    const report = runGate(tonight([RUNC, CRUN, { ...REF, version: '1.2.7' }]), history, { references });
    expect(rowOf(report, RUNC.id, 'StartContainer').factorSource).toBe('own');
    expect(rowOf(report, CRUN.id, 'StartContainer').factorSource).toBe('own');
  });

  test('a target whose version changed is read against the reference too', () => {
    const report = runGate(
      tonight([
        { ...RUNC, version: '1.3.6', effect: { StartContainer: 1.1, RunPodSandbox: 0.9 } },
        CRUN,
        REF,
      ]),
      history,
      { references },
    );
    const start = rowOf(report, RUNC.id, 'StartContainer');
    expect(start.factorSource).toBe('reference');
    expect(start.notes.join(' ')).toMatch(/runc 1\.1\.5 → 1\.3\.6/);
    expect(Math.abs(start.change! - 0.1)).toBeLessThan(0.03);
    expect(Math.abs(rowOf(report, RUNC.id, 'RunPodSandbox').change! + 0.1)).toBeLessThan(0.03);
    expect(regressions(report)).toEqual([`${RUNC.id} StartContainer`]);
  });

  test('the history’s annotations name the reference as well as --reference does', () => {
    const annotations = parseAnnotations(
      JSON.stringify({ schemaVersion: 1, referenceHandlers: [REF.id] }),
      'annotations.json',
    );
    const report = runGate(tonight([{ ...RUNC, effect: { StartContainer: 1.1 } }, CRUN, REF]), history, {
      annotations,
    });
    expect(rowOf(report, RUNC.id, 'StartContainer').factorSource).toBe('reference');
    expect(regressions(report)).toEqual([`${RUNC.id} StartContainer`]);
    expect(() => parseAnnotations('{"schemaVersion": 1, "referenceHandlers": [""]}', 'a.json')).toThrow(
      /referenceHandlers/,
    );
  });
});
