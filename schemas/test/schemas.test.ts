import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  ConfigSchema,
  RESULT_SCHEMA_VERSION,
  RunResultSchema,
  describeIssues,
  effectiveRunStatus,
  finishedRunStatus,
  hostClassOf,
  jsonSchemas,
  renderJsonSchema,
  runsFor,
  type RunResult,
} from '../src/index.ts';
import { sampleRunResult } from './sample.ts';

describe('JSON Schema files', () => {
  test.each(Object.entries(jsonSchemas()))('%s is in sync with the zod schema', (file, schema) => {
    const onDisk = readFileSync(join(import.meta.dirname, '..', 'json', file), 'utf8');
    // Regenerate with: pnpm --filter @runtime-bench/schemas generate
    expect(onDisk).toBe(renderJsonSchema(schema));
  });
});

describe('ConfigSchema', () => {
  test('an empty config means: the default stack, every handler, the default benchmarks', () => {
    const config = ConfigSchema.parse({});
    expect(config.targets).toEqual([
      { cri: 'containerd', handlers: 'all', transport: 'grpc', crictl: 'crictl' },
    ]);
    expect(config.runs).toBe(10);
    expect(config.parameters['performance.cpu'].maxPrime).toBe(20000);
  });

  test('a wrong field is reported with its path', () => {
    const result = ConfigSchema.safeParse({ runs: 0, parameters: { 'performance.cpu': { threads: 'two' } } });
    expect(result.success).toBe(false);
    expect(describeIssues(result.error!, 'quick.yaml')).toEqual([
      'quick.yaml: runs: Too small: expected number to be >=1',
      'quick.yaml: parameters["performance.cpu"].threads: Invalid input: expected number, received string',
    ]);
  });

  test('runsPerBenchmark: the longest matching key beats runs; other benchmarks keep runs', () => {
    const config = ConfigSchema.parse({
      runs: 10,
      runsPerBenchmark: { operations: 50, 'operations.container.lifecycle': 200 },
    });
    expect(runsFor(config, 'operations.container.lifecycle')).toBe(200);
    expect(runsFor(config, 'operations.other')).toBe(50);
    expect(runsFor(config, 'operationsx.y')).toBe(10);
    expect(runsFor(config, 'performance.cpu')).toBe(10);
    // Backward compatible: an old config has no map, every benchmark runs `runs` times.
    expect(runsFor(ConfigSchema.parse({ runs: 3 }), 'operations.container.lifecycle')).toBe(3);
  });

  test('a bad runsPerBenchmark value is named by its key', () => {
    const result = ConfigSchema.safeParse({ runsPerBenchmark: { 'operations.container.lifecycle': 0 } });
    expect(result.success).toBe(false);
    expect(describeIssues(result.error!, 'nightly.yaml')).toEqual([
      'nightly.yaml: runsPerBenchmark["operations.container.lifecycle"]: runs of a benchmark must be at least 1',
    ]);
  });

  test('an unknown key is refused rather than ignored', () => {
    const result = ConfigSchema.safeParse({ runz: 3 });
    expect(result.success).toBe(false);
    expect(z.prettifyError(result.error!)).toContain('runz');
  });

  test('stack and endpoint are exclusive', () => {
    const result = ConfigSchema.safeParse({ targets: [{ stack: 'a', endpoint: '/run/x.sock' }] });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['targets', 0, 'endpoint']);
  });
});

describe('RunResultSchema', () => {
  test('accepts a well-formed result', () => {
    expect(RunResultSchema.safeParse(sampleRunResult()).success).toBe(true);
  });

  test('refuses a result whose summary does not match its samples', () => {
    const bad = sampleRunResult();
    bad.results[0]!.metrics[0]!.samples.pop();
    const result = RunResultSchema.safeParse(bad);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['results', 0, 'metrics', 0, 'summary']);
  });

  test("a metric's per-source sample counts, when given, must add up to its samples", () => {
    const ok = sampleRunResult();
    const n = ok.results[0]!.metrics[0]!.samples.length;
    ok.results[0]!.metrics[0]!.sources = { 'shim-cgroup': n - 1, ticks: 1 };
    expect(RunResultSchema.safeParse(ok).success).toBe(true);
    const bad = sampleRunResult();
    bad.results[0]!.metrics[0]!.sources = { 'shim-cgroup': n + 1 };
    const result = RunResultSchema.safeParse(bad);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['results', 0, 'metrics', 0, 'sources']);
    expect(result.error!.issues[0]!.message).toBe(
      `the sources count ${n + 1} samples, but the metric has ${n}`,
    );
  });

  test('refuses a result that names an unknown target', () => {
    const bad = sampleRunResult();
    bad.results[0]!.target = 'containerd/nope';
    const result = RunResultSchema.safeParse(bad);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.message).toContain('unknown target');
  });

  test('an incomplete run must say why', () => {
    const result = RunResultSchema.safeParse(sampleRunResult({ status: 'incomplete' }));
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['incompleteReason']);
  });

  test('refuses a schema version it does not know', () => {
    expect(
      RunResultSchema.safeParse({ ...sampleRunResult(), schemaVersion: RESULT_SCHEMA_VERSION + 1 }).success,
    ).toBe(false);
    expect(RunResultSchema.safeParse({ ...sampleRunResult(), schemaVersion: 1 }).success).toBe(true);
  });
});

/** The sample run with a second target whose one benchmark measured nothing (status failed). */
function withUnmeasuredTarget(overrides: Partial<RunResult> = {}): RunResult {
  const run = sampleRunResult(overrides);
  const target = { ...run.targets[0]!, id: 'containerd/crun', handler: 'crun' };
  const measured = run.results[0]!;
  return {
    ...run,
    targets: [...run.targets, target],
    results: [
      ...run.results,
      {
        ...measured,
        target: target.id,
        status: 'failed',
        reason: 'no attempt succeeded: OCI runtime create failed',
        attempts: 5,
        failedAttempts: 5,
        metrics: measured.metrics.map((m) => ({ ...m, samples: [], summary: null })),
      },
    ],
  };
}

describe('run status', () => {
  test('a version-6 run that went to its end with an unmeasured benchmark × target is partial, not complete', () => {
    const complete = RunResultSchema.safeParse(withUnmeasuredTarget());
    expect(complete.success).toBe(false);
    expect(complete.error!.issues.map((i) => [i.path, i.message])).toEqual([
      [
        ['status'],
        'operations.container.lifecycle on containerd/crun measured nothing: a run that went to its end without measuring every benchmark × target is partial, not complete',
      ],
    ]);
    expect(RunResultSchema.safeParse(withUnmeasuredTarget({ status: 'partial' })).success).toBe(true);
  });

  test('a partial run names what measured nothing: one without such a result is refused', () => {
    const result = RunResultSchema.safeParse(sampleRunResult({ status: 'partial' }));
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['status']);
  });

  test('an older file stays valid as written, and is stated partial by effectiveRunStatus', () => {
    const old = RunResultSchema.parse(withUnmeasuredTarget({ schemaVersion: 5 }));
    expect(old.status).toBe('complete');
    expect(effectiveRunStatus(old)).toBe('partial');
    expect(effectiveRunStatus(RunResultSchema.parse(sampleRunResult({ schemaVersion: 5 })))).toBe('complete');
    // Only version 6 writers knew the status: an older file claiming it contradicts its version.
    expect(
      RunResultSchema.safeParse(withUnmeasuredTarget({ schemaVersion: 5, status: 'partial' })).success,
    ).toBe(false);
  });

  test('invalid and unsupported benchmarks measured or answered: the run stays complete', () => {
    for (const status of ['invalid', 'unsupported'] as const) {
      const run = sampleRunResult();
      run.results[0] = { ...run.results[0]!, status, reason: 'why' };
      expect(finishedRunStatus(run.results), status).toBe('complete');
      expect(RunResultSchema.safeParse(run).success, status).toBe(true);
    }
  });

  test('an incomplete run stays incomplete, whatever it measured', () => {
    const run = withUnmeasuredTarget({ status: 'incomplete', incompleteReason: 'SIGTERM' });
    expect(RunResultSchema.safeParse(run).success).toBe(true);
    expect(effectiveRunStatus(run)).toBe('incomplete');
  });
});

test('host class groups comparable hosts by CPU model, cores, kernel major and cgroup mode', () => {
  const host = sampleRunResult().host;
  expect(hostClassOf(host)).toBe('Test CPU · 2 CPU · Linux 6 · cgroup hybrid');
  expect(hostClassOf({ ...host, kernel: '6.1.0-28-amd64' })).toBe(hostClassOf(host));
  expect(hostClassOf({ ...host, cpus: 4 })).not.toBe(hostClassOf(host));
});
