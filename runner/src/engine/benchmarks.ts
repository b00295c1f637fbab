// The engine-level benchmarks: the studies' measurements through `<engine> run --rm`, with the
// metric names of their CRI-level counterparts where they mean the same, so that the engine's
// share is engine-level minus CRI-level for one OCI runtime on one host.
import type {
  FirstOutputParameters,
  MemoryMinParameters,
  StartupLatencyParameters,
} from '@runtime-bench/schemas';
import { bisectMinimum, memoryMinBenchmark } from '../suites/limits-memory.ts';
import { finish, type Gathered } from '../suites/kit.ts';
import {
  firstOutputBenchmark,
  latencyOutcome,
  parseAdjtimexClock,
  startupLatencyBenchmark,
  wallClockNs,
} from '../suites/startup.ts';
import { engineNetworkThroughput } from './network-bench.ts';
import type { EngineBenchmark } from './engine-benchmark.ts';
import { InterruptedError } from '../errors.ts';

const tail = (text: string): string => text.trim().split('\n').slice(-2).join(' | ');

export const engineStartupLatency: EngineBenchmark<StartupLatencyParameters> = {
  definition: {
    name: 'engine.startup.latency',
    description:
      "Run to exit through the engine: `count` serial `<engine> run --rm --runtime R --network none` of /bin/true per repetition (the oci-engines study's 1000 × `nerdctl run --rm`), each timed from before the CLI starts to its exit; the error rate is a result. The metrics are startup.latency's.",
    origin: ['oci-engines'],
    metrics: startupLatencyBenchmark.definition.metrics,
  },
  parameters: (config) => config.parameters['startup.latency'],
  async iterate(ctx, params) {
    const latencies: number[] = [];
    const failures = new Map<string, number>();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < params.count; i++) {
      if (ctx.signal.aborted) throw new InterruptedError();
      const begin = process.hrtime.bigint();
      const r = await ctx.run(ctx.images.bench, params.command);
      if (r.exitCode === 0) latencies.push(Number(process.hrtime.bigint() - begin) / 1e6);
      else {
        const message = `exited with ${r.exitCode}: ${tail(r.stderr) || tail(r.stdout)}`;
        failures.set(message, (failures.get(message) ?? 0) + 1);
      }
    }
    return latencyOutcome(latencies, failures, params, Number(process.hrtime.bigint() - t0) / 1e9);
  },
};

/** The CRI level's `<kind>_pod_to_output`: from before everything a `run` creates to the clock reading. */
const toOutput = (kind: string): string => `${kind}_pod_to_output`;

export const engineFirstOutput: EngineBenchmark<FirstOutputParameters> = {
  definition: {
    name: 'engine.startup.first-output',
    description:
      "Time to first output through the engine (the runc-crun study's Docker and Podman runs): the host notes its clock, then `<engine> run --rm` of busybox adjtimex prints the container's reading of the same clock; the difference, for the small and the large image. Named as startup.first-output's pod_to_output metrics, which time the same span at the CRI level.",
    origin: ['runc-crun'],
    metrics: firstOutputBenchmark.definition.metrics.filter((m) => m.name.endsWith('_pod_to_output')),
  },
  parameters: (config) => config.parameters['startup.first-output'],
  async iterate(ctx, params) {
    const gathered: Gathered = { values: {}, errors: {} };
    const failures: (string | null)[] = [];
    for (const kind of params.images) {
      if (ctx.signal.aborted) throw new InterruptedError();
      const image = kind === 'small' ? ctx.images.bench : ctx.images.large;
      const begin = wallClockNs();
      const r = await ctx.run(image, ['/bin/adjtimex']);
      let failure: string | null = null;
      if (r.exitCode !== 0)
        failure = `${kind} image: exited with ${r.exitCode}: ${tail(r.stderr) || tail(r.stdout)}`;
      else
        try {
          gathered.values[toOutput(kind)] = Number(parseAdjtimexClock(r.stdout) - begin) / 1e6;
        } catch (error) {
          failure = `${kind} image: ${(error as Error).message}`;
        }
      if (failure) gathered.errors[toOutput(kind)] = failure;
      failures.push(failure);
    }
    return finish(gathered, failures);
  },
};

export const engineMemoryMin: EngineBenchmark<MemoryMinParameters> = {
  definition: {
    name: 'engine.limits.memory.min',
    description:
      "The smallest `--memory` under which `<engine> run --rm` of /bin/true still exits 0, by bisection (the oci-engines study's search through nerdctl: crun 160 KiB, runc 8 MiB). An engine's own floor (Docker refuses limits under 6 MiB) shows as the failure below it. The metrics are limits.memory.min's.",
    origin: ['oci-engines'],
    metrics: memoryMinBenchmark.definition.metrics,
  },
  parameters: (config) => config.parameters['limits.memory.min'],
  async iterate(ctx, params) {
    const r = await bisectMinimum(
      { lower: params.lowerBytes, upper: params.upperBytes, precision: params.precisionBytes },
      async (bytes) => {
        if (ctx.signal.aborted) throw new InterruptedError();
        const run = await ctx.run(ctx.images.bench, params.command, bytes);
        return run.exitCode === 0
          ? null
          : `exited with ${run.exitCode}: ${tail(run.stderr) || tail(run.stdout)}`;
      },
    );
    return { values: { bytes: r.bytes, failed_bytes: r.failedBytes, attempts: r.attempts }, errors: {} };
  },
};

/** The engine-level benchmarks, in run order; `benchmarks: [engine]` selects them all. */
export const ENGINE_BENCHMARKS: readonly EngineBenchmark<never>[] = [
  engineStartupLatency as EngineBenchmark<never>,
  engineFirstOutput as EngineBenchmark<never>,
  engineMemoryMin as EngineBenchmark<never>,
  engineNetworkThroughput as EngineBenchmark<never>,
];
