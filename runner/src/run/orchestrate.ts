// The one repetition loop of every target kind (CRI endpoints, Kubernetes, …): it knows slots —
// one benchmark × one target, with a closure that runs one repetition — and nothing of how a
// target is reached, so its rules (interleaving, warm-up, interruption, unsupported outcomes,
// settling) hold for every kind alike and are tested with plain inputs.
import { runsFor, type BenchmarkDefinition, type Config } from '@runtime-bench/schemas';
import { errorMessage, InterruptedError } from '../errors.ts';
import { BenchmarkAccumulator } from '../results/assemble.ts';
import type { IterationOutcome } from '../suites/types.ts';
import { sleep as realSleep } from '../util/exec.ts';
import { createRng, type Rng } from '../stats/random.ts';

export interface ProgressEvent {
  benchmark: string;
  target: string;
  /** 1-based repetition number, warm-up included. */
  repetition: number;
  repetitions: number;
  warmup: boolean;
  outcome?: IterationOutcome;
  /** The interleave group this repetition belongs to (its benchmark, or the one it interleaves with). */
  stage: string;
  /** Repetitions of this stage finished (this one counts once it has an outcome), and planned in all (warm-ups included). */
  stageDone: number;
  stageTotal: number;
  /** The same for the whole run. */
  done: number;
  total: number;
}

/** One benchmark × one target: what the loop repeats and where its samples go. */
export interface Slot {
  definition: BenchmarkDefinition;
  targetId: string;
  /** How progress names the target, when the id alone is ambiguous (default: targetId). */
  label?: string;
  /**
   * The benchmark whose repetitions this slot's interleave with (default: its own name): an engine
   * benchmark beside its CRI-level counterpart, so engine minus CRI sees the same drift.
   */
  interleaveWith?: string;
  /** The parameters the benchmark runs with, recorded in its result. */
  parameters: Record<string, unknown>;
  accumulator: BenchmarkAccumulator;
  /** One repetition; throws InterruptedError when the run's signal stops it. */
  iterate(iteration: { index: number; warmup: boolean }): Promise<IterationOutcome>;
}

/** A slot with a fresh accumulator for its definition. */
export function newSlot(
  definition: BenchmarkDefinition,
  targetId: string,
  parameters: Record<string, unknown>,
  iterate: Slot['iterate'],
): Slot {
  return { definition, targetId, parameters, accumulator: new BenchmarkAccumulator(definition), iterate };
}

export interface OrchestrateOptions {
  config: Pick<Config, 'warmup' | 'runs' | 'runsPerBenchmark' | 'settleSeconds'> &
    Partial<Pick<Config, 'roundOrder'>>;
  /**
   * With `config.roundOrder` shuffled: the seed of the rounds' order (the pipeline takes it from
   * the run id, so a run's order can be replayed from its result). Required then.
   */
  roundOrderSeed?: number;
  /** In run order: all slots of the first benchmark, then the next benchmark's, … */
  slots: readonly Slot[];
  signal: AbortSignal;
  onProgress: (event: ProgressEvent) => void;
  /**
   * Called before a failed repetition is recorded: lets a liveness watch decide whether the failure
   * was the target's endpoint dying (then it aborts `signal` and nothing is recorded).
   */
  beforeRecordingFailure?: (slot: Slot) => Promise<void>;
  /**
   * Called as each repetition is recorded (or ends its slot as unsupported), with the slot's index
   * in `slots`: the run's journal appends it, so a kill loses at most the repetition in flight.
   */
  onRecorded?: (slotIndex: number, warmup: boolean, outcome: IterationOutcome) => void;
  /** The pause between repetitions (settleSeconds); injected by tests. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs every slot's repetitions, interleaved per benchmark (or interleave group) and repetition
 * (A B C, A B C, …; with roundOrder shuffled each round in its own random order, B A C, A C B, …)
 * so that drift on a shared host hits all targets alike. Warm-up repetitions run but are not recorded. A
 * failing repetition is an error sample and the run goes on; an unsupported outcome ends that
 * slot's attempts; an interruption (a signal, a dead endpoint) stops between repetitions, a
 * repetition it made fail is not recorded, and every slot it cut short is marked interrupted.
 */
export async function orchestrate(opts: OrchestrateOptions): Promise<void> {
  const { config, signal } = opts;
  const rng = roundOrderRng(opts);
  const pause = opts.sleep ?? realSleep;
  const groupOf = (s: Slot): string => s.interleaveWith ?? s.definition.name;
  const groups = [...new Set(opts.slots.map(groupOf))];
  const repetitionsOf = (s: Slot): number => config.warmup + runsFor(config, s.definition.name);
  const planned = (slots: readonly Slot[]): number => slots.reduce((n, s) => n + repetitionsOf(s), 0);
  // Counts for progress only: a slot that turns out unsupported leaves its rest out of the total.
  let total = planned(opts.slots);
  let done = 0;
  outer: for (const group of groups) {
    const mine = opts.slots.filter((s) => groupOf(s) === group);
    let stageTotal = planned(mine);
    let stageDone = 0;
    const rounds = Math.max(...mine.map(repetitionsOf));
    for (let rep = 0; rep < rounds; rep++) {
      const warmup = rep < config.warmup;
      for (const slot of rng ? shuffled(mine, rng) : mine) {
        if (signal.aborted) break outer;
        if (slot.accumulator.unsupported) continue;
        const repetitions = repetitionsOf(slot);
        if (rep >= repetitions) continue;
        const where = {
          benchmark: slot.definition.name,
          target: slot.label ?? slot.targetId,
          repetition: rep + 1,
          repetitions,
          warmup,
          stage: group,
        };
        opts.onProgress({ ...where, stageDone, stageTotal, done, total });
        let outcome: IterationOutcome;
        try {
          outcome = await slot.iterate({ index: rep, warmup });
        } catch (error) {
          if (error instanceof InterruptedError || signal.aborted) {
            slot.accumulator.interrupted = true;
            break outer;
          }
          // A bug or an unexpected runtime answer: an error sample, never a crash of the whole run.
          outcome = { values: {}, errors: {}, failure: `unexpected error: ${errorMessage(error)}` };
        }
        if (outcome.failure && !signal.aborted) await opts.beforeRecordingFailure?.(slot);
        if (signal.aborted && outcome.failure) {
          // Failed because the run was being stopped (a signal, a dead endpoint): not the runtime's error.
          slot.accumulator.interrupted = true;
          break outer;
        }
        stageDone += 1;
        done += 1;
        opts.onRecorded?.(opts.slots.indexOf(slot), warmup, outcome);
        if (outcome.unsupported) {
          slot.accumulator.unsupported = outcome.unsupported;
          stageTotal -= repetitions - rep - 1;
          total -= repetitions - rep - 1;
        } else if (!warmup) slot.accumulator.record(outcome);
        opts.onProgress({ ...where, stageDone, stageTotal, done, total, outcome });
        if (config.settleSeconds > 0 && !signal.aborted) await pause(config.settleSeconds * 1000);
      }
    }
  }
  if (signal.aborted) {
    // Whatever did not finish all its repetitions was cut short by the signal.
    for (const { accumulator: a } of opts.slots)
      if (a.attempts < runsFor(config, a.definition.name) && !a.unsupported) a.interrupted = true;
  }
}

function roundOrderRng(opts: OrchestrateOptions): Rng | null {
  if (opts.config.roundOrder !== 'shuffled') return null;
  if (opts.roundOrderSeed === undefined)
    throw new Error(
      'orchestrate: roundOrder shuffled needs a roundOrderSeed (the pipeline derives it from the run id)',
    );
  return createRng(opts.roundOrderSeed);
}

/** A Fisher–Yates shuffle of a copy: every order equally likely. */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The seed of a run's round order: the random part of its id (`…Z-1a2b3c4d`). */
export function roundOrderSeedOf(runId: string): number {
  const hex = /-([0-9a-f]{8})$/.exec(runId)?.[1];
  if (hex === undefined) throw new RangeError(`run id ${runId} has no random part to seed the round order`);
  return Number.parseInt(hex, 16);
}
