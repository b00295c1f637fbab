import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '@runtime-bench/schemas';
import { RbError, loadResultDir, type LoadOptions } from '@runtime-bench/runner';

/** A validated result file and where it lives, relative to the data directory (POSIX separators). */
export interface LoadedRun {
  run: RunResult;
  /** e.g. "runs/2026/11/21/20261121T080000Z-0123abcd.json" */
  file: string;
}

/**
 * The directory that holds `runs/`: the given one, or its `data/` when it is the root of a data
 * branch checkout (where results live at `data/runs/…`), so that RB_DATA_DIR may name either.
 */
export function resolveDataDir(dir: string): string {
  if (!existsSync(join(dir, 'runs')) && existsSync(join(dir, 'data', 'runs'))) return join(dir, 'data');
  return dir;
}

/**
 * Reads and validates every `*.json` under `<dataDir>/runs` (recursively) with the shared result
 * schema and the runner's one directory reader (runner/src/results/read-dir.ts). Every invalid
 * file is reported, each line naming the file and the field, and the whole load fails: a site
 * that silently dropped a file would show a history that never happened.
 * A data directory without `runs/` is an empty history; a missing data directory is an error
 * (most likely a wrong RB_DATA_DIR).
 */
export function loadRuns(dataDir: string): LoadedRun[] {
  assertDataDir(dataDir);
  const runsDir = join(dataDir, 'runs');
  if (!existsSync(runsDir)) return [];
  return loadResultDir(runsDir, LOAD_OPTIONS).map(({ run, path }) => ({ run, file: `runs/${path}` }));
}

/** How a failed load is reported (by loadRuns and the build's parallel loader alike). */
export const LOAD_OPTIONS: LoadOptions = {
  code: 'DATA_INVALID',
  title: (n) => `${n === 1 ? 'a result file is' : 'result files are'} invalid`,
  hint: 'fix or remove the named files; result files are written by `runtime-bench run` and never edited by hand',
};

/** A missing data directory is an error (most likely a wrong RB_DATA_DIR). */
export function assertDataDir(dataDir: string): void {
  if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) {
    throw new RbError(
      'DATA_DIR_MISSING',
      `data directory ${dataDir} does not exist`,
      'set RB_DATA_DIR to a checkout of the data branch, or unset it to build from the repository data/',
    );
  }
}
