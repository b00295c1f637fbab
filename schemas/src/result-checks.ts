// Consistency checks of a result that its shape alone cannot express. Each is a zod refinement
// (the shape of the document is unchanged) whose issue names the field: `validate`, `data verify`,
// `publish`, the gate and the site all read results through RunResultSchema, so a file that
// contradicts itself is refused everywhere, before it can reach the data branch.
import type { z } from 'zod';
import { UnitSchema, type Unit } from './common.ts';
import { finishedRunStatus, PARTIAL_STATUS_SINCE, partialReason, type RunStatus } from './run-status.ts';
import type { Summary } from './summary.ts';

/**
 * Units of magnitudes (durations, rates, sizes, counts), where a negative value is a measuring
 * error: every unit but `ratio`, which may be a signed relative change.
 */
export const NON_NEGATIVE_UNITS: ReadonlySet<Unit> = new Set(UnitSchema.options.filter((u) => u !== 'ratio'));

type Ctx = z.core.$RefinementCtx<unknown>;

function issue(ctx: Ctx, path: PropertyKey[], message: string): void {
  ctx.addIssue({ code: 'custom', path, message });
}

/** Samples that cannot be negative in their unit: the first offending index is named. */
export function checkSampleSigns(metric: { unit: Unit; samples: readonly number[] }, ctx: Ctx): void {
  if (!NON_NEGATIVE_UNITS.has(metric.unit)) return;
  const bad = metric.samples.findIndex((v) => v < 0);
  if (bad >= 0)
    issue(
      ctx,
      ['samples', bad],
      `${metric.samples[bad]} is negative, but a value in ${metric.unit} cannot be`,
    );
}

/** A metric's per-source sample counts, when it has them, add up to its samples. */
export function checkSourceCounts(
  metric: { samples: readonly number[]; sources?: Record<string, number> | undefined },
  ctx: Ctx,
): void {
  if (!metric.sources) return;
  const counted = Object.values(metric.sources).reduce((a, b) => a + b, 0);
  if (counted !== metric.samples.length)
    issue(
      ctx,
      ['sources'],
      `the sources count ${counted} samples, but the metric has ${metric.samples.length}`,
    );
}

/** Hyndman & Fan type 7 on sorted values: the definition SummarySchema documents. */
function quantile7(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const a = sorted[lo]!;
  return a + (h - lo) * (sorted[Math.ceil(h)]! - a);
}

/**
 * The stored summary recomputed from the samples (sorted, as the runner sums them) and compared
 * with a relative tolerance of 1e-9 of the largest magnitude, which absorbs summation order but
 * not a wrong number (a median of 1e9 for samples of 60–110).
 */
export function checkSummary(samples: readonly number[], summary: Summary | null, ctx: Ctx): void {
  if (summary === null || summary.n !== samples.length || samples.length === 0) return;
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  let sum = 0;
  for (const v of sorted) sum += v;
  const mean = sum / n;
  let squares = 0;
  for (const v of sorted) squares += (v - mean) ** 2;
  const expected: Omit<Summary, 'n'> = {
    median: quantile7(sorted, 0.5),
    mean,
    stdev: n < 2 ? null : Math.sqrt(squares / (n - 1)),
    min: sorted[0]!,
    max: sorted[n - 1]!,
    p90: quantile7(sorted, 0.9),
    p99: quantile7(sorted, 0.99),
  };
  const scale = Math.max(Math.abs(sorted[0]!), Math.abs(sorted[n - 1]!), Number.MIN_VALUE);
  for (const key of Object.keys(expected) as (keyof typeof expected)[]) {
    const want = expected[key];
    const got = summary[key];
    const agrees = want === null || got === null ? want === got : Math.abs(want - got) <= 1e-9 * scale;
    if (!agrees)
      issue(
        ctx,
        ['summary', key],
        `${got} contradicts the samples, which give ${want} (the summary is computed from samples)`,
      );
  }
}

/** The first index of each value seen again, as [index, first index]. */
function repeats<T>(items: readonly T[], key: (item: T) => string): [number, number][] {
  const first = new Map<string, number>();
  const out: [number, number][] = [];
  items.forEach((item, i) => {
    const k = key(item);
    const seen = first.get(k);
    if (seen === undefined) first.set(k, i);
    else out.push([i, seen]);
  });
  return out;
}

/**
 * Entries that must be unique within a list (in results, and handlers in a config): each repeat
 * is named with the entry it repeats.
 */
export function checkUnique<T>(
  items: readonly T[],
  key: (item: T) => string,
  path: (i: number) => PropertyKey[],
  what: (item: T) => string,
  list: string,
  ctx: Ctx,
): void {
  for (const [i, first] of repeats(items, key))
    issue(ctx, path(i), `${what(items[i]!)} repeats ${list}[${first}]; list each once`);
}

/** `yyyymmddThhmmssZ` of an ISO date-time, in UTC: how a run id starts. */
export function runIdStamp(isoDateTime: string): string {
  return new Date(isoDateTime)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** A run id is made from its start time, and a run cannot finish before it started. */
export function checkRunTimes(run: { runId: string; startedAt: string; finishedAt: string }, ctx: Ctx): void {
  const started = Date.parse(run.startedAt);
  const finished = Date.parse(run.finishedAt);
  if (finished < started)
    issue(ctx, ['finishedAt'], `${run.finishedAt} is before startedAt ${run.startedAt}`);
  const stamp = run.runId.slice(0, run.runId.indexOf('-'));
  if (stamp !== runIdStamp(run.startedAt))
    issue(
      ctx,
      ['runId'],
      `its timestamp ${stamp} disagrees with startedAt ${run.startedAt} (${runIdStamp(run.startedAt)}); a run id is made from the start time`,
    );
}

/**
 * A run's status agrees with its results (run-status.ts): from schemaVersion 6 a run that went to
 * its end is partial exactly when some benchmark × target measured nothing; an older file cannot
 * say partial (its writers never did) and may say complete of such a run (readers correct it).
 */
export function checkRunStatus(
  run: {
    schemaVersion: number;
    status: RunStatus;
    results: readonly { benchmark: string; target: string; status: string }[];
  },
  ctx: Ctx,
): void {
  if (run.status === 'incomplete') return;
  if (run.schemaVersion < PARTIAL_STATUS_SINCE) {
    if (run.status === 'partial')
      issue(
        ctx,
        ['status'],
        `"partial" is a status of schemaVersion ${PARTIAL_STATUS_SINCE} and later; this file says schemaVersion ${run.schemaVersion}`,
      );
    return;
  }
  const expected = finishedRunStatus(run.results);
  if (run.status === expected) return;
  issue(
    ctx,
    ['status'],
    expected === 'partial'
      ? `${partialReason(run.results)}: a run that went to its end without measuring every benchmark × target is partial, not complete`
      : 'a partial run names a benchmark × target that measured nothing (status failed), and this one has none',
  );
}
