// critest's --benchmark output and its comparison with our operations.container.lifecycle, for
// runner/bench/critest-compare.ts. Pure: parsing and arithmetic only, tested on a captured file.
import { z } from 'zod';
import { RbError } from '../src/errors.ts';
import { bootstrapRatioOfMediansCI, type ConfidenceInterval } from '../src/stats/bootstrap.ts';
import { median } from '../src/stats/descriptive.ts';

/**
 * One lifecycle benchmark file of critest (cri-tools pkg/benchmark, LifecycleBenchmarksResultsSet):
 * `container_benchmark_data.json` and `pod_benchmark_data.json` in --benchmarking-output-dir.
 * Each datapoint's durations are in nanoseconds, in the order of `operationsNames`.
 */
const CritestDatapointSchema = z.object({
  sampleIndex: z.number().int().nonnegative(),
  startTime: z.number(),
  endTime: z.number(),
  operationsDurationsNs: z.array(z.number().int().nonnegative()),
  metaInfo: z.record(z.string(), z.string()).nullish(),
});
export const CritestResultsSetSchema = z.object({
  operationsNames: z.array(z.string().min(1)).min(1),
  numParallel: z.number().int(),
  datapoints: z.array(CritestDatapointSchema),
});

/** critest's operation names and the CRI call each one times. */
export const CRITEST_OPERATION_CALLS: Readonly<Record<string, string>> = {
  CreatePod: 'RunPodSandbox',
  StatusPod: 'PodSandboxStatus',
  StopPod: 'StopPodSandbox',
  RemovePod: 'RemovePodSandbox',
  CreateContainer: 'CreateContainer',
  StartContainer: 'StartContainer',
  StatusContainer: 'ContainerStatus',
  StopContainer: 'StopContainer',
  RemoveContainer: 'RemoveContainer',
};

/** Milliseconds per CRI call, in datapoint order. */
export type CallSamples = Record<string, number[]>;

/**
 * The per-call samples of one critest benchmark file, in ms. Refuses what it cannot read
 * faithfully: unknown operations, a datapoint with the wrong number of durations, and parallel
 * samples (their timings include each other's contention; ours are sequential).
 */
export function parseCritestBenchmark(text: string, file: string): CallSamples {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RbError(
      'CRITEST_OUTPUT',
      `${file}: not JSON (${(error as Error).message})`,
      'pass the file critest --benchmark wrote into --benchmarking-output-dir',
    );
  }
  const parsed = CritestResultsSetSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RbError(
      'CRITEST_OUTPUT',
      `${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`,
      'expected a LifecycleBenchmarksResultsSet of critest --benchmark (operationsNames, numParallel, datapoints)',
    );
  }
  const set = parsed.data;
  if (set.numParallel > 1)
    throw new RbError(
      'CRITEST_OUTPUT',
      `${file}: numParallel is ${set.numParallel}`,
      'run critest with containersNumberParallel and podsNumberParallel at 1: parallel samples are not comparable with sequential ones',
    );
  const calls = set.operationsNames.map((op) => {
    const call = CRITEST_OPERATION_CALLS[op];
    if (!call)
      throw new RbError(
        'CRITEST_OUTPUT',
        `${file}: operationsNames: unknown operation "${op}"`,
        `known: ${Object.keys(CRITEST_OPERATION_CALLS).join(', ')}`,
      );
    return call;
  });
  const out: CallSamples = Object.fromEntries(calls.map((c) => [c, [] as number[]]));
  for (const point of set.datapoints) {
    if (point.operationsDurationsNs.length !== calls.length)
      throw new RbError(
        'CRITEST_OUTPUT',
        `${file}: datapoints[sampleIndex ${point.sampleIndex}]: ${point.operationsDurationsNs.length} durations for ${calls.length} operations`,
        'critest logs this as "improper number of datapoints" when an operation failed; rerun',
      );
    point.operationsDurationsNs.forEach((ns, k) => out[calls[k]!]!.push(ns / 1e6));
  }
  return out;
}

/** Appends `more`'s samples to `into`'s, call by call. */
export function mergeSamples(into: CallSamples, more: CallSamples): void {
  for (const [call, values] of Object.entries(more)) (into[call] ??= []).push(...values);
}

/**
 * Why a call's timing differs between critest and us by method rather than by client or runtime,
 * or null where none is known to matter. These are the configs of cri-tools' pkg/framework,
 * pkg/common and pkg/benchmark (v1.34–v1.37) against runner/src/suites/pods.ts. Every container of
 * ours also writes a CRI log (critest's have no log path) and lives under its pod's cgroup parent:
 * neither is known to change RemoveContainer, whose only other difference is the client.
 */
export const METHOD_DIFFERENCES: Readonly<Record<string, string | null>> = {
  RunPodSandbox:
    "cgroup parent: critest puts its pods under /test.slice when the runtime has no RuntimeConfig (containerd < 1.7) or uses systemd, ours leaves the runtime's default; ours also sets a hostname and a log directory",
  CreateContainer:
    "critest's timing includes an ImageStatus (its helper checks the image before CreateContainer)",
  StartContainer:
    "ours starts the container in a new PID namespace (namespaceOptions.pid CONTAINER, as the kubelet sets it); critest's joins the pod's; cgroup parent as RunPodSandbox",
  StopContainer:
    "PID namespace: ours is PID 1 of its own namespace, critest's (`top`) a child in the pod's; the stop signal's path differs",
  RemoveContainer: null,
  StopPodSandbox:
    "critest's pod benchmark stops a pod that never held a container; ours held one (removed before); cgroup parent as RunPodSandbox",
  RemovePodSandbox:
    "critest's pod benchmark removes a pod that never held a container; ours held one (removed before); cgroup parent as RunPodSandbox",
};

export interface CritestRow {
  call: string;
  critestN: number;
  oursN: number;
  critestMedian: number;
  oursMedian: number;
  /** median(ours) / median(critest) with its 95 % percentile-bootstrap interval. */
  ratio: ConfidenceInterval;
  /** The method difference that explains part of the ratio, or null: the same work is timed. */
  method: string | null;
}

/**
 * One row per call timed by both, in `order`: the ratio of medians ours / critest with a 95 %
 * bootstrap interval (the two samples are independent: different processes, different pods).
 */
export function compareWithCritest(
  critest: CallSamples,
  ours: CallSamples,
  order: readonly string[],
  seed = 1,
): CritestRow[] {
  return order
    .filter((call) => (critest[call]?.length ?? 0) > 0 && (ours[call]?.length ?? 0) > 0)
    .map((call) => {
      const c = critest[call]!;
      const o = ours[call]!;
      return {
        call,
        critestN: c.length,
        oursN: o.length,
        critestMedian: median(c),
        oursMedian: median(o),
        ratio: bootstrapRatioOfMediansCI(c, o, { seed }),
        method: METHOD_DIFFERENCES[call] ?? null,
      };
    });
}

export type ToleranceVerdict = 'met' | 'NOT met' | 'undecided';

/**
 * A ratio against a band of ±`tolerance` around 1 (5 %: 0.05): met when its whole 95 % interval
 * lies inside, NOT met when it lies wholly outside, undecided when it straddles an edge (more
 * rounds narrow it).
 */
export function toleranceVerdict(ratio: ConfidenceInterval, tolerance: number): ToleranceVerdict {
  const low = 1 - tolerance;
  const high = 1 + tolerance;
  if (ratio.lower >= low && ratio.upper <= high) return 'met';
  if (ratio.lower > high || ratio.upper < low) return 'NOT met';
  return 'undecided';
}
