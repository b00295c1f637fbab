// The metric row: one metric of the current run against its window by the prediction test,
// with one-off outlier nights left out, the night factor divided out, and persistence.
import type { MetricResult } from '@runtime-bench/schemas';
import { formatChange } from '../../format/index.ts';
import {
  mean,
  meanLogMedianVariance,
  median,
  outlierIndices,
  persistence,
  PERSISTENCE_SCALES,
  predictionScale,
  predictionTest,
  resolutionOf,
  type Moderation,
  type OwnSpread,
  type PredictionScale,
} from '../../stats/index.ts';
import { thresholdFor } from '../keys.ts';
import { latestChangePoint } from './change-point.ts';
import type { CheckedRow } from './decide.ts';
import type { FactorChoice } from './factors.ts';
import { RUN_LEVEL_MIN_RUNS } from './options.ts';
import {
  logMedians,
  metricOf,
  rowBase,
  type Evaluation,
  type Series,
  type SeriesPoint,
  renamedNote,
} from './series.ts';
import type { GateMetricRow, GateRowBase } from './types.ts';
import { baselineWindow, noBaselineReason, type BaselineWindow } from './window.ts';

/** What a window's run medians and the current median are divided by (the night factors). */
export interface Divisors {
  window: number[];
  current: number;
}

/**
 * The prediction test's scale for the nights' samples of a window and tonight's median, with the
 * night factors divided out; null without a current median or below RUN_LEVEL_MIN_RUNS nights
 * (one or two runs cannot tell a change from run-to-run drift).
 */
export function windowScale(
  baseSamples: readonly (readonly number[])[],
  current: number | null,
  divisors: Divisors | null,
): PredictionScale | null {
  if (current === null || baseSamples.length < RUN_LEVEL_MIN_RUNS) return null;
  const medians = baseSamples.map((s, i) => median(s) / (divisors?.window[i] ?? 1));
  return predictionScale(medians, divisors ? current / divisors.current : current);
}

/** The one-night test of a row: its scale and what the test needs beyond it. */
export interface RowTest {
  scale: PredictionScale;
  /** Tonight's divisor (1 without a night factor): the level is reported at tonight's factor. */
  divisor: number;
  confidence: number;
  resolution: number | null;
  sampling: number | null;
  moderation: Moderation | null;
  /** The one-night test's share of alpha. */
  share: number;
}

/**
 * A metric row of the report: the prediction test when `test` is given, else (one or two
 * baseline runs) the change against the pooled median with no verdict.
 */
export function metricRow(
  base: Pick<GateRowBase, 'benchmark' | 'target' | 'targetIdentity' | 'frozenFrom' | 'notes'> & {
    adjustedP: null;
  },
  metric: Pick<MetricResult, 'name' | 'unit' | 'direction' | 'samples'>,
  baselineRuns: string[],
  baseSamples: readonly (readonly number[])[],
  threshold: number,
  test: RowTest | null,
): { row: GateMetricRow; oneNight: CheckedRow['oneNight'] } {
  const samples = metric.samples;
  const pooled = baseSamples.flat();
  const row: GateMetricRow = {
    ...base,
    kind: 'metric',
    metric: metric.name,
    unit: metric.unit,
    direction: metric.direction,
    baselineRuns,
    current: { n: samples.length, median: samples.length ? median(samples) : null },
    baseline: { runs: baseSamples.length, n: pooled.length, level: null },
    change: null,
    changeLower: null,
    changeUpper: null,
    pValue: null,
    test: null,
    scale: null,
    threshold,
    significant: false,
    large: false,
    detectable: null,
    outliers: [],
    changePoint: null,
    nightFactor: null,
    persistence: 1,
    verdict: baseSamples.length === 0 ? 'no baseline' : 'insufficient data',
    rawChange: null,
    factorSource: 'none',
    factorControls: [],
  };
  const m0 = row.current.median;
  if (m0 === null || baseSamples.length === 0) return { row, oneNight: null };
  if (test) {
    const t = predictionTest(test.scale, test);
    const k = test.scale.values.length;
    // Expressed at tonight's factor, so that current / level − 1 is the change.
    row.baseline.level = t.level * test.divisor;
    row.scale = t.se;
    row.test = `${t.moderated ? 'moderated ' : ''}t prediction test on ${t.logScale ? 'log ' : ''}run medians (${k} runs${t.moderated ? `, df ${Math.round(t.df)}` : ''})`;
    if (t.floored)
      row.notes.push(
        `run medians vary less than the values' resolution (${test.resolution}): spread floored`,
      );
    row.pValue = t.p;
    row.change = t.change;
    row.changeLower = t.lower;
    row.changeUpper = t.upper;
    if (!t.logScale && t.change !== null) row.notes.push('non-positive values: linear scale');
    if (t.logScale)
      row.rawChange = Math.expm1(Math.log(m0) - mean(baseSamples.map((x) => Math.log(median(x)))));
    return { row, oneNight: { df: t.df, logScale: t.logScale, share: test.share } };
  }
  // One or two baseline runs cannot tell a change from run-to-run drift (a pooled-sample test
  // would call every drift significant): report the change, give no verdict.
  row.baseline.level = median(pooled);
  if (row.baseline.level > 0) row.change = row.rawChange = m0 / row.baseline.level - 1;
  row.notes.push(
    `only ${baseSamples.length} baseline run(s): the gate needs ${RUN_LEVEL_MIN_RUNS} to tell a change from run-to-run variation`,
  );
  return { row, oneNight: null };
}

/** One metric's window, before its test: what the moderation pools and the test reads. */
export interface MetricWindow {
  metric: MetricResult;
  baseline: BaselineWindow;
  threshold: number;
  /** ln of tonight's night factor when it applies (every night of the window has one). */
  nightFactor: number | null;
  /** The factor is the reference handler's median of this metric (FactorChoice.reference). */
  byReference: boolean;
  /** What a night's median is divided by: e^(±factor) when the factor applies, else 1. */
  divisor: (runId: string) => number;
  /** ln(run median / divisor) of the eligible nights; null when a median is not positive. */
  eligibleLogs: number[] | null;
  outlierIds: Set<string>;
  /** The window without its outlier nights. */
  window: SeriesPoint[];
  scale: PredictionScale | null;
  /** Mean sampling variance of ln(median) of the window's nights (log-scale tests only). */
  sampling: number | null;
}

/**
 * The window of one metric: its baseline window, one-off outlier nights left out (one +40 %
 * night would otherwise inflate the run-to-run spread and hide a later step; they are reported,
 * not silently dropped), and the night factor, removed only when every night involved has one:
 * the reference handler's own median of this metric where the choice has a reference covering
 * tonight and the window, else the choice's factors.
 */
export function metricWindow(
  ev: Evaluation,
  series: Series,
  metric: MetricResult,
  choice: Pick<FactorChoice, 'factors' | 'referenceFactors'>,
): MetricWindow {
  const usable = (p: SeriesPoint): boolean => {
    if (p.result.status !== 'ok') return false;
    const m = metricOf(p, metric.name);
    return !!m && m.samples.length > 0 && m.unit === metric.unit && m.direction === metric.direction;
  };
  const baseline = baselineWindow(ev, series, 'metric', metric.name, usable);
  const threshold = thresholdFor(
    series.result.benchmark,
    metric.name,
    ev.options.thresholds,
    ev.options.threshold,
  );
  const covers = (f: ReadonlyMap<string, number> | null | undefined): f is ReadonlyMap<string, number> =>
    !!f && f.has(ev.run.runId) && baseline.window.every((p) => f.has(p.run.runId));
  const reference = choice.referenceFactors?.(metric) ?? null;
  const byReference = covers(reference?.factors);
  const factors = byReference ? reference!.factors : choice.factors;
  const sign = metric.direction === 'lower' ? 1 : -1;
  const applies = covers(factors);
  const current = applies ? factors.get(ev.run.runId) : undefined;
  const divisor = (runId: string): number => (applies ? Math.exp(sign * (factors.get(runId) ?? 0)) : 1);
  const eligibleLogs = logMedians(baseline.eligible.map((p) => metricOf(p, metric.name)!.samples))?.map(
    (l, i) => l - Math.log(divisor(baseline.eligible[i]!.run.runId)),
  );
  const outlierIds = new Set(
    eligibleLogs
      ? outlierIndices(eligibleLogs, { floor: Math.log1p(threshold) }).map(
          (i) => baseline.eligible[i]!.run.runId,
        )
      : [],
  );
  const window = baseline.window.filter((p) => !outlierIds.has(p.run.runId));
  const baseSamples = window.map((p) => metricOf(p, metric.name)!.samples);
  const scale = windowScale(
    baseSamples,
    metric.samples.length ? median(metric.samples) : null,
    applies ? { window: window.map((p) => divisor(p.run.runId)), current: divisor(ev.run.runId) } : null,
  );
  const own = scale?.logScale ? meanLogMedianVariance(baseSamples) : null;
  // Divided by the reference's median, a night carries the reference's sampling noise too.
  const added =
    byReference && window.length
      ? window.reduce((a, p) => a + (reference!.sampling.get(p.run.runId) ?? 0), 0) / window.length
      : 0;
  return {
    metric,
    baseline,
    threshold,
    nightFactor: current ?? null,
    byReference,
    divisor,
    eligibleLogs: eligibleLogs ?? null,
    outlierIds,
    window,
    scale,
    sampling: own === null ? null : own + added,
  };
}

/** The own spread a window adds to the pooled moderation: log-scale tests with the night factor removed. */
export function ownSpreadOf(w: MetricWindow): OwnSpread | null {
  if (w.nightFactor === null || !w.scale?.logScale || w.sampling === null) return null;
  return { own: w.scale.spread, sampling: w.sampling, df: w.scale.values.length - 1 };
}

/** The metric's row: the one-night test, the night factor, outliers, persistence, change point. */
export function metricRowOf(
  ev: Evaluation,
  series: Series,
  w: MetricWindow,
  pooled: Moderation | null,
  choice: FactorChoice,
): CheckedRow {
  const { metric, baseline, threshold, outlierIds, window } = w;
  const baseSamples = window.map((p) => metricOf(p, metric.name)!.samples);
  const moderation = w.nightFactor !== null ? pooled : null;
  const { row, oneNight } = metricRow(
    {
      ...rowBase(series),
      frozenFrom: baseline.frozenFrom,
      notes: [renamedNote(series)].filter((n) => n !== null),
    },
    metric,
    window.map((p) => p.run.runId),
    baseSamples,
    threshold,
    w.scale && {
      scale: w.scale,
      divisor: w.divisor(ev.run.runId),
      confidence: ev.options.confidence,
      resolution: resolutionOf([...baseSamples.flat(), ...metric.samples]),
      sampling: w.sampling,
      moderation,
      share: PERSISTENCE_SCALES[0]!.weight,
    },
  );
  if (w.nightFactor !== null && row.scale !== null && w.byReference) {
    row.nightFactor = Math.expm1(w.nightFactor);
    row.factorSource = 'reference';
    row.factorControls = [choice.reference!.target.id];
    row.notes.push(
      `divided by the reference handler's ${metric.name} the same night (${choice.reference!.target.id}, ${formatChange(Math.expm1(w.nightFactor))} against its usual level): what the night did to this call is removed, the reference's sampling noise counted${choice.changes.length ? `; this target's components changed since its window (${choice.changes.join(', ')})` : ''}`,
    );
  } else if (w.nightFactor !== null && row.scale !== null) {
    row.nightFactor = Math.expm1(w.nightFactor);
    row.factorSource = choice.source;
    if (choice.source === 'controls') {
      row.factorControls = choice.controls;
      row.notes.push(
        `night factor ${formatChange(Math.expm1(w.nightFactor))} from the unchanged targets of this run (${choice.controls.join(', ')}) removed before the test: this target's components changed since its window (${choice.changes.join(', ')})`,
      );
    } else
      row.notes.push(
        `night factor ${formatChange(Math.expm1(w.nightFactor))} (shared by the ${series.result.benchmark} metrics of this target) removed before the test`,
      );
  } else if (choice.source === 'none' && choice.changes.length > 0 && row.scale !== null)
    row.notes.push(
      `components changed since the window (${choice.changes.join(', ')}) and no unchanged target of this benchmark ran beside it: host drift could not be separated, the raw change is tested`,
    );
  row.outliers = baseline.window.filter((p) => outlierIds.has(p.run.runId)).map((p) => p.run.runId);
  if (row.outliers.length)
    row.notes.push(`one-off outlier night(s) left out of the window: ${row.outliers.join(', ')}`);
  const noBaseline =
    row.verdict === 'no baseline' ? noBaselineReason(ev, series, baseline.beforeReset) : null;
  if (noBaseline !== null) row.notes.push(noBaseline);
  if (baseline.frozenFrom === null && w.eligibleLogs && oneNight && row.current.median! > 0)
    applyPersistence(ev, w, row, oneNight.logScale ? w.sampling : null, moderation);
  row.changePoint = latestChangePoint(
    baseline.eligible,
    outlierIds,
    ev.run,
    series.result,
    metric,
    ev.options,
    w.nightFactor !== null ? (runId) => Math.log(w.divisor(runId)) : null,
  );
  return { row, noBaseline, oneNight };
}

/** Persistence (stats/persistence.ts) on the eligible nights without outliers, then tonight. */
function applyPersistence(
  ev: Evaluation,
  w: MetricWindow,
  row: GateMetricRow,
  sampling: number | null,
  moderation: Moderation | null,
): void {
  const { baseline, outlierIds, metric } = w;
  const kept = baseline.eligible.filter((p) => !outlierIds.has(p.run.runId));
  const keptLogs = w.eligibleLogs!.filter((_, i) => !outlierIds.has(baseline.eligible[i]!.run.runId));
  const currentLog = Math.log(row.current.median! / w.divisor(ev.run.runId));
  const values = [
    ...kept.slice(-ev.options.window - 1).map((p) => metricOf(p, metric.name)!.samples),
    metric.samples,
  ].flat();
  const lasting = persistence(keptLogs, currentLog, row.pValue!, {
    threshold: w.threshold,
    window: ev.options.window,
    minRuns: RUN_LEVEL_MIN_RUNS,
    confidence: ev.options.confidence,
    resolution: resolutionOf(values),
    sampling,
    moderation,
  });
  row.pValue = lasting.p;
  const d = lasting.decided;
  if (!d) return;
  row.change = d.change;
  row.changeLower = d.lower;
  row.changeUpper = d.upper;
  if (d.by === 'trend') {
    row.test = `t test of the slope of the log run medians over the last ${d.runs} nights (tonight included); change: tonight against the first ${Math.floor((d.runs - 1) / 2)} of them`;
    row.notes.push(`trend: tonight is the end of a steady drift over ${d.runs} nights`);
    return;
  }
  row.persistence = d.nights;
  row.test = `t test of the mean of the last ${d.nights} nights against the ${d.runs} before them (log run medians); change: tonight against those ${d.runs}`;
  row.notes.push(`lasting change: each of the last ${d.nights} nights beyond half the threshold`);
}
