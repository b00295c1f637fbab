// The baseline window of a row: resets, the K runs the scope picks, and freezing while flagged.
import { baselineCutoff } from '../annotations.ts';
import { canonicalJson } from '../keys.ts';
import { rowKey, type Evaluation, type Series, type SeriesPoint } from './series.ts';
import type { GateRow } from './types.ts';

/** The K runs a row is compared with, and the run whose flag froze them (if any). */
export interface BaselineWindow {
  window: SeriesPoint[];
  frozenFrom: string | null;
  /** Comparable points after the latest applicable reset that pass the row's filter. */
  eligible: SeriesPoint[];
  /** Points dropped only because a baseline reset came after them. */
  beforeReset: number;
}

/**
 * The baseline window of one row: runs after the latest applicable reset, then the K of them the
 * scope picks — unless the previous run flagged this row, in which case the row keeps the window
 * it was flagged against (so a lasting regression is not absorbed into a rolling baseline and
 * stays visible as "ongoing" until it recovers or a reset says so).
 */
export function baselineWindow(
  ev: Evaluation,
  series: Series,
  kind: GateRow['kind'],
  metric: string | null,
  usable: (p: SeriesPoint) => boolean,
): BaselineWindow {
  const { options } = ev;
  const where = {
    benchmark: series.result.benchmark,
    target: series.target.id,
    hostClass: ev.hostClass,
    metric,
  };
  const reset = baselineCutoff(options.annotations.baselineResets, where, ev.run.startedAt);
  if (reset) ev.resetsApplied.set(canonicalJson(reset), reset);
  const cutoff = reset ? Date.parse(reset.from) : -Infinity;
  const usablePoints = series.points.filter(usable);
  const eligible = usablePoints.filter((p) => p.at >= cutoff);
  const beforeReset = usablePoints.length - eligible.length;
  const previous = eligible.at(-1);
  if (options.scope === 'preceding' && previous) {
    const key = rowKey({ benchmark: series.result.benchmark, targetIdentity: series.identity, kind, metric });
    const frozen = ev.previousFlags(previous.run.runId, key);
    if (frozen) {
      const ids = new Set(frozen);
      const window = eligible.filter((p) => ids.has(p.run.runId));
      if (window.length > 0) return { window, frozenFrom: previous.run.runId, eligible, beforeReset };
    }
  }
  if (options.scope === 'preceding')
    return { window: eligible.slice(-options.window), frozenFrom: null, eligible, beforeReset };
  const nearest = [...eligible]
    .sort((a, b) => Math.abs(a.at - ev.startedAt) - Math.abs(b.at - ev.startedAt))
    .slice(0, options.window)
    .sort((a, b) => a.at - b.at);
  return { window: nearest, frozenFrom: null, eligible, beforeReset };
}

/** Why a row may have no baseline; the coverage summary counts rows by these. */
export const NO_BASELINE_REASONS = {
  newHostClass: 'no earlier run of this host class',
  newSeries: 'no earlier run of this benchmark, target and parameters on this host class',
  reset: 'every earlier run is before a baseline reset',
  noData: 'no earlier ok run with this metric (unit and direction)',
} as const;

export type NoBaselineReason = (typeof NO_BASELINE_REASONS)[keyof typeof NO_BASELINE_REASONS];

/** Why a row has no baseline, for its note and the coverage summary. */
export function noBaselineReason(ev: Evaluation, series: Series, beforeReset: number): NoBaselineReason {
  if (beforeReset > 0) return NO_BASELINE_REASONS.reset;
  if (series.points.length > 0) return NO_BASELINE_REASONS.noData;
  return ev.comparableRuns > 0 ? NO_BASELINE_REASONS.newSeries : NO_BASELINE_REASONS.newHostClass;
}
