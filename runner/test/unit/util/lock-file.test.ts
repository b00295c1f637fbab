// The lock file on a real filesystem: in one process with an injected liveness, then two real
// processes contending for one file. Order is asserted from what the holders wrote while they held
// the lock, never from timing.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { acquireLockFile, type LockFileOptions } from '../../../src/util/lock-file.ts';
import { parseLockHolder } from '../../../src/util/lock-holder.ts';
import { liveProcessStart } from '../../../src/util/proc-stat.ts';
import { lockStack, stackLockPath } from '../../../src/stack/lock.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const thing = { what: 'stack "t"', cleanup: 'runtime-bench stack down --stack t' };

function options(log: string[], over: Partial<LockFileOptions> = {}): LockFileOptions {
  return { ...thing, log: (l) => log.push(l), command: 'this test', ...over };
}

describe('acquireLockFile in one process', () => {
  test('taken: the file names this process; released: the file is gone, and nothing else is left', async () => {
    const path = join(dir, 'sub', 'lock');
    const lock = (await acquireLockFile(path, options([])))!;
    const holder = parseLockHolder(await readFile(path, 'utf8'));
    expect(holder).toMatchObject({ pid: process.pid, command: 'this test' });
    expect(holder!.startTicks).toBe(await liveProcessStart(process.pid));
    await lock.release();
    expect(await readdir(join(dir, 'sub'))).toEqual([]);
  });

  test('a live holder (this very process, as another comer sees it) refuses the second with LOCK_HELD', async () => {
    const path = join(dir, 'lock');
    const first = (await acquireLockFile(path, options([])))!;
    await expect(acquireLockFile(path, options([]))).rejects.toMatchObject({
      code: 'LOCK_HELD',
      message: expect.stringContaining(`in use by pid ${process.pid} (this test) since `) as unknown,
    });
    await first.release();
    expect(await readdir(dir)).toEqual([]);
  });

  test('a holder that is gone is taken over with a log line naming it; a file naming no holder too', async () => {
    const path = join(dir, 'lock');
    const dead = {
      pid: 999_999_999,
      startTicks: 5,
      command: 'killed sweep',
      since: '2026-01-01T00:00:00.000Z',
    };
    for (const text of [JSON.stringify(dead), 'garbage']) {
      await writeFile(path, text);
      const log: string[] = [];
      const lock = (await acquireLockFile(path, options(log)))!;
      expect(parseLockHolder(await readFile(path, 'utf8'))?.pid).toBe(process.pid);
      expect(log).toEqual([
        text === 'garbage'
          ? 'stack "t": taking over its lock: its lock file names no holder'
          : 'stack "t": taking over its lock: its holder, pid 999999999, is gone (it was killed sweep, since 2026-01-01T00:00:00.000Z)',
      ]);
      await lock.release();
    }
    expect(await readdir(dir)).toEqual([]);
  });

  test('a pid reused by a later process does not hold the lock', async () => {
    const path = join(dir, 'lock');
    const own = (await liveProcessStart(process.pid))!;
    await writeFile(
      path,
      JSON.stringify({
        pid: process.pid,
        startTicks: own - 1,
        command: 'old',
        since: '2026-01-01T00:00:00.000Z',
      }),
    );
    const log: string[] = [];
    await (await acquireLockFile(path, options(log)))!.release();
    expect(log[0]).toContain('that pid now belongs to a later process');
  });

  test('without createDir, a missing directory is not locked and not created', async () => {
    const missing = join(dir, 'never-up');
    expect(await acquireLockFile(join(missing, 'lock'), options([], { createDir: false }))).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('lockStack', () => {
  test('reentrant in one process: the file stays until the last hold is released', async () => {
    const releaseOuter = await lockStack('t', dir, () => undefined);
    const releaseInner = await lockStack('t', dir, () => undefined);
    await releaseInner();
    await releaseInner(); // a second call of the same release gives nothing back twice
    expect(await readdir(dir)).toEqual(['lock']);
    await releaseOuter();
    expect(await readdir(dir)).toEqual([]);
    expect(stackLockPath(dir)).toBe(join(dir, 'lock'));
  });
});

// A holder in its own process: takes the lock (retrying while it is held, when told to wait),
// appends to the shared log while it holds it, and releases when its stdin says so.
const lockModule = new URL('../../../src/util/lock-file.ts', import.meta.url).pathname;
const holderScript = (path: string, logFile: string, name: string, wait: boolean) => `
  import { appendFileSync } from 'node:fs';
  import { createInterface } from 'node:readline';
  import { acquireLockFile } from ${JSON.stringify(lockModule)};
  const opts = { what: 'stack "t"', cleanup: 'stack down', command: ${JSON.stringify(`holder ${name}`)},
    log: (l) => console.log('log ' + l) };
  let lock;
  for (let refused = false; !lock; ) {
    try { lock = await acquireLockFile(${JSON.stringify(path)}, opts); }
    catch (e) {
      if (e.code !== 'LOCK_HELD') throw e;
      if (!refused) console.log('refused ' + e.message);
      refused = true;
      if (!${wait}) process.exit(3);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  appendFileSync(${JSON.stringify(logFile)}, ${JSON.stringify(`${name} took it\n`)});
  console.log('taken');
  for await (const line of createInterface({ input: process.stdin })) if (line === 'release') break;
  appendFileSync(${JSON.stringify(logFile)}, ${JSON.stringify(`${name} releases it\n`)});
  await lock.release();
`;

interface Holder {
  child: ChildProcessWithoutNullStreams;
  /** The next line it prints. */
  next(): Promise<string>;
  /** Its exit code (null when a signal ended it), watched from the start so an early exit is not missed. */
  exit: Promise<number | null>;
}

function startHolder(path: string, logFile: string, name: string, wait = false): Holder {
  const child = spawn(process.execPath, [
    '--input-type=module',
    '-e',
    holderScript(path, logFile, name, wait),
  ]);
  child.stderr.pipe(process.stderr);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exit = once(child, 'exit').then(() => child.exitCode);
  return {
    child,
    exit,
    next: async () => {
      const r = await lines.next();
      return r.done ? '<exited>' : r.value;
    },
  };
}

describe('two processes, one lock file', () => {
  test('the second is refused naming the first, and takes the lock only after the first released it', async () => {
    const path = join(dir, 'lock');
    const logFile = join(dir, 'order.log');
    const a = startHolder(path, logFile, 'A');
    expect(await a.next()).toBe('taken');
    const b = startHolder(path, logFile, 'B', true);
    // B was refused before A was told to release: the refusal is what we wait for, not a delay.
    expect(await b.next()).toMatch(
      new RegExp(`^refused stack "t" is in use by pid ${a.child.pid} \\(holder A\\) since `),
    );
    a.child.stdin.end('release\n');
    expect(await b.next()).toBe('taken');
    b.child.stdin.end('release\n');
    expect(await Promise.all([a.exit, b.exit])).toEqual([0, 0]);
    expect(await readFile(logFile, 'utf8')).toBe('A took it\nA releases it\nB took it\nB releases it\n');
    expect((await readdir(dir)).sort()).toEqual(['order.log']);
  });

  test('a holder killed outright is taken over by the next process, which says whose lock it took', async () => {
    const path = join(dir, 'lock');
    const logFile = join(dir, 'order.log');
    const a = startHolder(path, logFile, 'A');
    expect(await a.next()).toBe('taken');
    const heldByA = parseLockHolder(await readFile(path, 'utf8'))!;
    a.child.kill('SIGKILL');
    await a.exit;
    const b = startHolder(path, logFile, 'B');
    expect(await b.next()).toBe(
      `log stack "t": taking over its lock: its holder, pid ${a.child.pid}, is gone (it was holder A, since ${heldByA.since})`,
    );
    expect(await b.next()).toBe('taken');
    expect(parseLockHolder(await readFile(path, 'utf8'))).toMatchObject({
      pid: b.child.pid,
      command: 'holder B',
    });
    b.child.stdin.end('release\n');
    expect(await b.exit).toBe(0);
    expect(await readFile(logFile, 'utf8')).toBe('A took it\nB took it\nB releases it\n');
    expect((await readdir(dir)).sort()).toEqual(['order.log']);
  });
});
