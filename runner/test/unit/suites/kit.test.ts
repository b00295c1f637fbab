import { describe, expect, test } from 'vitest';
import { ImagesConfigSchema } from '@runtime-bench/schemas';
import { CriCallError, type CriClient } from '../../../src/cri/types.ts';
import { finish, part, withPod } from '../../../src/suites/kit.ts';
import { ResourceTracker } from '../../../src/suites/tracker.ts';
import type { BenchmarkContext } from '../../../src/suites/types.ts';
import { InterruptedError } from '../../../src/errors.ts';

/** Only the pod calls withPod makes, recorded; RunPodSandbox fails when told to. */
function context(calls: string[], failRunPod = false): BenchmarkContext {
  const cri = {
    runPodSandbox: async () => {
      calls.push('RunPodSandbox');
      if (failRunPod) throw new CriCallError('RunPodSandbox', 'no handler "x"');
      return 'pod1';
    },
    stopPodSandbox: async (id: string) => void calls.push(`StopPodSandbox ${id}`),
    removePodSandbox: async (id: string) => void calls.push(`RemovePodSandbox ${id}`),
  } as unknown as CriClient;
  return {
    cri,
    target: { id: 'fake/x', handler: 'x' },
    images: ImagesConfigSchema.parse({}),
    runId: 'r',
    logDir: '/nonexistent',
    tracker: new ResourceTracker(),
    signal: new AbortController().signal,
    callTimeoutSeconds: 1,
  };
}

describe('withPod', () => {
  test("the body's outcome, and the pod removed after it", async () => {
    const calls: string[] = [];
    const ctx = context(calls);
    const outcome = await withPod(ctx, 'p', ['a'], async (pod) => {
      calls.push(`body ${pod.id}`);
      return { values: { a: 1 }, errors: {} };
    });
    expect(outcome).toEqual({ values: { a: 1 }, errors: {} });
    expect(calls).toEqual(['RunPodSandbox', 'body pod1', 'StopPodSandbox pod1', 'RemovePodSandbox pod1']);
    expect(ctx.tracker.livePods).toEqual([]);
  });

  test('a failing body: values gathered before are kept, the other metrics carry the message', async () => {
    const calls: string[] = [];
    const outcome = await withPod(context(calls), 'p', ['a', 'b', 'c'], async (_pod, gathered) => {
      gathered.values.a = 1;
      gathered.errors.b = 'b: own error';
      throw new Error('boom');
    });
    expect(outcome).toEqual({ values: { a: 1 }, errors: { b: 'b: own error', c: 'boom' }, failure: 'boom' });
    expect(calls.at(-1)).toBe('RemovePodSandbox pod1');
  });

  test('RunPodSandbox failing: every metric fails with the call named, no pod to remove', async () => {
    const calls: string[] = [];
    const outcome = await withPod(context(calls, true), 'p', ['a', 'b'], async () => ({
      values: {},
      errors: {},
    }));
    expect(outcome.failure).toBe('RunPodSandbox: RunPodSandbox: no handler "x"');
    expect(Object.keys(outcome.errors)).toEqual(['a', 'b']);
    expect(calls).toEqual(['RunPodSandbox']);
  });

  test('prepare runs before the pod; its failure fails the iteration without a pod', async () => {
    const calls: string[] = [];
    const outcome = await withPod(context(calls), 'p', ['a'], async () => ({ values: {}, errors: {} }), {
      prepare: async () => {
        calls.push('prepare');
        throw new Error('image missing');
      },
    });
    expect(outcome).toEqual({ values: {}, errors: { a: 'image missing' }, failure: 'image missing' });
    expect(calls).toEqual(['prepare']);
  });

  test('an interruption propagates, and the pod is still removed', async () => {
    const calls: string[] = [];
    await expect(
      withPod(context(calls), 'p', ['a'], async () => {
        throw new InterruptedError();
      }),
    ).rejects.toBeInstanceOf(InterruptedError);
    expect(calls).toEqual(['RunPodSandbox', 'StopPodSandbox pod1', 'RemovePodSandbox pod1']);
  });
});

describe('part and finish', () => {
  test("a part's failure marks its own metrics with its label; finish reports the first failure", async () => {
    const gathered = { values: {}, errors: {} };
    const failures = [
      await part(gathered, ['x'], 'seqwr', async () => undefined),
      await part(gathered, ['y', 'z'], 'rndrd', async () => {
        throw new Error('EIO');
      }),
      await part(gathered, ['w'], 'seqrd', async () => {
        throw new Error('ENOSPC');
      }),
    ];
    expect(gathered.errors).toEqual({ y: 'rndrd: EIO', z: 'rndrd: EIO', w: 'seqrd: ENOSPC' });
    expect(finish(gathered, failures).failure).toBe('rndrd: EIO');
    expect(finish({ values: { x: 1 }, errors: {} }, [null])).toEqual({ values: { x: 1 }, errors: {} });
    await expect(
      part(gathered, ['x'], 'l', () => Promise.reject(new InterruptedError())),
    ).rejects.toBeInstanceOf(InterruptedError);
  });
});
