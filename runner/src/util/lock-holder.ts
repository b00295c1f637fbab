// Who holds a lock file, decided from plain values: the record a holder leaves in the file, whether
// that holder still runs, and what a second comer is told. The file effects are lock-file.ts's.
import { z } from 'zod';
import { RbError } from '../errors.ts';

/** What a holder writes into the lock file: enough to find it, judge it and name it. */
export const LockHolderSchema = z.strictObject({
  pid: z.int().positive(),
  /** Its start time (ticks after boot, /proc/<pid>/stat): a later process with the same pid is not it. */
  startTicks: z.int().nonnegative(),
  /** Its command line, for the message a second comer reads. */
  command: z.string(),
  /** When it took the lock (ISO 8601). */
  since: z.string(),
});
export type LockHolder = z.output<typeof LockHolderSchema>;

/** The holder read from the file's text; null when the text is not a holder's record. */
export function parseLockHolder(text: string): LockHolder | null {
  try {
    const parsed = LockHolderSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export type LockVerdict =
  | { kind: 'held'; holder: LockHolder }
  /** The holder is gone: the lock may be taken over; `why` goes into the log line. */
  | { kind: 'stale'; why: string };

/**
 * Is the lock still held? `holder` is the file's record (null: unreadable), `liveStart` the start
 * time of the live process with the holder's pid now (null: no such process, or a zombie).
 */
export function judgeLock(holder: LockHolder | null, liveStart: number | null): LockVerdict {
  if (holder === null) return { kind: 'stale', why: 'its lock file names no holder' };
  if (liveStart === null) return { kind: 'stale', why: `its holder, pid ${holder.pid}, is gone` };
  if (liveStart !== holder.startTicks)
    return {
      kind: 'stale',
      why: `its holder, pid ${holder.pid}, is gone (that pid now belongs to a later process)`,
    };
  return { kind: 'held', holder };
}

/** "12 min", "3 h 5 min": how long the holder has held it, for the message. */
export function heldFor(since: string, now: Date): string {
  const ms = now.getTime() - Date.parse(since);
  if (!Number.isFinite(ms) || ms < 0) return 'an unknown time';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.floor(ms / 1000)} s`;
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** What is locked, for the messages: `stack "nightly"`, and the command that cleans up after a holder. */
export interface LockedThing {
  what: string;
  /** The command that removes what a dead holder left (`runtime-bench stack down --stack nightly`). */
  cleanup: string;
}

/** The error a second comer gets: who holds it, since when, and what to do. */
export function lockHeldError(thing: LockedThing, holder: LockHolder, now: Date): RbError {
  return new RbError(
    'LOCK_HELD',
    `${thing.what} is in use by pid ${holder.pid} (${holder.command}) since ${holder.since} (${heldFor(holder.since, now)})`,
    `wait for pid ${holder.pid} to finish, or stop it (kill -INT ${holder.pid}: it cleans up after itself); ` +
      `a holder that was killed outright is taken over by the next command, and \`${thing.cleanup}\` removes what it left`,
  );
}

/** The log line of a takeover. */
export function takeoverLine(thing: LockedThing, why: string, holder: LockHolder | null): string {
  const was = holder ? ` (it was ${holder.command}, since ${holder.since})` : '';
  return `${thing.what}: taking over its lock: ${why}${was}`;
}
