// The one reader of result directories (the gate's history, `data verify --dir`, the site), so
// every reader sees the same files. Its rules, and why:
// - hidden entries (".git", the ".<name>.tmp" of an atomic write) are skipped, files and folders;
// - only regular files are read: a symbolic link is never followed (a link may point out of the
//   directory, at /etc/passwd or at itself) and a FIFO, socket or device is never opened (opening a
//   FIFO blocks until someone writes); each is reported as a problem naming the file, not skipped,
//   because a result silently left out changes the history;
// - files are returned in code-point order of their relative path, whatever readdir returns;
// - a run id stored twice is a problem (loadResultDir), since it would count one run twice.
// Synchronous, because the site's build-time loader is; a CLI reads a few hundred files at most.
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  type Dirent,
} from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { parseResult } from './io.ts';

/** A regular file found under a result directory. */
export interface DirFile {
  /** Relative to the directory, with `/` separators: `2026/11/21/<run-id>.json`. */
  path: string;
  /** The path on disk, as messages name it. */
  file: string;
  text: string;
}

/** An entry that could not be read as a file, with why; `file` is its path on disk. */
export interface DirProblem {
  file: string;
  message: string;
}

export interface DirListing {
  files: DirFile[];
  problems: DirProblem[];
}

/** Selects by relative path which entries are wanted; others are neither read nor reported. */
export type DirSelect = (path: string) => boolean;

/** Every `*.json` file: what the gate and the site read. */
export const jsonFiles: DirSelect = (path) => path.endsWith('.json');

function kindOf(entry: Dirent): string | undefined {
  if (entry.isSymbolicLink()) return 'a symbolic link';
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isSocket()) return 'a socket';
  if (entry.isBlockDevice() || entry.isCharacterDevice()) return 'a device';
  return undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A regular file found under a result directory, not read yet. */
export type DirEntry = Omit<DirFile, 'text'>;

export interface DirEntries {
  files: DirEntry[];
  problems: DirProblem[];
}

/**
 * Walks `dir` by the rules above, in name order, handing each selected regular file and each
 * problem to the callbacks as it meets them.
 */
function walkResultDir(
  dir: string,
  select: DirSelect,
  onFile: (entry: DirEntry) => void,
  onProblem: (problem: DirProblem) => void,
): void {
  const walk = (relative: string) => {
    const here = relative ? join(dir, relative) : dir;
    let entries: Dirent[];
    try {
      entries = readdirSync(here, { withFileTypes: true });
    } catch (error) {
      if (relative === '')
        throw new RbError('DATA_UNREADABLE', `${dir}: cannot list the directory (${errorMessage(error)})`);
      onProblem({ file: here, message: `cannot list (${errorMessage(error)})` });
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.name.startsWith('.')) continue;
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        walk(path);
        continue;
      }
      const file = join(dir, path);
      // A linked directory may hold results, so it is refused whatever its name.
      if (!select(path) && !(entry.isSymbolicLink() && isDirectory(file))) continue;
      const kind = kindOf(entry);
      if (kind) {
        onProblem({
          file,
          message: `is ${kind}, not a regular file: only regular files inside the directory are read (replace it by the file itself)`,
        });
        continue;
      }
      onFile({ path, file });
    }
  };
  walk('');
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * Lists the selected regular files under `dir`, recursively, without reading them (see the rules
 * above), for a reader that reads them elsewhere — the site reads ten thousand files in worker
 * threads, each opened with readRegularFile. Errors and problems as readResultDir's, except that
 * a file that cannot be opened is found only when it is read.
 */
export function listResultDir(dir: string, select: DirSelect = () => true): DirEntries {
  const listing: DirEntries = { files: [], problems: [] };
  walkResultDir(
    dir,
    select,
    (entry) => listing.files.push(entry),
    (problem) => listing.problems.push(problem),
  );
  listing.files.sort(byPath);
  return listing;
}

/**
 * Reads the selected regular files under `dir`, recursively (see the rules above). `dir` itself
 * may be a symbolic link; a missing or unlistable `dir` is an error, a bad entry a problem.
 */
export function readResultDir(dir: string, select: DirSelect = () => true): DirListing {
  const listing: DirListing = { files: [], problems: [] };
  walkResultDir(
    dir,
    select,
    (entry) => {
      const read = readRegularFile(entry.file);
      if (typeof read === 'string') listing.files.push({ ...entry, text: read });
      else listing.problems.push({ file: entry.file, message: read.problem });
    },
    (problem) => listing.problems.push(problem),
  );
  listing.files.sort(byPath);
  return listing;
}

/**
 * The text of a regular file; opened without following a link and without blocking, then checked,
 * so an entry swapped for a link or a FIFO after the listing is refused too.
 */
export function readRegularFile(file: string): string | { problem: string } {
  const bytes = readRegularBytes(file);
  return Buffer.isBuffer(bytes) ? bytes.toString('utf8') : bytes;
}

/** The bytes of a regular file, by readRegularFile's rules (for readers that hash them first). */
export function readRegularBytes(file: string): Buffer | { problem: string } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { problem: 'is a symbolic link, not a regular file' };
    return { problem: `cannot read (${errorMessage(error)})` };
  }
  try {
    if (!fstatSync(fd).isFile()) return { problem: 'is not a regular file' };
    return readFileSync(fd);
  } catch (error) {
    return { problem: `cannot read (${errorMessage(error)})` };
  } finally {
    closeSync(fd);
  }
}

/** A validated result and where it lives, relative to the directory read. */
export interface DirRun {
  run: RunResult;
  /** Relative path with `/` separators. */
  path: string;
  /** The path on disk. */
  file: string;
}

/** How a failed directory load is reported: its error code, first line and hint. */
export interface LoadOptions {
  code: string;
  title: (problems: number) => string;
  hint: string;
}

/** One file of a directory load, read and validated by whoever loads it. */
export interface LoadedEntry<T> {
  path: string;
  file: string;
  runId: string;
  startedAt: string;
  value: T;
}

/**
 * The rules of a directory load, for loaders that read the files themselves (loadResultDir here,
 * the site's worker threads): every problem — `problems` of the listing, then per file, in path
 * order, its error or a run id stored twice — is collected, and any one fails the whole load;
 * otherwise the entries come back ordered by start time (instants, since offsets may differ),
 * then run id.
 */
export function checkedLoad<T>(
  problems: readonly string[],
  entries: readonly (LoadedEntry<T> | { problem: string })[],
  options: LoadOptions,
): LoadedEntry<T>[] {
  const all = [...problems];
  const runs: LoadedEntry<T>[] = [];
  const seen = new Map<string, string>();
  for (const entry of entries) {
    if ('problem' in entry) {
      all.push(entry.problem);
      continue;
    }
    const other = seen.get(entry.runId);
    if (other !== undefined) {
      all.push(duplicateRunMessage(entry.file, entry.runId, other));
      continue;
    }
    seen.set(entry.runId, entry.file);
    runs.push(entry);
  }
  if (all.length > 0)
    throw new RbError(options.code, `${options.title(all.length)}:\n${all.join('\n')}`, options.hint);
  return runs.sort(
    (a, b) =>
      Date.parse(a.startedAt) - Date.parse(b.startedAt) ||
      (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0),
  );
}

/**
 * Reads and validates every selected result file under `dir`, ordered by start time (instants,
 * since offsets may differ), then run id. Every problem — an unreadable entry, an invalid file,
 * a run id stored twice — is collected, and any one fails the whole read (a `code` error whose
 * first line is `title(number of problems)`): a reader that dropped a file would show a history that never was.
 */
export function loadResultDir(dir: string, options: LoadOptions & { select?: DirSelect }): DirRun[] {
  const listing = readResultDir(dir, options.select ?? jsonFiles);
  const entries = listing.files.map((f): LoadedEntry<RunResult> | { problem: string } => {
    try {
      const run = parseResult(f.text, f.file);
      return { path: f.path, file: f.file, runId: run.runId, startedAt: run.startedAt, value: run };
    } catch (error) {
      return { problem: errorMessage(error) };
    }
  });
  return checkedLoad(
    listing.problems.map((p) => `${p.file}: ${p.message}`),
    entries,
    options,
  ).map(({ value, path, file }) => ({ run: value, path, file }));
}

/** The message for a run id found in a second file. */
export function duplicateRunMessage(file: string, runId: string, firstFile: string): string {
  return `${file}: runId: ${runId} is also stored as ${firstFile}`;
}
