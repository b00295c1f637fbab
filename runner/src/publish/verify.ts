// `data verify`: every result file on the data branch (or in a data directory) must be a valid
// result stored where its run id and start date say, each run id exactly once.
import { lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { effectiveRunStatus, type RunStatus } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { parseResult } from '../results/io.ts';
import type { GitRunner } from './git.ts';
import { RUNS_DIR, RUNS_SUBDIR, layoutProblem, runIdOfPath } from '../results/layout.ts';
import { duplicateRunMessage, readResultDir, type DirProblem } from '../results/read-dir.ts';
import { listFiles, readFiles } from './repo.ts';

/** A file found under the runs directory. */
export interface DataEntry {
  /** Relative to the runs directory, with `/` separators: `2026/11/21/<run-id>.json`. */
  path: string;
  /** How messages name the file: `data/runs/…` on a branch, the real path for a directory. */
  where: string;
  text: string;
}

export interface VerifyReport {
  /** What was verified: `<ref> (<commit>)` or a directory. */
  source: string;
  files: number;
  valid: number;
  invalid: number;
  /**
   * Valid runs per run status as every reader states it (effectiveRunStatus): a file before
   * schemaVersion 6 that says complete of a run with an unmeasured benchmark × target is partial.
   */
  runs: Record<RunStatus, number>;
  problems: { file: string; message: string }[];
}

/**
 * Validates each entry and its place in the layout; never throws for a bad file, it counts it.
 * `refused` are entries that could not be read as files (links, FIFOs): each counts as invalid.
 */
export function verifyEntries(
  entries: readonly DataEntry[],
  source: string,
  refused: readonly DirProblem[] = [],
): VerifyReport {
  const report: VerifyReport = {
    source,
    files: entries.length + refused.length,
    valid: 0,
    invalid: refused.length,
    runs: { complete: 0, partial: 0, incomplete: 0 },
    problems: refused.map((p) => ({ file: p.file, message: `${p.file}: ${p.message}` })),
  };
  const firstSeen = new Map<string, string>();
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const entry of sorted) {
    const problem = entryProblem(entry, firstSeen);
    if (problem.message !== undefined) {
      report.invalid += 1;
      report.problems.push({ file: entry.where, message: problem.message });
    } else if (problem.status) {
      report.valid += 1;
      report.runs[problem.status] += 1;
    }
  }
  return report;
}

function entryProblem(
  entry: DataEntry,
  firstSeen: Map<string, string>,
): { message?: string; status?: RunStatus } {
  if (runIdOfPath(entry.path) === undefined) {
    return {
      message: `${entry.where}: not a result file (only <run-id>.json files belong under ${RUNS_DIR})`,
    };
  }
  let result;
  try {
    result = parseResult(entry.text, entry.where);
  } catch (error) {
    return { message: errorMessage(error) };
  }
  const misplaced = layoutProblem(entry.path, result);
  if (misplaced) return { message: `${entry.where}: ${misplaced}` };
  const other = firstSeen.get(result.runId);
  if (other !== undefined) return { message: duplicateRunMessage(entry.where, result.runId, other) };
  firstSeen.set(result.runId, entry.where);
  return { status: effectiveRunStatus(result) };
}

/**
 * The result files of a data directory laid out like the branch (`<dir>/runs/yyyy/mm/dd/*.json`,
 * e.g. `data/` on main), read by results/read-dir.ts: entries it refuses (links, FIFOs) come back
 * as problems. A missing `runs/` is an empty data set; a missing `<dir>` is an error.
 */
export async function readDirEntries(dir: string): Promise<{ entries: DataEntry[]; problems: DirProblem[] }> {
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new RbError(
      'USAGE_DATA_DIR',
      `${dir} is not a directory`,
      'pass the data directory, e.g. --dir data',
    );
  const runs = join(dir, RUNS_SUBDIR);
  const info = await lstat(runs).catch(() => null);
  if (!info) return { entries: [], problems: [] };
  // runs/ is an entry of the data directory like any other: a link there is not followed out.
  if (info.isSymbolicLink())
    return {
      entries: [],
      problems: [{ file: runs, message: 'is a symbolic link: only a real runs/ directory is read' }],
    };
  const listing = readResultDir(runs);
  return {
    entries: listing.files.map((f) => ({ path: f.path, where: f.file, text: f.text })),
    problems: listing.problems,
  };
}

/** The result files of `commit` (read from the object store, nothing checked out). */
export async function readCommitEntries(git: GitRunner, cwd: string, commit: string): Promise<DataEntry[]> {
  const paths = await listFiles(git, cwd, commit, RUNS_DIR);
  const texts = await readFiles(git, cwd, commit, paths);
  return paths.map((path) => ({
    path: path.slice(RUNS_DIR.length + 1),
    where: path,
    text: texts.get(path) ?? '',
  }));
}

/**
 * The commit of the local data branch: `refs/heads/<branch>`, else the remote-tracking
 * `refs/remotes/origin/<branch>` that a plain clone has.
 */
export async function resolveLocalBranch(
  git: GitRunner,
  repo: string,
  branch: string,
): Promise<{ ref: string; commit: string }> {
  for (const ref of [`refs/heads/${branch}`, `refs/remotes/origin/${branch}`]) {
    const found = await git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repo });
    if (found.exitCode === 0) return { ref, commit: found.stdout.trim() };
  }
  throw new RbError(
    'DATA_NO_BRANCH',
    `${repo} has no branch ${branch} (neither refs/heads/${branch} nor refs/remotes/origin/${branch})`,
    `fetch it (git fetch origin ${branch}) or pass --remote origin to verify the remote's copy`,
  );
}
