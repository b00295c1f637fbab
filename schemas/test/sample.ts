// A small, schema-valid result for tests that need a document of the right shape (publishing,
// validation, aggregation). Its numbers are invented: never ship them as a measurement.
import { RESULT_SCHEMA_VERSION, ConfigSchema, type RunResult } from '../src/index.ts';

export function sampleRunResult(overrides: Partial<RunResult> = {}): RunResult {
  const samples = [5.1, 5.3, 4.9, 5.0, 5.2];
  return {
    schemaVersion: RESULT_SCHEMA_VERSION,
    runId: '20261121T080000Z-0123abcd',
    status: 'complete',
    startedAt: '2026-11-21T08:00:00.000Z',
    finishedAt: '2026-11-21T08:01:00.000Z',
    tool: { name: 'runtime-bench', version: '0.1.0', gitCommit: null, node: 'v24.21.0' },
    host: {
      hostname: 'test-host',
      kernel: '6.18.44',
      os: 'Debian GNU/Linux 12 (bookworm)',
      arch: 'x64',
      cpuModel: 'Test CPU',
      cpus: 2,
      memoryBytes: 24 * 1024 ** 3,
      virtualization: null,
      cgroup: { mode: 'hybrid', v2Controllers: [] },
      capabilities: { effective: '1fffeffffff', sysAdmin: true, sysResource: false },
      hostFixes: [],
    },
    components: [{ name: 'containerd', role: 'cri', version: '1.6.20' }],
    config: ConfigSchema.parse({}),
    configHash: `sha256:${'0'.repeat(64)}`,
    targets: [
      {
        id: 'containerd/runc',
        cri: { name: 'containerd', version: '1.6.20', apiVersion: 'v1', endpoint: 'unix:///tmp/c.sock' },
        handler: 'runc',
        oci: { name: 'runc', version: '1.1.5', path: '/usr/sbin/runc' },
        transport: 'grpc',
      },
    ],
    benchmarks: [
      {
        name: 'operations.container.lifecycle',
        description: 'CRI call latencies',
        origin: ['touchstone'],
        metrics: [
          { name: 'CreateContainer', unit: 'ms', direction: 'lower', description: 'CreateContainer latency' },
        ],
      },
    ],
    results: [
      {
        benchmark: 'operations.container.lifecycle',
        target: 'containerd/runc',
        status: 'ok',
        parameters: {},
        attempts: 5,
        failedAttempts: 0,
        metrics: [
          {
            name: 'CreateContainer',
            unit: 'ms',
            direction: 'lower',
            samples,
            errors: { count: 0, messages: [] },
            summary: {
              n: 5,
              median: 5.1,
              mean: 5.1,
              stdev: Math.sqrt(0.025),
              min: 4.9,
              max: 5.3,
              p90: 5.26,
              p99: 5.296,
            },
          },
        ],
      },
    ],
    ...overrides,
  };
}
