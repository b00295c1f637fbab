import { describe, expect, test } from 'vitest';
import {
  layoutProblem,
  relativeRunPath,
  relativeRunPathOfId,
  runIdOfPath,
  runPath,
  utcDatePath,
} from '../../../src/results/layout.ts';
import { newRunId } from '../../../src/results/assemble.ts';

describe('layout of the data branch', () => {
  test.each([
    ['2026-11-21T08:00:00.000Z', '2026/11/21'],
    // An offset moves the UTC date: 23:30 at -02:00 is 01:30 the next day in UTC.
    ['2026-11-21T23:30:00-02:00', '2026/11/22'],
    ['2026-01-01T00:30:00+01:00', '2025/12/31'],
    ['2028-02-29T12:00:00Z', '2028/02/29'],
  ])('utcDatePath(%s) = %s', (iso, expected) => {
    expect(utcDatePath(iso)).toBe(expected);
  });

  test('an unparseable date-time is an error, not a path like NaN/NaN/NaN', () => {
    expect(() => utcDatePath('yesterday')).toThrow(/not a date-time/);
  });

  test('runPath puts a result under data/runs/<yyyy>/<mm>/<dd>/<run-id>.json', () => {
    expect(runPath({ runId: '20261121T080000Z-0123abcd', startedAt: '2026-11-21T08:00:00Z' })).toBe(
      'data/runs/2026/11/21/20261121T080000Z-0123abcd.json',
    );
  });

  test('runIdOfPath reads the run id from the file name only', () => {
    expect(runIdOfPath('data/runs/2026/11/21/20261121T080000Z-0123abcd.json')).toBe(
      '20261121T080000Z-0123abcd',
    );
    expect(runIdOfPath('data/runs/2026/11/21/notes.txt')).toBeUndefined();
  });

  test('layoutProblem accepts the right place and names the right one otherwise', () => {
    const result = { runId: '20261121T080000Z-0123abcd', startedAt: '2026-11-21T08:00:00Z' };
    expect(layoutProblem('2026/11/21/20261121T080000Z-0123abcd.json', result)).toBeUndefined();
    expect(layoutProblem('2026/11/20/20261121T080000Z-0123abcd.json', result)).toMatch(
      /belongs at 2026\/11\/21\/20261121T080000Z-0123abcd\.json, not 2026\/11\/20/,
    );
    expect(layoutProblem('2026/11/21/20261121T080000Z-ffffffff.json', result)).toMatch(/belongs at/);
  });

  test.each([
    '2026-11-21T08:00:00.000Z',
    '2026-11-21T23:30:00-02:00',
    '2026-01-01T00:30:00+01:00',
    '2028-02-29T23:59:59.999Z',
  ])('a run id started at %s names the same file as its start time', (startedAt) => {
    const runId = newRunId(new Date(startedAt), () => '0123abcd');
    expect(relativeRunPathOfId(runId)).toBe(relativeRunPath({ runId, startedAt }));
  });
});
