import { runsFor, type Config } from '@runtime-bench/schemas';
import { errorMessage } from '../errors.ts';
import { BenchmarkAccumulator } from '../results/assemble.ts';
import { ResourceTracker } from '../suites/tracker.ts';
import {
  InterruptedError,
  type Benchmark,
  type BenchmarkContext,
  type IterationOutcome,
} from '../suites/types.ts';
import { sleep } from '../util/exec.ts';
import type { PreparedEndpoint } from './targets.ts';

export interface ProgressEvent {
  benchmark: string;
  target: string;
  /** 1-based repetition number, warm-up included. */
  repetition: number;
  repetitions: number;
  warmup: boolean;
  outcome?: IterationOutcome;
}

export interface OrchestrateOptions {
  config: Config;
  benchmarks: Benchmark<never>[];
  endpoints: PreparedEndpoint[];
  runId: string;
  signal: AbortSignal;
  onProgress: (event: ProgressEvent) => void;
  /**
   * Called before a failed repetition is recorded: lets the endpoint's liveness watch decide
   * whether the failure was the endpoint dying (then it aborts `signal` and nothing is recorded).
   */
  beforeRecordingFailure?: (endpoint: PreparedEndpoint) => Promise<void>;
}

export interface Slot {
  benchmark: Benchmark<never>;
  endpoint: PreparedEndpoint;
  targetId: string;
  handler: string;
  accumulator: BenchmarkAccumulator;
  context: BenchmarkContext;
}

/** Key of one benchmark × target. */
export const slotKey = (benchmark: string, target: string): string => `${benchmark}\u0000${target}`;

/**
 * Runs every selected benchmark on every target, interleaved per repetition (A B C, A B C, …) so
 * that drift on a shared host hits all targets alike. Warm-up repetitions run but are not recorded.
 * A failing call is an error sample and the run goes on; an interruption (a signal, a dead CRI
 * endpoint) stops between calls, and a repetition it made fail is not recorded.
 */
export async function orchestrate(
  opts: OrchestrateOptions,
): Promise<{ slots: Slot[]; trackers: Map<PreparedEndpoint, ResourceTracker> }> {
  const { config, signal } = opts;
  const trackers = new Map(opts.endpoints.map((e) => [e, new ResourceTracker()] as const));
  const slots: Slot[] = [];
  for (const benchmark of opts.benchmarks) {
    for (const endpoint of opts.endpoints) {
      for (const target of endpoint.targets) {
        slots.push({
          benchmark,
          endpoint,
          targetId: target.resolved.id,
          handler: target.resolved.handler,
          accumulator: new BenchmarkAccumulator(benchmark.definition),
          context: {
            cri: endpoint.client,
            target: target.resolved,
            images: config.images,
            runId: opts.runId,
            logDir: endpoint.logDir,
            tracker: trackers.get(endpoint)!,
            signal,
            callTimeoutSeconds: config.callTimeoutSeconds,
            stack: endpoint.stack,
          },
        });
      }
    }
  }
  outer: for (const benchmark of opts.benchmarks) {
    const mine = slots.filter((s) => s.benchmark === benchmark);
    const repetitions = config.warmup + runsFor(config, benchmark.definition.name);
    for (let rep = 0; rep < repetitions; rep++) {
      const warmup = rep < config.warmup;
      for (const slot of mine) {
        if (signal.aborted) break outer;
        if (slot.accumulator.unsupported) continue;
        const params = benchmark.parameters(config);
        const where = {
          benchmark: benchmark.definition.name,
          target: slot.targetId,
          repetition: rep + 1,
          repetitions,
          warmup,
        };
        opts.onProgress(where);
        let outcome: IterationOutcome;
        try {
          outcome = await benchmark.iterate(slot.context, params, { index: rep, warmup });
        } catch (error) {
          if (error instanceof InterruptedError || signal.aborted) {
            slot.accumulator.interrupted = true;
            break outer;
          }
          // A bug or an unexpected runtime answer: an error sample, never a crash of the whole run.
          outcome = { values: {}, errors: {}, failure: `unexpected error: ${errorMessage(error)}` };
        }
        if (outcome.failure && !signal.aborted) await opts.beforeRecordingFailure?.(slot.endpoint);
        if (signal.aborted && outcome.failure) {
          // Failed because the run was being stopped (a signal, a dead endpoint): not the runtime's error.
          slot.accumulator.interrupted = true;
          break outer;
        }
        if (outcome.unsupported) slot.accumulator.unsupported = outcome.unsupported;
        else if (!warmup) slot.accumulator.record(outcome);
        opts.onProgress({ ...where, outcome });
        if (config.settleSeconds > 0 && !signal.aborted) await sleep(config.settleSeconds * 1000);
      }
    }
  }
  if (signal.aborted) {
    // Whatever did not finish all its repetitions was cut short by the signal.
    for (const slot of slots)
      if (
        slot.accumulator.attempts < runsFor(config, slot.accumulator.definition.name) &&
        !slot.accumulator.unsupported
      )
        slot.accumulator.interrupted = true;
  }
  return { slots, trackers };
}
