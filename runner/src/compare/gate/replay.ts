// The gate's entry points: one report, or many runs of one history replayed with shared work.
import { hostClassOf } from '@runtime-bench/schemas';
import { evaluate } from './evaluate.ts';
import { resolveGateOptions, type GateOptions } from './options.ts';
import { indexHistory, rowKey } from './series.ts';
import type { GateReport, HistoryEntry } from './types.ts';

/**
 * The regression gate. Each benchmark × target × metric of `current` is compared with a window
 * of the K latest comparable runs of `history` — same host class (hostClassOf), same target
 * identity (id, CRI name, OCI name; versions may differ and are reported), same benchmark
 * parameters, started after the latest applicable baseline reset.
 *
 * With at least three runs in the window the test is at run level, because nightly runs differ
 * by more than their within-run noise (host drift, neighbours): the current run's median is
 * compared with the window's run medians on a log scale by a t prediction test
 * (stats/prediction.ts), t = (ln m₀ - mean ln mᵢ) / (s · √(1 + 1/K)), with K − 1 degrees of
 * freedom, more when the spread is moderated over the target's metrics (stats/moderation.ts).
 * With one or two runs there is no estimate of that variation, so the row reports the change
 * with "insufficient data" and no verdict (a test on pooled samples would flag every drift).
 * Error rates are compared by Fisher's exact test on pooled counts, and a benchmark that turns
 * invalid / unsupported / failed after having been ok in the window is a status regression.
 *
 * All p-values of the report are Holm-adjusted together. A metric is a regression only when it
 * is significant (adjusted p < alpha) AND its change reaches the threshold AND it goes the bad
 * way for its direction.
 *
 * A regression already flagged in the previous comparable run is reported as ongoing, not as
 * new. Whether the previous run flagged it is derived by running this gate on that run against
 * the history before it — stateless and reproducible, no stored state. While flagged, a row keeps
 * the baseline window it was first flagged against, so that a lasting regression is not absorbed
 * by the rolling window the next night (which would report "ok" for a run still slower than last
 * week); it stays "ongoing" until it is no longer a regression against that window, or until a
 * baseline reset annotation starts a new baseline. Pure: no I/O.
 */
export function runGate(
  current: HistoryEntry,
  history: readonly HistoryEntry[],
  options: GateOptions = {},
): GateReport {
  return createGateReplay(history, options).report(current);
}

/** Evaluates many runs of one history with shared work (the index, earlier runs' verdicts). */
export interface GateReplay {
  /** The gate's report for `current` against the history (current need not be part of it). */
  report(current: HistoryEntry): GateReport;
}

/**
 * Prepares the gate for repeated use on one history: the history is indexed once, and the
 * verdicts of earlier runs (needed for "ongoing") are computed once, in chronological order.
 */
export function createGateReplay(history: readonly HistoryEntry[], options: GateOptions = {}): GateReplay {
  const o = resolveGateOptions(options);
  const index = indexHistory(history);
  const memo = new Map<string, GateReport>();
  const byRunId = new Map(history.map((h) => [h.run.runId, h]));
  const chronological = [...history].sort(
    (a, b) => Date.parse(a.run.startedAt) - Date.parse(b.run.startedAt),
  );

  const evaluateOne = (entry: HistoryEntry, memoize: boolean): GateReport => {
    const cached = memoize ? memo.get(entry.run.runId) : undefined;
    if (cached) return cached;
    const previousFlags = (runId: string, key: string): string[] | null => {
      if (o.scope !== 'preceding') return null;
      const prev = memo.get(runId) ?? evaluateOne(byRunId.get(runId)!, true);
      const row = prev.rows.find((r) => rowKey(r) === key);
      return row && (row.verdict === 'regression' || row.verdict === 'ongoing regression')
        ? row.baselineRuns
        : null;
    };
    const report = evaluate(entry, history, index, o, previousFlags);
    if (memoize) memo.set(entry.run.runId, report);
    return report;
  };

  return {
    report(current: HistoryEntry): GateReport {
      if (o.scope === 'preceding') {
        // Earlier runs of the same host class first, oldest first, so that "previous run" look-ups
        // hit the memo instead of recursing through the whole history.
        const hostClass = hostClassOf(current.run.host);
        const at = Date.parse(current.run.startedAt);
        for (const h of chronological)
          if (
            Date.parse(h.run.startedAt) < at &&
            h.run.runId !== current.run.runId &&
            hostClassOf(h.run.host) === hostClass
          )
            evaluateOne(h, true);
      }
      const inHistory = byRunId.get(current.run.runId)?.run === current.run;
      return evaluateOne(current, inHistory);
    },
  };
}
