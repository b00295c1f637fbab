import { describe, expect, test } from 'vitest';
import type { GitRunner, GitRunResult } from '../../../src/publish/git.ts';
import { fetchBranchTip } from '../../../src/publish/repo.ts';

// fetchBranchTip's handling of git's answers, with a scripted git (the real concurrency is
// race.test.ts's: 4 publishers sharing one clone, whose fetch once failed this way).
const TIP = 'c0ffee0000000000000000000000000000000000';
const ok = (stdout = ''): GitRunResult => ({
  exitCode: 0,
  stdout,
  stdoutBytes: Buffer.from(stdout),
  stderr: '',
});
const failed = (stderr: string): GitRunResult => ({
  exitCode: 128,
  stdout: '',
  stdoutBytes: Buffer.alloc(0),
  stderr,
});
const RACE =
  'fatal: bad object worktrees/rb-publish-a67ec9ef/HEAD\nerror: /tmp/remote.git did not send all necessary objects\n';

function scripted(fetches: GitRunResult[]): { git: GitRunner; calls: string[][] } {
  const calls: string[][] = [];
  const git: GitRunner = {
    run: async (args) => {
      calls.push([...args]);
      if (args[0] === 'ls-remote') return ok(`${TIP}\trefs/heads/data\n`);
      if (args[0] === 'fetch') return fetches.shift() ?? ok();
      if (args[0] === 'rev-parse') return ok(`${TIP}\n`);
      throw new Error(`unexpected git ${args.join(' ')}`);
    },
  };
  return { git, calls };
}

describe('fetchBranchTip', () => {
  test('another worktree coming or going during the fetch is passing: fetched again', async () => {
    const { git, calls } = scripted([failed(RACE), failed(RACE), ok()]);
    await expect(fetchBranchTip(git, '/w', '/tmp/remote.git', 'data')).resolves.toBe(TIP);
    expect(calls.filter((c) => c[0] === 'fetch')).toHaveLength(3);
  });

  test('any other failure is the remote being unreachable, at once', async () => {
    const { git, calls } = scripted([failed("fatal: '/nope' does not appear to be a git repository\n")]);
    await expect(fetchBranchTip(git, '/w', '/nope', 'data')).rejects.toThrow(/cannot reach remote \/nope/);
    expect(calls.filter((c) => c[0] === 'fetch')).toHaveLength(1);
  });

  test('a race that does not pass after four fetches is reported', async () => {
    const { git, calls } = scripted([failed(RACE), failed(RACE), failed(RACE), failed(RACE), ok()]);
    await expect(fetchBranchTip(git, '/w', '/tmp/remote.git', 'data')).rejects.toThrow(
      /bad object worktrees/,
    );
    expect(calls.filter((c) => c[0] === 'fetch')).toHaveLength(4);
  });
});
