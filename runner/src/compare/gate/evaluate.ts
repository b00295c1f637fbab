// One evaluation of the gate: every row of the current run against its window, decided together.
import { hostClassOf } from '@runtime-bench/schemas';
import { pooledModeration } from '../../stats/index.ts';
import { targetIdentity, targetOf } from '../keys.ts';
import { adjustAndDecide, countVerdicts, coverageOf, type CheckedRow } from './decide.ts';
import { errorRateRow } from './error-rate-row.ts';
import { metricRowOf, metricWindow, ownSpreadOf } from './metric-row.ts';
import {
  chooseNightFactors,
  COMMON_MODE_MIN_METRICS,
  nightFactorRow,
  nightFactorsOf,
} from './night-factor.ts';
import type { ResolvedGateOptions } from './options.ts';
import {
  comparableSeries,
  countHistory,
  versionsOf,
  type Evaluation,
  type HistoryIndex,
  type PreviousFlags,
} from './series.ts';
import { statusRow } from './status-row.ts';
import type { GateReport, HistoryEntry } from './types.ts';

/**
 * The gate's report on `current`: per benchmark result, its status and error-rate rows, a row
 * per metric (the night factor removed, the spreads moderated together) and the night factor's
 * own row; then Holm and the verdicts over all of them. Pure.
 */
export function evaluate(
  current: HistoryEntry,
  history: readonly HistoryEntry[],
  index: HistoryIndex,
  options: ResolvedGateOptions,
  previousFlags: PreviousFlags,
): GateReport {
  const run = current.run;
  const ev: Evaluation = {
    run,
    hostClass: hostClassOf(run.host),
    startedAt: Date.parse(run.startedAt),
    options,
    previousFlags,
    resetsApplied: new Map(),
    comparableRuns: 0,
  };
  const historyCounts = countHistory(ev, history);
  ev.comparableRuns = historyCounts.comparable;
  const checked: CheckedRow[] = [];
  const baselineVersions = new Map<string, Set<string>>();
  const allSeries = run.results.map((result) => comparableSeries(ev, index, result));
  const own = allSeries.map((series) => (options.commonMode ? nightFactorsOf(series, run.runId) : null));
  const choices = chooseNightFactors(ev, allSeries, own);
  for (const [i, series] of allSeries.entries()) {
    const result = series.result;
    const choice = choices[i]!;
    const versions = baselineVersions.get(series.target.id) ?? new Set<string>();
    for (const p of series.points) versions.add(versionsOf(targetOf(p.run, p.result)));
    baselineVersions.set(series.target.id, versions);
    const status = statusRow(ev, series);
    if (status) checked.push(status);
    const errors = errorRateRow(ev, series);
    if (errors) checked.push(errors);
    const factors = choice.factors;
    const windows = result.metrics.map((metric) => metricWindow(ev, series, metric, choice));
    // With the night factor removed, the metrics' own spreads are pooled (stats/moderation.ts)
    // before any of them is tested.
    const pooled = factors
      ? pooledModeration(
          windows.map(ownSpreadOf).filter((s) => s !== null),
          options.priorDf,
          COMMON_MODE_MIN_METRICS,
        )
      : null;
    checked.push(...windows.map((w) => metricRowOf(ev, series, w, pooled, choice)));
    // A target without earlier nights has nothing to say about its factor: no extra uncovered row.
    const ownFactors = own[i];
    const factorRow = ownFactors ? nightFactorRow(ev, series, ownFactors) : null;
    if (factorRow && factorRow.row.verdict !== 'no baseline') checked.push(factorRow);
  }
  adjustAndDecide(checked, options.alpha);
  const rows = checked.map((c) => c.row);
  return {
    kind: 'runtime-bench.check',
    current: { label: current.file, runId: run.runId, startedAt: run.startedAt, hostClass: ev.hostClass },
    history: historyCounts,
    options: {
      window: options.window,
      alpha: options.alpha,
      threshold: options.threshold,
      thresholds: options.thresholds,
      errorRateThreshold: options.errorRateThreshold,
      scope: options.scope,
    },
    resetsApplied: [...ev.resetsApplied.values()].sort((a, b) => Date.parse(a.from) - Date.parse(b.from)),
    targets: run.targets
      .filter((t) => run.results.some((r) => r.target === t.id))
      .map((t) => ({
        id: t.id,
        identity: targetIdentity(t),
        versions: versionsOf(t),
        baselineVersions: [...(baselineVersions.get(t.id) ?? [])].sort(),
      })),
    rows,
    counts: countVerdicts(rows),
    coverage: coverageOf(checked),
  };
}
