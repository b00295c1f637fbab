// An advisory lock file that names its holder. Taken with link(2) of a complete temp file onto the
// lock's path: atomic and exclusive (EEXIST when held), and the file is never seen half-written.
// Node has no flock(2), and the lock packages on npm judge staleness by mtime (a holder that is
// merely slow, or stopped, loses its lock); this judges it by the holder's pid and start time,
// so a lock outlives any pause of its holder and dies with it. A holder killed outright (SIGKILL)
// leaves its file: the next comer sees the pid gone and takes the lock over, with a log line.
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RbError, errorMessage } from '../errors.ts';
import {
  judgeLock,
  lockHeldError,
  parseLockHolder,
  takeoverLine,
  type LockHolder,
  type LockedThing,
} from './lock-holder.ts';
import { liveProcessStart } from './proc-stat.ts';

export interface LockFileOptions extends LockedThing {
  log: (line: string) => void;
  /** Create the lock's directory when missing (false: a missing directory means "nothing to lock"). */
  createDir?: boolean;
  /** How this process is named in the file (default: its argv). */
  command?: string;
  /** The start time of a live pid (default: /proc); injectable for tests. */
  liveStart?: (pid: number) => Promise<number | null>;
}

export interface HeldLock {
  readonly path: string;
  /** Removes the lock file when it is still ours; never throws (a lock gone with its directory is fine). */
  release(): Promise<void>;
}

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** The holder's record and the file's inode, read from one open file; null when there is no file. */
async function readLock(path: string): Promise<{ holder: LockHolder | null; ino: number } | null> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (errno(error) === 'ENOENT') return null;
    throw error;
  }
  try {
    const { ino } = await handle.stat();
    return { holder: parseLockHolder(await handle.readFile('utf8')), ino };
  } finally {
    await handle.close();
  }
}

/**
 * Removes the stale lock with inode `ino`, and only that one: it is renamed aside first, and when
 * what was renamed turns out to be a newer holder's file (taken between our read and our rename),
 * it is linked back.
 */
async function removeStale(path: string, ino: number, log: (line: string) => void): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (errno(error) === 'ENOENT') return; // another comer removed it first
    throw error;
  }
  try {
    if ((await stat(aside)).ino !== ino)
      await link(aside, path).catch((error: unknown) => {
        log(`warning: could not put back a lock taken meanwhile (${path}): ${errorMessage(error)}`);
      });
  } finally {
    await rm(aside, { force: true });
  }
}

/**
 * Takes the lock at `path`, or throws RbError LOCK_HELD naming its live holder. A lock whose holder
 * is gone is taken over (logged). Returns null only when `createDir` is false and the directory
 * does not exist.
 */
export async function acquireLockFile(path: string, options: LockFileOptions): Promise<HeldLock | null> {
  const liveStart = options.liveStart ?? liveProcessStart;
  const ownStart = await liveStart(process.pid);
  if (ownStart === null) throw new Error(`cannot read the start time of this process (${process.pid})`);
  const mine: LockHolder = {
    pid: process.pid,
    startTicks: ownStart,
    command: options.command ?? process.argv.join(' '),
    since: new Date().toISOString(),
  };
  if (options.createDir ?? true) await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.new-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temp, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
  } catch (error) {
    if (errno(error) === 'ENOENT' && options.createDir === false) return null;
    throw error;
  }
  try {
    // Each round either takes the lock, throws, or removes a stale holder; a few rounds cover
    // comers racing for the same stale lock.
    for (let round = 0; round < 5; round++) {
      try {
        await link(temp, path);
        const { ino } = await stat(path);
        return { path, release: () => releaseLock(path, ino, options.log) };
      } catch (error) {
        if (errno(error) !== 'EEXIST') throw error;
      }
      const found = await readLock(path);
      if (found === null) continue;
      const verdict = judgeLock(found.holder, found.holder ? await liveStart(found.holder.pid) : null);
      if (verdict.kind === 'held') throw lockHeldError(options, verdict.holder, new Date());
      options.log(takeoverLine(options, verdict.why, found.holder));
      await removeStale(path, found.ino, options.log);
    }
    throw new RbError(
      'LOCK_CONTENDED',
      `${options.what}: its lock ${path} changed hands 5 times while we tried to take it`,
      'another command is starting on it at the same time: run yours again when it is done',
    );
  } finally {
    await rm(temp, { force: true });
  }
}

async function releaseLock(path: string, ino: number, log: (line: string) => void): Promise<void> {
  try {
    if ((await stat(path)).ino === ino) await unlink(path);
    else log(`warning: ${path} was taken over while we held it; left to its new holder`);
  } catch (error) {
    if (errno(error) !== 'ENOENT') log(`warning: could not release ${path}: ${errorMessage(error)}`);
  }
}
