// The gate's history. With `baseline` set, that directory of the workspace (an override); without
// it, the nights this nightly published: the history step fetches them from the data branch
// (`runtime-bench data history`: read-only, shallow, only the runs of each result's lineage) into
// the work directory, and the summary step's `check` reads them. The token reaches this step
// because a private repository's branch cannot be read without it; it goes to the CLI as
// RB_PUBLISH_TOKEN (an HTTP header scoped to the remote), never into argv or the git config.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ActionInputs } from './inputs.ts';

/** What the history needs of a step's context (steps.ts StepContext, which it is given). */
export interface HistoryContext {
  inputs: ActionInputs;
  workDir: string;
  workspace: string;
  runtimeBench: (args: string[], env?: Record<string, string>, capture?: boolean) => Promise<string>;
}

export const historyDir = (workDir: string): string => join(workDir, 'history');

/** The history `check` reads, and why there is none when there is none. */
export type GateHistory = { dir: string } | { dir: null; note: string };

export const NO_BASELINE_NOTE =
  'No history: no baseline given and none fetched from the data branch (see the history step): this run was not checked for regressions.';

/** Whether `dir` holds any result file (at any depth), i.e. a night to gate against. */
async function holdsRuns(dir: string): Promise<boolean> {
  const names = await readdir(dir, { recursive: true }).catch(() => null);
  return names !== null && names.some((n) => /(^|\/)[^/]+\.json$/.test(n) && !/^annotations\./.test(n));
}

/**
 * Where the summary step's gate reads its history: the baseline input, else what the history
 * step fetched; none yet on the first night (or when the fetch failed), with the reason.
 */
export async function gateHistory(ctx: Omit<HistoryContext, 'runtimeBench'>): Promise<GateHistory> {
  if (ctx.inputs.baseline) return { dir: join(ctx.workspace, ctx.inputs.baseline) };
  const dir = historyDir(ctx.workDir);
  const fetched = await readdir(dir).then(
    () => true,
    () => false,
  );
  if (!fetched) return { dir: null, note: NO_BASELINE_NOTE };
  if (!(await holdsRuns(dir)))
    return {
      dir: null,
      note: `No history yet on ${ctx.inputs['data-branch']}: the first night of this host class and these targets is not checked; the next is gated against it.`,
    };
  return { dir };
}

/** `runtime-bench data history …` for one result file: the workspace's origin, the data branch. */
export function historyArgs(ctx: Omit<HistoryContext, 'runtimeBench'>, file: string): string[] {
  return [
    'data',
    'history',
    '--git-dir',
    ctx.workspace,
    '--branch',
    ctx.inputs['data-branch'],
    '--current',
    file,
    '--out',
    historyDir(ctx.workDir),
  ];
}

/** The history step: fetches each result's history (one per node in cluster mode) into one directory. */
export async function stepHistory(ctx: HistoryContext, resultFiles: readonly string[]): Promise<void> {
  if (ctx.inputs.baseline) {
    console.log(`baseline ${ctx.inputs.baseline} given: the data branch is not read`);
    return;
  }
  await rm(historyDir(ctx.workDir), { recursive: true, force: true });
  const env: Record<string, string> = ctx.inputs.token ? { RB_PUBLISH_TOKEN: ctx.inputs.token } : {};
  for (const file of resultFiles) await ctx.runtimeBench(historyArgs(ctx, file), env);
}
