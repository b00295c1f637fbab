// Git operations shared by publish and verify: a throw-away worktree, the remote branch's tip,
// listing and reading files of a commit without checking anything out.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { RbError, errorMessage } from '../errors.ts';
import { gitOk, type GitRunner } from './git.ts';
import { tail } from './push.ts';

/** Fails with a clear message unless `repo` is a directory inside a git repository. */
export async function checkRepository(git: GitRunner, repo: string): Promise<void> {
  // execFile reports a missing cwd as ENOENT, which would read as "git not found".
  const isDir = await stat(repo).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    throw new RbError('PUBLISH_REPO', `${repo} is not a directory`, 'pass --repo DIR naming a git clone');
  }
  const inside = await git.run(['rev-parse', '--git-dir'], { cwd: repo }).catch((error: unknown) => ({
    exitCode: -1,
    stderr: errorMessage(error),
  }));
  if (inside.exitCode !== 0) {
    throw new RbError(
      'PUBLISH_REPO',
      `${repo} is not a git repository (${tail(inside.stderr, 1)})`,
      'run inside a clone of the repository that owns the data branch, or pass --git-dir DIR',
    );
  }
}

/**
 * A commit to hang the temporary worktree on. Nothing is checked out from it, so any commit will
 * do: HEAD, or when HEAD is unborn (a clone whose remote HEAD names a missing branch) any ref's.
 */
async function worktreeBase(git: GitRunner, repo: string): Promise<string> {
  const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: repo });
  if (head.exitCode === 0) return head.stdout.trim();
  const any = await git.run(['rev-list', '-n1', '--all'], { cwd: repo });
  if (any.exitCode === 0 && any.stdout.trim() !== '') return any.stdout.trim();
  throw new RbError(
    'PUBLISH_REPO',
    `${repo} has no commit at all, so no temporary worktree can be made from it`,
    'run in a clone of the project (git 2.39 cannot add a worktree without a commit), or pass --repo',
  );
}

/**
 * Runs `fn` in a detached, empty (no checkout) worktree of `repo` in a temporary directory. The
 * worktree has its own index and FETCH_HEAD, so the caller's checkout, index and refs are never
 * touched, and several publishers can work in one repository at once. Always removed afterwards.
 */
export async function withTemporaryWorktree<T>(
  git: GitRunner,
  repo: string,
  fn: (worktree: string) => Promise<T>,
  log: (line: string) => void = () => {},
): Promise<T> {
  const base = await worktreeBase(git, repo);
  const parent = await mkdtemp(join(tmpdir(), 'rb-publish-'));
  // A unique basename gives a unique admin directory under .git/worktrees.
  const worktree = join(parent, `rb-publish-${randomBytes(4).toString('hex')}`);
  try {
    await gitOk(git, ['worktree', 'add', '--detach', '--no-checkout', worktree, base], { cwd: repo });
    return await fn(worktree);
  } finally {
    const removed = await git
      .run(['worktree', 'remove', '--force', worktree], { cwd: repo })
      .catch(() => undefined);
    await rm(parent, { recursive: true, force: true });
    if (removed?.exitCode !== 0) {
      // Either add failed half-way or remove did: prune forgets admin entries whose directory is gone.
      const pruned = await git.run(['worktree', 'prune'], { cwd: repo }).catch(() => undefined);
      if (pruned?.exitCode !== 0) log(`warning: could not prune the temporary worktree ${worktree}`);
    }
  }
}

/** What git says when another worktree of the same clone comes or goes during a fetch. */
const WORKTREE_RACE = /bad object worktrees\//;

/** Raised when a remote cannot be listed or fetched: nothing was changed anywhere. */
export function unreachable(remote: string, stderr: string): RbError {
  return new RbError(
    'PUBLISH_REMOTE_UNREACHABLE',
    `cannot reach remote ${remote}:\n${tail(stderr) || '(git printed nothing)'}`,
    'check --remote, the network and the credentials (RB_PUBLISH_TOKEN / GITHUB_TOKEN in CI); nothing was published and no local file was changed',
  );
}

/**
 * Fetches `branch` from `remote` into the worktree's FETCH_HEAD and returns its commit, or null
 * when the remote has no such branch. Never updates a ref: an empty --refmap turns off git's
 * opportunistic update of remote-tracking branches, which would race with other publishers.
 */
export async function fetchBranchTip(
  git: GitRunner,
  worktree: string,
  remote: string,
  branch: string,
  remoteLabel = remote,
): Promise<string | null> {
  const ref = `refs/heads/${branch}`;
  const listed = await git.run(['ls-remote', '--exit-code', remote, ref], { cwd: worktree });
  if (listed.exitCode === 2) return null;
  if (listed.exitCode !== 0) throw unreachable(remoteLabel, listed.stderr);
  const fetch = () =>
    git.run(['fetch', '--quiet', '--no-tags', '--no-recurse-submodules', '--refmap=', remote, ref], {
      cwd: worktree,
    });
  let fetched = await fetch();
  // Fetch checks connectivity against every ref of the repository, other worktrees' HEADs
  // included: another publisher adding or removing its worktree of the same clone at that moment
  // leaves a HEAD that is not (yet, or any more) an object. Passing, so tried again.
  for (
    let attempt = 1;
    attempt < 4 && fetched.exitCode !== 0 && WORKTREE_RACE.test(fetched.stderr);
    attempt++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    fetched = await fetch();
  }
  if (fetched.exitCode !== 0) throw unreachable(remoteLabel, fetched.stderr);
  return (await gitOk(git, ['rev-parse', '--verify', 'FETCH_HEAD^{commit}'], { cwd: worktree })).trim();
}

/** Paths of the blobs under `dir` in `commit`, relative to the repository root. */
export async function listFiles(git: GitRunner, cwd: string, commit: string, dir: string): Promise<string[]> {
  const out = await gitOk(git, ['ls-tree', '-r', '-z', '--full-tree', '--name-only', commit, '--', dir], {
    cwd,
  });
  return out.split('\0').filter((p) => p !== '');
}

/**
 * The size in bytes of `<commit>:<path>` for many paths (`git cat-file --batch-check`, one call):
 * undefined for a path that is no blob. In a partial clone git downloads the blobs to its object
 * store to say, so a file too large to read is known before it is read into memory.
 */
export async function blobSizes(
  git: GitRunner,
  cwd: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, number | undefined>> {
  const out = new Map<string, number | undefined>();
  if (paths.length === 0) return out;
  for (const p of paths)
    if (p.includes('\n'))
      throw new RbError('PUBLISH_PATH', `unsupported path with a newline: ${JSON.stringify(p)}`);
  const input = paths.map((p) => `${commit}:${p}\n`).join('');
  const result = await git.run(['cat-file', '--batch-check'], { cwd, input });
  if (result.exitCode !== 0)
    throw new RbError('COMMAND_FAILED', `git cat-file --batch-check failed: ${tail(result.stderr)}`);
  const lines = result.stdout.split('\n');
  for (const [i, p] of paths.entries()) {
    const match = /^[0-9a-f]+ (\w+) (\d+)$/.exec(lines[i] ?? '');
    out.set(p, match && match[1] === 'blob' ? Number(match[2]) : undefined);
  }
  return out;
}

/**
 * Reads `<commit>:<path>` for many paths with one `git cat-file --batch` per chunk. Paths that
 * do not exist map to undefined.
 */
export async function readFiles(
  git: GitRunner,
  cwd: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, string | undefined>> {
  const out = new Map<string, string | undefined>();
  const chunk = 500;
  for (let i = 0; i < paths.length; i += chunk) {
    const part = paths.slice(i, i + chunk);
    for (const p of part) {
      if (p.includes('\n'))
        throw new RbError('PUBLISH_PATH', `unsupported path with a newline: ${JSON.stringify(p)}`);
    }
    const input = part.map((p) => `${commit}:${p}\n`).join('');
    const result = await git.run(['cat-file', '--batch'], { cwd, input });
    if (result.exitCode !== 0)
      throw new RbError('COMMAND_FAILED', `git cat-file --batch failed: ${tail(result.stderr)}`);
    const bytes = result.stdoutBytes;
    let at = 0;
    for (const p of part) {
      const eol = bytes.indexOf(0x0a, at);
      if (eol < 0) throw new RbError('COMMAND_FAILED', 'git cat-file --batch: output ended early');
      const header = bytes.subarray(at, eol).toString('utf8');
      at = eol + 1;
      const match = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
      if (!match) {
        out.set(p, undefined); // "<object> missing" (or ambiguous): not a file in this commit
        continue;
      }
      const size = Number(match[2]);
      out.set(p, match[1] === 'blob' ? bytes.subarray(at, at + size).toString('utf8') : undefined);
      at += size + 1; // content, then a newline
    }
  }
  return out;
}
