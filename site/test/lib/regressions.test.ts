import { describe, expect, test } from 'vitest';
import { median } from '@runtime-bench/runner/stats';
import { buildIndex } from '../../src/lib/aggregate.ts';
import { regressionReport, type Gate } from '../../src/lib/regressions.ts';
import { loaded, makeRun, spread } from './fixtures.ts';

const runs = [50, 50, 65, 64].map((center, i) =>
  makeRun(`2026110${i + 1}T000000Z-0000000${i}`, `2026-11-0${i + 1}T00:00:00Z`, [
    { oci: 'runc', ociVersion: '1.1.5', samples: spread(center) },
  ]),
);
const index = buildIndex(loaded(...runs));

// A stand-in gate with a plain rule (10 % change of the median), enough to test the plumbing.
const tenPercent: Gate = (baseline, candidate, direction) => {
  const ratio = median(candidate) / median(baseline);
  const worse = direction === 'lower' ? ratio > 1.1 : ratio < 0.9;
  const better = direction === 'lower' ? ratio < 0.9 : ratio > 1.1;
  return {
    verdict: worse ? 'regression' : better ? 'improvement' : 'no-change',
    ratio,
    lower: null,
    upper: null,
  };
};

describe('regressionReport', () => {
  test('without a gate it says so instead of reporting "no regressions"', () => {
    expect(regressionReport(index, undefined)).toEqual({ state: 'no-gate', findings: [] });
  });

  test('runs the gate over consecutive runs and keeps what it flagged', () => {
    const report = regressionReport(index, tenPercent);
    if (report.state !== 'gate') throw new Error('expected gate results');
    expect(report.compared).toBe(3);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({
      verdict: 'regression',
      runId: runs[2]!.runId,
      baselineRunId: runs[1]!.runId,
      combo: 'containerd/runc',
    });
    expect(report.findings[0]!.ratio).toBeCloseTo(1.3, 10);
  });
});
