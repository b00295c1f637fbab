// The night factor: what the metrics of one benchmark × target share each night, removed before
// their tests, and tested itself in a row of its own.
import {
  median,
  nightFactorsById,
  outlierIndices,
  resolutionOf,
  signedLogMedianTable,
} from '../../stats/index.ts';
import { canonicalJson, targetOf, thresholdFor } from '../keys.ts';
import { CHANGE_POINT_HISTORY, versionChanges } from './change-point.ts';
import type { CheckedRow } from './decide.ts';
import { metricRow, windowScale } from './metric-row.ts';
import {
  rowBase,
  versionsOf,
  type Evaluation,
  type Series,
  type SeriesPoint,
  renamedNote,
} from './series.ts';
import { referenceFactorsMemo } from './reference.ts';
import type { FactorChoice, NightFactors } from './factors.ts';
import { baselineWindow, noBaselineReason } from './window.ts';

/** Name of the row that tests a benchmark × target's night factor against the window's. */
export const NIGHT_FACTOR_METRIC = '(night factor)';

/** Fewest metrics of one benchmark × target for a night factor: a median of fewer is not robust. */
export const COMMON_MODE_MIN_METRICS = 5;

/**
 * The factor each night shares across the metrics of one benchmark × target: the column effects
 * of a median polish (stats/common-mode.ts) of the metrics' ln(night median) — negated for
 * higher-is-better metrics, so that a slower night is positive for all — over the comparable ok
 * runs (the latest CHANGE_POINT_HISTORY) and the current run. Recorded nights move together
 * (docs/calibration-log.md, "Targets of the nightly gate"), so removing it leaves a metric's own change
 * against the within-run noise. Null with fewer than COMMON_MODE_MIN_METRICS metrics in the
 * current run.
 */
export function nightFactorsOf(series: Series, runId: string): NightFactors | null {
  const { result } = series;
  if (result.status !== 'ok') return null;
  const metrics = result.metrics.filter((m) => m.samples.length > 0 && median(m.samples) > 0);
  if (metrics.length < COMMON_MODE_MIN_METRICS) return null;
  const nights = [
    ...series.points
      .filter((p) => p.result.status === 'ok')
      .slice(-CHANGE_POINT_HISTORY)
      .map((p) => ({ runId: p.run.runId, result: p.result })),
    { runId, result },
  ];
  const table = signedLogMedianTable(
    metrics.map((metric) => ({
      sign: metric.direction === 'lower' ? 1 : -1,
      nights: nights.map(
        ({ result: r }) =>
          r.metrics.find(
            (x) => x.name === metric.name && x.unit === metric.unit && x.direction === metric.direction,
          )?.samples ?? null,
      ),
    })),
  );
  return nightFactorsById(
    table,
    nights.map((n) => n.runId),
    COMMON_MODE_MIN_METRICS,
  );
}

/**
 * The night factor itself against the window's: what removing it from the metrics hides — a
 * slowdown of every metric of the target at once, or host drift — is tested here, by the same
 * prediction test, outlier rule, threshold and Holm correction as a metric (unit ratio, relative
 * to the metrics' usual levels).
 */
export function nightFactorRow(ev: Evaluation, series: Series, factors: NightFactors): CheckedRow {
  const usable = (p: SeriesPoint): boolean => p.result.status === 'ok' && factors.has(p.run.runId);
  const baseline = baselineWindow(ev, series, 'metric', NIGHT_FACTOR_METRIC, usable);
  const threshold = thresholdFor(
    series.result.benchmark,
    NIGHT_FACTOR_METRIC,
    ev.options.thresholds,
    ev.options.threshold,
  );
  const logs = baseline.eligible.map((p) => factors.get(p.run.runId)!);
  const outlierIds = new Set(
    outlierIndices(logs, { floor: Math.log1p(threshold) }).map((i) => baseline.eligible[i]!.run.runId),
  );
  const window = baseline.window.filter((p) => !outlierIds.has(p.run.runId));
  const current = [Math.exp(factors.get(ev.run.runId)!)];
  const baseSamples = window.map((p) => [Math.exp(factors.get(p.run.runId)!)]);
  const scale = windowScale(baseSamples, current[0]!, null);
  const { row, oneNight } = metricRow(
    {
      ...rowBase(series),
      frozenFrom: baseline.frozenFrom,
      notes: [renamedNote(series)].filter((n) => n !== null),
    },
    { name: NIGHT_FACTOR_METRIC, unit: 'ratio', direction: 'lower', samples: current },
    window.map((p) => p.run.runId),
    baseSamples,
    threshold,
    // One value a night has no sampling variance: the factor's own spread, nothing to moderate.
    scale && {
      scale,
      divisor: 1,
      confidence: ev.options.confidence,
      resolution: resolutionOf([...baseSamples.flat(), ...current]),
      sampling: null,
      moderation: null,
      share: 1,
    },
  );
  row.outliers = baseline.window.filter((p) => outlierIds.has(p.run.runId)).map((p) => p.run.runId);
  row.notes.push(
    `factor shared by the ${series.result.benchmark} metrics of this target each night (median polish); the metric rows are tested without it`,
  );
  if (row.outliers.length)
    row.notes.push(`one-off outlier night(s) left out of the window: ${row.outliers.join(', ')}`);
  const noBaseline =
    row.verdict === 'no baseline' ? noBaselineReason(ev, series, baseline.beforeReset) : null;
  if (noBaseline !== null) row.notes.push(noBaseline);
  return { row, noBaseline, oneNight };
}

/**
 * The target's own component changes since its window: its CRI and OCI versions tonight against
 * the last K ok nights of its series; the changes as versionChanges words them, [] when none.
 */
export function changesSinceWindow(ev: Evaluation, series: Series): string[] {
  const tonight = versionsOf(series.target);
  const differing = series.points
    .filter((p) => p.result.status === 'ok')
    .slice(-ev.options.window)
    .filter((p) => versionsOf(targetOf(p.run, p.result)) !== tonight);
  if (differing.length === 0) return [];
  const changes = versionChanges(differing.at(-1)!, { run: ev.run, result: series.result });
  return changes.length
    ? changes
    : [`${versionsOf(targetOf(differing.at(-1)!.run, differing.at(-1)!.result))} → ${tonight}`];
}

/**
 * Where each series' night factor comes from. A target whose own components did not change since
 * its window uses its own factor (the median polish of its metrics). A target whose components
 * changed must not: a release moves many of its metrics at once, which the polish would read as
 * a faster or slower night and remove from every metric. Its factor is then taken from in-run
 * controls — the same night's targets of the same benchmark whose components did not change (a
 * pinned reference handler is one) — as the median of their factors, on the nights all of them
 * have one; without a control no factor is removed and the rows say that drift could not be
 * separated. Beside that scalar factor, a target that is not itself a reference gets the run's
 * pinned reference handler (GateOptions.references), whose per-metric medians its rows divide
 * out instead wherever they cover the row's nights (metricWindow).
 */
export function chooseNightFactors(
  ev: Evaluation,
  all: readonly Series[],
  own: readonly (NightFactors | null)[],
): FactorChoice[] {
  const changes = all.map((s) => changesSinceWindow(ev, s));
  const memo = referenceFactorsMemo(ev.run.runId);
  return all.map((series, i): FactorChoice => ({
    ...scalarFactors(ev, all, own, changes, i),
    ...referenceChoice(referenceOf(ev, all, changes, i), memo),
  }));
}

/**
 * The pinned reference handler that serves `all[i]`: a target named in `references`, of the same
 * benchmark and parameters, measured ok tonight, whose own components did not change since its
 * window (a moved reference is no reference). None for a reference itself: it keeps its own factor.
 */
function referenceOf(
  ev: Evaluation,
  all: readonly Series[],
  changes: readonly string[][],
  i: number,
): Series | null {
  const series = all[i]!;
  if (!ev.options.commonMode || ev.options.references.includes(series.target.id)) return null;
  const found = all.find(
    (s, j) =>
      j !== i &&
      ev.options.references.includes(s.target.id) &&
      s.result.benchmark === series.result.benchmark &&
      s.result.status === 'ok' &&
      canonicalJson(s.result.parameters) === canonicalJson(series.result.parameters) &&
      changes[j]!.length === 0,
  );
  return found ?? null;
}

function referenceChoice(
  reference: Series | null,
  memo: ReturnType<typeof referenceFactorsMemo>,
): Pick<FactorChoice, 'reference' | 'referenceFactors'> {
  return { reference, referenceFactors: reference ? (metric) => memo(reference, metric) : null };
}

function scalarFactors(
  ev: Evaluation,
  all: readonly Series[],
  own: readonly (NightFactors | null)[],
  changes: readonly string[][],
  i: number,
): Omit<FactorChoice, 'reference' | 'referenceFactors'> {
  const series = all[i]!;
  if (changes[i]!.length === 0)
    return { factors: own[i] ?? null, source: own[i] ? 'own' : 'none', controls: [], changes: [] };
  const controls = all
    .map((s, j) => ({ s, j }))
    .filter(
      ({ s, j }) =>
        j !== i &&
        s.result.benchmark === series.result.benchmark &&
        s.target.id !== series.target.id &&
        changes[j]!.length === 0 &&
        own[j] !== null,
    );
  if (controls.length === 0) return { factors: null, source: 'none', controls: [], changes: changes[i]! };
  const maps = controls.map(({ j }) => own[j]!);
  const factors = new Map<string, number>();
  for (const runId of maps[0]!.keys())
    if (maps.every((m) => m.has(runId))) factors.set(runId, median(maps.map((m) => m.get(runId)!)));
  return {
    factors: factors.has(ev.run.runId) ? factors : null,
    source: factors.has(ev.run.runId) ? 'controls' : 'none',
    controls: [...new Set(controls.map(({ s }) => s.target.id))],
    changes: changes[i]!,
  };
}
