// The one polling loop: every "wait until X is ready / gone" of the runner goes through waitFor, so
// a timeout always throws with what was awaited and the last reason, and an interruption always
// stops the wait between polls (never a silent carry-on after a deadline).
import { performance } from 'node:perf_hooks';
import { errorMessage, InterruptedError } from '../errors.ts';
import { sleep as realSleep } from './exec.ts';

/** Thrown by a probe when waiting cannot help (a process exited): waitFor rethrows it at once. */
export class StopWaiting extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StopWaiting';
  }
}

/** The deadline of a wait passed; `last` is the probe's last error, if it threw. */
export class WaitTimeoutError extends Error {
  readonly what: string;
  readonly last: string;
  constructor(what: string, timeoutMs: number, last: string) {
    super(`${what}: not within ${Math.round(timeoutMs / 1000)} s${last ? ` (${last})` : ''}`);
    this.name = 'WaitTimeoutError';
    this.what = what;
    this.last = last;
  }
}

export interface WaitOptions {
  /** What is awaited, for the timeout's message ("service account default/x"). */
  what: string;
  timeoutMs: number;
  intervalMs: number;
  /** Stops the wait with InterruptedError between polls. */
  signal?: AbortSignal | null;
  /** Monotonic milliseconds and the pause between polls; injected by tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Polls `probe` until it returns a value other than null/undefined and returns that value. A probe
 * that throws means "not yet" (the message is kept for the timeout), except StopWaiting, which is
 * rethrown. The probe runs at least once, also with a zero timeout.
 */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined> | T | null | undefined,
  opts: WaitOptions,
): Promise<T> {
  const now = opts.now ?? (() => performance.now());
  const pause = opts.sleep ?? realSleep;
  const deadline = now() + opts.timeoutMs;
  let last = '';
  for (;;) {
    if (opts.signal?.aborted) throw new InterruptedError();
    try {
      const value = await probe();
      if (value !== null && value !== undefined) return value;
    } catch (error) {
      if (error instanceof StopWaiting || error instanceof InterruptedError) throw error;
      last = errorMessage(error);
    }
    if (now() > deadline) throw new WaitTimeoutError(opts.what, opts.timeoutMs, last);
    await pause(opts.intervalMs);
  }
}
