import { describe, expect, test } from 'vitest';
import { ConfigSchema } from '@runtime-bench/schemas';
import type { CriClient } from '../../../src/cri/types.ts';
import { orchestrate } from '../../../src/run/orchestrate.ts';
import type { PreparedEndpoint } from '../../../src/run/targets.ts';
import type { Benchmark, IterationOutcome } from '../../../src/suites/types.ts';

/** A benchmark whose n-th iteration does what `script` says. */
function scripted(script: ((n: number) => IterationOutcome)[]): Benchmark<never> {
  let n = 0;
  return {
    definition: {
      name: 'operations.fake',
      description: 'fake',
      origin: [],
      metrics: [{ name: 'x', unit: 'ms', direction: 'lower', description: 'x' }],
    },
    parameters: () => undefined as never,
    iterate: async () => script[n]!(n++),
  };
}

const endpoint = {
  client: {} as CriClient,
  socket: '/fake.sock',
  stack: null,
  logDir: '/nonexistent',
  targets: [{ resolved: { id: 'fake/x', handler: 'x' } }],
} as unknown as PreparedEndpoint;

describe('orchestrate when the run is stopped', () => {
  test('a repetition that failed because the run was being stopped is not recorded as a runtime error', async () => {
    const controller = new AbortController();
    const benchmark = scripted([
      () => ({ values: { x: 1 }, errors: {} }),
      () => ({ values: { x: 2 }, errors: {} }),
      () => {
        // The endpoint dies during this repetition: its calls fail, and the run is being stopped.
        controller.abort('endpoint died');
        return { values: {}, errors: { x: 'connect ECONNREFUSED' }, failure: 'connect ECONNREFUSED' };
      },
      () => ({ values: { x: 4 }, errors: {} }),
    ]);
    const { slots } = await orchestrate({
      config: ConfigSchema.parse({ runs: 4, warmup: 0 }),
      benchmarks: [benchmark],
      endpoints: [endpoint],
      runId: 'r',
      signal: controller.signal,
      onProgress: () => undefined,
    });
    const acc = slots[0]!.accumulator;
    expect(acc.samples.get('x')).toEqual([1, 2]);
    expect(acc.failedAttempts).toBe(0);
    expect(acc.errors.get('x')!.size).toBe(0);
    expect(acc.interrupted).toBe(true);
  });

  test('a failure the liveness watch finds to be the endpoint dying is not recorded; other failures are', async () => {
    const controller = new AbortController();
    const benchmark = scripted([
      () => ({ values: { x: 1 }, errors: {} }),
      () => ({ values: {}, errors: { x: 'Connection dropped' }, failure: 'Connection dropped' }),
      () => ({ values: { x: 3 }, errors: {} }),
      () => ({ values: {}, errors: { x: 'Connection dropped' }, failure: 'Connection dropped' }),
      () => ({ values: { x: 5 }, errors: {} }),
    ]);
    const asked: string[] = [];
    let failures = 0;
    const { slots } = await orchestrate({
      config: ConfigSchema.parse({ runs: 5, warmup: 0 }),
      benchmarks: [benchmark],
      endpoints: [endpoint],
      runId: 'r',
      signal: controller.signal,
      onProgress: () => undefined,
      beforeRecordingFailure: async (e) => {
        asked.push(e.socket);
        // The first failure: the daemon was still alive after the wait; the second: it died.
        if (++failures === 2) controller.abort('endpoint died');
      },
    });
    const acc = slots[0]!.accumulator;
    expect(asked).toEqual(['/fake.sock', '/fake.sock']);
    expect(acc.samples.get('x')).toEqual([1, 3]);
    expect(acc.failedAttempts).toBe(1);
    expect([...acc.errors.get('x')!.keys()]).toEqual(['Connection dropped']);
    expect(acc.interrupted).toBe(true);
  });
});

describe('orchestrate repetitions', () => {
  test('runsPerBenchmark sets one benchmark’s measured repetitions; the others keep runs', async () => {
    const ok = (): IterationOutcome => ({ values: { x: 1 }, errors: {} });
    const lifecycle = scripted(Array.from({ length: 20 }, () => ok));
    const other = { ...scripted(Array.from({ length: 20 }, () => ok)) };
    other.definition = { ...other.definition, name: 'performance.fake' };
    const { slots } = await orchestrate({
      config: ConfigSchema.parse({ runs: 3, warmup: 1, runsPerBenchmark: { 'operations.fake': 7 } }),
      benchmarks: [lifecycle, other],
      endpoints: [endpoint],
      runId: 'r',
      signal: new AbortController().signal,
      onProgress: () => undefined,
    });
    const attempts = Object.fromEntries(
      slots.map((s) => [s.benchmark.definition.name, s.accumulator.attempts]),
    );
    expect(attempts).toEqual({ 'operations.fake': 7, 'performance.fake': 3 });
    expect(slots.every((s) => !s.accumulator.interrupted)).toBe(true);
  });
});
