// Which CRI-level benchmark each pod-level (kubernetes.*) benchmark stands beside, metric by
// metric, so that a report or the site can show a pod's number through the kubelet next to the
// same work done straight over the CRI on the same host class and handler. Pure data: no client.
// The pod-level scalability and sysbench benchmarks report the CRI-level ones' own metrics, so
// their pairs are those metrics, name for name.
import type { BenchmarkDefinition } from '@runtime-bench/schemas';
import { cpuBenchmark } from '../suites/cpu.ts';
import { memoryBenchmark } from '../suites/memory.ts';
import { SCALABILITY_COUNTS, scalabilityDefinition } from '../suites/scalability.ts';

/** A pod-level metric and the CRI-level metric it is read beside. */
export interface CounterpartMetric {
  pod: string;
  cri: string;
}

export interface Counterpart {
  /** the kubernetes.* benchmark */
  pod: string;
  /** the CRI-level benchmark measuring the same work */
  cri: string;
  metrics: CounterpartMetric[];
}

/** A pod-level benchmark named after a CRI-level one whose metrics it reports, name for name. */
const sameMetrics = (cri: BenchmarkDefinition): Counterpart => ({
  pod: `kubernetes.${cri.name.replace(/^scalability\.runtime\./, 'scalability.')}`,
  cri: cri.name,
  metrics: cri.metrics.map((m) => ({ pod: m.name, cri: m.name })),
});

/** Every pod-level benchmark with its CRI-level counterpart. */
export const COUNTERPARTS: readonly Counterpart[] = [
  {
    pod: 'kubernetes.pod-startup',
    cri: 'operations.container.lifecycle',
    // The kubelet's own RunPodSandbox + CreateContainer + StartContainer time, and the pod's
    // create → started, both beside the CRI-level create-and-run (the same three calls).
    metrics: [
      { pod: 'cri', cri: 'create-and-run' },
      { pod: 'started', cri: 'create-and-run' },
    ],
  },
  // kubernetes.scalability.N, kubernetes.performance.cpu, kubernetes.performance.memory
  ...SCALABILITY_COUNTS.map((n) => sameMetrics(scalabilityDefinition(n))),
  sameMetrics(cpuBenchmark.definition),
  sameMetrics(memoryBenchmark.definition),
];

/** The counterpart of a pod-level benchmark, or undefined for any other benchmark. */
export function criCounterpart(podBenchmark: string): Counterpart | undefined {
  return COUNTERPARTS.find((c) => c.pod === podBenchmark);
}
