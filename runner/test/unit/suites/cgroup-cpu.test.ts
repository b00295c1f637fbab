import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { parseCgroupCpu, splitCgroupCpu, withCgroupCpu } from '../../../src/suites/cgroup-cpu.ts';

// cgroup v1 (kernel 6.18, this host): cpu.stat, then the usage line the snippet echoes.
const V1 = `nr_periods 1484
nr_throttled 1339
throttled_time 120745123456
nr_bursts 0
burst_time 0
usage_nsec 14923000111
`;
// cgroup v2 (Documentation/admin-guide/cgroup-v2.rst, "cpu.stat").
const V2 = `usage_usec 14923000
user_usec 14800000
system_usec 123000
nr_periods 1484
nr_throttled 1339
throttled_usec 120745123
nr_bursts 0
burst_usec 0
`;

describe('parseCgroupCpu', () => {
  test.each([
    ['v1', V1],
    ['v2', V2],
  ])('cgroup %s: periods, throttling in ms and usage in ms', (_v, text) => {
    const c = parseCgroupCpu(text);
    expect(c.periods).toBe(1484);
    expect(c.throttledPeriods).toBe(1339);
    expect(c.throttledMs).toBeCloseTo(120745.123, 2);
    expect(c.usageMs).toBeCloseTo(14923, 0);
  });
  test('no usage counter: null usage; no quota counters: an error that says so', () => {
    expect(parseCgroupCpu('nr_periods 3\nnr_throttled 1\nthrottled_time 5000000\n').usageMs).toBeNull();
    expect(() => parseCgroupCpu('')).toThrow(/no CFS quota counters .*got: nothing/);
  });
});

describe('withCgroupCpu', () => {
  test("the workload's output, then the counters; the workload's exit status is kept", () => {
    const [sh, c, script] = withCgroupCpu(['echo', 'hello']);
    const out = execFileSync(sh!, [c!, script!], { encoding: 'utf8' });
    const { workload, counters } = splitCgroupCpu(out);
    expect(workload).toBe('hello\n');
    expect(counters).not.toBeNull();
    const [, , failing] = withCgroupCpu(['false']);
    expect(() => execFileSync('/bin/sh', ['-c', failing!], { stdio: 'ignore' })).toThrow(
      /status 1|code 1|failed/i,
    );
    expect(splitCgroupCpu('no marker')).toEqual({ workload: 'no marker', counters: null });
  });
});
