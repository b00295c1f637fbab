import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RunResult } from '@runtime-bench/schemas';
import { serializeResult } from '../../../src/results/io.ts';
import { readDirEntries, verifyEntries, type DataEntry } from '../../../src/publish/verify.ts';
import { createSandbox, resultNumber, runCli, type Sandbox } from './helpers.ts';

function entry(path: string, text: string): DataEntry {
  return { path, where: `data/runs/${path}`, text };
}

const one = resultNumber(1);
const two = resultNumber(2, { status: 'incomplete', incompleteReason: 'interrupted by SIGTERM' });
const path1 = `2026/11/02/${one.runId}.json`;
const path2 = `2026/11/03/${two.runId}.json`;

/** A run that went to its end while its only benchmark × target measured nothing. */
function unmeasured(n: number, overrides: Partial<RunResult>): RunResult {
  const run = resultNumber(n, overrides);
  const [r] = run.results;
  run.results = [
    {
      ...r!,
      status: 'failed',
      reason: 'no attempt succeeded: x',
      failedAttempts: r!.attempts,
      metrics: r!.metrics.map((m) => ({ ...m, samples: [], summary: null })),
    },
  ];
  return run;
}

describe('verifyEntries', () => {
  test('counts valid runs per status', () => {
    const report = verifyEntries(
      [entry(path1, serializeResult(one)), entry(path2, serializeResult(two))],
      'x',
    );
    expect(report).toEqual({
      source: 'x',
      files: 2,
      valid: 2,
      invalid: 0,
      runs: { complete: 1, partial: 0, incomplete: 1 },
      problems: [],
    });
  });

  test('a run with an unmeasured benchmark × target counts as partial: said by a version-6 file, read from an older one', () => {
    const written = unmeasured(3, { status: 'partial' });
    // Written before version 6 knew the status: the file stays as it is, the count corrects it.
    const older = unmeasured(4, { schemaVersion: 5, status: 'complete' });
    const report = verifyEntries(
      [written, older, one].map((r) =>
        entry(`2026/11/${r.startedAt.slice(8, 10)}/${r.runId}.json`, serializeResult(r)),
      ),
      'x',
    );
    expect(report.problems).toEqual([]);
    expect(report.runs).toEqual({ complete: 1, partial: 2, incomplete: 0 });
  });

  test('names the file and field of an invalid result', () => {
    const bad = { ...one, configHash: 'md5:nope' };
    const report = verifyEntries([entry(path1, JSON.stringify(bad))], 'x');
    expect(report.invalid).toBe(1);
    expect(report.problems[0]?.message).toContain(`data/runs/${path1}: configHash:`);
  });

  test('a result in the wrong date directory or under the wrong name is invalid', () => {
    const report = verifyEntries(
      [
        entry(`2026/11/09/${one.runId}.json`, serializeResult(one)),
        entry(`2026/11/03/20261103T080000Z-deadbeef.json`, serializeResult(two)),
      ],
      'x',
    );
    expect(report.invalid).toBe(2);
    expect(report.problems.map((p) => p.message).join('\n')).toMatch(/belongs at 2026\/11\/02/);
  });

  test('the same run id stored under another date is reported', () => {
    // Two results claiming one run id with different start dates: the run id is made from the
    // start time, so the second one contradicts itself (and could only be a copy edited by hand).
    const later = { ...one, startedAt: '2026-11-05T08:00:00.000Z', finishedAt: '2026-11-05T08:01:00.000Z' };
    const report = verifyEntries(
      [entry(path1, serializeResult(one)), entry(`2026/11/05/${one.runId}.json`, serializeResult(later))],
      'x',
    );
    expect(report.valid).toBe(1);
    expect(report.invalid).toBe(1);
    expect(report.problems[0]?.message).toMatch(
      /2026\/11\/05\/.*runId: its timestamp 20261102T080000Z disagrees with startedAt 2026-11-05/,
    );
  });

  test('non-result files under runs/ are reported, not skipped', () => {
    const report = verifyEntries([entry('2026/11/02/notes.txt', 'hello')], 'x');
    expect(report.invalid).toBe(1);
    expect(report.problems[0]?.message).toMatch(/not a result file/);
  });

  test('no files: an empty, valid data set', () => {
    expect(verifyEntries([], 'x')).toMatchObject({ files: 0, valid: 0, invalid: 0 });
  });
});

// Real git and node processes: seconds each on a busy 2-core machine.
describe('data verify --dir (real files, real CLI)', { timeout: 60_000 }, () => {
  let box: Sandbox;
  beforeEach(async () => {
    box = await createSandbox();
  });
  afterEach(async () => {
    await box.cleanup();
  });

  async function put(rel: string, text: string) {
    const full = join(box.root, 'data', 'runs', rel);
    await mkdir(join(full, '..'), { recursive: true });
    await writeFile(full, text);
  }

  test('readDirEntries returns runs/ files with /-separated relative paths; no runs/ is empty', async () => {
    await mkdir(join(box.root, 'data'));
    expect(await readDirEntries(join(box.root, 'data'))).toEqual({ entries: [], problems: [] });
    await put(path1, serializeResult(one));
    const { entries } = await readDirEntries(join(box.root, 'data'));
    expect(entries.map((e) => e.path)).toEqual([path1]);
    await expect(readDirEntries(join(box.root, 'missing'))).rejects.toThrow(/is not a directory/);
  });

  test('exit 0 with counts for a valid directory, 2 with the bad file named otherwise', async () => {
    await put(path1, serializeResult(one));
    await put(path2, serializeResult(two));
    const ok = await runCli(['data', 'verify', '--dir', 'data'], { cwd: box.root, env: box.env });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(
      'data: 2 file(s), 2 valid, 0 invalid; runs: 1 complete, 0 partial, 1 incomplete',
    );

    await put(`2026/11/04/20261104T080000Z-00000bad.json`, '{"schemaVersion": 1}');
    const bad = await runCli(['data', 'verify', '--dir', 'data', '--json'], { cwd: box.root, env: box.env });
    expect(bad.code).toBe(2);
    const report = JSON.parse(bad.stdout) as { files: number; invalid: number; problems: { file: string }[] };
    expect(report.files).toBe(3);
    expect(report.invalid).toBe(1);
    expect(report.problems[0]?.file).toContain('20261104T080000Z-00000bad.json');
    expect(bad.stderr).toContain('1 of 3 file(s) in data are invalid');
  });

  test('--dir cannot be combined with --remote (usage error, exit 2)', async () => {
    await mkdir(join(box.root, 'data'));
    const r = await runCli(['data', 'verify', '--dir', 'data', '--remote', 'origin'], {
      cwd: box.root,
      env: box.env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot be combined/);
  });
});
