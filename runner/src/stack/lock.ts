// One command at a time per stack: `stack up`, `stack down` and a run session (for as long as it
// uses the stack) hold <state dir>/lock, so a nightly and a manual sweep never drive two daemons
// on one root nor interleave on one stack. Reentrant within a process: a session holds the lock
// and the `stack up` / `down` it calls take it again.
import { join } from 'node:path';
import { acquireLockFile, type HeldLock } from '../util/lock-file.ts';

export function stackLockPath(stateDir: string): string {
  return join(stateDir, 'lock');
}

/** Locks this process holds: path → how many times taken. */
const held = new Map<string, { lock: HeldLock; count: number }>();

/**
 * Takes the stack's lock (RbError LOCK_HELD naming the holder when another process has it);
 * returns its release. `createDir` false: a stack whose state dir does not exist is not locked
 * (there is nothing to guard, and `down` must not leave an empty state dir behind).
 */
export async function lockStack(
  name: string,
  stateDir: string,
  log: (line: string) => void,
  { createDir = true }: { createDir?: boolean } = {},
): Promise<() => Promise<void>> {
  const path = stackLockPath(stateDir);
  let entry = held.get(path);
  if (!entry) {
    const lock = await acquireLockFile(path, {
      what: `stack "${name}"`,
      cleanup: `runtime-bench stack down --stack ${name}`,
      log,
      createDir,
    });
    if (lock === null) return () => Promise.resolve();
    entry = { lock, count: 0 };
    held.set(path, entry);
  }
  entry.count++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    const current = held.get(path)!;
    if (--current.count > 0) return;
    held.delete(path);
    await current.lock.release();
  };
}
