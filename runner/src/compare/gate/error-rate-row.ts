// The error-rate row: failed / attempted measured runs against the window's, by Fisher's exact test.
import { errorCounts, errorRatePValue } from '../two-sample.ts';
import type { CheckedRow } from './decide.ts';
import { rowBase, type Evaluation, type Series } from './series.ts';
import { baselineWindow, noBaselineReason } from './window.ts';

/** The window's pooled counts against the current run's; null when neither has a failure. */
export function errorRateRow(ev: Evaluation, series: Series): CheckedRow | null {
  const { result } = series;
  if (result.status === 'interrupted') return null;
  const { window, frozenFrom } = baselineWindow(
    ev,
    series,
    'error-rate',
    null,
    (p) => p.result.status !== 'interrupted' && p.result.attempts > 0,
  );
  const baseline = errorCounts(
    window.reduce((sum, p) => sum + p.result.failedAttempts, 0),
    window.reduce((sum, p) => sum + p.result.attempts, 0),
  );
  const current = errorCounts(result.failedAttempts, result.attempts);
  if (baseline.failed === 0 && current.failed === 0) return null;
  const pValue = errorRatePValue(baseline, current);
  const noBaseline = window.length === 0 ? noBaselineReason(ev, series, 0) : null;
  return {
    row: {
      ...rowBase(series),
      kind: 'error-rate',
      baselineRuns: window.map((p) => p.run.runId),
      frozenFrom,
      pValue,
      verdict: window.length === 0 ? 'no baseline' : pValue === null ? 'insufficient data' : 'ok',
      current,
      baseline,
      threshold: ev.options.errorRateThreshold,
      notes: noBaseline === null ? [] : [noBaseline],
    },
    noBaseline,
    oneNight: null,
  };
}
