import { describe, expect, test } from 'vitest';
import { ConfigSchema } from '@runtime-bench/schemas';
import type { ContainerStatus, CriClient } from '../../../src/cri/types.ts';
import { CriCallError } from '../../../src/cri/types.ts';
import { cpuScalingBenchmark, isRefusal } from '../../../src/suites/limits-cpu.ts';
import { ResourceTracker } from '../../../src/suites/tracker.ts';
import type { BenchmarkContext } from '../../../src/suites/types.ts';

/** A recording fake of the CRI: containers run until told otherwise; updates fail with `updateError`. */
function fakeCri(
  calls: string[],
  updateError = new CriCallError(
    'UpdateContainerResources',
    'rpc error: code = Unknown desc = runsc does not support updating resources',
  ),
  stateOnRead: (read: number) => ContainerStatus['state'] = () => 'CONTAINER_RUNNING',
): CriClient {
  let n = 0;
  let reads = 0;
  const status = (id: string): ContainerStatus => ({
    id,
    state: stateOnRead(++reads),
    createdAt: '0',
    startedAt: '0',
    finishedAt: '0',
    exitCode: 0,
    reason: '',
    message: '',
    logPath: '',
  });
  const record =
    (name: string) =>
    async (...args: unknown[]): Promise<undefined> => {
      calls.push(`${name} ${String(args[0] ?? '')}`.trim());
      return undefined;
    };
  return {
    transport: 'grpc',
    endpoint: 'unix:///fake.sock',
    version: async () => ({
      version: '0.1.0',
      runtimeName: 'fake',
      runtimeVersion: '1',
      runtimeApiVersion: 'v1',
    }),
    runPodSandbox: async () => (calls.push('RunPodSandbox'), `pod${++n}`),
    stopPodSandbox: record('StopPodSandbox'),
    removePodSandbox: record('RemovePodSandbox'),
    podSandboxStatus: async (id) => ({
      id,
      state: 'SANDBOX_READY',
      createdAt: '0',
      ip: '',
      runtimeHandler: 'fake',
      labels: {},
    }),
    listPodSandbox: async () => [],
    createContainer: async () => (calls.push('CreateContainer'), `ctr${++n}`),
    startContainer: record('StartContainer'),
    stopContainer: record('StopContainer'),
    removeContainer: record('RemoveContainer'),
    containerStatus: async (id) => status(id),
    updateContainerResources: async () => {
      calls.push('UpdateContainerResources');
      throw updateError;
    },
    containerStats: async () => ({ cpuUsageCoreNanoSeconds: null, memoryWorkingSetBytes: null }),
    execSync: async () => ({ stdout: '', stderr: '', exitCode: 0 }),
    imageStatus: async () => null,
    listImages: async () => [],
    pullImage: async (image) => (calls.push(`PullImage ${image}`), 'sha256:fake'),
    removeImage: record('RemoveImage'),
    close: () => undefined,
  };
}

/** One short limits.cpu.scaling iteration on `cri`, its pods tracked by `tracker`. */
function scalingOn(cri: CriClient, tracker: ResourceTracker): ReturnType<typeof cpuScalingBenchmark.iterate> {
  const ctx: BenchmarkContext = {
    cri,
    target: { id: 'fake/runsc', handler: 'runsc' },
    images: { pause: 'p', bench: 'b', large: 'l' },
    runId: 'r',
    logDir: '/nonexistent',
    tracker,
    signal: new AbortController().signal,
    callTimeoutSeconds: 5,
  };
  const params = { ...ConfigSchema.parse({}).parameters['limits.cpu.scaling'], rampSeconds: 0.1, steps: 2 };
  return cpuScalingBenchmark.iterate(ctx, params, { index: 0, warmup: false });
}

describe('limits.cpu.scaling on a runtime that refuses UpdateContainerResources', () => {
  test("is unsupported with the runtime's error, and its pod is removed", async () => {
    const calls: string[] = [];
    const tracker = new ResourceTracker();
    const outcome = await scalingOn(fakeCri(calls), tracker);
    expect(outcome.unsupported).toMatch(
      /UpdateContainerResources refused: .*runsc does not support updating resources/,
    );
    expect(outcome.failure).toBeUndefined();
    expect(calls).toEqual([
      'RunPodSandbox',
      'CreateContainer',
      'StartContainer ctr2',
      'UpdateContainerResources',
      'StopPodSandbox pod1',
      'RemovePodSandbox pod1',
    ]);
    expect(tracker.livePods).toEqual([]);
  });

  test.each([
    ['a dropped shim connection', new CriCallError('UpdateContainerResources', 'ttrpc: closed: unknown', 2)],
    ['a deadline', new CriCallError('UpdateContainerResources', 'Deadline exceeded after 5000 ms', 4)],
  ])('%s is a failed repetition, not a refusal: the next repetition tries again', async (_, error) => {
    const calls: string[] = [];
    const tracker = new ResourceTracker();
    const outcome = await scalingOn(fakeCri(calls, error), tracker);
    expect(outcome.unsupported).toBeUndefined();
    expect(outcome.failure).toContain(error.message);
    expect(tracker.livePods).toEqual([]);
  });

  test('"container not running" before the CRI reports the exit: the ramp ends and the workload output is read', async () => {
    // CRI-O under load: runc says "container not running" while the status still reads RUNNING
    // until conmon reports the exit a few reads later.
    const notRunning = new CriCallError(
      'UpdateContainerResources',
      'updating resources for container "0e3e" failed: level=error msg="container not running": exit status 1',
      2,
    );
    const calls: string[] = [];
    const tracker = new ResourceTracker();
    const outcome = await scalingOn(
      fakeCri(calls, notRunning, (read) => (read >= 3 ? 'CONTAINER_EXITED' : 'CONTAINER_RUNNING')),
      tracker,
    );
    expect(outcome.unsupported).toBeUndefined();
    // The repetition went on to read the workload's output (this fake keeps no log), instead of
    // failing on the update.
    expect(outcome.failure).not.toContain('not running');
    expect(outcome.failure).toMatch(/sysbench output/);
    // One update was tried, none applied: the ramp stopped at the first "not running".
    expect(calls.filter((c) => c === 'UpdateContainerResources')).toHaveLength(1);
    expect(tracker.livePods).toEqual([]);
  });

  test('gRPC UNIMPLEMENTED is a refusal whatever its text', () => {
    expect(isRefusal(new CriCallError('UpdateContainerResources', 'unknown method', 12))).toBe(true);
    expect(
      isRefusal(
        new CriCallError('UpdateContainerResources', 'failed to update: not implemented: unknown', 2),
      ),
    ).toBe(true);
    expect(isRefusal(new CriCallError('UpdateContainerResources', 'ttrpc: closed: unknown', 2))).toBe(false);
  });
});
