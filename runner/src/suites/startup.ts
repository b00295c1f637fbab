import type { FirstOutputParameters, StartupLatencyParameters } from '@runtime-bench/schemas';
import { errorMessage, InterruptedError } from '../errors.ts';
import { quantile } from '../stats/descriptive.ts';
import { errorsFor, finish, metricNames, withPod, type Gathered } from './kit.ts';
import { containerConfig, runToCompletion, waitForExit } from './pods.ts';
import type { Benchmark, IterationOutcome } from './types.ts';

/** The host's wall clock in nanoseconds, sub-millisecond (Date.now() has whole milliseconds only). */
export function wallClockNs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
}

/** Summary of one repetition's per-container latencies, as the metrics of startup.latency. */
export function latencySummary(latenciesMs: readonly number[]): Record<string, number> {
  if (latenciesMs.length === 0) return {};
  return {
    latency_min: Math.min(...latenciesMs),
    latency_mean: latenciesMs.reduce((a, b) => a + b, 0) / latenciesMs.length,
    latency_median: quantile(latenciesMs, 0.5),
    latency_p90: quantile(latenciesMs, 0.9),
    latency_p99: quantile(latenciesMs, 0.99),
    latency_max: Math.max(...latenciesMs),
  };
}

/**
 * One startup.latency repetition's outcome from its containers' latencies and failure messages:
 * the summary, the error count and rate, and a failed attempt when the rate exceeds maxErrorRate.
 * Shared by every level that runs containers one after the other (CRI, engines).
 */
export function latencyOutcome(
  latencies: readonly number[],
  failures: ReadonlyMap<string, number>,
  params: Pick<StartupLatencyParameters, 'count' | 'maxErrorRate'>,
  totalSeconds: number,
): IterationOutcome {
  const errorCount = params.count - latencies.length;
  const rate = errorCount / params.count;
  const values: Record<string, number> = {
    ...latencySummary(latencies),
    total_time: totalSeconds,
    errors: errorCount,
    error_rate: rate,
  };
  const errors: Record<string, string> = {};
  const top = [...failures.entries()].sort((a, b) => b[1] - a[1])[0];
  if (top)
    errors.errors = `${errorCount} of ${params.count} containers failed; most often (${top[1]}×): ${top[0]}`;
  if (latencies.length === 0) Object.assign(errors, errorsFor(LATENCY_METRICS, errors.errors!));
  if (rate > params.maxErrorRate)
    return {
      values,
      errors,
      failure: `${(rate * 100).toFixed(1)} % of containers failed (above maxErrorRate ${params.maxErrorRate}): ${top![0]}`,
    };
  return { values, errors };
}

const LATENCY_METRICS = [
  'latency_min',
  'latency_mean',
  'latency_median',
  'latency_p90',
  'latency_p99',
  'latency_max',
] as const;

export const startupLatencyBenchmark: Benchmark<StartupLatencyParameters> = {
  definition: {
    name: 'startup.latency',
    description:
      "One repetition runs `count` fresh containers one after the other (default 1000, [oci-engines]), each executing /bin/true in one pod made for the repetition: latency is from the host's clock before CreateContainer to the runtime's recorded exit (finishedAt), like `nerdctl run --rm`. Per repetition: min, mean, median, p90, p99, max, total time, and how many containers failed. A repetition whose share of failed containers exceeds maxErrorRate counts as a failed attempt.",
    origin: ['oci-engines', 'runc-crun'],
    metrics: [
      {
        name: 'latency_min',
        unit: 'ms',
        direction: 'lower',
        description: 'fastest container of the repetition',
      },
      {
        name: 'latency_mean',
        unit: 'ms',
        direction: 'lower',
        description: "mean over the repetition's containers",
      },
      {
        name: 'latency_median',
        unit: 'ms',
        direction: 'lower',
        description: "median over the repetition's containers",
      },
      {
        name: 'latency_p90',
        unit: 'ms',
        direction: 'lower',
        description: "90th percentile over the repetition's containers",
      },
      {
        name: 'latency_p99',
        unit: 'ms',
        direction: 'lower',
        description: "99th percentile over the repetition's containers",
      },
      {
        name: 'latency_max',
        unit: 'ms',
        direction: 'lower',
        description: 'slowest container of the repetition (spikes show here)',
      },
      {
        name: 'total_time',
        unit: 's',
        direction: 'lower',
        description: 'wall time of the whole repetition, removals included',
      },
      {
        name: 'errors',
        unit: 'count',
        direction: 'lower',
        description: 'containers that failed to create, start or exit 0',
      },
      { name: 'error_rate', unit: 'ratio', direction: 'lower', description: 'errors / count' },
    ],
  },
  parameters: (config) => config.parameters['startup.latency'],
  iterate: (ctx, params) =>
    withPod(ctx, 'startup', metricNames(startupLatencyBenchmark.definition), async (pod) => {
      const latencies: number[] = [];
      const failures = new Map<string, number>();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < params.count; i++) {
        if (ctx.signal.aborted) throw new InterruptedError();
        const container = containerConfig(ctx, `true-${i}`, params.command);
        let id: string | undefined;
        try {
          const begin = wallClockNs();
          id = await ctx.cri.createContainer(pod.id, container, pod.config);
          await ctx.cri.startContainer(id);
          // Polled quickly, but the latency is taken from the runtime's finishedAt, not from the poll.
          const exit = await waitForExit(ctx, id, ctx.callTimeoutSeconds * 1000, 5);
          if (exit.exitCode !== 0)
            throw new Error(`exited with ${exit.exitCode}${exit.reason ? ` (${exit.reason})` : ''}`);
          latencies.push(Number(BigInt(exit.finishedAt) - begin) / 1e6);
        } catch (error) {
          if (error instanceof InterruptedError) throw error;
          const message = errorMessage(error);
          failures.set(message, (failures.get(message) ?? 0) + 1);
        } finally {
          if (id) await ctx.cri.removeContainer(id).catch(() => undefined);
        }
      }
      const total = Number(process.hrtime.bigint() - t0) / 1e9;
      return latencyOutcome(latencies, failures, params, total);
    }),
};

/**
 * The wall clock a container printed with busybox `adjtimex` (its "time.tv_sec:" and
 * "time.tv_usec:" lines), in nanoseconds since the epoch.
 */
export function parseAdjtimexClock(text: string): bigint {
  const sec = /time\.tv_sec:\s+(\d+)/.exec(text);
  const usec = /time\.tv_usec:\s+(\d+)/.exec(text);
  if (!sec || !usec)
    throw new Error(
      `no clock reading in the container's output: ${text.trim().split('\n').slice(-2).join(' | ') || '(empty)'}`,
    );
  return BigInt(sec[1]!) * 1_000_000_000n + BigInt(usec[1]!) * 1000n;
}

const IMAGE_KINDS = ['small', 'large'] as const;
const firstOutputMetrics = (kind: string): [string, string] => [`${kind}_to_output`, `${kind}_pod_to_output`];

export const firstOutputBenchmark: Benchmark<FirstOutputParameters> = {
  definition: {
    name: 'startup.first-output',
    description:
      "Time to operational: the host notes its clock, then a fresh pod and container start and the container prints its own reading of the same clock (busybox adjtimex, microseconds); the difference is how long until the container's process runs. Measured for the small bench image and for a large one (the bench image plus a few hundred MB of filler layers, built offline by `stack up`; never pulled during a run).",
    origin: ['runc-crun'],
    metrics: IMAGE_KINDS.flatMap((kind) => {
      const [toOutput, podToOutput] = firstOutputMetrics(kind);
      return [
        {
          name: toOutput,
          unit: 'ms' as const,
          direction: 'lower' as const,
          description: `${kind} image: from before CreateContainer (pod ready) to the container's clock reading`,
        },
        {
          name: podToOutput,
          unit: 'ms' as const,
          direction: 'lower' as const,
          description: `${kind} image: from before RunPodSandbox to the container's clock reading (like docker run)`,
        },
      ];
    }),
  },
  parameters: (config) => config.parameters['startup.first-output'],
  async iterate(ctx, params): Promise<IterationOutcome> {
    const gathered: Gathered = { values: {}, errors: {} };
    const failures: (string | null)[] = [];
    for (const kind of params.images) {
      const image = kind === 'small' ? ctx.images.bench : ctx.images.large;
      const names = firstOutputMetrics(kind);
      const [toOutput, podToOutput] = names;
      let podBegin = 0n;
      const outcome = await withPod(
        ctx,
        `first-output-${kind}`,
        names,
        async (pod) => {
          const begin = wallClockNs();
          const container = { ...containerConfig(ctx, `clock-${kind}`, ['/bin/adjtimex']), image: { image } };
          const { stdout, status } = await runToCompletion(ctx, pod, container, 0, { allowFailure: true });
          if (status.exitCode !== 0) {
            // The container started but may not read the clock this way: gVisor does not implement
            // adjtimex(2). That is a property of the runtime, not an error of this attempt.
            return {
              values: {},
              errors: {},
              unsupported: `the container cannot read the wall clock with adjtimex(2) under this runtime (busybox adjtimex exited with ${status.exitCode}${stdout.trim() ? `: ${stdout.trim().split('\n').pop()}` : ''})`,
            };
          }
          const printed = parseAdjtimexClock(stdout);
          return {
            values: {
              [toOutput]: Number(printed - begin) / 1e6,
              [podToOutput]: Number(printed - podBegin) / 1e6,
            },
            errors: {},
          };
        },
        {
          prepare: async () => {
            if (!(await ctx.cri.imageStatus(image))) {
              throw new Error(
                `image "${image}" is not present (images are never pulled during a run; \`stack up\` builds it when images.largeSizeMiB > 0)`,
              );
            }
            podBegin = wallClockNs();
          },
        },
      );
      if (outcome.unsupported) return { ...gathered, unsupported: outcome.unsupported };
      Object.assign(gathered.values, outcome.values);
      Object.assign(gathered.errors, outcome.errors);
      failures.push(outcome.failure ? `${kind} image: ${outcome.failure}` : null);
    }
    return finish(gathered, failures);
  },
};
