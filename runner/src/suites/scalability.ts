import type { ScalabilityParameters } from '@runtime-bench/schemas';
import type { BenchmarkDefinition } from '@runtime-bench/schemas';
import { errorMessage, InterruptedError } from '../errors.ts';
import { quantile } from '../stats/descriptive.ts';
import { containerConfig, discardPod, podConfig, timed } from './pods.ts';
import type { Benchmark, BenchmarkContext, IterationOutcome } from './types.ts';

/** The container counts of TouchStone's Scalability5/10/50; one benchmark name each. */
export const SCALABILITY_COUNTS = [5, 10, 50] as const;
export const MODES = ['serial', 'parallel'] as const;
export type Mode = (typeof MODES)[number];

export const SUFFIXES = [
  'start_all',
  'destroy_all',
  'start_latency_median',
  'start_latency_p90',
  'start_latency_max',
] as const;
export const metricName = (mode: Mode, suffix: (typeof SUFFIXES)[number]): string => `${mode}_${suffix}`;

/**
 * Runs `task` over `items` with at most `limit` in flight; resolves when all settled. Results in item
 * order. A limit of 1 is strictly serial.
 */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { status: 'fulfilled', value: await task(items[i]!, i) };
      } catch (reason) {
        results[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

interface Started {
  podId: string;
  containerId: string;
}

/** Start: RunPodSandbox + CreateContainer + StartContainer of one pod; its latency is the sum. */
async function startOne(
  ctx: BenchmarkContext,
  params: ScalabilityParameters,
  n: number,
  i: number,
): Promise<{ started: Started; ms: number }> {
  if (ctx.signal.aborted) throw new InterruptedError();
  const pod = podConfig(ctx, `scale${n}`);
  let podId: string | undefined;
  try {
    const { value, ms } = await timed(async () => {
      podId = await ctx.cri.runPodSandbox(pod, ctx.target.handler);
      ctx.tracker.addPod(podId);
      const containerId = await ctx.cri.createContainer(
        podId,
        containerConfig(ctx, `sleeper-${i}`, params.command),
        pod,
      );
      await ctx.cri.startContainer(containerId);
      return { podId, containerId };
    });
    return { started: value, ms };
  } catch (error) {
    if (podId) await discardPod(ctx, podId);
    throw error;
  }
}

/** Destroy: StopContainer + RemoveContainer + StopPodSandbox + RemovePodSandbox of one pod. */
async function destroyOne(ctx: BenchmarkContext, s: Started): Promise<void> {
  await ctx.cri.stopContainer(s.containerId, 0);
  await ctx.cri.removeContainer(s.containerId);
  await ctx.cri.stopPodSandbox(s.podId);
  await ctx.cri.removePodSandbox(s.podId);
  ctx.tracker.podRemoved(s.podId);
}

export function firstRejection(
  results: PromiseSettledResult<unknown>[],
): { count: number; message: string } | null {
  const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected.length === 0) return null;
  if (rejected.some((r) => r.reason instanceof InterruptedError)) throw new InterruptedError();
  return { count: rejected.length, message: errorMessage(rejected[0]!.reason) };
}

/** One mode of one iteration: start all N, then destroy all N. */
async function runMode(
  ctx: BenchmarkContext,
  params: ScalabilityParameters,
  n: number,
  mode: Mode,
): Promise<{ values: Record<string, number>; failure?: string }> {
  const limit = mode === 'serial' ? 1 : params.concurrency;
  const t0 = process.hrtime.bigint();
  const starts = await pool(
    Array.from({ length: n }, (_, i) => i),
    limit,
    (i) => startOne(ctx, params, n, i),
  );
  const startAll = Number(process.hrtime.bigint() - t0) / 1e9;
  const started = starts.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const t1 = process.hrtime.bigint();
  const destroys = await pool(started, limit, (s) => destroyOne(ctx, s.started));
  const destroyAll = Number(process.hrtime.bigint() - t1) / 1e9;
  // Whatever failed to destroy is left to the tracker; an interruption wins over everything.
  const startFailure = firstRejection(starts);
  const destroyFailure = firstRejection(destroys);
  return modeValues(mode, n, {
    startAll,
    destroyAll,
    latencies: started.map((s) => s.ms),
    startFailure,
    destroyFailure,
  });
}

/** What one mode of one iteration measured, before it becomes metric values. */
export interface ModeMeasurement {
  /** seconds until every start had settled */
  startAll: number;
  /** seconds until every destroy had settled */
  destroyAll: number;
  /** ms per started container */
  latencies: number[];
  startFailure: { count: number; message: string } | null;
  destroyFailure: { count: number; message: string } | null;
}

/** The metric values of one mode (and its failure): shared by the CRI-level and the pod-level benchmark. */
export function modeValues(
  mode: Mode,
  n: number,
  m: ModeMeasurement,
): { values: Record<string, number>; failure?: string } {
  const { startAll, destroyAll, latencies, startFailure, destroyFailure } = m;
  const values: Record<string, number> = {};
  if (latencies.length > 0) {
    values[metricName(mode, 'start_latency_median')] = quantile(latencies, 0.5);
    values[metricName(mode, 'start_latency_p90')] = quantile(latencies, 0.9);
    values[metricName(mode, 'start_latency_max')] = Math.max(...latencies);
  }
  // A total over N containers is only a total when all N started (resp. were destroyed).
  if (!startFailure) values[metricName(mode, 'start_all')] = startAll;
  if (!startFailure && !destroyFailure) values[metricName(mode, 'destroy_all')] = destroyAll;
  const failure = startFailure
    ? `${startFailure.count} of ${n} pods did not start: ${startFailure.message}`
    : destroyFailure
      ? `${destroyFailure.count} of ${n} pods were not destroyed: ${destroyFailure.message}`
      : undefined;
  return failure ? { values, failure } : { values };
}

export function scalabilityDefinition(n: number): BenchmarkDefinition {
  return {
    name: `scalability.runtime.${n}`,
    description: `${n} pods with one long-running container each: all started (RunPodSandbox + CreateContainer + StartContainer), then all destroyed, once one after the other (serial, TouchStone's Scalability${n}) and once with up to \`concurrency\` in flight (parallel, as the kubelet starts pods). Per-container start latencies are summarised per repetition (median, p90, max).`,
    origin: ['touchstone'],
    metrics: MODES.flatMap((mode) => [
      {
        name: metricName(mode, 'start_all'),
        unit: 's' as const,
        direction: 'lower' as const,
        description: `${mode}: time until all ${n} containers were started`,
      },
      {
        name: metricName(mode, 'destroy_all'),
        unit: 's' as const,
        direction: 'lower' as const,
        description: `${mode}: time until all ${n} pods were stopped and removed`,
      },
      {
        name: metricName(mode, 'start_latency_median'),
        unit: 'ms' as const,
        direction: 'lower' as const,
        description: `${mode}: median start latency of one container in this repetition`,
      },
      {
        name: metricName(mode, 'start_latency_p90'),
        unit: 'ms' as const,
        direction: 'lower' as const,
        description: `${mode}: 90th percentile start latency in this repetition`,
      },
      {
        name: metricName(mode, 'start_latency_max'),
        unit: 'ms' as const,
        direction: 'lower' as const,
        description: `${mode}: slowest container start in this repetition`,
      },
    ]),
  };
}

export function scalabilityBenchmark(n: number): Benchmark<ScalabilityParameters> {
  return {
    definition: scalabilityDefinition(n),
    parameters: (config) => config.parameters['scalability.runtime'],
    iterate: (ctx, params) => eachMode(params.modes, (mode) => runMode(ctx, params, n, mode)),
  };
}

/**
 * One iteration over the modes: their values together; a failed mode's missing metrics get its
 * failure as their error, and the first failure is the iteration's.
 */
export async function eachMode(
  modes: readonly Mode[],
  run: (mode: Mode) => Promise<{ values: Record<string, number>; failure?: string }>,
): Promise<IterationOutcome> {
  const values: Record<string, number> = {};
  const errors: Record<string, string> = {};
  let failure: string | undefined;
  for (const mode of modes) {
    const r = await run(mode);
    Object.assign(values, r.values);
    if (r.failure) {
      failure ??= `${mode}: ${r.failure}`;
      for (const s of SUFFIXES) if (!(metricName(mode, s) in values)) errors[metricName(mode, s)] = r.failure;
    }
  }
  return failure ? { values, errors, failure } : { values, errors };
}

export const scalabilityBenchmarks = SCALABILITY_COUNTS.map(scalabilityBenchmark);
