import type { CpuScalingParameters, CpuTimeLimitParameters } from '@runtime-bench/schemas';
import { CriCallError, GrpcStatus } from '../cri/types.ts';
import { errorMessage, InterruptedError } from '../errors.ts';
import { parseSysbenchCpu, sysbenchCpuArgs } from '../sysbench/parse.ts';
import { sleep } from '../util/exec.ts';
import { withCgroupCpu, parseCgroupCpu, splitCgroupCpu } from './cgroup-cpu.ts';
import { errorsFor, metricNames, withPod } from './kit.ts';
import { awaitCompletion, containerConfig, runToCompletion, timed } from './pods.ts';
import type { Benchmark, BenchmarkContext, IterationOutcome } from './types.ts';
import { waitFor, WaitTimeoutError } from '../util/wait.ts';

const sysbenchFixedWork = (p: { maxPrime: number; events: number }): string[] => [
  '/bin/sysbench',
  ...sysbenchCpuArgs({ maxPrime: p.maxPrime, threads: 1, timeSeconds: 0, events: p.events }, 'events'),
];

export const cpuTimeLimitBenchmark: Benchmark<CpuTimeLimitParameters> = {
  definition: {
    name: 'limits.cpu.time',
    description:
      "sysbench cpu, a fixed number of events on one thread, in a container under a CFS quota (default 10 % of one CPU, TouchStone's HardLimit). The time to finish shows how faithfully the runtime enforces the quota and how much of it the runtime itself consumes (gVisor's Sentry and Gofer count against the container's cgroup). The container's cgroup counters (read inside it after the work: throttled periods and time, CPU used) show the kernel enforcing the quota, independent of host load.",
    origin: ['touchstone'],
    metrics: [
      {
        name: 'total_time',
        unit: 's',
        direction: 'lower',
        description: 'sysbench total time under the quota',
      },
      {
        name: 'events_per_second',
        unit: 'events/s',
        direction: 'higher',
        description: 'sysbench events per second under the quota',
      },
      {
        name: 'throttled_periods',
        unit: 'count',
        direction: 'lower',
        description:
          "CFS periods in which the quota throttled the container (its cgroup's cpu.stat nr_throttled)",
      },
      {
        name: 'throttled_time',
        unit: 'ms',
        direction: 'lower',
        description: 'total time the container spent throttled (cpu.stat throttled_time / throttled_usec)',
      },
      {
        name: 'periods',
        unit: 'count',
        direction: 'lower',
        description: 'CFS periods in which the container was runnable (cpu.stat nr_periods)',
      },
      {
        name: 'cpu_usage',
        unit: 'ms',
        direction: 'lower',
        description: "CPU time the container's cgroup used (cpuacct.usage / cpu.stat usage_usec)",
      },
    ],
  },
  parameters: (config) => config.parameters['limits.cpu.time'],
  iterate: (ctx, params) =>
    withPod(ctx, 'cpu-limit', metricNames(cpuTimeLimitBenchmark.definition), async (pod) => {
      const container = containerConfig(
        ctx,
        'sysbench-cpu-limited',
        withCgroupCpu(sysbenchFixedWork(params)),
        {
          linux: { resources: { cpuPeriod: params.cpuPeriodMicros, cpuQuota: params.cpuQuotaMicros } },
        },
      );
      // Under a quota the work takes period/quota times longer than unlimited (≈1600 events/s here).
      const expectedMs = ((params.events / 100) * 1000 * params.cpuPeriodMicros) / params.cpuQuotaMicros;
      const { stdout } = await runToCompletion(ctx, pod, container, expectedMs);
      const { workload, counters } = splitCgroupCpu(stdout);
      const r = parseSysbenchCpu(workload);
      const values: Record<string, number> = {
        total_time: r.totalTimeSeconds,
        events_per_second: r.eventsPerSecond,
      };
      const errors: Record<string, string> = {};
      const cgroupMetrics = ['throttled_periods', 'throttled_time', 'periods', 'cpu_usage'];
      try {
        // Not every runtime shows the container its own cgroup (gVisor has its own): then the
        // sysbench numbers stand alone and the counters say why they are missing.
        const c = parseCgroupCpu(counters ?? '');
        Object.assign(values, {
          throttled_periods: c.throttledPeriods,
          throttled_time: c.throttledMs,
          periods: c.periods,
        });
        if (c.usageMs !== null) values.cpu_usage = c.usageMs;
        else errors.cpu_usage = 'the container shows no CPU usage counter in its cgroup';
      } catch (error) {
        Object.assign(errors, errorsFor(cgroupMetrics, errorMessage(error)));
      }
      return { values, errors };
    }),
};

/** The quota (µs) of each ramp step: from start% to end% of the period in `steps` equal steps. */
export function rampQuotas(
  p: Pick<CpuScalingParameters, 'cpuPeriodMicros' | 'startPercent' | 'endPercent' | 'steps'>,
): number[] {
  return Array.from({ length: p.steps }, (_, i) =>
    Math.round(
      (p.cpuPeriodMicros * (p.startPercent + ((p.endPercent - p.startPercent) * (i + 1)) / p.steps)) / 100,
    ),
  );
}

/**
 * Whether an UpdateContainerResources error is the runtime refusing the operation as such
 * (gVisor: "not implemented"; gRPC UNIMPLEMENTED) rather than one attempt going wrong.
 */
export function isRefusal(error: unknown): boolean {
  if (error instanceof CriCallError && error.grpcCode === GrpcStatus.UNIMPLEMENTED) return true;
  return /not implemented|unimplemented|not supported|does not support/i.test(errorMessage(error));
}

/** How long a runtime may take to report a container exited after saying it is not running. */
const EXIT_REPORT_GRACE_MS = 10_000;

/**
 * Whether a failed update met a workload that had already finished. The runtime (runc under
 * CRI-O) can answer "container not running" before the CRI reports the container exited — CRI-O
 * learns of the exit from conmon a moment later — so that answer waits, bounded, for the exit to
 * be reported; any other error is judged on one status read.
 */
async function workloadFinished(ctx: BenchmarkContext, id: string, error: unknown): Promise<boolean> {
  const exited = async (): Promise<boolean> =>
    (await ctx.cri.containerStatus(id).catch(() => null))?.state === 'CONTAINER_EXITED';
  if (!/\bnot running\b/i.test(errorMessage(error))) return exited();
  try {
    await waitFor(async () => ((await exited()) ? true : null), {
      what: `container ${id} reported exited after "not running"`,
      timeoutMs: EXIT_REPORT_GRACE_MS,
      intervalMs: 100,
      signal: ctx.signal,
    });
    return true;
  } catch (waitError) {
    if (waitError instanceof WaitTimeoutError) return false;
    throw waitError;
  }
}

export const cpuScalingBenchmark: Benchmark<CpuScalingParameters> = {
  definition: {
    name: 'limits.cpu.scaling',
    description:
      "sysbench cpu (fixed work) starts under a CFS quota of about half the period; UpdateContainerResources then raises the quota step by step to the whole period over about 10 s (TouchStone's ScalingLimit). A runtime that refuses the update is recorded as unsupported with its error.",
    origin: ['touchstone'],
    metrics: [
      {
        name: 'total_time',
        unit: 's',
        direction: 'lower',
        description: 'sysbench total time while the quota is raised',
      },
      {
        name: 'update_latency',
        unit: 'ms',
        direction: 'lower',
        description: 'mean UpdateContainerResources latency in this repetition',
      },
      {
        name: 'updates',
        unit: 'count',
        direction: 'higher',
        description: 'quota updates applied before the workload finished',
      },
    ],
  },
  parameters: (config) => config.parameters['limits.cpu.scaling'],
  iterate: (ctx, params) =>
    withPod(
      ctx,
      'cpu-scaling',
      metricNames(cpuScalingBenchmark.definition),
      async (pod): Promise<IterationOutcome> => {
        const startQuota = Math.round((params.cpuPeriodMicros * params.startPercent) / 100);
        const container = containerConfig(ctx, 'sysbench-cpu-scaling', sysbenchFixedWork(params), {
          linux: { resources: { cpuPeriod: params.cpuPeriodMicros, cpuQuota: startQuota } },
        });
        const id = await ctx.cri.createContainer(pod.id, container, pod.config);
        await ctx.cri.startContainer(id);
        const updateMs: number[] = [];
        const stepMs = (params.rampSeconds * 1000) / params.steps;
        for (const quota of rampQuotas(params)) {
          await sleep(stepMs);
          if (ctx.signal.aborted) throw new InterruptedError();
          try {
            updateMs.push(
              (
                await timed(() =>
                  ctx.cri.updateContainerResources(id, {
                    cpuPeriod: params.cpuPeriodMicros,
                    cpuQuota: quota,
                  }),
                )
              ).ms,
            );
          } catch (error) {
            if (await workloadFinished(ctx, id, error)) break; // the work finished before the ramp did
            // Only the runtime saying it cannot update is "unsupported". Anything else (a shim
            // connection dropped on a loaded host, a deadline) is a failed repetition: recorded as
            // such, so that the next repetition tries again instead of the benchmark being skipped.
            if (updateMs.length === 0 && isRefusal(error))
              return {
                values: {},
                errors: {},
                unsupported: `UpdateContainerResources refused: ${errorMessage(error)}`,
              };
            throw error;
          }
        }
        const { stdout } = await awaitCompletion(ctx, pod, container, id, (params.events / 100) * 1000);
        const r = parseSysbenchCpu(stdout);
        const values: Record<string, number> = { total_time: r.totalTimeSeconds, updates: updateMs.length };
        if (updateMs.length > 0)
          values.update_latency = updateMs.reduce((a, b) => a + b, 0) / updateMs.length;
        return {
          values,
          errors:
            updateMs.length > 0 ? {} : { update_latency: 'the workload finished before the first update' },
        };
      },
    ),
};
