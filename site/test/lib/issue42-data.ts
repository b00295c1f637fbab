// Result files and bisection reports built for the browser test of what the site's pages may say
// (test/issue42.test.ts), on a host class of their own. Seven nights:
//   - nights 1–5: containerd 1.6.20 (target "containerd-1.6/runc") and 2.1.9 ("containerd-2.1/runc"),
//     both runc 1.1.5, ran performance.cpu and the container lifecycle; the lifecycle defines
//     CreateContainer and RemoveContainer, but reports only CreateContainer;
//   - night 6: containerd 1.7.35, 2.1.9 and 2.0.14 ran only the lifecycle; 2.0.14 failed every attempt,
//     and the run still calls itself "complete";
//   - night 7 (the newest): containerd 1.6.20 renamed "containerd/runc" ran only performance.cpu, with
//     a spread no gate could see a change through, beside three handlers runc-1.1.5, -1.1.10, -1.1.14;
//   - crun ("containerd-1.6/crun") ran performance.cpu on nights 1–5 and 7, its nightly medians
//     jumping by orders of magnitude (NIGHTLY_WILD): the gate's detectable change is far beyond +100 %.
// Two bisection reports: one stopped by its budget (its ends step judged "same" beside an interval
// that excludes 0 %, then "differ" on the retry) and one whose build failed after its steps had
// judged releases good and a commit bad. The numbers are invented (the hostname marks them
// synthetic); the test works out what the site must show from these files, never through its code.
import {
  finishedRunStatus,
  RunResultSchema,
  type BenchmarkResult,
  type BisectReport,
  type RunResult,
} from '@runtime-bench/schemas';
import { summarize } from '@runtime-bench/runner/stats';
import { sampleRunResult } from '../../../schemas/test/sample.ts';
import { sampleBisectReport } from './bisection-fixture.ts';

export const ISSUE_CPU = 'Issue42 CPU';
const CPU_PARAMS = { threads: 1, timeSeconds: 2 };
const LIFECYCLE_PARAMS = { image: 'busybox' };

const around = (center: number, n = 8) =>
  Array.from({ length: n }, (_, i) => Number((center * (1 + (i - (n - 1) / 2) * 0.012)).toFixed(5)));

function metric(name: string, unit: string, samples: number[]): BenchmarkResult['metrics'][number] {
  return {
    name,
    unit,
    direction: 'lower',
    samples,
    errors: { count: 0, messages: [] },
    summary: summarize(samples),
  } as BenchmarkResult['metrics'][number];
}

function cpu(target: string, samples: number[]): BenchmarkResult {
  return {
    benchmark: 'performance.cpu',
    target,
    status: 'ok',
    parameters: { ...CPU_PARAMS },
    attempts: samples.length,
    failedAttempts: 0,
    metrics: [metric('total_time', 's', samples)],
  } as BenchmarkResult;
}

function lifecycle(target: string, createMs: number | null): BenchmarkResult {
  return {
    benchmark: 'operations.container.lifecycle',
    target,
    status: createMs === null ? 'failed' : 'ok',
    ...(createMs === null ? { reason: 'every attempt failed: CreateContainer timed out' } : {}),
    parameters: { ...LIFECYCLE_PARAMS },
    attempts: 8,
    failedAttempts: createMs === null ? 8 : 0,
    metrics: createMs === null ? [] : [metric('CreateContainer', 'ms', around(createMs))],
  } as BenchmarkResult;
}

function target(id: string, criVersion: string, handler = 'runc', ociVersion = '1.1.5') {
  return {
    id,
    cri: { name: 'containerd', version: criVersion, apiVersion: 'v1', endpoint: `unix:///run/${id}.sock` },
    handler,
    oci: { name: 'runc', version: ociVersion, path: null },
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
    name: 'operations.container.lifecycle',
    description: 'CRI container lifecycle',
    origin: [],
    metrics: [
      { name: 'CreateContainer', unit: 'ms', direction: 'lower', description: 'CreateContainer latency' },
      { name: 'RemoveContainer', unit: 'ms', direction: 'lower', description: 'RemoveContainer latency' },
    ],
  },
];

function run(night: number, targets: RunResult['targets'], results: BenchmarkResult[]): RunResult {
  const base = sampleRunResult();
  const startedAt = `2026-03-0${night}T03:00:00.000Z`;
  return RunResultSchema.parse({
    ...base,
    runId: `2026030${night}T030000Z-42e0000${night}`,
    // As the runner writes it: a night with a benchmark × target that measured nothing is partial.
    status: finishedRunStatus(results),
    startedAt,
    finishedAt: startedAt,
    tool: { ...base.tool, version: 'synthetic' },
    host: { ...base.host, hostname: 'synthetic-issue42', cpuModel: ISSUE_CPU, cpus: 2 },
    components: [{ name: 'containerd', role: 'cri', version: '1.6.20' }],
    targets,
    benchmarks: DEFINITIONS,
    results,
  });
}

export const RENAMED_FROM = 'containerd-1.6/runc';
export const RENAMED_TO = 'containerd/runc';
export const FAILED_TARGET = 'containerd-2.0.14/runc';
/** performance.cpu of the renamed target on the newest night: spread over four orders of magnitude */
export const WILD = [0.05, 0.4, 2, 9, 40, 300, 1500, 9000];
/** The crun target's performance.cpu medians on nights 1–5 (s): no two nights alike. */
export const NIGHTLY_WILD = [0.05, 3, 0.4, 40, 1];
export const WILD_NIGHTS_TARGET = 'containerd-1.6/crun';

function crun(id: string) {
  return { ...target(id, '1.6.20', 'crun'), oci: { name: 'crun', version: '1.8.1', path: null } };
}

export function issueRuns(): RunResult[] {
  const early = (night: number) =>
    run(
      night,
      [target(RENAMED_FROM, '1.6.20'), target('containerd-2.1/runc', '2.1.9'), crun(WILD_NIGHTS_TARGET)],
      [
        cpu(RENAMED_FROM, around(2.0 + night * 0.002)),
        cpu(WILD_NIGHTS_TARGET, around(NIGHTLY_WILD[night - 1]!)),
        cpu('containerd-2.1/runc', around(2.1)),
        lifecycle(RENAMED_FROM, 50 + night * 0.1),
        lifecycle('containerd-2.1/runc', 60),
      ],
    );
  const sixth = run(
    6,
    [
      target('containerd-1.7.35/runc', '1.7.35'),
      target('containerd-2.1.9/runc', '2.1.9'),
      target(FAILED_TARGET, '2.0.14'),
    ],
    [
      lifecycle('containerd-1.7.35/runc', 40),
      lifecycle('containerd-2.1.9/runc', 61),
      lifecycle(FAILED_TARGET, null),
    ],
  );
  const handlers = ['1.1.14', '1.1.5', '1.1.10'];
  const newest = run(
    7,
    [
      target(RENAMED_TO, '1.6.20'),
      ...handlers.map((v) => target(`containerd/runc-${v}`, '1.6.20', `runc-${v}`, v)),
      crun(WILD_NIGHTS_TARGET),
    ],
    [
      cpu(RENAMED_TO, WILD),
      ...handlers.map((v, i) => cpu(`containerd/runc-${v}`, around(2.2 + i * 0.05))),
      cpu(WILD_NIGHTS_TARGET, around(2)),
    ],
  );
  return [1, 2, 3, 4, 5].map(early).concat([sixth, newest]);
}

const release = (v: string) => ({ kind: 'release' as const, label: v, ref: v, commit: null });
const ratio = (r: number, lower: number, upper: number, n: number) => ({
  ratio: r,
  lower,
  upper,
  confidence: 0.95,
  n,
});

/** A bisection stopped by its budget: narrowed to 1.1.10 … 1.2.0, no first bad release established. */
export function budgetBisection(): BisectReport {
  const base = sampleBisectReport();
  const step = base.steps[1]!;
  return sampleBisectReport({
    startedAt: '2026-03-07T04:00:00.000Z',
    finishedAt: '2026-03-07T04:20:00.000Z',
    outcome: 'budget-exhausted',
    message: 'budget of 20 min spent: the change lies after 1.1.10 up to 1.2.0',
    lastGoodRelease: '1.1.10',
    firstBadRelease: '1.2.0',
    lastGoodCommit: null,
    firstBadCommit: null,
    spent: { builds: 4, buildMinutes: 0.6, runnerMinutes: 19.4, totalMinutes: 20.1, budgetMinutes: 20 },
    steps: [
      {
        ...step,
        kind: 'ends',
        candidate: release('1.2.0'),
        verdict: 'same',
        attempt: 1,
        effect: ratio(1.062, 1.016, 1.109, 300),
        position: 1,
        badVsCandidate: null,
      },
      {
        ...step,
        kind: 'ends',
        candidate: release('1.2.0'),
        verdict: 'differ',
        attempt: 2,
        effect: ratio(1.096, 1.04, 1.155, 160),
        position: 1,
        badVsCandidate: null,
      },
      {
        ...step,
        candidate: release('1.1.10'),
        verdict: 'good',
        attempt: 1,
        effect: ratio(0.998, 0.951, 1.048, 120),
        position: 0,
      },
      {
        ...step,
        candidate: release('1.1.13'),
        verdict: 'unclear',
        attempt: 1,
        effect: ratio(1.023, 0.977, 1.07, 40),
        position: 0.2,
      },
    ],
  });
}

/** A bisection whose build failed after its steps judged two releases and a commit good, one commit bad. */
export function failedBisection(): BisectReport {
  const base = sampleBisectReport();
  const step = base.steps[1]!;
  const longCommit = (hex: string, subject: string) => ({
    kind: 'commit' as const,
    label: `${hex.repeat(12)} ${subject}`,
    ref: hex.repeat(40),
    commit: hex.repeat(40),
  });
  return sampleBisectReport({
    startedAt: '2026-03-07T05:00:00.000Z',
    finishedAt: '2026-03-07T05:20:00.000Z',
    good: '1.1.10',
    outcome: 'failed',
    message: `failed stopped: go build -trimpath -o runc . exited with code 1:\n${'go: downloading golang.org/x/sys v0.12.0\n'.repeat(30)}libcontainer/dmz/dmz_linux.go:21:12: pattern runc-dmz: no matching files found`,
    lastGoodRelease: null,
    firstBadRelease: null,
    lastGoodCommit: null,
    firstBadCommit: null,
    effect: null,
    spent: { builds: 7, buildMinutes: 0.6, runnerMinutes: 12.1, totalMinutes: 12.7, budgetMinutes: 21 },
    steps: [
      {
        ...step,
        kind: 'ends',
        candidate: release('1.2.0'),
        verdict: 'differ',
        effect: ratio(1.06, 1.03, 1.09, 100),
        position: 1,
        badVsCandidate: null,
      },
      {
        ...step,
        candidate: release('1.1.13'),
        verdict: 'good',
        effect: ratio(0.989, 0.968, 1.01, 200),
        position: -0.36,
      },
      {
        ...step,
        candidate: release('1.1.15'),
        verdict: 'good',
        effect: ratio(1.018, 1.002, 1.033, 400),
        position: 0.4,
      },
      {
        ...step,
        candidate: longCommit('6', 'Merge pull request #3924 into opencontainers/runc:main'),
        verdict: 'good',
        effect: ratio(0.93, 0.9, 0.96, 100),
        position: -1.4,
      },
      {
        ...step,
        candidate: longCommit(
          '9',
          'Merge pull request #4200 from opencontainers/dependabot/github_actions/golangci/golangci-lint-action-4',
        ),
        verdict: 'bad',
        effect: ratio(1.16, 1.12, 1.2, 100),
        position: 8,
      },
    ],
  });
}
