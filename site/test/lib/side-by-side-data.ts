// Result files built for the browser test of version changes read side by side
// (test/side-by-side.test.ts), on a host class of their own. Seven nights:
//   - nights 1–4: "nightly/runc", containerd 2.1.9 + runc 1.1.5, CreateContainer near 7 ms;
//   - night 5, a containerd sweep: containerd 2.1.9 and 2.2.9 (runc 1.1.5) side by side, near 18.3
//     and 19.2 ms — the same 2.1.9 measured at a level far from the nightly runs';
//   - night 6, a declared runc version change: runc 1.2.5 ("nightly/runc-1.2.5", before) beside
//     runc 1.2.6 ("nightly/runc", after) on containerd 2.1.9, rounds shuffled, near 7.0 and 7.7 ms;
//   - night 7: containerd 2.3.7 alone, near 16.5 ms: its step from 2.2.9 was never measured side by side.
// The numbers are invented (the hostname marks them synthetic); the test works out what the site
// must show from these files, never through its code.
import { RunResultSchema, type BenchmarkResult, type RunResult } from '@runtime-bench/schemas';
import { summarize } from '@runtime-bench/runner/stats';
import { sampleRunResult } from '../../../schemas/test/sample.ts';

export const SBS_CPU = 'SideBySide CPU';
export const BEFORE = 'nightly/runc-1.2.5';
export const AFTER = 'nightly/runc';

/** n samples spread ±12 % around `center` (ms). */
const around = (center: number, n = 30) =>
  Array.from({ length: n }, (_, i) => Number((center * (1 + (i - (n - 1) / 2) * 0.008)).toFixed(5)));

function lifecycle(target: string, samples: number[]): BenchmarkResult {
  return {
    benchmark: 'operations.container.lifecycle',
    target,
    status: 'ok',
    parameters: { image: 'busybox' },
    attempts: samples.length,
    failedAttempts: 0,
    metrics: [
      {
        name: 'CreateContainer',
        unit: 'ms',
        direction: 'lower',
        samples,
        errors: { count: 0, messages: [] },
        summary: summarize(samples),
      },
    ],
  } as BenchmarkResult;
}

function target(id: string, containerd: string, runc = '1.1.5', handler = 'runc') {
  return {
    id,
    cri: { name: 'containerd', version: containerd, apiVersion: 'v1', endpoint: `unix:///run/${id}.sock` },
    handler,
    oci: { name: 'runc', version: runc, path: null },
    transport: 'grpc' as const,
  };
}

function run(
  night: number,
  targets: RunResult['targets'],
  results: BenchmarkResult[],
  config: Partial<RunResult['config']> = {},
): RunResult {
  const base = sampleRunResult();
  const startedAt = `2026-04-0${night}T03:00:00.000Z`;
  return RunResultSchema.parse({
    ...base,
    runId: `2026040${night}T030000Z-5b5e000${night}`,
    status: 'complete',
    startedAt,
    finishedAt: startedAt,
    tool: { ...base.tool, version: 'synthetic' },
    host: { ...base.host, hostname: 'synthetic-side-by-side', cpuModel: SBS_CPU, cpus: 2 },
    config: { ...base.config, ...config },
    targets,
    benchmarks: [
      {
        name: 'operations.container.lifecycle',
        description: 'CRI container lifecycle',
        origin: [],
        metrics: [
          { name: 'CreateContainer', unit: 'ms', direction: 'lower', description: 'CreateContainer latency' },
        ],
      },
    ],
    results,
  });
}

export function sideBySideRuns(): RunResult[] {
  const nightly = [1, 2, 3, 4].map((night) =>
    run(night, [target(AFTER, '2.1.9')], [lifecycle(AFTER, around(7 + night * 0.1))]),
  );
  const sweep = run(
    5,
    [target('containerd-2.1.9/runc', '2.1.9'), target('containerd-2.2.9/runc', '2.2.9')],
    [lifecycle('containerd-2.1.9/runc', around(18.3)), lifecycle('containerd-2.2.9/runc', around(19.2))],
  );
  const declared = run(
    6,
    [target(BEFORE, '2.1.9', '1.2.5', 'runc-1.2.5'), target(AFTER, '2.1.9', '1.2.6')],
    [lifecycle(BEFORE, around(7.0)), lifecycle(AFTER, around(7.7))],
    { versionChanges: [{ before: BEFORE, after: AFTER }], roundOrder: 'shuffled' },
  );
  const alone = run(
    7,
    [target('containerd-2.3.7/runc', '2.3.7')],
    [lifecycle('containerd-2.3.7/runc', around(16.5))],
  );
  return [...nightly, sweep, declared, alone];
}
