import { describe, expect, test } from 'vitest';
import type { BenchmarkDefinition } from '@runtime-bench/schemas';
import { BenchmarkAccumulator, assembleBenchmarkResult } from '../../../src/results/assemble.ts';

const definition: BenchmarkDefinition = {
  name: 'overhead.runtime',
  description: 'd',
  origin: [],
  metrics: [
    { name: 'cpu_time_start', unit: 'ms', direction: 'lower', description: 'a' },
    { name: 'peak_rss', unit: 'bytes', direction: 'lower', description: 'b' },
  ],
};

describe('sources of samples', () => {
  test('counted per metric for the samples recorded; absent for metrics that never name one', () => {
    const acc = new BenchmarkAccumulator(definition);
    acc.record({
      values: { cpu_time_start: 12.5, peak_rss: 1 },
      errors: {},
      sources: { cpu_time_start: 'shim-cgroup' },
    });
    acc.record({
      values: { cpu_time_start: 30, peak_rss: 2 },
      errors: {},
      sources: { cpu_time_start: 'ticks' },
    });
    acc.record({
      values: { cpu_time_start: 13.25, peak_rss: 3 },
      errors: {},
      sources: { cpu_time_start: 'shim-cgroup' },
    });
    // A failed attempt: no sample, so no source counted for it.
    acc.record({
      values: {},
      errors: { cpu_time_start: 'x' },
      failure: 'x',
      sources: { cpu_time_start: 'ticks' },
    });
    const r = assembleBenchmarkResult(acc, 'containerd/runc', {}, 0.5);
    const [cpu, rss] = r.metrics;
    expect(cpu!.sources).toEqual({ 'shim-cgroup': 2, ticks: 1 });
    expect(cpu!.samples).toEqual([12.5, 30, 13.25]);
    expect(rss).not.toHaveProperty('sources');
  });
});
