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

/** The largest size accepted: 1024T (2^50 bytes), far beyond any disk or memory a run could use. */
export const MAX_SIZE_BYTES = 2 ** 50;

/** The bytes of a size ("8K", "1G", "512"); sysbench's suffixes are powers of 1024. */
export function sizeInBytes(size: string): number {
  const power = ['K', 'M', 'G', 'T'].indexOf(size.at(-1)!) + 1;
  return Number(power > 0 ? size.slice(0, -1) : size) * 1024 ** power;
}

/** A size as sysbench takes it: a number with an optional K, M, G or T suffix (powers of 1024). */
const SizeSchema = z
  .string()
  .regex(/^\d+[KMGT]?$/, {
    message: 'a size is a number with an optional K, M, G or T suffix, e.g. "8K", "1G"',
    abort: true,
  })
  .refine((size) => sizeInBytes(size) <= MAX_SIZE_BYTES, {
    message: 'a size must be between 0 and 1024T (2^50 bytes)',
  });

/** `performance.memory`: sysbench memory, a fixed total size; defaults from [kiit]: 8K blocks, 8G in total. */
export const MemoryParametersSchema = z.strictObject({
  blockSize: SizeSchema.default('8K').meta({ description: 'sysbench --memory-block-size' }),
  totalSize: SizeSchema.default('8G').meta({
    description: 'sysbench --memory-total-size: the fixed amount of work',
  }),
  operation: z.enum(['read', 'write']).default('write').meta({ description: 'sysbench --memory-oper' }),
  accessMode: z.enum(['seq', 'rnd']).default('seq').meta({ description: 'sysbench --memory-access-mode' }),
  threads: z.int().min(1).max(1024).default(1).meta({ description: 'sysbench --threads' }),
});
export type MemoryParameters = z.output<typeof MemoryParametersSchema>;

export const FILEIO_MODES = ['seqrd', 'rndrd', 'seqwr', 'seqrewr', 'rndwr'] as const;

/** `performance.disk`: sysbench fileio prepare + run per mode; files removed afterwards. */
export const DiskParametersSchema = z.strictObject({
  modes: z
    .array(z.enum(FILEIO_MODES))
    .min(1)
    .default([...FILEIO_MODES])
    .meta({ description: 'sysbench --file-test-mode values, run in this order on one prepared file set' }),
  fileNum: z.int().min(1).max(1024).default(16).meta({ description: 'sysbench --file-num' }),
  totalSize: SizeSchema.default('1G').meta({ description: 'sysbench --file-total-size ([kiit] used 16G)' }),
  blockSize: SizeSchema.default('16K').meta({ description: 'sysbench --file-block-size' }),
  threads: z.int().min(1).max(1024).default(1).meta({ description: 'sysbench --threads ([kiit] used 2)' }),
  events: z.int().min(1).default(20000).meta({
    description:
      'requests per mode (--events with --time=0): a fixed amount of work, so total time is comparable',
  }),
  location: z.enum(['container', 'host']).default('container').meta({
    description: "where the file set lives: the container's writable layer, or hostDir mounted into it",
  }),
  hostDir: z.string().startsWith('/').default('/var/tmp').meta({
    description: 'location "host": a fresh directory is made below this one and removed afterwards',
  }),
  spareMiB: z
    .int()
    .min(0)
    .default(64)
    .meta({ description: 'free space required beyond totalSize before the file set is written' }),
});
export type DiskParameters = z.output<typeof DiskParametersSchema>;

/** `scalability.runtime.N`: N long-running containers, each in its own pod, started and destroyed. */
export const ScalabilityParametersSchema = z.strictObject({
  modes: z
    .array(z.enum(['serial', 'parallel']))
    .min(1)
    .default(['serial', 'parallel'])
    .meta({
      description:
        'serial: one pod after the other (TouchStone); parallel: up to `concurrency` at once (as the kubelet does)',
    }),
  concurrency: z
    .int()
    .min(1)
    .max(1000)
    .default(10)
    .meta({ description: 'pods in flight at once in parallel mode' }),
  command: z
    .array(z.string())
    .min(1)
    .default(['/bin/sleep', '3600'])
    .meta({ description: 'the long-running process of each container' }),
});
export type ScalabilityParameters = z.output<typeof ScalabilityParametersSchema>;

/** `limits.cpu.time`: sysbench cpu, fixed work, under a CFS quota (TouchStone's HardLimit: 10 % of one CPU). */
export const CpuTimeLimitParametersSchema = z.strictObject({
  maxPrime: z.int().min(100).default(20000).meta({ description: 'sysbench --cpu-max-prime' }),
  events: z.int().min(1).default(2000).meta({ description: 'sysbench --events (fixed work)' }),
  cpuQuotaMicros: z
    .int()
    .min(1000)
    .default(10000)
    .meta({ description: 'CFS quota per period (µs); 10000 of 100000 = 10 % of one CPU' }),
  cpuPeriodMicros: z.int().min(1000).max(1000000).default(100000).meta({ description: 'CFS period (µs)' }),
});
export type CpuTimeLimitParameters = z.output<typeof CpuTimeLimitParametersSchema>;

/** `limits.cpu.scaling`: the quota raised from `startPercent` to `endPercent` of the period while sysbench runs. */
export const CpuScalingParametersSchema = z.strictObject({
  maxPrime: z.int().min(100).default(20000).meta({ description: 'sysbench --cpu-max-prime' }),
  events: z
    .int()
    .min(1)
    .default(20000)
    .meta({ description: 'sysbench --events (fixed work; should outlast the ramp)' }),
  cpuPeriodMicros: z.int().min(1000).max(1000000).default(100000).meta({ description: 'CFS period (µs)' }),
  startPercent: z.int().min(1).max(100).default(50).meta({ description: 'quota at start, % of the period' }),
  endPercent: z
    .int()
    .min(1)
    .max(100)
    .default(100)
    .meta({ description: 'quota at the end of the ramp, % of the period' }),
  rampSeconds: z.number().min(0.1).max(600).default(10).meta({ description: 'duration of the ramp' }),
  steps: z
    .int()
    .min(1)
    .max(1000)
    .default(10)
    .meta({ description: 'UpdateContainerResources calls along the ramp' }),
});
export type CpuScalingParameters = z.output<typeof CpuScalingParametersSchema>;

/** `limits.memory.min`: the smallest memory limit under which `/bin/true` still runs, by bisection. */
export const MemoryMinParametersSchema = z.strictObject({
  lowerBytes: z.int().min(0).default(0).meta({ description: 'search floor (assumed to fail)' }),
  upperBytes: z
    .int()
    .min(4096)
    .default(64 * 1024 * 1024)
    .meta({ description: 'search ceiling; must succeed, else the attempt fails' }),
  precisionBytes: z
    .int()
    .min(4096)
    .default(16 * 1024)
    .meta({ description: 'stop when the bracket is this narrow' }),
  command: z
    .array(z.string())
    .min(1)
    .default(['/bin/true'])
    .meta({ description: 'what must run under the limit' }),
});
export type MemoryMinParameters = z.output<typeof MemoryMinParametersSchema>;

/** `startup.latency`: `count` serial runs of /bin/true, each in a fresh container, per repetition. */
export const StartupLatencyParametersSchema = z.strictObject({
  count: z
    .int()
    .min(1)
    .max(100000)
    .default(1000)
    .meta({ description: 'containers per repetition ([oci-engines]: 1000)' }),
  command: z
    .array(z.string())
    .min(1)
    .default(['/bin/true'])
    .meta({ description: 'the process each container runs' }),
  maxErrorRate: z.number().min(0).max(1).default(0.1).meta({
    description: 'a repetition with a larger share of failed containers counts as a failed attempt',
  }),
});
export type StartupLatencyParameters = z.output<typeof StartupLatencyParametersSchema>;

/** `startup.first-output`: time from the host's timestamp to the container's own clock reading. */
export const FirstOutputParametersSchema = z.strictObject({
  images: z
    .array(z.enum(['small', 'large']))
    .min(1)
    .default(['small', 'large'])
    .meta({ description: 'small = images.bench, large = images.large' }),
});
export type FirstOutputParameters = z.output<typeof FirstOutputParametersSchema>;

/** `overhead.runtime`: CPU, memory, I/O and context switches of the runtime's own processes per pod. */
export const OverheadParametersSchema = z.strictObject({
  observeSeconds: z
    .number()
    .min(0)
    .max(600)
    .default(5)
    .meta({ description: 'how long the container runs after its start before the final reading' }),
  command: z
    .array(z.string())
    .min(1)
    .default(['/bin/sleep', '3600'])
    .meta({ description: "the measured container's process" }),
});
export type OverheadParameters = z.output<typeof OverheadParametersSchema>;

/** `network.throughput`: a fixed amount streamed between the host and a pod over the CNI bridge. */
export const NetworkParametersSchema = z.strictObject({
  bytes: z
    .int()
    .min(1024)
    .default(1024 * 1024 * 1024)
    .meta({ description: 'bytes per direction ([runc-crun]: 1 GB)' }),
  directions: z
    .array(z.enum(['host-to-pod', 'pod-to-host']))
    .min(1)
    .default(['host-to-pod', 'pod-to-host'])
    .meta({ description: 'which way the data flows' }),
  port: z
    .int()
    .min(1024)
    .max(65535)
    .default(5201)
    .meta({ description: 'port of the listener in the pod (host-to-pod)' }),
});
export type NetworkParameters = z.output<typeof NetworkParametersSchema>;

/**
 * `image.*`: the image the pull benchmarks fetch from the stack's registry, built offline with
 * seeded content (its size class, layer count, compressible share), once per layer compression.
 */
export const ImageParametersSchema = z.strictObject({
  size: z.enum(['small', 'medium', 'large']).default('medium').meta({
    description: 'small: 4 MiB in 1 layer; medium: 200 MiB in 8 layers; large: 1 GiB in 12 layers',
  }),
  sizeMiB: z
    .number()
    .min(1)
    .max(8192)
    .optional()
    .meta({ description: "overrides the size class's filler MiB (the base layer's busybox comes on top)" }),
  layers: z.int().min(1).max(64).optional().meta({ description: "overrides the size class's layer count" }),
  compressions: z
    .array(z.enum(['gzip', 'zstd']))
    .min(1)
    .default(['gzip', 'zstd'])
    .meta({ description: 'layer compressions to measure, each its own image and metrics' }),
  compressibleShare: z.number().min(0).max(1).default(0.5).meta({
    description: "share of each layer's bytes that compress well (text-like); the rest is incompressible",
  }),
  concurrency: z
    .int()
    .min(2)
    .max(32)
    .default(4)
    .meta({ description: 'image.concurrent-pulls: distinct images of this shape pulled at once' }),
});
export type ImageParameters = z.output<typeof ImageParametersSchema>;

/** Parameters by benchmark name; every key optional in a config, filled with defaults. */
export const BenchmarkParametersSchema = z.strictObject({
  'performance.cpu': CpuParametersSchema.default(CpuParametersSchema.parse({})),
  'operations.container.lifecycle': LifecycleParametersSchema.default(LifecycleParametersSchema.parse({})),
  'performance.memory': MemoryParametersSchema.default(MemoryParametersSchema.parse({})),
  'performance.disk': DiskParametersSchema.default(DiskParametersSchema.parse({})),
  'scalability.runtime': ScalabilityParametersSchema.default(ScalabilityParametersSchema.parse({})).meta({
    description: 'shared by scalability.runtime.5, .10 and .50',
  }),
  'limits.cpu.time': CpuTimeLimitParametersSchema.default(CpuTimeLimitParametersSchema.parse({})),
  'limits.cpu.scaling': CpuScalingParametersSchema.default(CpuScalingParametersSchema.parse({})),
  'limits.memory.min': MemoryMinParametersSchema.default(MemoryMinParametersSchema.parse({})),
  'startup.latency': StartupLatencyParametersSchema.default(StartupLatencyParametersSchema.parse({})),
  'startup.first-output': FirstOutputParametersSchema.default(FirstOutputParametersSchema.parse({})),
  'overhead.runtime': OverheadParametersSchema.default(OverheadParametersSchema.parse({})),
  'network.throughput': NetworkParametersSchema.default(NetworkParametersSchema.parse({})),
  image: ImageParametersSchema.default(ImageParametersSchema.parse({})).meta({
    description: 'shared by image.pull, image.concurrent-pulls and image.pod-start',
  }),
});
export type BenchmarkParameters = z.output<typeof BenchmarkParametersSchema>;
