import type { RepetitionOutcome } from '../results/assemble.ts';
import type { BenchmarkDefinition, Config } from '@runtime-bench/schemas';
import type { CriClient } from '../cri/types.ts';
import type { StackState } from '../stack/state.ts';
import type { ResourceTracker } from './tracker.ts';

/** One CRI endpoint × one runtime handler, resolved from the config (see kinds/targets.ts). */
export interface ResolvedTarget {
  id: string;
  handler: string;
}

export interface BenchmarkContext {
  cri: CriClient;
  target: ResolvedTarget;
  /** `large`: the big image of startup.first-output. */
  images: Pick<Config['images'], 'pause' | 'bench' | 'large'>;
  runId: string;
  /** Host directory under which pods write their CRI logs. */
  logDir: string;
  tracker: ResourceTracker;
  signal: AbortSignal;
  callTimeoutSeconds: number;
  /** The local stack behind the target (its registry, its image store), or null for a bare endpoint. */
  stack?: StackState | null;
}

/** What one repetition of a benchmark produced (the shape the accumulator records and the journal keeps). */
export type IterationOutcome = RepetitionOutcome;

export interface Benchmark<P = unknown> {
  definition: BenchmarkDefinition;
  /**
   * `endpoint`: the benchmark runs no container (only CRI-level calls such as PullImage), so the
   * OCI runtime behind a handler plays no part in it: it runs once per CRI endpoint, on the
   * endpoint's first handler's target (kinds/slot-plan.ts). Absent: once per handler.
   */
  scope?: 'endpoint';
  /** This benchmark's validated parameters from the config. */
  parameters(config: Config): P;
  iterate(
    ctx: BenchmarkContext,
    params: P,
    iteration: { index: number; warmup: boolean },
  ): Promise<IterationOutcome>;
}
