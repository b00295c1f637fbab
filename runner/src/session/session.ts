// The run session: what `run`, `sweep` and `bisect` share around the pipeline. One signal handler
// for the whole session, the stacks its runs need (up when asked, down on every path), and runs
// whose result documents are written before the session hands them back — so a signal, a dead
// endpoint or a failure after a run never loses what that run measured.
import { tmpdir } from 'node:os';
import type { Config, RunResult } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { writeResultFile, type WriteResultOptions } from '../results/io.ts';
import { DEFAULT_JOURNAL_DIR } from '../results/journal.ts';
import type { ProgressEvent } from '../run/orchestrate.ts';
import { runPipeline, type PipelineOptions, type PipelineOutcome, type TargetKind } from '../run/pipeline.ts';
import { stopExitCode, type StopCause } from '../run/stop.ts';
import { lockStack } from '../stack/lock.ts';
import { stackDown, stackUp } from '../stack/manager.ts';
import { stackStateDir } from '../stack/state.ts';
import { withStopSignals, type SignalSource } from './signals.ts';
import { stackKeeper, type SessionStack, type StackOps } from './stacks.ts';

export type { SessionStack } from './stacks.ts';

/** Where one result document of a run goes: its path, from the document and its place in the run. */
export type PlaceResult = (result: RunResult, index: number, count: number) => string;

export interface SessionRun {
  /** One document per host the kind described, each already written to its path. */
  results: RunResult[];
  paths: string[];
  /** Null when the run went to its end. */
  stop: StopCause | null;
}

export interface RunSession {
  /** Aborted by SIGINT or SIGTERM: every run of the session obeys it. */
  readonly signal: AbortSignal;
  /**
   * Brings the stacks a run needs up (again when their handlers changed). `fresh`: a stack of that
   * name left up by someone else is replaced. A signal during bring-up stops the session here.
   */
  stacks(stacks: readonly SessionStack[], options?: { fresh?: boolean }): Promise<void>;
  /** One run of `kind` through the pipeline; its documents are written (where `place` says) before it returns. */
  run(kind: TargetKind, config: Config, how: RunHow): Promise<SessionRun>;
}

export interface RunHow {
  place: PlaceResult;
  onProgress?: (event: ProgressEvent) => void;
  /** The run's own log lines (default: the session's). */
  log?: (line: string) => void;
}

/** The session's side effects, injectable for tests. */
export interface SessionDeps {
  stackOps: StackOps;
  pipeline: (kind: TargetKind, opts: PipelineOptions) => Promise<PipelineOutcome>;
  write: (path: string, result: RunResult, options?: WriteResultOptions) => Promise<void>;
  signals: SignalSource;
}

export interface RunSessionOptions {
  /** Log lines of the stacks and runs. */
  log: (line: string) => void;
  /** How the session answers a signal, one line to the user. */
  say: (line: string) => void;
  /** Leave the stacks this session started up at the end. */
  keepStacks?: boolean;
  /** Journals of the runs go here (DEFAULT_JOURNAL_DIR); `recover` reads them after a kill. */
  journalDir?: string;
  /** Install record in which every stack is noted before it starts (`uninstall --state`). */
  recordStack?: (name: string) => Promise<void>;
  deps?: Partial<SessionDeps>;
}

export function realStackOps(log: (line: string) => void): StackOps {
  return {
    async up(stack) {
      const { state, alreadyUp } = await stackUp({
        name: stack.name,
        ...(stack.cri ? { cri: stack.cri } : {}),
        daemonBinary: stack.daemonBinary,
        fixHost: stack.fixHost,
        extraHandlers: stack.extraHandlers,
        subnet: stack.subnet,
        images: stack.images,
        log,
      });
      return { handlers: state.handlers.map((h) => h.name), alreadyUp };
    },
    down: async (name) => {
      await stackDown({ name, purge: false, log });
    },
    lock: (name) => lockStack(name, stackStateDir(name), log),
  };
}

/**
 * Runs `body` in a session: signals handled once, stacks down on every path (a failure to take one
 * down is reported after the body's own error, or thrown when the body succeeded).
 */
export async function withRunSession<T>(
  options: RunSessionOptions,
  body: (session: RunSession) => Promise<T>,
): Promise<T> {
  const baseOps = options.deps?.stackOps ?? realStackOps(options.log);
  const deps: SessionDeps = {
    stackOps: options.recordStack ? { ...baseOps, record: options.recordStack } : baseOps,
    pipeline: options.deps?.pipeline ?? runPipeline,
    write: options.deps?.write ?? writeResultFile,
    signals: options.deps?.signals ?? process,
  };
  return withStopSignals(
    options.say,
    async (signal) => {
      const keeper = stackKeeper(deps.stackOps, { keep: Boolean(options.keepStacks), log: options.log });
      const session: RunSession = {
        signal,
        async stacks(stacks, stackOptions) {
          await keeper.ensure(stacks, stackOptions);
          if (signal.aborted)
            throw new RbError(
              'INTERRUPTED',
              `interrupted by ${String(signal.reason)} while the stacks came up; nothing was measured`,
              undefined,
              { exitCode: stopExitCode({ kind: 'signal', signal: String(signal.reason) }) },
            );
        },
        async run(kind, config, { place, onProgress, log }) {
          const { results, stop, journal } = await deps.pipeline(kind, {
            config,
            signal,
            onProgress: onProgress ?? (() => undefined),
            log: log ?? options.log,
            journalDir: options.journalDir ?? DEFAULT_JOURNAL_DIR,
          });
          const journalDir = options.journalDir ?? DEFAULT_JOURNAL_DIR;
          // A full disk at the result's path: each document goes whole to the journals' directory
          // (a disk the run already wrote to) or the temp directory, and the journal stays.
          const fallbackDirs = [journalDir, tmpdir()];
          const paths: string[] = [];
          const noSpace: string[] = [];
          for (const [i, result] of results.entries()) {
            const path = place(result, i, results.length);
            try {
              await deps.write(path, result, { fallbackDirs });
            } catch (error) {
              if (!(error instanceof RbError && error.code === 'NO_SPACE')) throw error;
              noSpace.push(error.message);
              continue;
            }
            paths.push(path);
          }
          if (noSpace.length > 0) {
            const kept = journal
              ? `\nthe run's journal stays in ${journal.path}: \`runtime-bench recover --journals ${journalDir}\` rebuilds the result from it`
              : '';
            throw new RbError(
              'NO_SPACE',
              `${noSpace.length} of ${results.length} result(s) found no room:\n${noSpace.join('\n')}${kept}`,
              'free space where the results go (or pass --out/--data-dir on another filesystem), then copy the kept results there',
              { exitCode: EXIT.error.code },
            );
          }
          // Only now: until the results are on disk, the journal is what a kill would leave.
          await journal?.remove();
          return { results, paths, stop };
        },
      };
      let value: T;
      try {
        value = await body(session);
      } catch (error) {
        // The session's own error matters more than a stack that would not go down (logged).
        await keeper.close();
        throw error;
      }
      const problems = await keeper.close();
      if (problems.length > 0)
        throw new RbError(
          'STACK_SESSION',
          `could not take down ${problems.join('; ')}`,
          'runtime-bench stack down --name <stack>',
        );
      return value;
    },
    deps.signals,
  );
}
