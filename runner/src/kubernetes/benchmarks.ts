// The pod-level benchmarks a kubernetes target runs, in run order; `benchmarks: [kubernetes]`
// selects them all, and prefixes select among them as for the CRI-level ones.
import { podScalabilityBenchmarks } from './pod-scalability.ts';
import { podStartupBenchmark } from './pod-startup.ts';
import { podCpuBenchmark, podMemoryBenchmark } from './pod-sysbench.ts';
import type { KubernetesBenchmark } from './pod-benchmark.ts';

export const KUBERNETES_BENCHMARKS: readonly KubernetesBenchmark[] = [
  podStartupBenchmark,
  ...podScalabilityBenchmarks,
  podCpuBenchmark,
  podMemoryBenchmark,
];
