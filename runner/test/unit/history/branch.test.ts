// The gate's history fetched from a data branch: a real bare repository as the remote, its data
// branch holding copies of the real runs of data/runs (never edited), and the real git binary.
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { fetchBranchHistory, historyCandidates } from '../../../src/history/index.ts';
import type { GitRunner } from '../../../src/publish/git.ts';
import { loadResultDir } from '../../../src/results/read-dir.ts';
import {
  createSandbox,
  pushDataBranch as pushBranch,
  runCli,
  WORKSPACE_ROOT,
  type Sandbox,
} from '../publish/helpers.ts';

const DATA_RUNS = join(WORKSPACE_ROOT, 'data', 'runs');
const ALL = loadResultDir(DATA_RUNS, { code: 'T', title: () => 'data/runs', hint: '' });

/** The nightly series of data/runs, oldest first: the runs whose targets are the nightly's. */
const NIGHTLY = ALL.filter((r) => r.run.targets.every((t) => t.id.startsWith('nightly-ctl/'))).map(
  (r) => r.run,
);

/** Every file under `dir`, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** Records the paths every `cat-file --batch` was asked for: the blobs that were downloaded. */
function recording(git: GitRunner): { git: GitRunner; read: string[] } {
  const read: string[] = [];
  return {
    read,
    git: {
      run(args, options) {
        if (args[0] === 'cat-file' && args[1] === '--batch' && typeof options?.input === 'string')
          read.push(
            ...options.input
              .split('\n')
              .filter(Boolean)
              .map((l) => l.slice(l.indexOf(':') + 1)),
          );
        return git.run(args, options);
      },
    },
  };
}

let box: Sandbox;
let url: string;

/** Pushes a data branch holding a copy of data/runs and `extra` files (path → text). */
const pushDataBranch = (extra: Record<string, string> = {}) => pushBranch(box, extra, DATA_RUNS);

beforeEach(async () => {
  box = await createSandbox();
  // As GitHub does: the remote honours --filter, so blobs come only when read.
  await box.sh(box.bare, 'config', 'uploadpack.allowFilter', 'true');
  url = `file://${box.bare}`;
});
afterEach(() => box.cleanup());

describe('historyCandidates', () => {
  test('runs before the current one, newest first; misplaced files skipped, annotations left to their reader', () => {
    const current = { runId: '20261127T064118Z-6200a496' };
    const { candidates, skipped } = historyCandidates(
      [
        'README.md',
        'data/runs/annotations.json',
        'data/runs/2026/11/27/20261127T063629Z-7dce737b.json',
        'data/runs/2026/11/27/20261127T064415Z-0557dae4.json',
        'data/runs/2026/11/27/20261127T064118Z-6200a496.json',
        'data/runs/2026/11/26/20261126T220117Z-c1b5a8b7.json',
        'data/runs/2026/11/26/20261127T063846Z-53cf25f2.json',
        'data/runs/notes.json',
        // No real time: they would sort after every run and be left out unseen.
        'data/runs/2026/13/40/20261340T000000Z-00000000.json',
        'data/runs/2026/11/26/20261126T246000Z-00000000.json',
        'data/runs/2026/11/26/20261126T000000Z-0000000G.json',
      ],
      current,
    );
    expect(candidates.map((c) => c.runId)).toEqual([
      '20261127T063629Z-7dce737b',
      '20261126T220117Z-c1b5a8b7',
    ]);
    expect(skipped.map((s) => s.path)).toEqual([
      'data/runs/2026/11/26/20261127T063846Z-53cf25f2.json',
      'data/runs/notes.json',
      'data/runs/2026/13/40/20261340T000000Z-00000000.json',
      'data/runs/2026/11/26/20261126T246000Z-00000000.json',
      'data/runs/2026/11/26/20261126T000000Z-0000000G.json',
    ]);
  });

  test('arbitrary paths: every path under data/runs/ is a candidate, skipped, an annotation or not older', () => {
    const current = { runId: '20261127T064118Z-6200a496' };
    const segment = fc.oneof(
      fc.string(),
      fc.constantFrom('data', 'runs', '2026', '11', '27', '..', '', '20261127T063629Z-7dce737b.json'),
    );
    fc.assert(
      fc.property(fc.array(fc.array(segment, { maxLength: 6 }).map((s) => s.join('/'))), (paths) => {
        const { candidates, skipped } = historyCandidates(paths, current);
        for (const c of candidates) {
          expect(c.path).toBe(
            `data/runs/${c.runId.slice(0, 4)}/${c.runId.slice(4, 6)}/${c.runId.slice(6, 8)}/${c.runId}.json`,
          );
          expect(c.runId < current.runId).toBe(true);
        }
        for (const s of skipped) expect(s.path.startsWith('data/runs/')).toBe(true);
        expect(candidates.length + skipped.length).toBeLessThanOrEqual(paths.length);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('fetchBranchHistory (real git, a local bare remote)', () => {
  test("writes exactly the newest runs of the current run's lineage, and downloads no other file", async () => {
    await pushDataBranch();
    const current = NIGHTLY.at(-1)!;
    const expected = NIGHTLY.slice(-4, -1).map(
      (r) => `${r.startedAt.slice(0, 10).replace(/-/g, '/')}/${r.runId}.json`,
    );
    const out = join(box.root, 'history');
    const { git, read } = recording(box.git);
    const history = await fetchBranchHistory(git, { url, branch: 'benchmark-data', current, runs: 3, out });
    expect(history.files).toEqual(expected);
    expect(await filesUnder(out)).toEqual(expected);
    expect(read.sort()).toEqual(expected.map((p) => `data/runs/${p}`));
    expect(history.skipped).toEqual([]);
    // Byte for byte the branch's files.
    for (const p of expected)
      expect(await readFile(join(out, p), 'utf8')).toBe(await readFile(join(DATA_RUNS, p), 'utf8'));
  });

  test('other host classes and other targets are not history, however recent', async () => {
    await pushDataBranch();
    // The second night of the series: every earlier run on the branch measured something else.
    const current = NIGHTLY[1]!;
    const out = join(box.root, 'history');
    const history = await fetchBranchHistory(box.git, {
      url,
      branch: 'benchmark-data',
      current,
      runs: 5,
      out,
    });
    expect(history.files).toEqual([`2026/11/27/${NIGHTLY[0]!.runId}.json`]);
    expect(await filesUnder(out)).toEqual(history.files);
  });

  test('the first night: no branch on the remote is no history, not an error', async () => {
    const out = join(box.root, 'history');
    const history = await fetchBranchHistory(box.git, {
      url,
      branch: 'benchmark-data',
      current: NIGHTLY.at(-1)!,
      runs: 20,
      out,
    });
    expect(history).toEqual({ commit: null, files: [], annotations: null, skipped: [] });
    expect(await filesUnder(out)).toEqual([]);
  });

  test('a malformed or misplaced file is skipped with a warning naming it; the annotations come along', async () => {
    const current = NIGHTLY.at(-1)!;
    const newest = NIGHTLY.at(-2)!;
    const text = await readFile(join(DATA_RUNS, '2026/11/27', `${newest.runId}.json`), 'utf8');
    // Newer than every run but the current one, so it is read first.
    const broken = `data/runs/2026/11/27/${current.runId.slice(0, 13)}00Z-0badf11e.json`;
    const misplaced = `data/runs/2026/11/26/${newest.runId}.json`;
    const annotations = '{"schemaVersion": 1, "baselineResets": []}\n';
    await pushDataBranch({
      [broken]: text.slice(0, 200),
      [misplaced]: text,
      'data/runs/annotations.json': annotations,
    });
    const lines: string[] = [];
    const out = join(box.root, 'history');
    const history = await fetchBranchHistory(
      box.git,
      { url, branch: 'benchmark-data', current, runs: 2, out },
      (l) => lines.push(l),
    );
    expect(history.files).toEqual(NIGHTLY.slice(-3, -1).map((r) => `2026/11/27/${r.runId}.json`));
    expect(history.skipped.map((s) => s.path).sort()).toEqual([broken, misplaced].sort());
    expect(
      lines.some((l) => l.startsWith(`warning: skipped ${broken} of benchmark-data: not valid JSON`)),
    ).toBe(true);
    expect(lines.some((l) => l.includes(misplaced))).toBe(true);
    expect(history.annotations).toBe('annotations.json');
    expect(await readFile(join(out, 'annotations.json'), 'utf8')).toBe(annotations);
  });
});

describe('hostile files on the branch', () => {
  test('a result file larger than the limit is skipped unread, with its size; the others are read', async () => {
    const current = NIGHTLY.at(-1)!;
    const newest = NIGHTLY.at(-2)!;
    const text = await readFile(join(DATA_RUNS, '2026/11/27', `${newest.runId}.json`), 'utf8');
    // Newer than every run but the current one, so it is read first; 3 MiB of padding.
    const huge = `data/runs/2026/11/27/${current.runId.slice(0, 13)}00Z-0b16f11e.json`;
    const hugeText = `${' '.repeat(3 * 2 ** 20)}${text}`;
    const hugeMiB = (Buffer.byteLength(hugeText) / 2 ** 20).toFixed(1);
    await pushDataBranch({ [huge]: hugeText });
    const lines: string[] = [];
    const { git, read } = recording(box.git);
    const history = await fetchBranchHistory(
      git,
      {
        url,
        branch: 'benchmark-data',
        current,
        runs: 2,
        out: join(box.root, 'history'),
        maxFileBytes: 2 ** 20,
      },
      (l) => lines.push(l),
    );
    expect(history.files).toEqual(NIGHTLY.slice(-3, -1).map((r) => `2026/11/27/${r.runId}.json`));
    expect(history.skipped).toEqual([
      { path: huge, reason: `${hugeMiB} MiB, more than the 1.0 MiB a result file may be: not read` },
    ]);
    expect(read).not.toContain(huge);
    expect(lines).toContain(
      `warning: skipped ${huge} of benchmark-data: ${hugeMiB} MiB, more than the 1.0 MiB a result file may be: not read`,
    );
  });

  test.each([
    ['not JSON', '{"baselineResets": [', /^data branch: data\/runs\/annotations\.json: cannot parse JSON/],
    [
      'a field of the wrong type',
      '{"schemaVersion": 1, "baselineResets": 7}',
      /^data branch: data\/runs\/annotations\.json: baselineResets: /,
    ],
  ])(
    'annotations that are %s: an error naming the file on the branch, nothing written',
    async (_what, text, message) => {
      await pushDataBranch({ 'data/runs/annotations.json': text });
      const out = join(box.root, 'history');
      const fetching = fetchBranchHistory(box.git, {
        url,
        branch: 'benchmark-data',
        current: NIGHTLY.at(-1)!,
        runs: 2,
        out,
      });
      await expect(fetching).rejects.toBeInstanceOf(RbError);
      await expect(fetching).rejects.toThrow(message);
      await expect(fetching).rejects.toMatchObject({
        hint: expect.stringContaining('fix data/runs/annotations.json on the data branch'),
      });
      expect(await filesUnder(out)).toEqual([]);
    },
  );
});

describe('runtime-bench data history, then check on what it wrote', () => {
  test('check sees exactly the fetched runs; the first night says "no history yet"', async () => {
    const clone = await box.clone('caller');
    const current = NIGHTLY.at(-1)!;
    const currentFile = join(DATA_RUNS, '2026/11/27', `${current.runId}.json`);
    const out = join(box.root, 'history');
    const first = await runCli(['data', 'history', '--current', currentFile, '--out', out], {
      cwd: clone,
      env: box.env,
    });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('no history yet');

    await pushDataBranch();
    const second = await runCli(['data', 'history', '--current', currentFile, '--out', out, '--runs', '4'], {
      cwd: clone,
      env: box.env,
    });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(
      /^4 earlier run\(s\) of this host class and targets from origin\/benchmark-data/,
    );
    const checked = await runCli(['check', '--history', out, '--current', currentFile, '--format', 'json'], {
      cwd: clone,
      env: box.env,
    });
    expect(checked.code).toBe(0);
    const report = JSON.parse(checked.stdout) as { history: { files: number; comparable: number } };
    expect(report.history).toMatchObject({ files: 4, comparable: 4 });
  });
});

// A stand-in git: the logic's use of git in the cases a real remote cannot easily show.
describe('fetchBranchHistory (scripted git)', () => {
  test('an unreachable remote is an error naming it, and nothing is fetched', async () => {
    const calls: string[][] = [];
    const git: GitRunner = {
      run(args) {
        calls.push([...args]);
        const fail = args[0] === 'ls-remote';
        return Promise.resolve({
          exitCode: fail ? 128 : 0,
          stdout: '',
          stdoutBytes: Buffer.alloc(0),
          stderr: fail ? 'fatal: unable to access: Could not resolve host' : '',
        });
      },
    };
    await expect(
      fetchBranchHistory(git, {
        url: 'https://example.invalid/repo.git',
        branch: 'benchmark-data',
        current: NIGHTLY.at(-1)!,
        runs: 3,
        out: join(box.root, 'history'),
      }),
    ).rejects.toThrow(/cannot reach remote https:\/\/example.invalid\/repo.git/);
    expect(calls.map((c) => c[0])).toEqual(['init', 'remote', 'ls-remote']);
  });
});
