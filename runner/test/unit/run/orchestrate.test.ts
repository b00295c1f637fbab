// The shared repetition loop of every target kind, on plain slots: each slot's repetitions are a
// script of outcomes, so the expected order, records and statuses are read off the scripts.
import { describe, expect, test } from 'vitest';
import { ConfigSchema, type BenchmarkDefinition } from '@runtime-bench/schemas';
import { newSlot, orchestrate, type ProgressEvent, type Slot } from '../../../src/run/orchestrate.ts';
import type { IterationOutcome } from '../../../src/suites/types.ts';
import { InterruptedError } from '../../../src/errors.ts';

const definition = (name: string): BenchmarkDefinition => ({
  name,
  description: 'fake',
  origin: [],
  metrics: [{ name: 'x', unit: 'ms', direction: 'lower', description: 'x' }],
});

type Step = (n: number) => IterationOutcome;
const ok =
  (x: number): Step =>
  () => ({ values: { x }, errors: {} });

/** A slot whose n-th repetition does what `script[n]` says; `calls` logs `<target>#<n>`. */
function scripted(benchmark: string, target: string, script: Step[], calls: string[] = []): Slot {
  let n = 0;
  return newSlot(definition(benchmark), target, { p: 1 }, async () => {
    calls.push(`${target}#${n}`);
    const step = script[n];
    if (!step) throw new Error(`${target}: repetition ${n} not scripted`);
    return step(n++);
  });
}

const config = (over: Record<string, unknown>) => ConfigSchema.parse({ runs: 3, warmup: 0, ...over });
const quiet = { onProgress: () => undefined, sleep: async () => undefined };

describe('orchestrate: order and records', () => {
  test('interleaved per repetition, benchmark after benchmark; warm-up runs but is not recorded', async () => {
    const calls: string[] = [];
    const a = scripted('operations.a', 'A', [ok(0), ok(1), ok(2), ok(3)], calls);
    const b = scripted('operations.a', 'B', [ok(10), ok(11), ok(12), ok(13)], calls);
    const c = scripted('operations.c', 'A', [ok(20), ok(21), ok(22), ok(23)], calls);
    const events: ProgressEvent[] = [];
    await orchestrate({
      ...quiet,
      config: config({ warmup: 1 }),
      slots: [a, b, c],
      signal: new AbortController().signal,
      onProgress: (e) => events.push(e),
    });
    expect(calls).toEqual([
      'A#0',
      'B#0',
      'A#1',
      'B#1',
      'A#2',
      'B#2',
      'A#3',
      'B#3',
      'A#0',
      'A#1',
      'A#2',
      'A#3',
    ]);
    expect(a.accumulator.samples.get('x')).toEqual([1, 2, 3]);
    expect(b.accumulator.samples.get('x')).toEqual([11, 12, 13]);
    expect(c.accumulator.samples.get('x')).toEqual([21, 22, 23]);
    // Two events per repetition (before, and after with its outcome), the first one a warm-up.
    expect(events).toHaveLength(24);
    expect(events[0]).toEqual({
      benchmark: 'operations.a',
      target: 'A',
      repetition: 1,
      repetitions: 4,
      warmup: true,
      // Stage operations.a holds 2 slots × 4 repetitions; the run adds operations.c's 4.
      stage: 'operations.a',
      stageDone: 0,
      stageTotal: 8,
      done: 0,
      total: 12,
    });
    expect(events[1]!.outcome).toEqual({ values: { x: 0 }, errors: {} });
    expect(events.at(-1)).toMatchObject({
      stage: 'operations.c',
      stageDone: 4,
      stageTotal: 4,
      done: 12,
      total: 12,
    });
    expect(events.filter((e) => e.outcome && !e.warmup)).toHaveLength(9);
  });

  test('progress names the slot by its label when it has one', async () => {
    const slot = scripted('operations.a', 'kubernetes/rb-runc', [ok(1)]);
    slot.label = 'node-1/rb-runc';
    const targets: string[] = [];
    await orchestrate({
      ...quiet,
      config: config({ runs: 1 }),
      slots: [slot],
      signal: new AbortController().signal,
      onProgress: (e) => targets.push(e.target),
    });
    expect(targets).toEqual(['node-1/rb-runc', 'node-1/rb-runc']);
  });

  test('runsPerBenchmark sets one benchmark’s measured repetitions; the others keep runs', async () => {
    const many = Array.from({ length: 20 }, () => ok(1));
    const lifecycle = scripted('operations.fake', 'A', many);
    const other = scripted('performance.fake', 'A', many);
    await orchestrate({
      ...quiet,
      config: config({ runs: 3, warmup: 1, runsPerBenchmark: { 'operations.fake': 7 } }),
      slots: [lifecycle, other],
      signal: new AbortController().signal,
    });
    expect([lifecycle.accumulator.attempts, other.accumulator.attempts]).toEqual([7, 3]);
    expect([lifecycle, other].every((s) => !s.accumulator.interrupted)).toBe(true);
  });

  test('a thrown error is an error sample and the run goes on', async () => {
    const slot = scripted('operations.a', 'A', [
      ok(1),
      () => {
        throw new Error('boom');
      },
      ok(3),
    ]);
    await orchestrate({ ...quiet, config: config({}), slots: [slot], signal: new AbortController().signal });
    expect(slot.accumulator.samples.get('x')).toEqual([1, 3]);
    expect(slot.accumulator.attempts).toBe(3);
    expect(slot.accumulator.failedAttempts).toBe(1);
    expect([...slot.accumulator.failureMessages.keys()]).toEqual(['unexpected error: boom']);
  });

  test('an unsupported outcome ends that slot’s attempts only, even in the warm-up', async () => {
    const calls: string[] = [];
    const refused = scripted(
      'operations.a',
      'A',
      [() => ({ values: {}, errors: {}, unsupported: 'no cgroup v1' })],
      calls,
    );
    const fine = scripted('operations.a', 'B', [ok(1), ok(2), ok(3), ok(4)], calls);
    const events: ProgressEvent[] = [];
    await orchestrate({
      ...quiet,
      config: config({ warmup: 1 }),
      slots: [refused, fine],
      signal: new AbortController().signal,
      onProgress: (e) => events.push(e),
    });
    expect(calls).toEqual(['A#0', 'B#0', 'B#1', 'B#2', 'B#3']);
    // The refused slot's 3 repetitions never to come leave the planned total (8 → 5): time left stays honest.
    expect(events.at(-1)).toMatchObject({ done: 5, total: 5, stageDone: 5, stageTotal: 5 });
    expect(refused.accumulator.unsupported).toBe('no cgroup v1');
    expect(refused.accumulator.attempts).toBe(0);
    expect(fine.accumulator.samples.get('x')).toEqual([2, 3, 4]);
  });

  test('settleSeconds pauses after every repetition', async () => {
    const pauses: number[] = [];
    const slot = scripted('operations.a', 'A', [ok(1), ok(2)]);
    await orchestrate({
      config: config({ runs: 2, settleSeconds: 1.5 }),
      slots: [slot],
      signal: new AbortController().signal,
      onProgress: () => undefined,
      sleep: async (ms) => {
        pauses.push(ms);
      },
    });
    expect(pauses).toEqual([1500, 1500]);
  });

  test('a slot that interleaves with another benchmark runs in its rounds, each slot to its own count', async () => {
    const calls: string[] = [];
    const cri = scripted('startup.latency', 'C', [ok(0), ok(1), ok(2)], calls);
    const other = scripted('operations.c', 'C', [ok(5)], calls);
    const engine = scripted('engine.startup.latency', 'E', [ok(10), ok(11), ok(12), ok(13)], calls);
    engine.interleaveWith = 'startup.latency';
    const events: ProgressEvent[] = [];
    await orchestrate({
      ...quiet,
      config: config({ runs: 3, runsPerBenchmark: { 'engine.startup.latency': 4, 'operations.c': 1 } }),
      slots: [cri, other, engine],
      signal: new AbortController().signal,
      onProgress: (e) => events.push(e),
    });
    expect(calls).toEqual(['C#0', 'E#0', 'C#1', 'E#1', 'C#2', 'E#2', 'E#3', 'C#0']);
    // progress names each slot's own benchmark and its own repetition count
    expect(
      events.filter((e) => !e.outcome).map((e) => `${e.benchmark}:${e.repetition}/${e.repetitions}`),
    ).toEqual([
      'startup.latency:1/3',
      'engine.startup.latency:1/4',
      'startup.latency:2/3',
      'engine.startup.latency:2/4',
      'startup.latency:3/3',
      'engine.startup.latency:3/4',
      'engine.startup.latency:4/4',
      'operations.c:1/1',
    ]);
    expect(engine.accumulator.attempts).toBe(4);
    expect(cri.accumulator.attempts).toBe(3);
  });
});

describe('orchestrate when the run is stopped', () => {
  test('InterruptedError stops the loop; every slot cut short is interrupted, an unsupported one is not', async () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const refused = scripted(
      'operations.a',
      'R',
      [() => ({ values: {}, errors: {}, unsupported: 'no' })],
      calls,
    );
    const a = scripted(
      'operations.a',
      'A',
      [
        ok(1),
        () => {
          controller.abort('SIGINT');
          throw new InterruptedError();
        },
      ],
      calls,
    );
    const later = scripted('operations.b', 'A', [ok(1), ok(2), ok(3)], calls);
    await orchestrate({
      ...quiet,
      config: config({}),
      slots: [refused, a, later],
      signal: controller.signal,
    });
    expect(calls).toEqual(['R#0', 'A#0', 'A#1']);
    expect(a.accumulator.samples.get('x')).toEqual([1]);
    expect(a.accumulator.failedAttempts).toBe(0);
    expect(a.accumulator.interrupted).toBe(true);
    expect(later.accumulator.interrupted).toBe(true);
    expect(later.accumulator.attempts).toBe(0);
    expect(refused.accumulator.interrupted).toBe(false);
  });

  test('a signal between repetitions stops before the next one; finished slots stay uninterrupted', async () => {
    const controller = new AbortController();
    const done = scripted('operations.a', 'A', [ok(1)]);
    const next = scripted('operations.b', 'A', [
      (n) => {
        controller.abort('SIGTERM');
        return { values: { x: n }, errors: {} };
      },
      ok(2),
    ]);
    await orchestrate({
      ...quiet,
      config: config({ runs: 1 }),
      slots: [done, next],
      signal: controller.signal,
    });
    expect(done.accumulator.interrupted).toBe(false);
    // Its one repetition completed before the loop looked at the signal again: it is whole.
    expect(next.accumulator.samples.get('x')).toEqual([0]);
    expect(next.accumulator.interrupted).toBe(false);
  });

  test('a repetition that failed because the run was being stopped is not recorded as a runtime error', async () => {
    const controller = new AbortController();
    const slot = scripted('operations.a', 'A', [
      ok(1),
      ok(2),
      () => {
        // The endpoint dies during this repetition: its calls fail, and the run is being stopped.
        controller.abort('endpoint died');
        return { values: {}, errors: { x: 'connect ECONNREFUSED' }, failure: 'connect ECONNREFUSED' };
      },
      ok(4),
    ]);
    await orchestrate({ ...quiet, config: config({ runs: 4 }), slots: [slot], signal: controller.signal });
    const acc = slot.accumulator;
    expect(acc.samples.get('x')).toEqual([1, 2]);
    expect(acc.failedAttempts).toBe(0);
    expect(acc.errors.get('x')!.size).toBe(0);
    expect(acc.interrupted).toBe(true);
  });

  test('a failure the liveness watch finds to be the endpoint dying is not recorded; other failures are', async () => {
    const controller = new AbortController();
    const dropped = (): IterationOutcome => ({
      values: {},
      errors: { x: 'Connection dropped' },
      failure: 'Connection dropped',
    });
    const slot = scripted('operations.a', 'A', [ok(1), dropped, ok(3), dropped, ok(5)]);
    const asked: string[] = [];
    await orchestrate({
      ...quiet,
      config: config({ runs: 5 }),
      slots: [slot],
      signal: controller.signal,
      beforeRecordingFailure: async (s) => {
        asked.push(s.targetId);
        // The first failure: the daemon was still alive after the wait; the second: it died.
        if (asked.length === 2) controller.abort('endpoint died');
      },
    });
    const acc = slot.accumulator;
    expect(asked).toEqual(['A', 'A']);
    expect(acc.samples.get('x')).toEqual([1, 3]);
    expect(acc.failedAttempts).toBe(1);
    expect([...acc.errors.get('x')!.keys()]).toEqual(['Connection dropped']);
    expect(acc.interrupted).toBe(true);
  });
});

describe('orchestrate: shuffled rounds', () => {
  const rounds = 40;
  async function order(over: Record<string, unknown>, seed?: number): Promise<string[][]> {
    const calls: string[] = [];
    const slots = ['A', 'B', 'C'].map((t) =>
      scripted(
        'operations.a',
        t,
        Array.from({ length: rounds }, (_, i) => ok(i)),
        calls,
      ),
    );
    await orchestrate({
      ...quiet,
      config: config({ runs: rounds, ...over }),
      ...(seed === undefined ? {} : { roundOrderSeed: seed }),
      slots,
      signal: new AbortController().signal,
    });
    // Round k: the three calls whose repetition number is k.
    return Array.from({ length: rounds }, (_, k) =>
      calls.filter((c) => c.endsWith(`#${k}`)).map((c) => c.split('#')[0]!),
    );
  }

  test('each round runs every target once, in an order drawn from the seed; fixed keeps A B C', async () => {
    const shuffled = await order({ roundOrder: 'shuffled' }, 0x1a2b3c4d);
    for (const round of shuffled) expect([...round].sort()).toEqual(['A', 'B', 'C']);
    // All six orders of three occur over 40 rounds (each has p = 1/6; missing one: < 0.2 %).
    expect(new Set(shuffled.map((r) => r.join(''))).size).toBe(6);
    expect(await order({ roundOrder: 'shuffled' }, 0x1a2b3c4d)).toEqual(shuffled);
    expect(await order({ roundOrder: 'shuffled' }, 7)).not.toEqual(shuffled);
    for (const round of await order({})) expect(round).toEqual(['A', 'B', 'C']);
  });

  test('a shuffled order without a seed is a bug of the caller, not a silent fixed order', async () => {
    await expect(order({ roundOrder: 'shuffled' })).rejects.toThrow(/roundOrderSeed/);
  });
});
