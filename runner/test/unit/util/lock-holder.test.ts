// The lock's decisions from plain values: a holder is judged by its pid and start time, never by
// how old its file is; a second comer's error names the holder, since when, and the two fixes.
import { describe, expect, test } from 'vitest';
import {
  heldFor,
  judgeLock,
  lockHeldError,
  parseLockHolder,
  takeoverLine,
  type LockHolder,
} from '../../../src/util/lock-holder.ts';

const holder: LockHolder = {
  pid: 4321,
  startTicks: 987_654,
  command: 'node runtime-bench sweep --config nightly.yaml',
  since: '2026-03-01T02:00:00.000Z',
};
const thing = { what: 'stack "nightly"', cleanup: 'runtime-bench stack down --stack nightly' };

describe('judgeLock', () => {
  test('held while the pid runs with the start time it recorded, however long ago that was', () => {
    expect(judgeLock(holder, holder.startTicks)).toEqual({ kind: 'held', holder });
  });

  test('stale when the pid is gone (or a zombie, which the reader reports as gone)', () => {
    expect(judgeLock(holder, null)).toEqual({ kind: 'stale', why: 'its holder, pid 4321, is gone' });
  });

  test('stale when the pid was reused by a later process', () => {
    const verdict = judgeLock(holder, holder.startTicks + 1);
    expect(verdict.kind).toBe('stale');
    expect(verdict).toMatchObject({ why: expect.stringContaining('a later process') as unknown });
  });

  test('stale when the file names no holder', () => {
    expect(judgeLock(null, 1)).toEqual({ kind: 'stale', why: 'its lock file names no holder' });
  });
});

describe('parseLockHolder', () => {
  test('a record round-trips; anything else is no holder', () => {
    expect(parseLockHolder(JSON.stringify(holder))).toEqual(holder);
    for (const text of [
      '',
      '{',
      'null',
      '[]',
      JSON.stringify({ ...holder, pid: -1 }),
      JSON.stringify({ pid: 1 }),
    ])
      expect(parseLockHolder(text)).toBeNull();
  });
});

describe('messages', () => {
  test('the error names pid, command and since when, and says to wait or stop it, and how to clean up', () => {
    const error = lockHeldError(thing, holder, new Date('2026-03-01T03:05:00.000Z'));
    expect(error.code).toBe('LOCK_HELD');
    expect(error.message).toBe(
      'stack "nightly" is in use by pid 4321 (node runtime-bench sweep --config nightly.yaml) since 2026-03-01T02:00:00.000Z (1 h 5 min)',
    );
    expect(error.hint).toContain('wait for pid 4321');
    expect(error.hint).toContain('kill -INT 4321');
    expect(error.hint).toContain('`runtime-bench stack down --stack nightly`');
  });

  test('how long it has been held', () => {
    const at = (iso: string) => new Date(iso);
    expect(heldFor('2026-03-01T02:00:00.000Z', at('2026-03-01T02:00:42.000Z'))).toBe('42 s');
    expect(heldFor('2026-03-01T02:00:00.000Z', at('2026-03-01T02:12:00.000Z'))).toBe('12 min');
    expect(heldFor('not a date', at('2026-03-01T02:12:00.000Z'))).toBe('an unknown time');
  });

  test('a takeover line names the thing, why, and the holder it replaces', () => {
    expect(takeoverLine(thing, 'its holder, pid 4321, is gone', holder)).toBe(
      'stack "nightly": taking over its lock: its holder, pid 4321, is gone (it was node runtime-bench sweep --config nightly.yaml, since 2026-03-01T02:00:00.000Z)',
    );
  });
});
