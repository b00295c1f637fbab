// The one run pipeline. A target kind (CRI endpoints, a Kubernetes cluster, …) only says how its
// targets are reached: it prepares slots (one benchmark × one target each, with a closure for one
// repetition), describes the hosts they ran on and removes what it created. The repetition loop
// (orchestrate.ts), the stop handling (stop.ts) and the result assembly (results/assemble.ts) are
// the same for every kind, so an interruption or an unsupported outcome means the same everywhere.
import type { Config, RunResult } from '@runtime-bench/schemas';
import { assembleRunResult, newRunId, type ResultPart } from '../results/assemble.ts';
import { orchestrate, roundOrderSeedOf, type ProgressEvent, type Slot } from './orchestrate.ts';
import { describeStop, stopCause, type StopCause } from './stop.ts';
import { toolRecord } from '../version.ts';
import { JOURNAL_VERSION, openJournal, type JournalWriter, type RunPreview } from '../results/journal.ts';

export interface RunContext {
  config: Config;
  runId: string;
  /** The run's signal (SIGINT, SIGTERM). */
  signal: AbortSignal;
  log: (line: string) => void;
}

/** A run of one target kind, ready to go. */
export interface PreparedRun {
  /** In run order: all slots of the first benchmark, then the next benchmark's, … */
  slots: Slot[];
  /** The signal the loop obeys: the run's own, or one the kind also aborts (an EndpointDead). */
  signal: AbortSignal;
  /** Asked before a failed repetition is recorded (see OrchestrateOptions). */
  beforeRecordingFailure?: (slot: Slot) => Promise<void>;
  /** After the loop: removes the run's objects it can, and describes one result document per host. */
  finish(): Promise<ResultPart[]>;
  /** Called last whatever happened (also when the loop or finish threw): releases the rest. */
  close(): Promise<void>;
  /**
   * What the result will say besides its samples, known before the loop (single-host kinds): with
   * it the run keeps a journal that `recover` turns into a result if the process is killed.
   */
  preview?(): Promise<RunPreview>;
}

/** How one kind of target is reached. A prepare that throws has left nothing behind. */
export interface TargetKind {
  prepare(ctx: RunContext): Promise<PreparedRun>;
}

export interface PipelineOptions {
  config: Config;
  signal: AbortSignal;
  onProgress: (event: ProgressEvent) => void;
  log: (line: string) => void;
  now?: () => Date;
  /** What measured (default `toolRecord`: this checkout's commit); taken once, before the run. */
  tool?: () => RunResult['tool'];
  /** Keep a journal of the repetitions in this directory (where the kind can preview its result). */
  journalDir?: string;
}

export interface PipelineOutcome {
  /** One result document per host the kind describes (the first keeps the run id it prepared with). */
  results: RunResult[];
  /** Null when the run went to its end. */
  stop: StopCause | null;
  /** The run's journal, to be removed once the results are written; null when none was kept. */
  journal: JournalWriter | null;
}

/**
 * One benchmark run of `kind` from a validated config to complete (or, after a signal or a dead
 * endpoint, incomplete) result documents. Whatever happened, the kind's close runs before it returns.
 */
export async function runPipeline(kind: TargetKind, opts: PipelineOptions): Promise<PipelineOutcome> {
  const now = opts.now ?? (() => new Date());
  const startedAt = now();
  const runId = newRunId(startedAt);
  // The commit of the code that runs, read before it runs: a checkout can move during a long run
  // (a pull, a merge), and the document must name what measured, not what was checked out at the end.
  const tool = (opts.tool ?? toolRecord)();
  const run = await kind.prepare({ config: opts.config, runId, signal: opts.signal, log: opts.log });
  try {
    const journal =
      opts.journalDir !== undefined && run.preview
        ? openJournal(
            opts.journalDir,
            {
              journal: JOURNAL_VERSION,
              runId,
              startedAt: startedAt.toISOString(),
              pid: process.pid,
              tool,
              config: opts.config,
              preview: await run.preview(),
              slots: run.slots.map((s) => ({
                definition: s.definition,
                targetId: s.targetId,
                parameters: s.parameters,
              })),
            },
            opts.log,
          )
        : null;
    await orchestrate({
      config: opts.config,
      roundOrderSeed: roundOrderSeedOf(runId),
      slots: run.slots,
      signal: run.signal,
      onProgress: opts.onProgress,
      ...(run.beforeRecordingFailure ? { beforeRecordingFailure: run.beforeRecordingFailure } : {}),
      ...(journal
        ? { onRecorded: (slot, warmup, outcome) => journal.append({ slot, warmup, outcome }, now()) }
        : {}),
    });
    const stop = stopCause(run.signal);
    const parts = await run.finish();
    const finishedAt = now();
    const results = parts.map((part, i) =>
      assembleRunResult({
        // One run id per document: each is a result of its own.
        runId: i === 0 ? runId : newRunId(startedAt),
        startedAt,
        finishedAt,
        config: opts.config,
        incompleteReason: stop ? describeStop(stop) : null,
        part,
        tool,
      }),
    );
    return { results, stop, journal };
  } finally {
    await run.close();
  }
}
