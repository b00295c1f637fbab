// The action's steps. Each runs the same `runtime-bench` commands a user would, as child
// processes, and passes state to the next step through files in one work directory.
import { spawn } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { RbError, errorMessage, readResultFile } from '@runtime-bench/runner';
import type { RunResult } from '@runtime-bench/schemas';
import { addStackToRecord, readInstallRecord } from '@runtime-bench/runner/install';
import { installSpecs, stackUpArgs } from './cri.ts';
import type { ActionInputs } from './inputs.ts';
import { checkLines, type CheckLines, type CheckReport } from './regressions.ts';
import { buildRunConfig } from './run-config.ts';
import { annotationsFor, summaryMarkdown, writeSummary } from './summary.ts';
import { parseTimings, timingsFile } from './timings.ts';

export const RUNTIME_BENCH = new URL('../../runner/bin/runtime-bench.js', import.meta.url).pathname;

export interface StepContext {
  inputs: ActionInputs;
  /** Files shared between steps: install.json, config.yaml, result.json, summary.md. */
  workDir: string;
  /** Checkout of the calling repository (publishing needs its remote). */
  workspace: string;
  setOutput: (name: string, value: string) => void;
  /** Runs `runtime-bench <args>`; resolves on exit 0 (with stdout when `capture`). */
  runtimeBench: (args: string[], env?: Record<string, string>, capture?: boolean) => Promise<string>;
  /** Whether `writeSummary` may use GITHUB_STEP_SUMMARY. */
  stepSummary: boolean;
}

export const paths = (workDir: string) => ({
  record: join(workDir, 'install.json'),
  config: join(workDir, 'config.yaml'),
  result: join(workDir, 'result.json'),
  summary: join(workDir, 'summary.md'),
});

/** Spawns our CLI with inherited output (so the runner's log shows it as it happens), or captured stdout. */
export function spawnRuntimeBench(
  args: string[],
  env: Record<string, string> = {},
  capture = false,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNTIME_BENCH, ...args], {
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve(stdout)
        : reject(new RbError('ACTION_STEP', `runtime-bench ${args[0]} failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

export async function stepInstall(ctx: StepContext): Promise<void> {
  const { inputs } = ctx;
  await mkdir(ctx.workDir, { recursive: true });
  await ctx.runtimeBench([
    'install',
    '--source',
    inputs.source,
    '--prefix',
    inputs.prefix,
    '--state',
    paths(ctx.workDir).record,
    ...installSpecs(inputs),
  ]);
}

export async function stepUp(ctx: StepContext): Promise<void> {
  const p = paths(ctx.workDir);
  const record = await readInstallRecord(p.record);
  let base: unknown = null;
  if (ctx.inputs.config) {
    try {
      base = parse(await readFile(join(ctx.workspace, ctx.inputs.config), 'utf8'));
    } catch (error) {
      throw new RbError(
        'CONFIG_INVALID',
        `${ctx.inputs.config}: ${errorMessage(error)}`,
        'config is a path relative to the workspace',
      );
    }
  }
  const config = buildRunConfig(base, ctx.inputs, record);
  await writeFile(p.config, `# Written by the runtime-bench action.\n${stringify(config)}`);
  const args = stackUpArgs(ctx.inputs, record, p.config);
  // Noted before starting, so that cleanup stops even a half-started stack.
  await addStackToRecord(p.record, { name: ctx.inputs['stack-name'] });
  await ctx.runtimeBench(args);
}

export async function stepRun(ctx: StepContext): Promise<void> {
  const p = paths(ctx.workDir);
  await ctx.runtimeBench(['run', '--config', p.config, '--out', p.result]);
  ctx.setOutput('result-path', p.result);
}

export async function stepSummary(ctx: StepContext): Promise<void> {
  const p = paths(ctx.workDir);
  const results: { file: string; result: RunResult }[] = [
    { file: p.result, result: await readResultFile(p.result) },
  ];
  let check: CheckLines | null = null;
  if (ctx.inputs.baseline) {
    const json = await ctx.runtimeBench(
      [
        'check',
        '--history',
        join(ctx.workspace, ctx.inputs.baseline),
        '--current',
        p.result,
        '--format',
        'json',
        '--threshold',
        ctx.inputs['regression-threshold'],
      ],
      {},
      true,
    );
    check = checkLines(JSON.parse(json) as CheckReport);
  }
  const regressions = check?.regressions ?? [];
  const timings = parseTimings(await readFile(timingsFile(ctx.workDir), 'utf8').catch(() => ''));
  await writeFile(p.summary, summaryMarkdown(results, check, timings));
  if (ctx.stepSummary) await writeSummary(results, check, timings);
  ctx.setOutput('summary-path', p.summary);
  ctx.setOutput('regressions', String(regressions.length));
  // Outputs and summary first: a failing step must still hand back what it found.
  const failed = results.flatMap(({ file, result }) =>
    annotationsFor(result, file).filter((a) => a.level === 'error'),
  );
  if (failed.length > 0)
    throw new RbError(
      'RUN_FAILED',
      `${failed.length} benchmark(s) failed or did not complete: ${failed.map((a) => a.title).join('; ')}`,
      'see the job summary; the result was still written and is uploaded',
    );
  if (regressions.length > 0 && ctx.inputs['fail-on-regression'])
    throw new RbError(
      'REGRESSION',
      `${regressions.length} regression(s) against the baseline: ${regressions.join('; ')}`,
      'see the job summary; an intended change is accepted by a baseline reset in the history annotations',
    );
}

export async function stepPublish(ctx: StepContext): Promise<void> {
  const env: Record<string, string> = ctx.inputs.token ? { RB_PUBLISH_TOKEN: ctx.inputs.token } : {};
  await ctx.runtimeBench(
    ['publish', '--repo', ctx.workspace, '--branch', ctx.inputs['data-branch'], paths(ctx.workDir).result],
    env,
  );
}

export async function stepCleanup(ctx: StepContext): Promise<void> {
  const p = paths(ctx.workDir);
  if (ctx.inputs.keep) return;
  const exists = await stat(p.record).then(
    () => true,
    () => false,
  );
  if (!exists) return;
  // The stacks this action started go with their state (images, logs): --purge. `stack down` is
  // idempotent, so uninstall stopping them again is harmless.
  for (const stack of (await readInstallRecord(p.record)).stacks)
    await ctx.runtimeBench(['stack', 'down', '--name', stack.name, '--purge']);
  await ctx.runtimeBench(['uninstall', '--state', p.record]);
}

export const STEPS = {
  install: stepInstall,
  up: stepUp,
  run: stepRun,
  summary: stepSummary,
  publish: stepPublish,
  cleanup: stepCleanup,
} as const;
