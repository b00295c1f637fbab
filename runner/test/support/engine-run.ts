// A synthetic result holding CRI-level and engine targets of one run, built from given samples with
// the real benchmark definitions (units, directions): for the engine-overhead tests of compare and
// of the site. Invented numbers, never a measurement.
import { readFileSync } from 'node:fs';
import {
  RunResultSchema,
  type BenchmarkDefinition,
  type BenchmarkResult,
  type RunResult,
  type Target,
} from '@runtime-bench/schemas';
import { sampleRunResult } from '../../../schemas/test/sample.ts';
import { ENGINE_BENCHMARKS } from '../../src/engine/benchmarks.ts';
import { summarize } from '../../src/stats/index.ts';
import { BENCHMARKS } from '../../src/suites/registry.ts';

/** target id → benchmark → metric → samples */
export type SampleTable = Record<string, Record<string, Record<string, number[]>>>;

export interface SyntheticEngineTarget {
  id: string;
  /** containerd, cri-o, or the engine (docker, podman, nerdctl) */
  cri: string;
  criVersion: string;
  oci: string;
  ociVersion: string;
  engine?: boolean;
  /** Parameters of every benchmark of this target (default: the config's defaults). */
  parameters?: (benchmark: string) => Record<string, unknown>;
}

/** containerd 1.6.20 with runc 1.1.5 over the CRI, and Docker and Podman with the same runc. */
export const CONTAINERD_RUNC: SyntheticEngineTarget = {
  id: 'containerd/runc',
  cri: 'containerd',
  criVersion: '1.6.20',
  oci: 'runc',
  ociVersion: '1.1.5',
};
export const DOCKER_RUNC: SyntheticEngineTarget = {
  ...CONTAINERD_RUNC,
  id: 'docker/runc',
  cri: 'docker',
  criVersion: '20.10.24',
  engine: true,
};
export const PODMAN_RUNC: SyntheticEngineTarget = {
  ...DOCKER_RUNC,
  id: 'podman/runc',
  cri: 'podman',
  criVersion: '4.3.1',
};

const DEFINITIONS: BenchmarkDefinition[] = [...BENCHMARKS, ...ENGINE_BENCHMARKS].map((b) => b.definition);

function targetRecord(t: SyntheticEngineTarget): Target {
  const base = {
    id: t.id,
    cri: {
      name: t.cri,
      version: t.criVersion,
      apiVersion: t.engine ? 'engine' : 'v1',
      endpoint: t.engine ? `${t.cri}:///var/lib/runtime-bench/e/x/0` : 'unix:///run/rb/c.sock',
    },
    handler: t.oci,
    oci: { name: t.oci, version: t.ociVersion, path: `/usr/bin/${t.oci}` },
  };
  return t.engine
    ? {
        ...base,
        transport: 'engine',
        engine: {
          name: t.cri,
          version: t.criVersion,
          storageDriver: 'overlay2',
          cgroupManager: 'cgroupfs',
          networkBackend: 'none',
        },
      }
    : { ...base, transport: 'grpc' };
}

/** A valid result document (schema-checked) of `targets` with `samples`, started at `startedAt`. */
export function syntheticEngineRun(
  targets: readonly SyntheticEngineTarget[],
  samples: SampleTable,
  opts: { runId?: string; startedAt?: string; hostname?: string } = {},
): RunResult {
  const base = sampleRunResult();
  const startedAt = opts.startedAt ?? base.startedAt;
  const used = new Set<string>();
  const results: BenchmarkResult[] = targets.flatMap((t) =>
    Object.entries(samples[t.id] ?? {}).map(([benchmark, metrics]) => {
      used.add(benchmark);
      const def = DEFINITIONS.find((d) => d.name === benchmark)!;
      const n = Math.max(...Object.values(metrics).map((s) => s.length));
      return {
        benchmark,
        target: t.id,
        status: 'ok' as const,
        parameters: t.parameters?.(benchmark) ?? {},
        attempts: n,
        failedAttempts: 0,
        metrics: Object.entries(metrics).map(([name, values]) => {
          const m = def.metrics.find((x) => x.name === name)!;
          return {
            name,
            unit: m.unit,
            direction: m.direction,
            samples: values,
            errors: { count: 0, messages: [] },
            summary: summarize(values),
          };
        }),
      };
    }),
  );
  return RunResultSchema.parse({
    ...base,
    runId: opts.runId ?? base.runId,
    startedAt,
    finishedAt: new Date(Date.parse(startedAt) + 600_000).toISOString(),
    host: { ...base.host, hostname: opts.hostname ?? base.host.hostname },
    components: [],
    targets: targets.map(targetRecord),
    benchmarks: DEFINITIONS.filter((d) => used.has(d.name)),
    results,
  });
}

/** One expected row of generate_difference.py's engine-overhead case (scipy: exact bootstrap). */
export interface OverheadFixtureRow {
  engineTarget: string;
  criTarget: string;
  engineBenchmark: string;
  criBenchmark: string;
  metric: string;
  engineMedian: number;
  criMedian: number;
  difference: number;
  lowerRange: [number, number];
  upperRange: [number, number];
  ratio: number;
}

/** The samples and expected rows of the engine-overhead case of bootstrap-difference.json. */
export function overheadFixture(): { samples: SampleTable; rows: OverheadFixtureRow[] } {
  const url = new URL('../fixtures/stats/bootstrap-difference.json', import.meta.url);
  return (
    JSON.parse(readFileSync(url, 'utf8')) as {
      overhead: { samples: SampleTable; rows: OverheadFixtureRow[] };
    }
  ).overhead;
}
