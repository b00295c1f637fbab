import { describe, expect, test } from 'vitest';
import { backoffMs, classifyPush } from '../../../src/publish/push.ts';

// stdout/stderr of `git push --porcelain` in the shape git 2.39 prints them (new branch, "fetch
// first" and the unreachable messages were checked against a real bare repository; the git tests
// in publish.git.test.ts and race.test.ts exercise the real output).
const REF = 'c0ffee0000000000000000000000000000000000:refs/heads/benchmark-data';

describe('classifyPush', () => {
  test.each([
    ['new branch', 0, `To /tmp/remote.git\n*\t${REF}\t[new branch]\nDone\n`, '', 'pushed'],
    ['fast-forward', 0, `To /tmp/remote.git\n \t${REF}\t1111111..c0ffee0\nDone\n`, '', 'pushed'],
    ['up to date', 0, `To /tmp/remote.git\n=\t${REF}\t[up to date]\nDone\n`, '', 'pushed'],
    [
      'lost the race',
      1,
      `To /tmp/remote.git\n!\t${REF}\t[rejected] (fetch first)\nDone\n`,
      "error: failed to push some refs to '/tmp/remote.git'\n",
      'rejected',
    ],
    ['non-fast-forward', 1, `To r\n!\t${REF}\t[rejected] (non-fast-forward)\nDone\n`, '', 'rejected'],
    [
      'remote ref lock race',
      1,
      `To r\n!\t${REF}\t[remote rejected] (failed to update ref)\nDone\n`,
      '',
      'rejected',
    ],
    [
      'hook says no',
      1,
      `To r\n!\t${REF}\t[remote rejected] (pre-receive hook declined)\nDone\n`,
      '',
      'refused',
    ],
    [
      'unreachable',
      128,
      '',
      "fatal: '/nope' does not appear to be a git repository\nfatal: Could not read from remote repository.\n",
      'failed',
    ],
  ] as const)('%s → %s', (_name, code, stdout, stderr, kind) => {
    expect(classifyPush(code, stdout, stderr).kind).toBe(kind);
  });

  test('a failure keeps the tail of stderr as its reason', () => {
    const outcome = classifyPush(128, '', 'fatal: unable to access: Connection refused\n');
    expect(outcome).toEqual({ kind: 'failed', reason: 'fatal: unable to access: Connection refused' });
  });
});

describe('backoffMs', () => {
  test('grows exponentially up to the cap, always at least half of it', () => {
    expect(backoffMs(1, () => 0)).toBe(100);
    expect(backoffMs(1, () => 1)).toBe(200);
    expect(backoffMs(3, () => 0)).toBe(400);
    expect(backoffMs(3, () => 1)).toBe(800);
    expect(backoffMs(20, () => 0.5)).toBe(2250);
    expect(backoffMs(20, () => 1)).toBe(3000);
  });

  test('jitter spreads racers: different random draws give different delays', () => {
    const delays = new Set([0.1, 0.3, 0.5, 0.7, 0.9].map((r) => backoffMs(2, () => r)));
    expect(delays.size).toBe(5);
  });
});
