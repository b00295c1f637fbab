import type { MemoryMinParameters } from '@runtime-bench/schemas';
import { errorMessage, InterruptedError } from '../errors.ts';
import { metricNames, withPod } from './kit.ts';
import { containerConfig, runToCompletion } from './pods.ts';
import type { Benchmark } from './types.ts';

/** Limits are tried in whole pages: the kernel rounds a memory limit down to one anyway. */
export const PAGE = 4096;

export interface BisectionResult {
  /** The smallest limit that worked. */
  bytes: number;
  /** The largest limit that failed (the floor when none was tried), so the answer lies in (failedBytes, bytes]. */
  failedBytes: number;
  attempts: number;
  /** Why the largest failing limit failed. */
  failedWith: string | null;
}

/**
 * Bisects for the smallest limit under which `attempt` succeeds: `upper` must succeed (checked
 * first), `lower` is assumed to fail (checked only when above 0: a CRI limit of 0 means none).
 * Stops when the bracket is at most `precision` wide. `attempt` resolves to null on success and to
 * the failure message otherwise.
 */
export async function bisectMinimum(
  bounds: { lower: number; upper: number; precision: number },
  attempt: (bytes: number) => Promise<string | null>,
): Promise<BisectionResult> {
  let attempts = 0;
  const tryAt = async (bytes: number): Promise<string | null> => {
    attempts++;
    return attempt(bytes);
  };
  const upper = Math.ceil(bounds.upper / PAGE) * PAGE;
  const atUpper = await tryAt(upper);
  if (atUpper !== null)
    throw new Error(`the container fails even at the upper bound of ${upper} bytes: ${atUpper}`);
  let lo = Math.floor(bounds.lower / PAGE) * PAGE;
  let hi = upper;
  let failedWith: string | null = null;
  if (lo > 0) {
    const atLower = await tryAt(lo);
    if (atLower === null) return { bytes: lo, failedBytes: 0, attempts, failedWith: null };
    failedWith = atLower;
  }
  while (hi - lo > bounds.precision) {
    const mid = Math.floor((lo + hi) / 2 / PAGE) * PAGE;
    if (mid <= lo || mid >= hi) break;
    const r = await tryAt(mid);
    if (r === null) hi = mid;
    else {
      lo = mid;
      failedWith = r;
    }
  }
  return { bytes: hi, failedBytes: lo, attempts, failedWith };
}

export const memoryMinBenchmark: Benchmark<MemoryMinParameters> = {
  definition: {
    name: 'limits.memory.min',
    description:
      'The smallest memory limit (CRI memory_limit_in_bytes) under which the bench container still starts and runs /bin/true to exit 0, found by bisection between a floor and a ceiling. A runtime that sets up more of the container inside its cgroup needs more ([oci-engines]: crun 160 KiB, youki 2 MiB, runc 8 MiB, runsc 32 MiB).',
    origin: ['oci-engines'],
    metrics: [
      {
        name: 'bytes',
        unit: 'bytes',
        direction: 'lower',
        description: 'the smallest limit under which the container ran',
      },
      {
        name: 'failed_bytes',
        unit: 'bytes',
        direction: 'lower',
        description:
          'the largest limit under which it failed (the floor if none): the answer lies above this',
      },
      {
        name: 'attempts',
        unit: 'count',
        direction: 'lower',
        description: 'containers started by the search',
      },
    ],
  },
  parameters: (config) => config.parameters['limits.memory.min'],
  iterate: (ctx, params) =>
    // Failed attempts may leave created containers behind: removing the pod removes them all.
    withPod(ctx, 'memory-min', metricNames(memoryMinBenchmark.definition), async (pod) => {
      const r = await bisectMinimum(
        { lower: params.lowerBytes, upper: params.upperBytes, precision: params.precisionBytes },
        async (bytes) => {
          if (ctx.signal.aborted) throw new InterruptedError();
          const container = containerConfig(ctx, `memory-${bytes}`, params.command, {
            linux: { resources: { memoryLimitInBytes: bytes } },
          });
          try {
            await runToCompletion(ctx, pod, container, 0);
            return null;
          } catch (error) {
            if (error instanceof InterruptedError) throw error;
            return errorMessage(error);
          }
        },
      );
      return { values: { bytes: r.bytes, failed_bytes: r.failedBytes, attempts: r.attempts }, errors: {} };
    }),
};
