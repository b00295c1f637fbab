// What a pod-level benchmark is: a definition (as any benchmark's, copied into results) and one
// measured repetition on one node under one RuntimeClass. execute.ts interleaves the repetitions.
import type { V1Node } from '@kubernetes/client-node';
import type { BenchmarkDefinition, Config } from '@runtime-bench/schemas';
import type { IterationOutcome } from '../suites/types.ts';
import type { Cluster } from './cluster-api.ts';

export interface PodContext {
  cluster: Cluster;
  node: V1Node;
  runtimeClass: string;
  /** the run's config: benchmark parameters are shared with the CRI-level counterparts */
  config: Config;
  signal: AbortSignal;
}

export interface KubernetesBenchmark {
  definition: BenchmarkDefinition;
  /** The parameters it runs with (the CRI-level counterpart's), recorded in each result. */
  parameters?: (config: Config) => object;
  /** One repetition; throws InterruptedError on the signal, returns failures as outcomes. */
  iterate(ctx: PodContext): Promise<IterationOutcome>;
}
