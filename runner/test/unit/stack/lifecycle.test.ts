// `stack up` / `stack down` decided from plain values (lifecycle.ts) and sequenced over a
// recording StackHost (manager.ts): which steps run in which order, what is reused, cleaned up
// first, refused, recorded and removed. The real host is driven by the integration tests.
import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import type { StackHost } from '../../../src/stack/host.ts';
import { decideUp, planDown, stackProcessNeedle } from '../../../src/stack/lifecycle.ts';
import { stackDown, stackUp, type StackUpOptions } from '../../../src/stack/manager.ts';
import { bridgeName } from '../../../src/stack/network.ts';
import type { StackPlanInput } from '../../../src/stack/plan.ts';
import { PLAN_STATE_DIR, RUNC_HANDLER, planInput } from '../../support/stack-plan.ts';
import type { StackState } from '../../../src/stack/state.ts';

const DIR = PLAN_STATE_DIR;

function state(over: Partial<StackState> = {}): StackState {
  return {
    cri: 'containerd',
    name: 't',
    stateDir: DIR,
    socket: `${DIR}/containerd.sock`,
    pid: 4242,
    startedAt: '2026-01-01T00:00:00.000Z',
    daemon: {
      path: '/usr/bin/containerd',
      version: '1.7.24',
      configPath: `${DIR}/config.toml`,
      logPath: `${DIR}/containerd.log`,
    },
    handlers: [{ ...RUNC_HANDLER }],
    skippedHandlers: [],
    hostFixes: [],
    network: { name: 'runtime-bench-t', bridge: 'rb-t-br', subnet: '10.233.7.0/24' },
    images: { pause: 'localhost/p:1', bench: 'localhost/b:1' },
    imageComponents: [],
    containerd: { configVersion: 2, ctr: '/usr/bin/ctr' },
    ...over,
  } as StackState;
}

/** A host whose answers are given and whose every call is recorded, in order. */
function recordingHost(world: {
  state?: StackState | null | 'unreadable';
  answers?: boolean;
  alive?: boolean;
  facts?: StackPlanInput;
  failAt?: 'waitForCri' | 'loadImages';
  unmountFailures?: string[];
  leftovers?: number[];
}) {
  const calls: string[] = [];
  let stored: StackState | null | 'unreadable' = world.state ?? null;
  const rec = (name: string, ...args: unknown[]) =>
    calls.push([name, ...args.map((a) => JSON.stringify(a))].join(' '));
  const host: StackHost = {
    ensureDir: async (d) => void rec('ensureDir', d),
    lock: async (_name, d, _log, options) => {
      rec(options?.createDir === false ? 'lockIfExists' : 'lock', d);
      return async () => void rec('unlock', d);
    },
    readState: async () => {
      rec('readState');
      if (stored === 'unreadable') throw new RbError('STACK_STATE', 'stack.json: cri: invalid');
      return stored;
    },
    writeState: async (s) => {
      rec('writeState', s.pid, s.imageComponents.length);
      stored = s;
    },
    stateFileExists: () => stored !== null,
    moveStateAside: async () => {
      rec('moveStateAside');
      stored = null;
    },
    removeDir: async (d) => void rec('removeDir', d),
    answers: async () => (rec('answers'), world.answers ?? false),
    gatherFacts: async () => (rec('gatherFacts'), world.facts ?? planInput()),
    // No registry in these worlds (the registry's own lifecycle is image-registry.test.ts's).
    startRegistry: async () => null,
    stopRegistry: async (r) => (rec('stopRegistry', r.pid), []),
    startDaemon: async (plan) => (rec('startDaemon', plan.command.path), 777),
    waitForCri: async (_cri, _socket, pid) => {
      rec('waitForCri', pid);
      if (world.failAt === 'waitForCri') throw new RbError('STACK_START', 'containerd did not answer CRI');
    },
    loadImages: async () => {
      rec('loadImages');
      if (world.failAt === 'loadImages') throw new Error('ctr import failed');
      return [{ name: 'sysbench', role: 'workload', version: '1.0.20' }];
    },
    removePods: async () => (rec('removePods'), { removed: 2, problems: [] }),
    processAlive: (pid) => (rec('processAlive', pid), world.alive ?? false),
    terminate: async (pid) => (rec('terminate', pid), true),
    processesMentioning: async (needles) => (
      rec('processesMentioning', ...needles),
      (world.leftovers ?? []).map((pid) => ({ pid, cmdline: ['containerd-shim-runc-v2'] }))
    ),
    driverCleanup: async () => (rec('driverCleanup'), []),
    removeStackCgroups: async (name) => (rec('removeStackCgroups', name), []),
    unmountBelow: async (d) => (rec('unmountBelow', d), world.unmountFailures ?? []),
    deleteBridge: async (b) => void rec('deleteBridge', b),
    now: () => '2026-02-02T00:00:00.000Z',
  };
  return { host, calls, stored: () => stored };
}

const log: string[] = [];
const upOpts: StackUpOptions = {
  name: 't',
  stateDir: DIR,
  fixHost: false,
  extraHandlers: [],
  images: { pause: 'localhost/p:1', bench: 'localhost/b:1' },
  log: (l) => log.push(l),
};

describe('decideUp (pure)', () => {
  test('reuse a stack that answers; clean up one that does not; start when there is none', () => {
    expect(decideUp({ name: 't', cri: 'containerd', existing: state(), answers: true })).toEqual({
      kind: 'reuse',
      state: state(),
    });
    expect(decideUp({ name: 't', cri: 'containerd', existing: state(), answers: false })).toEqual({
      kind: 'start',
      cleanFirst: 'stack "t" left state behind (containerd not answering): cleaning up first',
    });
    expect(decideUp({ name: 't', cri: 'containerd', existing: null, answers: false })).toEqual({
      kind: 'start',
      cleanFirst: null,
    });
  });
  test('a stack of another CRI runtime is refused, running or not', () => {
    for (const answers of [true, false])
      expect(() => decideUp({ name: 't', cri: 'cri-o', existing: state(), answers })).toThrow(
        expect.objectContaining({
          code: 'STACK_CRI_MISMATCH',
          message: 'stack "t" runs containerd, not cri-o',
        }),
      );
  });
});

describe('planDown (pure)', () => {
  test('a readable state: its bridge goes, it is recorded stopped', () => {
    expect(
      planDown({ name: 't', state: state(), stateFileExists: true, purge: false, unmountFailures: [] }),
    ).toEqual({
      bridge: 'rb-t-br',
      recordStopped: { ...state(), pid: null },
      moveStateAside: false,
      removeStateDir: false,
    });
  });
  test('an unreadable state: the bridge by the stack name, the file moved aside', () => {
    const p = planDown({ name: 't', state: null, stateFileExists: true, purge: false, unmountFailures: [] });
    expect(p).toMatchObject({ recordStopped: null, moveStateAside: true });
    expect(p.bridge).toMatch(/^rb-/);
  });
  test('no state at all: nothing of the network to remove; purge only when nothing is left mounted', () => {
    expect(
      planDown({ name: 't', state: null, stateFileExists: false, purge: true, unmountFailures: [] }),
    ).toEqual({
      bridge: null,
      recordStopped: null,
      moveStateAside: false,
      removeStateDir: true,
    });
    expect(
      planDown({ name: 't', state: null, stateFileExists: false, purge: true, unmountFailures: ['/x: busy'] })
        .removeStateDir,
    ).toBe(false);
  });
  test('the process needle ends with a slash (stack "a" never matches stack "a2")', () => {
    expect(stackProcessNeedle('/s/a')).toBe('/s/a/');
    expect(stackProcessNeedle('/s/a//')).toBe('/s/a/');
  });
});

describe('stackUp over a recording host', () => {
  test('a fresh stack: facts, daemon, pid recorded before waiting for CRI, images, state with their components', async () => {
    const { host, calls, stored } = recordingHost({});
    const r = await stackUp(upOpts, host);
    expect(calls).toEqual([
      `ensureDir "${DIR}"`,
      `lock "${DIR}"`,
      'readState',
      'gatherFacts',
      'startDaemon "/usr/bin/containerd"',
      'writeState 777 0',
      'waitForCri 777',
      'loadImages',
      'writeState 777 1',
      `unlock "${DIR}"`,
    ]);
    expect(r).toMatchObject({ alreadyUp: false, state: { pid: 777, startedAt: '2026-02-02T00:00:00.000Z' } });
    expect(stored()).toEqual(r.state);
  });

  test('a stack that answers is reused: nothing is started or written', async () => {
    const { host, calls } = recordingHost({ state: state(), answers: true });
    expect(await stackUp(upOpts, host)).toEqual({ state: state(), alreadyUp: true });
    expect(calls).toEqual([`ensureDir "${DIR}"`, `lock "${DIR}"`, 'readState', 'answers', `unlock "${DIR}"`]);
  });

  test('another CRI runtime is refused before anything is asked of its daemon or started', async () => {
    const { host, calls } = recordingHost({ state: state(), answers: true });
    await expect(stackUp({ ...upOpts, cri: 'cri-o' }, host)).rejects.toMatchObject({
      code: 'STACK_CRI_MISMATCH',
    });
    // Refused, and the lock released all the same.
    expect(calls).toEqual([`ensureDir "${DIR}"`, `lock "${DIR}"`, 'readState', `unlock "${DIR}"`]);
  });

  test('a stale state is taken down before the new daemon starts', async () => {
    const { host, calls } = recordingHost({ state: state(), answers: false, alive: false });
    await stackUp(upOpts, host);
    expect(calls.indexOf('deleteBridge "rb-t-br"')).toBeGreaterThan(-1);
    expect(calls.indexOf('deleteBridge "rb-t-br"')).toBeLessThan(
      calls.indexOf('startDaemon "/usr/bin/containerd"'),
    );
  });

  test('an unreadable state: down (moved aside), then read again and started', async () => {
    const { host, calls } = recordingHost({ state: 'unreadable' });
    await stackUp(upOpts, host);
    const aside = calls.indexOf('moveStateAside');
    expect(aside).toBeGreaterThan(-1);
    // The nested down takes the lock again (reentrant in one process) and gives that hold back.
    expect(calls.slice(aside + 1, aside + 4)).toEqual([`unlock "${DIR}"`, 'readState', 'gatherFacts']);
  });

  test.each(['waitForCri', 'loadImages'] as const)(
    'a failure at %s takes the half-started stack down and is thrown',
    async (failAt) => {
      const { host, calls, stored } = recordingHost({ failAt, alive: true });
      await expect(stackUp(upOpts, host)).rejects.toThrow();
      const failed = calls.findIndex((c) => c.startsWith(failAt));
      expect(calls.slice(failed + 1)).toEqual(
        expect.arrayContaining([
          'terminate 777',
          `deleteBridge "${bridgeName('t')}"`,
          `unmountBelow "${DIR}"`,
        ]),
      );
      expect(stored()).toMatchObject({ pid: null });
      expect(calls.at(-1)).toBe(`unlock "${DIR}"`);
    },
  );

  test('no usable handler: refused after reading facts, before any change', async () => {
    const { host, calls } = recordingHost({
      facts: planInput({
        discovered: { handlers: [], skipped: [{ name: 'runc', binary: '/r', reason: 'broken' }] },
      }),
    });
    await expect(stackUp(upOpts, host)).rejects.toMatchObject({ code: 'STACK_NO_RUNTIME' });
    expect(calls.slice(-2)).toEqual(['gatherFacts', `unlock "${DIR}"`]);
  });
});

describe('stackDown over a recording host', () => {
  test('a running stack: pods, daemon, leftovers, driver, cgroups, mounts, bridge, stopped state', async () => {
    const { host, calls, stored } = recordingHost({
      state: state(),
      answers: true,
      alive: true,
      leftovers: [5001],
    });
    const report = await stackDown({ name: 't', stateDir: DIR, purge: true, log: () => undefined }, host);
    expect(report).toEqual({ podsRemoved: 2, processesKilled: 1, unmountFailures: [], problems: [] });
    expect(calls).toEqual([
      `lockIfExists "${DIR}"`,
      'readState',
      'answers',
      'removePods',
      'processAlive 4242',
      'terminate 4242',
      `processesMentioning "${DIR}/"`,
      'terminate 5001',
      'driverCleanup',
      'removeStackCgroups "t"',
      `unmountBelow "${DIR}"`,
      'deleteBridge "rb-t-br"',
      'writeState null 0',
      `removeDir "${DIR}"`,
      `unlock "${DIR}"`,
    ]);
    expect(stored()).toMatchObject({ pid: null });
  });

  test('a dead daemon is not signalled; a mount left behind keeps the state dir (and is reported)', async () => {
    const { host, calls } = recordingHost({
      state: state(),
      answers: false,
      alive: false,
      unmountFailures: ['/x: busy'],
    });
    const report = await stackDown({ name: 't', stateDir: DIR, purge: true, log: () => undefined }, host);
    expect(report.unmountFailures).toEqual(['/x: busy']);
    expect(calls).not.toContain('removePods');
    expect(calls).not.toContain('terminate 4242');
    expect(calls.some((c) => c.startsWith('removeDir'))).toBe(false);
  });

  test('twice in a row is safe: the second finds a stopped state and stops nothing', async () => {
    const { host, calls } = recordingHost({ state: state({ pid: null }) });
    await stackDown({ name: 't', stateDir: DIR, purge: false, log: () => undefined }, host);
    expect(calls.filter((c) => c.startsWith('terminate'))).toEqual([]);
  });
});
