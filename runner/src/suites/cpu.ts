import type { CpuParameters } from '@runtime-bench/schemas';
import { parseSysbenchCpu, sysbenchCpuArgs } from '../sysbench/parse.ts';
import { finish, part, withPod } from './kit.ts';
import { containerConfig, runToCompletion } from './pods.ts';
import type { Benchmark } from './types.ts';

export const METRICS_BY_MODE = {
  time: ['events_per_second', 'latency_avg'],
  events: ['total_time'],
} as const;

/** The metric values of one sysbench cpu run in `mode`, from its output (the pod-level benchmark's too). */
export function cpuMetricValues(mode: 'time' | 'events', stdout: string): Record<string, number> {
  const report = parseSysbenchCpu(stdout);
  return mode === 'time'
    ? { events_per_second: report.eventsPerSecond, latency_avg: report.latencyAvgMs }
    : { total_time: report.totalTimeSeconds };
}

export const cpuBenchmark: Benchmark<CpuParameters> = {
  definition: {
    name: 'performance.cpu',
    description:
      "sysbench cpu (prime search) inside a container. Fixed-time mode reports throughput in events/s; fixed-work mode reports the time to finish a set number of events. Read from the container's CRI log; pod and container setup are outside the measurement.",
    origin: ['touchstone', 'kiit'],
    metrics: [
      {
        name: 'events_per_second',
        unit: 'events/s',
        direction: 'higher',
        description: 'sysbench cpu events per second, fixed-time mode',
      },
      {
        name: 'latency_avg',
        unit: 'ms',
        direction: 'lower',
        description: 'mean time per event, fixed-time mode',
      },
      {
        name: 'total_time',
        unit: 's',
        direction: 'lower',
        description: 'sysbench total time for the fixed number of events',
      },
    ],
  },
  parameters: (config) => config.parameters['performance.cpu'],
  iterate: (ctx, params) =>
    withPod(
      ctx,
      'cpu',
      params.modes.flatMap((mode) => METRICS_BY_MODE[mode]),
      async (pod, gathered) => {
        const failures: (string | null)[] = [];
        for (const mode of params.modes) {
          failures.push(
            await part(gathered, METRICS_BY_MODE[mode], `${mode} mode`, async () => {
              const container = containerConfig(ctx, `sysbench-cpu-${mode}`, [
                '/bin/sysbench',
                ...sysbenchCpuArgs(params, mode),
              ]);
              const expectedMs = mode === 'time' ? params.timeSeconds * 1000 : 0;
              const { stdout } = await runToCompletion(ctx, pod, container, expectedMs);
              Object.assign(gathered.values, cpuMetricValues(mode, stdout));
            }),
          );
        }
        return finish(gathered, failures);
      },
    ),
};
