// Which benchmarks of a run did not measure: the reason `run` and `sweep` exit with
// EXIT.benchmarkFailed after writing the result (a CI job must not go green on a failed benchmark).
import type { RunResult } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';

/**
 * Statuses that fail a run: nothing measured (failed) or an error rate above the threshold
 * (invalid). `unsupported` is the runtime declining a feature, and `interrupted` has its own status.
 */
const FAILING = new Set(['failed', 'invalid']);

/** `<benchmark> on <target>: <status>` for every failing benchmark result of the runs. */
export function benchmarkFailures(results: readonly RunResult[]): string[] {
  return results.flatMap((run) =>
    run.results.filter((r) => FAILING.has(r.status)).map((r) => `${r.benchmark} on ${r.target}: ${r.status}`),
  );
}

/** Throws the error that gives the run its exit status when a benchmark failed; else nothing. */
export function throwIfBenchmarksFailed(results: readonly RunResult[]): void {
  const failures = benchmarkFailures(results);
  if (failures.length === 0) return;
  throw new RbError(
    'BENCHMARK_FAILED',
    `${failures.length} benchmark(s) did not measure: ${failures.join('; ')}`,
    'the result is written: each result says why (status and reason, also printed above)',
    { exitCode: EXIT.benchmarkFailed.code },
  );
}
