import { describe, expect, test } from 'vitest';
import {
  ConfigSchema,
  RunResultSchema,
  type BenchmarkDefinition,
  type HostFingerprint,
  type RunResult,
  type Target,
} from '@runtime-bench/schemas';
import {
  BenchmarkAccumulator,
  assembleBenchmarkResult,
  assembleRunResult,
  newRunId,
} from '../../../src/results/assemble.ts';

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

describe('the run status a finished run is written with', () => {
  const lifecycle: BenchmarkDefinition = {
    name: 'operations.container.lifecycle',
    description: 'CRI call latencies',
    origin: [],
    metrics: [{ name: 'CreateContainer', unit: 'ms', direction: 'lower', description: 'latency' }],
  };
  const host: HostFingerprint = {
    hostname: 'test-host',
    kernel: '6.18.44',
    os: 'Debian GNU/Linux 12 (bookworm)',
    arch: 'x64',
    cpuModel: 'Test CPU',
    cpus: 2,
    memoryBytes: 24 * 1024 ** 3,
    virtualization: null,
    cgroup: { mode: 'v2', v2Controllers: [] },
    capabilities: { effective: '1fffeffffff', sysAdmin: true, sysResource: false },
    hostFixes: [],
  };
  const target = (version: string): Target => ({
    id: `containerd-${version}/runc`,
    cri: { name: 'containerd', version, apiVersion: 'v1', endpoint: 'unix:///tmp/c.sock' },
    handler: 'runc',
    oci: { name: 'runc', version: '1.3.0', path: null },
    transport: 'grpc',
  });
  /** One accumulator per target: `true` measured every attempt, `false` failed all of them. */
  function run(measured: readonly boolean[], incompleteReason: string | null = null): RunResult {
    const targets = measured.map((_, i) => target(`2.0.${i + 13}`));
    const slots = measured.map((ok, i) => {
      const accumulator = new BenchmarkAccumulator(lifecycle);
      for (let n = 0; n < 3; n++)
        accumulator.record(
          ok
            ? { values: { CreateContainer: 10 + n }, errors: {} }
            : { values: {}, errors: {}, failure: 'OCI runtime create failed' },
        );
      return { accumulator, targetId: targets[i]!.id, parameters: {} };
    });
    const startedAt = new Date('2026-11-21T08:00:00Z');
    return assembleRunResult({
      runId: newRunId(startedAt, () => '0123abcd'),
      startedAt,
      finishedAt: new Date('2026-11-21T08:10:00Z'),
      config: ConfigSchema.parse({}),
      incompleteReason,
      part: { host, components: [], targets, benchmarks: [lifecycle], slots },
      tool: { name: 'runtime-bench', version: '0.1.0', gitCommit: null, node: 'v24.0.0' },
    });
  }

  test('a target that failed every attempt makes the run partial, and the file says so validly', () => {
    const result = run([true, false]);
    expect(result.results.map((r) => r.status)).toEqual(['ok', 'failed']);
    expect(result.status).toBe('partial');
    expect(result).not.toHaveProperty('incompleteReason');
    expect(RunResultSchema.parse(result).status).toBe('partial');
  });

  test('every target measured: complete; a stopped run: incomplete, whatever it measured', () => {
    expect(run([true, true]).status).toBe('complete');
    expect(RunResultSchema.safeParse(run([true, true])).success).toBe(true);
    const stopped = run([true, false], 'interrupted by SIGTERM');
    expect(stopped.status).toBe('incomplete');
    expect(stopped.incompleteReason).toBe('interrupted by SIGTERM');
  });
});
