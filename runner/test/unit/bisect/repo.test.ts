// The clone side of bisect on a real (tiny, local) git repository: commit ends resolve hashes,
// refs and release versions (as their tags), and refuse what is not on the first-parent line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRepo } from '../../../src/bisect/build-candidate.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-bisect-repo-'));
const git = (...args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
    },
  }).trim();
git('init', '-q');
const hashes: string[] = [];
for (let i = 0; i < 5; i++) {
  writeFileSync(join(dir, 'f'), `${i}\n`);
  git('add', 'f');
  git('commit', '-q', '-m', `change ${i}`);
  hashes.push(git('rev-parse', 'HEAD'));
  if (i === 1) git('tag', 'v1.0.0');
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('commit ends of a clone', () => {
  it('takes a release version (its tag), a hash or a ref as an end, first parents between', async () => {
    const repo = await createRepo(dir);
    const c = await repo.commitEnds('1.0.0', 'HEAD');
    expect(c.map((x) => x.ref)).toEqual(hashes.slice(1));
    expect(c.map((x) => x.kind)).toEqual(['commit', 'commit', 'commit', 'commit']);
    expect(c[0]!.label).toBe(`${hashes[1]!.slice(0, 12)} change 1`);
    expect((await repo.commitEnds(hashes[2]!, hashes[4]!)).map((x) => x.ref)).toEqual(hashes.slice(2));
  });
  it('refuses an end that is no commit, and a bad end before good, naming the flag', async () => {
    const repo = await createRepo(dir);
    await expect(repo.commitEnds('nope', 'HEAD')).rejects.toThrow(
      /--good nope is neither a release nor a commit/,
    );
    await expect(repo.commitEnds(hashes[3]!, hashes[1]!)).rejects.toThrow(
      /--bad .* does not follow --good .* on the first-parent line/,
    );
  });
});
