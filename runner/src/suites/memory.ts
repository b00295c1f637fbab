import type { MemoryParameters } from '@runtime-bench/schemas';
import { parseSysbenchMemory, sysbenchMemoryArgs } from '../sysbench/parse.ts';
import { metricNames, withPod } from './kit.ts';
import { containerConfig, runToCompletion } from './pods.ts';
import type { Benchmark } from './types.ts';

export const memoryBenchmark: Benchmark<MemoryParameters> = {
  definition: {
    name: 'performance.memory',
    description:
      "sysbench memory inside a container: a fixed total size moved in blocks of a fixed size (no time bound), so the total time is comparable across runtimes; also per-block latency and throughput. Read from the container's CRI log; pod and container setup are outside the measurement.",
    origin: ['touchstone', 'kiit'],
    metrics: [
      {
        name: 'total_time',
        unit: 's',
        direction: 'lower',
        description: 'sysbench total time to move the total size (TouchStone MemTime)',
      },
      {
        name: 'latency_avg',
        unit: 'ms',
        direction: 'lower',
        description:
          "mean time per block: sysbench's latency sum over its events (its printed avg has two decimals of a ms, 0.00 for small blocks)",
      },
      { name: 'latency_max', unit: 'ms', direction: 'lower', description: 'slowest block' },
      {
        name: 'mib_per_second',
        unit: 'MiB/s',
        direction: 'higher',
        description: 'MiB transferred per second ([kiit])',
      },
    ],
  },
  parameters: (config) => config.parameters['performance.memory'],
  iterate: (ctx, params) =>
    withPod(ctx, 'memory', metricNames(memoryBenchmark.definition), async (pod) => {
      const container = containerConfig(ctx, 'sysbench-memory', [
        '/bin/sysbench',
        ...sysbenchMemoryArgs(params),
      ]);
      const { stdout } = await runToCompletion(ctx, pod, container, 0);
      return { values: memoryMetricValues(stdout), errors: {} };
    }),
};

/**
 * The metric values of one sysbench memory run, from its output (the pod-level benchmark's too).
 * sysbench prints latencies in ms with two decimals, and a small block takes well under 10 µs:
 * its min and avg read 0.00 on every runtime. The mean comes from the latency sum (also two
 * decimals, but of tens of ms) over the event count instead; the min carries nothing and is left out.
 */
export function memoryMetricValues(stdout: string): Record<string, number> {
  const r = parseSysbenchMemory(stdout);
  return {
    total_time: r.totalTimeSeconds,
    ...(r.totalEvents > 0 ? { latency_avg: r.latencySumMs / r.totalEvents } : {}),
    latency_max: r.latencyMaxMs,
    mib_per_second: r.mibPerSecond,
  };
}
