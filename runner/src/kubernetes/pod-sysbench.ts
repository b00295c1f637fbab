// kubernetes.performance.cpu and kubernetes.performance.memory: the sysbench families as pods.
// Each repetition runs sysbench as a pod's only container on the node under the RuntimeClass, to
// completion, and reads the numbers from the pod's log (through the apiserver), with the same
// parameters (config.parameters['performance.cpu' | 'performance.memory']), the same metrics and
// the same parsing as the CRI-level benchmarks, so the two stand side by side (counterparts.ts).
// Pod start and deletion are outside the numbers: sysbench times its own work.
import { sysbenchCpuArgs, sysbenchMemoryArgs } from '../sysbench/parse.ts';
import type { IterationOutcome } from '../suites/types.ts';
import { cpuBenchmark, cpuMetricValues, METRICS_BY_MODE } from '../suites/cpu.ts';
import { memoryBenchmark, memoryMetricValues } from '../suites/memory.ts';
import { errorMessage, InterruptedError } from '../errors.ts';
import type { KubernetesBenchmark, PodContext } from './pod-benchmark.ts';

const SYSBENCH = '/bin/sysbench';

/** One sysbench pod of a repetition: its metrics get the part's error when it fails. */
interface SysbenchPod {
  metrics: readonly string[];
  label: string;
  /** pod name prefix */
  kind: string;
  args: string[];
  /** how long sysbench itself runs, added to the pod's deadline */
  expectedMs: number;
  values: (log: string) => Record<string, number>;
}

/** Runs the pods one after the other; a failed one fails the repetition and its metrics only. */
async function runPods(ctx: PodContext, pods: readonly SysbenchPod[]): Promise<IterationOutcome> {
  const outcome: IterationOutcome = { values: {}, errors: {} };
  for (const pod of pods) {
    try {
      const log = await ctx.cluster.runToCompletion(
        ctx.node,
        ctx.runtimeClass,
        pod.kind,
        [SYSBENCH, ...pod.args],
        pod.expectedMs,
        ctx.signal,
      );
      Object.assign(outcome.values, pod.values(log));
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      const message = `${pod.label}: ${errorMessage(error)}`;
      for (const m of pod.metrics) outcome.errors[m] = message;
      outcome.failure ??= message;
    }
  }
  return outcome;
}

export const podCpuBenchmark: KubernetesBenchmark = {
  definition: {
    ...cpuBenchmark.definition,
    name: 'kubernetes.performance.cpu',
    description:
      "sysbench cpu as a pod per RuntimeClass on each node (parameters of performance.cpu): fixed-time events/s and fixed-work total time, read from the pod's log. Pod start is outside the measurement; beside performance.cpu it shows what the pod's cgroup and runtime cost a CPU-bound process.",
    origin: ['kiit', 'touchstone'],
  },
  parameters: (config) => config.parameters['performance.cpu'],
  iterate(ctx) {
    const params = ctx.config.parameters['performance.cpu'];
    return runPods(
      ctx,
      params.modes.map((mode) => ({
        metrics: METRICS_BY_MODE[mode],
        label: `${mode} mode`,
        kind: `cpu-${mode}`,
        args: sysbenchCpuArgs(params, mode),
        expectedMs: mode === 'time' ? params.timeSeconds * 1000 : 0,
        values: (log) => cpuMetricValues(mode, log),
      })),
    );
  },
};

export const podMemoryBenchmark: KubernetesBenchmark = {
  definition: {
    ...memoryBenchmark.definition,
    name: 'kubernetes.performance.memory',
    description:
      "sysbench memory as a pod per RuntimeClass on each node (parameters of performance.memory): a fixed total size moved in fixed blocks, total time, per-block latency and MiB/s from the pod's log. Pod start is outside the measurement.",
    origin: ['kiit', 'touchstone'],
  },
  parameters: (config) => config.parameters['performance.memory'],
  iterate: (ctx) =>
    runPods(ctx, [
      {
        metrics: memoryBenchmark.definition.metrics.map((m) => m.name),
        label: 'sysbench memory',
        kind: 'memory',
        args: sysbenchMemoryArgs(ctx.config.parameters['performance.memory']),
        expectedMs: 0,
        values: memoryMetricValues,
      },
    ]),
};
