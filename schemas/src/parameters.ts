import { z } from 'zod';

/**
 * Per-benchmark parameters. Each benchmark owns one schema here, so that a config, the JSON
 * Schema an editor uses and the parameters recorded in a result all come from the same place.
 */

/** `performance.cpu`: sysbench cpu. Defaults follow TouchStone (prime 20000, one thread). */
export const CpuParametersSchema = z.strictObject({
  maxPrime: z.int().min(100).default(20000).meta({ description: 'sysbench --cpu-max-prime' }),
  threads: z.int().min(1).max(1024).default(1).meta({ description: 'sysbench --threads' }),
  timeSeconds: z
    .int()
    .min(1)
    .default(10)
    .meta({ description: 'fixed-time mode: run this long and report events/s' }),
  events: z
    .int()
    .min(1)
    .default(10000)
    .meta({ description: 'fixed-work mode: run this many events and report the total time' }),
  modes: z
    .array(z.enum(['time', 'events']))
    .min(1)
    .default(['time', 'events'])
    .meta({ description: 'which sysbench modes to run: "time" → events/s, "events" → total time' }),
});
export type CpuParameters = z.output<typeof CpuParametersSchema>;

/** `operations.container.lifecycle`: CRI call latencies of one pod with one long-running container. */
export const LifecycleParametersSchema = z.strictObject({
  command: z
    .array(z.string())
    .min(1)
    .default(['/bin/sleep', '3600'])
    .meta({ description: 'the long-running process of the measured container' }),
  stopTimeoutSeconds: z.int().min(0).default(0).meta({
    description:
      'StopContainer grace period; 0 kills at once (a sleeping PID 1 ignores SIGTERM, so a grace period would only time the wait)',
  }),
});
export type LifecycleParameters = z.output<typeof LifecycleParametersSchema>;

/** Parameters by benchmark name; every key optional in a config, filled with defaults. */
export const BenchmarkParametersSchema = z.strictObject({
  'performance.cpu': CpuParametersSchema.default(CpuParametersSchema.parse({})),
  'operations.container.lifecycle': LifecycleParametersSchema.default(LifecycleParametersSchema.parse({})),
});
export type BenchmarkParameters = z.output<typeof BenchmarkParametersSchema>;
