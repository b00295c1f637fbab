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

/**
 * Reads the selected regular files under `dir`, recursively (see the rules above). `dir` itself
 * may be a symbolic link; a missing or unlistable `dir` is an error, a bad entry a problem.
 */
export function readResultDir(dir: string, select: DirSelect = () => true): DirListing {
  const listing: DirListing = { files: [], problems: [] };
  const walk = (relative: string) => {
    const here = relative ? join(dir, relative) : dir;
    let entries: Dirent[];
    try {
      entries = readdirSync(here, { withFileTypes: true });
    } catch (error) {
      if (relative === '')
        throw new RbError('DATA_UNREADABLE', `${dir}: cannot list the directory (${errorMessage(error)})`);
      listing.problems.push({ file: here, message: `cannot list (${errorMessage(error)})` });
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
        listing.problems.push({
          file,
          message: `is ${kind}, not a regular file: only regular files inside the directory are read (replace it by the file itself)`,
        });
        continue;
      }
      const read = readRegularFile(file);
      if (typeof read === 'string') listing.files.push({ path, file, text: read });
      else listing.problems.push({ file, message: read.problem });
    }
  };
  walk('');
  listing.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return listing;
}

/**
 * The text of a regular file; opened without following a link and without blocking, then checked,
 * so an entry swapped for a link or a FIFO after the listing is refused too.
 */
function readRegularFile(file: string): string | { problem: string } {
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
    return readFileSync(fd, 'utf8');
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

/**
 * Reads and validates every selected result file under `dir`, ordered by start time (instants,
 * since offsets may differ), then run id. Every problem — an unreadable entry, an invalid file,
 * a run id stored twice — is collected, and any one fails the whole read (a `code` error whose
 * first line is `title(number of problems)`): a reader that dropped a file would show a history that never was.
 */
export function loadResultDir(
  dir: string,
  options: { select?: DirSelect; code: string; title: (problems: number) => string; hint: string },
): DirRun[] {
  const listing = readResultDir(dir, options.select ?? jsonFiles);
  const problems = listing.problems.map((p) => `${p.file}: ${p.message}`);
  const runs: DirRun[] = [];
  const seen = new Map<string, string>();
  for (const f of listing.files) {
    let run: RunResult;
    try {
      run = parseResult(f.text, f.file);
    } catch (error) {
      problems.push(errorMessage(error));
      continue;
    }
    const other = seen.get(run.runId);
    if (other !== undefined) {
      problems.push(duplicateRunMessage(f.file, run.runId, other));
      continue;
    }
    seen.set(run.runId, f.file);
    runs.push({ run, path: f.path, file: f.file });
  }
  if (problems.length > 0)
    throw new RbError(
      options.code,
      `${options.title(problems.length)}:\n${problems.join('\n')}`,
      options.hint,
    );
  return runs.sort(
    (a, b) =>
      Date.parse(a.run.startedAt) - Date.parse(b.run.startedAt) ||
      (a.run.runId < b.run.runId ? -1 : a.run.runId > b.run.runId ? 1 : 0),
  );
}

/** The message for a run id found in a second file. */
export function duplicateRunMessage(file: string, runId: string, firstFile: string): string {
  return `${file}: runId: ${runId} is also stored as ${firstFile}`;
}
