// Where results live on disk: the layout of run-path.ts (the browser-safe part, re-exported here)
// joined to a data directory.
import { join } from 'node:path';
import type { BisectReport, RunResult } from '@runtime-bench/schemas';
import { BISECTIONS_SUBDIR, relativeBisectionPath } from './bisection-path.ts';
import { relativeRunPath, RUNS_SUBDIR } from './run-path.ts';

export * from './run-path.ts';
export * from './bisection-path.ts';

/** The file a result is written to in a data directory on disk (`run --data-dir`). */
export function runPathInDataDir(dataDir: string, result: Pick<RunResult, 'runId' | 'startedAt'>): string {
  return join(dataDir, RUNS_SUBDIR, ...relativeRunPath(result).split('/'));
}

/** The file a bisection report is written to in a data directory on disk (`bisect --data-dir`). */
export function bisectionPathInDataDir(
  dataDir: string,
  report: Pick<BisectReport, 'startedAt' | 'component' | 'good' | 'bad' | 'metric'>,
): string {
  return join(dataDir, BISECTIONS_SUBDIR, ...relativeBisectionPath(report).split('/'));
}
