// The history as series (one per benchmark × target identity × parameters) and what every row
// of one evaluation shares.
import {
  hostClassOf,
  type BenchmarkResult,
  type MetricResult,
  type RunResult,
  type Target,
} from '@runtime-bench/schemas';
import { median } from '../../stats/index.ts';
import type { BaselineReset } from '../annotations.ts';
import { canonicalJson, targetIdentity, targetOf } from '../keys.ts';
import type { ResolvedGateOptions } from './options.ts';
import type { GateReport, GateRow, GateRowBase, HistoryEntry } from './types.ts';

/** One benchmark result of one run of the history: a point of a series. */
export interface SeriesPoint {
  run: RunResult;
  result: BenchmarkResult;
  at: number;
  hostClass: string;
}

/** Results of the history by benchmark × target identity × parameters, oldest first. */
export type HistoryIndex = Map<string, SeriesPoint[]>;

function seriesKey(run: RunResult, result: BenchmarkResult): string {
  return `${result.benchmark}\u0000${targetIdentity(targetOf(run, result))}\u0000${canonicalJson(result.parameters)}`;
}

export function indexHistory(history: readonly HistoryEntry[]): HistoryIndex {
  const index: HistoryIndex = new Map();
  for (const { run } of history) {
    const hostClass = hostClassOf(run.host);
    const at = Date.parse(run.startedAt);
    for (const result of run.results) {
      const key = seriesKey(run, result);
      const list = index.get(key) ?? [];
      list.push({ run, result, at, hostClass });
      index.set(key, list);
    }
  }
  for (const list of index.values()) list.sort((a, b) => a.at - b.at);
  return index;
}

/** Given a previous run id and a row key: that run's baseline window if it flagged the row. */
export type PreviousFlags = (runId: string, key: string) => string[] | null;

/** What every row of one evaluation shares: the current run and the options. */
export interface Evaluation {
  run: RunResult;
  hostClass: string;
  startedAt: number;
  options: ResolvedGateOptions;
  previousFlags: PreviousFlags;
  /** Baseline resets that applied to some row, by canonical JSON. */
  resetsApplied: Map<string, BaselineReset>;
  /** Earlier runs of the same host class, whatever they measured. */
  comparableRuns: number;
}

/** One benchmark result of the current run and its comparable history. */
export interface Series {
  result: BenchmarkResult;
  target: Target;
  identity: string;
  /** Every comparable result of this benchmark × target × parameters, oldest first. */
  points: SeriesPoint[];
}

/** How the history files relate to the current run (for the report's headline). */
export function countHistory(ev: Evaluation, history: readonly HistoryEntry[]): GateReport['history'] {
  const counts = { files: history.length, comparable: 0, otherHostClass: 0, notBefore: 0, sameRun: 0 };
  for (const h of history) {
    if (h.run.runId === ev.run.runId) counts.sameRun++;
    else if (hostClassOf(h.run.host) !== ev.hostClass) counts.otherHostClass++;
    else if (ev.options.scope === 'preceding' && Date.parse(h.run.startedAt) >= ev.startedAt)
      counts.notBefore++;
    else counts.comparable++;
  }
  return counts;
}

export function comparableSeries(ev: Evaluation, index: HistoryIndex, result: BenchmarkResult): Series {
  const target = targetOf(ev.run, result);
  const points = (index.get(seriesKey(ev.run, result)) ?? []).filter(
    (p) =>
      p.run.runId !== ev.run.runId &&
      p.hostClass === ev.hostClass &&
      (ev.options.scope !== 'preceding' || p.at < ev.startedAt),
  );
  return { result, target, identity: targetIdentity(target), points };
}

export function metricOf(p: SeriesPoint, name: string): MetricResult | undefined {
  return p.result.metrics.find((m) => m.name === name);
}

/** The fields every row of a series starts with. */
export function rowBase(
  series: Series,
): Pick<GateRowBase, 'benchmark' | 'target' | 'targetIdentity'> & { adjustedP: null } {
  return {
    benchmark: series.result.benchmark,
    target: series.target.id,
    targetIdentity: series.identity,
    adjustedP: null,
  };
}

/** A row's identity across runs (for "flagged in the previous run"). */
export function rowKey(row: {
  benchmark: string;
  targetIdentity: string;
  kind: GateRow['kind'];
  metric?: string | null;
}): string {
  return `${row.benchmark}\u0000${row.targetIdentity}\u0000${row.kind}\u0000${row.kind === 'metric' ? row.metric : ''}`;
}

/** "containerd 1.6.20, runc 1.1.5": the versions a target ran with. */
export function versionsOf(t: Target): string {
  return `${t.cri.name} ${t.cri.version}, ${t.oci.name} ${t.oci.version}`;
}

/** ln of each night's median; null when one is not positive. */
export function logMedians(samples: readonly (readonly number[])[]): number[] | null {
  const medians = samples.map((s) => median(s));
  return medians.every((m) => m > 0) ? medians.map(Math.log) : null;
}
