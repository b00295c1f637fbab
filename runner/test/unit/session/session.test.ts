import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ConfigSchema, type RunResult } from '@runtime-bench/schemas';
import { RbError } from '../../../src/errors.ts';
import { readResultFile, writeResultFile } from '../../../src/results/io.ts';
import type { PipelineOptions, TargetKind } from '../../../src/run/pipeline.ts';
import { withRunSession, type SessionStack } from '../../../src/session/session.ts';
import { withStopSignals } from '../../../src/session/signals.ts';
import type { StackOps } from '../../../src/session/stacks.ts';

const fixture = new URL('../../fixtures/results/runc-vs-crun-containerd-1.6.20-a.json', import.meta.url)
  .pathname;
const config = ConfigSchema.parse({});
const kind: TargetKind = { prepare: () => Promise.reject(new Error('the fake pipeline never prepares')) };

function stack(name: string, handlers: string[] = [], extra = 'runc'): SessionStack {
  return {
    name,
    fixHost: false,
    extraHandlers: [{ name: extra, binary: `/opt/${extra}` }],
    subnet: undefined,
    images: config.images,
    handlers,
  };
}

/** Stack operations that record what they were asked; `upAlready` names stacks someone else started. */
function recordingOps(opts: { upAlready?: string[]; handlers?: string[]; failDown?: string[] } = {}) {
  const calls: string[] = [];
  const ops: StackOps = {
    up: (s) => {
      calls.push(`up ${s.name}`);
      return Promise.resolve({
        handlers: opts.handlers ?? s.extraHandlers.map((h) => h.name),
        alreadyUp: (opts.upAlready ?? []).includes(s.name),
      });
    },
    down: (name) => {
      calls.push(`down ${name}`);
      return (opts.failDown ?? []).includes(name) ? Promise.reject(new Error('busy')) : Promise.resolve();
    },
  };
  return { calls, ops };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-session-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('withStopSignals', () => {
  test('the first signal aborts with its name, a second one only says cleaning goes on; listeners removed after', async () => {
    const source = new EventEmitter();
    const said: string[] = [];
    const seen = await withStopSignals(
      (line) => said.push(line),
      (signal) => {
        source.emit('SIGTERM', 'SIGTERM');
        source.emit('SIGINT', 'SIGINT');
        return Promise.resolve({ aborted: signal.aborted, reason: signal.reason as unknown });
      },
      source as never,
    );
    expect(seen).toEqual({ aborted: true, reason: 'SIGTERM' });
    expect(said).toEqual([
      'SIGTERM: stopping after the current call, cleaning up, writing a partial result',
      'SIGINT again: still cleaning up, please wait',
    ]);
    expect(source.listenerCount('SIGINT') + source.listenerCount('SIGTERM')).toBe(0);
  });

  test('listeners are removed when the body throws', async () => {
    const source = new EventEmitter();
    await expect(
      withStopSignals(
        () => undefined,
        () => Promise.reject(new Error('boom')),
        source as never,
      ),
    ).rejects.toThrow('boom');
    expect(source.listenerCount('SIGINT') + source.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('withRunSession', () => {
  const quiet = { log: () => undefined, say: () => undefined };
  const signals = () => new EventEmitter() as never;

  test('a run writes every document where place says before it returns, and the stacks go down newest first', async () => {
    const result = await readResultFile(fixture);
    // Another valid run id: the same time, other hex digits.
    const second = result.runId.replace(/-[0-9a-f]{8}$/, '-0badc0de');
    const { calls, ops } = recordingOps();
    const seenOptions: PipelineOptions[] = [];
    const out = await withRunSession(
      {
        ...quiet,
        deps: {
          stackOps: ops,
          signals: signals(),
          pipeline: (_k, o) => {
            seenOptions.push(o);
            return Promise.resolve({
              results: [result, { ...result, runId: second }],
              stop: null,
              journal: null,
            });
          },
        },
      },
      async (session) => {
        await session.stacks([stack('a', ['runc']), stack('b', ['runc'])]);
        return session.run(kind, config, { place: (r, i, n) => join(dir, `${i}-of-${n}-${r.runId}.json`) });
      },
    );
    expect(out.paths).toEqual([join(dir, `0-of-2-${result.runId}.json`), join(dir, `1-of-2-${second}.json`)]);
    const written: RunResult = JSON.parse(await readFile(out.paths[1]!, 'utf8')) as RunResult;
    expect(written.runId).toBe(second);
    expect(calls).toEqual(['up a', 'up b', 'down b', 'down a']);
    expect(seenOptions[0]!.signal.aborted).toBe(false);
  });

  test('a stack someone else had up is used and left up; one without a needed handler is refused', async () => {
    const { calls, ops } = recordingOps({ upAlready: ['theirs'], handlers: ['crun'] });
    await expect(
      withRunSession({ ...quiet, deps: { stackOps: ops, signals: signals() } }, (session) =>
        session.stacks([stack('mine', ['crun']), stack('theirs', ['runc'])]),
      ),
    ).rejects.toThrow('stack "theirs" has no handler runc (it was already up)');
    expect(calls).toEqual(['up mine', 'up theirs', 'down mine']);
  });

  test('fresh stacks replace a leftover; new handlers bring the stack up again; the same ones reuse it', async () => {
    const { calls, ops } = recordingOps();
    await withRunSession({ ...quiet, deps: { stackOps: ops, signals: signals() } }, async (session) => {
      await session.stacks([stack('bisect', [], 'good')], { fresh: true });
      await session.stacks([stack('bisect', [], 'good')], { fresh: true });
      await session.stacks([stack('bisect', [], 'candidate')], { fresh: true });
    });
    expect(calls).toEqual(['down bisect', 'up bisect', 'down bisect', 'up bisect', 'down bisect']);
  });

  test('every stack used is locked before anything is done to it and released only after it went down (or was kept)', async () => {
    for (const keepStacks of [false, true]) {
      const { calls, ops } = recordingOps({ upAlready: ['theirs'] });
      const locking: StackOps = {
        ...ops,
        lock: (name) => {
          calls.push(`lock ${name}`);
          return Promise.resolve(() => Promise.resolve(void calls.push(`unlock ${name}`)));
        },
      };
      await withRunSession(
        { ...quiet, keepStacks, deps: { stackOps: locking, signals: signals() } },
        async (session) => {
          await session.stacks([stack('mine'), stack('theirs')], { fresh: false });
          // New handlers: the same stack again, under the lock it already holds.
          await session.stacks([stack('mine', [], 'crun')]);
        },
      );
      expect(calls).toEqual([
        'lock mine',
        'up mine',
        'lock theirs',
        'up theirs',
        'down mine',
        'up mine',
        ...(keepStacks ? [] : ['down mine']),
        'unlock mine',
        'unlock theirs',
      ]);
    }
  });

  test('a stack whose lock another command holds: refused with its error, and what was started goes down and is released', async () => {
    const { calls, ops } = recordingOps();
    const held = new RbError('LOCK_HELD', 'stack "b" is in use by pid 99 (runtime-bench sweep) since …');
    const locking: StackOps = {
      ...ops,
      lock: (name) => {
        calls.push(`lock ${name}`);
        if (name === 'b') return Promise.reject(held);
        return Promise.resolve(() => Promise.resolve(void calls.push(`unlock ${name}`)));
      },
    };
    await expect(
      withRunSession({ ...quiet, deps: { stackOps: locking, signals: signals() } }, (session) =>
        session.stacks([stack('a'), stack('b')]),
      ),
    ).rejects.toBe(held);
    expect(calls).toEqual(['lock a', 'up a', 'lock b', 'down a', 'unlock a']);
  });

  test('keepStacks leaves them up; a stack noted in the record before it starts', async () => {
    const { calls, ops } = recordingOps();
    const recorded: string[] = [];
    await withRunSession(
      {
        ...quiet,
        keepStacks: true,
        recordStack: (name) => {
          recorded.push(name);
          calls.push(`record ${name}`);
          return Promise.resolve();
        },
        deps: { stackOps: ops, signals: signals() },
      },
      (session) => session.stacks([stack('s1')]),
    );
    expect(calls).toEqual(['record s1', 'up s1']);
    expect(recorded).toEqual(['s1']);
  });

  test("the body's error wins over a stack that would not go down; after a success that failure is the error", async () => {
    const { ops } = recordingOps({ failDown: ['a'] });
    const logged: string[] = [];
    const log = (line: string) => logged.push(line);
    await expect(
      withRunSession({ log, say: log, deps: { stackOps: ops, signals: signals() } }, async (session) => {
        await session.stacks([stack('a')]);
        throw new Error('the run failed');
      }),
    ).rejects.toThrow('the run failed');
    expect(logged).toEqual(['stack down failed: a: busy']);
    await expect(
      withRunSession({ log, say: log, deps: { stackOps: ops, signals: signals() } }, (session) =>
        session.stacks([stack('a')]),
      ),
    ).rejects.toThrow('could not take down a: busy');
  });

  test('a signal while the stacks come up stops before anything runs, with the exit status of the signal', async () => {
    const source = new EventEmitter();
    const { calls, ops } = recordingOps();
    let ran = false;
    const error = await withRunSession(
      {
        ...quiet,
        deps: {
          stackOps: {
            ...ops,
            up: (s) => {
              source.emit('SIGTERM', 'SIGTERM');
              return ops.up(s);
            },
          },
          signals: source as never,
          pipeline: () => {
            ran = true;
            return Promise.reject(new Error('must not run'));
          },
        },
      },
      async (session) => {
        await session.stacks([stack('a')]);
        await session.run(kind, config, { place: () => join(dir, 'x.json') });
      },
    ).catch((e: unknown) => e);
    expect(ran).toBe(false);
    expect(error).toMatchObject({ code: 'INTERRUPTED', cliExitCode: 143 });
    expect(calls).toEqual(['up a', 'down a']);
  });

  test('the written document is the one the pipeline gave (validated on write)', async () => {
    const result = await readResultFile(fixture);
    const path = join(dir, 'r.json');
    await withRunSession(
      {
        ...quiet,
        deps: {
          stackOps: recordingOps().ops,
          signals: signals(),
          pipeline: () => Promise.resolve({ results: [result], stop: null, journal: null }),
          write: writeResultFile,
        },
      },
      (session) => session.run(kind, config, { place: () => path }),
    );
    expect(await readResultFile(path)).toEqual(result);
  });
});
