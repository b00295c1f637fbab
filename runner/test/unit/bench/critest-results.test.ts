// critest's --benchmark files and their comparison with ours. The fixtures are the two files
// critest 1.37.0 wrote on a containerd 1.6.20 + runc 1.1.5 stack (runner/test/fixtures/README.md);
// the durations expected below are read off those files by eye, in nanoseconds, divided by 1e6.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  compareWithCritest,
  mergeSamples,
  parseCritestBenchmark,
  toleranceVerdict,
} from '../../../bench/critest-results.ts';
import { RbError } from '../../../src/errors.ts';

const fixture = (kind: 'container' | 'pod'): string =>
  readFileSync(
    join(import.meta.dirname, '../../fixtures/critest', `critest-1.37.0-${kind}_benchmark_data.json`),
    'utf8',
  );

describe('parseCritestBenchmark', () => {
  test('container benchmark: each operation as its CRI call, in ms, in datapoint order', () => {
    const samples = parseCritestBenchmark(fixture('container'), 'container.json');
    expect(Object.keys(samples)).toEqual([
      'CreateContainer',
      'StartContainer',
      'ContainerStatus',
      'StopContainer',
      'RemoveContainer',
    ]);
    expect(samples.CreateContainer).toEqual([8.914241, 11.507669, 16.544192]);
    expect(samples.RemoveContainer).toEqual([3.679263, 5.681882, 10.385961]);
    expect(samples.StopContainer).toEqual([77.421824, 70.006363, 73.264365]);
  });

  test("pod benchmark: critest's CreatePod/StatusPod/StopPod/RemovePod are the sandbox calls", () => {
    const samples = parseCritestBenchmark(fixture('pod'), 'pod.json');
    expect(Object.keys(samples)).toEqual([
      'RunPodSandbox',
      'PodSandboxStatus',
      'StopPodSandbox',
      'RemovePodSandbox',
    ]);
    expect(samples.RunPodSandbox).toEqual([131.70654, 159.010008, 232.951785]);
    expect(samples.RemovePodSandbox).toEqual([29.26853, 44.099995, 28.820144]);
  });

  const altered = (change: (set: Record<string, unknown>) => void): string => {
    const set = JSON.parse(fixture('container')) as Record<string, unknown>;
    change(set);
    return JSON.stringify(set);
  };
  const refusal = (text: string): RbError => {
    try {
      parseCritestBenchmark(text, 'x.json');
    } catch (error) {
      return error as RbError;
    }
    throw new Error('parsed without complaint');
  };

  test('refuses parallel samples, unknown operations, short datapoints and non-JSON, naming the field', () => {
    const parallel = refusal(altered((s) => (s.numParallel = 4)));
    expect(parallel).toBeInstanceOf(RbError);
    expect(parallel.message).toMatch(/numParallel is 4/);
    expect(parallel.hint).toMatch(/Parallel at 1/);
    const unknown = refusal(altered((s) => ((s.operationsNames as string[])[2] = 'ExecSync')));
    expect(unknown.message).toMatch(/unknown operation "ExecSync"/);
    const short = refusal(
      altered((s) => (s.datapoints as { operationsDurationsNs: number[] }[])[1]!.operationsDurationsNs.pop()),
    );
    expect(short.message).toMatch(/sampleIndex 1.*4 durations for 5 operations/);
    const negative = refusal(
      altered(
        (s) => ((s.datapoints as { operationsDurationsNs: number[] }[])[0]!.operationsDurationsNs[0] = -1),
      ),
    );
    expect(negative.message).toMatch(/datapoints\.0\.operationsDurationsNs\.0/);
    expect(refusal('PASS\n').code).toBe('CRITEST_OUTPUT');
  });

  test('the two files merge into one set of calls, and rounds append', () => {
    const all = {};
    mergeSamples(all, parseCritestBenchmark(fixture('pod'), 'pod.json'));
    mergeSamples(all, parseCritestBenchmark(fixture('container'), 'container.json'));
    mergeSamples(all, parseCritestBenchmark(fixture('container'), 'container.json'));
    expect(Object.keys(all)).toHaveLength(9);
    expect((all as Record<string, number[]>).RemoveContainer).toHaveLength(6);
    expect((all as Record<string, number[]>).RunPodSandbox).toHaveLength(3);
  });
});

describe('compareWithCritest', () => {
  test('ratio of medians ours / critest per call in the given order; calls one side lacks are left out', () => {
    const critest = { RemoveContainer: [4, 5, 6], StopContainer: [70, 72, 90], ContainerStatus: [1, 1, 1] };
    const ours = { RemoveContainer: [5, 6, 9], StopContainer: [60, 64, 61], RunPodSandbox: [100] };
    const rows = compareWithCritest(critest, ours, ['RunPodSandbox', 'StopContainer', 'RemoveContainer']);
    expect(rows.map((r) => r.call)).toEqual(['StopContainer', 'RemoveContainer']);
    const [stop, remove] = rows;
    // medians: StopContainer 72 vs 61, RemoveContainer 5 vs 6
    expect(stop).toMatchObject({ critestMedian: 72, oursMedian: 61, critestN: 3, oursN: 3 });
    expect(stop!.ratio.estimate).toBeCloseTo(61 / 72, 12);
    expect(remove!.ratio.estimate).toBeCloseTo(6 / 5, 12);
    // A percentile interval's ends are ratios of resampled medians: within the extremes possible.
    expect(remove!.ratio.lower).toBeGreaterThanOrEqual(5 / 6);
    expect(remove!.ratio.upper).toBeLessThanOrEqual(9 / 4);
    expect(remove!.ratio.lower).toBeLessThanOrEqual(remove!.ratio.estimate);
    expect(stop!.method).toMatch(/PID namespace/);
    expect(remove!.method).toBeNull();
  });
});

describe('toleranceVerdict', () => {
  const ci = (lower: number, upper: number) => ({
    estimate: (lower + upper) / 2,
    lower,
    upper,
    confidence: 0.95,
  });
  test('met inside the band, NOT met wholly outside, undecided across an edge', () => {
    expect(toleranceVerdict(ci(0.96, 1.04), 0.05)).toBe('met');
    expect(toleranceVerdict(ci(0.95, 1.05), 0.05)).toBe('met');
    expect(toleranceVerdict(ci(1.06, 1.3), 0.05)).toBe('NOT met');
    expect(toleranceVerdict(ci(0.8, 0.94), 0.05)).toBe('NOT met');
    expect(toleranceVerdict(ci(1.01, 1.2), 0.05)).toBe('undecided');
    expect(toleranceVerdict(ci(0.9, 1.1), 0.05)).toBe('undecided');
  });
});
