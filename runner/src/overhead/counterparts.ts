// Which CRI-level benchmark and metric each engine-level (engine.*) metric stands beside, and which
// targets may be paired, so that "engine minus CRI" is the engine's own share for one OCI runtime
// version on one host. Pure data and one rule; no client. compare and the site read it.
import type { Target } from '@runtime-bench/schemas';

/** An engine-level benchmark, the CRI-level benchmark of the same work and the metrics they share. */
export interface EngineCounterpart {
  /** the engine.* benchmark */
  engine: string;
  /** the CRI-level benchmark */
  cri: string;
  /** The metrics both report under one name (engine.* benchmarks keep the CRI-level names). */
  metrics: readonly string[];
  /** The metrics the end of a run prints (the rest are in `compare`). */
  headline: readonly string[];
  /** The span the engine side times, in words. */
  engineSpan: string;
  /** The span the CRI side times, in words. */
  criSpan: string;
  /** What the difference (engine − CRI) therefore holds. */
  difference: string;
}

/** Every engine-level benchmark with its CRI-level counterpart. */
export const ENGINE_COUNTERPARTS: readonly EngineCounterpart[] = [
  {
    engine: 'engine.startup.latency',
    cri: 'startup.latency',
    // The per-repetition summaries of the same serial run-to-exit of /bin/true (count, command
    // and error threshold are the same parameters); total_time and the error counts are left out:
    // the CRI side's total holds its removals, and errors are compared as rates by `compare`.
    metrics: ['latency_min', 'latency_median', 'latency_mean', 'latency_p90', 'latency_p99', 'latency_max'],
    headline: ['latency_median'],
    engineSpan:
      'host clock before `<engine> run --rm --network none` starts → the CLI exits: the CLI, the engine API, the container and its namespaces, /bin/true, the wait and the removal',
    criSpan:
      'host clock before CreateContainer in a ready pod → the runtime-recorded exit (finishedAt): create, start and /bin/true; the pod sandbox and the removal outside',
    difference:
      "the engine's CLI and API, its own namespace and network setup, the exit notification and the removal",
  },
  {
    engine: 'engine.startup.first-output',
    cri: 'startup.first-output',
    metrics: ['small_pod_to_output', 'large_pod_to_output'],
    headline: ['small_pod_to_output', 'large_pod_to_output'],
    engineSpan:
      'host clock before `<engine> run --rm` starts → the container’s own reading of the same clock',
    criSpan:
      'host clock before RunPodSandbox → the container’s own reading of the same clock: sandbox, create, start',
    difference:
      "the engine's CLI and API and its container setup, against the CRI's sandbox, create and start",
  },
  {
    engine: 'engine.limits.memory.min',
    cri: 'limits.memory.min',
    metrics: ['bytes'],
    headline: ['bytes'],
    engineSpan: 'the smallest `--memory` under which `<engine> run --rm` of /bin/true exits 0 (bisection)',
    criSpan: 'the smallest container memory limit under which the CRI runs /bin/true to exit 0 (bisection)',
    difference:
      "what the engine puts into the container's memory cgroup, or its own floor (Docker refuses limits under 6 MiB)",
  },
  {
    engine: 'engine.network.throughput',
    cri: 'network.throughput',
    metrics: ['host_to_pod', 'pod_to_host'],
    headline: ['host_to_pod'],
    engineSpan:
      'the transfer between the host and a container port published on 127.0.0.1 (docker-proxy or CNI portmap on the engine’s bridge network), from the connection to the far side’s end',
    criSpan:
      'the same transfer between the host and the pod’s own address on the CNI bridge, no port publishing',
    difference:
      'what the published port and the engine’s network path cost (negative: slower through the engine)',
  },
];

/** The counterpart of an engine-level benchmark, or undefined for any other benchmark. */
export function engineCounterpart(engineBenchmark: string): EngineCounterpart | undefined {
  return ENGINE_COUNTERPARTS.find((c) => c.engine === engineBenchmark);
}

/** A target measured through an engine's CLI. */
export const isEngineTarget = (t: Pick<Target, 'transport'>): boolean => t.transport === 'engine';

/** A target measured straight over the CRI (grpc or crictl), neither through an engine nor a cluster. */
export const isCriLevelTarget = (t: Pick<Target, 'transport'>): boolean =>
  t.transport === 'grpc' || t.transport === 'crictl';

/**
 * Whether an engine target and a CRI-level target ran the same OCI runtime: the same kind at the
 * same known version (a different build of that version is named in a note, not refused).
 */
export function sameOciRuntime(engine: Pick<Target, 'oci'>, cri: Pick<Target, 'oci'>): boolean {
  return (
    engine.oci.name === cri.oci.name &&
    engine.oci.version === cri.oci.version &&
    engine.oci.version !== 'unknown' &&
    engine.oci.version !== ''
  );
}
