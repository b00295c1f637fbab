// The clone side of bisect on a real (tiny, local) git repository: commit ends resolve hashes,
// refs and release versions (as their tags), and refuse what is not on the first-parent line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRepo } from '../../../src/bisect/build-candidate.ts';
import { originClonePath, updatedClone } from '../../../src/bisect/origin-clone.ts';

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

describe('trees of a clone', () => {
  it('a release (its tag) and a commit have the tree git gives; a ref git does not know has none', async () => {
    const repo = await createRepo(dir);
    const tree = (ref: string) => git('rev-parse', `${ref}^{tree}`);
    expect(await repo.treeOf({ kind: 'release', label: '1.0.0', ref: '1.0.0', commit: null })).toBe(
      tree('v1.0.0'),
    );
    expect(await repo.treeOf({ kind: 'commit', label: 'x', ref: hashes[3]!, commit: hashes[3]! })).toBe(
      tree(hashes[3]!),
    );
    expect(await repo.treeOf({ kind: 'commit', label: 'x', ref: 'f'.repeat(40), commit: null })).toBeNull();
  });
});

describe('the origin clone a bisection keeps under the prefix', () => {
  it('clones once, then fetches new commits and tags; a half-made clone is never taken for one', async () => {
    const prefix = mkdtempSync(join(tmpdir(), 'rb-bisect-prefix-'));
    try {
      const path = originClonePath(prefix, 'runc');
      const lines: string[] = [];
      expect(await updatedClone(`file://${dir}`, path, (l) => lines.push(l))).toBe(path);
      const inClone = (...args: string[]) =>
        execFileSync('git', ['-C', path, ...args], { encoding: 'utf8' }).trim();
      expect(inClone('rev-parse', 'v1.0.0^{commit}')).toBe(hashes[1]);
      writeFileSync(join(dir, 'f'), 'later\n');
      git('commit', '-q', '-am', 'later');
      git('tag', 'v1.1.0');
      await updatedClone(`file://${dir}`, path, (l) => lines.push(l));
      expect(inClone('rev-parse', 'v1.1.0^{commit}')).toBe(git('rev-parse', 'HEAD'));
      expect(lines.map((l) => l.split(' ')[0])).toEqual(['cloning', 'fetching']);
      // The clone is complete or absent: no temporary name stays beside it.
      expect(readdirSync(join(prefix, 'sources'))).toEqual(['runc.git']);
      const repo = await createRepo(path);
      expect((await repo.releases()).sort()).toEqual(['1.0.0', '1.1.0']);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  });
});
