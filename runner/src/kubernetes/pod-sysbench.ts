// kubernetes.performance.cpu and kubernetes.performance.memory: the sysbench families as pods.
// Each repetition runs sysbench as a pod's only container on the node under the RuntimeClass, to
// completion, and reads the numbers from the pod's log (through the apiserver), with the same
// parameters (config.parameters['performance.cpu' | 'performance.memory']), the same metrics and
// the same parsing as the CRI-level benchmarks, so the two stand side by side (counterparts.ts).
// Pod start and deletion are outside the numbers: sysbench times its own work.
import { sysbenchCpuArgs, sysbenchMemoryArgs } from '../sysbench/parse.ts';
import { InterruptedError, type IterationOutcome } from '../suites/types.ts';
import { cpuBenchmark, cpuMetricValues, METRICS_BY_MODE } from '../suites/cpu.ts';
import { memoryBenchmark, memoryMetricValues } from '../suites/memory.ts';
import { errorMessage } from '../errors.ts';
import type { KubernetesBenchmark, PodContext } from './pod-benchmark.ts';

const SYSBENCH = '/bin/sysbench';

/** One part of a repetition: its metrics get the part's error when it fails. */
async function part(
  metrics: readonly string[],
  label: string,
  run: () => Promise<Record<string, number>>,
  into: IterationOutcome,
): Promise<void> {
  try {
    Object.assign(into.values, await run());
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    const message = `${label}: ${errorMessage(error)}`;
    for (const m of metrics) into.errors[m] = message;
    into.failure ??= message;
  }
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
  async iterate(ctx: PodContext): Promise<IterationOutcome> {
    const params = ctx.config.parameters['performance.cpu'];
    const outcome: IterationOutcome = { values: {}, errors: {} };
    for (const mode of params.modes)
      await part(
        METRICS_BY_MODE[mode],
        `${mode} mode`,
        async () => {
          const log = await ctx.cluster.runToCompletion(
            ctx.node,
            ctx.runtimeClass,
            `cpu-${mode}`,
            [SYSBENCH, ...sysbenchCpuArgs(params, mode)],
            mode === 'time' ? params.timeSeconds * 1000 : 0,
            ctx.signal,
          );
          return cpuMetricValues(mode, log);
        },
        outcome,
      );
    return outcome;
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
  async iterate(ctx: PodContext): Promise<IterationOutcome> {
    const params = ctx.config.parameters['performance.memory'];
    const outcome: IterationOutcome = { values: {}, errors: {} };
    await part(
      podMemoryBenchmark.definition.metrics.map((m) => m.name),
      'sysbench memory',
      async () =>
        memoryMetricValues(
          await ctx.cluster.runToCompletion(
            ctx.node,
            ctx.runtimeClass,
            'memory',
            [SYSBENCH, ...sysbenchMemoryArgs(params)],
            0,
            ctx.signal,
          ),
        ),
      outcome,
    );
    return outcome;
  },
};
