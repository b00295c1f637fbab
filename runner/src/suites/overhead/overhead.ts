import type { OverheadParameters } from '@runtime-bench/schemas';
import { sleep } from '../../util/exec.ts';
import { metricNames, withPod } from '../kit.ts';
import { containerConfig, timed } from '../pods.ts';
import type { Benchmark, BenchmarkContext } from '../types.ts';
import {
  cpuBetween,
  findRuntimeRoots,
  overheadValues,
  runtimeTree,
  sumCounters,
  type ProcCounters,
  type RuntimeReading,
} from './attribution.ts';
import { readCounters, readProcSnapshot, readShimCgroup } from './proc.ts';
import { InterruptedError } from '../../errors.ts';

/**
 * The runtime's processes for the pod right now, and their summed counters. Before the first
 * container a runtime may run no process for the pod at all (CRI-O without an infra container:
 * pinns holds the namespaces and conmon comes with the container): that reads as zero.
 */
async function readRuntime(
  ctx: BenchmarkContext,
  podId: string,
  containerIds: string[],
): Promise<RuntimeReading & { pids: number[] }> {
  const procs = await readProcSnapshot();
  const roots = findRuntimeRoots(procs, podId, ctx.cri.endpoint, containerIds);
  if (roots.length === 0 && containerIds.length === 0)
    return { pids: [], counters: sumCounters([]), shimCgroup: null };
  if (roots.length === 0) {
    throw new Error(
      `no runtime process found for pod ${podId.slice(0, 12)} (looked for a containerd shim with "-id ${podId.slice(0, 12)}…" or a conmon); the runtime must run on this host`,
    );
  }
  const pids = runtimeTree(procs, roots);
  const byPid = new Map<number, ProcCounters>();
  const read = await Promise.all(pids.map(async (pid) => [pid, await readCounters(pid)] as const));
  for (const [pid, c] of read) if (c) byPid.set(pid, c);
  const shimCgroup = await readShimCgroup(pids, (pid) => byPid.get(pid)?.cpuNs ?? 0);
  return { pids, counters: sumCounters([...byPid.values()]), shimCgroup };
}

export const overheadBenchmark: Benchmark<OverheadParameters> = {
  definition: {
    name: 'overhead.runtime',
    description:
      "What the runtime itself costs per pod: CPU time, peak RSS, block-layer writes and context switches of the runtime's own processes (containerd shim, conmon, runsc sentry and gofer, and the runc/crun/youki invocations the shim reaps), attributed by PID tree from /proc, the workload (pause and the container's processes) excluded. Read three times: before CreateContainer, after StartContainer, and after the container ran for observeSeconds. Only /proc is read; nothing runs inside the measured container.",
    origin: ['oci-engines'],
    metrics: [
      {
        name: 'cpu_time_start',
        unit: 'ms',
        direction: 'lower',
        description:
          'runtime CPU time (user + system, reaped helpers included) spent on CreateContainer + StartContainer; in ns when the shim runs in a runtime-bench stack shim cgroup (containerd runc/crun/youki), else the reaped helpers in 10 ms ticks',
      },
      {
        name: 'cpu_time_total',
        unit: 'ms',
        direction: 'lower',
        description:
          'runtime CPU time for the pod from its start to the end of the observation (reaped helpers in 10 ms ticks)',
      },
      {
        name: 'peak_rss',
        unit: 'bytes',
        direction: 'lower',
        description: 'sum of VmHWM of the runtime processes alive at the end',
      },
      {
        name: 'write_bytes_start',
        unit: 'bytes',
        direction: 'lower',
        description:
          'bytes the runtime processes sent to the block layer during the container start (/proc/<pid>/io write_bytes)',
      },
      {
        name: 'write_ops_start',
        unit: 'count',
        direction: 'lower',
        description: 'write system calls of the runtime processes during the container start (syscw)',
      },
      {
        name: 'write_iops_start',
        unit: 'IOPS',
        direction: 'lower',
        description: 'write_ops_start per second of start time',
      },
      {
        name: 'ctx_switches_total',
        unit: 'count',
        direction: 'lower',
        description: 'voluntary + involuntary context switches of the live runtime threads at the end',
      },
      {
        name: 'processes',
        unit: 'count',
        direction: 'lower',
        description: 'runtime processes attributed to the pod at the end',
      },
    ],
  },
  parameters: (config) => config.parameters['overhead.runtime'],
  iterate: (ctx, params) => overheadIteration(ctx, params),
};

/** The three readings of one iteration, for a caller that compares the CPU sources (a test). */
export type OverheadObserver = (readings: {
  beforeStart: RuntimeReading;
  afterStart: RuntimeReading;
  end: RuntimeReading;
}) => void;

/** One iteration of overhead.runtime; `observe` sees the raw readings behind the values. */
export function overheadIteration(
  ctx: BenchmarkContext,
  params: OverheadParameters,
  observe?: OverheadObserver,
): ReturnType<Benchmark['iterate']> {
  return withPod(ctx, 'overhead', metricNames(overheadBenchmark.definition), async (pod) => {
    const before = await readRuntime(ctx, pod.id, []);
    const container = containerConfig(ctx, 'observed', params.command);
    const { value: containerId, ms } = await timed(async () => {
      const id = await ctx.cri.createContainer(pod.id, container, pod.config);
      await ctx.cri.startContainer(id);
      return id;
    });
    const after = await readRuntime(ctx, pod.id, [containerId]);
    for (let waited = 0; waited < params.observeSeconds * 1000; waited += 250) {
      if (ctx.signal.aborted) throw new InterruptedError();
      await sleep(Math.min(250, params.observeSeconds * 1000 - waited));
    }
    const end = await readRuntime(ctx, pod.id, [containerId]);
    observe?.({ beforeStart: before, afterStart: after, end });
    const start = cpuBetween(before, after);
    const values = overheadValues({
      beforeStart: before,
      afterStart: after,
      end: end.counters,
      startSeconds: ms / 1000,
      processes: end.pids.length,
    });
    return { values, errors: {}, sources: { cpu_time_start: start.source } };
  });
}
