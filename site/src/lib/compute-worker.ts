// A worker thread for the build's few heavy computations that do not grow with the history (the
// gate replayed once for the status and Regressions pages, the pre-rendered compare pairs, the
// matrix's significance tests, all bootstrap-heavy): site-data.ts runs them here, two at a time,
// while the main thread renders pages. Each task is the same pure function the pages would call.
import { parentPort } from 'node:worker_threads';
import { serveParent } from './worker-thread.ts';
import { errorMessage } from '@runtime-bench/runner';
import type { Annotations } from '@runtime-bench/runner/compare';
import { sharedGate } from './gate.ts';
import { renderedPairs } from './compare-data.ts';
import type { LoadedRun } from './load.ts';
import type { CompareRunRef } from './views/compare.ts';
import { regressionReport } from './regressions.ts';
import { compareWithBest } from './significance.ts';
import { nightlyStatus } from './views/status.ts';
import { matrixRowId, type MatrixTests } from './views/overview.ts';

export type ComputeTask =
  | { task: 'gate'; runs: LoadedRun[]; annotations: Annotations }
  | { task: 'pairs'; runs: LoadedRun[]; refs: CompareRunRef[] }
  | { task: 'verdicts'; rows: MatrixTests[] };

function run(t: ComputeTask): unknown {
  switch (t.task) {
    case 'gate': {
      // One replay per host class serves both pages: the status is the Regressions page's report
      // on the newest run, so the two pages never disagree and the runs are evaluated once.
      const gate = sharedGate({ annotations: t.annotations });
      return { regressions: regressionReport(t.runs, gate), status: nightlyStatus(t.runs, gate) };
    }
    case 'pairs':
      return renderedPairs(t.runs, t.refs);
    case 'verdicts':
      // keyed by matrix row, so the verdicts find their row whatever order they come back in
      return t.rows.map((r) => [matrixRowId(r.key), compareWithBest(r.rows, r.direction)]);
  }
}

serveParent<{ id: number; task: ComputeTask }>(({ id, task }) => {
  try {
    parentPort!.postMessage({ id, result: run(task) });
  } catch (error) {
    parentPort!.postMessage({ id, error: errorMessage(error) });
  }
});
