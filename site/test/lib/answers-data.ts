// Result files built for the browser test of the site's answers (issue: same parameters only,
// enforcement is not speed, history that survives a rename), on a host class of their own:
//   - containerd/crun ran performance.cpu with 1 thread for 2 s three nights, then with 2 threads
//     for 10 s (the two newest crun runs differ only in that parameter);
//   - runsc ignores the CFS quota of limits.cpu.time: it finishes fast, its cgroup was never
//     throttled and it used a whole CPU under a 10 % quota;
//   - containerd 1.6.20 + runc 1.1.5 ran as "containerd-1.6/runc", then as "containerd/runc".
// The numbers are invented (the hostname marks them synthetic); the test works out what the site
// must show from these files itself (test/expect.ts), never through the site's code.
import { RunResultSchema, type BenchmarkResult, type RunResult } from '@runtime-bench/schemas';
import { summarize } from '@runtime-bench/runner/stats';
import { sampleRunResult } from '../../../schemas/test/sample.ts';

export const ANSWERS_CPU = 'Answers CPU';
export const PARAMS_ONE = { threads: 1, timeSeconds: 2 };
export const PARAMS_TWO = { threads: 2, timeSeconds: 10 };
export const QUOTA = { maxPrime: 20000, events: 200, cpuQuotaMicros: 10000, cpuPeriodMicros: 100000 };
export const RENAMED_FROM = 'containerd-1.6/runc';
export const RENAMED_TO = 'containerd/runc';

const around = (center: number, n = 8) =>
  Array.from({ length: n }, (_, i) => Number((center * (1 + (i - (n - 1) / 2) * 0.012)).toFixed(5)));

function metric(name: string, unit: string, direction: 'lower' | 'higher', samples: number[]) {
  return {
    name,
    unit,
    direction,
    samples,
    errors: { count: 0, messages: [] },
    summary: summarize(samples),
  } as BenchmarkResult['metrics'][number];
}

function result(benchmark: string, target: string, parameters: object, metrics: BenchmarkResult['metrics']) {
  return {
    benchmark,
    target,
    status: 'ok',
    parameters: { ...parameters },
    attempts: metrics[0]!.samples.length,
    failedAttempts: 0,
    metrics,
  } as BenchmarkResult;
}

/** limits.cpu.time of a runtime that enforces the quota (about 10 % of a CPU used, throttled). */
function quotaKept(target: string, seconds: number): BenchmarkResult {
  return result('limits.cpu.time', target, QUOTA, [
    metric('total_time', 's', 'lower', around(seconds)),
    metric('throttled_periods', 'count', 'lower', around(17, 8).map(Math.round)),
    metric('cpu_usage', 'ms', 'lower', around(seconds * 1000 * 0.1)),
  ]);
}

/** limits.cpu.time of a runtime that ignores the quota: fast, never throttled, a whole CPU used. */
function quotaIgnored(target: string): BenchmarkResult {
  return result('limits.cpu.time', target, QUOTA, [
    metric('total_time', 's', 'lower', around(0.19)),
    metric(
      'throttled_periods',
      'count',
      'lower',
      around(1, 8).map(() => 0),
    ),
    metric('cpu_usage', 'ms', 'lower', around(188)),
  ]);
}

const cpu = (target: string, seconds: number, parameters: object) =>
  result('performance.cpu', target, parameters, [metric('total_time', 's', 'lower', around(seconds))]);

function target(id: string, oci: string, ociVersion: string) {
  return {
    id,
    cri: { name: 'containerd', version: '1.6.20', apiVersion: 'v1', endpoint: 'unix:///run/a.sock' },
    handler: oci,
    oci: { name: oci, version: ociVersion, path: null },
    transport: 'grpc' as const,
  };
}

const DEFINITIONS: RunResult['benchmarks'] = [
  {
    name: 'performance.cpu',
    description: 'sysbench cpu',
    origin: [],
    metrics: [{ name: 'total_time', unit: 's', direction: 'lower', description: 'sysbench total time' }],
  },
  {
    name: 'limits.cpu.time',
    description: 'sysbench cpu under a CFS quota',
    origin: [],
    metrics: [
      { name: 'total_time', unit: 's', direction: 'lower', description: 'total time under the quota' },
      { name: 'throttled_periods', unit: 'count', direction: 'lower', description: 'nr_throttled' },
      { name: 'cpu_usage', unit: 'ms', direction: 'lower', description: 'CPU used' },
    ],
  },
];

function run(night: number, targets: RunResult['targets'], results: BenchmarkResult[]): RunResult {
  const base = sampleRunResult();
  const startedAt = `2026-02-0${night}T03:00:00.000Z`;
  return RunResultSchema.parse({
    ...base,
    runId: `2026020${night}T030000Z-a15e000${night}`,
    startedAt,
    finishedAt: startedAt,
    tool: { ...base.tool, version: 'synthetic' },
    host: { ...base.host, hostname: 'synthetic-answers', cpuModel: ANSWERS_CPU, cpus: 4 },
    components: [{ name: 'containerd', role: 'cri', version: '1.6.20' }],
    targets,
    benchmarks: DEFINITIONS,
    results,
  });
}

/** Four nights on the host class ANSWERS_CPU (see the file's head). */
export function answerRuns(): RunResult[] {
  const early = (night: number) =>
    run(
      night,
      [
        target(RENAMED_FROM, 'runc', '1.1.5'),
        target('containerd/crun', 'crun', '1.28'),
        target('containerd/youki', 'youki', '0.7.0'),
        target('containerd/runsc', 'runsc', 'release-20260901.0'),
      ],
      [
        cpu(RENAMED_FROM, 2.02 + night * 0.01, PARAMS_ONE),
        cpu('containerd/crun', 2.0 + night * 0.01, PARAMS_ONE),
        cpu('containerd/youki', 2.1, PARAMS_ONE),
        cpu('containerd/runsc', 2.6, PARAMS_ONE),
        quotaKept(RENAMED_FROM, 1.7),
        quotaKept('containerd/crun', 1.66),
        quotaKept('containerd/youki', 1.72),
        quotaIgnored('containerd/runsc'),
      ],
    );
  const last = run(
    4,
    [target(RENAMED_TO, 'runc', '1.1.5'), target('containerd/crun', 'crun', '1.28')],
    [
      cpu(RENAMED_TO, 2.05, PARAMS_ONE),
      cpu('containerd/crun', 9.7, PARAMS_TWO),
      quotaKept(RENAMED_TO, 1.69),
      quotaKept('containerd/crun', 1.65),
    ],
  );
  return [early(1), early(2), early(3), last];
}
