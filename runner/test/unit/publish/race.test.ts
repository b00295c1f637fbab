// The nightly-matrix case: many publishers started at the same moment, each with its own result,
// against one bare remote. Every result must land, the history must stay linear, git fsck clean.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { serializeResult } from '../../../src/results/io.ts';
import { createSandbox, resultNumber, runCli, runCliConcurrently, type Sandbox } from './helpers.ts';

const BRANCH = 'benchmark-data';

interface JsonReport {
  outcome: string;
  attempts: number;
  added: { runId: string; path: string }[];
}

async function assertBranchHolds(box: Sandbox, runs: number[]) {
  const fsck = await box.git.run(['fsck', '--full', '--strict', '--no-dangling', '--no-progress'], {
    cwd: box.bare,
  });
  expect(fsck.stderr + fsck.stdout).toBe('');
  expect(fsck.exitCode).toBe(0);
  // Linear: no merges, a single root, one commit per published run.
  expect(await box.sh(box.bare, 'rev-list', '--count', '--min-parents=2', BRANCH)).toBe('0');
  expect(await box.sh(box.bare, 'rev-list', '--count', '--max-parents=0', BRANCH)).toBe('1');
  expect(await box.sh(box.bare, 'rev-list', '--count', BRANCH)).toBe(String(runs.length));
  const files = (await box.sh(box.bare, 'ls-tree', '-r', '--name-only', BRANCH, '--', 'data/runs')).split(
    '\n',
  );
  expect(files).toHaveLength(runs.length);
  for (const n of runs) {
    const result = resultNumber(n);
    const path = `data/runs/2026/11/${String(1 + (n % 28)).padStart(2, '0')}/${result.runId}.json`;
    expect(files).toContain(path);
    const blob = await box.git.run(['cat-file', 'blob', `${BRANCH}:${path}`], { cwd: box.bare });
    expect(blob.stdout).toBe(serializeResult(result));
  }
}

describe('concurrent publishers (real CLI processes, one bare remote)', () => {
  let box: Sandbox;
  beforeEach(async () => {
    box = await createSandbox();
  });
  afterEach(async () => {
    await box.cleanup();
  });

  test('8 publishers in 8 clones started at once: all 8 results on a linear branch, fsck clean', async () => {
    const runs = [1, 2, 3, 4, 5, 6, 7, 8];
    const jobs = await Promise.all(
      runs.map(async (n) => ({
        args: ['publish', '--json', await box.writeResult(`run-${n}.json`, resultNumber(n))],
        cwd: await box.clone(`job-${n}`),
        env: box.env,
      })),
    );
    const results = await runCliConcurrently(jobs);

    for (const r of results)
      expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
    const reports = results.map((r) => JSON.parse(r.stdout) as JsonReport);
    expect(reports.every((r) => r.outcome === 'published' && r.added.length === 1)).toBe(true);
    // Whether pushes actually collided depends on scheduling, so it is not asserted: the invariant
    // (every run landed exactly once, linear history, fsck clean) must hold either way. The
    // replay path itself is tested deterministically in publish.git.test.ts.
    await assertBranchHolds(box, runs);

    const verified = await runCli(['data', 'verify', '--remote', 'origin', '--json'], {
      cwd: jobs[0]?.cwd ?? box.root,
      env: box.env,
    });
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      files: 8,
      valid: 8,
      invalid: 0,
      runs: { complete: 8 },
    });
  }, 180_000);

  test('4 publishers sharing one clone: all land, the clone keeps its checkout and no worktree is left', async () => {
    const work = await box.clone('shared');
    const head = await box.sh(work, 'rev-parse', 'HEAD');
    const runs = [11, 12, 13, 14];
    const jobs = await Promise.all(
      runs.map(async (n) => ({
        args: ['publish', '--json', await box.writeResult(`run-${n}.json`, resultNumber(n))],
        cwd: work,
        env: box.env,
      })),
    );
    const results = await runCliConcurrently(jobs);
    for (const r of results)
      expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
    await assertBranchHolds(box, runs);
    expect(await box.sh(work, 'rev-parse', 'HEAD')).toBe(head);
    expect(await box.sh(work, 'status', '--porcelain')).toBe('');
    expect(await box.sh(work, 'worktree', 'list', '--porcelain')).not.toMatch(/rb-publish-/);

    // The local copy of the branch is readable without checking it out.
    await box.sh(work, 'fetch', '--quiet', 'origin', BRANCH);
    const verified = await runCli(['data', 'verify', '--branch', BRANCH], { cwd: work, env: box.env });
    expect(verified.stdout).toContain(`refs/remotes/origin/${BRANCH}`);
    expect(verified.stdout).toContain(
      '4 file(s), 4 valid, 0 invalid; runs: 4 complete, 0 partial, 0 incomplete',
    );
    expect(verified.code).toBe(0);
  }, 180_000);
});
