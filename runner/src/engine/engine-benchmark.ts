// What an engine-level benchmark is and what it sees of the engine: the contract between the
// benchmarks (benchmarks.ts, network-bench.ts) and the kind that runs them (kind.ts). Its own module
// so the collector of benchmarks and its members share it without importing each other.
import type { BenchmarkDefinition, Config } from '@runtime-bench/schemas';
import type { IterationOutcome } from '../suites/types.ts';
import type { ExecResult } from '../util/exec.ts';
import type { PublishedRun } from './plan.ts';

/** One container run through the engine's CLI, as a benchmark sees it. */
export interface EngineContext {
  /**
   * Runs `command` in `image` with `--rm` under the slot's runtime (under a memory limit when
   * given; on the engine's private network with a port published on 127.0.0.1 when `published`
   * says so, killed after its `timeoutMs`); resolves when the CLI exits.
   */
  run(
    image: string,
    command: readonly string[],
    memoryBytes?: number,
    published?: Omit<PublishedRun, 'network'> & { timeoutMs: number },
  ): Promise<ExecResult>;
  /** The host pid of a named container's first process, or null while it is not running. */
  pidOf(name: string): Promise<number | null>;
  /** Removes a named container whatever its state. */
  remove(name: string): Promise<void>;
  images: Pick<Config['images'], 'bench' | 'large'>;
  signal: AbortSignal;
  callTimeoutSeconds: number;
}

export interface EngineBenchmark<P> {
  definition: BenchmarkDefinition;
  /** The containers' network, recorded with the parameters; default "none". */
  network?: string;
  parameters(config: Config): P;
  iterate(ctx: EngineContext, params: P): Promise<IterationOutcome>;
}
