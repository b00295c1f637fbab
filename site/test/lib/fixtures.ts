// Small schema-valid runs for aggregation tests, built from the shared sampleRunResult(). Their
// numbers are invented for the tests; the assertions work them out independently.
import { finishedRunStatus, RunResultSchema, type RunResult } from '@runtime-bench/schemas';
import { summarize } from '@runtime-bench/runner/stats';
import { sampleRunResult } from '../../../schemas/test/sample.ts';
import type { LoadedRun } from '../../src/lib/load.ts';

export interface TargetSpec {
  cri?: string;
  criVersion?: string;
  oci: string;
  ociVersion: string;
  /** samples of CreateContainer (ms); omitted with `status` for a benchmark without samples */
  samples?: number[];
  status?: 'ok' | 'invalid' | 'unsupported' | 'failed';
  reason?: string;
}

export function makeRun(
  runId: string,
  startedAt: string,
  targets: TargetSpec[],
  host: Partial<RunResult['host']> = {},
): RunResult {
  const base = sampleRunResult();
  const run: RunResult = {
    ...base,
    runId,
    startedAt,
    finishedAt: startedAt,
    host: { ...base.host, ...host },
    targets: targets.map((t) => ({
      id: `${t.cri ?? 'containerd'}/${t.oci}`,
      cri: {
        name: t.cri ?? 'containerd',
        version: t.criVersion ?? '1.7.2',
        apiVersion: 'v1',
        endpoint: 'unix:///run/c.sock',
      },
      handler: t.oci,
      oci: { name: t.oci, version: t.ociVersion, path: null },
      transport: 'grpc',
    })),
    results: targets.map((t) => ({
      benchmark: 'operations.container.lifecycle',
      target: `${t.cri ?? 'containerd'}/${t.oci}`,
      status: t.status ?? 'ok',
      ...(t.reason ? { reason: t.reason } : {}),
      parameters: {},
      attempts: t.samples?.length ?? 0,
      failedAttempts: 0,
      metrics: t.samples
        ? [
            {
              name: 'CreateContainer',
              unit: 'ms',
              direction: 'lower',
              samples: t.samples,
              errors: { count: 0, messages: [] },
              summary: summarize(t.samples),
            },
          ]
        : [],
    })),
  };
  // As the runner writes it: partial when a target's benchmark measured nothing.
  return RunResultSchema.parse({ ...run, status: finishedRunStatus(run.results) });
}

export function loaded(...runs: RunResult[]): LoadedRun[] {
  return runs.map((run) => ({
    run,
    file: `runs/${run.startedAt.slice(0, 10).replace(/-/g, '/')}/${run.runId}.json`,
  }));
}

export const spread = (center: number, n = 10) =>
  Array.from({ length: n }, (_, i) => Number((center * (1 + (i - (n - 1) / 2) * 0.01)).toFixed(4)));
