import { describe, expect, test } from 'vitest';
import type { BenchmarkResult } from '@runtime-bench/schemas';
import { runStatusLine } from '../../../src/run/report.ts';

const result = (benchmark: string, target: string, status: BenchmarkResult['status']) => ({
  benchmark,
  target,
  status,
  parameters: {},
  attempts: 200,
  failedAttempts: status === 'failed' ? 200 : 0,
  metrics: [],
});

describe("the end-of-run line's status", () => {
  test('a partial run names each benchmark × target that measured nothing', () => {
    const results = [
      result('operations.container.lifecycle', 'containerd-2.0.13/runc', 'ok'),
      result('operations.container.lifecycle', 'containerd-2.0.14/runc', 'failed'),
      result('performance.cpu', 'containerd-2.0.14/runc', 'failed'),
      result('performance.cpu', 'containerd-2.0.13/runc', 'invalid'),
    ];
    expect(runStatusLine({ status: 'partial', results })).toBe(
      'partial: operations.container.lifecycle on containerd-2.0.14/runc, performance.cpu on containerd-2.0.14/runc measured nothing',
    );
  });

  test('complete and incomplete runs are named as they are', () => {
    expect(runStatusLine({ status: 'complete', results: [] })).toBe('complete');
    expect(runStatusLine({ status: 'incomplete', results: [] })).toBe('incomplete');
  });
});
