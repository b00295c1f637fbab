// The bisection reports of a data directory (`<data dir>/bisections/<yyyy>/<mm>/<dd>/<id>.json`,
// runner/src/results/bisection-path.ts), read by the runner's one directory reader and validated
// with the shared schema. As with result files, any invalid or misplaced report fails the build,
// naming the file: a page silently missing would hide what a bisection found.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BisectReportSchema } from '@runtime-bench/schemas';
import {
  BISECTIONS_SUBDIR,
  bisectionId,
  checkedLoad,
  errorMessage,
  jsonFiles,
  parseWithFriendlyErrors,
  readResultDir,
  relativeBisectionPath,
  type LoadedEntry,
} from '@runtime-bench/runner';
import type { LoadedBisection } from './bisections.ts';
import { resolveDataDir } from './load.ts';

/** Every report of the data directory (or of `data/` in a data branch checkout), oldest first. */
export function loadBisections(dataDir: string): LoadedBisection[] {
  const dir = join(resolveDataDir(dataDir), BISECTIONS_SUBDIR);
  if (!existsSync(dir)) return [];
  const listing = readResultDir(dir, jsonFiles);
  const entries = listing.files.map((f): LoadedEntry<LoadedBisection> | { problem: string } => {
    try {
      const report = parseWithFriendlyErrors(BisectReportSchema, JSON.parse(f.text), f.file, {
        code: 'DATA_INVALID',
      });
      const expected = relativeBisectionPath(report);
      if (f.path !== expected) return { problem: `${f.file}: this report belongs at ${expected}` };
      const id = bisectionId(report);
      return { path: f.path, file: f.file, runId: id, startedAt: report.startedAt, value: { id, report } };
    } catch (error) {
      return { problem: `${f.file}: ${errorMessage(error)}` };
    }
  });
  return checkedLoad(
    listing.problems.map((p) => `${p.file}: ${p.message}`),
    entries,
    {
      code: 'DATA_INVALID',
      title: (n) => `${n === 1 ? 'a bisection report is' : 'bisection reports are'} invalid`,
      hint: 'bisection reports are written by `runtime-bench bisect`; fix or remove the named files',
    },
  ).map((e) => e.value);
}
