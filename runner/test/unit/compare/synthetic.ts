// Synthetic result files for the compare / check tests: sampleRunResult() filled with samples
// from a seeded generator. Invented numbers, never a measurement.
import {
  finishedRunStatus,
  type BenchmarkResult,
  type Direction,
  type HostFingerprint,
  type RunResult,
  type Unit,
} from '@runtime-bench/schemas';
import { sampleRunResult } from '../../../../schemas/test/sample.ts';
import { createRng, summarize, type Rng } from '../../../src/stats/index.ts';
import { LIFECYCLE_CALLS } from '../../../src/suites/lifecycle.ts';

export interface SyntheticMetric {
  benchmark: string;
  name: string;
  unit: Unit;
  direction: Direction;
  /** Median of the lognormal distribution the samples come from. */
  median: number;
  /** Within-run spread: sd of ln(sample). */
  sigma: number;
}

export const LIFECYCLE = 'operations.container.lifecycle';
export const CPU = 'performance.cpu';

export const DEFAULT_METRICS: SyntheticMetric[] = [
  { benchmark: LIFECYCLE, name: 'CreateContainer', unit: 'ms', direction: 'lower', median: 40, sigma: 0.08 },
  { benchmark: LIFECYCLE, name: 'StartContainer', unit: 'ms', direction: 'lower', median: 60, sigma: 0.08 },
  { benchmark: LIFECYCLE, name: 'StopContainer', unit: 'ms', direction: 'lower', median: 15, sigma: 0.1 },
  { benchmark: CPU, name: 'events', unit: 'events/s', direction: 'higher', median: 1800, sigma: 0.02 },
];

/**
 * The lifecycle's seven CRI calls and its destroy phase as synthetic metrics: medians 20, 27, 34, …
 * ms, each with within-run spread `sigma`.
 */
export function lifecycleMetrics(sigma: number): SyntheticMetric[] {
  return [...LIFECYCLE_CALLS, 'destroy'].map((name, i) => ({
    benchmark: LIFECYCLE,
    name,
    unit: 'ms',
    direction: 'lower',
    median: 20 + 7 * i,
    sigma,
  }));
}

export interface SyntheticTarget {
  id: string;
  oci: string;
  version?: string;
  /** Multiplies the median of the named metrics (e.g. { StartContainer: 0.8 }). */
  effect?: Record<string, number>;
  status?: BenchmarkResult['status'];
  /** Failed attempts of every benchmark of this target. */
  failed?: number;
}

export interface SyntheticOptions {
  seed: number;
  startedAt: string;
  targets?: SyntheticTarget[];
  metrics?: SyntheticMetric[];
  /** Samples per metric; default 10. */
  n?: number;
  /** Between-run drift of the host: sd of a log offset shared by all samples of the run. */
  runSigma?: number;
  /**
   * Between-run drift of each metric apart from the host's: sd of a log offset per metric and run,
   * shared by every target of the run (one call slower tonight for every runtime).
   */
  metricSigma?: number;
  host?: Partial<HostFingerprint>;
  parameters?: Record<string, unknown>;
}

export const RUNC: SyntheticTarget = { id: 'containerd/runc', oci: 'runc', version: '1.1.5' };
export const CRUN: SyntheticTarget = { id: 'containerd/crun', oci: 'crun', version: '1.8.4' };

export function gaussian(rng: Rng): number {
  // Box–Muller; 1 - u keeps the logarithm finite.
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

export function syntheticRun(o: SyntheticOptions): RunResult {
  const rng = createRng(o.seed);
  const n = o.n ?? 10;
  const metrics = o.metrics ?? DEFAULT_METRICS;
  const targets = o.targets ?? [RUNC];
  const base = sampleRunResult();
  const stamp = o.startedAt.replace(/[-:]/g, '').replace(/\.\d+/, '');
  const runId = `${stamp}-${(o.seed >>> 0).toString(16).padStart(8, '0').slice(-8)}`;
  const offset = (o.runSigma ?? 0) * gaussian(rng);
  // Drawn only when asked for, so that runs without it keep their samples.
  const metricOffset = new Map(
    o.metricSigma
      ? metrics.map((m) => [`${m.benchmark}\u0000${m.name}`, o.metricSigma! * gaussian(rng)])
      : [],
  );
  const benchmarks = [...new Set(metrics.map((m) => m.benchmark))];
  const results: BenchmarkResult[] = [];
  for (const t of targets)
    for (const b of benchmarks) {
      const status = t.status ?? 'ok';
      const ms = status === 'ok' || status === 'invalid' ? metrics.filter((m) => m.benchmark === b) : [];
      results.push({
        benchmark: b,
        target: t.id,
        status,
        ...(status === 'ok' ? {} : { reason: `synthetic ${status}` }),
        parameters: o.parameters ?? {},
        attempts: n + (t.failed ?? 0),
        failedAttempts: t.failed ?? 0,
        metrics: ms.map((m) => {
          const median = m.median * (t.effect?.[m.name] ?? 1);
          const samples = Array.from({ length: n }, () =>
            Number(
              (
                median *
                Math.exp(
                  offset + (metricOffset.get(`${m.benchmark}\u0000${m.name}`) ?? 0) + m.sigma * gaussian(rng),
                )
              ).toFixed(4),
            ),
          );
          return {
            name: m.name,
            unit: m.unit,
            direction: m.direction,
            samples,
            errors: { count: t.failed ?? 0, messages: t.failed ? ['synthetic failure'] : [] },
            summary: summarize(samples),
          };
        }),
      });
    }
  const finished = new Date(Date.parse(o.startedAt) + 60_000).toISOString();
  return {
    ...base,
    runId,
    // As the runner writes it: partial when a target's benchmark measured nothing.
    status: finishedRunStatus(results),
    startedAt: o.startedAt,
    finishedAt: finished,
    host: { ...base.host, ...o.host },
    targets: targets.map((t) => ({
      id: t.id,
      cri: { name: 'containerd', version: '1.6.20', apiVersion: 'v1', endpoint: 'unix:///tmp/c.sock' },
      handler: t.oci,
      oci: { name: t.oci, version: t.version ?? '1.0.0', path: `/usr/sbin/${t.oci}` },
      transport: 'grpc' as const,
    })),
    benchmarks: benchmarks.map((b) => ({
      name: b,
      description: `synthetic ${b}`,
      origin: ['test'],
      metrics: metrics
        .filter((m) => m.benchmark === b)
        .map((m) => ({ name: m.name, unit: m.unit, direction: m.direction, description: m.name })),
    })),
    results,
  };
}

/** Nightly start times: day 1, 2, … of November 2026 at 03:00 UTC. */
export function night(day: number): string {
  return new Date(Date.UTC(2026, 10, day, 3, 0, 0)).toISOString();
}
