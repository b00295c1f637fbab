// The gate's history by default: the history step fetches the published nights from the data
// branch, the summary step's check reads them. A real bare repository is the remote, its data
// branch holding copies of the real runs of data/runs; the real CLI is spawned for both steps.
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadResultDir } from '@runtime-bench/runner';
import {
  createSandbox,
  pushDataBranch as pushBranch,
  type Sandbox,
} from '../../runner/test/unit/publish/helpers.ts';
import { gateHistory, historyDir, NO_BASELINE_NOTE } from '../src/history.ts';
import { readInputs } from '../src/inputs.ts';
import { spawnRuntimeBench, stepHistory, stepSummary } from '../src/steps.ts';
import type { StepContext } from '../src/step-context.ts';

const DATA_RUNS = join(import.meta.dirname, '../../data/runs');
const NIGHTLY = loadResultDir(DATA_RUNS, { code: 'T', title: () => 'data/runs', hint: '' }).filter((r) =>
  r.run.targets.every((t) => t.id.startsWith('nightly-ctl/')),
);

let box: Sandbox;
let workDir: string;
let workspace: string;

beforeEach(async () => {
  box = await createSandbox();
  await box.sh(box.bare, 'config', 'uploadpack.allowFilter', 'true');
  workspace = await box.clone('caller');
  workDir = await mkdtemp(join(tmpdir(), 'rb-action-history-'));
});
afterEach(async () => {
  await box.cleanup();
  await rm(workDir, { recursive: true, force: true });
});

const pushDataBranch = () => pushBranch(box, {}, DATA_RUNS);

/** A step context whose CLI is the real one, in the sandbox's git environment; calls recorded. */
function context(
  env: Record<string, string>,
  calls: { args: string[]; env: Record<string, string> }[],
): StepContext {
  return {
    inputs: readInputs(env),
    workDir,
    workspace,
    setOutput: () => {},
    stepSummary: false,
    runtimeBench: (args, extra = {}, capture) => {
      calls.push({ args, env: extra });
      const gitEnv = Object.fromEntries(
        Object.entries(box.env).filter((e): e is [string, string] => e[1] !== undefined),
      );
      return spawnRuntimeBench(args, { ...gitEnv, ...extra }, capture);
    },
  };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('history from the data branch (no baseline input)', () => {
  test("the summary's check gates against exactly the runs the history step fetched", async () => {
    await pushDataBranch();
    const current = NIGHTLY.at(-1)!;
    await cp(current.file, join(workDir, 'result.json'));
    const calls: { args: string[]; env: Record<string, string> }[] = [];
    const ctx = context({ INPUT_TOKEN: 'the-token' }, calls);
    await stepHistory(ctx);
    expect(calls[0]).toEqual({
      args: [
        'data',
        'history',
        '--git-dir',
        workspace,
        '--branch',
        'benchmark-data',
        '--current',
        join(workDir, 'result.json'),
        '--out',
        historyDir(workDir),
      ],
      env: { RB_PUBLISH_TOKEN: 'the-token' },
    });
    // The default: the gate's window (10) and the previous night's, of this lineage, newest first.
    const expected = NIGHTLY.slice(0, -1)
      .slice(-20)
      .map((r) => r.path);
    expect(await filesUnder(historyDir(workDir))).toEqual(expected);

    await stepSummary(ctx);
    const check = calls.find((c) => c.args[0] === 'check')!;
    expect(check.args.slice(0, 3)).toEqual(['check', '--history', historyDir(workDir)]);
    expect(check.env).toEqual({});
    const summary = await readFile(join(workDir, 'summary.md'), 'utf8');
    expect(summary).toContain('## Regression check');
    expect(summary).not.toContain(NO_BASELINE_NOTE);
  });

  test('the first night: "no history yet", the summary is written and the step passes', async () => {
    const current = NIGHTLY.at(-1)!;
    await cp(current.file, join(workDir, 'result.json'));
    const calls: { args: string[]; env: Record<string, string> }[] = [];
    const ctx = context({}, calls);
    await stepHistory(ctx);
    expect(await filesUnder(historyDir(workDir))).toEqual([]);
    await stepSummary(ctx);
    expect(calls.map((c) => c.args[0])).toEqual(['data']);
    const summary = await readFile(join(workDir, 'summary.md'), 'utf8');
    expect(summary).toContain('No history yet on benchmark-data');
  });
});

describe('gateHistory', () => {
  test('the baseline input overrides the data branch, and the history step then reads nothing', async () => {
    const calls: { args: string[]; env: Record<string, string> }[] = [];
    const ctx = context({ INPUT_BASELINE: 'baseline/' }, calls);
    await stepHistory(ctx);
    expect(calls).toEqual([]);
    expect(await gateHistory(ctx)).toEqual({ dir: join(workspace, 'baseline/') });
  });

  test('no history step (it was skipped or failed): not checked, and the summary says why', async () => {
    const ctx = context({}, []);
    expect(await gateHistory(ctx)).toEqual({ dir: null, note: NO_BASELINE_NOTE });
    await mkdir(historyDir(workDir));
    await writeFile(join(historyDir(workDir), 'annotations.json'), '{}');
    expect(await gateHistory(ctx)).toMatchObject({
      dir: null,
      note: expect.stringMatching(/^No history yet/),
    });
  });
});
