// bisect-on-regression: when the gate finds a regression at a new version of a component `bisect`
// can build, the summary step keeps the bisections `check` offers, and the bisect step runs each
// with exactly that command's arguments (spawned, no shell), on a stack of its own, and adds each
// report to the job summary. The reports are files of the work directory (the `bisect-reports`
// output), each with its looks' runs beside it (bisect-N.runs); the reusable workflow's publish
// job puts both on the data branch.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as core from '@actions/core';
import { bisectArgs, bisectCommand, errorMessage, RbError, type BisectRequest } from '@runtime-bench/runner';
import type { ActionInputs } from './inputs.ts';
import type { StepContext } from './step-context.ts';

export const bisectPaths = (workDir: string) => ({
  /** The bisections the summary step's gate offered, for the bisect step. */
  requests: join(workDir, 'bisect-requests.json'),
  report: (i: number) => join(workDir, `bisect-${i + 1}.json`),
  markdown: (i: number) => join(workDir, `bisect-${i + 1}.md`),
  /** Every look's run result of bisection i. */
  runs: (i: number) => join(workDir, `bisect-${i + 1}.runs`),
});

/** The offers of several gate reports (one per node in cluster mode), each bisection once. */
export function uniqueRequests(offers: readonly BisectRequest[]): BisectRequest[] {
  return [...new Map(offers.map((r) => [bisectCommand(r), r])).values()];
}

/**
 * The stack a bisection runs on: beside the action's own (still up until cleanup), under a name
 * of its own that `stack up` accepts (as stack-name: at most 31 characters).
 */
export function bisectStackName(stackName: string): string {
  return `${stackName.slice(0, 24)}-bisect`;
}

/** `runtime-bench <args>` of bisection i: check's command, then the action's budget and files. */
export function bisectStepArgs(
  request: BisectRequest,
  inputs: Pick<ActionInputs, 'bisect-budget' | 'stack-name' | 'prefix'>,
  workDir: string,
  i: number,
): string[] {
  const p = bisectPaths(workDir);
  return [
    ...bisectArgs(request),
    // A runner has no clone of the component: its commits come from the origin the proxy names.
    ...(request.repo === undefined ? ['--clone-origin'] : []),
    '--budget',
    inputs['bisect-budget'],
    '--stack',
    bisectStackName(inputs['stack-name']),
    '--prefix',
    inputs.prefix,
    '--out',
    p.report(i),
    '--markdown',
    p.markdown(i),
    '--data-dir',
    p.runs(i),
  ];
}

/** Called by the summary step: keeps the offered bisections, says how many there are, and returns them. */
export async function keepBisectRequests(
  ctx: StepContext,
  offers: readonly BisectRequest[],
): Promise<BisectRequest[]> {
  const requests = ctx.inputs['bisect-on-regression'] ? uniqueRequests(offers) : [];
  await writeFile(bisectPaths(ctx.workDir).requests, `${JSON.stringify(requests, null, 2)}\n`);
  ctx.setOutput('bisections', String(requests.length));
  return requests;
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * Runs each kept bisection. One that ends without a culprit (no difference here, budget spent)
 * still wrote its report and is no failure of the step; one that wrote no report is.
 */
/** The bisections the summary step kept for the bisect step (none when it kept none). */
export async function bisectRequestsKept(workDir: string): Promise<BisectRequest[]> {
  return JSON.parse(
    await readFile(bisectPaths(workDir).requests, 'utf8').catch(() => '[]'),
  ) as BisectRequest[];
}

export async function stepBisect(ctx: StepContext): Promise<void> {
  const p = bisectPaths(ctx.workDir);
  const requests = await bisectRequestsKept(ctx.workDir);
  const reports: string[] = [];
  const failed: string[] = [];
  for (const [i, request] of requests.entries()) {
    console.log(`bisecting: ${bisectCommand(request)} --budget ${ctx.inputs['bisect-budget']}`);
    try {
      await ctx.runtimeBench(bisectStepArgs(request, ctx.inputs, ctx.workDir, i));
    } catch (error) {
      if (!(await exists(p.report(i)))) failed.push(`${bisectCommand(request)}: ${errorMessage(error)}`);
    }
    if (!(await exists(p.report(i)))) continue;
    reports.push(p.report(i));
    if (ctx.stepSummary) core.summary.addRaw(await readFile(p.markdown(i), 'utf8'), true);
  }
  if (ctx.stepSummary && reports.length > 0) await core.summary.write();
  ctx.setOutput('bisect-reports', reports.join('\n'));
  if (failed.length > 0)
    throw new RbError(
      'BISECT_FAILED',
      `${failed.length} bisection(s) wrote no report: ${failed.join('; ')}`,
      'see the bisect step log',
    );
}
