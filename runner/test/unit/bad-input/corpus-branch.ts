// The corpus's hostile data-branch contents: a real bare repository whose data branch holds the
// real runs of data/runs (never edited) beside malformed files at the layout's paths, read by
// `data history`. A malformed result is skipped with a warning naming it; a malformed annotations
// file is an error naming it (the gate would read it every night).
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { RunResult } from '@runtime-bench/schemas';
import type { CorpusCase } from './corpus-cases.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A malformed result file: what it holds (from a real run's text), or a symlink target. */
type BadFile = [name: string, content: (real: string) => string | { symlink: string }];

const edit =
  (change: (r: Json) => void) =>
  (real: string): string => {
    const r = JSON.parse(real) as Json;
    change(r);
    return JSON.stringify(r);
  };

const BAD_RESULTS: BadFile[] = [
  ['empty', () => ''],
  ['truncated', (real) => real.slice(0, 200)],
  ['null', () => 'null'],
  ['a list', () => '[]'],
  ['an empty object', () => '{}'],
  ['a string', () => '"result"'],
  ['binary', () => '\u0000\u0001\u00ff'],
  ['a byte-order mark', (real) => `\ufeff${real}`],
  ['a future schema version', edit((r) => (r.schemaVersion = 999))],
  ['schema version a string', edit((r) => (r.schemaVersion = '1'))],
  ['no runId', edit((r) => delete r.runId)],
  ['a negative sample', edit((r) => (r.results[0].metrics[0].samples[0] = -4.2))],
  ['a sample of 1e400', (real) => real.replace(/"samples":\[[0-9.e+-]+/, '"samples":[1e400')],
  ['a summary that lies', edit((r) => (r.results[0].metrics[0].summary.median = 1e9))],
  ['finished before it started', edit((r) => (r.finishedAt = '2000-01-01T00:00:00.000Z'))],
  ['a target twice', edit((r) => r.targets.push(r.targets[0]))],
  ['no targets', edit((r) => (r.targets = []))],
  ['no host', edit((r) => delete r.host)],
  ['host a string', edit((r) => (r.host = 'x'))],
  ['results a mapping', edit((r) => (r.results = {}))],
  ['an unknown status', edit((r) => (r.status = 'great'))],
  ['a 200-deep nest', () => `${'['.repeat(200)}${']'.repeat(200)}`],
  ['a 2 MiB string', () => JSON.stringify({ runId: 'x'.repeat(2 * 2 ** 20) })],
  ['a symlink out of the repository', () => ({ symlink: '/etc/passwd' })],
];

/** Files under data/runs at no path of the layout, each skipped with a warning naming it. */
const MISPLACED = [
  'data/runs/notes.json',
  'data/runs/2026/11/25/not-a-run-id.json',
  'data/runs/2026/13/40/20261340T000000Z-00000000.json',
  'data/runs/2026/11/25/20261125T010000Z-badf0000.yaml.json',
];

/** Annotations that `check` would refuse: each an error naming the branch's file. */
const BAD_ANNOTATIONS: [string, string][] = [
  ['not JSON', '{"baselineResets": ['],
  ['no schema version', '{"baselineResets": []}'],
  ['baselineResets a number', '{"schemaVersion": 1, "baselineResets": 7}'],
  ['a negative threshold', '{"schemaVersion": 1, "thresholds": {"StartContainer": -5}}'],
  ['an unknown field', '{"schemaVersion": 1, "resets": []}'],
  ['a list', '[]'],
];

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** A bare repository whose benchmark-data branch holds data/runs and `extra` (path → content). */
function dataBranch(
  dir: string,
  dataRuns: string,
  extra: Record<string, string | { symlink: string }>,
): string {
  const work = join(dir, 'work');
  const bare = join(dir, 'remote.git');
  git(dir, 'init', '--quiet', '--bare', bare);
  git(dir, 'init', '--quiet', '--initial-branch=benchmark-data', work);
  cpSync(dataRuns, join(work, 'data', 'runs'), { recursive: true });
  for (const [path, content] of Object.entries(extra)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    if (typeof content === 'string') writeFileSync(join(work, path), content);
    else symlinkSync(content.symlink, join(work, path));
  }
  git(work, 'add', '.');
  git(work, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'runs');
  git(work, 'push', '--quiet', bare, 'benchmark-data');
  return bare;
}

/** A run id older than `current`'s, on 2026-11-25, numbered `i` (its path is the layout's). */
const badPath = (i: number) => {
  const runId = `20261125T01${String(Math.floor(i / 60)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}Z-badf${i.toString(16).padStart(4, '0')}`;
  return { runId, path: `data/runs/2026/11/25/${runId}.json` };
};

/**
 * One branch with every malformed result and misplaced file (one `data history` run, each file
 * named by a warning of its own), and one branch per malformed annotations file.
 */
export function branchCases(
  dir: string,
  dataRuns: string,
  current: { file: string; run: RunResult },
): CorpusCase[] {
  const real = readFileSync(current.file, 'utf8');
  const files: Record<string, string | { symlink: string }> = {};
  const named: [string, string][] = [];
  BAD_RESULTS.forEach(([name, content], i) => {
    const { path } = badPath(i);
    files[path] = content(real);
    named.push([name, path]);
  });
  for (const path of MISPLACED) {
    files[path] = real;
    named.push([`misplaced ${path}`, path]);
  }
  const all = join(dir, 'results');
  mkdirSync(all);
  const bare = dataBranch(all, dataRuns, files);
  const history = (out: string, remote: string) => [
    'data',
    'history',
    '--current',
    current.file,
    '--out',
    out,
    '--git-dir',
    dir,
    '--remote',
    `file://${remote}`,
    '--runs',
    '1000',
  ];
  // One run reads them all: each file is one input, its warning the check.
  const cases: CorpusCase[] = named.map(([name, path]) => ({
    kind: 'data-branch file',
    name,
    args: history(join(all, 'out'), bare),
    names: [`warning: skipped ${path} of benchmark-data: `],
    succeeds: true,
    shared: 'data-branch results',
    unwritten: path,
  }));
  BAD_ANNOTATIONS.forEach(([name, text], i) => {
    const caseDir = join(dir, `annotations-${i}`);
    mkdirSync(caseDir);
    cases.push({
      kind: 'data-branch file',
      name: `annotations: ${name}`,
      args: history(
        join(caseDir, 'out'),
        dataBranch(caseDir, dataRuns, { 'data/runs/annotations.json': text }),
      ),
      names: [
        'data branch: data/runs/annotations.json: ',
        'fix data/runs/annotations.json on the data branch',
      ],
    });
  });
  return cases;
}
