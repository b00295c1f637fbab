// The journal of a run in progress: an append-only JSON-lines file written as repetitions are
// measured, so a run killed without warning (SIGKILL, an OOM kill, a lost runner) loses at most
// the repetition in flight. Its first line says what the run is (run id, config, tool, host,
// targets, slots); each further line is one repetition's outcome. `runtime-bench recover` turns
// the journal of a dead run into an ordinary incomplete result. A run that ends — completely, or
// stopped by a signal and written as incomplete — removes its journal.
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ConfigSchema,
  runsFor,
  type BenchmarkDefinition,
  type Component,
  type Config,
  type HostFingerprint,
  type RunResult,
  type Target,
} from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { isNoSpace, spaceShortfall } from '../util/no-space.ts';
import { BenchmarkAccumulator, assembleRunResult, type RepetitionOutcome } from './assemble.ts';

/** Where journals live unless told otherwise: beside the stacks' state, on the same disk. */
export const DEFAULT_JOURNAL_DIR = '/var/lib/runtime-bench/journals';

export const JOURNAL_VERSION = 1;

/** What a result document needs besides its samples, known once the run is prepared. */
export interface RunPreview {
  host: HostFingerprint;
  components: Component[];
  targets: Target[];
  benchmarks: BenchmarkDefinition[];
}

export interface JournalHeader {
  journal: typeof JOURNAL_VERSION;
  runId: string;
  startedAt: string;
  /** The process that measures: a journal whose process is alive belongs to a running run. */
  pid: number;
  tool: RunResult['tool'];
  config: Config;
  preview: RunPreview;
  /** The run's slots in order: a repetition line names its slot by index. */
  slots: { definition: BenchmarkDefinition; targetId: string; parameters: Record<string, unknown> }[];
}

export interface JournalRepetition {
  slot: number;
  warmup: boolean;
  at: string;
  outcome: RepetitionOutcome;
}

export interface Journal {
  header: JournalHeader;
  repetitions: JournalRepetition[];
  /** A last line cut short by the kill, dropped (at most one). */
  tornLine: boolean;
}

export const journalPath = (dir: string, runId: string): string => join(dir, `${runId}.journal.jsonl`);

/** Parses a journal; a malformed header or a malformed line before the last is an error naming it. */
export function parseJournal(text: string, where: string): Journal {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const fail = (line: number, why: string): never => {
    throw new RbError(
      'JOURNAL_INVALID',
      `${where}:${line}: ${why}`,
      'this journal cannot be recovered; remove it (its run is lost) or restore the file',
    );
  };
  let header: JournalHeader;
  try {
    header = JSON.parse(lines[0] ?? '') as JournalHeader;
  } catch {
    return fail(1, 'the first line is not a journal header');
  }
  if (header.journal !== JOURNAL_VERSION)
    fail(1, `journal version ${String(header.journal)} is not ${JOURNAL_VERSION}`);
  const config = ConfigSchema.safeParse(header.config);
  if (!config.success) fail(1, 'the header holds no valid config');
  header = { ...header, config: config.data! };
  const repetitions: JournalRepetition[] = [];
  let tornLine = false;
  for (const [i, line] of lines.slice(1).entries()) {
    let rep: JournalRepetition;
    try {
      rep = JSON.parse(line) as JournalRepetition;
    } catch {
      // Only the last line can have been cut short by the kill.
      if (i === lines.length - 2) {
        tornLine = true;
        break;
      }
      return fail(i + 2, 'not a JSON line');
    }
    if (!Number.isInteger(rep.slot) || rep.slot < 0 || rep.slot >= header.slots.length)
      fail(i + 2, `slot ${String(rep.slot)} is not one of the run's ${header.slots.length}`);
    repetitions.push(rep);
  }
  return { header, repetitions, tornLine };
}

/**
 * The incomplete result of a journal: its repetitions replayed into the slots as the repetition
 * loop records them, every slot short of its repetitions marked interrupted.
 */
export function recoverResult(journal: Journal, recoveredAt: Date): RunResult {
  const { header, repetitions } = journal;
  const accumulators = header.slots.map((s) => new BenchmarkAccumulator(s.definition));
  for (const rep of repetitions) {
    const acc = accumulators[rep.slot]!;
    if (rep.outcome.unsupported) acc.unsupported = rep.outcome.unsupported;
    else if (!rep.warmup) acc.record(rep.outcome);
  }
  for (const [i, acc] of accumulators.entries())
    if (!acc.unsupported && acc.attempts < runsFor(header.config, header.slots[i]!.definition.name))
      acc.interrupted = true;
  const last = repetitions.at(-1)?.at ?? header.startedAt;
  return assembleRunResult({
    runId: header.runId,
    startedAt: new Date(header.startedAt),
    finishedAt: new Date(last),
    config: header.config,
    incompleteReason: `the run's process ended without writing its result (killed?) after ${repetitions.length} repetition(s); recovered from its journal on ${recoveredAt.toISOString()}`,
    part: {
      ...header.preview,
      slots: header.slots.map((s, i) => ({
        accumulator: accumulators[i]!,
        targetId: s.targetId,
        parameters: s.parameters,
      })),
    },
    tool: header.tool,
  });
}

/** Appends a run's journal as it goes; synchronous, between repetitions, never inside a timed call. */
export interface JournalWriter {
  readonly path: string;
  append(rep: Omit<JournalRepetition, 'at'>, at: Date): void;
  /** Removes the journal: the run's result is written. */
  remove(): Promise<void>;
}

/**
 * Opens a run's journal. A full disk (ENOSPC, EDQUOT) never stops the run, which keeps every
 * repetition in memory and writes its result at the end: without room for the header there is no
 * journal (null, nothing left behind); a repetition that finds no room ends the journal there
 * (what it holds stays recoverable; a line cut short is the torn last line `recover` drops).
 * `warn` says so once, naming the path and the space.
 */
export function openJournal(
  dir: string,
  header: JournalHeader,
  warn: (line: string) => void = () => undefined,
): JournalWriter | null {
  const path = journalPath(dir, header.runId);
  const noRoom = (error: NodeJS.ErrnoException, line: string, consequence: string): void =>
    warn(
      `${path}: no room for the run's journal (${error.code}): its next line ${spaceShortfall(dir, Buffer.byteLength(line))}; ${consequence}`,
    );
  const first = `${JSON.stringify(header)}\n`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, first, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (!isNoSpace(error)) throw error;
    // An empty or cut header is no journal `recover` could read: leave none.
    rmSync(path, { force: true });
    noRoom(
      error,
      first,
      'the run goes on unjournaled: a kill would lose it, its end writes every repetition',
    );
    return null;
  }
  let full = false;
  let lines = 0;
  return {
    path,
    append(rep, at) {
      if (full) return;
      const line = `${JSON.stringify({ ...rep, at: at.toISOString() })}\n`;
      try {
        appendFileSync(path, line);
        lines++;
      } catch (error) {
        if (!isNoSpace(error)) throw error;
        full = true;
        noRoom(
          error,
          line,
          `the journal stops after ${lines} repetition(s); the run goes on and its end writes every repetition`,
        );
      }
    },
    remove: () => rm(path, { force: true }),
  };
}
