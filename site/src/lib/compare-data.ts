// The compare view's build-time side: the run list the client picks from, and the pre-rendered
// pairs computed with the runner's compareRuns.
import { compareRuns, type CompareReport } from '@runtime-bench/runner/compare-runs';
import { formatTime } from '@runtime-bench/runner/format';
import { hostClassOf, type RunResult } from '@runtime-bench/schemas';
import type { LoadedRun } from './load.ts';
import { isSynthetic } from './site-index.ts';
import { targetVersionsLabel } from './labels.ts';
import { slugify } from './slug.ts';
import {
  apartRows,
  commonPairs,
  COMPARE_OPTIONS,
  type ComparePair,
  type CompareRunRef,
} from './views/compare.ts';

/** A run as the compare page's client picks it (also what the loading workers send per file). */
export function compareRunRef(run: RunResult, file: string): CompareRunRef {
  return {
    runId: run.runId,
    file,
    startedAt: run.startedAt,
    hostClassId: slugify(hostClassOf(run.host)),
    synthetic: isSynthetic(run),
    targets: run.targets.map((t) => [t.id, targetVersionsLabel(t)]),
  };
}

export function compareRunRefs(loaded: readonly LoadedRun[]): CompareRunRef[] {
  return loaded.map(({ run, file }) => compareRunRef(run, file));
}

export interface RenderedPair extends ComparePair {
  report: CompareReport;
  /** rows not compared, by index into report.rows (views/compare.ts apartRows) */
  apart: Record<number, string>;
}

/**
 * The common pairs with their reports. `refs`: the runs as the index knows them (with each target's
 * lineage), in the order of `loaded`; without them each target is its own lineage.
 */
export function renderedPairs(
  loaded: readonly LoadedRun[],
  refs: readonly CompareRunRef[] = compareRunRefs(loaded),
): RenderedPair[] {
  const byId = new Map(loaded.map((l) => [l.run.runId, l]));
  return commonPairs(refs).map((pair) => {
    const a = byId.get(pair.baseline.runId)!;
    const b = byId.get(pair.candidate.runId)!;
    const report = compareRuns(
      {
        run: a.run,
        label: formatTime(a.run.startedAt),
        ...(pair.baseline.target ? { target: pair.baseline.target } : {}),
      },
      {
        run: b.run,
        label: formatTime(b.run.startedAt),
        ...(pair.candidate.target ? { target: pair.candidate.target } : {}),
        ...(pair.candidate.renamedFrom ? { renamedFrom: pair.candidate.renamedFrom } : {}),
      },
      COMPARE_OPTIONS,
    );
    return { ...pair, report, apart: apartRows(report, a.run, b.run) };
  });
}
