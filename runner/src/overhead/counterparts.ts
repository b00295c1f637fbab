// Which CRI-level benchmark and metric each benchmark of a layer above the CRI stands beside: an
// engine's (engine.*, through Docker, Podman or nerdctl) and Kubernetes' (kubernetes.*, a pod
// through the kubelet), so that "upper minus CRI" is that layer's own share of the same work.
// Pure data in one shape for both layers; which targets pair is overhead/pairing.ts. compare, the
// end-of-run report, the mixed kind and the site read it. Below engine/ and kubernetes/: the
// Kubernetes table builds from the suites' definitions, never from the pod benchmarks.
import type { BenchmarkDefinition } from '@runtime-bench/schemas';
import { cpuBenchmark } from '../suites/cpu.ts';
import { memoryBenchmark } from '../suites/memory.ts';
import { SCALABILITY_COUNTS, scalabilityDefinition } from '../suites/scalability.ts';

/** The layer above the CRI a counterpart measures. */
export type OverheadLayer = 'engine' | 'kubernetes';

/** A metric of the upper benchmark and the CRI-level metric it is read beside. */
export interface CounterpartMetric {
  upper: string;
  cri: string;
}

/** What each side times, in words, and so what the difference holds. */
export interface CounterpartSpans {
  /** the span the upper (engine or pod) side times */
  upper: string;
  /** the span the CRI side times */
  cri: string;
  /** what upper − CRI therefore holds */
  difference: string;
}

/** A benchmark of a layer above the CRI, the CRI-level benchmark of the same work and the metric pairs. */
export interface OverheadCounterpart {
  layer: OverheadLayer;
  /** the engine.* or kubernetes.* benchmark */
  upper: string;
  /** the CRI-level benchmark measuring the same work */
  cri: string;
  metrics: readonly CounterpartMetric[];
  /** The upper metrics the end of a run prints (the rest are in `compare`); none for Kubernetes. */
  headline: readonly string[];
  /** The spans in words, where they have been written down (the engine pairs); else null. */
  spans: CounterpartSpans | null;
}

/** Metrics both sides report under one name (engine.* benchmarks keep the CRI-level names). */
const sameNames = (names: readonly string[]): CounterpartMetric[] => names.map((n) => ({ upper: n, cri: n }));

/** Every engine-level benchmark with its CRI-level counterpart. */
export const ENGINE_COUNTERPARTS: readonly OverheadCounterpart[] = [
  {
    layer: 'engine',
    upper: 'engine.startup.latency',
    cri: 'startup.latency',
    // The per-repetition summaries of the same serial run-to-exit of /bin/true (count, command
    // and error threshold are the same parameters); total_time and the error counts are left out:
    // the CRI side's total holds its removals, and errors are compared as rates by `compare`.
    metrics: sameNames([
      'latency_min',
      'latency_median',
      'latency_mean',
      'latency_p90',
      'latency_p99',
      'latency_max',
    ]),
    headline: ['latency_median'],
    spans: {
      upper:
        'host clock before `<engine> run --rm --network none` starts → the CLI exits: the CLI, the engine API, the container and its namespaces, /bin/true, the wait and the removal',
      cri: 'host clock before CreateContainer in a ready pod → the runtime-recorded exit (finishedAt): create, start and /bin/true; the pod sandbox and the removal outside',
      difference:
        "the engine's CLI and API, its own namespace and network setup, the exit notification and the removal",
    },
  },
  {
    layer: 'engine',
    upper: 'engine.startup.first-output',
    cri: 'startup.first-output',
    metrics: sameNames(['small_pod_to_output', 'large_pod_to_output']),
    headline: ['small_pod_to_output', 'large_pod_to_output'],
    spans: {
      upper: 'host clock before `<engine> run --rm` starts → the container’s own reading of the same clock',
      cri: 'host clock before RunPodSandbox → the container’s own reading of the same clock: sandbox, create, start',
      difference:
        "the engine's CLI and API and its container setup, against the CRI's sandbox, create and start",
    },
  },
  {
    layer: 'engine',
    upper: 'engine.limits.memory.min',
    cri: 'limits.memory.min',
    metrics: sameNames(['bytes']),
    headline: ['bytes'],
    spans: {
      upper: 'the smallest `--memory` under which `<engine> run --rm` of /bin/true exits 0 (bisection)',
      cri: 'the smallest container memory limit under which the CRI runs /bin/true to exit 0 (bisection)',
      difference:
        "what the engine puts into the container's memory cgroup, or its own floor (Docker refuses limits under 6 MiB)",
    },
  },
  {
    layer: 'engine',
    upper: 'engine.network.throughput',
    cri: 'network.throughput',
    metrics: sameNames(['host_to_pod', 'pod_to_host']),
    headline: ['host_to_pod'],
    spans: {
      upper:
        'the transfer between the host and a container port published on 127.0.0.1 (docker-proxy or CNI portmap on the engine’s bridge network), from the connection to the far side’s end',
      cri: 'the same transfer between the host and the pod’s own address on the CNI bridge, no port publishing',
      difference:
        'what the published port and the engine’s network path cost (negative: slower through the engine)',
    },
  },
];

/**
 * A pod-level benchmark named after a CRI-level one whose metrics it reports, name for name
 * (kubernetes.scalability.N, kubernetes.performance.cpu, kubernetes.performance.memory).
 */
const podOf = (cri: BenchmarkDefinition): OverheadCounterpart => ({
  layer: 'kubernetes',
  upper: `kubernetes.${cri.name.replace(/^scalability\.runtime\./, 'scalability.')}`,
  cri: cri.name,
  metrics: sameNames(cri.metrics.map((m) => m.name)),
  headline: [],
  spans: null,
});

/** Every pod-level benchmark with its CRI-level counterpart. */
export const KUBERNETES_COUNTERPARTS: readonly OverheadCounterpart[] = [
  {
    layer: 'kubernetes',
    upper: 'kubernetes.pod-startup',
    cri: 'operations.container.lifecycle',
    // The kubelet's own RunPodSandbox + CreateContainer + StartContainer time, and the pod's
    // create → started, both beside the CRI-level create-and-run (the same three calls).
    metrics: [
      { upper: 'cri', cri: 'create-and-run' },
      { upper: 'started', cri: 'create-and-run' },
    ],
    headline: [],
    spans: null,
  },
  ...SCALABILITY_COUNTS.map((n) => podOf(scalabilityDefinition(n))),
  podOf(cpuBenchmark.definition),
  podOf(memoryBenchmark.definition),
];

/** Both layers' tables, engines first. */
export const OVERHEAD_COUNTERPARTS: readonly OverheadCounterpart[] = [
  ...ENGINE_COUNTERPARTS,
  ...KUBERNETES_COUNTERPARTS,
];

/** The counterpart of an engine-level benchmark, or undefined for any other benchmark. */
export function engineCounterpart(engineBenchmark: string): OverheadCounterpart | undefined {
  return ENGINE_COUNTERPARTS.find((c) => c.upper === engineBenchmark);
}

/** The counterpart of a pod-level benchmark, or undefined for any other benchmark. */
export function kubernetesCounterpart(podBenchmark: string): OverheadCounterpart | undefined {
  return KUBERNETES_COUNTERPARTS.find((c) => c.upper === podBenchmark);
}
