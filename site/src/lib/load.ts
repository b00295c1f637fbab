import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { RunResult } from '@runtime-bench/schemas';
import { RbError, errorMessage, parseResult } from '@runtime-bench/runner';

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
 * schema. Every invalid file is reported, each line naming the file and the field, and the whole
 * load fails: a site that silently dropped a file would show a history that never happened.
 * A data directory without `runs/` is an empty history; a missing data directory is an error
 * (most likely a wrong RB_DATA_DIR).
 */
export function loadRuns(dataDir: string): LoadedRun[] {
  if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) {
    throw new RbError(
      'DATA_DIR_MISSING',
      `data directory ${dataDir} does not exist`,
      'set RB_DATA_DIR to a checkout of the data branch, or unset it to build from the repository data/',
    );
  }
  const runsDir = join(dataDir, 'runs');
  if (!existsSync(runsDir)) return [];
  const files = readdirSync(runsDir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.json') && !f.split(sep).some((part) => part.startsWith('.')))
    .sort();
  const loaded: LoadedRun[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const f of files) {
    const rel = `runs/${f.split(sep).join('/')}`;
    const path = join(runsDir, f);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      problems.push(`${path}: cannot read (${errorMessage(error)})`);
      continue;
    }
    try {
      const run = parseResult(text, path);
      const other = seen.get(run.runId);
      if (other) problems.push(`${path}: runId: ${run.runId} is also the run id of ${other}`);
      seen.set(run.runId, path);
      loaded.push({ run, file: rel });
    } catch (error) {
      problems.push(errorMessage(error));
    }
  }
  if (problems.length > 0) {
    throw new RbError(
      'DATA_INVALID',
      `${problems.length === 1 ? 'a result file is' : 'result files are'} invalid:\n${problems.join('\n')}`,
      'fix or remove the named files; result files are written by `runtime-bench run` and never edited by hand',
    );
  }
  // Timestamps may carry different offsets, so compare instants rather than strings.
  return loaded.sort(
    (a, b) =>
      Date.parse(a.run.startedAt) - Date.parse(b.run.startedAt) || a.run.runId.localeCompare(b.run.runId),
  );
}
