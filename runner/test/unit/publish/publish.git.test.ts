// Publishing against real git: a bare remote and clones in a temp dir, the orchestration run
// in-process (with a recording wrapper around the real GitRunner) and through the real CLI.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { serializeResult } from '../../../src/results/io.ts';
import { authorizationHeader } from '../../../src/publish/auth.ts';
import { gitForRemote, loadDocFiles } from '../../../src/publish/context.ts';
import type { GitRunner } from '../../../src/publish/git.ts';
import type { DocFile } from '../../../src/publish/plan.ts';
import { publishResults, readInputs, type PublishDeps } from '../../../src/publish/publish.ts';
import {
  createSandbox,
  filesContaining,
  resultNumber,
  runCli,
  startSmartHttpServer,
  unusedPort,
  WORKSPACE_ROOT,
  type Sandbox,
} from './helpers.ts';

const BRANCH = 'benchmark-data';

/** Wraps a GitRunner to record every argv, and optionally to act just before a command runs. */
function recording(inner: GitRunner, before?: (args: readonly string[]) => Promise<void>) {
  const argv: string[][] = [];
  const git: GitRunner = {
    async run(args, options) {
      argv.push([...args]);
      if (before) await before(args);
      return inner.run(args, options);
    },
  };
  return { git, argv };
}

function deps(git: GitRunner) {
  const lines: string[] = [];
  const sleeps: number[] = [];
  const d: PublishDeps = {
    git,
    log: (line) => lines.push(line),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
  };
  return { deps: d, lines, sleeps };
}

/** Everything about a clone that publishing must leave exactly as it was. */
async function callerState(box: Sandbox, repo: string) {
  return {
    head: await box.sh(repo, 'rev-parse', 'HEAD'),
    symbolic: await box.sh(repo, 'symbolic-ref', 'HEAD'),
    status: await box.sh(repo, 'status', '--porcelain=v1', '--untracked-files=all'),
    index: await box.sh(repo, 'ls-files', '--stage'),
    refs: await box.sh(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    worktrees: await box.sh(repo, 'worktree', 'list', '--porcelain'),
  };
}

async function remoteTip(box: Sandbox): Promise<string | null> {
  const r = await box.git.run(['rev-parse', '--verify', '--quiet', `refs/heads/${BRANCH}`], {
    cwd: box.bare,
  });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

// Real git and node processes: seconds each on a busy 2-core machine.
describe('publish (real git)', { timeout: 60_000 }, () => {
  let box: Sandbox;
  let work: string;
  let docs: DocFile[];
  beforeEach(async () => {
    box = await createSandbox();
    work = await box.clone('work');
    docs = await loadDocFiles(WORKSPACE_ROOT);
  });
  afterEach(async () => {
    await box.cleanup();
  });

  const options = (extra: object = {}) => ({ repo: work, remote: 'origin', branch: BRANCH, docs, ...extra });

  test('creates the data branch as an orphan with the result, README and schemas; caller untouched', async () => {
    // A caller in the middle of work: an unstaged edit, a staged new file, an untracked file.
    await writeFile(join(work, 'README.md'), 'edited, not staged\n');
    await writeFile(join(work, 'staged.txt'), 'staged\n');
    await box.sh(work, 'add', 'staged.txt');
    await writeFile(join(work, 'untracked.txt'), 'untracked\n');
    const before = await callerState(box, work);

    const file = await box.writeResult('one.json', resultNumber(1));
    const { git, argv } = recording(box.git);
    const { deps: d } = deps(git);
    const report = await publishResults(await readInputs([file]), options(), d);

    expect(report.outcome).toBe('published');
    expect(report.attempts).toBe(1);
    // Like any push to a named remote, it moves the remote-tracking ref; nothing else changes.
    const after = await callerState(box, work);
    const tracking = `refs/remotes/origin/${BRANCH} ${report.commit}`;
    expect(after.refs.split('\n')).toContain(tracking);
    expect({
      ...after,
      refs: after.refs
        .split('\n')
        .filter((l) => l !== tracking)
        .join('\n'),
    }).toEqual(before);
    // The temporary worktree is gone from disk, not just from git's list.
    const added = argv.find((a) => a[0] === 'worktree' && a[1] === 'add');
    const worktreeDir = added?.[4];
    expect(worktreeDir).toBeDefined();
    await expect(stat(worktreeDir ?? '')).rejects.toThrow(/ENOENT/);

    const tip = await remoteTip(box);
    expect(tip).toBe(report.commit);
    const runFile = `data/runs/2026/11/02/${resultNumber(1).runId}.json`;
    expect((await box.sh(box.bare, 'ls-tree', '-r', '--name-only', BRANCH)).split('\n')).toEqual([
      'README.md',
      runFile,
      'schemas/bisect-report.schema.json',
      'schemas/config.schema.json',
      'schemas/result.schema.json',
    ]);
    expect(await box.sh(box.bare, 'show', `${BRANCH}:${runFile}`)).toBe(
      serializeResult(resultNumber(1)).trimEnd(),
    );
    expect(await box.sh(box.bare, 'show', `${BRANCH}:schemas/result.schema.json`)).toBe(
      (await readFile(join(WORKSPACE_ROOT, 'schemas/json/result.schema.json'), 'utf8')).trimEnd(),
    );
    // An orphan: one commit without parents, made with the explicit identity (no global config here).
    expect(await box.sh(box.bare, 'rev-list', '--parents', BRANCH)).toBe(tip);
    expect(await box.sh(box.bare, 'log', '-1', '--format=%an <%ae>|%cn <%ce>', BRANCH)).toBe(
      'runtime-bench <runtime-bench@users.noreply.github.com>|runtime-bench <runtime-bench@users.noreply.github.com>',
    );
  });

  test('carries a bisection report to data/bisections as it was written, beside a run; again is a no-op', async () => {
    const reportFile = join(
      WORKSPACE_ROOT,
      'data/bisections/2026/11/27/20261127T005709Z-runc-1.1.10-1.2.0-StartContainer.json',
    );
    const written = await readFile(reportFile, 'utf8');
    const copy = await box.writeResult('report.json', JSON.parse(written), 0);
    const run = await box.writeResult('one.json', resultNumber(1));
    const first = await publishResults(await readInputs([copy, run]), options(), deps(box.git).deps);
    expect(first.outcome).toBe('published');
    const path = 'data/bisections/2026/11/27/20261127T005709Z-runc-1.1.10-1.2.0-StartContainer.json';
    expect(first.added.map((c) => c.path)).toEqual([
      path,
      `data/runs/2026/11/02/${resultNumber(1).runId}.json`,
    ]);
    // Byte for byte the report bisect wrote (version 1 stays version 1), though handed over compact.
    expect(await box.sh(box.bare, 'show', `${BRANCH}:${path}`)).toBe(written.trimEnd());
    expect(await box.sh(box.bare, 'log', '-1', '--format=%s', BRANCH)).toBe(
      `Add run ${resultNumber(1).runId} and bisection 20261127T005709Z-runc-1.1.10-1.2.0-StartContainer`,
    );
    const again = await publishResults(await readInputs([copy]), options(), deps(box.git).deps);
    expect(again.outcome).toBe('unchanged');
    // Another report under the same id is refused, naming the file on the branch.
    const changed = await box.writeResult('changed.json', { ...JSON.parse(written), message: 'edited' });
    const error = await publishResults(await readInputs([changed]), options(), deps(box.git).deps).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RbError);
    expect((error as RbError).message).toContain(`${path} with different content`);
  });

  test('an invalid bisection report stops everything, naming the file and the field', async () => {
    const broken = await box.writeResult('broken.json', {
      ...JSON.parse(
        await readFile(
          join(
            WORKSPACE_ROOT,
            'data/bisections/2026/11/27/20261127T000729Z-runc-1.1.5-1.2.0-StartContainer.json',
          ),
          'utf8',
        ),
      ),
      outcome: 'maybe',
    });
    const error = await readInputs([broken]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RbError);
    expect((error as RbError).message).toMatch(new RegExp(`${broken}: outcome: Invalid option`));
  });

  test('the same run again is a no-op, even reformatted; a new run is one add-only commit on top', async () => {
    const first = await publishResults(
      await readInputs([await box.writeResult('one.json', resultNumber(1))]),
      options(),
      deps(box.git).deps,
    );
    const reformatted = await box.writeResult('one-compact.json', resultNumber(1), 0);
    const again = await publishResults(await readInputs([reformatted]), options(), deps(box.git).deps);
    expect(again.outcome).toBe('unchanged');
    expect(again.commit).toBe(first.commit);
    expect(again.unchanged.map((c) => c.sources[0])).toEqual([reformatted]);
    expect(await remoteTip(box)).toBe(first.commit);

    const second = await publishResults(
      await readInputs([reformatted, await box.writeResult('two.json', resultNumber(2))]),
      options(),
      deps(box.git).deps,
    );
    expect(second.added.map((c) => c.runId)).toEqual([resultNumber(2).runId]);
    expect(await box.sh(box.bare, 'rev-list', '--parents', '-n1', BRANCH)).toBe(
      `${second.commit} ${first.commit}`,
    );
    expect(await box.sh(box.bare, 'diff', '--name-status', first.commit ?? '', second.commit ?? '')).toBe(
      `A\tdata/runs/2026/11/03/${resultNumber(2).runId}.json`,
    );
  });

  test('a different result under a published run id is refused and nothing is committed', async () => {
    await publishResults(
      await readInputs([await box.writeResult('one.json', resultNumber(1))]),
      options(),
      deps(box.git).deps,
    );
    const tip = await remoteTip(box);
    const changed = resultNumber(1, { status: 'incomplete', incompleteReason: 'edited after the fact' });
    const file = await box.writeResult('one-changed.json', changed);
    const error = await publishResults(await readInputs([file]), options(), deps(box.git).deps).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RbError);
    expect((error as RbError).code).toBe('PUBLISH_CONFLICT');
    expect((error as RbError).message).toContain(file);
    expect((error as RbError).message).toContain(
      `origin/${BRANCH}:data/runs/2026/11/02/${changed.runId}.json`,
    );
    expect(await remoteTip(box)).toBe(tip);
  });

  test('a push that loses a race is replayed on the new tip: both results kept, history linear', async () => {
    const rival = await box.clone('rival');
    let raced = false;
    // Just before our first push, another publisher gets its result onto the branch.
    const { git } = recording(box.git, async (args) => {
      if (args[0] !== 'push' || raced) return;
      raced = true;
      await publishResults(
        await readInputs([await box.writeResult('rival.json', resultNumber(7))]),
        { ...options(), repo: rival },
        deps(box.git).deps,
      );
    });
    const { deps: d, lines, sleeps } = deps(git);
    const report = await publishResults(
      await readInputs([await box.writeResult('mine.json', resultNumber(3))]),
      options(),
      d,
    );
    expect(report.outcome).toBe('published');
    expect(report.attempts).toBe(2);
    expect(sleeps).toEqual([150]); // backoff for attempt 1 with random() = 0.5: 100 + 0.5·100
    expect(lines.join('\n')).toMatch(/push rejected \(\[rejected\] \(fetch first\)\)/);
    const history = (await box.sh(box.bare, 'rev-list', '--parents', BRANCH)).split('\n');
    expect(history.map((line) => line.split(' ').length)).toEqual([2, 1]); // ours on top of the rival's root
    const files = await box.sh(box.bare, 'ls-tree', '-r', '--name-only', BRANCH, '--', 'data/runs');
    expect(files.split('\n')).toEqual([
      `data/runs/2026/11/04/${resultNumber(3).runId}.json`,
      `data/runs/2026/11/08/${resultNumber(7).runId}.json`,
    ]);
  });

  test('gives up after the bound of attempts with a clear error, publishing nothing', async () => {
    const rejected = {
      exitCode: 1,
      stdout: `To origin\n!\tx:refs/heads/${BRANCH}\t[rejected] (fetch first)\nDone\n`,
      stdoutBytes: Buffer.alloc(0),
      stderr: '',
    };
    let pushes = 0;
    // The remote side of a permanently busy branch: every push is rejected.
    const git: GitRunner = {
      run: (args, opts) =>
        args[0] === 'push' ? (pushes++, Promise.resolve(rejected)) : box.git.run(args, opts),
    };
    const { deps: d, sleeps } = deps(git);
    const error = await publishResults(
      await readInputs([await box.writeResult('one.json', resultNumber(1))]),
      options({ maxAttempts: 3 }),
      d,
    ).catch((e: unknown) => e);
    expect((error as RbError).code).toBe('PUBLISH_RETRIES_EXHAUSTED');
    expect(pushes).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(await remoteTip(box)).toBeNull();
    expect(await box.sh(work, 'worktree', 'list', '--porcelain')).not.toMatch(/rb-publish-/);
  });

  test('schema files are updated when they differ; result files are never touched', async () => {
    const v1: DocFile[] = [{ path: 'schemas/result.schema.json', content: '{"version":1}\n' }];
    const first = await publishResults(
      await readInputs([await box.writeResult('one.json', resultNumber(1))]),
      options({ docs: v1 }),
      deps(box.git).deps,
    );
    const v2: DocFile[] = [{ path: 'schemas/result.schema.json', content: '{"version":2}\n' }];
    const second = await publishResults(
      await readInputs([await box.writeResult('one-again.json', resultNumber(1))]),
      options({ docs: v2 }),
      deps(box.git).deps,
    );
    expect(second.outcome).toBe('published');
    expect(second.added).toEqual([]);
    expect(second.docs.map((d) => [d.path, d.action])).toEqual([['schemas/result.schema.json', 'update']]);
    expect(await box.sh(box.bare, 'diff', '--name-status', first.commit ?? '', second.commit ?? '')).toBe(
      'M\tschemas/result.schema.json',
    );
  });
});

// Real git and node processes: seconds each on a busy 2-core machine.
describe('publish through the CLI (real git, real processes)', { timeout: 60_000 }, () => {
  let box: Sandbox;
  let work: string;
  beforeEach(async () => {
    box = await createSandbox();
    work = await box.clone('work');
  });
  afterEach(async () => {
    await box.cleanup();
  });

  test('one invalid file: exit 2, the file and field named, nothing committed', async () => {
    const good = await box.writeResult('good.json', resultNumber(1));
    const bad = await box.writeResult('bad.json', { ...resultNumber(2), configHash: 'md5:123' });
    const r = await runCli(['publish', good, bad], { cwd: work, env: box.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing was published: 1 of 2 file(s) invalid');
    expect(r.stderr).toContain(`${bad}: configHash:`);
    expect(await remoteTip(box)).toBeNull();
  });

  test('a result from a modified checkout: refused (exit 2, file and fix named, nothing committed); published with --allow-dirty, marked', async () => {
    const measured = resultNumber(1);
    const dirtyCommit = `${'a'.repeat(40)}+dirty`;
    const dirty = await box.writeResult('dirty.json', {
      ...measured,
      tool: { ...measured.tool, gitCommit: dirtyCommit },
    });
    const clean = await box.writeResult('clean.json', {
      ...resultNumber(2),
      tool: { ...measured.tool, gitCommit: 'b'.repeat(40) },
    });
    const refused = await runCli(['publish', clean, dirty], { cwd: work, env: box.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${dirty}: tool.gitCommit ${dirtyCommit}`);
    expect(refused.stderr).not.toContain(`${clean}:`);
    expect(refused.stderr).toMatch(/hint: commit .*--allow-dirty/);
    expect(await remoteTip(box)).toBeNull();

    const allowed = await runCli(['publish', '--allow-dirty', '--json', clean, dirty], {
      cwd: work,
      env: box.env,
    });
    expect(allowed.code).toBe(0);
    const report = JSON.parse(allowed.stdout) as {
      outcome: string;
      added: { runId: string; path: string }[];
    };
    expect(report.outcome).toBe('published');
    expect(report.added.map((a) => a.runId).sort()).toEqual([measured.runId, resultNumber(2).runId].sort());
    // The published file carries the mark as measured: nothing is added or removed on the way.
    const path = report.added.find((a) => a.runId === measured.runId)!.path;
    const published = JSON.parse(await box.sh(box.bare, 'show', `${BRANCH}:${path}`)) as {
      tool: { gitCommit: string };
    };
    expect(published.tool.gitCommit).toBe(dirtyCommit);
  });

  test('a result from a clean checkout is published without --allow-dirty', async () => {
    const measured = resultNumber(3);
    const file = await box.writeResult('clean.json', {
      ...measured,
      tool: { ...measured.tool, gitCommit: 'c'.repeat(40) },
    });
    const r = await runCli(['publish', file], { cwd: work, env: box.env });
    expect(r.code).toBe(0);
    expect(await remoteTip(box)).not.toBeNull();
  });

  test('publish then publish again: exit 0 both times, the second says nothing to publish', async () => {
    const file = await box.writeResult('one.json', resultNumber(1));
    const first = await runCli(['publish', file], { cwd: work, env: box.env });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /published 1 run\(s\) to origin\/benchmark-data as [0-9a-f]{12} \(attempt 1\)/,
    );
    const tip = await remoteTip(box);
    const second = await runCli(['publish', '--json', file], { cwd: work, env: box.env });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ outcome: 'unchanged', commit: tip, added: [] });
    expect(await remoteTip(box)).toBe(tip);
  });

  test.each([
    ['a path that does not exist', async () => '/nonexistent/runtime-bench-remote.git'],
    ['an unused 127.0.0.1 port', async () => `http://127.0.0.1:${await unusedPort()}/remote.git`],
  ])('remote unreachable (%s): clear error, exit 1, local files untouched', async (_name, url) => {
    await box.sh(work, 'remote', 'set-url', 'origin', await url());
    const file = await box.writeResult('one.json', resultNumber(1));
    const bytes = await readFile(file);
    await writeFile(join(work, 'dirty.txt'), 'local work\n');
    const before = await callerState(box, work);
    const r = await runCli(['publish', file], { cwd: work, env: box.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/runtime-bench: cannot reach remote origin:/);
    expect(r.stderr).toMatch(/hint: .*nothing was published and no local file was changed/);
    expect(await readFile(file)).toEqual(bytes);
    expect(await callerState(box, work)).toEqual(before);
  });

  test('data verify of the branch: counts runs, and exits 1 naming a file committed there by hand', async () => {
    const files = [
      await box.writeResult('one.json', resultNumber(1)),
      await box.writeResult('two.json', resultNumber(2)),
    ];
    const published = await runCli(['publish', '--message', 'nightly 2026-11-21', ...files], {
      cwd: work,
      env: box.env,
    });
    expect(published.code).toBe(0);
    expect(await box.sh(box.bare, 'log', '-1', '--format=%s', BRANCH)).toBe('nightly 2026-11-21');

    const ok = await runCli(['data', 'verify', '--remote', 'origin'], { cwd: work, env: box.env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^origin\/benchmark-data \([0-9a-f]{12}\): 2 file\(s\), 2 valid, 0 invalid; runs: 2 complete/m,
    );

    // Someone bypasses the tool and pushes a broken file.
    const vandal = await box.clone('vandal');
    await box.sh(vandal, 'checkout', '--quiet', BRANCH);
    const broken = 'data/runs/2026/11/05/20261105T080000Z-0000dead.json';
    await mkdir(join(vandal, 'data/runs/2026/11/05'), { recursive: true });
    await writeFile(join(vandal, broken), '{"schemaVersion": 1, "runId": "20261105T080000Z-0000dead"}\n');
    await box.sh(vandal, 'add', broken);
    await box.sh(
      vandal,
      '-c',
      'user.name=V',
      '-c',
      'user.email=v@example.invalid',
      'commit',
      '--quiet',
      '-m',
      'oops',
    );
    await box.sh(vandal, 'push', '--quiet', 'origin', BRANCH);

    const bad = await runCli(['data', 'verify', '--remote', 'origin', '--json'], { cwd: work, env: box.env });
    expect(bad.code).toBe(2);
    const report = JSON.parse(bad.stdout) as {
      files: number;
      valid: number;
      invalid: number;
      problems: { file: string }[];
    };
    expect(report).toMatchObject({ files: 3, valid: 2, invalid: 1 });
    expect(report.problems.map((p) => p.file)).toEqual([broken]);
    // The local copy (after a fetch) says the same without any worktree.
    await box.sh(work, 'fetch', '--quiet', 'origin', BRANCH);
    const local = await runCli(['data', 'verify'], { cwd: work, env: box.env });
    expect(local.code).toBe(2);
    expect(local.stdout).toContain(`INVALID  ${broken}:`);
    expect(local.stdout).toContain(`refs/remotes/origin/${BRANCH}`);
  });

  test('a clone with an unborn HEAD (remote HEAD names a missing branch) still publishes', async () => {
    await box.sh(box.bare, 'symbolic-ref', 'HEAD', 'refs/heads/no-such-branch');
    const unborn = await box.clone('unborn');
    expect(
      (await box.git.run(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: unborn })).exitCode,
    ).not.toBe(0);
    const r = await runCli(['publish', await box.writeResult('one.json', resultNumber(1))], {
      cwd: unborn,
      env: box.env,
    });
    expect(r.stderr).not.toMatch(/runtime-bench:/);
    expect(r.code).toBe(0);
    expect(await remoteTip(box)).not.toBeNull();
  });

  test('--git-dir outside a git repository is a clear error', async () => {
    const file = await box.writeResult('one.json', resultNumber(1));
    const r = await runCli(['publish', '--git-dir', box.root, file], { cwd: box.root, env: box.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${box.root} is not a git repository`);
  });

  test('an option-like remote or a bad branch name is a usage error (exit 2)', async () => {
    const file = await box.writeResult('one.json', resultNumber(1));
    const remote = await runCli(['publish', '--remote=--upload-pack=touch /tmp/x', file], {
      cwd: work,
      env: box.env,
    });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/invalid remote/);
    const branch = await runCli(['publish', '--branch', 'a..b', file], { cwd: work, env: box.env });
    expect(branch.code).toBe(2);
    expect(branch.stderr).toMatch(/invalid branch name/);
  });
});

// Real git and node processes: seconds each on a busy 2-core machine.
describe('the token (real git over smart HTTP)', { timeout: 60_000 }, () => {
  let box: Sandbox;
  let work: string;
  const token = `rbtest_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const header = authorizationHeader(token);
  const encoded = header.slice(header.lastIndexOf(' ') + 1);
  let server: Awaited<ReturnType<typeof startSmartHttpServer>>;

  beforeEach(async () => {
    box = await createSandbox();
    work = await box.clone('work');
    await box.sh(box.bare, 'config', 'http.receivepack', 'true');
    server = await startSmartHttpServer(box.root, `basic ${encoded}`, box.env);
    await box.sh(work, 'remote', 'set-url', 'origin', `${server.url}remote.git`);
  });
  afterEach(async () => {
    await server.close();
    await box.cleanup();
  });

  async function assertNoTraceOfToken(texts: readonly string[]) {
    for (const text of texts) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(encoded);
    }
    // Plain files anywhere in the sandbox: both clones' .git (config!), the bare remote, results.
    expect(await filesContaining(box.root, [token, encoded])).toEqual([]);
    // Compressed objects too: nothing in any commit, tree or blob of either side.
    for (const repo of [work, box.bare]) {
      expect(await box.sh(repo, 'log', '--all', '-p', '--format=%H %an %ae %B')).not.toContain(token);
    }
    expect(await box.sh(work, 'config', '--list', '--show-origin')).not.toContain(token);
  }

  test('in-process: git sends the header, and the token is in no argv, log line or file', async () => {
    const env = { ...box.env, RB_PUBLISH_TOKEN: token };
    const { git: authed, secrets } = await gitForRemote(env, work, 'origin');
    expect(secrets).toContain(token);
    const { git, argv } = recording(authed);
    const { deps: d, lines } = deps(git);
    const file = await box.writeResult('one.json', resultNumber(1));
    const report = await publishResults(
      await readInputs([file]),
      { repo: work, remote: 'origin', branch: BRANCH },
      d,
    );

    expect(report.outcome).toBe('published');
    expect(await remoteTip(box)).toBe(report.commit);
    // The server saw our header (and refused anything without it).
    expect(server.authorizations).toContain(`basic ${encoded}`);
    await assertNoTraceOfToken([argv.flat().join('\n'), lines.join('\n')]);
  });

  test('CLI with RB_PUBLISH_TOKEN: published, and no trace of the token in argv (git wrapper), output or files', async () => {
    // A `git` earlier on PATH that records the argv of every git the CLI starts.
    const bin = join(box.root, 'bin');
    const argvLog = join(box.root, 'git-argv.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await mkdir(bin);
    await writeFile(
      join(bin, 'git'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec '${realGit}' "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const env = { ...box.env, RB_PUBLISH_TOKEN: token, PATH: `${bin}:${box.env.PATH ?? ''}` };

    const file = await box.writeResult('one.json', resultNumber(1));
    const r = await runCli(['publish', file], { cwd: work, env });
    expect(r.stderr).toContain('authenticating to HTTP(S) remotes with the token from RB_PUBLISH_TOKEN');
    expect(r.code).toBe(0);
    expect(await remoteTip(box)).not.toBeNull();
    const recorded = await readFile(argvLog, 'utf8');
    expect(recorded).toMatch(
      /^push --porcelain --no-verify origin [0-9a-f]{40}:refs\/heads\/benchmark-data$/m,
    );
    await assertNoTraceOfToken([recorded, r.stdout, r.stderr]);
  });

  test('CLI without a token: the server says 401 and the error is clear (exit 1)', async () => {
    const file = await box.writeResult('one.json', resultNumber(1));
    const r = await runCli(['publish', file], { cwd: work, env: box.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach remote origin/);
    expect(server.authorizations.every((a) => a === undefined)).toBe(true);
    expect(await remoteTip(box)).toBeNull();
  });
});
