import type { CpuParameters } from '@runtime-bench/schemas';
import { stdoutOf } from '../cri/log.ts';
import { errorMessage } from '../errors.ts';
import { parseSysbenchCpu, sysbenchCpuArgs } from '../sysbench/parse.ts';
import { containerConfig, discardPod, podConfig, readContainerLog, waitForExit } from './pods.ts';
import { InterruptedError, type Benchmark, type IterationOutcome } from './types.ts';

const METRICS_BY_MODE = { time: ['events_per_second', 'latency_avg'], events: ['total_time'] } as const;

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
  async iterate(ctx, params): Promise<IterationOutcome> {
    const values: Record<string, number> = {};
    const errors: Record<string, string> = {};
    const pod = podConfig(ctx, 'cpu');
    let podId: string;
    try {
      podId = await ctx.cri.runPodSandbox(pod, ctx.target.handler);
      ctx.tracker.addPod(podId);
    } catch (error) {
      const message = `RunPodSandbox: ${errorMessage(error)}`;
      for (const mode of params.modes) for (const m of METRICS_BY_MODE[mode]) errors[m] = message;
      return { values, errors, failure: message };
    }
    let failure: string | undefined;
    try {
      for (const mode of params.modes) {
        const container = containerConfig(ctx, `sysbench-cpu-${mode}`, [
          '/bin/sysbench',
          ...sysbenchCpuArgs(params, mode),
        ]);
        try {
          const id = await ctx.cri.createContainer(podId, container, pod);
          await ctx.cri.startContainer(id);
          const expectedMs = mode === 'time' ? params.timeSeconds * 1000 : 0;
          const status = await waitForExit(ctx, id, expectedMs + ctx.callTimeoutSeconds * 1000);
          const log = await readContainerLog(pod, container, status);
          if (status.exitCode !== 0)
            throw new Error(
              `sysbench exited with ${status.exitCode}: ${stdoutOf(log).trim().split('\n').slice(-2).join(' | ')}`,
            );
          const report = parseSysbenchCpu(stdoutOf(log));
          if (mode === 'time') {
            values.events_per_second = report.eventsPerSecond;
            values.latency_avg = report.latencyAvgMs;
          } else {
            values.total_time = report.totalTimeSeconds;
          }
          await ctx.cri.removeContainer(id);
        } catch (error) {
          if (error instanceof InterruptedError) throw error;
          const message = errorMessage(error);
          for (const m of METRICS_BY_MODE[mode]) errors[m] = message;
          failure ??= `${mode} mode: ${message}`;
        }
      }
    } finally {
      await discardPod(ctx, podId);
    }
    return failure ? { values, errors, failure } : { values, errors };
  },
};
