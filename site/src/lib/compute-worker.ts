// A worker thread for the build's few heavy computations that do not grow with the history (the
// gate replayed for the status and Regressions pages, the pre-rendered compare pairs, the
// matrix's significance tests, all bootstrap-heavy): site-data.ts runs them here, two at a time,
// while the main thread renders pages. Each task is the same pure function the pages would call.
import { parentPort } from 'node:worker_threads';
import type { Direction } from '@runtime-bench/schemas';
import { errorMessage } from '@runtime-bench/runner';
import { gate } from '../gate.ts';
import { renderedPairs } from './compare-data.ts';
import type { LoadedRun } from './load.ts';
import { regressionReport } from './regressions.ts';
import { compareWithBest } from './significance.ts';
import { nightlyStatus } from './views/status.ts';

export type ComputeTask =
  | { task: 'status' | 'regressions' | 'pairs'; runs: LoadedRun[] }
  | { task: 'verdicts'; rows: [readonly (readonly number[])[], Direction][] };

function run(t: ComputeTask): unknown {
  switch (t.task) {
    case 'status':
      return nightlyStatus(t.runs, gate);
    case 'regressions':
      return regressionReport(t.runs, gate);
    case 'pairs':
      return renderedPairs(t.runs);
    case 'verdicts':
      return t.rows.map(([rows, direction]) => compareWithBest(rows, direction));
  }
}

parentPort!.on('message', ({ id, task }: { id: number; task: ComputeTask }) => {
  try {
    parentPort!.postMessage({ id, result: run(task) });
  } catch (error) {
    parentPort!.postMessage({ id, error: errorMessage(error) });
  }
});
