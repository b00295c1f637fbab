// The one definition of where results live: <data dir>/runs/<yyyy>/<mm>/<dd>/<run-id>.json, the
// date being the UTC date of startedAt. A data directory is `data/` on main and on the data branch
// (`runtime-bench run --data-dir`, `data verify --dir`, the site and the gate all read it). One
// immutable file per run, so concurrent publishers never edit the same file and history only grows.
// Browser-safe (no Node module): the site's run page finds files with it (`@runtime-bench/runner/layout`);
// layout.ts adds the paths on disk.
import type { RunResult } from '@runtime-bench/schemas';

/** The directory of result files inside a data directory. */
export const RUNS_SUBDIR = 'runs';

/** Directory of result files, relative to the root of the data branch (and of main). */
export const RUNS_DIR = `data/${RUNS_SUBDIR}`;

/** Directory, relative to the root of the data branch, holding copies of the JSON Schema files. */
export const SCHEMAS_DIR = 'schemas';

/** The default branch results are published to. */
export const DEFAULT_DATA_BRANCH = 'benchmark-data';

/** `yyyy/mm/dd` of an ISO timestamp, in UTC (an offset such as +02:00 is honoured). */
export function utcDatePath(isoDateTime: string): string {
  const date = new Date(isoDateTime);
  if (Number.isNaN(date.getTime())) throw new Error(`not a date-time: ${isoDateTime}`);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getUTCFullYear()}/${pad(date.getUTCMonth() + 1)}/${pad(date.getUTCDate())}`;
}

/** The path of a result relative to a runs directory: `<yyyy>/<mm>/<dd>/<run-id>.json`. */
export function relativeRunPath(result: Pick<RunResult, 'runId' | 'startedAt'>): string {
  return `${utcDatePath(result.startedAt)}/${result.runId}.json`;
}

/** The path of a result on the data branch, relative to its root (`prefix` replaces `data/runs`). */
export function runPath(result: Pick<RunResult, 'runId' | 'startedAt'>, prefix = RUNS_DIR): string {
  return `${prefix}/${relativeRunPath(result)}`;
}

/**
 * The path of a run's file relative to a runs directory, from its run id alone: a valid result's
 * id starts with the UTC stamp of its startedAt (the schema checks it, result-checks.ts), so the id
 * names the same `<yyyy>/<mm>/<dd>/<run-id>.json` as relativeRunPath. For readers that know only
 * the id, such as the site's run page.
 */
export function relativeRunPathOfId(runId: string): string {
  return `${runId.slice(0, 4)}/${runId.slice(4, 6)}/${runId.slice(6, 8)}/${runId}.json`;
}

/** The run id a result path names (its file name without `.json`), or undefined for other files. */
export function runIdOfPath(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.endsWith('.json') ? name.slice(0, -'.json'.length) : undefined;
}

/**
 * Why a validated result does not belong at `path` (relative to the runs directory, e.g.
 * `2026/11/21/<id>.json`), or undefined when it does.
 */
export function layoutProblem(
  relativePath: string,
  result: Pick<RunResult, 'runId' | 'startedAt'>,
): string | undefined {
  const expected = relativeRunPath(result);
  if (relativePath === expected) return undefined;
  return `runId ${result.runId} started at ${result.startedAt} belongs at ${expected}, not ${relativePath}`;
}

/** File names of the annotations at the top of a history directory, `runs/` (at most one may exist). */
export const ANNOTATION_FILES = ['annotations.json', 'annotations.yaml', 'annotations.yml'];
