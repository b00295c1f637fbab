// The one polling loop, on a fake clock: the clock advances only by the pauses waitFor asks for,
// so the number of polls before a timeout is read off the timeout and the interval.
import { describe, expect, test } from 'vitest';
import { StopWaiting, WaitTimeoutError, waitFor } from '../../../src/util/wait.ts';
import { InterruptedError } from '../../../src/errors.ts';

function fakeClock(): { now: () => number; sleep: (ms: number) => Promise<void>; pauses: number[] } {
  let t = 1000;
  const pauses: number[] = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      pauses.push(ms);
      t += ms;
    },
    pauses,
  };
}

describe('waitFor', () => {
  test('returns the first value that is not null; a throwing probe means not yet', async () => {
    const clock = fakeClock();
    let n = 0;
    const value = await waitFor(
      () => {
        n++;
        if (n === 1) throw new Error('connection refused');
        return n === 4 ? { ready: n } : null;
      },
      { what: 'x', timeoutMs: 10_000, intervalMs: 100, ...clock },
    );
    expect(value).toEqual({ ready: 4 });
    expect(clock.pauses).toEqual([100, 100, 100]);
  });

  test('a timeout names what was awaited and the probe’s last error, after timeout/interval + 1 polls', async () => {
    const clock = fakeClock();
    let polls = 0;
    const wait = waitFor(
      () => {
        polls++;
        throw new Error(`not found (${polls})`);
      },
      { what: 'service account ns/default', timeoutMs: 1000, intervalMs: 250, ...clock },
    );
    await expect(wait).rejects.toThrow(WaitTimeoutError);
    await expect(wait).rejects.toThrow('service account ns/default: not within 1 s (not found (6))');
    // Polls at t = 0, 250, 500, 750, 1000 are within the deadline; the one at 1250 is past it.
    expect(polls).toBe(6);
  });

  test('the probe runs once even with a zero timeout', async () => {
    const clock = fakeClock();
    expect(await waitFor(() => 'now', { what: 'x', timeoutMs: 0, intervalMs: 10, ...clock })).toBe('now');
  });

  test('StopWaiting ends the wait at once', async () => {
    const clock = fakeClock();
    await expect(
      waitFor(
        () => {
          throw new StopWaiting('kube-apiserver exited');
        },
        { what: 'x', timeoutMs: 60_000, intervalMs: 250, ...clock },
      ),
    ).rejects.toThrow(StopWaiting);
    expect(clock.pauses).toEqual([]);
  });

  test('an aborted signal stops the wait between polls with InterruptedError', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    let polls = 0;
    const wait = waitFor(
      () => {
        if (++polls === 2) controller.abort('SIGINT');
        return null;
      },
      { what: 'x', timeoutMs: 60_000, intervalMs: 250, signal: controller.signal, ...clock },
    );
    await expect(wait).rejects.toThrow(InterruptedError);
    expect(polls).toBe(2);
  });
});
