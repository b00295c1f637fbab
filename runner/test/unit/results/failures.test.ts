// Which benchmark results fail `run` (exit EXIT.benchmarkFailed): read from real published results
// and from one whose statuses are set here.
import { describe, expect, test } from 'vitest';
import type { RunResult } from '@runtime-bench/schemas';
import { sampleRunResult } from '../../../../schemas/test/sample.ts';
import { benchmarkFailures, throwIfBenchmarksFailed } from '../../../src/results/failures.ts';
import { readResultFile } from '../../../src/results/io.ts';
import { EXIT } from '../../../src/exit-codes.ts';
import { RbError } from '../../../src/errors.ts';

const DATA = new URL('../../../../data/runs/', import.meta.url).pathname;

function withStatuses(statuses: RunResult['results'][number]['status'][]): RunResult {
  const run = sampleRunResult();
  const template = run.results[0]!;
  return {
    ...run,
    results: statuses.map((status, i) => ({ ...template, benchmark: `b${i}`, status })),
  };
}

describe('benchmarkFailures', () => {
  test('failed and invalid fail a run; ok, unsupported and interrupted do not', () => {
    expect(
      benchmarkFailures([withStatuses(['ok', 'failed', 'unsupported', 'invalid', 'interrupted'])]),
    ).toEqual([
      `b1 on ${sampleRunResult().results[0]!.target}: failed`,
      `b3 on ${sampleRunResult().results[0]!.target}: invalid`,
    ]);
    expect(benchmarkFailures([withStatuses(['ok', 'unsupported'])])).toEqual([]);
  });

  test('a published run with a failed benchmark fails; one without does not', async () => {
    const failing = await readResultFile(`${DATA}2026/11/27/20261127T012001Z-7f696e85.json`);
    const failed = failing.results.filter((r) => r.status === 'failed' || r.status === 'invalid');
    expect(failed.length).toBeGreaterThan(0);
    expect(benchmarkFailures([failing])).toHaveLength(failed.length);
    const clean = await readResultFile(`${DATA}2026/11/23/20261123T072835Z-8aa322b5.json`);
    expect(benchmarkFailures([clean])).toEqual(
      clean.results
        .filter((r) => r.status === 'failed' || r.status === 'invalid')
        .map(() => expect.any(String)),
    );
  });

  test('throwIfBenchmarksFailed: the documented exit code, the failures named', () => {
    expect(() => throwIfBenchmarksFailed([withStatuses(['ok'])])).not.toThrow();
    let error: unknown;
    try {
      throwIfBenchmarksFailed([withStatuses(['ok', 'failed'])]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RbError);
    expect((error as RbError).cliExitCode).toBe(EXIT.benchmarkFailed.code);
    expect((error as RbError).message).toMatch(/^1 benchmark\(s\) did not measure: b1 on .*: failed$/);
    // Not a code another outcome already has.
    const codes = Object.values(EXIT).map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
