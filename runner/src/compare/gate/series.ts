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
import { canonicalJson, measuredIdentity, targetIdentity, targetOf } from '../keys.ts';
import type { ResolvedGateOptions } from './options.ts';
import type { GateReport, GateRow, GateRowBase, HistoryEntry } from './types.ts';

/** One benchmark result of one run of the history: a point of a series. */
export interface SeriesPoint {
  run: RunResult;
  result: BenchmarkResult;
  at: number;
  hostClass: string;
}

/**
 * Results of the history by benchmark × target identity × parameters, oldest first; and, under
 * keys of their own, by benchmark × measured identity × parameters for the targets whose measured
 * identity is unique in their run (the fallback for a renamed target).
 */
export type HistoryIndex = Map<string, SeriesPoint[]>;

function seriesKey(run: RunResult, result: BenchmarkResult): string {
  return `${result.benchmark}\u0000${targetIdentity(targetOf(run, result))}\u0000${canonicalJson(result.parameters)}`;
}

/** The measured-identity key of a result, or null when another target of its run measured the same. */
function measuredKey(run: RunResult, result: BenchmarkResult): string | null {
  const identity = measuredIdentity(targetOf(run, result));
  if (run.targets.filter((t) => measuredIdentity(t) === identity).length !== 1) return null;
  return `measured\u0000${result.benchmark}\u0000${identity}\u0000${canonicalJson(result.parameters)}`;
}

export function indexHistory(history: readonly HistoryEntry[]): HistoryIndex {
  const index: HistoryIndex = new Map();
  for (const { run } of history) {
    const hostClass = hostClassOf(run.host);
    const at = Date.parse(run.startedAt);
    for (const result of run.results) {
      for (const key of [seriesKey(run, result), measuredKey(run, result)]) {
        if (key === null) continue;
        const list = index.get(key) ?? [];
        list.push({ run, result, at, hostClass });
        index.set(key, list);
      }
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
  /**
   * The earlier target ids the points were found under when none had this target's id: history
   * followed by what was measured across a rename (empty when the id matched).
   */
  renamedFrom: string[];
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
  const comparable = (key: string | null): SeriesPoint[] =>
    (key === null ? [] : (index.get(key) ?? [])).filter(
      (p) =>
        p.run.runId !== ev.run.runId &&
        p.hostClass === ev.hostClass &&
        (ev.options.scope !== 'preceding' || p.at < ev.startedAt),
    );
  const points = comparable(seriesKey(ev.run, result));
  if (points.length > 0) return { result, target, identity: targetIdentity(target), points, renamedFrom: [] };
  // No earlier run under this id: the same thing measured under another name is its history.
  const renamed = comparable(measuredKey(ev.run, result));
  const renamedFrom = [...new Set(renamed.map((p) => p.result.target))].filter((id) => id !== target.id);
  return { result, target, identity: targetIdentity(target), points: renamed, renamedFrom };
}

/** The note a row of a renamed target's series carries, or null. */
export function renamedNote(series: Series): string | null {
  return series.renamedFrom.length > 0
    ? `history followed by what was measured: earlier runs named this target ${series.renamedFrom.join(', ')}`
    : null;
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
