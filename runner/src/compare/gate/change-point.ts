// The latest change point of a metric's nightly series, and the component versions that changed there.
import type { BenchmarkResult, MetricResult, RunResult } from '@runtime-bench/schemas';
import { eDivisive, studentTTest } from '../../stats/index.ts';
import { targetOf } from '../keys.ts';
import { RUN_LEVEL_MIN_RUNS, type ResolvedGateOptions } from './options.ts';
import { logMedians, metricOf, type SeriesPoint } from './series.ts';
import type { GateChangePoint } from './types.ts';

/** Longest series the change-point search (O(n²) per metric) and the night factors look at. */
export const CHANGE_POINT_HISTORY = 60;

/**
 * The latest change point of the metric's series (comparable runs after the latest reset, then
 * the current run; outlier nights left out; night factors removed when the row's test removes
 * them), by E-divisive means: the night, the step with its interval, and which component
 * versions changed between the run before and the run at it.
 */
export function latestChangePoint(
  points: readonly SeriesPoint[],
  outliers: ReadonlySet<string>,
  run: RunResult,
  result: BenchmarkResult,
  metric: MetricResult,
  options: ResolvedGateOptions,
  offset: ((runId: string) => number) | null,
): GateChangePoint | null {
  if (metric.samples.length === 0) return null;
  const kept = points.filter((p) => !outliers.has(p.run.runId)).slice(-CHANGE_POINT_HISTORY);
  const runs = [...kept.map((p) => ({ run: p.run, result: p.result })), { run, result }];
  // With the night factor removed (offset), the steps are the metric's own, as in the tests.
  const logs = logMedians(
    runs.map((r, i) => (i === runs.length - 1 ? metric.samples : metricOf(kept[i]!, metric.name)!.samples)),
  )?.map((l, i) => l - (offset?.(runs[i]!.run.runId) ?? 0));
  if (!logs || logs.length < RUN_LEVEL_MIN_RUNS + 1) return null;
  const cp = eDivisive(logs, { alpha: options.changePointAlpha }).at(-1);
  if (!cp) return null;
  const [start, end] = cp.segment;
  const t = studentTTest(logs.slice(cp.index, end), logs.slice(start, cp.index), {
    confidence: options.confidence,
  });
  const at = runs[cp.index]!;
  const before = runs[cp.index - 1]!;
  return {
    runId: at.run.runId,
    startedAt: at.run.startedAt,
    nightsAgo: runs.length - 1 - cp.index,
    step: Math.expm1(t.difference),
    stepLower: Math.expm1(t.lower),
    stepUpper: Math.expm1(t.upper),
    pValue: cp.pValue,
    runsBefore: cp.index - start,
    runsAfter: end - cp.index,
    versionChanges: versionChanges(before, at),
  };
}

/**
 * "runc 1.1.5 → 1.3.6": components whose version differs between two runs (the run-level
 * components and the target's CRI and OCI runtime), so that a step is attributed to a release.
 */
export function versionChanges(
  before: { run: RunResult; result: BenchmarkResult },
  after: { run: RunResult; result: BenchmarkResult },
): string[] {
  // A run may hold several stacks (components named twice with different versions): the
  // target's own CRI and OCI versions are authoritative; other components list all versions. The
  // CRI and OCI runtimes of the run's other targets are not this row's: a crun handler added or
  // gone says nothing about a runc row.
  const versions = (r: { run: RunResult; result: BenchmarkResult }): Map<string, string> => {
    const all = new Map<string, Set<string>>();
    for (const c of r.run.components) {
      if (c.role === 'cri' || c.role === 'oci') continue;
      all.set(c.name, (all.get(c.name) ?? new Set()).add(c.version));
    }
    const out = new Map([...all].map(([name, v]) => [name, [...v].sort().join(' + ')]));
    const t = targetOf(r.run, r.result);
    out.set(t.cri.name, t.cri.version);
    out.set(t.oci.name, t.oci.version);
    return out;
  };
  const a = versions(before);
  const b = versions(after);
  const changes: string[] = [];
  for (const name of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const from = a.get(name);
    const to = b.get(name);
    if (from !== to) changes.push(`${name} ${from ?? '(none)'} → ${to ?? '(none)'}`);
  }
  return changes;
}
