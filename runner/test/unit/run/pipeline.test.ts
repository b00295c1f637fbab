// The one run pipeline with a plain target kind: what every kind's run gives after its end, a
// signal or a dead endpoint — result documents valid against the schema, their status and reason,
// the exit status, and the kind's close called whatever happened.
import { describe, expect, test } from 'vitest';
import { ConfigSchema, RunResultSchema } from '@runtime-bench/schemas';
import { FAKE_DEFINITION, fakeHost, fakeTarget } from '../../support/fake-run.ts';
import { newSlot, type Slot } from '../../../src/run/orchestrate.ts';
import { runPipeline, type TargetKind } from '../../../src/run/pipeline.ts';
import { EndpointDead, EXIT_ENDPOINT_DEAD, stopExitCode } from '../../../src/run/stop.ts';
import type { IterationOutcome } from '../../../src/suites/types.ts';
import { InterruptedError } from '../../../src/errors.ts';

const host = fakeHost;
const definition = FAKE_DEFINITION;
const target = (id: string) => fakeTarget(id);

/**
 * A kind with one slot per (host, target) whose repetitions follow `step`; it records the calls
 * of its life cycle in `life`.
 */
function fakeKind(
  hosts: string[],
  step: (n: number, ctl: { signal: AbortSignal; died: AbortController }) => IterationOutcome,
  life: string[],
): TargetKind {
  return {
    async prepare(ctx) {
      life.push('prepare');
      const died = new AbortController();
      const signal = AbortSignal.any([ctx.signal, died.signal]);
      let n = 0;
      const slots = hosts.map((h) =>
        newSlot(definition, `${h}/runc`, { host: h }, async () => step(n++, { signal, died })),
      );
      return {
        slots,
        signal,
        async finish() {
          life.push('finish');
          return hosts.map((h, i) => ({
            host: host(h),
            components: [
              { name: 'containerd', role: 'cri' as const, version: '2.1.4' },
              { name: 'containerd', role: 'cri' as const, version: '2.1.4' },
            ],
            targets: [target(`${h}/runc`)],
            benchmarks: [definition],
            slots: [slots[i] as Slot],
          }));
        },
        async close() {
          life.push('close');
        },
      };
    },
  };
}

const config = ConfigSchema.parse({ runs: 3, warmup: 0 });
const run = (kind: TargetKind, signal = new AbortController().signal) =>
  runPipeline(kind, { config, signal, onProgress: () => undefined, log: () => undefined });

describe('runPipeline', () => {
  test('to its end: one complete, valid document per host, own run ids, duplicate components once', async () => {
    const life: string[] = [];
    const { results, stop } = await run(
      fakeKind(['n1', 'n2'], (n) => ({ values: { x: n }, errors: {} }), life),
    );
    expect(stop).toBeNull();
    expect(life).toEqual(['prepare', 'finish', 'close']);
    expect(results.map((r) => [r.host.hostname, r.status, r.results[0]!.status])).toEqual([
      ['n1', 'complete', 'ok'],
      ['n2', 'complete', 'ok'],
    ]);
    for (const r of results) RunResultSchema.parse(r);
    expect(new Set(results.map((r) => r.runId)).size).toBe(2);
    // Interleaved: n1 got repetitions 0, 2, 4 and n2 1, 3, 5.
    expect(results.map((r) => r.results[0]!.metrics[0]!.samples)).toEqual([
      [0, 2, 4],
      [1, 3, 5],
    ]);
    expect(results[0]!.results[0]!.parameters).toEqual({ host: 'n1' });
    expect(results[0]!.components).toHaveLength(1);
  });

  test.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])('%s mid-run: incomplete documents, interrupted benchmarks, exit %i, closed', async (name, code) => {
    const life: string[] = [];
    const controller = new AbortController();
    const { results, stop } = await run(
      fakeKind(
        ['n1', 'n2'],
        (n) => {
          if (n === 3) {
            controller.abort(name);
            throw new InterruptedError();
          }
          return { values: { x: n }, errors: {} };
        },
        life,
      ),
      controller.signal,
    );
    expect(stop).toEqual({ kind: 'signal', signal: name });
    expect(stopExitCode(stop!)).toBe(code);
    expect(life).toEqual(['prepare', 'finish', 'close']);
    for (const r of RunResultSchema.array().parse(results)) {
      expect(r.status).toBe('incomplete');
      expect(r.incompleteReason).toBe(`interrupted by ${name}`);
      expect(r.results[0]!.status).toBe('interrupted');
    }
    expect(results.map((r) => r.results[0]!.metrics[0]!.samples)).toEqual([[0, 2], [1]]);
  });

  test('a dead endpoint: the reason names it, exit 69', async () => {
    const { results, stop } = await run(
      fakeKind(
        ['n1'],
        (n, { died }): IterationOutcome => {
          if (n === 1) {
            died.abort(new EndpointDead('the CRI socket /fake.sock is gone'));
            return { values: {}, errors: { x: 'ECONNREFUSED' }, failure: 'ECONNREFUSED' };
          }
          return { values: { x: n }, errors: {} };
        },
        [],
      ),
    );
    expect(stop).toEqual({ kind: 'endpoint-dead', cause: 'the CRI socket /fake.sock is gone' });
    expect(stopExitCode(stop!)).toBe(EXIT_ENDPOINT_DEAD);
    expect(results[0]!.incompleteReason).toBe('CRI endpoint died: the CRI socket /fake.sock is gone');
    expect(results[0]!.results[0]!).toMatchObject({ status: 'interrupted', failedAttempts: 0, attempts: 1 });
  });

  test('an unsupported outcome is the benchmark’s result, and the run still completes', async () => {
    const { results } = await run(
      fakeKind(['n1'], () => ({ values: {}, errors: {}, unsupported: 'no v1' }), []),
    );
    expect(results[0]!.status).toBe('complete');
    expect(results[0]!.results[0]).toMatchObject({ status: 'unsupported', reason: 'no v1', attempts: 0 });
  });

  test('the tool record is taken once, before the kind prepares: a checkout that moves mid-run does not rename what measured', async () => {
    const life: string[] = [];
    const commits = ['1111111111111111111111111111111111111111', '2222222222222222222222222222222222222222'];
    const tool = () => {
      life.push('tool');
      return {
        name: 'runtime-bench' as const,
        version: '0.1.0',
        gitCommit: commits.shift() ?? null,
        node: 'v24',
      };
    };
    const { results } = await runPipeline(
      fakeKind(['n1', 'n2'], (n) => ({ values: { x: n }, errors: {} }), life),
      {
        config,
        signal: new AbortController().signal,
        onProgress: () => undefined,
        log: () => undefined,
        tool,
      },
    );
    expect(life).toEqual(['tool', 'prepare', 'finish', 'close']);
    expect(results.map((r) => r.tool.gitCommit)).toEqual([
      '1111111111111111111111111111111111111111',
      '1111111111111111111111111111111111111111',
    ]);
  });

  test('close runs when finish throws', async () => {
    const life: string[] = [];
    const kind = fakeKind(['n1'], () => ({ values: { x: 1 }, errors: {} }), life);
    const broken: TargetKind = {
      async prepare(ctx) {
        const prepared = await kind.prepare(ctx);
        return {
          ...prepared,
          finish: () => Promise.reject(new Error('no host fingerprint')),
        };
      },
    };
    await expect(run(broken)).rejects.toThrow('no host fingerprint');
    expect(life).toEqual(['prepare', 'close']);
  });
});
