// The compute worker threads return what the same functions return on the main thread.
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { ComputePool } from '../../src/lib/compute-pool.ts';
import { compareWithBest } from '../../src/lib/significance.ts';
import { regressionReport } from '../../src/lib/regressions.ts';
import { nightlyStatus } from '../../src/lib/views/status.ts';
import { matrixRowId, type MatrixTests } from '../../src/lib/views/overview.ts';
import { EMPTY_ANNOTATIONS, type Annotations } from '@runtime-bench/runner/compare';
import { sharedGate } from '../../src/lib/gate.ts';
import { syntheticRun } from '../../bench/synthetic.ts';

const WORKER = fileURLToPath(new URL('../../src/lib/compute-worker.ts', import.meta.url));

test("verdicts and a gate replay in the pool equal the main thread's, and errors come back as errors", async () => {
  const pool = new ComputePool(WORKER, 2);
  try {
    const rows: MatrixTests[] = [
      {
        key: { hostClassId: 'h', metricKey: 'a' },
        rows: [[1, 2, 3, 4, 5, 6], [2, 3, 4, 5, 6, 7], []],
        direction: 'lower',
      },
      {
        key: { hostClassId: 'h', metricKey: 'b' },
        rows: [
          [10, 11, 12, 13],
          [1, 1.1, 1.2, 1.3],
        ],
        direction: 'higher',
      },
    ];
    const runs = Array.from({ length: 6 }, (_, i) => ({ run: syntheticRun(i * 2), file: `runs/${i}.json` }));
    // The history's annotations reach the worker's gate: a baseline reset at the fourth run
    // leaves the later runs without a baseline.
    const reset: Annotations = {
      ...EMPTY_ANNOTATIONS,
      baselineResets: [{ from: runs[3]!.run.startedAt, reason: 'test reset' }],
    };
    const [verdicts, report, withReset] = await Promise.all([
      pool.run({ task: 'verdicts', rows }),
      pool.run({ task: 'gate', runs, annotations: EMPTY_ANNOTATIONS }),
      pool.run({ task: 'gate', runs, annotations: reset }),
    ]);
    // each row's verdicts come back under its (host class, metric) key
    expect(verdicts).toEqual(rows.map((r) => [matrixRowId(r.key), compareWithBest(r.rows, r.direction)]));
    const gate = sharedGate();
    expect(report).toEqual({ regressions: regressionReport(runs, gate), status: nightlyStatus(runs, gate) });
    const resetGate = sharedGate({ annotations: reset });
    expect(withReset).toEqual({
      regressions: regressionReport(runs, resetGate),
      status: nightlyStatus(runs, resetGate),
    });
    expect(withReset).not.toEqual(report);
    // a task that throws rejects with its message; the pool goes on
    const bad: MatrixTests[] = [
      {
        key: { hostClassId: 'h', metricKey: 'c' },
        rows: [
          [Number.NaN, 1],
          [1, 2],
        ],
        direction: 'lower',
      },
    ];
    const thrown = (() => {
      try {
        compareWithBest(bad[0]!.rows, 'lower');
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(thrown).toBeDefined();
    await expect(pool.run({ task: 'verdicts', rows: bad })).rejects.toThrow(thrown!);
    await expect(pool.run({ task: 'verdicts', rows })).resolves.toEqual(verdicts);
  } finally {
    await pool.close();
  }
}, 120_000);
