// Holm over every p-value of a run, the verdicts, the detectable change and the coverage summary.
import { holmAdjust, studentTQuantile } from '../../stats/index.ts';
import { RUN_LEVEL_MIN_RUNS } from './options.ts';
import type { GateCoverage, GateMetricRow, GateReport, GateRow } from './types.ts';

/** A row as its module built it, with what deciding and the coverage need beyond its JSON. */
export interface CheckedRow {
  row: GateRow;
  /** Why the row has no baseline (its verdict is 'no baseline'); null otherwise. */
  noBaseline: string | null;
  /**
   * The one-night prediction test behind a metric row: its degrees of freedom, whether it ran on
   * logs, and the share of alpha it gets (PERSISTENCE_SCALES' first weight, 1 for the night
   * factor's row); null without a run-level test.
   */
  oneNight: { df: number; logScale: boolean; share: number } | null;
}

/**
 * Holm over every p-value of this run (many metrics × targets must not produce chance alarms),
 * then the verdicts, each metric row's detectable change, and "ongoing" for rows the previous
 * run flagged. Fills the rows in place (they are this evaluation's own).
 */
export function adjustAndDecide(checked: readonly CheckedRow[], alpha: number): void {
  const tested = checked.filter((c) => c.row.pValue !== null);
  const adjusted = holmAdjust(tested.map((c) => c.row.pValue!));
  tested.forEach((c, i) => (c.row.adjustedP = adjusted[i]!));
  for (const { row, oneNight } of checked) {
    decide(row, alpha);
    if (row.kind === 'metric') row.detectable = detectableChange(row, oneNight, alpha, tested.length);
    if (row.frozenFrom === null) continue;
    if (row.verdict === 'regression') {
      row.verdict = 'ongoing regression';
      row.notes.push(
        `already flagged in ${row.frozenFrom}; compared with the baseline it was flagged against`,
      );
    } else
      row.notes.push(
        `flagged in ${row.frozenFrom}, no longer a regression against the baseline it was flagged against`,
      );
  }
}

/**
 * A metric is a regression only when it is significant (adjusted p < alpha) AND its change
 * reaches the threshold AND it goes the bad way for its direction; an error rate when its rise
 * is significant and reaches its threshold. Status rows come decided.
 */
function decide(row: GateRow, alpha: number): void {
  if (row.kind === 'status') return;
  if (row.kind === 'error-rate') {
    if (row.verdict !== 'ok' || row.adjustedP === null) return;
    const rise = row.current.rate! - row.baseline.rate!;
    if (row.adjustedP < alpha && Math.abs(rise) >= row.threshold)
      row.verdict = rise > 0 ? 'regression' : 'improvement';
    return;
  }
  if (row.pValue === null || row.adjustedP === null || row.change === null) return;
  row.significant = row.adjustedP < alpha;
  row.large = Math.abs(row.change) >= row.threshold;
  const worse = row.direction === 'lower' ? row.change > 0 : row.change < 0;
  row.verdict = row.significant && row.large ? (worse ? 'regression' : 'improvement') : 'ok';
}

/**
 * The smallest change this row could have flagged: the prediction test's critical value at the
 * strictest Holm level (its share of alpha / number of tests) times its standard error, and at
 * least the threshold. Conservative (Holm's later steps are looser). Null without a run-level
 * test.
 */
function detectableChange(
  row: GateMetricRow,
  oneNight: CheckedRow['oneNight'],
  alpha: number,
  tests: number,
): number | null {
  if (row.scale === null || oneNight === null || row.baseline.runs < RUN_LEVEL_MIN_RUNS) return null;
  const critical = studentTQuantile(1 - (alpha * oneNight.share) / (2 * Math.max(1, tests)), oneNight.df);
  const statistical = oneNight.logScale ? Math.expm1(critical * row.scale) : critical * row.scale;
  return Math.max(statistical, row.threshold);
}

/** How many rows were checked, and why the others were not. */
export function coverageOf(checked: readonly CheckedRow[]): GateCoverage {
  const notChecked = new Map<string, number>();
  let count = 0;
  for (const { row: r, noBaseline } of checked) {
    if (r.verdict !== 'no baseline' && r.verdict !== 'insufficient data') {
      count++;
      continue;
    }
    const reason =
      r.verdict === 'insufficient data'
        ? r.kind === 'metric' && r.baseline.runs > 0 && r.baseline.runs < RUN_LEVEL_MIN_RUNS
          ? `fewer than ${RUN_LEVEL_MIN_RUNS} baseline runs`
          : 'no data in the current run'
        : (noBaseline ?? 'no baseline');
    notChecked.set(reason, (notChecked.get(reason) ?? 0) + 1);
  }
  return {
    rows: checked.length,
    checked: count,
    notChecked: [...notChecked].map(([reason, rows]) => ({ reason, rows })).sort((a, b) => b.rows - a.rows),
  };
}

export function countVerdicts(rows: readonly GateRow[]): GateReport['counts'] {
  const counts = { regression: 0, ongoing: 0, improvement: 0, ok: 0, noBaseline: 0, insufficient: 0 };
  for (const r of rows) {
    if (r.verdict === 'regression') counts.regression++;
    else if (r.verdict === 'ongoing regression') counts.ongoing++;
    else if (r.verdict === 'improvement') counts.improvement++;
    else if (r.verdict === 'ok') counts.ok++;
    else if (r.verdict === 'no baseline') counts.noBaseline++;
    else counts.insufficient++;
  }
  return counts;
}
