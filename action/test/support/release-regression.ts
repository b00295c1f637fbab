// A release regression on real data: the gate (`runtime-bench check`'s runGate) run on the result
// files of data/, with a recorded run copied an hour later, its OCI runtime at a new version and
// one checked latency moved to twice what the row could detect above its baseline. What the tests
// expect is read from the files and from that alteration, never from the gate's own counting.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult, Target } from '@runtime-bench/schemas';
import {
  runGate,
  type GateMetricRow,
  type GateReport,
  type HistoryEntry,
} from '@runtime-bench/runner/compare';
import { readHistoryDir } from '@runtime-bench/runner/history';

export const DATA_RUNS = join(fileURLToPath(new URL('../../..', import.meta.url)), 'data', 'runs');

export interface ReleaseRegression {
  /** The altered run (the regressed night) and the runs before it. */
  run: RunResult;
  history: HistoryEntry[];
  /** The row as the gate saw it before the alteration. */
  row: GateMetricRow;
  /** The regressed target, and its OCI runtime's version before the alteration. */
  target: Target;
  oldVersion: string;
  report: GateReport;
}

export async function releaseRegression(): Promise<ReleaseRegression> {
  const { entries } = await readHistoryDir(DATA_RUNS);
  // The newest run of data/ that has a latency the gate could check over a nightly series (not a
  // quantized count; the least noisy one, as the recorded runs are few and Holm runs over every
  // row). A newest run on a new host class or with new targets has none, so look further back.
  let found: { run: RunResult; history: HistoryEntry[]; row: GateMetricRow } | undefined;
  for (let i = entries.length - 1; i >= 0 && !found; i--) {
    // A bisection's looks are no nightly: their candidate changes from look to look.
    if (entries[i]!.run.config.name.startsWith('bisect-')) continue;
    const history = entries.slice(0, i + 1);
    const run = structuredClone(entries[i]!.run);
    run.runId = `${run.runId.slice(0, 16)}-ffffffff`;
    run.startedAt = new Date(Date.parse(run.startedAt) + 3600_000).toISOString();
    const row = runGate({ run, file: 'altered.json' }, history)
      .rows.filter(
        (r): r is GateMetricRow =>
          r.kind === 'metric' &&
          r.verdict === 'ok' &&
          r.direction === 'lower' &&
          r.unit === 'ms' &&
          // A nightly series long enough to place a step in (a target with two earlier runs, as
          // a side-by-side pair's, has no change point to name).
          r.baseline.runs >= 5,
      )
      .sort((a, b) => a.detectable! - b.detectable!)[0];
    if (row) found = { run, history, row };
  }
  if (!found) throw new Error('data/ has no checkable lower-is-better metric');
  const { run, history, row } = found;
  const target = run.targets.find((t) => t.id === row.target)!;
  const oldVersion = target.oci.version;
  target.oci.version = `${oldVersion}-next`;
  for (const c of run.components) if (c.name === target.oci.name) c.version = target.oci.version;
  const result = run.results.find((r) => r.target === row.target && r.benchmark === row.benchmark)!;
  const metric = result.metrics.find((m) => m.name === row.metric)!;
  // With its components changed the target's night factor comes from the run's other targets
  // (or none), so what the row can detect is read again at the new version.
  const bumped = runGate({ run, file: 'altered.json' }, history).rows.find(
    (r) =>
      r.kind === 'metric' &&
      r.target === row.target &&
      r.benchmark === row.benchmark &&
      r.metric === row.metric,
  );
  if (!bumped || bumped.kind !== 'metric' || bumped.detectable === null)
    throw new Error('the row lost its test');
  // its median moved to twice what the row could detect above the baseline: a step the gate must flag
  const factor = ((1 + 2 * bumped.detectable) * bumped.baseline.level!) / bumped.current.median!;
  metric.samples = metric.samples.map((v) => v * factor);
  return { run, history, row, target, oldVersion, report: runGate({ run, file: 'altered.json' }, history) };
}
