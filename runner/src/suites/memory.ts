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
        name: 'latency_min',
        unit: 'ms',
        direction: 'lower',
        description: 'fastest block (sysbench prints 2 decimals: small blocks read 0.00)',
      },
      { name: 'latency_avg', unit: 'ms', direction: 'lower', description: 'mean time per block' },
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

/** The metric values of one sysbench memory run, from its output (the pod-level benchmark's too). */
export function memoryMetricValues(stdout: string): Record<string, number> {
  const r = parseSysbenchMemory(stdout);
  return {
    total_time: r.totalTimeSeconds,
    latency_min: r.latencyMinMs,
    latency_avg: r.latencyAvgMs,
    latency_max: r.latencyMaxMs,
    mib_per_second: r.mibPerSecond,
  };
}
